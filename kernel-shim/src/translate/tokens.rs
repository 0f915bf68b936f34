//! `strtok(s, delimiters)`, as the interpreter does it: a new string is copied to the
//! firing's token area (`StateLayout::tokens`, one for the probe's firing and one for an
//! ERROR firing), and the position after each token is kept there, so that `strtok(NULL,
//! …)` goes on from it, in later clauses of the firing too. The delimiters become a
//! 256-bit set in the work area's first four temporary words; three `bpf_loop`s build the
//! set, skip delimiters to the token's start and find its end.
//!
//! Temporary words: `T0`–`T3` the delimiter set, `T4` the cursor, `T5` whether a token
//! starts, `T6` its start.

use difvm::object::FaultCode;

use super::emitter::{Chain, Emitter, FaultSite, FaultValue};
use super::loops::LoopBody;
use super::memory::{Access, ScratchSize, StringDestination};
use super::registers::{SAVED_0, SAVED_1, STATE};
use super::TranslateError;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};

impl Emitter<'_> {
    /// The token area of the chain being emitted.
    fn token_area(&self) -> Option<u32> {
        let areas = self.layout.state.tokens?;
        Some(match self.chain {
            Chain::Main => areas[0],
            Chain::Error => areas[1],
        })
    }

    /// Forgets the `strtok()` position of the chain being emitted (a firing starts
    /// without one). Clobbers r1.
    pub fn reset_tokens(&mut self) {
        if let Some(area) = self.token_area() {
            self.state_pointer(Reg::R1, area);
            self.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, -1));
        }
    }

    /// `strtok(s, delimiters)` with `s` in r9 and the delimiters in r8: r0 = the next
    /// token as a scratch string, or 0 when no token is left.
    pub fn tokenize(&mut self, site: FaultSite) -> Result<(), TranslateError> {
        let area = self
            .token_area()
            .ok_or_else(|| self.unsupported("strtok() without a token area"))?;
        let strsize = self.layout.options.strsize;
        let copy = area + 8;
        let (cursor, found, start) = (
            self.temporary_word(4),
            self.temporary_word(5),
            self.temporary_word(6),
        );
        // The delimiters are read first, as in the interpreter.
        self.emit(Insn::mov64_reg(Reg::R0, SAVED_1));
        self.emit(Insn::mov64_reg(SAVED_1, SAVED_0));
        self.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
        self.string_into_buffer(1, false, site);
        for word in 0..4 {
            self.store_state_imm(self.temporary_word(word), 0);
        }
        self.load_constant(Reg::R1, strsize as u64);
        self.run_loop(LoopBody::DelimiterSet);

        // The string: a new one is copied, NULL goes on from the saved position.
        let positioned = self.label();
        let new_string = self.label();
        self.emit(Insn::mov64_reg(SAVED_1, SAVED_0));
        self.asm.jmp_imm_to(JmpOp::Ne, SAVED_1, 0, new_string);
        self.state_pointer(Reg::R1, area);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R1, 0));
        self.fault_if_imm(
            JmpOp::Slt,
            Reg::R0,
            0,
            FaultCode::BadAddress,
            FaultValue::Constant(0),
            site,
        );
        self.store_state(cursor, Reg::R0);
        self.asm.ja_to(positioned);
        self.bind(new_string);
        self.state_pointer(SAVED_0, copy);
        self.read_string(
            SAVED_1,
            strsize,
            None,
            StringDestination::Pointer(SAVED_0),
            Access::Kernel,
            site,
        );
        self.store_state_imm(cursor, 0);
        self.bind(positioned);
        self.emit(Insn::mov64_imm(SAVED_0, 0));

        // Delimiters before the token; none left ends the tokenising.
        let token = self.label();
        let done = self.label();
        self.store_state_imm(found, 0);
        self.load_constant(Reg::R1, strsize as u64 + 1);
        self.run_loop(LoopBody::TokenStart { copy });
        self.load_state(Reg::R0, found);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, token);
        self.state_pointer(Reg::R1, area);
        self.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, -1));
        self.emit(Insn::mov64_imm(Reg::R0, 0));
        self.asm.ja_to(done);

        // The token runs to the next delimiter or the end.
        self.bind(token);
        self.load_state(Reg::R0, cursor);
        self.store_state(start, Reg::R0);
        self.load_constant(Reg::R1, strsize as u64 + 1);
        self.run_loop(LoopBody::TokenEnd { copy });
        self.load_state(Reg::R0, cursor);
        self.state_pointer(Reg::R1, area);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::R1, Reg::R0, 0));
        self.allocate_scratch(ScratchSize::Constant(strsize), site);
        self.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
        // probe_read_kernel_str copies the token's bytes (fewer than its size argument)
        // and ends them with a NUL.
        let copied = self.label();
        self.load_state(Reg::R2, cursor);
        self.load_state(Reg::R3, start);
        self.alu_reg(AluOp::Sub, Reg::R2, Reg::R3);
        self.alu_imm(AluOp::Add, Reg::R2, 1);
        let fits = self.label();
        self.asm
            .jmp_imm_to(JmpOp::Le, Reg::R2, strsize as i32, fits);
        self.emit(Insn::mov64_imm(Reg::R2, strsize as i32));
        self.bind(fits);
        self.asm
            .jmp_imm_to(JmpOp::Gt, Reg::R3, strsize as i32, copied);
        self.alu_reg(AluOp::Add, Reg::R3, STATE);
        self.alu_imm(AluOp::Add, Reg::R3, copy as i32);
        self.emit(Insn::mov64_reg(Reg::R1, STATE));
        self.alu_imm(AluOp::Add, Reg::R1, self.layout.state.scratch as i32);
        self.alu_reg(AluOp::Add, Reg::R1, SAVED_1);
        self.call(Helper::ProbeReadKernelStr);
        self.bind(copied);
        self.scratch_address(Reg::R0, SAVED_1);
        self.emit(Insn::mov64_imm(SAVED_1, 0));
        self.bind(done);
        Ok(())
    }

    /// r2 = 1 when the byte in r0 (below 256) is in the delimiter set, else 0. Clobbers
    /// r1 and r3.
    fn is_delimiter(&mut self) {
        self.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
        self.alu_imm(AluOp::And, Reg::R1, 0xff);
        self.alu_imm(AluOp::Rsh, Reg::R1, 3);
        self.alu_reg(AluOp::Add, Reg::R1, STATE);
        self.emit(Insn::ldx_mem(
            MemSize::B,
            Reg::R2,
            Reg::R1,
            self.layout.state.temporary as i16,
        ));
        self.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        self.alu_imm(AluOp::And, Reg::R3, 7);
        self.alu_reg(AluOp::Rsh, Reg::R2, Reg::R3);
        self.alu_imm(AluOp::And, Reg::R2, 1);
    }

    /// r0 = the byte of the token copy at `copy` at the position in r1 (at most strsize,
    /// else the loop stops).
    fn token_byte(&mut self, copy: u32) {
        let stop = self.label();
        let fine = self.label();
        self.asm
            .jmp_imm_to(JmpOp::Le, Reg::R1, self.layout.options.strsize as i32, fine);
        self.bind(stop);
        self.loop_return(true);
        self.bind(fine);
        self.emit(Insn::mov64_reg(Reg::R2, STATE));
        self.alu_imm(AluOp::Add, Reg::R2, copy as i32);
        self.alu_reg(AluOp::Add, Reg::R2, Reg::R1);
        self.emit(Insn::ldx_mem(MemSize::B, Reg::R0, Reg::R2, 0));
    }

    /// The body of [`LoopBody::DelimiterSet`]: adds byte r1 of string buffer 1 to the
    /// set; its NUL stops the loop.
    pub fn delimiter_set_iteration(&mut self) {
        let stop = self.label();
        self.asm
            .jmp_imm_to(JmpOp::Ge, Reg::R1, self.layout.options.strsize as i32, stop);
        self.alu_reg(AluOp::Add, Reg::R1, STATE);
        self.emit(Insn::ldx_mem(
            MemSize::B,
            Reg::R0,
            Reg::R1,
            self.string_buffer(1) as i16,
        ));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, stop);
        self.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
        self.alu_imm(AluOp::Rsh, Reg::R1, 3);
        self.alu_reg(AluOp::Add, Reg::R1, STATE);
        let temporary = self.layout.state.temporary as i16;
        self.emit(Insn::ldx_mem(MemSize::B, Reg::R2, Reg::R1, temporary));
        self.alu_imm(AluOp::And, Reg::R0, 7);
        self.emit(Insn::mov64_imm(Reg::R3, 1));
        self.alu_reg(AluOp::Lsh, Reg::R3, Reg::R0);
        self.alu_reg(AluOp::Or, Reg::R2, Reg::R3);
        self.emit(Insn::stx_mem(MemSize::B, Reg::R1, Reg::R2, temporary));
        self.loop_return(false);
        self.bind(stop);
        self.loop_return(true);
    }

    /// The body of [`LoopBody::TokenStart`]: a delimiter at the cursor is skipped; any
    /// other byte starts the token (`T5` = 1); the NUL stops with none.
    pub fn token_start_iteration(&mut self, copy: u32) {
        let (cursor, found) = (self.temporary_word(4), self.temporary_word(5));
        let stop = self.label();
        self.load_state(Reg::R1, cursor);
        self.token_byte(copy);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, stop);
        self.is_delimiter();
        let starts = self.label();
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, starts);
        self.load_state(Reg::R1, cursor);
        self.alu_imm(AluOp::Add, Reg::R1, 1);
        self.store_state(cursor, Reg::R1);
        self.loop_return(false);
        self.bind(starts);
        self.store_state_imm(found, 1);
        self.bind(stop);
        self.loop_return(true);
    }

    /// The body of [`LoopBody::TokenEnd`]: the cursor moves past bytes that are neither
    /// the NUL nor delimiters.
    pub fn token_end_iteration(&mut self, copy: u32) {
        let cursor = self.temporary_word(4);
        let stop = self.label();
        self.load_state(Reg::R1, cursor);
        self.token_byte(copy);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, stop);
        self.is_delimiter();
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 0, stop);
        self.load_state(Reg::R1, cursor);
        self.alu_imm(AluOp::Add, Reg::R1, 1);
        self.store_state(cursor, Reg::R1);
        self.loop_return(false);
        self.bind(stop);
        self.loop_return(true);
    }
}
