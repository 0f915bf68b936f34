//! D variables in the kernel: global scalars in the globals value, clause-locals in the
//! work area (one area for the probe's firing, one for the ERROR firing), thread-locals
//! and associative-array elements in the dynamic hash map.
//!
//! By-reference globals and clause-locals keep a u64 NULL flag before their bytes, so that
//! storing NULL makes later loads yield 0 while a never-assigned variable reads as
//! zero-filled storage, as in the interpreter. A string dynamic variable loads as the
//! kernel address of its map value, read like any kernel memory; another by-reference
//! one is copied into scratch when loaded (map values have no tagged address, and user
//! reads cannot reach them). Assigning 0 to a dynamic variable deletes it; a failed
//! insert counts a dynamic-variable drop.
//!
//! Storing a by-reference value writes the destination while reading the source, so a
//! source that faults half-way leaves the variable cleared rather than unchanged.

use difvm::difo::{DifTypeKind, DIF_TYPE_FLAG_BY_USER_REFERENCE};
use difvm::isa::{builtin_variable, Opcode};
use difvm::object::FaultCode;

use super::builtins::load_builtin;
use super::code::{FaultSite, FaultValue, ProgramCode};
use super::error::TranslateError;
use super::memory::{
    allocate_scratch, read_or_fault, read_string, resolve_address, resolve_address_extent,
    scratch_address,
};
use super::memory::{Access, ScratchSize, StringDestination};
use super::registers::{SAVED_0, SAVED_1, STATE};
use super::subject_task::load_current_pid_tgid;
use super::translation_context::{Chain, StatementContext};
use super::tuples::tuple_entry;
use super::tuples::EntryKind;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::ProgramLayout;
use crate::map_layout::{
    GlobalVariableSlot, DYNAMIC_SCOPE_GLOBAL, DYNAMIC_SCOPE_THREAD, TAG_GLOBALS, TAG_SHIFT,
    TAG_STATE,
};

/// A by-reference value's type as stores need it.
#[derive(Debug, Clone, Copy)]
struct ByReference {
    size: u32,
    is_string: bool,
    access: Access,
}

/// Where a global or clause-local lives.
#[derive(Debug, Clone, Copy)]
enum StaticHome {
    Globals(u32),
    State(u32),
}

fn clause_locals_offset(cx: &StatementContext<'_>) -> u32 {
    match cx.chain {
        Chain::Main => cx.layout().state.clause_locals,
        Chain::Error => cx.layout().state.error_clause_locals,
    }
}

fn static_slot(
    cx: &StatementContext<'_>,
    opcode: Opcode,
    id: u16,
) -> Result<(StaticHome, GlobalVariableSlot), TranslateError> {
    let global = matches!(opcode, Opcode::Ldgs | Opcode::Stgs);
    let slot = if global {
        cx.layout().globals.variables.get(&id)
    } else {
        cx.layout().clause_locals.get(&id)
    };
    let slot = *slot.ok_or_else(|| cx.unsupported(format!("variable {id:#x} without storage")))?;
    let home = if global {
        StaticHome::Globals(slot.offset)
    } else {
        StaticHome::State(clause_locals_offset(cx) + slot.offset)
    };
    Ok((home, slot))
}

fn home_pointer(code: &mut ProgramCode, dst: Reg, home: StaticHome, extra: u32) {
    match home {
        StaticHome::Globals(offset) => code.globals_pointer(dst, offset + extra),
        StaticHome::State(offset) => code.state_pointer(dst, offset + extra),
    }
}

