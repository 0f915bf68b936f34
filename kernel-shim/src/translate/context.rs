//! How a probe's context is read: what `ctx` points at for each kind of attachment, and
//! which of `arg0`–`arg9` the probe's clauses read (the code that copies them into the
//! work area is in `arguments`).

use difvm::isa::{builtin_array, builtin_variable, Opcode};
use difvm::object::CompiledProgram;

use crate::map_layout::program_difos;
use crate::sys::ProgramType;

/// One argument of a (non-raw) tracepoint: where its field is in the trace entry and
/// what `argN` holds for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TracepointField {
    /// The field's offset in the trace entry (`ctx`).
    pub offset: u16,
    pub value: TracepointValue,
}

/// What a tracepoint argument's word holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TracepointValue {
    /// The field's integer value, `size` (1, 2, 4 or 8) bytes, sign-extended when signed.
    Integer { size: u8, signed: bool },
    /// The kernel address of the field itself (a fixed-size array inside the entry).
    Address,
    /// The kernel address of the data a `__data_loc` word points at: the word's low 16
    /// bits are the data's offset from the start of the entry.
    DataLocation,
}

/// The most arguments a raw tracepoint passes its program (the kernel's
/// `bpf_trace_run1`…`bpf_trace_run12`); a program may read no further into `ctx`.
pub const MAXIMUM_RAW_TRACEPOINT_ARGUMENTS: u8 = 12;

/// Where a uretprobe's `arg0`, the offset of the instruction its function left by,
/// comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnOffset {
    /// Nowhere: `arg0` is 0.
    Unknown,
    /// The attachment's cookie (a function whose only way out is one `ret`).
    Cookie,
    /// The `return_exits` map's entry for the thread and the attachment's cookie, which
    /// the recorder at each of the function's exits writes (`runtime::return_exits`),
    /// when it was written at the stack the function returned from; else 0.
    Recorded,
}

/// What the program's `ctx` is and how the probe's arguments are found in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContextKind {
    /// A raw tracepoint (and `ProgFd::test_run`): `ctx` is `u64 args[]`; the first
    /// `argument_count` (at most 10) are `arg0`…, and `args[]` also reaches the
    /// eleventh and twelfth, read from `ctx`. With `subject_task_argument`, the
    /// tracepoint fires in another thread's context than the one the probe is about
    /// (`sched:::on-cpu` at `sched_switch`, as the previous thread leaves the CPU), and
    /// that argument is the `struct task_struct *` of the thread the probe's clauses
    /// describe: their thread built-ins, thread-local variables and kernel stacks are
    /// read from it (see `subject_task`).
    RawTracepoint {
        argument_count: u8,
        subject_task_argument: Option<u8>,
    },
    /// `raw_syscalls:sys_enter` as a raw tracepoint: `args[0]` is the `pt_regs` of the
    /// system call, `args[1]` its number. The arguments are the system call's (`di`, `si`,
    /// `dx`, `r10`, `r8`, `r9`); with `syscall` set, other system calls are ignored.
    SyscallEntry { syscall: Option<u32> },
    /// `raw_syscalls:sys_exit` as a raw tracepoint: `args[1]` is the return value, which
    /// is `arg0` and `arg1`; `errno` is its negation when negative. With `syscall` set,
    /// other system calls (by `orig_ax`) are ignored.
    SyscallReturn { syscall: Option<u32> },
    /// A tracepoint program: `ctx` is the trace entry, arguments are its fields.
    Tracepoint { fields: Vec<TracepointField> },
    /// A perf event (profile, tick): `arg0` is the kernel PC, `arg1` the user PC (each 0
    /// when the sample hit the other mode).
    PerfEvent,
    /// A uprobe (`ctx` is `pt_regs`): arguments in `di`, `si`, `dx`, `cx`, `r8`, `r9`,
    /// then the stack. For a uretprobe `arg0` is the offset of the instruction its
    /// function left by, as `return_offset` says (0 when unknown), and `arg1` the
    /// return value (`ax`).
    /// With `process` set (a pid provider probe), other processes are ignored: the
    /// kernel's per-process filter does not cover a uretprobe returning in a child that
    /// `fork` created while the function ran.
    ///
    /// With `function_entry` (a pid entry probe), the uprobe is on a function's first
    /// instruction, where the return address is the word at `sp`: `ucaller`.
    ///
    /// With `usdt_arguments` (a USDT probe whose sites agree on them), the arguments are
    /// where the probe's note says, not in the calling convention's registers.
    Uprobe {
        return_probe: bool,
        process: Option<u32>,
        return_offset: ReturnOffset,
        function_entry: bool,
        usdt_arguments: Option<Vec<super::usdt_arguments::UsdtArgument>>,
    },
    /// A kprobe or kretprobe (fbt on kernels that allow kprobes): as a uprobe, with
    /// kernel registers.
    Kprobe { return_probe: bool },
    /// BEGIN and END: raw-tracepoint programs the consumer runs itself with
    /// `BPF_PROG_RUN` (see `runtime::markers`), in its own thread; every argument reads
    /// as 0, `args[]` has none and there are no probe-site registers.
    DtraceMarker,
}

