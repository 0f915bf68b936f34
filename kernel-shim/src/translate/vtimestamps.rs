//! `vtimestamp`: the time the current thread has spent on CPU, kept per thread in the
//! `vtimestamps` map by a tracker program on the raw tracepoint `sched_switch`, which the
//! runtime loads and attaches when a program reads `vtimestamp`, and read here by the
//! probe programs.
//!
//! The scheduler's own count (`se.sum_exec_runtime`) is only brought up to date at its
//! ticks and switches, and its clock (the run queue's task clock, which leaves out
//! interrupt and steal time and so drifts away from `bpf_ktime_get_ns`) cannot be read
//! from a program. The tracker therefore keeps, per thread, the time on CPU as of its
//! last switch-in and when that was (`bpf_ktime_get_ns`): a thread is first entered with
//! the scheduler's count, which is exact at a switch; from then on the tracker adds the
//! `ktime` between each switch-in and switch-out, as classic DTrace adds up `gethrtime()`
//! deltas at every switch, so the value never goes back. A thread with no entry yet
//! (running since before the session, or evicted from the map) reads the scheduler's
//! count. Entries are keyed by `task_struct` address and carry the thread's start time,
//! so that a new thread at a freed thread's address starts afresh.
//!
//! `sched_switch` fires after the scheduler has brought both threads' counts up to date
//! (`update_curr` runs for `prev` as it is put back and `next` has just been picked), so
//! `se.sum_exec_runtime` is exact for both there; it passes (`preempt`, `prev`, `next`)
//! as raw tracepoint arguments, which are plain numbers to the verifier, so the task
//! fields are read with `bpf_probe_read_kernel`.

use super::code::ProgramCode;
use super::error::TranslateError;
use super::subject_task::load_current_task;
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Assembler, Helper, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::{MapFds, ProgramLayout, TaskStructOffsets, VtimestampLayout};

/// The tracker's stack: the thread's start time, the map key (its `task_struct`
/// address), and an entry being built.
const TRACKER_START_TIME: i16 = -8;
const TRACKER_KEY: i16 = -16;
const TRACKER_ENTRY: i16 = -40;

/// The `sched_switch` raw tracepoint program that keeps the `vtimestamps` map: at every
/// switch it adds the time `prev` was on CPU to its entry and notes when `next` starts,
/// entering a thread it does not know (or whose address now belongs to a new thread)
/// with the scheduler's exact count.
pub fn vtimestamp_tracker(
    layout: &ProgramLayout,
    maps: &MapFds,
) -> Result<Vec<Insn>, TranslateError> {
    let offsets = layout
        .options
        .task_offsets
        .ok_or_else(|| TranslateError::Unsupported {
            what: "vtimestamp without task_struct offsets from BTF".to_string(),
            location: "the vtimestamp tracker".to_string(),
        })?;
    let map = maps
        .vtimestamps
        .ok_or(TranslateError::MissingMap { map: "vtimestamps" })?;
    let mut asm = Assembler::new();
    asm.emit(Insn::mov64_reg(Reg::R6, Reg::R1));
    asm.emit(Insn::call(Helper::KtimeGetNs));
    asm.emit(Insn::mov64_reg(Reg::R9, Reg::R0));
    for (argument, switching_out) in [(1, true), (2, false)] {
        emit_thread_switch(&mut asm, &offsets, map, argument, switching_out);
    }
    asm.emit(Insn::mov64_imm(Reg::R0, 0));
    asm.emit(Insn::exit());
    Ok(asm.finish()?)
}

