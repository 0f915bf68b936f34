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

use super::code::{FaultSite, ProgramCode};
use super::loops::LoopBody;
use super::registers::{SAVED_1, SPILL_0, STATE};
use super::string_subroutines::{temporary_word, work_area_text_to_scratch};
use super::strings::{string_buffer, string_into_buffer};
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::string_buffer_stride;
use crate::map_layout::ProgramLayout;

const PHASE_READ: i32 = 0;
const PHASE_BACK_UP: i32 = 2;

/// `cleanpath(s)` with `s` in r9: r0 = the scratch string.
pub fn clean_path(code: &mut ProgramCode, cx: &StatementContext<'_>, site: FaultSite) {
    let strsize = cx.layout().options.strsize;
    let output = string_buffer(cx.layout(), 1);
    string_into_buffer(code, cx, 0, false, site);
    code.store_state(temporary_word(cx.layout(), 4), Reg::R0);
    code.zero_fill(STATE, output, string_buffer_stride(strsize));
    for word in 0..4 {
        code.store_state_imm(temporary_word(cx.layout(), word), 0);
    }
    // Every step reads a character or writes or backs over one, and each is done at
    // most a few times per character of the path.
    code.load_constant(Reg::R1, 8 * (strsize as u64 + 2));
    code.run_loop(LoopBody::CleanPathStep);
    let skip = code.label();
    code.load_state(Reg::R1, temporary_word(cx.layout(), 1));
    code.asm
        .jmp_imm_to(JmpOp::Ge, Reg::R1, strsize as i32, skip);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.emit(Insn::st_mem(MemSize::B, Reg::R1, output as i16, 0));
    code.bind(skip);
    code.load_constant(Reg::R0, output as u64);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
    work_area_text_to_scratch(code, cx, SPILL_0, site);
    code.emit(Insn::mov64_imm(SAVED_1, 0));
}

/// Reads the next character of the path into `c` (the interpreter's `load`): 0 past
/// the NUL, which does not move on. Clobbers r0–r2.
fn clean_path_read(code: &mut ProgramCode, layout: &ProgramLayout) {
    let strsize = layout.options.strsize as i32;
    let (position, character, length) = (
        temporary_word(layout, 0),
        temporary_word(layout, 2),
        temporary_word(layout, 4),
    );
    let done = code.label();
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.load_state(Reg::R1, position);
    code.load_state(Reg::R2, length);
    code.asm.jmp_reg_to(JmpOp::Gt, Reg::R1, Reg::R2, done);
    code.asm.jmp_imm_to(JmpOp::Gt, Reg::R1, strsize, done);
    code.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
    code.alu_imm(AluOp::Add, Reg::R2, 1);
    code.store_state(position, Reg::R2);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.emit(Insn::ldx_mem(
        MemSize::B,
        Reg::R0,
        Reg::R1,
        string_buffer(layout, 0) as i16,
    ));
    code.bind(done);
    code.store_state(character, Reg::R0);
}

/// Writes the constant `byte` (or `c` when `None`) at output position `j + ahead`
/// when it is inside the output. Clobbers r0 and r1.
fn clean_path_put(code: &mut ProgramCode, layout: &ProgramLayout, ahead: i32, byte: Option<u8>) {
    let strsize = layout.options.strsize as i32;
    let skip = code.label();
    code.load_state(Reg::R1, temporary_word(layout, 1));
    code.alu_imm(AluOp::Add, Reg::R1, ahead);
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, strsize, skip);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    let output = string_buffer(layout, 1) as i16;
    match byte {
        Some(byte) => code.emit(Insn::st_mem(MemSize::B, Reg::R1, output, byte as i32)),
        None => {
            code.load_state(Reg::R0, temporary_word(layout, 2));
            code.emit(Insn::stx_mem(MemSize::B, Reg::R1, Reg::R0, output));
        }
    }
    code.bind(skip);
}

