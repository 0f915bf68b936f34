//! Speculations: `speculation()` claims a free speculation with a compare-and-exchange on
//! its state word in the globals value; `speculate(id)` redirects the clause's record to
//! the CPU's buffer of that speculation, or ends the clause when it cannot (an id of 0,
//! an inactive speculation, or a full buffer, which counts a speculative drop);
//! `commit(id)` marks it for the end of the clause, when every CPU's buffer is written to
//! the principal buffer (one perf sample per CPU holding whole records) and the
//! speculation is freed (after `cleanrate`'s interval when other CPUs held data in it, as
//! DTrace's cleaner commits those buffers); `discard(id)` empties it (unless the clause already committed
//! it) and frees it at once when only this CPU held data in it, else leaves it busy for
//! `cleanrate`'s interval, as DTrace's cleaner would. Speculative data never leaves the
//! kernel unless committed. Ids outside 1..=nspec fault with `illegal operation` outside
//! code, as in the interpreter.

use difvm::object::FaultCode;

use super::code::{FaultSite, FaultValue, ProgramCode};
use super::error::TranslateError;
use super::principal_buffer::{
    count_written, counts_principal_bytes, drop_unless_room, PrincipalLength,
};
use super::registers::{
    CONTEXT, FIRST_VALUE, MAP_KEY, SAVED_0, SPILL_0, SPILL_1, SPILL_2, SPILL_3,
};
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, AtomicOp, Helper, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::ProgramLayout;
use crate::map_layout::{
    COUNTER_PRINCIPAL_DROPS, COUNTER_SPECULATION_BUSY, COUNTER_SPECULATION_UNAVAILABLE,
    COUNTER_SPECULATIVE_DROPS,
};

/// Most (speculation × CPU) buffers a commit or discard is unrolled over.
const MAX_UNROLLED_BUFFERS: u32 = 256;

fn speculation_count(layout: &ProgramLayout) -> u32 {
    layout.options.speculation_count
}

/// State word of a speculation that is free.
const STATE_INACTIVE: i32 = 0;
/// State word of a speculation `speculation()` handed out. Any larger value is the
/// time (ktime ns) a discard or commit left it waiting for the cleaner.
const STATE_ACTIVE: i32 = 1;

/// `speculation()`: r0 = the id of a newly claimed speculation, or 0 (counted as busy
/// when a discarded speculation still waits for the cleaner, as unavailable otherwise).
/// A speculation discarded at least `cleanrate`'s interval ago counts as cleaned: the
/// cleaner is emulated lazily, here.
pub fn allocate_speculation(code: &mut ProgramCode, layout: &ProgramLayout) {
    let states = layout.globals.speculation_states;
    let interval = layout.options.speculation_clean_interval;
    let done = code.label();
    // SPILL_0: the time now; SPILL_1: whether a speculation was busy.
    code.call(Helper::KtimeGetNs);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
    code.emit(Insn::st_mem(MemSize::DW, Reg::FP, SPILL_1, 0));
    for index in 0..speculation_count(layout) {
        let next = code.label();
        let claim = code.label();
        code.globals_pointer(Reg::R1, states + 8 * index);
        code.emit(Insn::mov64_imm(Reg::R0, STATE_INACTIVE));
        code.emit(Insn::mov64_imm(Reg::R2, STATE_ACTIVE));
        code.emit(Insn::atomic(
            MemSize::DW,
            AtomicOp::CmpXchg,
            Reg::R1,
            Reg::R2,
            0,
        ));
        code.asm
            .jmp_imm_to(JmpOp::Eq, Reg::R0, STATE_INACTIVE, claim);
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, STATE_ACTIVE, next);
        // Discarded at r0: cleaned once the interval has passed, busy until then.
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, SPILL_0));
        code.alu_reg(AluOp::Sub, Reg::R3, Reg::R0);
        code.emit_all(&Insn::ld_imm64(Reg::R4, interval));
        let cleaned = code.label();
        code.asm.jmp_reg_to(JmpOp::Ge, Reg::R3, Reg::R4, cleaned);
        code.emit(Insn::st_mem(MemSize::DW, Reg::FP, SPILL_1, 1));
        code.asm.ja_to(next);
        code.bind(cleaned);
        // r0 still holds the discard time the compare-and-exchange expects; another
        // CPU may have claimed the speculation since.
        code.emit(Insn::mov64_reg(Reg::R5, Reg::R0));
        code.emit(Insn::atomic(
            MemSize::DW,
            AtomicOp::CmpXchg,
            Reg::R1,
            Reg::R2,
            0,
        ));
        code.asm.jmp_reg_to(JmpOp::Ne, Reg::R0, Reg::R5, next);
        code.bind(claim);
        code.emit(Insn::mov64_imm(Reg::R0, index as i32 + 1));
        code.asm.ja_to(done);
        code.bind(next);
    }
    let unavailable = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, unavailable);
    code.count(COUNTER_SPECULATION_BUSY);
    let counted = code.label();
    code.asm.ja_to(counted);
    code.bind(unavailable);
    code.count(COUNTER_SPECULATION_UNAVAILABLE);
    code.bind(counted);
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.bind(done);
}

