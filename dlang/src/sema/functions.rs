//! D's built-in functions: actions, subroutines and aggregating functions, each with
//! the prototype classic DTrace declares for it (`string(const char *, int, [int])`),
//! and the prototype check that produces D_PROTO_LEN / D_PROTO_ARG.

use difvm::isa::subroutine as subr;

use crate::diagnostics::{Diagnostic, ErrorTag, Span};
use crate::types::{parse_type_name, TypeId, TypeTable};

/// Actions: functions that may only be used as statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionFunction {
    Trace,
    Print,
    Tracemem,
    Printf,
    Printa,
    Stack,
    Ustack,
    Jstack,
    Sym,
    Func,
    Mod,
    Usym,
    Ufunc,
    Umod,
    Uaddr,
    Exit,
    Speculate,
    Commit,
    Discard,
    Clear,
    Trunc,
    Normalize,
    Denormalize,
    Setopt,
    Ftruncate,
    System,
    Freopen,
    Raise,
    Stop,
    Chill,
    Breakpoint,
    Panic,
}

/// Aggregating functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggregatingFunction {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Stddev,
    Quantize,
    Lquantize,
    Llquantize,
}

/// What a function name denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// A subroutine with its `call` number.
    Subroutine(u16),
    Action(ActionFunction),
    Aggregating(AggregatingFunction),
}

impl FunctionKind {
    /// The word messages use for the kind (`action`, `aggregating function`, …).
    pub fn kind_name(self) -> &'static str {
        match self {
            FunctionKind::Subroutine(_) => "function",
            FunctionKind::Action(_) => "action",
            FunctionKind::Aggregating(_) => "aggregating function",
        }
    }
}

/// One parameter of a prototype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parameter {
    /// `@`: any type.
    Any,
    Typed(TypeId),
}

/// A parsed prototype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prototype {
    pub return_type: TypeId,
    pub parameters: Vec<Parameter>,
    /// Number of required parameters when some are optional (`[int]`).
    pub required: Option<usize>,
    /// Trailing `...`.
    pub varargs: bool,
}

use ActionFunction as A;
use AggregatingFunction as G;
use FunctionKind::{Action, Aggregating, Subroutine};

