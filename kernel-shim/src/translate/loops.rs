//! Loops through `bpf_loop` (helper 181): the kernel calls a callback once per iteration,
//! and its verifier checks the callback's body once instead of following every iteration
//! of an unrolled loop, which is what makes loops inside loops (`index()` compares a
//! substring at every position) fit its limits.
//!
//! A callback is a function of its own, laid out after the probe's chains: it cannot jump
//! to a statement's fault handler, so loop bodies work on the work area only (the strings
//! are read into it before the loop) and leave their results there. Each callback
//! receives the iteration number in r1 and, in r2, a pointer to the caller's stack slot
//! [`LOOP_CONTEXT`] holding the work-area pointer; it returns 0 to go on and 1 to stop.
//! Callbacks are identified by what they do ([`LoopBody`]), so each is emitted once per
//! program however often it is used. A program with callbacks must be loaded with the BTF
//! of its functions (see [`super::program`]).

use super::emitter::Emitter;
use super::registers::{LOOP_CONTEXT, STATE};
use crate::ebpf::{Helper, Insn, MemSize, Reg};

/// What one iteration of a loop does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopBody {
    /// `index`, `rindex`, `strstr`: whether the substring matches at one position.
    MatchSubstring { reverse: bool },
    /// `cleanpath`: one step of its state machine.
    CleanPathStep,
    /// `strtok`: one delimiter into the delimiter set.
    DelimiterSet,
    /// `strtok`: one delimiter skipped before the token, in the copy at this work-area
    /// offset.
    TokenStart { copy: u32 },
    /// `strtok`: one byte of the token.
    TokenEnd { copy: u32 },
}

impl Emitter<'_> {
    /// Calls `bpf_loop(r1, body, &work area pointer, 0)`: `body` runs r1 times unless it
    /// stops early. r1 must be the iteration count (at most 2^23; the kernel runs nothing
    /// for more). Clobbers r0–r5.
    pub fn run_loop(&mut self, body: LoopBody) {
        let label = match self
            .callbacks
            .iter()
            .find(|(_, existing)| *existing == body)
        {
            Some((label, _)) => *label,
            None => {
                let label = self.label();
                self.callbacks.push((label, body));
                label
            }
        };
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, STATE, LOOP_CONTEXT));
        self.asm.ld_function_address(Reg::R2, label);
        self.emit(Insn::mov64_reg(Reg::R3, Reg::FP));
        self.emit(Insn::add64_imm(Reg::R3, LOOP_CONTEXT as i32));
        self.emit(Insn::mov64_imm(Reg::R4, 0));
        self.call(Helper::Loop);
    }

    /// Emits every callback [`Self::run_loop`] asked for (callbacks may ask for more).
    pub fn emit_callbacks(&mut self) {
        let mut index = 0;
        while let Some(&(label, body)) = self.callbacks.get(index) {
            self.bind(label);
            self.emit(Insn::ldx_mem(MemSize::DW, STATE, Reg::R2, 0));
            match body {
                LoopBody::MatchSubstring { reverse } => self.match_substring_iteration(reverse),
                LoopBody::CleanPathStep => self.clean_path_iteration(),
                LoopBody::DelimiterSet => self.delimiter_set_iteration(),
                LoopBody::TokenStart { copy } => self.token_start_iteration(copy),
                LoopBody::TokenEnd { copy } => self.token_end_iteration(copy),
            }
            index += 1;
        }
    }

    /// Leaves a callback: 0 goes on with the next iteration, 1 stops the loop.
    pub fn loop_return(&mut self, stop: bool) {
        self.emit(Insn::mov64_imm(Reg::R0, stop as i32));
        self.emit(Insn::exit());
    }
}