/// Checks the id in the `FIRST_VALUE` slot: jumps to `none` for 0, faults for ids past
/// nspec, and leaves the id in r1 otherwise.
fn speculation_id(code: &mut ProgramCode, cx: &StatementContext<'_>, none: crate::ebpf::Label) {
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, FIRST_VALUE));
    // `id < 1` rather than `id == 0`: older verifiers (6.1) learn `id >= 1` only from
    // an ordered comparison, and need it to bound the index computed from the id.
    code.asm.jmp_imm_to(JmpOp::Lt, Reg::R1, 1, none);
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Gt,
        Reg::R1,
        speculation_count(cx.layout()) as i32,
        FaultCode::IllegalOperation,
        FaultValue::Register(Reg::R1),
        FaultSite::OutsideCode,
    );
}

/// `speculate(id)`: sets the clause's destination. As DTrace's `speculate()` reserves
/// the record's room in the speculation buffer there, an id of 0, a speculation that is
/// not active (free, or discarded) or one whose buffer on this CPU lacks room for the
/// record (`record_length`, when the statement records; a speculative drop) ends the
/// clause at `dropped_exit`: nothing is recorded and the rest of the clause does not run.
pub fn speculate(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    record_length: Option<u32>,
) -> Result<(), TranslateError> {
    let fd = require_speculations(cx)?;
    let destination = cx.layout().state.destination;
    let dropped = cx.dropped_exit;
    speculation_id(code, cx, dropped);
    code.emit(Insn::mov64_reg(SAVED_0, Reg::R1));
    code.alu_imm(AluOp::Sub, SAVED_0, 1);
    code.emit(Insn::mov64_reg(Reg::R2, SAVED_0));
    code.alu_imm(AluOp::Lsh, Reg::R2, 3);
    code.globals_pointer(Reg::R3, cx.layout().globals.speculation_states);
    code.alu_reg(AluOp::Add, Reg::R3, Reg::R2);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R3, 0));
    code.asm
        .jmp_imm_to(JmpOp::Ne, Reg::R3, STATE_ACTIVE, dropped);
    if let Some(length) = record_length {
        // This CPU's buffer: key = index × cpus + cpu.
        code.call(Helper::GetSmpProcessorId);
        code.emit(Insn::mov64_reg(Reg::R1, SAVED_0));
        code.alu_imm(AluOp::Mul, Reg::R1, cx.layout().options.cpu_count as i32);
        code.alu_reg(AluOp::Add, Reg::R1, Reg::R0);
        code.emit(Insn::stx_mem(MemSize::W, Reg::FP, Reg::R1, MAP_KEY));
        code.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
        code.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
        code.map_lookup(fd);
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, dropped);
        let fits = code.label();
        let specsize = cx.layout().options.speculation_size;
        if length <= specsize {
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R0, 0));
            code.asm
                .jmp_imm_to(JmpOp::Le, Reg::R1, (specsize - length) as i32, fits);
        }
        // Index × 8 is the offset of the speculation's unreported drops.
        code.emit(Insn::mov64_reg(Reg::R1, SAVED_0));
        code.alu_imm(AluOp::Lsh, Reg::R1, 3);
        pending_drops_pointer(code, cx, Reg::R1);
        code.emit(Insn::mov64_imm(Reg::R2, 1));
        code.emit(Insn::atomic(
            MemSize::DW,
            AtomicOp::Add,
            Reg::R1,
            Reg::R2,
            0,
        ));
        code.asm.ja_to(dropped);
        code.bind(fits);
    }
    code.alu_imm(AluOp::Add, SAVED_0, 1);
    code.store_state(destination, SAVED_0);
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    Ok(())
}