/// Every function: name, kind, prototype.
const FUNCTIONS: &[(&str, FunctionKind, &str)] = &[
    // The D library's own (procfs.d's pr_psargs); `_` sorts before the letters.
    (
        "__copyin_arguments",
        Subroutine(subr::COPYIN_ARGUMENTS),
        "string(uintptr_t, uintptr_t)",
    ),
    ("alloca", Subroutine(subr::ALLOCA), "void *(size_t)"),
    ("avg", Aggregating(G::Avg), "void(@)"),
    (
        "basename",
        Subroutine(subr::BASENAME),
        "string(const char *)",
    ),
    (
        "bcopy",
        Subroutine(subr::BCOPY),
        "void(void *, void *, size_t)",
    ),
    ("breakpoint", Action(A::Breakpoint), "void()"),
    ("chill", Action(A::Chill), "void(int)"),
    (
        "cleanpath",
        Subroutine(subr::CLEANPATH),
        "string(const char *)",
    ),
    ("clear", Action(A::Clear), "void(...)"),
    ("commit", Action(A::Commit), "void(int)"),
    (
        "copyin",
        Subroutine(subr::COPYIN),
        "void *(uintptr_t, size_t)",
    ),
    (
        "copyinstr",
        Subroutine(subr::COPYINSTR),
        "string(uintptr_t, [size_t])",
    ),
    (
        "copyinto",
        Subroutine(subr::COPYINTO),
        "void(uintptr_t, size_t, void *)",
    ),
    (
        "copyout",
        Subroutine(subr::COPYOUT),
        "void(void *, uintptr_t, size_t)",
    ),
    (
        "copyoutstr",
        Subroutine(subr::COPYOUTSTR),
        "void(char *, uintptr_t, size_t)",
    ),
    ("count", Aggregating(G::Count), "void()"),
    ("d_path", Subroutine(subr::D_PATH), "string(struct path *)"),
    ("denormalize", Action(A::Denormalize), "void(...)"),
    ("dirname", Subroutine(subr::DIRNAME), "string(const char *)"),
    ("discard", Action(A::Discard), "void(int)"),
    ("exit", Action(A::Exit), "void(int)"),
    ("freopen", Action(A::Freopen), "void(@, ...)"),
    ("ftruncate", Action(A::Ftruncate), "void()"),
    ("func", Action(A::Func), "_symaddr(uintptr_t)"),
    ("getmajor", Subroutine(subr::GETMAJOR), "dev_t(dev_t)"),
    ("getminor", Subroutine(subr::GETMINOR), "dev_t(dev_t)"),
    ("htonl", Subroutine(subr::HTONL), "uint32_t(uint32_t)"),
    ("htonll", Subroutine(subr::HTONLL), "uint64_t(uint64_t)"),
    ("htons", Subroutine(subr::HTONS), "uint16_t(uint16_t)"),
    (
        "index",
        Subroutine(subr::INDEX),
        "int(const char *, const char *, [int])",
    ),
    (
        "inet_ntoa",
        Subroutine(subr::INET_NTOA),
        "string(ipaddr_t *)",
    ),
    (
        "inet_ntoa6",
        Subroutine(subr::INET_NTOA6),
        "string(in6_addr_t *, [int])",
    ),
    (
        "inet_ntop",
        Subroutine(subr::INET_NTOP),
        "string(int, void *)",
    ),
    (
        "json",
        Subroutine(subr::JSON),
        "string(const char *, const char *)",
    ),
    ("jstack", Action(A::Jstack), "stack(...)"),
    (
        "link_ntop",
        Subroutine(subr::LINK_NTOP),
        "string(int, void *)",
    ),
    (
        "llquantize",
        Aggregating(G::Llquantize),
        "void(@, int16_t, int16_t, int16_t, int16_t, ...)",
    ),
    (
        "lltostr",
        Subroutine(subr::LLTOSTR),
        "string(int64_t, [int])",
    ),
    (
        "lquantize",
        Aggregating(G::Lquantize),
        "void(@, int32_t, int32_t, ...)",
    ),
    ("max", Aggregating(G::Max), "void(@)"),
    ("min", Aggregating(G::Min), "void(@)"),
    ("mod", Action(A::Mod), "_symaddr(uintptr_t)"),
    (
        "mutex_owned",
        Subroutine(subr::MUTEX_OWNED),
        "int(struct mutex *)",
    ),
    (
        "mutex_owner",
        Subroutine(subr::MUTEX_OWNER),
        "struct task_struct *(struct mutex *)",
    ),
    (
        "mutex_type_adaptive",
        Subroutine(subr::MUTEX_TYPE_ADAPTIVE),
        "int(struct mutex *)",
    ),
    (
        "mutex_type_spin",
        Subroutine(subr::MUTEX_TYPE_SPIN),
        "int(struct mutex *)",
    ),
    ("normalize", Action(A::Normalize), "void(...)"),
    ("ntohl", Subroutine(subr::NTOHL), "uint32_t(uint32_t)"),
    ("ntohll", Subroutine(subr::NTOHLL), "uint64_t(uint64_t)"),
    ("ntohs", Subroutine(subr::NTOHS), "uint16_t(uint16_t)"),
    ("panic", Action(A::Panic), "void()"),
    ("print", Action(A::Print), "void(@)"),
    ("printa", Action(A::Printa), "void(@, ...)"),
    ("printf", Action(A::Printf), "void(@, ...)"),
    ("progenyof", Subroutine(subr::PROGENYOF), "int(pid_t)"),
    ("quantize", Aggregating(G::Quantize), "void(@, [@])"),
    ("raise", Action(A::Raise), "void(int)"),
    ("rand", Subroutine(subr::RAND), "int()"),
    (
        "rindex",
        Subroutine(subr::RINDEX),
        "int(const char *, const char *, [int])",
    ),
    (
        "rw_iswriter",
        Subroutine(subr::RW_ISWRITER),
        "int(rwlock_t *)",
    ),
    (
        "rw_read_held",
        Subroutine(subr::RW_READ_HELD),
        "int(rwlock_t *)",
    ),
    (
        "rw_write_held",
        Subroutine(subr::RW_WRITE_HELD),
        "int(rwlock_t *)",
    ),
    (
        "setopt",
        Action(A::Setopt),
        "void(const char *, [const char *])",
    ),
    ("speculate", Action(A::Speculate), "void(int)"),
    ("speculation", Subroutine(subr::SPECULATION), "int()"),
    ("stack", Action(A::Stack), "stack(...)"),
    ("stddev", Aggregating(G::Stddev), "void(@)"),
    ("stop", Action(A::Stop), "void()"),
    (
        "strchr",
        Subroutine(subr::STRCHR),
        "string(const char *, char)",
    ),
    (
        "strjoin",
        Subroutine(subr::STRJOIN),
        "string(const char *, const char *)",
    ),
    ("strlen", Subroutine(subr::STRLEN), "size_t(const char *)"),
    (
        "strrchr",
        Subroutine(subr::STRRCHR),
        "string(const char *, char)",
    ),
    (
        "strstr",
        Subroutine(subr::STRSTR),
        "string(const char *, const char *)",
    ),
    (
        "strtok",
        Subroutine(subr::STRTOK),
        "string(const char *, const char *)",
    ),
    (
        "strtoll",
        Subroutine(subr::STRTOLL),
        "int64_t(const char *, [int])",
    ),
    (
        "substr",
        Subroutine(subr::SUBSTR),
        "string(const char *, int, [int])",
    ),
    ("sum", Aggregating(G::Sum), "void(@)"),
    ("sym", Action(A::Sym), "_symaddr(uintptr_t)"),
    ("system", Action(A::System), "void(@, ...)"),
    ("tolower", Subroutine(subr::TOLOWER), "string(const char *)"),
    ("toupper", Subroutine(subr::TOUPPER), "string(const char *)"),
    ("trace", Action(A::Trace), "void(@)"),
    ("tracemem", Action(A::Tracemem), "void(@, size_t, ...)"),
    ("trunc", Action(A::Trunc), "void(...)"),
    ("uaddr", Action(A::Uaddr), "_usymaddr(uintptr_t)"),
    ("ufunc", Action(A::Ufunc), "_usymaddr(uintptr_t)"),
    ("umod", Action(A::Umod), "_usymaddr(uintptr_t)"),
    ("ustack", Action(A::Ustack), "stack(...)"),
    ("usym", Action(A::Usym), "_usymaddr(uintptr_t)"),
];

