//! Golden tests of semantic errors: each small D program must fail with the exact D_*
//! tag and message DTrace gives (declarations, names, types, operators, probe
//! descriptions, macros).

mod compile_support;

use compile_support::{compile_with, error_of, error_with, options};
use dlang::compile::{CompileOptions, ProbeSpecifierOption};

/// `program` must fail with `tag` and exactly `message`.
fn check(program: &str, tag: &str, message: &str) {
    let (found_tag, found_message) = error_of(program);
    assert_eq!(
        (found_tag.as_str(), found_message.as_str()),
        (tag, message),
        "program: {program}"
    );
}

/// Like [`check`] with compile options.
fn check_with(options: &CompileOptions, program: &str, tag: &str, message: &str) {
    let (found_tag, found_message) = error_with(program, options);
    assert_eq!(
        (found_tag.as_str(), found_message.as_str()),
        (tag, message),
        "program: {program}"
    );
}

#[test]
fn program_and_probe_descriptions() {
    check("", "D_EMPTY", "empty D program translation unit");
    check(
        "foo:bar:baz:qux { }",
        "D_PDESC_ZERO",
        "probe description foo:bar:baz:qux does not match any probes",
    );
    check(
        "nosuchprobe { }",
        "D_PDESC_ZERO",
        "probe description :::nosuchprobe does not match any probes",
    );
    check(
        "a:b:c:d:e { }",
        "D_PDESC_INVAL",
        "invalid probe description \"a:b:c:d:e\": Overspecified probe description",
    );
    check(
        "99999 { }",
        "D_PDESC_INVAL",
        "invalid probe identifier 99999: Unknown probe identifier",
    );
}

#[test]
fn command_line_probe_descriptions() {
    let error = compile_support::compile_command_line(ProbeSpecifierOption::Provider, "profile:::")
        .unwrap_err();
    assert_eq!(error.diagnostic.tag.name(), "D_PDESC_INVAL");
    assert_eq!(
        error.diagnostic.message,
        "invalid probe description \"profile:::\": Overspecified probe description"
    );
    let error =
        compile_support::compile_command_line(ProbeSpecifierOption::Provider, "1").unwrap_err();
    assert_eq!(
        error.diagnostic.message,
        "probe identifier 1 not permitted when specifying provider"
    );
    let error =
        compile_support::compile_command_line(ProbeSpecifierOption::Name, "BEGIN { trace(x); }")
            .unwrap_err();
    assert_eq!(
        error.diagnostic.message,
        "failed to resolve x: Unknown variable name"
    );
    assert_eq!(
        error.diagnostic.region,
        dlang::diagnostics::Region::ActionList
    );
    let error = compile_support::compile_command_line(ProbeSpecifierOption::Name, "BEGIN /y/ { }")
        .unwrap_err();
    assert_eq!(
        error.diagnostic.region,
        dlang::diagnostics::Region::Predicate
    );
    let message = error.message(
        "dtrace",
        &[dlang::compile::ProgramSource::command_line(
            ProbeSpecifierOption::Name,
            "BEGIN /y/ { }",
        )],
        false,
    );
    assert_eq!(message, "dtrace: invalid probe specifier BEGIN /y/ { }: in predicate: failed to resolve y: Unknown variable name");
}

