//! `strtok(s, delimiters)`, as the interpreter does it: a new string is copied to the
//! firing's token area (`StateLayout::tokens`, one for the probe's firing and one for an
//! ERROR firing), and the position after each token is kept there, so that `strtok(NULL,
//! …)` goes on from it, in later clauses of the firing too. The delimiters become a
//! 256-bit set in the work area's first four temporary words; three `bpf_loop`s build the
//! set, skip delimiters to the token's start and find its end.
//!
//! Temporary words: `T0`–`T3` the delimiter set, `T4` the cursor, `T5` whether a token
//! starts, `T6` its start.

use super::code::{FaultSite, ProgramCode};
use super::error::TranslateError;
use super::loops::LoopBody;
use super::memory::{allocate_scratch, read_string, scratch_address};
use super::memory::{Access, ScratchSize, StringDestination};
use super::registers::{SAVED_0, SAVED_1, STATE};
use super::string_subroutines::temporary_word;
use super::strings::{string_buffer, string_into_buffer};
use super::translation_context::{Chain, StatementContext};
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::ProgramLayout;

/// The token area of `chain`.
fn token_area(layout: &ProgramLayout, chain: Chain) -> Option<u32> {
    let areas = layout.state.tokens?;
    Some(match chain {
        Chain::Main => areas[0],
        Chain::Error => areas[1],
    })
}

/// Forgets the `strtok()` position of `chain` (a firing starts without one). Clobbers
/// r1.
pub fn reset_tokens(code: &mut ProgramCode, layout: &ProgramLayout, chain: Chain) {
    if let Some(area) = token_area(layout, chain) {
        code.state_pointer(Reg::R1, area);
        code.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, -1));
    }
}

/// `strtok(s, delimiters)` with `s` in r9 and the delimiters in r8: r0 = the next
/// token as a scratch string, or 0 when no token is left.
pub fn tokenize(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    site: FaultSite,
) -> Result<(), TranslateError> {
    let area = token_area(cx.layout(), cx.chain)
        .ok_or_else(|| cx.unsupported("strtok() without a token area"))?;
    let strsize = cx.layout().options.strsize;
    let copy = area + 8;
    let (cursor, found, start) = (
        temporary_word(cx.layout(), 4),
        temporary_word(cx.layout(), 5),
        temporary_word(cx.layout(), 6),
    );
    // The delimiters are read first, as in the interpreter.
    code.emit(Insn::mov64_reg(Reg::R0, SAVED_1));
    code.emit(Insn::mov64_reg(SAVED_1, SAVED_0));
    code.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
    string_into_buffer(code, cx, 1, false, site);
    for word in 0..4 {
        code.store_state_imm(temporary_word(cx.layout(), word), 0);
    }
    code.load_constant(Reg::R1, strsize as u64);
    code.run_loop(LoopBody::DelimiterSet);

    // The string: a new one is copied, NULL goes on from the saved position.
    let positioned = code.label();
    let new_string = code.label();
    let exhausted = code.label();
    code.emit(Insn::mov64_reg(SAVED_1, SAVED_0));
    code.asm.jmp_imm_to(JmpOp::Ne, SAVED_1, 0, new_string);
    code.state_pointer(Reg::R1, area);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R1, 0));
    // No saved position (no string yet, or the last one ran out): DTrace's strtok()
    // continues from a NULL position and finds no token, so the result is NULL.
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R0, 0, exhausted);
    code.store_state(cursor, Reg::R0);
    code.asm.ja_to(positioned);
    code.bind(new_string);
    code.state_pointer(SAVED_0, copy);
    read_string(
        code,
        cx,
        SAVED_1,
        strsize,
        None,
        StringDestination::Pointer(SAVED_0),
        Access::Kernel,
        site,
    );
    code.store_state_imm(cursor, 0);
    code.bind(positioned);
    code.emit(Insn::mov64_imm(SAVED_0, 0));

    // Delimiters before the token; none left ends the tokenising.
    let token = code.label();
    let done = code.label();
    code.store_state_imm(found, 0);
    code.load_constant(Reg::R1, strsize as u64 + 1);
    code.run_loop(LoopBody::TokenStart { copy });
    code.load_state(Reg::R0, found);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, token);
    code.bind(exhausted);
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    code.state_pointer(Reg::R1, area);
    code.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, -1));
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.asm.ja_to(done);

    // The token runs to the next delimiter or the end.
    code.bind(token);
    code.load_state(Reg::R0, cursor);
    code.store_state(start, Reg::R0);
    code.load_constant(Reg::R1, strsize as u64 + 1);
    code.run_loop(LoopBody::TokenEnd { copy });
    code.load_state(Reg::R0, cursor);
    code.state_pointer(Reg::R1, area);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::R1, Reg::R0, 0));
    allocate_scratch(code, cx, ScratchSize::Constant(strsize), site);
    code.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
    // probe_read_kernel_str copies the token's bytes (fewer than its size argument)
    // and ends them with a NUL.
    let copied = code.label();
    code.load_state(Reg::R2, cursor);
    code.load_state(Reg::R3, start);
    code.alu_reg(AluOp::Sub, Reg::R2, Reg::R3);
    code.alu_imm(AluOp::Add, Reg::R2, 1);
    let fits = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Le, Reg::R2, strsize as i32, fits);
    code.emit(Insn::mov64_imm(Reg::R2, strsize as i32));
    code.bind(fits);
    code.asm
        .jmp_imm_to(JmpOp::Gt, Reg::R3, strsize as i32, copied);
    code.alu_reg(AluOp::Add, Reg::R3, STATE);
    code.alu_imm(AluOp::Add, Reg::R3, copy as i32);
    code.emit(Insn::mov64_reg(Reg::R1, STATE));
    code.alu_imm(AluOp::Add, Reg::R1, cx.layout().state.scratch as i32);
    code.alu_reg(AluOp::Add, Reg::R1, SAVED_1);
    code.call(Helper::ProbeReadKernelStr);
    code.bind(copied);
    scratch_address(code, Reg::R0, SAVED_1);
    code.emit(Insn::mov64_imm(SAVED_1, 0));
    code.bind(done);
    Ok(())
}