/// Looks up a function by name.
pub fn lookup_function(name: &str) -> Option<(FunctionKind, &'static str)> {
    FUNCTIONS
        .binary_search_by(|(candidate, _, _)| (*candidate).cmp(name))
        .ok()
        .map(|index| (FUNCTIONS[index].1, FUNCTIONS[index].2))
}

/// Parses a prototype string from the table. The strings are fixed and well formed;
/// an unresolvable parameter type degrades to `@`.
pub fn parse_prototype(types: &mut TypeTable, text: &str) -> Prototype {
    let open = text.find('(').unwrap_or(text.len());
    let return_type =
        parse_type_name(types, text[..open].trim()).unwrap_or(types.well_known().void);
    let inside = text
        .get(open + 1..text.len().saturating_sub(1))
        .unwrap_or("");
    let mut parameters = Vec::new();
    let mut required = None;
    let mut varargs = false;
    for item in inside
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
    {
        if item == "..." {
            varargs = true;
            continue;
        }
        let (optional, item) = match item
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
        {
            Some(inner) => (true, inner),
            None => (false, item),
        };
        if optional && required.is_none() {
            required = Some(parameters.len());
        }
        let parameter = if item == "@" {
            Parameter::Any
        } else {
            parse_type_name(types, item)
                .map(Parameter::Typed)
                .unwrap_or(Parameter::Any)
        };
        parameters.push(parameter);
    }
    Prototype {
        return_type,
        parameters,
        required,
        varargs,
    }
}

/// Checks the number of arguments against a prototype: the D_PROTO_LEN message uses
/// `prefix`/`suffix` around the name (`printf( )`, `a[ ]`, `@a[ ]`) and says `key` for
/// arrays and aggregations.
pub fn check_argument_count(
    name_with_affixes: &str,
    prototype: &Prototype,
    passed: usize,
    keys: bool,
    span: &Span,
) -> Result<(), Diagnostic> {
    let noun = if keys { "key" } else { "arg" };
    let plural = if passed == 1 { " " } else { "s " };
    let (bound, expected) = if prototype.varargs {
        if passed >= prototype.parameters.len() {
            return Ok(());
        }
        ("at least ", prototype.parameters.len())
    } else if let Some(required) = prototype.required {
        if passed < required {
            ("at least ", required)
        } else if passed > prototype.parameters.len() {
            ("at most ", prototype.parameters.len())
        } else {
            return Ok(());
        }
    } else {
        if passed == prototype.parameters.len() {
            return Ok(());
        }
        ("", prototype.parameters.len())
    };
    Err(Diagnostic::new(
        ErrorTag::D_PROTO_LEN,
        span.clone(),
        format!("{name_with_affixes} prototype mismatch: {passed} {noun}{plural}passed, {bound}{expected} expected"),
    ))
}

/// The D_PROTO_ARG diagnostic for argument (or key) `number` (1-based).
pub fn incompatible_argument(
    name_with_affixes: &str,
    number: usize,
    prototype_type: &str,
    argument_type: &str,
    keys: bool,
    span: &Span,
) -> Diagnostic {
    let noun = if keys { "key" } else { "argument" };
    Diagnostic::new(
        ErrorTag::D_PROTO_ARG,
        span.clone(),
        format!(
            "{name_with_affixes} {noun} #{number} is incompatible with prototype:\n\tprototype: {prototype_type}\n\t{noun:>9}: {argument_type}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_function_table_is_sorted_for_binary_search() {
        assert!(FUNCTIONS.windows(2).all(|pair| pair[0].0 < pair[1].0));
        for (name, _, _) in FUNCTIONS {
            assert!(lookup_function(name).is_some(), "{name}");
        }
    }

    #[test]
    fn every_prototype_parses() {
        let mut types = TypeTable::new(256);
        for (name, _, text) in FUNCTIONS {
            let prototype = parse_prototype(&mut types, text);
            assert!(
                prototype
                    .parameters
                    .iter()
                    .all(|parameter| *parameter != Parameter::Any
                        || text.contains('@')
                        // A kernel typedef, known only from the kernel's types.
                        || text.contains("rwlock_t")),
                "{name}: {text}"
            );
        }
    }
}