/// DTrace finds a division by a constant zero while it parses, before it checks any
/// clause: a command-line program's message has no `in action list: ` region, and the
/// error comes before the checks of the operands.
#[test]
fn division_by_constant_zero_is_a_parse_error() {
    for program in [
        "BEGIN { x = 1 / 0; }",
        "BEGIN { trace(y % (1 - 1)); }",
        "BEGIN { x = 2; x /= (char)256; }",
    ] {
        let error =
            compile_support::compile_command_line(ProbeSpecifierOption::Name, program).unwrap_err();
        assert_eq!(error.diagnostic.tag.name(), "D_DIV_ZERO", "{program}");
        let message = error.message(
            "dtrace",
            &[dlang::compile::ProgramSource::command_line(
                ProbeSpecifierOption::Name,
                program,
            )],
            false,
        );
        assert_eq!(
            message,
            format!(
                "dtrace: invalid probe specifier {program}: expression contains division by zero"
            )
        );
    }
    let error =
        compile_support::compile_command_line(ProbeSpecifierOption::Name, "BEGIN /1 % 0/ { }")
            .unwrap_err();
    assert_eq!(error.diagnostic.region, dlang::diagnostics::Region::Parsing);
    // So are offsetof() (computed while parsing, a constant divisor too) and sizeof of
    // a type name of no size; sizeof of an expression is checked with the clause.
    for (program, tag) in [
        (
            "struct s { int a; }; BEGIN { x = 1; trace(x / offsetof(struct s, a)); }",
            "D_DIV_ZERO",
        ),
        (
            "struct s { int a; }; BEGIN { trace(offsetof(struct s, b)); }",
            "D_UNKNOWN",
        ),
        ("BEGIN { trace(offsetof(int, b)); }", "D_OFFSETOF_TYPE"),
    ] {
        let error =
            compile_support::compile_command_line(ProbeSpecifierOption::Name, program).unwrap_err();
        assert_eq!(
            (error.diagnostic.tag.name(), error.diagnostic.region),
            (tag, dlang::diagnostics::Region::Parsing),
            "{program}"
        );
    }
    let error = compile_support::compile_command_line(
        ProbeSpecifierOption::Name,
        "BEGIN { trace(sizeof (struct nosuchtag)); }",
    )
    .unwrap_err();
    assert_eq!(
        (error.diagnostic.tag.name(), error.diagnostic.region),
        ("D_SIZEOF_TYPE", dlang::diagnostics::Region::Parsing)
    );
    let error = compile_support::compile_command_line(
        ProbeSpecifierOption::Name,
        "BEGIN { trace(sizeof (trace(1))); }",
    )
    .unwrap_err();
    assert_eq!(
        (error.diagnostic.tag.name(), error.diagnostic.region),
        ("D_SIZEOF_TYPE", dlang::diagnostics::Region::ActionList)
    );
}

#[test]
fn names_and_variables() {
    check(
        "BEGIN { trace(x); }",
        "D_IDENT_UNDEF",
        "failed to resolve x: Unknown variable name",
    );
    check(
        "END { trace(start); } BEGIN { start = 1; }",
        "D_IDENT_UNDEF",
        "failed to resolve start: Unknown variable name",
    );
    check(
        "BEGIN { x = x + 1; }",
        "D_IDENT_UNDEF",
        "failed to resolve x: Unknown variable name",
    );
    check(
        "BEGIN { trace(self->x); }",
        "D_VAR_UNDEF",
        "self->x has not yet been declared or assigned",
    );
    check(
        "BEGIN { trace(this->y); }",
        "D_VAR_UNDEF",
        "this->y has not yet been declared or assigned",
    );
    check(
        "BEGIN { p -= 1; }",
        "D_VAR_UNDEF",
        "p has not yet been declared or assigned",
    );
    check(
        "BEGIN { pid = 1; }",
        "D_OP_WRITE",
        "operator = can only be applied to a writable variable",
    );
    check(
        "BEGIN { timestamp++; }",
        "D_OP_WRITE",
        "operator ++ can only be applied to a writable variable",
    );
    check(
        "BEGIN { x = 1; (x + 1) = 2; }",
        "D_OP_LVAL",
        "operator = requires modifiable lvalue as an operand",
    );
    check(
        "BEGIN { x = 1; x = \"s\"; }",
        "D_OP_INCOMPAT",
        "operands have incompatible types: \"int\" = \"string\"",
    );
    check(
        "BEGIN { a[1] = 1; trace(a); }",
        "D_IDENT_BADREF",
        "array a may not be referenced without a subscript",
    );
    check(
        "BEGIN { a[1] = 1; trace(a[1, 2]); }",
        "D_PROTO_LEN",
        "a[ ] prototype mismatch: 2 keys passed, 1 expected",
    );
    check(
        "BEGIN { a[1] = 1; trace(a[\"x\"]); }",
        "D_PROTO_ARG",
        "a[ ] key #1 is incompatible with prototype:\n\tprototype: int\n\t      key: string",
    );
    check(
        "BEGIN { a[bcopy(0, 0, 0)] = 1; }",
        "D_KEY_TYPE",
        "void expression may not be used as associative array index: key #1",
    );
    check(
        "BEGIN { this->a[1] = 2; }",
        "D_ARR_LOCAL",
        "local variables may not be used as associative arrays: a",
    );
    check(
        "int a[5]; BEGIN { a[5] = 1; }",
        "D_ARR_BOUNDS",
        "index outside array bounds: 5, max is 4",
    );
    check(
        "int a[5]; BEGIN { a[\"x\"] = 1; }",
        "D_OP_INT",
        "operator [ ] requires an index of integral type",
    );
    check(
        "int a[5]; BEGIN { trace(a[5]); }",
        "D_ARR_BOUNDS",
        "index outside array bounds: 5, max is 4",
    );
    // DTrace reads E1[E2] of anything but an array variable or a pointer as
    // *(E1 + E2).
    check(
        "BEGIN { x = 1; trace(x[0]); }",
        "D_DEREF_NONPTR",
        "cannot dereference non-pointer type",
    );
    check(
        "struct s { int a; }; struct s v; BEGIN { trace(v[0]); }",
        "D_OP_INCOMPAT",
        "operands have incompatible types: \"struct s\" + \"int\"",
    );
    check(
        "BEGIN { trace(curpsinfo->pr_pid); }",
        "D_OP_INCOMPLETE",
        "psinfo_t's member pr_pid needs the kernel's types (BTF), which are not available",
    );
    check(
        "BEGIN { trace(`jiffies); }",
        "D_SYM_NOTYPES",
        "failed to resolve `jiffies: kernel symbol information is not available",
    );
}