/// `commit(id)`: remembers the speculation for the end of the clause.
pub fn commit(code: &mut ProgramCode, cx: &StatementContext<'_>) -> Result<(), TranslateError> {
    require_speculations(cx)?;
    let commits = cx.layout().state.commits;
    let none = code.label();
    speculation_id(code, cx, none);
    code.alu_imm(AluOp::Sub, Reg::R1, 1);
    code.emit(Insn::mov64_imm(Reg::R2, 1));
    code.alu_reg(AluOp::Lsh, Reg::R2, Reg::R1);
    code.load_state(Reg::R3, commits);
    code.alu_reg(AluOp::Or, Reg::R3, Reg::R2);
    code.store_state(commits, Reg::R3);
    code.bind(none);
    Ok(())
}

/// `discard(id)`: empties every CPU's buffer of the speculation and frees it.
pub fn discard(code: &mut ProgramCode, cx: &StatementContext<'_>) -> Result<(), TranslateError> {
    require_speculations(cx)?;
    let none = code.label();
    speculation_id(code, cx, none);
    for index in 0..speculation_count(cx.layout()) {
        let next = code.label();
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, FIRST_VALUE));
        code.asm
            .jmp_imm_to(JmpOp::Ne, Reg::R1, index as i32 + 1, next);
        // A speculation this clause already committed is committed: DTrace copies it
        // at the commit() itself, so a later discard() finds it inactive.
        code.load_state(Reg::R2, cx.layout().state.commits);
        code.emit(Insn::mov64_imm(Reg::R3, 1));
        code.alu_imm(AluOp::Lsh, Reg::R3, index as i32);
        code.alu_reg(AluOp::And, Reg::R2, Reg::R3);
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 0, next);
        let state_offset = cx.layout().globals.speculation_states + 8 * index;
        code.globals_pointer(Reg::R1, state_offset);
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R1, 0));
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, STATE_ACTIVE, next);
        // DTrace forgets a discarded speculation's drops.
        code.globals_pointer(Reg::R1, cx.layout().globals.speculation_drops + 8 * index);
        code.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 0));
        // Empty every CPU's buffer, noting whether this CPU (SPILL_0) and another
        // (SPILL_1) held data; SPILL_2 is this CPU.
        code.call(Helper::GetSmpProcessorId);
        code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
        code.emit(Insn::st_mem(MemSize::DW, Reg::FP, SPILL_0, 0));
        code.emit(Insn::st_mem(MemSize::DW, Reg::FP, SPILL_1, 0));
        for cpu in 0..cx.layout().options.cpu_count {
            let skip = code.label();
            let other = code.label();
            lookup_speculation_buffer(code, cx, index, cpu)?;
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, skip);
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R0, 0));
            code.emit(Insn::st_mem(MemSize::DW, Reg::R0, 0, 0));
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, skip);
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
            code.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, cpu as i32, other);
            code.emit(Insn::st_mem(MemSize::DW, Reg::FP, SPILL_0, 1));
            code.asm.ja_to(skip);
            code.bind(other);
            code.emit(Insn::st_mem(MemSize::DW, Reg::FP, SPILL_1, 1));
            code.bind(skip);
        }
        // Free at once when only this CPU held data; otherwise DTrace leaves it
        // discarding until its cleaner runs: the state word holds the time.
        let busy = code.label();
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, busy);
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, busy);
        code.globals_pointer(Reg::R1, state_offset);
        code.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, STATE_INACTIVE));
        code.asm.ja_to(next);
        code.bind(busy);
        code.call(Helper::KtimeGetNs);
        code.globals_pointer(Reg::R1, state_offset);
        code.emit(Insn::stx_mem(MemSize::DW, Reg::R1, Reg::R0, 0));
        code.bind(next);
    }
    code.bind(none);
    Ok(())
}

fn require_speculations(cx: &StatementContext<'_>) -> Result<i32, TranslateError> {
    let fd = cx.maps().speculations.ok_or(TranslateError::MissingMap {
        map: "speculations",
    })?;
    let buffers = speculation_count(cx.layout()) * cx.layout().options.cpu_count;
    if buffers > MAX_UNROLLED_BUFFERS {
        return Err(cx.unsupported(format!(
            "speculation with {buffers} speculation buffers (nspec × CPUs) over {MAX_UNROLLED_BUFFERS}"
        )));
    }
    Ok(fd)
}