/// The tracker's work for one thread of the switch: `prev` (tracepoint argument 1,
/// `switching_out`) or `next` (argument 2).
fn emit_thread_switch(
    asm: &mut Assembler,
    offsets: &TaskStructOffsets,
    map: i32,
    argument: i16,
    switching_out: bool,
) {
    let done = asm.new_label();
    let enter = asm.new_label();
    asm.emit(Insn::ldx_mem(MemSize::DW, Reg::R7, Reg::R6, 8 * argument));
    asm.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R7, TRACKER_KEY));
    asm.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
    asm.emit(Insn::add64_imm(Reg::R1, TRACKER_START_TIME as i32));
    asm.emit(Insn::mov64_imm(Reg::R2, 8));
    asm.emit(Insn::mov64_reg(Reg::R3, Reg::R7));
    asm.emit(Insn::add64_imm(Reg::R3, offsets.start_time as i32));
    asm.emit(Insn::call(Helper::ProbeReadKernel));
    asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, done);
    asm.emit_all(&Insn::ld_map_fd(Reg::R1, map));
    asm.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    asm.emit(Insn::add64_imm(Reg::R2, TRACKER_KEY as i32));
    asm.emit(Insn::call(Helper::MapLookupElem));
    asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, enter);
    asm.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R1,
        Reg::R0,
        VtimestampLayout::START_TIME as i16,
    ));
    asm.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R2,
        Reg::FP,
        TRACKER_START_TIME,
    ));
    asm.jmp_reg_to(JmpOp::Ne, Reg::R1, Reg::R2, enter);
    emit_known_thread(asm, switching_out, enter);
    asm.ja_to(done);
    asm.bind(enter);
    emit_new_thread(asm, offsets, map, switching_out, done);
    asm.bind(done);
}

/// The thread has an entry (its `task_struct` address in r7, the entry in r0): a thread
/// switching out adds its time since switching in; one switching in notes when.
fn emit_known_thread(asm: &mut Assembler, switching_out: bool, enter: Label) {
    if switching_out {
        // A switch-out without a switch-in seen (the tracker was attached while the
        // thread ran) starts over from the scheduler's count.
        asm.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R1,
            Reg::R0,
            VtimestampLayout::SWITCHED_IN as i16,
        ));
        asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, enter);
        asm.emit(Insn::mov64_reg(Reg::R2, Reg::R9));
        asm.emit(Insn::alu64_reg(AluOp::Sub, Reg::R2, Reg::R1));
        asm.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R3,
            Reg::R0,
            VtimestampLayout::ON_CPU as i16,
        ));
        asm.emit(Insn::alu64_reg(AluOp::Add, Reg::R3, Reg::R2));
        asm.emit(Insn::stx_mem(
            MemSize::DW,
            Reg::R0,
            Reg::R3,
            VtimestampLayout::ON_CPU as i16,
        ));
        asm.emit(Insn::st_mem(
            MemSize::DW,
            Reg::R0,
            VtimestampLayout::SWITCHED_IN as i16,
            0,
        ));
    } else {
        asm.emit(Insn::stx_mem(
            MemSize::DW,
            Reg::R0,
            Reg::R9,
            VtimestampLayout::SWITCHED_IN as i16,
        ));
    }
}

/// The thread has no entry, or its address belongs to a new thread: enters it with the
/// scheduler's exact count.
fn emit_new_thread(
    asm: &mut Assembler,
    offsets: &TaskStructOffsets,
    map: i32,
    switching_out: bool,
    done: Label,
) {
    let entry = |field: u32| TRACKER_ENTRY + field as i16;
    asm.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
    asm.emit(Insn::add64_imm(
        Reg::R1,
        entry(VtimestampLayout::ON_CPU) as i32,
    ));
    asm.emit(Insn::mov64_imm(Reg::R2, 8));
    asm.emit(Insn::mov64_reg(Reg::R3, Reg::R7));
    asm.emit(Insn::add64_imm(Reg::R3, offsets.sum_exec_runtime as i32));
    asm.emit(Insn::call(Helper::ProbeReadKernel));
    asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, done);
    asm.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R1,
        Reg::FP,
        TRACKER_START_TIME,
    ));
    asm.emit(Insn::stx_mem(
        MemSize::DW,
        Reg::FP,
        Reg::R1,
        entry(VtimestampLayout::START_TIME),
    ));
    if switching_out {
        asm.emit(Insn::st_mem(
            MemSize::DW,
            Reg::FP,
            entry(VtimestampLayout::SWITCHED_IN),
            0,
        ));
    } else {
        asm.emit(Insn::stx_mem(
            MemSize::DW,
            Reg::FP,
            Reg::R9,
            entry(VtimestampLayout::SWITCHED_IN),
        ));
    }
    asm.emit_all(&Insn::ld_map_fd(Reg::R1, map));
    asm.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    asm.emit(Insn::add64_imm(Reg::R2, TRACKER_KEY as i32));
    asm.emit(Insn::mov64_reg(Reg::R3, Reg::FP));
    asm.emit(Insn::add64_imm(Reg::R3, TRACKER_ENTRY as i32));
    asm.emit(Insn::mov64_imm(Reg::R4, crate::sys::BPF_ANY as i32));
    asm.emit(Insn::call(Helper::MapUpdateElem));
}