#[test]
fn functions_and_prototypes() {
    check(
        "BEGIN { foo(); }",
        "D_FUNC_UNDEF",
        "undefined function name: foo",
    );
    check(
        "BEGIN { x = 1; x(); }",
        "D_FUNC_IDKIND",
        "scalar 'x' may not be referenced as a function",
    );
    check(
        "BEGIN { exit(); }",
        "D_PROTO_LEN",
        "exit( ) prototype mismatch: 0 args passed, 1 expected",
    );
    check(
        "BEGIN { speculate(); }",
        "D_PROTO_LEN",
        "speculate( ) prototype mismatch: 0 args passed, 1 expected",
    );
    check(
        "BEGIN { trace(substr(\"a\")); }",
        "D_PROTO_LEN",
        "substr( ) prototype mismatch: 1 arg passed, at least 2 expected",
    );
    check(
        "BEGIN { trace(substr(\"a\", 1, 2, 3)); }",
        "D_PROTO_LEN",
        "substr( ) prototype mismatch: 4 args passed, at most 3 expected",
    );
    check(
        "BEGIN { trace(strlen(1)); }",
        "D_PROTO_ARG",
        "strlen( ) argument #1 is incompatible with prototype:\n\tprototype: const char *\n\t argument: int",
    );
    check(
        "BEGIN { x = count(); }",
        "D_CG_EXPR",
        "aggregating function count( ) may not be called from a D expression (D program context required)",
    );
    // DTrace checks the prototype (the action's value is `void`) before its code
    // generator refuses the action in an expression.
    check(
        "BEGIN { trace(strlen(trace(1))); }",
        "D_PROTO_ARG",
        "strlen( ) argument #1 is incompatible with prototype:\n\tprototype: const char *\n\t argument: void",
    );
    check(
        "BEGIN { trace(trace(1)); }",
        "D_TRACE_VOID",
        "trace( ) may not be applied to a void expression",
    );
    check(
        "BEGIN { printf(\"%d\", count()); }",
        "D_PRINTF_ARG_TYPE",
        "printf( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: %d\n\t prototype: char, short, int, long, or long long\n\t  argument: void",
    );
    check(
        "BEGIN { mutex_owned(); }",
        "D_PROTO_LEN",
        "mutex_owned( ) prototype mismatch: 0 args passed, 1 expected",
    );
    check(
        "BEGIN { mutex_owned(trace(1)); }",
        "D_PROTO_ARG",
        "mutex_owned( ) argument #1 is incompatible with prototype:\n\tprototype: struct mutex *\n\t argument: void",
    );
    check(
        "BEGIN { x = 1 + trace(1); }",
        "D_OP_ACT",
        "operator + operands cannot be actions",
    );
    check(
        "BEGIN { x = 1 ? trace(1) : 2; }",
        "D_OP_ACT",
        "action cannot be used in a conditional context",
    );
    check(
        "BEGIN { trace(alloca(100000)); }",
        "D_ALLOCA_SIZE",
        "alloca(100000) size larger than scratchsize 264",
    );
}

