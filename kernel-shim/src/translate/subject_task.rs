//! The thread a probe's clauses describe. It is the current thread, except for a probe
//! whose tracepoint fires in another thread's context (`sched:::on-cpu` at
//! `sched_switch`, which runs as the previous thread leaves the CPU; see
//! `ContextKind::RawTracepoint`'s `subject_task_argument`): there every thread built-in
//! (`pid`, `tid`, `ppid`, `uid`, `gid`, `execname`, `curthread`, `vtimestamp`),
//! `progenyof()`, the key of thread-local variables, and kernel stacks are read from
//! the `struct task_struct` in that argument instead of from the helpers that describe
//! the current thread. The compiled program is the same either way: only this
//! translation differs.
//!
//! Only the probe's own clauses are rebound: ERROR's clauses, which the compiler
//! checked without knowing which probe they would run in, keep the current thread.
//! What cannot refer to another thread from here (its user memory, user stack and
//! registers, signals) the compiler refuses in such probes.
//!
//! Fields of the subject task are read with `bpf_probe_read_kernel` at offsets from BTF
//! (`map_layout::TaskStructOffsets`), into the work area's temporary words; a read that
//! fails leaves 0. Its kernel stack needs `bpf_get_task_stack`, which takes only a
//! task pointer the verifier knows from BTF, never a raw tracepoint's plain argument:
//! the task is reached as `bpf_get_current_task_btf()->se.cfs_rq->rq->curr`, which the
//! scheduler has set to the thread being switched in before `sched_switch` fires, and
//! used only when it is the subject task. Kernels from 6.12 on type that pointer as
//! untrusted (`rq->curr` shares a union with `donor`), which the helper refuses, and
//! let raw tracepoint programs call no kfunc that would give a trusted one: there a
//! kernel stack of the subject cannot be taken, and translating one is an error that
//! says so.

use super::artificial_frames::load_artificial_frame_count;
use super::code::ProgramCode;
use super::context::ContextKind;
use super::entry_stacks::{at_function_entry, complete_entry_user_stack};
use super::error::TranslateError;
use super::registers::CONTEXT;
use super::translation_context::{Chain, StatementContext};
use crate::ebpf::{Helper, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::TaskStructOffsets;

/// `bpf_get_stack`'s flag for the user stack.
const BPF_F_USER_STACK: i32 = 1 << 8;

/// The work-area offset of the argument word holding the subject task of the
/// statement's probe, when its clauses are about another thread than the current one.
fn subject_task_word(cx: &StatementContext<'_>) -> Option<u32> {
    if cx.chain != Chain::Main {
        return None;
    }
    let argument = cx.context().subject_task_argument()?;
    Some(cx.layout().state.arguments + 8 * u32::from(argument))
}

fn task_offsets(
    cx: &StatementContext<'_>,
    what: &str,
) -> Result<TaskStructOffsets, TranslateError> {
    cx.layout().options.task_offsets.ok_or_else(|| {
        cx.unsupported(format!(
            "{what} of the thread a probe is about, without task_struct offsets from BTF"
        ))
    })
}

/// `r0 = ` the `struct task_struct *` the clause describes (`curthread`).
pub fn load_current_task(code: &mut ProgramCode, cx: &StatementContext<'_>) {
    match subject_task_word(cx) {
        Some(word) => code.load_state(Reg::R0, word),
        None => code.call(Helper::GetCurrentTask),
    }
}

/// `r0 = ` the clause's thread's process id in the upper 32 bits and thread id in the
/// lower, as `bpf_get_current_pid_tgid` gives them for the current thread (clobbers
/// r1–r5 and the work area's first temporary word).
pub fn load_current_pid_tgid(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
) -> Result<(), TranslateError> {
    let Some(word) = subject_task_word(cx) else {
        code.call(Helper::GetCurrentPidTgid);
        return Ok(());
    };
    let offsets = task_offsets(cx, "pid and tid")?;
    let temporary = cx.layout().state.temporary;
    code.store_state_imm(temporary, 0);
    for (field, at) in [(offsets.pid, temporary), (offsets.tgid, temporary + 4)] {
        read_task_field(code, word, field, at, 4);
    }
    code.load_state(Reg::R0, temporary);
    Ok(())
}

/// `r0 = ` the clause's thread's group id in the upper 32 bits and user id in the
/// lower, as `bpf_get_current_uid_gid` gives them for the current thread: its
/// subjective credentials (clobbers r1–r5 and the work area's first two temporary
/// words).
pub fn load_current_uid_gid(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
) -> Result<(), TranslateError> {
    let Some(word) = subject_task_word(cx) else {
        code.call(Helper::GetCurrentUidGid);
        return Ok(());
    };
    let offsets = task_offsets(cx, "uid and gid")?;
    let temporary = cx.layout().state.temporary;
    let credentials = temporary + 8;
    let done = code.label();
    code.store_state_imm(temporary, 0);
    code.store_state_imm(credentials, 0);
    read_task_field(code, word, offsets.cred, credentials, 8);
    code.load_state(Reg::R3, credentials);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R3, 0, done);
    for (field, at) in [
        (offsets.cred_uid, temporary),
        (offsets.cred_gid, temporary + 4),
    ] {
        read_task_field(code, credentials, field, at, 4);
    }
    code.bind(done);
    code.load_state(Reg::R0, temporary);
    Ok(())
}

