//! The typed intermediate form semantic analysis produces and code generation consumes:
//! expressions with resolved types and variables, with every implicit conversion,
//! pointer scaling and member offset made explicit, and clauses as lists of actions.

use difvm::format::PrintfFormat;
use difvm::object::{AggregationFunction, ProbeDescription, SymbolFormat, ValueLayout};
use difvm::printed_type::PrintedType;

use crate::diagnostics::Span;
use crate::types::TypeId;

/// Index of a variable in the analyzer's variable table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VariableId(pub u32);

/// A typed expression.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedExpr {
    pub kind: TypedExprKind,
    pub ty: TypeId,
    pub span: Span,
}

/// Arithmetic and bitwise operations on 64-bit registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arithmetic {
    Add,
    Subtract,
    Multiply,
    DivideSigned,
    DivideUnsigned,
    RemainderSigned,
    RemainderUnsigned,
    And,
    Or,
    Xor,
    ShiftLeft,
    /// `>>` on a signed left operand.
    ShiftRightArithmetic,
    /// `>>` on an unsigned left operand.
    ShiftRightLogical,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

/// How two values are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComparisonKind {
    Signed,
    Unsigned,
    /// `scmp` on the strings the registers point to.
    Strings,
}

/// `&&`, `||`, `^^`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logical {
    And,
    Or,
    Xor,
}

/// Unary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unary {
    Negate,
    BitwiseNot,
    LogicalNot,
}

/// Which address space a load reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressSpace {
    Kernel,
    User,
}

/// Values the engine captures itself rather than computing with DIF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    KernelStack { frames: u32 },
    UserStack { frames: u32, string_size: u32 },
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypedExprKind {
    /// An integer constant (two's complement bits).
    Integer(u64),
    /// A string constant (no NUL inside).
    String(Vec<u8>),
    /// A scalar variable: built-in, global, thread-local or clause-local.
    Variable(VariableId),
    /// An element of an associative array.
    AssociativeElement {
        variable: VariableId,
        keys: Vec<TypedExpr>,
    },
    /// An element of a user scalar array (`int a[10];` of `elements` entries), kept in
    /// memory (by-value elements) or in a global associative array keyed by the index
    /// (by-reference ones); an index out of range reads 0.
    StaticArrayElement {
        variable: VariableId,
        index: Box<TypedExpr>,
        elements: u64,
    },
    /// The address of element `index` of an array of `elements` held in a D variable
    /// (`array` is its address): an array of arrays or of structs, or an array member of
    /// a struct variable. An index out of range gives `out_of_range` instead, so that,
    /// as for [`TypedExprKind::StaticArrayElement`], it reads 0 and what is stored
    /// there is lost, in both engines alike.
    BoundedElementAddress {
        array: Box<TypedExpr>,
        index: Box<TypedExpr>,
        elements: u64,
        element_size: u64,
        out_of_range: OutOfRange,
    },
    /// `args[i]`, `regs[i]`, `uregs[i]`, read with `ldga` (array id from isa.rs).
    BuiltinArrayElement { array: u16, index: Box<TypedExpr> },
    Unary {
        operator: Unary,
        operand: Box<TypedExpr>,
    },
    Arithmetic {
        operator: Arithmetic,
        left: Box<TypedExpr>,
        right: Box<TypedExpr>,
    },
    Compare {
        operator: Comparison,
        kind: ComparisonKind,
        left: Box<TypedExpr>,
        right: Box<TypedExpr>,
    },
    Logical {
        operator: Logical,
        left: Box<TypedExpr>,
        right: Box<TypedExpr>,
    },
    Conditional {
        condition: Box<TypedExpr>,
        then_value: Box<TypedExpr>,
        else_value: Box<TypedExpr>,
    },
    /// Reduces a 64-bit value to `size` bytes, sign- or zero-extending it back.
    Narrow {
        operand: Box<TypedExpr>,
        size: u32,
        signed: bool,
    },
    /// Loads a scalar of `size` bytes from the address `address` evaluates to.
    Load {
        address: Box<TypedExpr>,
        size: u32,
        signed: bool,
        space: AddressSpace,
    },
    /// Loads a bit-field: the `unit_size`-byte unit at `address`, then `width` bits
    /// starting `shift` bits from the unit's least significant bit.
    BitFieldLoad {
        address: Box<TypedExpr>,
        unit_size: u32,
        shift: u32,
        width: u32,
        signed: bool,
        space: AddressSpace,
    },
    /// A subroutine call (`call`), arguments passed on the tuple stack.
    Call {
        subroutine: u16,
        arguments: Vec<TypedExpr>,
    },
    /// Stores into `target`; the value of the expression is the stored value.
    Assign {
        target: LValue,
        value: Box<TypedExpr>,
    },
    /// `++`/`--`: adds `delta` (already scaled for pointers) to `target`; the value is the
    /// old value when `postfix`, else the new one.
    Increment {
        target: LValue,
        delta: i64,
        postfix: bool,
    },
    /// The comma operator: evaluates `left` for its effects, then `right`.
    Comma {
        left: Box<TypedExpr>,
        right: Box<TypedExpr>,
    },
    /// A stack the engine records itself; only valid as an aggregation key or a
    /// recorded value.
    Capture(Capture),
    /// The address given to `sym()`, `usym()`, …: computed like `value`, recorded as a
    /// symbol.
    Symbol {
        value: Box<TypedExpr>,
        action: SymbolAction,
    },
    /// The address of this CPU's instance of a per-CPU kernel variable (its BTF `VAR`
    /// id), which only the engine that runs the probe knows.
    PerCpuVariableAddress {
        variable_id: u32,
        section_offset: u32,
    },
    /// The address of the storage of a global variable kept in memory
    /// ([`crate::sema::Variable::in_memory`]): `&x`, or the first element of a scalar
    /// array.
    VariableAddress(VariableId),
}

