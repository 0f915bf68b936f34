//! The compiled program: statements (clause × probe description), their actions and
//! record layouts, aggregations and variables, plus the record format shared by the
//! engines (which write records) and the consumer (which decodes them). printf-like
//! actions carry their formats parsed ([`crate::format`]).
//!
//! This plays the part of classic DTrace's DOF: the compiler produces it, the verifier
//! checks every DIFO in it, an engine (the reference interpreter or the kernel engine)
//! runs it, and the consumer decodes the records it produces using only this metadata.

use crate::difo::{DifType, Difo, VariableScope};
use crate::format::PrintfFormat;
use crate::printed_type::PrintedType;

/// A probe description `provider:module:function:name`; fields may be empty (match
/// anything) or glob patterns. Macro variables have already been expanded.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ProbeDescription {
    pub provider: String,
    pub module: String,
    pub function: String,
    pub name: String,
}

impl std::fmt::Display for ProbeDescription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}",
            self.provider, self.module, self.function, self.name
        )
    }
}

/// How a recorded value is laid out and how the consumer prints it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ValueLayout {
    /// An integer of the slot's size (1, 2, 4 or 8 bytes), little-endian.
    Integer { signed: bool },
    /// A pointer (8 bytes).
    Pointer,
    /// A NUL-terminated string in a slot of strsize bytes (zero-filled after the NUL).
    String,
    /// Raw bytes of a struct, union or array (also `tracemem`), printed as a string if
    /// printable, else as a hex dump.
    Bytes,
    /// `stack()`: `frames` 8-byte kernel PCs, zero-terminated when fewer were captured.
    KernelStack { frames: u32 },
    /// `ustack()`/`jstack()`: an 8-byte pid, then `frames` 8-byte user PCs.
    UserStack { frames: u32, string_size: u32 },
    /// `sym()`/`func()`/`mod()` of a kernel address (8 bytes).
    KernelSymbol(SymbolFormat),
    /// `usym()`/`ufunc()`/`umod()`/`uaddr()`: an 8-byte pid, then an 8-byte user address.
    UserSymbol(SymbolFormat),
}

/// Which part of a symbol lookup the consumer prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolFormat {
    /// `module`symbol` (sym, func, usym, ufunc).
    Symbol,
    /// `module` only (mod, umod).
    Module,
    /// `module`symbol+0xoffset` (uaddr).
    SymbolWithOffset,
}

/// Where one value lives in a record (or in an aggregation key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecordSlot {
    /// Byte offset from the start of the record's data (after the record header).
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes (1, 2, 4 or 8).
    pub alignment: u32,
    pub layout: ValueLayout,
}

/// One value an action computes: a DIFO (absent for values the engine captures itself,
/// such as stacks) and, when the value is recorded, its slot in the record.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ActionValue {
    pub difo: Option<Difo>,
    pub slot: Option<RecordSlot>,
}

