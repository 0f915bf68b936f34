//! D variables in the kernel: global scalars in the globals value, clause-locals in the
//! work area (one area for the probe's firing, one for the ERROR firing), thread-locals
//! and associative-array elements in the dynamic hash map.
//!
//! By-reference globals and clause-locals keep a u64 NULL flag before their bytes, so that
//! storing NULL makes later loads yield 0 while a never-assigned variable reads as
//! zero-filled storage, as in the interpreter. A by-reference dynamic variable is copied
//! into scratch when loaded (map values have no stable address to tag). Assigning 0 to a
//! dynamic variable deletes it; a failed insert counts a dynamic-variable drop.
//!
//! Storing a by-reference value writes the destination while reading the source, so a
//! source that faults half-way leaves the variable cleared rather than unchanged.

use difvm::difo::{DifTypeKind, DIF_TYPE_FLAG_BY_USER_REFERENCE};
use difvm::isa::{builtin_variable, Opcode};
use difvm::object::FaultCode;

use super::emitter::{Chain, Emitter, FaultSite, FaultValue};
use super::instructions::tuple_entry;
use super::layout::{
    GlobalVariableSlot, DYNAMIC_SCOPE_GLOBAL, DYNAMIC_SCOPE_THREAD, TAG_GLOBALS, TAG_SHIFT,
    TAG_STATE,
};
use super::memory::{Access, ScratchSize, StringDestination};
use super::registers::{SAVED_0, SAVED_1, STATE};
use super::tuples::EntryKind;
use super::TranslateError;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};

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

