//! Artificial frames: the frames at the top of a kernel stack that belong to the tracing
//! machinery between the probe site and the program (DTrace's name for them), which
//! `stack()`, `stackdepth` and `caller` leave out, so that a kernel stack starts at the
//! function where the probe fired, as DTrace's do.
//!
//! What `bpf_get_stack` starts from depends on the program type:
//!
//! | probe | first frame `bpf_get_stack` gives | artificial frames (measured on 6.18) |
//! |---|---|---|
//! | raw tracepoint (syscall provider) | the program itself (the helper's caller) | the program, `bpf_trace_runN`, `__bpf_trace_EVENT`, sometimes `__traceiter_EVENT` |
//! | tracepoint (sdt) | the caller of `perf_trace_EVENT` | sometimes `__traceiter_EVENT`; for `syscalls:*` also `perf_syscall_enter` |
//! | perf event (profile, tick) | the interrupted instruction | none |
//! | kprobe (fbt) | the probed instruction | none |
//! | uprobe (pid, usdt), BEGIN, END | nothing: user registers have no kernel stack | none |
//!
//! The count is not a constant of the kernel: `__traceiter_EVENT` shows only while more
//! than one callback is attached to the tracepoint (with a single one, the tracepoint's
//! static call jumps straight to it), so another tracing session starting or stopping
//! changes it from one firing to the next; and whether a small wrapper such as
//! `__bpf_trace_EVENT` keeps a frame of its own depends on the compiler. The program
//! therefore decides at every capture: it takes the first [`ARTIFICIAL_FRAME_WINDOW`]
//! frames, finds the deepest one that lies in one of the machinery functions' text
//! ranges (which the runtime resolves in `/proc/kallsyms` for the probe's tracepoint),
//! and skips up to and including it. Without ranges (no kallsyms), or when no frame
//! matches, it skips a fixed count measured on this kernel's structure.

use difvm::object::{CompiledProgram, ValueLayout};

use super::code::ProgramCode;
use super::context::ContextKind;
use super::registers::{CONTEXT, STATE};
use crate::ebpf::{Helper, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::{program_difos, ProgramLayout};

/// How many frames from the top are searched for machinery functions: the program and
/// a subprogram it calls, `bpf_trace_runN`, `__bpf_trace_EVENT` and
/// `__traceiter_EVENT` are five.
pub const ARTIFICIAL_FRAME_WINDOW: u32 = 6;

/// Frames a raw tracepoint's stack starts with when the machinery functions cannot be
/// told apart: the program, `bpf_trace_runN` and `__bpf_trace_EVENT`.
const RAW_TRACEPOINT_FRAMES: u32 = 3;

/// The text of one kernel function: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct KernelTextRange {
    pub start: u64,
    pub end: u64,
}

/// How the artificial frames of one probe's kernel stacks are found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ArtificialFrames {
    /// Frames skipped when no frame lies in `ranges`.
    pub fixed: u32,
    /// Whether the stack starts inside the program itself (raw tracepoints), so that
    /// code in a subprogram (the ERROR clauses, a long clause's actions) has one more
    /// frame above the fixed ones.
    pub starts_in_program: bool,
    /// The text of the machinery functions of the probe.
    pub ranges: Vec<KernelTextRange>,
}

impl ArtificialFrames {
    /// The fixed counts for `context`, without machinery ranges: right as long as no
    /// optional frame (`__traceiter_EVENT`) shows; see the module comment.
    pub fn structural(context: &ContextKind) -> ArtificialFrames {
        match context {
            ContextKind::RawTracepoint { .. }
            | ContextKind::SyscallEntry { .. }
            | ContextKind::SyscallReturn { .. } => ArtificialFrames {
                fixed: RAW_TRACEPOINT_FRAMES,
                starts_in_program: true,
                ranges: Vec::new(),
            },
            ContextKind::Tracepoint { .. }
            | ContextKind::PerfEvent
            | ContextKind::Uprobe { .. }
            | ContextKind::Kprobe { .. }
            | ContextKind::DtraceMarker => ArtificialFrames::default(),
        }
    }
}

/// Whether `program` looks at kernel stacks: `stack()` recorded or used as a key,
/// `stackdepth` or `caller` read. Only then does the runtime need the machinery ranges.
pub fn program_reads_kernel_stacks(program: &CompiledProgram) -> bool {
    let is_kernel_stack = |layout: &ValueLayout| matches!(layout, ValueLayout::KernelStack { .. });
    let recorded = program.statements.iter().any(|statement| {
        statement.actions.iter().any(|action| {
            action
                .values
                .iter()
                .filter_map(|value| value.slot.as_ref())
                .any(|slot| is_kernel_stack(&slot.layout))
        })
    });
    let keyed = program.aggregations.iter().any(|aggregation| {
        aggregation
            .keys
            .iter()
            .any(|slot| is_kernel_stack(&slot.layout))
    });
    let read = program_difos(program).iter().any(|(_, difo)| {
        difo.code.iter().any(|instruction| {
            instruction.opcode() == Some(difvm::isa::Opcode::Ldgs)
                && matches!(
                    instruction.index(),
                    difvm::isa::builtin_variable::STACKDEPTH | difvm::isa::builtin_variable::CALLER
                )
        })
    });
    recorded || keyed || read
}

/// `r4 = the number of artificial frames of this firing` (clobbers r0–r5), for the
/// flags of the `bpf_get_stack` call that follows; `in_subprogram` says whether the
/// code runs in a subprogram (the ERROR clauses, a long clause's actions), one frame
/// deeper than the probe's chain.
pub fn load_artificial_frame_count(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    frames: &ArtificialFrames,
    in_subprogram: bool,
) {
    let fixed = frames.fixed + u32::from(frames.starts_in_program && in_subprogram);
    if frames.ranges.is_empty() {
        code.emit(Insn::mov64_imm(Reg::R4, fixed as i32));
        return;
    }
    let ranges = frames.ranges.clone();
    let stack = layout.state.stack;
    code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
    code.state_pointer(Reg::R2, stack);
    code.emit(Insn::mov64_imm(Reg::R3, 8 * ARTIFICIAL_FRAME_WINDOW as i32));
    code.emit(Insn::mov64_imm(Reg::R4, 0));
    code.call(Helper::GetStack);
    code.emit(Insn::mov64_reg(Reg::R5, Reg::R0));
    code.emit(Insn::mov64_imm(Reg::R4, fixed as i32));
    let done = code.label();
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R5, 8, done);
    // From the deepest frame of the window up: the first one in a machinery
    // function is the last artificial frame.
    for frame in (0..ARTIFICIAL_FRAME_WINDOW).rev() {
        let next_frame = code.label();
        code.asm
            .jmp_imm_to(JmpOp::Le, Reg::R5, 8 * frame as i32, next_frame);
        code.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R1,
            STATE,
            (stack + 8 * frame) as i16,
        ));
        for range in &ranges {
            let next_range = code.label();
            code.emit_all(&Insn::ld_imm64(Reg::R2, range.start));
            code.asm.jmp_reg_to(JmpOp::Lt, Reg::R1, Reg::R2, next_range);
            code.emit_all(&Insn::ld_imm64(Reg::R2, range.end));
            code.asm.jmp_reg_to(JmpOp::Ge, Reg::R1, Reg::R2, next_range);
            code.emit(Insn::mov64_imm(Reg::R4, frame as i32 + 1));
            code.asm.ja_to(done);
            code.bind(next_range);
        }
        code.bind(next_frame);
    }
    code.bind(done);
}