/// `ldgs`, `ldts`, `ldls`: DIF `%rd` = the variable (built-ins included).
pub fn load_variable(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    id: u16,
    rd: u8,
    site: FaultSite,
) -> Result<(), TranslateError> {
    match opcode {
        Opcode::Ldgs if id < builtin_variable::FIRST_USER => {
            load_builtin(code, cx, id, site)?;
        }
        Opcode::Ldgs | Opcode::Ldls => {
            let (home, slot) = static_slot(cx, opcode, id)?;
            home_pointer(code, Reg::R1, home, 0);
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R1, 0));
            if slot.by_reference_size.is_some() {
                // The NULL flag is set: 0; otherwise the storage's tagged address.
                let null = code.label();
                let done = code.label();
                code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, null);
                let address = match home {
                    StaticHome::Globals(offset) => TAG_GLOBALS << TAG_SHIFT | (offset + 8) as u64,
                    StaticHome::State(offset) => TAG_STATE << TAG_SHIFT | (offset + 8) as u64,
                };
                code.load_constant(Reg::R0, address);
                code.asm.ja_to(done);
                code.bind(null);
                code.emit(Insn::mov64_imm(Reg::R0, 0));
                code.bind(done);
            }
        }
        _ => {
            build_dynamic_key(code, cx, id, DYNAMIC_SCOPE_THREAD, &[], site)?;
            load_dynamic(code, cx, DYNAMIC_SCOPE_THREAD, id, site)?;
        }
    }
    code.store_dif(rd, Reg::R0);
    Ok(())
}

/// `stgs`, `stts`, `stls`: the variable = DIF `%rd`.
pub fn store_variable(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    id: u16,
    rd: u8,
    site: FaultSite,
) -> Result<(), TranslateError> {
    match opcode {
        Opcode::Stgs | Opcode::Stls => {
            let (home, slot) = static_slot(cx, opcode, id)?;
            code.load_dif(SAVED_1, rd);
            match slot.by_reference_size {
                None => {
                    home_pointer(code, Reg::R1, home, 0);
                    code.emit(Insn::stx_mem(MemSize::DW, Reg::R1, SAVED_1, 0));
                }
                Some(size) => {
                    let by_reference = by_reference(cx, id, size, slot.is_string);
                    let null = code.label();
                    let done = code.label();
                    code.asm.jmp_imm_to(JmpOp::Eq, SAVED_1, 0, null);
                    home_pointer(code, SAVED_0, home, 8);
                    copy_object(code, cx, by_reference, site);
                    home_pointer(code, Reg::R1, home, 0);
                    code.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 0));
                    code.asm.ja_to(done);
                    code.bind(null);
                    home_pointer(code, Reg::R1, home, 0);
                    code.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 1));
                    code.bind(done);
                }
            }
        }
        _ => {
            build_dynamic_key(code, cx, id, DYNAMIC_SCOPE_THREAD, &[], site)?;
            store_dynamic(code, cx, DYNAMIC_SCOPE_THREAD, id, rd, site)?;
        }
    }
    Ok(())
}

/// `ldgaa`, `ldtaa`, `stgaa`, `sttaa` with the key on the tuple stack.
pub fn access_associative(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    id: u16,
    rd: u8,
    shape: &[EntryKind],
    site: FaultSite,
) -> Result<(), TranslateError> {
    let scope = match opcode {
        Opcode::Ldgaa | Opcode::Stgaa => DYNAMIC_SCOPE_GLOBAL,
        _ => DYNAMIC_SCOPE_THREAD,
    };
    build_dynamic_key(code, cx, id, scope, shape, site)?;
    match opcode {
        Opcode::Ldgaa | Opcode::Ldtaa => {
            load_dynamic(code, cx, scope, id, site)?;
            code.store_dif(rd, Reg::R0);
        }
        _ => store_dynamic(code, cx, scope, id, rd, site)?,
    }
    Ok(())
}

fn by_reference(cx: &StatementContext<'_>, id: u16, size: u32, is_string: bool) -> ByReference {
    let user = cx
        .program()
        .variables
        .iter()
        .find(|variable| variable.id == id)
        .is_some_and(|variable| variable.ty.flags & DIF_TYPE_FLAG_BY_USER_REFERENCE != 0);
    ByReference {
        size,
        is_string,
        access: if user { Access::User } else { Access::Kernel },
    }
}

