//! How a probe's context is read: what `ctx` points at for each kind of attachment, and
//! the code that copies `arg0`–`arg9` into the work area when the program starts (so that
//! `argN` and `args[i]` with a run-time index read them from one place).
//!
//! Only the arguments some clause of the probe reads are copied: every firing pays for
//! the copy, and a system call's arguments cost a helper call to read, so a probe whose
//! clauses name no argument reads none.
//!
//! x86_64 `struct pt_regs` offsets are used for syscall, profile and uprobe contexts.

use difvm::isa::{builtin_array, builtin_variable, Opcode};
use difvm::object::CompiledProgram;

use super::emitter::Emitter;
use super::layout::program_difos;
use super::registers::{CONTEXT, STATE};
use super::TranslateError;
use crate::ebpf::{Helper, Insn, JmpOp, MemSize, Reg};
use crate::sys::ProgramType;

/// x86_64 `struct pt_regs` offsets.
mod pt_regs {
    pub const R10: i16 = 56;
    pub const R9: i16 = 64;
    pub const R8: i16 = 72;
    pub const AX: i16 = 80;
    pub const CX: i16 = 88;
    pub const DX: i16 = 96;
    pub const SI: i16 = 104;
    pub const DI: i16 = 112;
    pub const ORIG_AX: i16 = 120;
    pub const IP: i16 = 128;
    pub const CS: i16 = 136;
}

/// One argument of a (non-raw) tracepoint: where it is in the trace entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TracepointField {
    pub offset: u16,
    /// 1, 2, 4 or 8.
    pub size: u8,
    pub signed: bool,
}

/// What the program's `ctx` is and how the probe's arguments are found in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContextKind {
    /// A raw tracepoint (and `ProgFd::test_run`): `ctx` is `u64 args[]`; the first
    /// `argument_count` (at most 10) are `arg0`….
    RawTracepoint { argument_count: u8 },
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
    /// A uprobe (`ctx` is `pt_regs`): arguments in `di`, `si`, `dx`, `cx`, `r8`, `r9`.
    /// For a uretprobe `arg0` is 0 and `arg1` the return value (`ax`).
    Uprobe { return_probe: bool },
    /// A kprobe or kretprobe (fbt on kernels that allow kprobes): as a uprobe, with
    /// kernel registers.
    Kprobe { return_probe: bool },
    /// BEGIN and END: uprobes on the consumer's marker functions, whose arguments carry
    /// nothing; every argument reads as 0 and `args[]` has none.
    DtraceMarker,
}

impl ContextKind {
    /// The program type to load the translated program as.
    pub fn program_type(&self) -> ProgramType {
        match self {
            ContextKind::RawTracepoint { .. }
            | ContextKind::SyscallEntry { .. }
            | ContextKind::SyscallReturn { .. } => ProgramType::RawTracepoint,
            ContextKind::Tracepoint { .. } => ProgramType::Tracepoint,
            ContextKind::PerfEvent => ProgramType::PerfEvent,
            ContextKind::Uprobe { .. } | ContextKind::Kprobe { .. } | ContextKind::DtraceMarker => {
                ProgramType::Kprobe
            }
        }
    }

