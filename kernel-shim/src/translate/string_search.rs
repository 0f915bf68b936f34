//! `index`, `rindex` and `strstr`: the string goes to string buffer 0 and the substring
//! to string buffer 1, then a `bpf_loop` tries one position per iteration (forwards from
//! the start, or backwards for `rindex`), comparing eight bytes at a time, until one
//! matches. The positions and results follow the interpreter's `index_of` and
//! `rindex_of`.
//!
//! Work-area temporary words: `T0` the string's length, `T1` the substring's, `T2` the
//! first position tried, `T3` the result (−1 for none), `T4` the position being tried.

use super::code::{FaultSite, ProgramCode};
use super::loops::LoopBody;
use super::registers::{SAVED_0, SAVED_1, SPILL_1, SPILL_2, STATE};
use super::string_subroutines::temporary_word;
use super::strings::{string_buffer, string_into_buffer};
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::ProgramLayout;

/// Which search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// `index(s, sub [, start])`.
    First,
    /// `rindex(s, sub [, start])`.
    Last,
    /// `strstr(s, sub)`: a pointer into `s`, or NULL.
    Pointer,
}

/// Searches the string whose DIF address is in `SPILL_1` for the one in r9, the start
/// (when `has_start`) being in `SPILL_2`; r0 = the position (−1 when absent) or, for
/// `strstr`, the address (0 when absent).
pub fn search_string(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    search: Search,
    has_start: bool,
    site: FaultSite,
) {
    let (length, sub_length, first, result) = (
        temporary_word(cx.layout(), 0),
        temporary_word(cx.layout(), 1),
        temporary_word(cx.layout(), 2),
        temporary_word(cx.layout(), 3),
    );
    // The interpreter reads the string, then the substring.
    code.emit(Insn::mov64_reg(SAVED_0, SAVED_1));
    code.emit(Insn::ldx_mem(MemSize::DW, SAVED_1, Reg::FP, SPILL_1));
    string_into_buffer(code, cx, 0, false, site);
    code.store_state(length, Reg::R0);
    code.emit(Insn::mov64_reg(SAVED_1, SAVED_0));
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    string_into_buffer(code, cx, 1, false, site);
    code.store_state(sub_length, Reg::R0);
    code.store_state_imm(result, -1);

    let done = code.label();
    // r1 = substring length, r2 = length.
    code.load_state(Reg::R1, sub_length);
    code.load_state(Reg::R2, length);
    code.asm.jmp_reg_to(JmpOp::Gt, Reg::R1, Reg::R2, done);
    // r3 = the first position to try, r4 = how many positions.
    match search {
        Search::First | Search::Pointer => {
            code.emit(Insn::mov64_imm(Reg::R3, 0));
            if has_start && search == Search::First {
                code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, SPILL_2));
                let not_negative = code.label();
                let within = code.label();
                code.asm.jmp_imm_to(JmpOp::Sge, Reg::R3, 0, not_negative);
                code.emit(Insn::mov64_imm(Reg::R3, 0));
                code.bind(not_negative);
                code.asm.jmp_reg_to(JmpOp::Lt, Reg::R3, Reg::R2, within);
                // Starting at or past the end finds only the empty substring, there.
                code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, done);
                code.store_state(result, Reg::R2);
                code.asm.ja_to(done);
                code.bind(within);
            }
            // positions = length − substring length − start + 1
            code.emit(Insn::mov64_reg(Reg::R4, Reg::R2));
            code.alu_reg(AluOp::Sub, Reg::R4, Reg::R1);
            code.alu_reg(AluOp::Sub, Reg::R4, Reg::R3);
            code.alu_imm(AluOp::Add, Reg::R4, 1);
        }
        Search::Last => {
            // r5 = the last position the substring fits at.
            code.emit(Insn::mov64_reg(Reg::R5, Reg::R2));
            code.alu_reg(AluOp::Sub, Reg::R5, Reg::R1);
            code.emit(Insn::mov64_reg(Reg::R3, Reg::R5));
            if has_start {
                code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, SPILL_2));
                let not_negative = code.label();
                code.asm.jmp_imm_to(JmpOp::Sge, Reg::R3, 0, not_negative);
                // A negative start finds only the empty substring, at 0.
                code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, done);
                code.store_state_imm(result, 0);
                code.asm.ja_to(done);
                code.bind(not_negative);
                let below_length = code.label();
                code.asm
                    .jmp_reg_to(JmpOp::Le, Reg::R3, Reg::R2, below_length);
                code.emit(Insn::mov64_reg(Reg::R3, Reg::R2));
                code.bind(below_length);
                let below_last = code.label();
                code.asm.jmp_reg_to(JmpOp::Le, Reg::R3, Reg::R5, below_last);
                code.emit(Insn::mov64_reg(Reg::R3, Reg::R5));
                code.bind(below_last);
            }
            code.emit(Insn::mov64_reg(Reg::R4, Reg::R3));
            code.alu_imm(AluOp::Add, Reg::R4, 1);
        }
    }
    code.asm.jmp_imm_to(JmpOp::Sle, Reg::R4, 0, done);
    code.store_state(first, Reg::R3);
    code.emit(Insn::mov64_reg(Reg::R1, Reg::R4));
    code.run_loop(LoopBody::MatchSubstring {
        reverse: search == Search::Last,
    });
    code.bind(done);
    code.load_state(Reg::R0, result);
    if search == Search::Pointer {
        let absent = code.label();
        let finished = code.label();
        code.asm.jmp_imm_to(JmpOp::Slt, Reg::R0, 0, absent);
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
        code.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
        code.asm.ja_to(finished);
        code.bind(absent);
        code.emit(Insn::mov64_imm(Reg::R0, 0));
        code.bind(finished);
    }
}

