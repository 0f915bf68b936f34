//! The abstract syntax tree of a D program, as the parser produces it (untyped, with spans).

use crate::diagnostics::Span;

/// A whole D program: one `-s` file or one `-n/-P/-m/-f/-i` argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub items: Vec<Item>,
}

/// A top-level element, in program order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Clause(Clause),
    Declaration(Declaration),
    Inline(InlineDefinition),
    Translator(TranslatorDefinition),
    Provider(ProviderDefinition),
    /// `#pragma D option name[=value]` (also produced from `#pragma D option` lines).
    Option(OptionPragma),
    /// Other `#pragma D` directives that the parser accepted (`attributes`, `binding`,
    /// `depends_on`); kept so later passes can act on them.
    Pragma(Pragma),
}

/// `probe-desc[, probe-desc ...] [/ predicate /] { statements }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub probes: Vec<ProbeSpecifier>,
    pub predicate: Option<Expr>,
    /// `None` for a bare description on the command line (`-n BEGIN`), which gets the
    /// default action.
    pub body: Option<Block>,
    pub span: Span,
}

/// One probe description as written, before macro expansion and field filling.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeSpecifier {
    /// The text exactly as written, e.g. `syscall::read:entry` or `pid$target::malloc:entry`.
    pub text: String,
    pub span: Span,
}

/// `{ statement; ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub statements: Vec<Statement>,
    pub span: Span,
}

/// A statement inside a clause body.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// An expression statement: assignments, actions, aggregations, subroutine calls.
    Expression(Expr),
    /// `if (cond) statement [else statement]`.
    If {
        condition: Expr,
        then_branch: Box<Statement>,
        else_branch: Option<Box<Statement>>,
        span: Span,
    },
    /// `{ ... }` nested inside a clause (as an `if` branch).
    Block(Block),
    /// `;` alone.
    Empty(Span),
}

/// An expression with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// Integer literal suffix flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IntegerSuffix {
    pub unsigned: bool,
    /// 0 = none, 1 = `l`, 2 = `ll`.
    pub long: u8,
}

/// How an integer literal was written (decides its type, §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegerBase {
    Decimal,
    Octal,
    Hexadecimal,
    /// A character constant `'c'`.
    Character,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOperator {
    /// `-x`
    Negate,
    /// `+x`
    Plus,
    /// `~x`
    BitwiseNot,
    /// `!x`
    LogicalNot,
    /// `*p`
    Dereference,
    /// `&x`
    AddressOf,
    PreIncrement,
    PreDecrement,
    PostIncrement,
    PostDecrement,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOperator {
    Multiply,
    Divide,
    Modulo,
    Add,
    Subtract,
    ShiftLeft,
    ShiftRight,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Equal,
    NotEqual,
    BitwiseAnd,
    BitwiseXor,
    BitwiseOr,
    LogicalAnd,
    LogicalXor,
    LogicalOr,
    /// The comma operator.
    Comma,
}

impl BinaryOperator {
    /// The operator as written in D, for messages.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOperator::Multiply => "*",
            BinaryOperator::Divide => "/",
            BinaryOperator::Modulo => "%",
            BinaryOperator::Add => "+",
            BinaryOperator::Subtract => "-",
            BinaryOperator::ShiftLeft => "<<",
            BinaryOperator::ShiftRight => ">>",
            BinaryOperator::Less => "<",
            BinaryOperator::LessEqual => "<=",
            BinaryOperator::Greater => ">",
            BinaryOperator::GreaterEqual => ">=",
            BinaryOperator::Equal => "==",
            BinaryOperator::NotEqual => "!=",
            BinaryOperator::BitwiseAnd => "&",
            BinaryOperator::BitwiseXor => "^",
            BinaryOperator::BitwiseOr => "|",
            BinaryOperator::LogicalAnd => "&&",
            BinaryOperator::LogicalXor => "^^",
            BinaryOperator::LogicalOr => "||",
            BinaryOperator::Comma => ",",
        }
    }
}

