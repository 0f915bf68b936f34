//! Writing one action value into its slot of the record (or of an aggregation key) being
//! built in the work area, in the layout `difvm::object` defines: integers little-endian
//! at the slot's size, strings up to their NUL (the slot is zero-filled beforehand), raw
//! bytes, stacks (of the thread the clause describes), symbol addresses with the pid. Faults here are
//! outside any DIFO's code (DIF offset −1), as in the interpreter.

use difvm::difo::{DifType, DIF_TYPE_FLAG_BY_USER_REFERENCE};
use difvm::object::{RecordSlot, ValueLayout};

use super::code::{FaultSite, ProgramCode};
use super::error::TranslateError;
use super::memory::{copy_memory_to_state, read_string};
use super::memory::{Access, StringDestination};
use super::registers::{SAVED_0, SAVED_1};
use super::subject_task::{capture_stack, load_current_pid_tgid};
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Insn, JmpOp, MemSize, Reg};

/// Writes the value in r8 (or, for stacks, the captured stack) into `slot` of the
/// zero-filled buffer at work-area offset `buffer`.
pub fn write_value(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    buffer: u32,
    slot: &RecordSlot,
    ty: Option<DifType>,
) -> Result<(), TranslateError> {
    let at = buffer + slot.offset;
    let site = FaultSite::OutsideCode;
    let access = match ty {
        Some(ty) if ty.flags & DIF_TYPE_FLAG_BY_USER_REFERENCE != 0 => Access::User,
        _ => Access::Kernel,
    };
    match &slot.layout {
        ValueLayout::Integer { .. } | ValueLayout::Pointer | ValueLayout::KernelSymbol(_) => {
            put_integer(code, at, slot.size);
        }
        ValueLayout::String => {
            if slot.size == 0 {
                return Ok(());
            }
            let done = code.label();
            code.asm.jmp_imm_to(JmpOp::Eq, SAVED_0, 0, done);
            code.mov(SAVED_1, SAVED_0);
            read_string(
                code,
                cx,
                SAVED_1,
                slot.size - 1,
                None,
                StringDestination::State(at),
                access,
                site,
            );
            code.bind(done);
        }
        ValueLayout::Bytes => {
            if slot.size == 0 {
                return Ok(());
            }
            let done = code.label();
            if ty.is_some_and(|ty| ty.is_by_reference()) {
                code.asm.jmp_imm_to(JmpOp::Eq, SAVED_0, 0, done);
            }
            code.mov(SAVED_1, SAVED_0);
            copy_memory_to_state(code, cx, SAVED_1, slot.size, at, access, site);
            code.bind(done);
        }
        ValueLayout::KernelStack { .. } => {
            whole_frames(code, cx, at, slot.size, false)?;
        }
        ValueLayout::UserStack { .. } => {
            if slot.size >= 8 {
                load_current_pid_tgid(code, cx)?;
                code.alu_imm(AluOp::Rsh, Reg::R0, 32);
                code.store_state_at(MemSize::DW, at, Reg::R0, Reg::R1);
                whole_frames(code, cx, at + 8, slot.size - 8, true)?;
            }
        }
        ValueLayout::UserSymbol(_) => {
            if slot.size >= 16 {
                load_current_pid_tgid(code, cx)?;
                code.alu_imm(AluOp::Rsh, Reg::R0, 32);
                code.store_state_at(MemSize::DW, at, Reg::R0, Reg::R1);
                code.store_state_at(MemSize::DW, at + 8, SAVED_0, Reg::R1);
            }
        }
    }
    Ok(())
}

/// Captures the clause's thread's kernel or user stack into `size` bytes (whole frames)
/// at work-area offset `at` (see `subject_task::capture_stack`).
fn whole_frames(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    at: u32,
    size: u32,
    user: bool,
) -> Result<(), TranslateError> {
    let size = size / 8 * 8;
    if size == 0 {
        return Ok(());
    }
    capture_stack(code, cx, at, size, user)
}

/// Stores r8 little-endian into `size` bytes at work-area offset `at` (bytes past 8
/// stay zero).
fn put_integer(code: &mut ProgramCode, at: u32, size: u32) {
    match size {
        0 => {}
        1 | 2 | 4 => {
            let memory_size = MemSize::from_bytes(size as usize).unwrap_or(MemSize::B);
            code.store_state_at(memory_size, at, SAVED_0, Reg::R1);
        }
        _ if size >= 8 => {
            code.store_state_at(MemSize::DW, at, SAVED_0, Reg::R1);
        }
        _ => {
            code.emit(Insn::mov64_reg(Reg::R0, SAVED_0));
            for byte in 0..size {
                code.store_state_at(MemSize::B, at + byte, Reg::R0, Reg::R1);
                code.alu_imm(AluOp::Rsh, Reg::R0, 8);
            }
        }
    }
}