/// r2 = 1 when the byte in r0 (below 256) is in the delimiter set, else 0. Clobbers
/// r1 and r3.
fn is_delimiter(code: &mut ProgramCode, layout: &ProgramLayout) {
    code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
    code.alu_imm(AluOp::And, Reg::R1, 0xff);
    code.alu_imm(AluOp::Rsh, Reg::R1, 3);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.emit(Insn::ldx_mem(
        MemSize::B,
        Reg::R2,
        Reg::R1,
        layout.state.temporary as i16,
    ));
    code.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
    code.alu_imm(AluOp::And, Reg::R3, 7);
    code.alu_reg(AluOp::Rsh, Reg::R2, Reg::R3);
    code.alu_imm(AluOp::And, Reg::R2, 1);
}

/// r0 = the byte of the token copy at `copy` at the position in r1 (at most strsize,
/// else the loop stops).
fn token_byte(code: &mut ProgramCode, layout: &ProgramLayout, copy: u32) {
    let stop = code.label();
    let fine = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Le, Reg::R1, layout.options.strsize as i32, fine);
    code.bind(stop);
    code.loop_return(true);
    code.bind(fine);
    code.emit(Insn::mov64_reg(Reg::R2, STATE));
    code.alu_imm(AluOp::Add, Reg::R2, copy as i32);
    code.alu_reg(AluOp::Add, Reg::R2, Reg::R1);
    code.emit(Insn::ldx_mem(MemSize::B, Reg::R0, Reg::R2, 0));
}

/// The body of [`LoopBody::DelimiterSet`]: adds byte r1 of string buffer 1 to the
/// set; its NUL stops the loop.
pub fn delimiter_set_iteration(code: &mut ProgramCode, layout: &ProgramLayout) {
    let stop = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Ge, Reg::R1, layout.options.strsize as i32, stop);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.emit(Insn::ldx_mem(
        MemSize::B,
        Reg::R0,
        Reg::R1,
        string_buffer(layout, 1) as i16,
    ));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, stop);
    code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
    code.alu_imm(AluOp::Rsh, Reg::R1, 3);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    let temporary = layout.state.temporary as i16;
    code.emit(Insn::ldx_mem(MemSize::B, Reg::R2, Reg::R1, temporary));
    code.alu_imm(AluOp::And, Reg::R0, 7);
    code.emit(Insn::mov64_imm(Reg::R3, 1));
    code.alu_reg(AluOp::Lsh, Reg::R3, Reg::R0);
    code.alu_reg(AluOp::Or, Reg::R2, Reg::R3);
    code.emit(Insn::stx_mem(MemSize::B, Reg::R1, Reg::R2, temporary));
    code.loop_return(false);
    code.bind(stop);
    code.loop_return(true);
}

/// The body of [`LoopBody::TokenStart`]: a delimiter at the cursor is skipped; any
/// other byte starts the token (`T5` = 1); the NUL stops with none.
pub fn token_start_iteration(code: &mut ProgramCode, layout: &ProgramLayout, copy: u32) {
    let (cursor, found) = (temporary_word(layout, 4), temporary_word(layout, 5));
    let stop = code.label();
    code.load_state(Reg::R1, cursor);
    token_byte(code, layout, copy);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, stop);
    is_delimiter(code, layout);
    let starts = code.label();
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, starts);
    code.load_state(Reg::R1, cursor);
    code.alu_imm(AluOp::Add, Reg::R1, 1);
    code.store_state(cursor, Reg::R1);
    code.loop_return(false);
    code.bind(starts);
    code.store_state_imm(found, 1);
    code.bind(stop);
    code.loop_return(true);
}

/// The body of [`LoopBody::TokenEnd`]: the cursor moves past bytes that are neither
/// the NUL nor delimiters.
pub fn token_end_iteration(code: &mut ProgramCode, layout: &ProgramLayout, copy: u32) {
    let cursor = temporary_word(layout, 4);
    let stop = code.label();
    code.load_state(Reg::R1, cursor);
    token_byte(code, layout, copy);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, stop);
    is_delimiter(code, layout);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 0, stop);
    code.load_state(Reg::R1, cursor);
    code.alu_imm(AluOp::Add, Reg::R1, 1);
    code.store_state(cursor, Reg::R1);
    code.loop_return(false);
    code.bind(stop);
    code.loop_return(true);
}