/// `=` or a compound assignment `op=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignmentOperator {
    Assign,
    /// `+=`, `-=`, `*=`, `/=`, `%=`, `&=`, `^=`, `|=`, `<<=`, `>>=`.
    Compound(BinaryOperator),
}

/// Macro variables (§1.6), kept unexpanded by the parser so that sema can report
/// D_MACRO_UNDEF with a span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MacroVariable {
    /// `$N`: the N-th operand, typed by its text; `written` is the token as written
    /// (`$01`), which DTrace's messages quote.
    Argument { index: u32, written: String },
    /// `$$N`: the N-th operand as a string.
    ArgumentString { index: u32, written: String },
    /// `$target`, `$pid`, … (`name` without the `$`).
    Named(String),
    /// `$$target`, … as a decimal string.
    NamedString(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// An integer or character constant; `text` is the token as written (for messages).
    Integer {
        value: u64,
        base: IntegerBase,
        suffix: IntegerSuffix,
        text: String,
    },
    /// A string literal after escape processing (may contain any bytes but NUL stops it).
    String(Vec<u8>),
    /// A plain identifier: a variable, built-in variable, enumerator or inline.
    Identifier(String),
    /// `` module`symbol `` (the module may be empty for `` `symbol ``).
    ScopedIdentifier {
        module: String,
        name: String,
    },
    Macro(MacroVariable),
    /// `self->name`.
    ThreadLocal(String),
    /// `this->name`.
    ClauseLocal(String),
    /// `@name` or `@` (name `_`), not subscripted.
    Aggregation(String),
    Unary {
        operator: UnaryOperator,
        operand: Box<Expr>,
    },
    Binary {
        operator: BinaryOperator,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Assign {
        operator: AssignmentOperator,
        target: Box<Expr>,
        value: Box<Expr>,
    },
    Conditional {
        condition: Box<Expr>,
        then_value: Box<Expr>,
        else_value: Box<Expr>,
    },
    /// `(type) expr`.
    Cast {
        ty: TypeName,
        operand: Box<Expr>,
    },
    /// `sizeof expr`.
    SizeofExpr(Box<Expr>),
    /// `sizeof (type)`.
    SizeofType(TypeName),
    /// `stringof expr`.
    Stringof(Box<Expr>),
    /// `offsetof(type, member)`.
    Offsetof {
        ty: TypeName,
        member: String,
    },
    /// `xlate <type> (expr)`.
    Xlate {
        ty: TypeName,
        operand: Box<Expr>,
    },
    /// `callee(args)`; the callee is normally an identifier naming an action or subroutine.
    Call {
        callee: Box<Expr>,
        arguments: Vec<Expr>,
    },
    /// `base[keys]`: associative arrays, static arrays, pointers, `args[]`, and
    /// aggregations (`@a[k]`) where the base is an `Aggregation`.
    Index {
        base: Box<Expr>,
        keys: Vec<Expr>,
    },
    /// `base.member`.
    Member {
        base: Box<Expr>,
        member: String,
    },
    /// `base->member` (for `self->`/`this->` the parser produces `ThreadLocal`/`ClauseLocal`).
    PointerMember {
        base: Box<Expr>,
        member: String,
    },
}

/// A type name as in a cast or `sizeof(type)`: specifiers plus an abstract declarator.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeName {
    pub specifiers: DeclarationSpecifiers,
    pub declarator: Declarator,
    pub span: Span,
}

/// Storage classes that may appear in a declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageClass {
    Extern,
    Static,
    Auto,
    Register,
    Typedef,
    /// `self` (thread-local declaration).
    SelfScope,
    /// `this` (clause-local declaration).
    ThisScope,
}