/// What [`TypedExprKind::BoundedElementAddress`] gives for an index out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfRange {
    /// The address of a zero-filled scratch element.
    ZeroedScratch,
    /// This offset, when the address is an offset into the scratch copy of a struct
    /// variable ([`LValue::VariableMember`]): the copy's slack past the struct, which
    /// is zero-filled and never stored back.
    Offset(u64),
}

/// Something that can be assigned.
#[derive(Debug, Clone, PartialEq)]
pub enum LValue {
    Variable(VariableId),
    AssociativeElement {
        variable: VariableId,
        keys: Vec<TypedExpr>,
    },
    /// An element of a user scalar array of `elements` entries; a store with an index
    /// out of range is ignored.
    StaticArrayElement {
        variable: VariableId,
        index: Box<TypedExpr>,
        elements: u64,
    },
    /// A scalar at an address (scratch memory or a by-reference variable's storage).
    Memory {
        address: Box<TypedExpr>,
        size: u32,
    },
    /// A struct, union, array or string at an address, copied with `copys`; a
    /// `string` is copied up to its NUL, not beyond the end of the value stored.
    MemoryCopy {
        address: Box<TypedExpr>,
        size: u32,
        string: bool,
    },
    BitField {
        address: Box<TypedExpr>,
        unit_size: u32,
        shift: u32,
        width: u32,
    },
    /// A member (or any part) of a struct or union held in a D variable: `g.x`,
    /// `self->t.f`, `a[k].y`. The store is a read-modify-write of the whole variable
    /// through a scratch copy — `current` (the variable's value, its storage's address
    /// or 0 when it has none yet) is copied into `size` zeroed scratch bytes, `member`
    /// is stored at its offset in the copy, and the copy is assigned back to
    /// `variable` — so that a store can never reach beyond the variable's storage and
    /// a dynamic variable written member-wise first gets zeroed storage, as in DTrace.
    VariableMember {
        /// `LValue::Variable` or `LValue::AssociativeElement`.
        variable: Box<LValue>,
        current: Box<TypedExpr>,
        size: u32,
        /// Zero-filled bytes the copy has past the struct, where stores through an
        /// index out of range land ([`OutOfRange::Offset`]).
        slack: u32,
        /// The member's place with an address relative to the start of the copy.
        member: Box<LValue>,
    },
}