/// What an action does. Values are listed in [`Action::values`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// A statement evaluated for its side effects (`x = 1;`); records nothing.
    Expression,
    /// `trace(expr)`: one recorded value.
    Trace,
    /// `print(expr)`: one recorded value (at most `printsize` bytes of a struct, union
    /// or array), printed structurally from the description of its type.
    Print { printed_type: PrintedType },
    /// `tracemem(addr, size[, dynsize])`: the bytes recorded (slot of `size` bytes), then
    /// optionally the dynamic size.
    TraceMemory,
    /// `printf(fmt, args...)`: one recorded value per argument.
    Printf { format: PrintfFormat },
    /// `printa([fmt,] @a, ...)`: prints aggregation snapshots when consumed; no values.
    Printa {
        format: Option<PrintfFormat>,
        aggregations: Vec<u32>,
    },
    /// `system(fmt, args...)`: destructive; run by the consumer.
    System { format: PrintfFormat },
    /// `freopen(fmt, args...)`: destructive; redirect output in the consumer. The
    /// compiler turns `freopen("")` into the format [`FREOPEN_RESTORE_TOKEN`], which
    /// tells the consumer to restore the original output.
    Freopen { format: PrintfFormat },
    /// `ftruncate()`.
    Ftruncate,
    /// `setopt(name[, value])`.
    Setopt { name: String, value: Option<String> },
    /// `stack([n])`, `ustack([n[, strsize]])`, `jstack(...)`, `sym()`, `func()`, `mod()`,
    /// `usym()`, `ufunc()`, `umod()`, `uaddr()` used as statements: one recorded value
    /// whose layout says which.
    RecordSymbolic,
    /// `exit(status)`: one recorded int.
    Exit,
    /// `speculate(id)`: one value (not recorded); the rest of the clause's records go to
    /// that speculation.
    Speculate,
    /// `commit(id)`: one recorded value (the id).
    Commit,
    /// `discard(id)`: one recorded value (the id).
    Discard,
    /// `clear(@a)`.
    Clear { aggregation: u32 },
    /// `trunc(@a[, n])`: optionally one recorded value (n).
    Trunc { aggregation: u32 },
    /// `normalize(@a, n)`: one recorded value (n).
    Normalize { aggregation: u32 },
    /// `denormalize(@a)`.
    Denormalize { aggregation: u32 },
    /// `raise(sig)`, destructive: one value.
    Raise,
    /// `stop()`, destructive.
    Stop,
    /// `chill(ns)`, destructive: one value.
    Chill,
    /// `breakpoint()`, destructive.
    Breakpoint,
    /// `panic()`, destructive.
    Panic,
    /// `@a[keys] = f(args)`: values are the keys (in order, each with a slot in the key
    /// buffer of the aggregation), then the function's arguments (no slots). Nothing is
    /// written to the principal buffer.
    Aggregate { aggregation: u32 },
}

/// The format `freopen("")` compiles to, as DTrace's `DT_FREOPEN_RESTORE` sentinel (the
/// text of the sentinel is unverified): an empty format would be refused like any other
/// empty format, so the compiler transposes it into a sentinel the consumer recognises
/// as "restore the original output", and refuses the sentinel written by hand
/// (D_FREOPEN_INVALID).
pub const FREOPEN_RESTORE_TOKEN: &str = "<restore>";

/// One action of a statement.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Action {
    pub kind: ActionKind,
    pub values: Vec<ActionValue>,
}

/// Who a statement is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatementRole {
    /// A clause the user wrote (or a part of one after `if`/`else` splitting).
    User,
    /// The consumer's default ERROR handler: an `ERROR` statement recording `arg1`…`arg5`
    /// as five 8-byte integers, which the consumer prints as a runtime error message.
    DefaultErrorHandler,
}

/// One clause enabled on one probe description (classic: an ECB description).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Statement {
    /// Index of the source clause in the program, in program order.
    pub clause: u32,
    pub role: StatementRole,
    pub probe: ProbeDescription,
    pub predicate: Option<Difo>,
    pub actions: Vec<Action>,
    /// Bytes of record data after the header; a multiple of 8.
    pub record_size: u32,
    /// The statement's stability (`dtsd_stmtattr`): the minimum attributes of the
    /// identifiers its clause's predicate and actions use.
    pub attributes: crate::stability::Attribute,
}

impl Statement {
    /// Whether a firing of the statement writes a record (and so, unless quiet, prints
    /// its probe line). DTrace sizes each enabling by its actions' records
    /// (`dtrace_ecb_resize()`): a clause with no action records its EPID (the default
    /// action), and so does a clause whose only action is `speculate()` (the EPID then
    /// goes to the speculation); a clause whose actions all store nothing records
    /// nothing at all, so a clause that only assigns variables or aggregates prints no
    /// line.
    pub fn writes_record(&self) -> bool {
        match self.actions.as_slice() {
            [] => true,
            [only] if only.kind == ActionKind::Speculate => true,
            actions => actions.iter().any(|action| action.kind.stores_data()),
        }
    }
}

/// An aggregating function with its compile-time parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggregationFunction {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Stddev,
    Quantize,
    Lquantize {
        low: i32,
        high: i32,
        step: u32,
    },
    Llquantize {
        factor: u16,
        low: u16,
        high: u16,
        steps: u16,
    },
}