/// `r0 = vtimestamp`: the clause's thread's entry's time on CPU plus the time since
/// its switch-in, up to the clause's `timestamp` (so the value is constant within a
/// clause); the scheduler's count when the thread has no entry (clobbers r0–r5).
pub fn load_vtimestamp(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
) -> Result<(), TranslateError> {
    let offsets = cx
        .layout()
        .options
        .task_offsets
        .ok_or_else(|| cx.unsupported("vtimestamp without task_struct offsets from BTF"))?;
    let map = cx
        .maps()
        .vtimestamps
        .ok_or(TranslateError::MissingMap { map: "vtimestamps" })?;
    let task = cx.layout().state.temporary;
    let start_time = task + 8;
    let scheduler_count = task + 16;
    let timestamp = cx.layout().state.timestamp;
    let fallback = code.label();
    let done = code.label();
    load_current_task(code, cx);
    code.store_state(task, Reg::R0);
    code.store_state_imm(start_time, 0);
    code.state_pointer(Reg::R1, start_time);
    code.emit(Insn::mov64_imm(Reg::R2, 8));
    code.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
    code.alu_imm(AluOp::Add, Reg::R3, offsets.start_time as i32);
    code.call(Helper::ProbeReadKernel);
    code.emit_all(&Insn::ld_map_fd(Reg::R1, map));
    code.state_pointer(Reg::R2, task);
    code.call(Helper::MapLookupElem);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, fallback);
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R1,
        Reg::R0,
        VtimestampLayout::START_TIME as i16,
    ));
    code.load_state(Reg::R2, start_time);
    code.asm.jmp_reg_to(JmpOp::Ne, Reg::R1, Reg::R2, fallback);
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R1,
        Reg::R0,
        VtimestampLayout::SWITCHED_IN as i16,
    ));
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R0,
        Reg::R0,
        VtimestampLayout::ON_CPU as i16,
    ));
    // Switched out (a clause running in `sched_switch` after the tracker): the
    // entry's count is the whole of it.
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, done);
    code.load_state(Reg::R3, timestamp);
    code.asm.jmp_reg_to(JmpOp::Lt, Reg::R3, Reg::R1, done);
    code.alu_reg(AluOp::Sub, Reg::R3, Reg::R1);
    code.alu_reg(AluOp::Add, Reg::R0, Reg::R3);
    code.asm.ja_to(done);

    code.bind(fallback);
    code.store_state_imm(scheduler_count, 0);
    code.state_pointer(Reg::R1, scheduler_count);
    code.emit(Insn::mov64_imm(Reg::R2, 8));
    code.load_state(Reg::R3, task);
    code.alu_imm(AluOp::Add, Reg::R3, offsets.sum_exec_runtime as i32);
    code.call(Helper::ProbeReadKernel);
    code.load_state(Reg::R0, scheduler_count);
    code.bind(done);
    Ok(())
}