/// The body of [`LoopBody::MatchSubstring`]: position `T2 ± r1` is tried; when the
/// substring matches there, it becomes the result and the loop stops.
pub fn match_substring_iteration(code: &mut ProgramCode, layout: &ProgramLayout, reverse: bool) {
    let strsize = layout.options.strsize as i32;
    let (sub_length, first, result, position) = (
        temporary_word(layout, 1),
        temporary_word(layout, 2),
        temporary_word(layout, 3),
        temporary_word(layout, 4),
    );
    let (string, substring) = (
        string_buffer(layout, 0) as i16,
        string_buffer(layout, 1) as i16,
    );
    let stop = code.label();
    let matched = code.label();
    let differs = code.label();
    code.load_state(Reg::R3, first);
    let op = if reverse { AluOp::Sub } else { AluOp::Add };
    code.alu_reg(op, Reg::R3, Reg::R1);
    code.asm.jmp_imm_to(JmpOp::Gt, Reg::R3, strsize, stop);
    code.store_state(position, Reg::R3);
    // r6 = bytes left to compare, r8/r9 = where the next eight are (plus the buffer).
    code.load_state(Reg::R6, sub_length);
    code.asm.jmp_imm_to(JmpOp::Gt, Reg::R6, strsize, stop);
    code.emit(Insn::mov64_reg(Reg::R8, STATE));
    code.alu_reg(AluOp::Add, Reg::R8, Reg::R3);
    code.emit(Insn::mov64_reg(Reg::R9, STATE));
    let words = (strsize as u32).div_ceil(8) as i32;
    let top = code.label();
    code.emit(Insn::mov64_imm(Reg::R1, 0));
    code.bind(top);
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, words, matched);
    code.asm.jmp_imm_to(JmpOp::Sle, Reg::R6, 0, matched);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::R8, string));
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R9, substring));
    let whole = code.label();
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R6, 8, whole);
    // Fewer than eight bytes left: compare only those (the low bytes).
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R6));
    code.alu_imm(AluOp::Lsh, Reg::R4, 3);
    code.emit(Insn::mov64_imm(Reg::R5, 1));
    code.alu_reg(AluOp::Lsh, Reg::R5, Reg::R4);
    code.alu_imm(AluOp::Sub, Reg::R5, 1);
    code.alu_reg(AluOp::And, Reg::R2, Reg::R5);
    code.alu_reg(AluOp::And, Reg::R3, Reg::R5);
    code.bind(whole);
    code.asm.jmp_reg_to(JmpOp::Ne, Reg::R2, Reg::R3, differs);
    code.alu_imm(AluOp::Add, Reg::R8, 8);
    code.alu_imm(AluOp::Add, Reg::R9, 8);
    code.alu_imm(AluOp::Sub, Reg::R6, 8);
    code.alu_imm(AluOp::Add, Reg::R1, 1);
    code.asm.ja_to(top);
    code.bind(differs);
    code.loop_return(false);
    code.bind(matched);
    code.load_state(Reg::R0, position);
    code.store_state(result, Reg::R0);
    code.bind(stop);
    code.loop_return(true);
}