impl AggregationFunction {
    /// The D name of the function (`count`, `lquantize`, …).
    pub fn name(&self) -> &'static str {
        match self {
            AggregationFunction::Count => "count",
            AggregationFunction::Sum => "sum",
            AggregationFunction::Avg => "avg",
            AggregationFunction::Min => "min",
            AggregationFunction::Max => "max",
            AggregationFunction::Stddev => "stddev",
            AggregationFunction::Quantize => "quantize",
            AggregationFunction::Lquantize { .. } => "lquantize",
            AggregationFunction::Llquantize { .. } => "llquantize",
        }
    }
}

/// An aggregation of the program (`@name`, or `@` named `_`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AggregationDescription {
    /// Ids are assigned from 1 in order of first appearance in the program.
    pub id: u32,
    /// The name without `@` (`_` for the anonymous aggregation).
    pub name: String,
    pub function: AggregationFunction,
    /// The key tuple's layout within an encoded key of `key_size` bytes.
    pub keys: Vec<RecordSlot>,
    pub key_size: u32,
}

/// How a user variable is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VariableStorage {
    Scalar,
    /// A fixed-size array `int a[10];` of `elements` entries.
    StaticArray {
        elements: u32,
    },
    /// An associative array keyed by a tuple of `key_size` encoded bytes.
    Associative {
        key_size: u32,
    },
}

/// A user variable of the program, for the engines to size and lay out storage.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VariableDescription {
    pub id: u16,
    pub name: String,
    pub scope: VariableScope,
    pub storage: VariableStorage,
    pub ty: DifType,
}

/// The whole compiled program.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CompiledProgram {
    pub statements: Vec<Statement>,
    pub aggregations: Vec<AggregationDescription>,
    pub variables: Vec<VariableDescription>,
    /// `#pragma D option` settings in program order (name, value).
    pub options: Vec<(String, Option<String>)>,
    /// The first kernel type through which the program reads kernel memory (`struct
    /// task_struct` for `curthread->pid`), if any: the user-space engine cannot run
    /// such a program.
    pub kernel_type_read: Option<String>,
    /// The program's `#pragma D attributes ... provider` settings, in program order.
    pub provider_attributes: Vec<crate::stability::ProviderAttributeSetting>,
}

/// A statement enabled on one concrete probe: the unit an EPID names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnabledProbe {
    /// Enabled probe id, from 1; written at the start of every record.
    pub epid: u32,
    /// The probe id, as `dtrace -l` lists it.
    pub probe_id: u32,
    /// The concrete probe (no globs, no empty fields except module/function of
    /// probes that have none, such as `dtrace:::BEGIN`).
    pub probe: ProbeDescription,
    /// Index into [`CompiledProgram::statements`].
    pub statement: usize,
}

/// The last signal number Linux has (`_NSIG - 1`): `raise()` of a larger one is an
/// illegal operation, as DTrace's `raise()` of a number at or past `NSIG` is.
pub const LAST_SIGNAL_NUMBER: u64 = 64;
/// SIGSTOP on Linux (every architecture dtrace supports), sent by `stop()`.
pub const STOP_SIGNAL_NUMBER: u64 = 19;

impl ActionKind {
    /// Whether the action stores data in its clause's record, as an action of non-zero
    /// record size does in DTrace: expressions evaluated for their effect (`x = 1`,
    /// `copyout()`), aggregations (their data lies in the aggregation buffer),
    /// `speculate()`, `commit()`, `discard()` and the destructive actions that act in
    /// probe context store nothing; every other action stores a value the consumer
    /// prints or acts on.
    pub fn stores_data(&self) -> bool {
        !matches!(
            self,
            ActionKind::Expression
                | ActionKind::Aggregate { .. }
                | ActionKind::Speculate
                | ActionKind::Commit
                | ActionKind::Discard
                | ActionKind::Raise
                | ActionKind::Stop
                | ActionKind::Chill
                | ActionKind::Breakpoint
                | ActionKind::Panic
        )
    }

    /// Why no engine on Linux carries out this action, for the destructive actions of
    /// classic DTrace that have no Linux counterpart (`None` for every other action): the
    /// engines refuse a program that uses one rather than silently do nothing.
    pub fn unsupported_on_linux(&self) -> Option<&'static str> {
        match self {
            ActionKind::Panic => Some("panic() (no BPF helper can panic the kernel)"),
            ActionKind::Breakpoint => {
                Some("breakpoint() (no BPF helper can enter a kernel debugger)")
            }
            ActionKind::Chill => {
                Some("chill() (a BPF program may not spin for a given time in probe context)")
            }
            _ => None,
        }
    }
}

