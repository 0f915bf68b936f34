//! The programs' own count of a principal buffer's bytes against `bufsize`, under the
//! `switch` and `fill` policies (`LayoutOptions::principal_buffer_limit`; the records
//! section of the `map_layout` documentation says how the count is kept): the room check a statement
//! makes before its predicate, the check a committed speculation makes, and the count of
//! the bytes written.

use super::code::ProgramCode;
use super::registers::MAP_KEY;
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::{COUNTERS_KEY_PRINCIPAL_DRAINED, COUNTER_PRINCIPAL_DROPS};

/// How many bytes a record (or a committed speculation) takes in the principal buffer.
#[derive(Debug, Clone, Copy)]
pub enum PrincipalLength {
    /// A statement's record: a length known at translation time.
    Fixed(u32),
    /// A length the program computed, kept in this work-area word.
    InStateWord(u32),
}

/// Whether the programs count the principal buffer's bytes.
pub fn counts_principal_bytes(cx: &StatementContext<'_>) -> bool {
    cx.layout().options.principal_buffer_limit.is_some()
}

/// When the programs count the principal buffer's bytes and `length` more would take
/// this CPU's buffer past `bufsize`, counts a principal drop and jumps to `no_room`.
/// Clobbers r0–r5.
pub fn drop_unless_room(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    length: PrincipalLength,
    no_room: Label,
) {
    let Some(limit) = cx.layout().options.principal_buffer_limit else {
        return;
    };
    let written = cx.layout().state.principal_written;
    let room = code.label();
    let drained_known = code.label();
    code.emit(Insn::st_mem(
        MemSize::W,
        Reg::FP,
        MAP_KEY,
        COUNTERS_KEY_PRINCIPAL_DRAINED as i32,
    ));
    code.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    code.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
    code.map_lookup(cx.maps().counters);
    // The key is always present in the array; without it nothing was drained.
    code.emit(Insn::mov64_imm(Reg::R1, 0));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, drained_known);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R0, 0));
    code.bind(drained_known);
    code.load_state(Reg::R0, written);
    code.alu_reg(AluOp::Sub, Reg::R0, Reg::R1);
    add_length(code, length);
    code.emit_all(&Insn::ld_imm64(Reg::R1, limit.min(i64::MAX as u64)));
    code.asm.jmp_reg_to(JmpOp::Sle, Reg::R0, Reg::R1, room);
    code.count(COUNTER_PRINCIPAL_DROPS);
    code.asm.ja_to(no_room);
    code.bind(room);
}

/// Adds `length` to the bytes this CPU has written to its principal buffer, when the
/// programs count them. Clobbers r0.
pub fn count_written(code: &mut ProgramCode, cx: &StatementContext<'_>, length: PrincipalLength) {
    if !counts_principal_bytes(cx) {
        return;
    }
    let written = cx.layout().state.principal_written;
    code.load_state(Reg::R0, written);
    add_length(code, length);
    code.store_state(written, Reg::R0);
}

/// r0 += `length` (clobbers r1 for a length in a work-area word).
fn add_length(code: &mut ProgramCode, length: PrincipalLength) {
    match length {
        PrincipalLength::Fixed(bytes) => code.alu_imm(AluOp::Add, Reg::R0, bytes as i32),
        PrincipalLength::InStateWord(offset) => {
            code.load_state(Reg::R1, offset);
            code.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
        }
    }
}