#[test]
fn operators() {
    check(
        "BEGIN { trace(\"a\" % 2); }",
        "D_OP_INT",
        "operator % requires operands of integral type",
    );
    check(
        "BEGIN { trace(\"a\" * 2); }",
        "D_OP_ARITH",
        "operator * requires operands of arithmetic type",
    );
    check(
        "BEGIN { trace(\"a\" && 1); }",
        "D_OP_SCALAR",
        "operator && requires operands of scalar type",
    );
    check(
        "BEGIN { trace(-\"a\"); }",
        "D_OP_ARITH",
        "operator - requires an operand of arithmetic type",
    );
    check(
        "BEGIN { trace(~\"a\"); }",
        "D_OP_INT",
        "operator ~ requires an operand of integral type",
    );
    check(
        "BEGIN { trace(!\"a\"); }",
        "D_OP_SCALAR",
        "operator ! requires an operand of scalar type",
    );
    check(
        "BEGIN { trace(\"a\" == 1); }",
        "D_OP_INCOMPAT",
        "operands have incompatible types: \"string\" == \"int\"",
    );
    check(
        "BEGIN { trace(\"a\" ? 1 : 2); }",
        "D_OP_SCALAR",
        "operator ?: expression must be of scalar type",
    );
    check(
        "BEGIN { trace(1 ? 1 : \"a\"); }",
        "D_OP_INCOMPAT",
        "operator ?: operands must have compatible types",
    );
    check(
        "BEGIN { x = 1 / 0; }",
        "D_DIV_ZERO",
        "expression contains division by zero",
    );
    check(
        "BEGIN { y = 2; x = y % (1 - 1); }",
        "D_DIV_ZERO",
        "expression contains division by zero",
    );
    check(
        "BEGIN { trace((int)\"x\"); }",
        "D_CAST_INVAL",
        "invalid cast expression: \"string\" to \"int\"",
    );
    check(
        "BEGIN { p = (void *)0; p++; }",
        "D_OP_VFPTR",
        "operator ++ requires an operand of known size",
    );
    check(
        "BEGIN { s = \"a\"; s++; }",
        "D_OP_SCALAR",
        "operator ++ requires operand of scalar type",
    );
    check(
        "BEGIN /\"x\"/ { }",
        "D_PRED_SCALAR",
        "predicate result must be of scalar type",
    );
    check(
        "BEGIN { @a = count(); x = @a + 1; }",
        "D_OP_INCOMPAT",
        "operator + operands cannot be aggregations",
    );
}