/// Turns `offset` (a speculation's index × 8, bounded by nspec) into a pointer to the
/// speculation's unreported drops in the globals value (clobbers r0).
fn pending_drops_pointer(code: &mut ProgramCode, cx: &StatementContext<'_>, offset: Reg) {
    code.globals_pointer(Reg::R0, cx.layout().globals.speculation_drops);
    code.alu_reg(AluOp::Add, offset, Reg::R0);
}

/// Reports the unreported drops of speculation `index` (from 0), as DTrace does when it
/// commits a speculation (clobbers r0–r5).
fn report_pending_drops(code: &mut ProgramCode, cx: &StatementContext<'_>, index: u32) {
    let none = code.label();
    code.globals_pointer(Reg::R1, cx.layout().globals.speculation_drops + 8 * index);
    code.emit(Insn::mov64_imm(Reg::R2, 0));
    code.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::Xchg,
        Reg::R1,
        Reg::R2,
        0,
    ));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, none);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R2, SPILL_0));
    code.count_from_stack(COUNTER_SPECULATIVE_DROPS, SPILL_0);
    code.bind(none);
}

/// r0 = the buffer of speculation `index` (from 0) on `cpu`, or NULL.
fn lookup_speculation_buffer(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    index: u32,
    cpu: u32,
) -> Result<(), TranslateError> {
    let fd = require_speculations(cx)?;
    let key = index * cx.layout().options.cpu_count + cpu;
    code.emit(Insn::st_mem(MemSize::W, Reg::FP, MAP_KEY, key as i32));
    code.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    code.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
    code.map_lookup(fd);
    Ok(())
}

/// Appends the record (`length` bytes) to this CPU's buffer of the speculation whose
/// id is the destination word (1..=nspec).
pub fn append_speculated_record(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    length: u32,
) -> Result<(), TranslateError> {
    let fd = require_speculations(cx)?;
    let state = &cx.layout().state;
    let (destination, record) = (state.destination, state.record);
    let specsize = cx.layout().options.speculation_size;
    let done = code.label();
    // Only while the speculation is active.
    code.load_state(Reg::R1, destination);
    code.alu_imm(AluOp::Sub, Reg::R1, 1);
    code.asm.jmp_imm_to(
        JmpOp::Ge,
        Reg::R1,
        speculation_count(cx.layout()) as i32,
        done,
    );
    code.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
    code.alu_imm(AluOp::Lsh, Reg::R2, 3);
    code.globals_pointer(Reg::R3, cx.layout().globals.speculation_states);
    code.alu_reg(AluOp::Add, Reg::R3, Reg::R2);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R3, 0));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R3, 0, done);
    // SPILL_3: the speculation's unreported drops, where a drop is counted (below).
    code.emit(Insn::mov64_reg(SAVED_0, Reg::R1));
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
    code.alu_imm(AluOp::Lsh, Reg::R4, 3);
    pending_drops_pointer(code, cx, Reg::R4);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R4, SPILL_3));
    // key = index × cpus + cpu.
    code.call(Helper::GetSmpProcessorId);
    code.alu_imm(AluOp::Mul, SAVED_0, cx.layout().options.cpu_count as i32);
    code.alu_reg(AluOp::Add, SAVED_0, Reg::R0);
    code.emit(Insn::stx_mem(MemSize::W, Reg::FP, SAVED_0, MAP_KEY));
    code.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    code.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
    code.map_lookup(fd);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
    code.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
    // speculate() found room for the record; a firing nested in this one (a probe in
    // an interrupt) may have taken it since: then the record is a speculative drop.
    let count_drop = |code: &mut ProgramCode| {
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_3));
        code.emit(Insn::mov64_imm(Reg::R2, 1));
        code.emit(Insn::atomic(
            MemSize::DW,
            AtomicOp::Add,
            Reg::R1,
            Reg::R2,
            0,
        ));
    };
    // A record larger than the whole buffer never gets here: speculate() drops it.
    if length <= specsize {
        let fits = code.label();
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, SAVED_0, 0));
        code.asm
            .jmp_imm_to(JmpOp::Le, Reg::R1, (specsize - length) as i32, fits);
        count_drop(code);
        code.asm.ja_to(done);
        code.bind(fits);
        code.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
        code.alu_imm(AluOp::Add, Reg::R2, length as i32);
        code.emit(Insn::stx_mem(MemSize::DW, SAVED_0, Reg::R2, 0));
        code.alu_imm(AluOp::Add, Reg::R1, 8);
        code.alu_reg(AluOp::Add, Reg::R1, SAVED_0);
        code.emit(Insn::mov64_imm(Reg::R2, length as i32));
        code.state_pointer(Reg::R3, record);
        code.call(Helper::ProbeReadKernel);
    }
    code.bind(done);
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    Ok(())
}