/// Writes the clause's thread's name, NUL-terminated in at most `size` bytes, to the
/// work area at `offset`, as `bpf_get_current_comm` does for the current thread
/// (clobbers r0–r5).
pub fn store_current_comm(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    offset: u32,
    size: u32,
) -> Result<(), TranslateError> {
    code.state_pointer(Reg::R1, offset);
    code.emit(Insn::mov64_imm(Reg::R2, size as i32));
    let Some(word) = subject_task_word(cx) else {
        code.call(Helper::GetCurrentComm);
        return Ok(());
    };
    let offsets = task_offsets(cx, "execname")?;
    code.load_state(Reg::R3, word);
    code.emit(Insn::add64_imm(Reg::R3, offsets.comm as i32));
    // The string read NUL-terminates what it copies and zeroes the buffer on failure.
    code.call(Helper::ProbeReadKernelStr);
    Ok(())
}

/// `r0 = ` the bytes captured of the clause's thread's kernel stack (`user` false) or
/// user stack into the work area at `at` (at most `size`), negative on failure
/// (clobbers r1–r5). The current thread's kernel stack leaves out the artificial frames
/// of the tracing machinery (see `artificial_frames`), and BEGIN and END have none;
/// another thread's is read as the
/// scheduler left it when that thread last went off CPU, with no tracing frames to
/// leave out since it is not running.
pub fn capture_stack(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    at: u32,
    size: u32,
    user: bool,
) -> Result<(), TranslateError> {
    if !user && matches!(cx.context(), ContextKind::DtraceMarker) {
        // BEGIN and END fire in the consumer, not in the kernel: their kernel stack is
        // empty, as in the user-space engine, rather than the test-run machinery that
        // runs their programs.
        code.emit(Insn::mov64_imm(Reg::R0, 0));
        return Ok(());
    }
    if user {
        code.emit(Insn::mov64_imm(Reg::R4, BPF_F_USER_STACK));
    } else if let Some(word) = subject_task_word(cx) {
        return capture_subject_kernel_stack(code, cx, word, at, size);
    } else {
        load_artificial_frame_count(code, cx.layout(), cx.artificial_frames(), cx.in_subprogram);
    }
    code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
    code.state_pointer(Reg::R2, at);
    code.emit(Insn::mov64_imm(Reg::R3, size as i32));
    code.call(Helper::GetStack);
    if user && at_function_entry(cx) {
        complete_entry_user_stack(code, cx, at, size);
    }
    Ok(())
}

/// `r0 = bpf_get_task_stack(subject task, work area + at, size, 0)`, reaching the task
/// through the run queue (see the module's documentation); -1 when the run queue's
/// current task is not the subject task in the argument word `word`.
fn capture_subject_kernel_stack(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    word: u32,
    at: u32,
    size: u32,
) -> Result<(), TranslateError> {
    let route = task_offsets(cx, "stack()")?
        .run_queue_current
        .ok_or_else(|| {
            cx.unsupported(
                "the kernel stack (stack(), stackdepth, caller) of the thread a probe is \
                 about, read from another thread's context, on a kernel that gives raw \
                 tracepoint programs no pointer to that thread bpf_get_task_stack accepts,",
            )
        })?;
    let failed = code.label();
    let done = code.label();
    code.call(Helper::GetCurrentTaskBtf);
    for offset in [route.task_cfs_rq, route.cfs_rq_rq, route.rq_curr] {
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R0, offset as i16));
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, failed);
    }
    code.load_state(Reg::R1, word);
    code.asm.jmp_reg_to(JmpOp::Ne, Reg::R0, Reg::R1, failed);
    code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
    code.state_pointer(Reg::R2, at);
    code.emit(Insn::mov64_imm(Reg::R3, size as i32));
    code.emit(Insn::mov64_imm(Reg::R4, 0));
    code.call(Helper::GetTaskStack);
    code.asm.ja_to(done);
    code.bind(failed);
    code.emit(Insn::mov64_imm(Reg::R0, -1));
    code.bind(done);
    Ok(())
}

/// Reads `size` bytes at `field` past the pointer in the work-area word `base` into
/// the work area at `at` (clobbers r0–r5).
fn read_task_field(code: &mut ProgramCode, base: u32, field: u32, at: u32, size: i32) {
    code.state_pointer(Reg::R1, at);
    code.emit(Insn::mov64_imm(Reg::R2, size));
    code.load_state(Reg::R3, base);
    code.emit(Insn::add64_imm(Reg::R3, field as i32));
    code.call(Helper::ProbeReadKernel);
}