#[test]
fn pointers_members_and_sizes() {
    check(
        "BEGIN { self->x = 1; trace(&self->x); }",
        "D_ADDROF_VAR",
        "cannot take address of dynamic variable",
    );
    check(
        "BEGIN { trace(&1); }",
        "D_ADDROF_LVAL",
        "unacceptable operand for unary & operator",
    );
    check(
        "BEGIN { x = 1; trace(*x); }",
        "D_DEREF_NONPTR",
        "cannot dereference non-pointer type",
    );
    check(
        "BEGIN { trace(*(void *)0); }",
        "D_DEREF_VOID",
        "cannot dereference pointer to void",
    );
    check(
        "BEGIN { x = 1; trace(x.a); }",
        "D_OP_SOU",
        "operator . cannot be applied to type \"int\": must be applied to a struct or union",
    );
    check(
        "BEGIN { x = 1; trace(x->a); }",
        "D_OP_PTR",
        "operator -> must be applied to a pointer",
    );
    check(
        "BEGIN { trace(curthread->pid); }",
        "D_OP_INCOMPLETE",
        "operator -> cannot be applied to a forward declaration: no struct task_struct definition is available",
    );
    check(
        "struct s { int a; }; BEGIN { trace(offsetof(struct s, b)); }",
        "D_UNKNOWN",
        "failed to determine offset of b: Member name not found",
    );
    check(
        "BEGIN { trace(offsetof(int, a)); }",
        "D_OFFSETOF_TYPE",
        "offsetof operand must be a struct or union type",
    );
    check(
        "struct s { int a : 3; }; BEGIN { trace(offsetof(struct s, a)); }",
        "D_OFFSETOF_BITFIELD",
        "cannot take offset of a bit-field: a",
    );
    check(
        "struct s { int a : 3; }; BEGIN { this->p = (struct s *)alloca(8); trace(sizeof (this->p->a)); }",
        "D_SIZEOF_BITFIELD",
        "cannot apply sizeof to a bit-field",
    );
    check(
        "struct s { int a : 3; }; BEGIN { this->p = (struct s *)alloca(8); trace(&this->p->a); }",
        "D_ADDROF_BITFIELD",
        "cannot take address of bit-field",
    );
    check(
        "BEGIN { trace(sizeof (void)); }",
        "D_SIZEOF_TYPE",
        "cannot apply sizeof to an operand of unknown size",
    );
    check(
        "struct s { int a; }; BEGIN { this->p = (struct s *)alloca(8); trace(stringof(*this->p)); }",
        "D_STRINGOF_TYPE",
        "cannot apply stringof to a value of type struct s",
    );
    check(
        "struct s { char c[4]; }; BEGIN { this->p = (struct s *)alloca(4); this->p->c = 0; }",
        "D_OP_ARRFUN",
        "operator = may not be applied to operand of type \"char [4]\"",
    );
}

#[test]
fn probe_arguments() {
    check(
        "inline int x = args[0];",
        "D_ARGS_NONE",
        "args[ ] may not be referenced outside of a probe clause",
    );
    check(
        "syscall::read:entry { trace(args[5]); }",
        "D_ARGS_IDX",
        "index 5 is out of range for syscall::read:entry args[ ]",
    );
    check(
        "syscall::read: { trace(args[0]); }",
        "D_ARGS_MULTI",
        "args[ ] may not be referenced because probe description syscall::read: matches an unstable set of probes",
    );
    check(
        "BEGIN { trace(uregs[\"x\"]); }",
        "D_REGS_IDX",
        "index for register array must be of integral type",
    );
}

