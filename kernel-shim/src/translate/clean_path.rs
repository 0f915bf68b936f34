//! `cleanpath()`: the interpreter's port of classic DTrace's algorithm (remove `//` and
//! `/./`, resolve `/../` textually by backing up to the previous slash) recast as a state
//! machine that a `bpf_loop` callback advances one step per iteration, because backing
//! up is a loop inside the loop over the path's characters.
//!
//! The path is read into string buffer 0 and the result built in string buffer 1.
//! Work-area temporary words: `T0` the input position `i`, `T1` the output position `j`,
//! `T2` the character `c` in hand, `T3` the phase, `T4` the path's length.
//!
//! | phase | step |
//! |---|---|
//! | 0 | read the next character, then as phase 1 |
//! | 1 | one pass of the interpreter's `'component` loop: copy a character or a slash and what follows it; stay in phase 1 after `//` or `/./`; go to phase 2 on `/..` |
//! | 2 | back up one output character; after the previous slash, finish the component |
//!
//! A finished component ends the loop when its character was the NUL, and goes back to
//! phase 0 otherwise; the loop also ends when the output is nearly full. The NUL is then
//! written at `j` and the result copied to scratch.

use super::emitter::{Emitter, FaultSite};
use super::layout::string_buffer_stride;
use super::loops::LoopBody;
use super::registers::{SAVED_1, SPILL_0, STATE};
use crate::ebpf::{AluOp, Insn, JmpOp, Label, MemSize, Reg};

const PHASE_READ: i32 = 0;
const PHASE_BACK_UP: i32 = 2;