/// Writes `bytes` (then `c`) at `j` and moves `j` past them, then finishes the
/// component at `finish`.
fn clean_path_copy(code: &mut ProgramCode, layout: &ProgramLayout, bytes: &[u8], finish: Label) {
    for (index, byte) in bytes.iter().enumerate() {
        clean_path_put(code, layout, index as i32, Some(*byte));
    }
    clean_path_put(code, layout, bytes.len() as i32, None);
    let output_position = temporary_word(layout, 1);
    code.load_state(Reg::R1, output_position);
    code.alu_imm(AluOp::Add, Reg::R1, bytes.len() as i32 + 1);
    code.store_state(output_position, Reg::R1);
    code.asm.ja_to(finish);
}

/// The body of [`LoopBody::CleanPathStep`].
pub fn clean_path_iteration(code: &mut ProgramCode, layout: &ProgramLayout) {
    let strsize = layout.options.strsize as i32;
    let (position, output_position, character, phase) = (
        temporary_word(layout, 0),
        temporary_word(layout, 1),
        temporary_word(layout, 2),
        temporary_word(layout, 3),
    );
    let component = code.label();
    let back_up = code.label();
    let finish = code.label();
    let stop = code.label();
    let again = code.label();
    code.load_state(Reg::R0, phase);
    code.asm
        .jmp_imm_to(JmpOp::Eq, Reg::R0, PHASE_BACK_UP, back_up);
    code.asm
        .jmp_imm_to(JmpOp::Ne, Reg::R0, PHASE_READ, component);
    clean_path_read(code, layout);
    code.store_state_imm(phase, 1);

    // Phase 1: one pass of the component loop, with `c` in hand.
    code.bind(component);
    code.load_state(Reg::R1, output_position);
    code.alu_imm(AluOp::Add, Reg::R1, 5);
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, strsize, stop);
    let slash = code.label();
    code.load_state(Reg::R0, character);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, slash);
    clean_path_copy(code, layout, b"", finish);
    code.bind(slash);
    // After "/": another slash is dropped; anything but a dot is copied.
    clean_path_read(code, layout);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, again);
    let slash_dot = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Eq, Reg::R0, b'.' as i32, slash_dot);
    clean_path_copy(code, layout, b"/", finish);
    code.bind(slash_dot);
    // After "/.": "/./" is dropped; anything but a second dot is copied.
    clean_path_read(code, layout);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, again);
    let slash_dot_dot = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Eq, Reg::R0, b'.' as i32, slash_dot_dot);
    clean_path_copy(code, layout, b"/.", finish);
    code.bind(slash_dot_dot);
    // After "/..": a name follows ("/..name") or the component is "..".
    clean_path_read(code, layout);
    let parent = code.label();
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, parent);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, parent);
    clean_path_copy(code, layout, b"/..", finish);
    code.bind(parent);
    // The slash (or NUL) is read again as the next component's start.
    let at_start = code.label();
    code.load_state(Reg::R1, position);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, at_start);
    code.alu_imm(AluOp::Sub, Reg::R1, 1);
    code.store_state(position, Reg::R1);
    code.bind(at_start);
    code.store_state_imm(phase, PHASE_BACK_UP);
    code.bind(again);
    code.loop_return(false);

    // Phase 2: back up to the previous slash of the output.
    code.bind(back_up);
    let backed_up = code.label();
    code.load_state(Reg::R1, output_position);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, backed_up);
    code.alu_imm(AluOp::Sub, Reg::R1, 1);
    code.store_state(output_position, Reg::R1);
    let keep_going = code.label();
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, strsize, keep_going);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.emit(Insn::ldx_mem(
        MemSize::B,
        Reg::R0,
        Reg::R1,
        string_buffer(layout, 1) as i16,
    ));
    code.asm
        .jmp_imm_to(JmpOp::Eq, Reg::R0, b'/' as i32, backed_up);
    code.bind(keep_going);
    code.loop_return(false);
    code.bind(backed_up);
    // "/.." at the very end leaves the slash it backed up to.
    code.load_state(Reg::R0, character);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, finish);
    code.load_state(Reg::R1, output_position);
    code.alu_imm(AluOp::Add, Reg::R1, 1);
    code.store_state(output_position, Reg::R1);
    clean_path_put(code, layout, 0, Some(b'/'));

    // A finished component: the NUL ends the path.
    code.bind(finish);
    code.load_state(Reg::R0, character);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, stop);
    code.store_state_imm(phase, PHASE_READ);
    code.loop_return(false);
    code.bind(stop);
    code.loop_return(true);
}