#[test]
fn declarations() {
    check(
        "static int x;",
        "D_DECL_BADCLASS",
        "specified storage class not appropriate in D",
    );
    check(
        "int x; char x;",
        "D_DECL_IDRED",
        "identifier redeclared: x\n\t current: scalar char\n\tprevious: scalar int",
    );
    check(
        "int pid;",
        "D_DECL_IDRED",
        "built-in identifier redeclared: pid",
    );
    check("void x;", "D_DECL_VOIDOBJ", "cannot have void object: x");
    check(
        "unsigned void x;",
        "D_DECL_VOIDATTR",
        "invalid type declaration: attributes may not be used with void type",
    );
    check(
        "long char x;",
        "D_DECL_CHARATTR",
        "invalid type declaration: short and long may not be used with char type",
    );
    check(
        "unsigned string x;",
        "D_DECL_SIGNINT",
        "invalid type declaration: signed and unsigned may only be used with integer type",
    );
    check("long string x;", "D_DECL_LONGINT", "invalid type declaration: short and long may only be used with integer or floating-point type");
    check(
        "this int a[int];",
        "D_DECL_LOCASSC",
        "associative arrays may not be declared as local variables: a",
    );
    check(
        "int a[-1];",
        "D_DECL_ARRSUB",
        "positive integral constant expression or tuple signature expected as array declaration subscript",
    );
    check(
        "int a[];",
        "D_DECL_ARRNULL",
        "array declaration requires array dimension or tuple signature: a",
    );
    check(
        "enum e { A = 0x7fffffff, B = 0x80000000 };",
        "D_DECL_ENOFLOW",
        "enumerator 'B' value overflows INT_MAX (2147483647)",
    );
    check(
        "enum e { A = \"x\" };",
        "D_DECL_ENCONST",
        "enumerator 'A' must be assigned an integral constant expression",
    );
    check(
        "typedef int t; typedef char t;",
        "D_DECL_IDRED",
        "typedef redeclared: t",
    );
    check(
        "struct s { int a; }; struct s { int b; };",
        "D_DECL_TYPERED",
        "type redeclared: struct s",
    );
    check(
        "struct s { int a : 40; };",
        "D_DECL_BFSIZE",
        "bit-field too big for type: a",
    );
    check(
        "struct s { char *p : 3; };",
        "D_DECL_BFTYPE",
        "invalid type for bit-field: p",
    );
    check(
        "struct s { int a : \"x\"; };",
        "D_DECL_BFCONST",
        "positive integral constant expression expected as bit-field size",
    );
    check(
        "struct foo x;",
        "D_DECL_INCOMPLETE",
        "incomplete struct/union/enum struct foo: x",
    );
    check(
        "inline int x = \"s\";",
        "D_OP_INCOMPAT",
        "inline x definition uses incompatible types: \"int\" = \"string\"",
    );
    check(
        "inline int x = 1; inline int x = 2;",
        "D_DECL_IDRED",
        "identifier redefined: x\n\t current: inline definition\n\tprevious: scalar inline",
    );
    check(
        "int x; inline int x = 2;",
        "D_DECL_IDRED",
        "identifier redefined: x\n\t current: inline definition\n\tprevious: scalar ",
    );
    check(
        "enum e { E }; inline int E = 2;",
        "D_DECL_IDRED",
        "identifier redefined: E\n\t current: inline definition\n\tprevious: enumerator ",
    );
    check(
        "inline int a[] = 1;",
        "D_DECL_ARRNULL",
        "inline declaration requires array tuple signature: a",
    );
    check(
        "inline int a[4] = 1;",
        "D_DECL_ARRNULL",
        "inline declaration cannot be of scalar array type: a",
    );
    check(
        "inline struct nowhere n = 1;",
        "D_DECL_INCOMPLETE",
        "incomplete struct/union/enum struct nowhere: n",
    );
    check(
        "int t; typedef int t;",
        "D_DECL_IDRED",
        "global variable identifier redeclared: t",
    );
    check(
        "inline void v = 1;",
        "D_DECL_VOIDOBJ",
        "cannot declare void inline: v",
    );
    check(
        "int a[5]; int a[6];",
        "D_DECL_IDRED",
        "identifier redeclared: a\n\t current: scalar int [6]\n\tprevious: scalar int [5]",
    );
}