/// Type specifier keywords and names, in the order written.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeSpecifier {
    Void,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    Signed,
    Unsigned,
    Bool,
    String,
    /// A typedef name (possibly scoped: `` vmlinux`pid_t ``), kept as written.
    TypedefName(String),
    /// `struct tag`, `struct [tag] { members }`, and the same for unions.
    StructOrUnion(StructOrUnionSpecifier),
    Enum(EnumSpecifier),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeQualifier {
    Const,
    Volatile,
    Restrict,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DeclarationSpecifiers {
    pub storage: Vec<(StorageClass, Span)>,
    pub qualifiers: Vec<TypeQualifier>,
    pub types: Vec<(TypeSpecifier, Span)>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    Struct,
    Union,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StructOrUnionSpecifier {
    pub kind: Aggregate,
    /// The tag, possibly scoped (`` vmlinux`task_struct ``).
    pub tag: Option<String>,
    /// `Some` when the body `{ ... }` is given (a definition).
    pub members: Option<Vec<MemberDeclaration>>,
    /// The `{` opening the body: DTrace declares the type when its parser reads it,
    /// so a redeclaration is reported on its line.
    pub left_brace: Option<Span>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MemberDeclaration {
    pub specifiers: DeclarationSpecifiers,
    /// Declarators with optional bit-field widths.
    pub declarators: Vec<(Declarator, Option<Expr>)>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EnumSpecifier {
    pub tag: Option<String>,
    /// `Some` when the body is given: enumerators with optional values, each with the
    /// span of the token that follows it (where DTrace reports its errors).
    pub enumerators: Option<Vec<(String, Option<Expr>, Span)>>,
    /// The `{` opening the body, where DTrace declares the enum.
    pub left_brace: Option<Span>,
    pub span: Span,
}

/// A C declarator: the name (absent for abstract declarators) wrapped in pointer,
/// array and function derivations.
#[derive(Debug, Clone, PartialEq)]
pub struct Declarator {
    pub name: Option<(String, Span)>,
    /// Derivations from the name outwards: for `int *a[4]` this is `[Array(4), Pointer]`
    /// (a is an array of 4 pointers to int).
    pub derivations: Vec<Derivation>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Derivation {
    Pointer {
        qualifiers: Vec<TypeQualifier>,
    },
    /// `[N]` with a constant expression, `[]`, or an associative-array key signature
    /// `[type, type]` (a list of type names).
    Array(ArrayDimension),
    /// A function declarator `(params)`; `varargs` for a trailing `...`.
    Function {
        parameters: Vec<TypeName>,
        varargs: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum ArrayDimension {
    Unspecified,
    Size(Expr),
    /// Associative array key signature: `int a[string, int];`.
    Keys(Vec<TypeName>),
}

/// A declaration at program scope: `int x;`, `self int y;`, `typedef ...;`,
/// `struct s { ... };`, `int a[string];`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    pub specifiers: DeclarationSpecifiers,
    pub declarators: Vec<Declarator>,
    /// For each declarator, the token after it (`,` or `;`): DTrace declares a name
    /// when its parser reads that token, so its errors report that token's line.
    pub declarator_ends: Vec<Span>,
    pub span: Span,
}

/// `inline type name = expr;` and `inline type name[T p, ...] = expr;`.
#[derive(Debug, Clone, PartialEq)]
pub struct InlineDefinition {
    pub ty: TypeName,
    pub name: String,
    pub parameters: Vec<(TypeName, String)>,
    pub value: Expr,
    pub span: Span,
}

/// `translator out < in IDENT > { member = expr; ... };`.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslatorDefinition {
    pub output: TypeName,
    pub input: TypeName,
    pub parameter: String,
    pub members: Vec<(String, Expr, Span)>,
    pub span: Span,
}

/// `provider name { probe pname(args) [: (xlated args)]; ... };`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderDefinition {
    pub name: String,
    pub probes: Vec<ProviderProbe>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProviderProbe {
    pub name: String,
    pub arguments: Vec<TypeName>,
    pub translated_arguments: Option<Vec<TypeName>>,
    pub span: Span,
}

/// `#pragma D option name[=value]`.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionPragma {
    pub name: String,
    pub value: Option<String>,
    pub span: Span,
}

/// Another `#pragma D` directive: its words after `#pragma D`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pragma {
    pub words: Vec<String>,
    pub span: Span,
}
