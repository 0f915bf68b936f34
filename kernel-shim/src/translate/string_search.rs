//! `index`, `rindex` and `strstr`: the string goes to string buffer 0 and the substring
//! to string buffer 1, then a `bpf_loop` tries one position per iteration (forwards from
//! the start, or backwards for `rindex`), comparing eight bytes at a time, until one
//! matches. The positions and results follow the interpreter's `index_of` and
//! `rindex_of`.
//!
//! Work-area temporary words: `T0` the string's length, `T1` the substring's, `T2` the
//! first position tried, `T3` the result (−1 for none), `T4` the position being tried.

use super::emitter::{Emitter, FaultSite};
use super::loops::LoopBody;
use super::registers::{SAVED_0, SAVED_1, SPILL_1, SPILL_2, STATE};
use crate::ebpf::{AluOp, Insn, JmpOp, MemSize, Reg};

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

impl Emitter<'_> {
    /// Searches the string whose DIF address is in `SPILL_1` for the one in r9, the start
    /// (when `has_start`) being in `SPILL_2`; r0 = the position (−1 when absent) or, for
    /// `strstr`, the address (0 when absent).
    pub fn search_string(&mut self, search: Search, has_start: bool, site: FaultSite) {
        let (length, sub_length, first, result) = (
            self.temporary_word(0),
            self.temporary_word(1),
            self.temporary_word(2),
            self.temporary_word(3),
        );
        // The interpreter reads the string, then the substring.
        self.emit(Insn::mov64_reg(SAVED_0, SAVED_1));
        self.emit(Insn::ldx_mem(MemSize::DW, SAVED_1, Reg::FP, SPILL_1));
        self.string_into_buffer(0, false, site);
        self.store_state(length, Reg::R0);
        self.emit(Insn::mov64_reg(SAVED_1, SAVED_0));
        self.emit(Insn::mov64_imm(SAVED_0, 0));
        self.string_into_buffer(1, false, site);
        self.store_state(sub_length, Reg::R0);
        self.store_state_imm(result, -1);

        let done = self.label();
        // r1 = substring length, r2 = length.
        self.load_state(Reg::R1, sub_length);
        self.load_state(Reg::R2, length);
        self.asm.jmp_reg_to(JmpOp::Gt, Reg::R1, Reg::R2, done);
        // r3 = the first position to try, r4 = how many positions.
        match search {
            Search::First | Search::Pointer => {
                self.emit(Insn::mov64_imm(Reg::R3, 0));
                if has_start && search == Search::First {
                    self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, SPILL_2));
                    let not_negative = self.label();
                    let within = self.label();
                    self.asm.jmp_imm_to(JmpOp::Sge, Reg::R3, 0, not_negative);
                    self.emit(Insn::mov64_imm(Reg::R3, 0));
                    self.bind(not_negative);
                    self.asm.jmp_reg_to(JmpOp::Lt, Reg::R3, Reg::R2, within);
                    // Starting at or past the end finds only the empty substring, there.
                    self.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, done);
                    self.store_state(result, Reg::R2);
                    self.asm.ja_to(done);
                    self.bind(within);
                }
                // positions = length − substring length − start + 1
                self.emit(Insn::mov64_reg(Reg::R4, Reg::R2));
                self.alu_reg(AluOp::Sub, Reg::R4, Reg::R1);
                self.alu_reg(AluOp::Sub, Reg::R4, Reg::R3);
                self.alu_imm(AluOp::Add, Reg::R4, 1);
            }
            Search::Last => {
                // r5 = the last position the substring fits at.
                self.emit(Insn::mov64_reg(Reg::R5, Reg::R2));
                self.alu_reg(AluOp::Sub, Reg::R5, Reg::R1);
                self.emit(Insn::mov64_reg(Reg::R3, Reg::R5));
                if has_start {
                    self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, SPILL_2));
                    let not_negative = self.label();
                    self.asm.jmp_imm_to(JmpOp::Sge, Reg::R3, 0, not_negative);
                    // A negative start finds only the empty substring, at 0.
                    self.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, done);
                    self.store_state_imm(result, 0);
                    self.asm.ja_to(done);
                    self.bind(not_negative);
                    let below_length = self.label();
                    self.asm
                        .jmp_reg_to(JmpOp::Le, Reg::R3, Reg::R2, below_length);
                    self.emit(Insn::mov64_reg(Reg::R3, Reg::R2));
                    self.bind(below_length);
                    let below_last = self.label();
                    self.asm.jmp_reg_to(JmpOp::Le, Reg::R3, Reg::R5, below_last);
                    self.emit(Insn::mov64_reg(Reg::R3, Reg::R5));
                    self.bind(below_last);
                }
                self.emit(Insn::mov64_reg(Reg::R4, Reg::R3));
                self.alu_imm(AluOp::Add, Reg::R4, 1);
            }
        }
        self.asm.jmp_imm_to(JmpOp::Sle, Reg::R4, 0, done);
        self.store_state(first, Reg::R3);
        self.emit(Insn::mov64_reg(Reg::R1, Reg::R4));
        self.run_loop(LoopBody::MatchSubstring {
            reverse: search == Search::Last,
        });
        self.bind(done);
        self.load_state(Reg::R0, result);
        if search == Search::Pointer {
            let absent = self.label();
            let finished = self.label();
            self.asm.jmp_imm_to(JmpOp::Slt, Reg::R0, 0, absent);
            self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
            self.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
            self.asm.ja_to(finished);
            self.bind(absent);
            self.emit(Insn::mov64_imm(Reg::R0, 0));
            self.bind(finished);
        }
    }

    /// The body of [`LoopBody::MatchSubstring`]: position `T2 ± r1` is tried; when the
    /// substring matches there, it becomes the result and the loop stops.
    pub fn match_substring_iteration(&mut self, reverse: bool) {
        let strsize = self.layout.options.strsize as i32;
        let (sub_length, first, result, position) = (
            self.temporary_word(1),
            self.temporary_word(2),
            self.temporary_word(3),
            self.temporary_word(4),
        );
        let (string, substring) = (self.string_buffer(0) as i16, self.string_buffer(1) as i16);
        let stop = self.label();
        let matched = self.label();
        let differs = self.label();
        self.load_state(Reg::R3, first);
        let op = if reverse { AluOp::Sub } else { AluOp::Add };
        self.alu_reg(op, Reg::R3, Reg::R1);
        self.asm.jmp_imm_to(JmpOp::Gt, Reg::R3, strsize, stop);
        self.store_state(position, Reg::R3);
        // r6 = bytes left to compare, r8/r9 = where the next eight are (plus the buffer).
        self.load_state(Reg::R6, sub_length);
        self.asm.jmp_imm_to(JmpOp::Gt, Reg::R6, strsize, stop);
        self.emit(Insn::mov64_reg(Reg::R8, STATE));
        self.alu_reg(AluOp::Add, Reg::R8, Reg::R3);
        self.emit(Insn::mov64_reg(Reg::R9, STATE));
        let words = (strsize as u32).div_ceil(8) as i32;
        let top = self.label();
        self.emit(Insn::mov64_imm(Reg::R1, 0));
        self.bind(top);
        self.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, words, matched);
        self.asm.jmp_imm_to(JmpOp::Sle, Reg::R6, 0, matched);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::R8, string));
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R9, substring));
        let whole = self.label();
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R6, 8, whole);
        // Fewer than eight bytes left: compare only those (the low bytes).
        self.emit(Insn::mov64_reg(Reg::R4, Reg::R6));
        self.alu_imm(AluOp::Lsh, Reg::R4, 3);
        self.emit(Insn::mov64_imm(Reg::R5, 1));
        self.alu_reg(AluOp::Lsh, Reg::R5, Reg::R4);
        self.alu_imm(AluOp::Sub, Reg::R5, 1);
        self.alu_reg(AluOp::And, Reg::R2, Reg::R5);
        self.alu_reg(AluOp::And, Reg::R3, Reg::R5);
        self.bind(whole);
        self.asm.jmp_reg_to(JmpOp::Ne, Reg::R2, Reg::R3, differs);
        self.alu_imm(AluOp::Add, Reg::R8, 8);
        self.alu_imm(AluOp::Add, Reg::R9, 8);
        self.alu_imm(AluOp::Sub, Reg::R6, 8);
        self.alu_imm(AluOp::Add, Reg::R1, 1);
        self.asm.ja_to(top);
        self.bind(differs);
        self.loop_return(false);
        self.bind(matched);
        self.load_state(Reg::R0, position);
        self.store_state(result, Reg::R0);
        self.bind(stop);
        self.loop_return(true);
    }
}