impl Emitter<'_> {
    fn clause_locals_offset(&self) -> u32 {
        match self.chain {
            Chain::Main => self.layout.state.clause_locals,
            Chain::Error => self.layout.state.error_clause_locals,
        }
    }

    fn static_slot(
        &self,
        opcode: Opcode,
        id: u16,
    ) -> Result<(StaticHome, GlobalVariableSlot), TranslateError> {
        let global = matches!(opcode, Opcode::Ldgs | Opcode::Stgs);
        let slot = if global {
            self.layout.globals.variables.get(&id)
        } else {
            self.layout.clause_locals.get(&id)
        };
        let slot =
            *slot.ok_or_else(|| self.unsupported(format!("variable {id:#x} without storage")))?;
        let home = if global {
            StaticHome::Globals(slot.offset)
        } else {
            StaticHome::State(self.clause_locals_offset() + slot.offset)
        };
        Ok((home, slot))
    }

    fn home_pointer(&mut self, dst: Reg, home: StaticHome, extra: u32) {
        match home {
            StaticHome::Globals(offset) => self.globals_pointer(dst, offset + extra),
            StaticHome::State(offset) => self.state_pointer(dst, offset + extra),
        }
    }

    /// `ldgs`, `ldts`, `ldls`: DIF `%rd` = the variable (built-ins included).
    pub fn load_variable(
        &mut self,
        opcode: Opcode,
        id: u16,
        rd: u8,
        site: FaultSite,
    ) -> Result<(), TranslateError> {
        match opcode {
            Opcode::Ldgs if id < builtin_variable::FIRST_USER => {
                self.load_builtin(id, site)?;
            }
            Opcode::Ldgs | Opcode::Ldls => {
                let (home, slot) = self.static_slot(opcode, id)?;
                self.home_pointer(Reg::R1, home, 0);
                self.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R1, 0));
                if slot.by_reference_size.is_some() {
                    // The NULL flag is set: 0; otherwise the storage's tagged address.
                    let null = self.label();
                    let done = self.label();
                    self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, null);
                    let address = match home {
                        StaticHome::Globals(offset) => {
                            TAG_GLOBALS << TAG_SHIFT | (offset + 8) as u64
                        }
                        StaticHome::State(offset) => TAG_STATE << TAG_SHIFT | (offset + 8) as u64,
                    };
                    self.load_constant(Reg::R0, address);
                    self.asm.ja_to(done);
                    self.bind(null);
                    self.emit(Insn::mov64_imm(Reg::R0, 0));
                    self.bind(done);
                }
            }
            _ => {
                self.build_dynamic_key(id, DYNAMIC_SCOPE_THREAD, &[], site)?;
                self.load_dynamic(DYNAMIC_SCOPE_THREAD, id, site)?;
            }
        }
        self.store_dif(rd, Reg::R0);
        Ok(())
    }

    /// `stgs`, `stts`, `stls`: the variable = DIF `%rd`.
    pub fn store_variable(
        &mut self,
        opcode: Opcode,
        id: u16,
        rd: u8,
        site: FaultSite,
    ) -> Result<(), TranslateError> {
        match opcode {
            Opcode::Stgs | Opcode::Stls => {
                let (home, slot) = self.static_slot(opcode, id)?;
                self.load_dif(SAVED_1, rd);
                match slot.by_reference_size {
                    None => {
                        self.home_pointer(Reg::R1, home, 0);
                        self.emit(Insn::stx_mem(MemSize::DW, Reg::R1, SAVED_1, 0));
                    }
                    Some(size) => {
                        let by_reference = self.by_reference(id, size, slot.is_string);
                        let null = self.label();
                        let done = self.label();
                        self.asm.jmp_imm_to(JmpOp::Eq, SAVED_1, 0, null);
                        self.home_pointer(SAVED_0, home, 8);
                        self.copy_object(by_reference, site);
                        self.home_pointer(Reg::R1, home, 0);
                        self.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 0));
                        self.asm.ja_to(done);
                        self.bind(null);
                        self.home_pointer(Reg::R1, home, 0);
                        self.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 1));
                        self.bind(done);
                    }
                }
            }
            _ => {
                self.build_dynamic_key(id, DYNAMIC_SCOPE_THREAD, &[], site)?;
                self.store_dynamic(DYNAMIC_SCOPE_THREAD, id, rd, site)?;
            }
        }
        Ok(())
    }

    /// `ldgaa`, `ldtaa`, `stgaa`, `sttaa` with the key on the tuple stack.
    pub fn access_associative(
        &mut self,
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
        self.build_dynamic_key(id, scope, shape, site)?;
        match opcode {
            Opcode::Ldgaa | Opcode::Ldtaa => {
                self.load_dynamic(scope, id, site)?;
                self.store_dif(rd, Reg::R0);
            }
            _ => self.store_dynamic(scope, id, rd, site)?,
        }
        Ok(())
    }

    fn by_reference(&self, id: u16, size: u32, is_string: bool) -> ByReference {
        let user = self
            .program
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
    fn copy_object(&mut self, by_reference: ByReference, site: FaultSite) {
        let size = by_reference.size;
        self.emit(Insn::mov64_reg(Reg::R1, SAVED_0));
        self.emit(Insn::mov64_imm(Reg::R2, size as i32));
        self.state_pointer(Reg::R3, self.layout.state.zero_guard);
        self.call(Helper::ProbeReadKernel);
        if by_reference.is_string {
            self.read_string(
                SAVED_1,
                size - 1,
                None,
                StringDestination::Pointer(SAVED_0),
                by_reference.access,
                site,
            );
        } else {
            self.resolve_address(SAVED_1, size, Reg::R3, by_reference.access, site);
            self.emit(Insn::mov64_reg(Reg::R1, SAVED_0));
            self.emit(Insn::mov64_imm(Reg::R2, size as i32));
            let helper = if by_reference.access == Access::User {
                Helper::ProbeReadUser
            } else {
                Helper::ProbeReadKernel
            };
            self.call(helper);
            self.fault_if_imm(
                JmpOp::Ne,
                Reg::R0,
                0,
                FaultCode::BadAddress,
                FaultValue::Register(SAVED_1),
                site,
            );
        }
    }

    /// Builds the dynamic-variable key in the work area: id, scope, thread, tuple.
    fn build_dynamic_key(
        &mut self,
        id: u16,
        scope: u8,
        shape: &[EntryKind],
        site: FaultSite,
    ) -> Result<(), TranslateError> {
        let layout = self
            .layout
            .dynamic
            .ok_or(TranslateError::MissingMap { map: "dynamic" })?;
        let key = self.layout.state.dynamic_key;
        self.zero_fill(STATE, key, layout.key_size);
        self.emit(Insn::st_mem(MemSize::W, STATE, key as i16, id as i32));
        self.emit(Insn::st_mem(
            MemSize::W,
            STATE,
            key as i16 + 4,
            scope as i32,
        ));
        if scope == DYNAMIC_SCOPE_THREAD {
            self.call(Helper::GetCurrentPidTgid);
            self.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
            self.store_state(key + 8, Reg::R0);
        }
        let strsize = self.layout.options.strsize;
        let mut cursor = 0u32;
        for (position, kind) in shape.iter().enumerate() {
            let entry = tuple_entry(self, position);
            let width = match kind {
                EntryKind::Value => 8,
                EntryKind::String => strsize,
                EntryKind::Object => {
                    return Err(self.unsupported("an associative array keyed by a struct"));
                }
            };
            if cursor + width > layout.tuple_size {
                return Err(self.unsupported(format!(
                    "an associative array key longer than the {} bytes the program declares",
                    layout.tuple_size
                )));
            }
            let at = key + 16 + cursor;
            self.load_state(SAVED_1, entry);
            if *kind == EntryKind::Value {
                self.store_state(at, SAVED_1);
            } else {
                // The bound is the entry's length (its size less the NUL).
                let spill = super::registers::SPILL_1;
                self.load_state(Reg::R0, entry + 8);
                self.emit(Insn::add64_imm(Reg::R0, -1));
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, spill));
                self.read_string(
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

    fn dynamic_type(&self, scope: u8, id: u16) -> Option<ByReference> {
        let ty = self.layout.dynamic_types.get(&(scope, id))?;
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
    fn load_dynamic(&mut self, scope: u8, id: u16, site: FaultSite) -> Result<(), TranslateError> {
        let fd = self
            .maps
            .dynamic
            .ok_or(TranslateError::MissingMap { map: "dynamic" })?;
        let done = self.label();
        self.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
        self.state_pointer(Reg::R2, self.layout.state.dynamic_key);
        self.call(Helper::MapLookupElem);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
        match self.dynamic_type(scope, id) {
            None => self.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R0, 0)),
            Some(by_reference) => {
                self.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
                self.allocate_scratch(ScratchSize::Constant(by_reference.size), site);
                self.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
                self.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
                self.alu_imm(AluOp::Add, Reg::R1, self.layout.state.scratch as i32);
                self.alu_reg(AluOp::Add, Reg::R1, STATE);
                self.emit(Insn::mov64_imm(Reg::R2, by_reference.size as i32));
                self.emit(Insn::mov64_reg(Reg::R3, SAVED_0));
                self.call(Helper::ProbeReadKernel);
                self.scratch_address(Reg::R0, SAVED_1);
            }
        }
        self.bind(done);
        Ok(())
    }

    /// Stores DIF `%rd` into the dynamic variable whose key is built; 0 deletes it.
    fn store_dynamic(
        &mut self,
        scope: u8,
        id: u16,
        rd: u8,
        site: FaultSite,
    ) -> Result<(), TranslateError> {
        let fd = self
            .maps
            .dynamic
            .ok_or(TranslateError::MissingMap { map: "dynamic" })?;
        let value = self.layout.state.dynamic_value;
        let delete = self.label();
        let done = self.label();
        self.load_dif(SAVED_1, rd);
        self.asm.jmp_imm_to(JmpOp::Eq, SAVED_1, 0, delete);
        match self.dynamic_type(scope, id) {
            None => self.store_state(value, SAVED_1),
            Some(by_reference) => {
                self.state_pointer(SAVED_0, value);
                self.copy_object(by_reference, site);
            }
        }
        self.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
        self.state_pointer(Reg::R2, self.layout.state.dynamic_key);
        self.state_pointer(Reg::R3, value);
        self.emit(Insn::mov64_imm(Reg::R4, 0));
        self.call(Helper::MapUpdateElem);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
        self.count(super::layout::COUNTER_DYNAMIC_DROPS);
        self.asm.ja_to(done);
        self.bind(delete);
        self.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
        self.state_pointer(Reg::R2, self.layout.state.dynamic_key);
        self.call(Helper::MapDeleteElem);
        self.bind(done);
        Ok(())
    }
}