/// How an aggregation key or recorded value is stored, decided by sema from the type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordShape {
    pub size: u32,
    pub alignment: u32,
    pub layout: ValueLayout,
}

/// A value recorded by an action or used as an aggregation key.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedValue {
    pub value: TypedExpr,
    pub shape: RecordShape,
}

/// Which `printf`-like action a formatted action is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormattedKind {
    Printf,
    System,
    Freopen,
}

/// Symbolic actions recording an address (`sym()`, `usym()`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolAction {
    pub user: bool,
    pub format: SymbolFormat,
}

/// One action of a clause, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum TypedAction {
    /// An expression statement evaluated for its effects.
    Expression(TypedExpr),
    Trace(RecordedValue),
    /// `print(expr)`: the value with the description of its type.
    Print {
        value: RecordedValue,
        printed_type: PrintedType,
    },
    TraceMemory {
        address: TypedExpr,
        size: u32,
        dynamic_size: Option<TypedExpr>,
    },
    Formatted {
        kind: FormattedKind,
        format: PrintfFormat,
        arguments: Vec<RecordedValue>,
    },
    Printa {
        format: Option<PrintfFormat>,
        aggregations: Vec<u32>,
    },
    /// `stack()`, `ustack()`, `jstack()`, `sym()`, `usym()`, … as statements: the value
    /// (a [`TypedExprKind::Capture`] or [`TypedExprKind::Symbol`]) and its record shape.
    RecordSymbolic(RecordedValue),
    Exit(TypedExpr),
    Speculate(TypedExpr),
    Commit(TypedExpr),
    Discard(TypedExpr),
    Clear {
        aggregation: u32,
    },
    Trunc {
        aggregation: u32,
        count: Option<TypedExpr>,
    },
    Normalize {
        aggregation: u32,
        value: TypedExpr,
    },
    Denormalize {
        aggregation: u32,
    },
    Setopt {
        name: String,
        value: Option<String>,
    },
    Ftruncate,
    Raise(TypedExpr),
    Stop,
    Chill(TypedExpr),
    Breakpoint,
    Panic,
    Aggregate {
        aggregation: u32,
        keys: Vec<RecordedValue>,
        arguments: Vec<TypedExpr>,
    },
}

/// A straight-line piece of a clause: one [`difvm::object::Statement`] after `if`/`else`
/// splitting.
#[derive(Debug, Clone, PartialEq)]
pub struct ClauseSegment {
    pub predicate: Option<TypedExpr>,
    pub actions: Vec<TypedAction>,
}

/// A clause after analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalyzedClause {
    /// Index of the clause in program order, over all programs compiled together.
    pub index: u32,
    /// The program the clause belongs to.
    pub program: usize,
    /// The expanded, field-filled probe descriptions of the clause.
    pub probes: Vec<ProbeDescription>,
    pub segments: Vec<ClauseSegment>,
    /// The minimum attributes of the identifiers the clause uses.
    pub attributes: difvm::stability::Attribute,
}

/// An aggregation with what its first use fixed.
#[derive(Debug, Clone, PartialEq)]
pub struct AggregationInfo {
    pub id: u32,
    pub name: String,
    pub function: AggregationFunction,
    /// Types and record shapes of the keys, fixed by the first use.
    pub keys: Vec<(TypeId, RecordShape)>,
    /// Where the aggregation was first defined: program index and line (for
    /// D_AGG_REDEF).
    pub defined_at_line: u32,
}