/// Performs the commits the clause asked for: every CPU's buffer of each speculation is
/// written to the principal buffer and emptied, and the speculation freed.
pub fn perform_commits(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
) -> Result<(), TranslateError> {
    require_speculations(cx)?;
    let commits = cx.layout().state.commits;
    let specsize = cx.layout().options.speculation_size;
    // Where a committed buffer's length waits while its room is checked, this CPU, and
    // whether another CPU held data: the last temporary words, which nothing else uses
    // across these lines.
    let length_word = cx.layout().state.temporary + 56;
    let other_cpu_word = cx.layout().state.temporary + 48;
    let this_cpu_word = cx.layout().state.temporary + 40;
    code.call(Helper::GetSmpProcessorId);
    code.store_state(this_cpu_word, Reg::R0);
    for index in 0..speculation_count(cx.layout()) {
        let next = code.label();
        code.load_state(Reg::R1, commits);
        code.alu_imm(AluOp::Rsh, Reg::R1, index as i32);
        code.alu_imm(AluOp::And, Reg::R1, 1);
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, next);
        let state_offset = cx.layout().globals.speculation_states + 8 * index;
        code.globals_pointer(Reg::R1, state_offset);
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R1, 0));
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, STATE_ACTIVE, next);
        report_pending_drops(code, cx, index);
        code.store_state_imm(other_cpu_word, 0);
        for cpu in 0..cx.layout().options.cpu_count {
            let skip = code.label();
            lookup_speculation_buffer(code, cx, index, cpu)?;
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, skip);
            code.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R5, SAVED_0, 0));
            code.emit(Insn::st_mem(MemSize::DW, SAVED_0, 0, 0));
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R5, 0, skip);
            let here = code.label();
            code.load_state(Reg::R1, this_cpu_word);
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, cpu as i32, here);
            code.store_state_imm(other_cpu_word, 1);
            code.bind(here);
            if counts_principal_bytes(cx) {
                code.store_state(length_word, Reg::R5);
                drop_unless_room(code, cx, PrincipalLength::InStateWord(length_word), skip);
                code.load_state(Reg::R5, length_word);
            }
            code.asm
                .jmp_imm_to(JmpOp::Gt, Reg::R5, specsize as i32, skip);
            code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
            code.emit_all(&Insn::ld_map_fd(Reg::R2, cx.maps().principal));
            code.emit(Insn::mov32_imm(Reg::R3, -1));
            code.emit(Insn::mov64_reg(Reg::R4, SAVED_0));
            code.alu_imm(AluOp::Add, Reg::R4, 8);
            code.call(Helper::PerfEventOutput);
            let refused = code.label();
            code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, refused);
            count_written(code, cx, PrincipalLength::InStateWord(length_word));
            code.asm.ja_to(skip);
            code.bind(refused);
            code.count(COUNTER_PRINCIPAL_DROPS);
            code.bind(skip);
        }
        // Free at once when no other CPU held data; otherwise DTrace leaves it
        // committing until its cleaner has committed the other CPUs' buffers: busy
        // for `cleanrate`'s interval, as a discarded one.
        let busy = code.label();
        code.load_state(Reg::R1, other_cpu_word);
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, busy);
        code.globals_pointer(Reg::R1, state_offset);
        code.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, STATE_INACTIVE));
        code.asm.ja_to(next);
        code.bind(busy);
        code.call(Helper::KtimeGetNs);
        code.globals_pointer(Reg::R1, state_offset);
        code.emit(Insn::stx_mem(MemSize::DW, Reg::R1, Reg::R0, 0));
        code.bind(next);
    }
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    Ok(())
}