#[test]
fn macros() {
    check(
        "BEGIN { trace($1); }",
        "D_MACRO_UNDEF",
        "macro argument $1 is not defined",
    );
    check(
        "BEGIN { trace($$2); }",
        "D_MACRO_UNDEF",
        "macro argument $$2 is not defined",
    );
    check(
        "BEGIN { trace($nosuch); }",
        "D_MACRO_UNDEF",
        "macro variable $nosuch is not defined",
    );
    let unused = CompileOptions {
        macro_arguments: vec!["dtrace".into(), "foo".into()],
        ..options()
    };
    check_with(
        &unused,
        "BEGIN { }",
        "D_MACRO_UNUSED",
        "extraneous argument 'foo' ($1 is not referenced)",
    );
    // DTrace checks the operands once the program is parsed, before its clauses.
    check_with(
        &unused,
        "BEGIN { x = y; }",
        "D_MACRO_UNUSED",
        "extraneous argument 'foo' ($1 is not referenced)",
    );
    // Only the last operand must be referenced.
    let two = CompileOptions {
        macro_arguments: vec!["dtrace".into(), "a".into(), "b".into()],
        ..options()
    };
    assert!(compile_with("BEGIN { trace($$2); }", &two).is_ok());
    check_with(
        &two,
        "BEGIN { trace($$1); }",
        "D_MACRO_UNUSED",
        "extraneous argument 'b' ($2 is not referenced)",
    );
    let overflow = CompileOptions {
        macro_arguments: vec!["dtrace".into(), "99999999999999999999999".into()],
        ..options()
    };
    check_with(
        &overflow,
        "BEGIN { trace($1); }",
        "D_MACRO_OFLOW",
        "macro argument $1 constant 99999999999999999999999 results in integer overflow",
    );
}

#[test]
fn translators() {
    check(
        "BEGIN { trace(xlate <int> (1)); }",
        "D_XLATE_NONE",
        "cannot translate from \"int\" to \"int\"",
    );
    check(
        "struct out { int a; }; translator struct out < int x > { b = x; };",
        "D_XLATE_MEMB",
        "translator member b is not a member of struct out",
    );
    check(
        "struct out { int a; }; translator struct out < int x > { a = x; }; translator struct out < int y > { a = y; };",
        "D_XLATE_REDECL",
        "translator from int to struct out has already been declared",
    );
    check(
        "struct out { int a; }; translator struct out < int x > { a = \"s\"; };",
        "D_XLATE_INCOMPAT",
        "translator member a definition uses incompatible types: \"int\" = \"string\"",
    );
}

#[test]
fn more_declarations_and_definitions() {
    check(
        "extern self int x;",
        "D_DECL_CLASS",
        "only a single storage class may be specified in a declaration",
    );
    check(
        "typedef int f(static int);",
        "D_DECL_PARMCLASS",
        "inappropriate storage class for function or associative array parameter",
    );
    check(
        "typedef int f(void, int);",
        "D_DECL_PROTO_VOID",
        "void must be sole parameter in function prototype",
    );
    check(
        "typedef int f(void v);",
        "D_DECL_PROTO_NAME",
        "void parameter may not have a name: v",
    );
    check(
        "struct s { int; };",
        "D_DECL_MNAME",
        "member declaration requires a name",
    );
    check("int;", "D_DECL_USELESS", "useless declaration");
    check(
        "int vmlinux`x;",
        "D_DECL_SCOPE",
        "D scoping operator may not be used in a declaration name (vmlinux`x)",
    );
    check(
        "struct out { int a; }; translator int < int x > { a = x; };",
        "D_XLATE_SOU",
        "translator output type must be a struct or union",
    );
    check(
        "struct out { int a; int b; }; translator struct out < int x > { a = x; }; BEGIN { trace(xlate <struct out> (1).b); }",
        "D_XLATE_NOCONV",
        "translator does not define conversion for member: b",
    );
    check(
        "BEGIN { (1)(); }",
        "D_FUNC_IDENT",
        "function designator is not of function type",
    );
    check(
        "provider p { probe a(); probe a(); };",
        "D_PROV_PRDUP",
        "probe p:a is already declared",
    );
    check(
        "typedef int f(int); BEGIN { p = (f *)0; trace(*p); }",
        "D_DEREF_FUNC",
        "cannot dereference pointer to function",
    );
    check(
        "struct e { }; BEGIN { this->p = (struct e *)alloca(8); print(*this->p); }",
        "D_PRINT_SIZE",
        "print( ) argument #1 reference has type 'struct e' with size 0; cannot print( ) it.",
    );
    check(
        "syscall::chmod:entry { trace(args[1]); }",
        "D_ARGS_TYPE",
        "args[1] of syscall::chmod:entry: failed to resolve type umode_t: Unknown type name",
    );
}