/// Copies the by-reference value at the DIF address in r9 into `size` bytes at the
/// pointer in r8: a string up to its NUL and zero-filled, other objects whole.
fn copy_object(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    by_reference: ByReference,
    site: FaultSite,
) {
    let size = by_reference.size;
    code.emit(Insn::mov64_reg(Reg::R1, SAVED_0));
    code.emit(Insn::mov64_imm(Reg::R2, size as i32));
    code.state_pointer(Reg::R3, cx.layout().state.zero_guard);
    code.call(Helper::ProbeReadKernel);
    if by_reference.is_string {
        read_string(
            code,
            cx,
            SAVED_1,
            size - 1,
            None,
            StringDestination::Pointer(SAVED_0),
            by_reference.access,
            site,
        );
    } else {
        resolve_address(code, cx, SAVED_1, size, Reg::R3, by_reference.access, site);
        code.emit(Insn::mov64_reg(Reg::R1, SAVED_0));
        code.emit(Insn::mov64_imm(Reg::R2, size as i32));
        read_or_fault(code, cx, by_reference.access, SAVED_1, site);
    }
}

/// Builds the dynamic-variable key in the work area: id, scope, thread, tuple.
fn build_dynamic_key(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    id: u16,
    scope: u8,
    shape: &[EntryKind],
    site: FaultSite,
) -> Result<(), TranslateError> {
    let layout = cx
        .layout()
        .dynamic
        .ok_or(TranslateError::MissingMap { map: "dynamic" })?;
    let key = cx.layout().state.dynamic_key;
    code.zero_fill(STATE, key, layout.key_size);
    code.emit(Insn::st_mem(MemSize::W, STATE, key as i16, id as i32));
    code.emit(Insn::st_mem(
        MemSize::W,
        STATE,
        key as i16 + 4,
        scope as i32,
    ));
    if scope == DYNAMIC_SCOPE_THREAD {
        // The thread the clause describes (see `subject_task`).
        load_current_pid_tgid(code, cx)?;
        code.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
        code.store_state(key + 8, Reg::R0);
    }
    let strsize = cx.layout().options.strsize;
    let mut cursor = 0u32;
    for (position, kind) in shape.iter().enumerate() {
        let entry = tuple_entry(cx.layout(), position);
        let width = match kind {
            EntryKind::Value => 8,
            EntryKind::String => strsize,
            EntryKind::Object if position + 1 == shape.len() => {
                let room = layout.tuple_size.saturating_sub(cursor);
                object_key_entry(code, cx, entry, key + 16 + cursor, room, site);
                return Ok(());
            }
            EntryKind::Object => {
                return Err(cx.unsupported(
                    "an associative array key with a struct or union before its last element",
                ));
            }
        };
        if cursor + width > layout.tuple_size {
            return Err(cx.unsupported(format!(
                "an associative array key longer than the {} bytes the program declares",
                layout.tuple_size
            )));
        }
        let at = key + 16 + cursor;
        code.load_state(SAVED_1, entry);
        if *kind == EntryKind::Value {
            code.store_state(at, SAVED_1);
        } else {
            // The bound is the entry's length (its size less the NUL), at most
            // strsize − 1 characters as the interpreter's keys (and string variables).
            let spill = super::registers::SPILL_1;
            code.load_state(Reg::R0, entry + 8);
            code.emit(Insn::add64_imm(Reg::R0, -1));
            let bounded = code.label();
            code.asm
                .jmp_imm_to(JmpOp::Le, Reg::R0, strsize as i32 - 1, bounded);
            code.emit(Insn::mov64_imm(Reg::R0, strsize as i32 - 1));
            code.bind(bounded);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, spill));
            read_string(
                code,
                cx,
                SAVED_1,
                strsize,
                Some(spill),
                StringDestination::State(at),
                Access::Kernel,
                site,
            );
        }
        cursor += width;
    }
    Ok(())
}

/// Copies the bytes of the struct or union in tuple entry `entry` (its address and
/// size) to the work area at `at`, where at most `room` bytes of key remain: the key is
/// the object's bytes, zero-padded by the key's zero fill, as the interpreter encodes
/// it. The object's size comes from the tuple entry, so only a key's last element can
/// be one (the elements after it would have no fixed place).
fn object_key_entry(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    entry: u32,
    at: u32,
    room: u32,
    site: FaultSite,
) {
    let spill = super::registers::SPILL_1;
    code.load_state(SAVED_1, entry);
    code.load_state(Reg::R0, entry + 8);
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Gt,
        Reg::R0,
        room as i32,
        FaultCode::BadSize,
        FaultValue::Register(Reg::R0),
        site,
    );
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, spill));
    resolve_address_extent(code, cx, SAVED_1, spill, Reg::R3, Access::Kernel, site);
    code.state_pointer(Reg::R1, at);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, spill));
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Gt,
        Reg::R2,
        room as i32,
        FaultCode::BadSize,
        FaultValue::Register(Reg::R2),
        site,
    );
    read_or_fault(code, cx, Access::Kernel, SAVED_1, site);
}