/// Size of the header at the start of every record: the EPID (u32) and a reserved u32
/// (zero), both little-endian. Record data follows; a record is `RECORD_HEADER_SIZE +
/// statement.record_size` bytes long.
pub const RECORD_HEADER_SIZE: u32 = 8;

/// Probe ids of the dtrace provider.
pub const PROBE_ID_BEGIN: u32 = 1;
pub const PROBE_ID_END: u32 = 2;
pub const PROBE_ID_ERROR: u32 = 3;

/// Runtime fault codes (§13), as recorded in `arg4` of the ERROR probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum FaultCode {
    Unknown = 0,
    BadAddress = 1,
    BadAlignment = 2,
    IllegalOperation = 3,
    DivideByZero = 4,
    NoScratch = 5,
    KernelPrivilege = 6,
    UserPrivilege = 7,
    TupleOverflow = 8,
    BadStack = 9,
    BadSize = 10,
    BadIndex = 11,
    Library = 1000,
}

impl FaultCode {
    /// Decodes a fault code; unknown numbers give `Unknown`.
    pub fn from_u32(code: u32) -> FaultCode {
        match code {
            1 => FaultCode::BadAddress,
            2 => FaultCode::BadAlignment,
            3 => FaultCode::IllegalOperation,
            4 => FaultCode::DivideByZero,
            5 => FaultCode::NoScratch,
            6 => FaultCode::KernelPrivilege,
            7 => FaultCode::UserPrivilege,
            8 => FaultCode::TupleOverflow,
            9 => FaultCode::BadStack,
            10 => FaultCode::BadSize,
            11 => FaultCode::BadIndex,
            1000 => FaultCode::Library,
            _ => FaultCode::Unknown,
        }
    }

    /// The message text DTrace prints for the fault.
    pub fn message(self) -> &'static str {
        match self {
            FaultCode::Unknown => "unknown fault",
            FaultCode::BadAddress => "invalid address",
            FaultCode::BadAlignment => "invalid alignment",
            FaultCode::IllegalOperation => "illegal operation",
            FaultCode::DivideByZero => "divide-by-zero",
            FaultCode::NoScratch => "out of scratch space",
            FaultCode::KernelPrivilege => "invalid kernel access",
            FaultCode::UserPrivilege => "invalid user access",
            FaultCode::TupleOverflow => "tuple stack overflow",
            FaultCode::BadStack => "bad stack",
            FaultCode::BadSize => "invalid size",
            FaultCode::BadIndex => "index out of bounds",
            FaultCode::Library => "library-level fault",
        }
    }

    /// Whether the message carries the faulting address as ` (0x…)`.
    pub fn reports_address(self) -> bool {
        matches!(
            self,
            FaultCode::BadAddress | FaultCode::BadAlignment | FaultCode::BadStack
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement_of(kinds: &[ActionKind]) -> Statement {
        Statement {
            clause: 0,
            role: StatementRole::User,
            probe: ProbeDescription::default(),
            predicate: None,
            actions: kinds
                .iter()
                .map(|kind| Action {
                    kind: kind.clone(),
                    values: Vec::new(),
                })
                .collect(),
            record_size: 0,
            attributes: crate::stability::STABLE_COMMON,
        }
    }

    #[test]
    fn only_clauses_that_store_data_write_records() {
        assert!(statement_of(&[]).writes_record(), "the default action");
        assert!(statement_of(&[ActionKind::Speculate]).writes_record());
        assert!(statement_of(&[ActionKind::Exit]).writes_record());
        assert!(statement_of(&[ActionKind::Expression, ActionKind::Trace]).writes_record());
        for nothing in [
            vec![ActionKind::Expression],
            vec![ActionKind::Aggregate { aggregation: 1 }],
            vec![ActionKind::Expression, ActionKind::Commit],
            vec![ActionKind::Discard],
            vec![ActionKind::Speculate, ActionKind::Expression],
            vec![ActionKind::Raise, ActionKind::Stop],
        ] {
            assert!(!statement_of(&nothing).writes_record(), "{nothing:?}");
        }
    }
}