impl Emitter<'_> {
    /// `cleanpath(s)` with `s` in r9: r0 = the scratch string.
    pub fn clean_path(&mut self, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        let output = self.string_buffer(1);
        self.string_into_buffer(0, false, site);
        self.store_state(self.temporary_word(4), Reg::R0);
        self.zero_fill(STATE, output, string_buffer_stride(strsize));
        for word in 0..4 {
            self.store_state_imm(self.temporary_word(word), 0);
        }
        // Every step reads a character or writes or backs over one, and each is done at
        // most a few times per character of the path.
        self.load_constant(Reg::R1, 8 * (strsize as u64 + 2));
        self.run_loop(LoopBody::CleanPathStep);
        let skip = self.label();
        self.load_state(Reg::R1, self.temporary_word(1));
        self.asm
            .jmp_imm_to(JmpOp::Ge, Reg::R1, strsize as i32, skip);
        self.alu_reg(AluOp::Add, Reg::R1, STATE);
        self.emit(Insn::st_mem(MemSize::B, Reg::R1, output as i16, 0));
        self.bind(skip);
        self.load_constant(Reg::R0, output as u64);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
        self.work_area_text_to_scratch(SPILL_0, site);
        self.emit(Insn::mov64_imm(SAVED_1, 0));
    }

    /// Reads the next character of the path into `c` (the interpreter's `load`): 0 past
    /// the NUL, which does not move on. Clobbers r0–r2.
    fn clean_path_read(&mut self) {
        let strsize = self.layout.options.strsize as i32;
        let (position, character, length) = (
            self.temporary_word(0),
            self.temporary_word(2),
            self.temporary_word(4),
        );
        let done = self.label();
        self.emit(Insn::mov64_imm(Reg::R0, 0));
        self.load_state(Reg::R1, position);
        self.load_state(Reg::R2, length);
        self.asm.jmp_reg_to(JmpOp::Gt, Reg::R1, Reg::R2, done);
        self.asm.jmp_imm_to(JmpOp::Gt, Reg::R1, strsize, done);
        self.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
        self.alu_imm(AluOp::Add, Reg::R2, 1);
        self.store_state(position, Reg::R2);
        self.alu_reg(AluOp::Add, Reg::R1, STATE);
        self.emit(Insn::ldx_mem(
            MemSize::B,
            Reg::R0,
            Reg::R1,
            self.string_buffer(0) as i16,
        ));
        self.bind(done);
        self.store_state(character, Reg::R0);
    }

    /// Writes the constant `byte` (or `c` when `None`) at output position `j + ahead`
    /// when it is inside the output. Clobbers r0 and r1.
    fn clean_path_put(&mut self, ahead: i32, byte: Option<u8>) {
        let strsize = self.layout.options.strsize as i32;
        let skip = self.label();
        self.load_state(Reg::R1, self.temporary_word(1));
        self.alu_imm(AluOp::Add, Reg::R1, ahead);
        self.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, strsize, skip);
        self.alu_reg(AluOp::Add, Reg::R1, STATE);
        let output = self.string_buffer(1) as i16;
        match byte {
            Some(byte) => self.emit(Insn::st_mem(MemSize::B, Reg::R1, output, byte as i32)),
            None => {
                self.load_state(Reg::R0, self.temporary_word(2));
                self.emit(Insn::stx_mem(MemSize::B, Reg::R1, Reg::R0, output));
            }
        }
        self.bind(skip);
    }

    /// Writes `bytes` (then `c`) at `j` and moves `j` past them, then finishes the
    /// component at `finish`.
    fn clean_path_copy(&mut self, bytes: &[u8], finish: Label) {
        for (index, byte) in bytes.iter().enumerate() {
            self.clean_path_put(index as i32, Some(*byte));
        }
        self.clean_path_put(bytes.len() as i32, None);
        let output_position = self.temporary_word(1);
        self.load_state(Reg::R1, output_position);
        self.alu_imm(AluOp::Add, Reg::R1, bytes.len() as i32 + 1);
        self.store_state(output_position, Reg::R1);
        self.asm.ja_to(finish);
    }

    /// The body of [`LoopBody::CleanPathStep`].
    pub fn clean_path_iteration(&mut self) {
        let strsize = self.layout.options.strsize as i32;
        let (position, output_position, character, phase) = (
            self.temporary_word(0),
            self.temporary_word(1),
            self.temporary_word(2),
            self.temporary_word(3),
        );
        let component = self.label();
        let back_up = self.label();
        let finish = self.label();
        let stop = self.label();
        let again = self.label();
        self.load_state(Reg::R0, phase);
        self.asm
            .jmp_imm_to(JmpOp::Eq, Reg::R0, PHASE_BACK_UP, back_up);
        self.asm
            .jmp_imm_to(JmpOp::Ne, Reg::R0, PHASE_READ, component);
        self.clean_path_read();
        self.store_state_imm(phase, 1);

        // Phase 1: one pass of the component loop, with `c` in hand.
        self.bind(component);
        self.load_state(Reg::R1, output_position);
        self.alu_imm(AluOp::Add, Reg::R1, 5);
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, strsize, stop);
        let slash = self.label();
        self.load_state(Reg::R0, character);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, slash);
        self.clean_path_copy(b"", finish);
        self.bind(slash);
        // After "/": another slash is dropped; anything but a dot is copied.
        self.clean_path_read();
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, again);
        let slash_dot = self.label();
        self.asm
            .jmp_imm_to(JmpOp::Eq, Reg::R0, b'.' as i32, slash_dot);
        self.clean_path_copy(b"/", finish);
        self.bind(slash_dot);
        // After "/.": "/./" is dropped; anything but a second dot is copied.
        self.clean_path_read();
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, again);
        let slash_dot_dot = self.label();
        self.asm
            .jmp_imm_to(JmpOp::Eq, Reg::R0, b'.' as i32, slash_dot_dot);
        self.clean_path_copy(b"/.", finish);
        self.bind(slash_dot_dot);
        // After "/..": a name follows ("/..name") or the component is "..".
        self.clean_path_read();
        let parent = self.label();
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, parent);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, parent);
        self.clean_path_copy(b"/..", finish);
        self.bind(parent);
        // The slash (or NUL) is read again as the next component's start.
        let at_start = self.label();
        self.load_state(Reg::R1, position);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, at_start);
        self.alu_imm(AluOp::Sub, Reg::R1, 1);
        self.store_state(position, Reg::R1);
        self.bind(at_start);
        self.store_state_imm(phase, PHASE_BACK_UP);
        self.bind(again);
        self.loop_return(false);

        // Phase 2: back up to the previous slash of the output.
        self.bind(back_up);
        let backed_up = self.label();
        self.load_state(Reg::R1, output_position);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, backed_up);
        self.alu_imm(AluOp::Sub, Reg::R1, 1);
        self.store_state(output_position, Reg::R1);
        let keep_going = self.label();
        self.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, strsize, keep_going);
        self.alu_reg(AluOp::Add, Reg::R1, STATE);
        self.emit(Insn::ldx_mem(
            MemSize::B,
            Reg::R0,
            Reg::R1,
            self.string_buffer(1) as i16,
        ));
        self.asm
            .jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, backed_up);
        self.bind(keep_going);
        self.loop_return(false);
        self.bind(backed_up);
        // "/.." at the very end leaves the slash it backed up to.
        self.load_state(Reg::R0, character);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, finish);
        self.load_state(Reg::R1, output_position);
        self.alu_imm(AluOp::Add, Reg::R1, 1);
        self.store_state(output_position, Reg::R1);
        self.clean_path_put(0, Some(b'/'));

        // A finished component: the NUL ends the path.
        self.bind(finish);
        self.load_state(Reg::R0, character);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, stop);
        self.store_state_imm(phase, PHASE_READ);
        self.loop_return(false);
        self.bind(stop);
        self.loop_return(true);
    }
}