fn dynamic_type(layout: &ProgramLayout, scope: u8, id: u16) -> Option<ByReference> {
    let ty = layout.dynamic_types.get(&(scope, id))?;
    if !ty.is_by_reference() {
        return None;
    }
    let access = if ty.flags & DIF_TYPE_FLAG_BY_USER_REFERENCE != 0 {
        Access::User
    } else {
        Access::Kernel
    };
    Some(ByReference {
        size: ty.size.max(1),
        is_string: ty.kind == DifTypeKind::String,
        access,
    })
}

/// r0 = the dynamic variable whose key is built (0 when missing).
fn load_dynamic(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    scope: u8,
    id: u16,
    site: FaultSite,
) -> Result<(), TranslateError> {
    let fd = cx
        .maps()
        .dynamic
        .ok_or(TranslateError::MissingMap { map: "dynamic" })?;
    let done = code.label();
    code.state_pointer(Reg::R2, cx.layout().state.dynamic_key);
    code.map_lookup(fd);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
    match dynamic_type(cx.layout(), scope, id) {
        None => code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R0, 0)),
        Some(by_reference) if by_reference.is_string && by_reference.access == Access::Kernel => {
            // A string is never written through, so its address is the variable's own
            // storage, as in DTrace: a copy in scratch per load would run a long clause
            // out of scratch space. Passing the pointer through the work area makes it
            // a plain number to the verifier, which forbids tag tests on a pointer; the
            // string is then read as kernel memory.
            let temporary = cx.layout().state.temporary;
            code.store_state(temporary, Reg::R0);
            code.load_state(Reg::R0, temporary);
        }
        Some(by_reference) => {
            code.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
            allocate_scratch(code, cx, ScratchSize::Constant(by_reference.size), site);
            code.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
            code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
            code.alu_imm(AluOp::Add, Reg::R1, cx.layout().state.scratch as i32);
            code.alu_reg(AluOp::Add, Reg::R1, STATE);
            code.emit(Insn::mov64_imm(Reg::R2, by_reference.size as i32));
            code.emit(Insn::mov64_reg(Reg::R3, SAVED_0));
            code.call(Helper::ProbeReadKernel);
            scratch_address(code, Reg::R0, SAVED_1);
        }
    }
    code.bind(done);
    Ok(())
}

/// Stores DIF `%rd` into the dynamic variable whose key is built; 0 deletes it.
fn store_dynamic(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    scope: u8,
    id: u16,
    rd: u8,
    site: FaultSite,
) -> Result<(), TranslateError> {
    let fd = cx
        .maps()
        .dynamic
        .ok_or(TranslateError::MissingMap { map: "dynamic" })?;
    let value = cx.layout().state.dynamic_value;
    let delete = code.label();
    let done = code.label();
    code.load_dif(SAVED_1, rd);
    code.asm.jmp_imm_to(JmpOp::Eq, SAVED_1, 0, delete);
    match dynamic_type(cx.layout(), scope, id) {
        None => code.store_state(value, SAVED_1),
        Some(by_reference) => {
            code.state_pointer(SAVED_0, value);
            copy_object(code, cx, by_reference, site);
        }
    }
    code.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
    code.state_pointer(Reg::R2, cx.layout().state.dynamic_key);
    code.state_pointer(Reg::R3, value);
    code.emit(Insn::mov64_imm(Reg::R4, 0));
    code.call(Helper::MapUpdateElem);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
    code.count(crate::map_layout::COUNTER_DYNAMIC_DROPS);
    code.asm.ja_to(done);
    code.bind(delete);
    code.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
    code.state_pointer(Reg::R2, cx.layout().state.dynamic_key);
    code.call(Helper::MapDeleteElem);
    code.bind(done);
    Ok(())
}