    /// How many arguments `args[]` has.
    pub fn argument_count(&self) -> u8 {
        match self {
            ContextKind::RawTracepoint { argument_count } => (*argument_count).min(10),
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
            ContextKind::PerfEvent
                | ContextKind::Uprobe { .. }
                | ContextKind::Kprobe { .. }
                | ContextKind::DtraceMarker
        )
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

/// Emits the code that fills the work area's argument words named in `used` (see
/// [`arguments_read`]) from `ctx`, and the system-call filter, which exits at `skip` for
/// other system calls. Words not named stay 0.
pub fn emit_argument_loading(
    emitter: &mut Emitter<'_>,
    context: &ContextKind,
    used: u16,
    skip: crate::ebpf::Label,
) -> Result<(), TranslateError> {
    let arguments = emitter.layout.state.arguments;
    emitter.zero_fill(STATE, arguments, 80);
    let store = |emitter: &mut Emitter<'_>, index: u32, src: Reg| {
        emitter.store_state(arguments + 8 * index, src);
    };
    let wanted = |index: u32| used & (1 << index) != 0;
    match context {
        ContextKind::RawTracepoint { argument_count } => {
            for index in (0..(*argument_count).min(10) as u32).filter(|&index| wanted(index)) {
                emitter.emit(Insn::ldx_mem(
                    MemSize::DW,
                    Reg::R0,
                    CONTEXT,
                    (8 * index) as i16,
                ));
                store(emitter, index, Reg::R0);
            }
        }
        ContextKind::SyscallEntry { syscall } => {
            if let Some(number) = syscall {
                emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, 8));
                emitter
                    .asm
                    .jmp_imm_to(JmpOp::Ne, Reg::R0, *number as i32, skip);
            }
            let registers = [
                pt_regs::DI,
                pt_regs::SI,
                pt_regs::DX,
                pt_regs::R10,
                pt_regs::R8,
                pt_regs::R9,
            ];
            let read: Vec<(u32, i16)> = (0..registers.len() as u32)
                .filter(|&index| wanted(index))
                .map(|index| (index, registers[index as usize]))
                .collect();
            if let (Some(lowest), Some(highest)) = (
                read.iter().map(|&(_, offset)| offset).min(),
                read.iter().map(|&(_, offset)| offset).max(),
            ) {
                // One read of the span of `pt_regs` holding every wanted register (at
                // most 64 bytes) into the error arguments, which are only written after
                // a fault; then each wanted word moves to its argument.
                let scratch = emitter.layout.state.error_arguments;
                emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, CONTEXT, 0));
                emitter.emit(Insn::add64_imm(Reg::R3, lowest as i32));
                emitter.state_pointer(Reg::R1, scratch);
                emitter.emit(Insn::mov64_imm(Reg::R2, (highest - lowest + 8) as i32));
                emitter.call(Helper::ProbeReadKernel);
                for (index, offset) in read {
                    emitter.load_state(Reg::R0, scratch + (offset - lowest) as u32);
                    store(emitter, index, Reg::R0);
                }
            }
        }
        ContextKind::SyscallReturn { syscall } => {
            if let Some(number) = syscall {
                emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, CONTEXT, 0));
                emitter.emit(Insn::add64_imm(Reg::R3, pt_regs::ORIG_AX as i32));
                emitter.state_pointer(Reg::R1, arguments);
                emitter.emit(Insn::mov64_imm(Reg::R2, 8));
                emitter.call(Helper::ProbeReadKernel);
                emitter.load_state(Reg::R0, arguments);
                emitter
                    .asm
                    .jmp_imm_to(JmpOp::Ne, Reg::R0, *number as i32, skip);
            }
            if used & 0b11 != 0 {
                emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, 8));
                store(emitter, 0, Reg::R0);
                store(emitter, 1, Reg::R0);
            }
        }
        ContextKind::Tracepoint { fields } => {
            for (index, field) in fields
                .iter()
                .take(10)
                .enumerate()
                .filter(|&(index, _)| wanted(index as u32))
            {
                let size = MemSize::from_bytes(field.size as usize).ok_or_else(|| {
                    emitter.unsupported(format!(
                        "a {}-byte tracepoint argument (argument {index})",
                        field.size
                    ))
                })?;
                emitter.emit(Insn::ldx_mem(size, Reg::R0, CONTEXT, field.offset as i16));
                if field.signed && field.size < 8 {
                    let shift = 64 - 8 * field.size as i32;
                    emitter.emit(Insn::alu64_imm(crate::ebpf::AluOp::Lsh, Reg::R0, shift));
                    emitter.emit(Insn::alu64_imm(crate::ebpf::AluOp::Arsh, Reg::R0, shift));
                }
                store(emitter, index as u32, Reg::R0);
            }
        }
        ContextKind::PerfEvent => {
            let user = emitter.label();
            let done = emitter.label();
            emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, pt_regs::IP));
            emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, CONTEXT, pt_regs::CS));
            emitter.emit(Insn::alu64_imm(crate::ebpf::AluOp::And, Reg::R1, 3));
            emitter.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, user);
            store(emitter, 0, Reg::R0);
            emitter.asm.ja_to(done);
            emitter.bind(user);
            store(emitter, 1, Reg::R0);
            emitter.bind(done);
        }
        ContextKind::Uprobe { return_probe } | ContextKind::Kprobe { return_probe } => {
            if *return_probe {
                if wanted(1) {
                    emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, pt_regs::AX));
                    store(emitter, 1, Reg::R0);
                }
            } else {
                let registers = [
                    pt_regs::DI,
                    pt_regs::SI,
                    pt_regs::DX,
                    pt_regs::CX,
                    pt_regs::R8,
                    pt_regs::R9,
                ];
                for (index, offset) in registers.iter().enumerate() {
                    if wanted(index as u32) {
                        emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, *offset));
                        store(emitter, index as u32, Reg::R0);
                    }
                }
            }
        }
        ContextKind::DtraceMarker => {}
    }
    Ok(())
}