impl ContextKind {
    /// The program type to load the translated program as.
    pub fn program_type(&self) -> ProgramType {
        match self {
            ContextKind::RawTracepoint { .. }
            | ContextKind::SyscallEntry { .. }
            | ContextKind::SyscallReturn { .. }
            | ContextKind::DtraceMarker => ProgramType::RawTracepoint,
            ContextKind::Tracepoint { .. } => ProgramType::Tracepoint,
            ContextKind::PerfEvent => ProgramType::PerfEvent,
            ContextKind::Uprobe { .. } | ContextKind::Kprobe { .. } => ProgramType::Kprobe,
        }
    }

    /// How many of the argument words (`arg0`…`arg9`) hold arguments. A tracepoint's
    /// `args[]` also reaches the fields past the tenth, read from the trace entry, and a
    /// raw tracepoint's the arguments past the tenth, read from `ctx`.
    pub fn argument_count(&self) -> u8 {
        match self {
            ContextKind::RawTracepoint { argument_count, .. } => (*argument_count).min(10),
            ContextKind::SyscallEntry { .. } => 6,
            ContextKind::SyscallReturn { .. } => 2,
            ContextKind::Tracepoint { fields } => fields.len().min(10) as u8,
            ContextKind::PerfEvent => 2,
            ContextKind::Uprobe { .. } | ContextKind::Kprobe { .. } => 6,
            ContextKind::DtraceMarker => 0,
        }
    }

    /// Whether `ctx` begins with the probe site's `struct pt_regs` (for `regs[]`).
    pub fn has_pt_regs(&self) -> bool {
        matches!(
            self,
            ContextKind::PerfEvent | ContextKind::Uprobe { .. } | ContextKind::Kprobe { .. }
        )
    }

    /// The raw tracepoint argument holding the task the probe is about, when that is
    /// not the thread the tracepoint runs in.
    pub fn subject_task_argument(&self) -> Option<u8> {
        match self {
            ContextKind::RawTracepoint {
                subject_task_argument,
                ..
            } => *subject_task_argument,
            _ => None,
        }
    }

    /// Whether `errno` means something for this context.
    pub fn has_errno(&self) -> bool {
        matches!(self, ContextKind::SyscallReturn { .. })
    }
}

/// Which of `arg0`–`arg9` the clauses `statements` (indices into `program`) read, one
/// bit per argument: `argN` sets bit N, `errno` bit 0 (it is derived from a system call's
/// return value), and `args[]` with an index known only at run time sets them all.
pub fn arguments_read(program: &CompiledProgram, statements: &[usize]) -> u16 {
    const ALL: u16 = (1 << 10) - 1;
    let mut used = 0u16;
    for (location, difo) in program_difos(program) {
        if !statements.contains(&location.statement) {
            continue;
        }
        for instruction in &difo.code {
            match instruction.opcode() {
                Some(Opcode::Ldgs) => {
                    let id = instruction.index();
                    if (builtin_variable::ARG0..builtin_variable::ARG0 + 10).contains(&id) {
                        used |= 1 << (id - builtin_variable::ARG0);
                    } else if id == builtin_variable::ERRNO {
                        used |= 1;
                    }
                }
                Some(Opcode::Ldga) if instruction.r1() as u16 == builtin_array::ARGS => {
                    used = ALL;
                }
                _ => {}
            }
        }
    }
    used
}
