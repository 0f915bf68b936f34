//! DIF for stores: assignment and `++`/`--` to variables (`stgs`, `stts`, `stls`),
//! associative-array elements (`stgaa`, `sttaa` with the keys on the tuple stack),
//! scalar-array elements (a store into the array's storage, or `stgaa` keyed by the
//! index, after a bounds check), memory (`stb`…`stx`, `copys` for by-reference objects) and bit-fields,
//! and members of structs held in variables (copied into scratch with `allocs` and
//! `copys`, stored into, and assigned back whole).

use difvm::isa::{subroutine, Opcode, DIF_TYPE_CTF, DIF_TYPE_STRING};

use super::builder::Access;
use super::expressions::{load_opcode, need, sequence_need};
use super::generator::{DifoGenerator, Held};
use crate::diagnostics::{Diagnostic, ErrorTag};
use crate::sema::ir::{AddressSpace, LValue, TypedExpr, VariableId};

/// Registers preparing and storing to `target` needs besides the stored value.
pub(super) fn target_need(target: &LValue) -> usize {
    match target {
        LValue::Variable(_) => 0,
        LValue::AssociativeElement { keys, .. } => sequence_need(keys.iter()).max(1),
        LValue::StaticArrayElement { index, .. } => need(index).max(1) + 1,
        LValue::Memory { address, .. } => need(address),
        LValue::MemoryCopy {
            address, string, ..
        } => need(address) + if *string { 2 } else { 1 },
        LValue::BitField { address, .. } => need(address) + 3,
        LValue::VariableMember {
            variable,
            current,
            member,
            ..
        } => need(current)
            .max(3)
            .max(1 + target_need(member) + 1)
            .max(1 + target_need(variable)),
    }
}

/// A target whose address (if any) has been computed.
enum Prepared<'e> {
    Variable(VariableId),
    /// Keys are evaluated at each access.
    Associative {
        variable: VariableId,
        keys: &'e [TypedExpr],
    },
    /// The index is evaluated once, when the target is prepared.
    StaticArray {
        variable: VariableId,
        index: Held,
        elements: u64,
    },
    Memory {
        address: Held,
        size: u32,
    },
    MemoryCopy {
        address: Held,
        size: u32,
        string: bool,
    },
    BitField {
        address: Held,
        unit_size: u32,
        shift: u32,
        width: u32,
    },
    /// A member of the scratch copy at `copy` of the struct in `variable`.
    VariableMember {
        variable: &'e LValue,
        copy: Held,
        member: Box<Prepared<'e>>,
    },
}

impl DifoGenerator<'_> {
    /// `target = value`; the value stays in the returned register.
    pub(super) fn assign(&mut self, target: &LValue, value: &TypedExpr) -> Result<u8, Diagnostic> {
        let register = self.expression(value)?;
        let mut held = [Held::Register(register)];
        self.make_room(&mut held, target_need(target))?;
        let prepared = self.prepare(target)?;
        let register = self.reload(held[0])?;
        self.store(prepared, register)?;
        Ok(register)
    }

    /// `target += delta`, giving the old value when `postfix`, else the new one.
    pub(super) fn increment(
        &mut self,
        target: &LValue,
        delta: i64,
        postfix: bool,
    ) -> Result<u8, Diagnostic> {
        let mut prepared = self.prepare(target)?;
        let old = self.load(&mut prepared)?;
        let new = self.builder.allocate()?;
        self.builder.set_integer(delta as u64, new)?;
        self.builder.emit_registers(Opcode::Add, old, new, new);
        let mut held = [Held::Register(old), Held::Register(new)];
        self.make_room(&mut held[..1], target_need(target) + 1)?;
        let new = self.reload(held[1])?;
        self.store(prepared, new)?;
        if postfix {
            self.builder.release(new);
            self.reload(held[0])
        } else {
            let old = self.reload(held[0])?;
            self.builder.release(old);
            Ok(new)
        }
    }

    fn prepare<'e>(&mut self, target: &'e LValue) -> Result<Prepared<'e>, Diagnostic> {
        Ok(match target {
            LValue::Variable(id) => Prepared::Variable(*id),
            LValue::AssociativeElement { variable, keys } => Prepared::Associative {
                variable: *variable,
                keys,
            },
            LValue::StaticArrayElement {
                variable,
                index,
                elements,
            } => Prepared::StaticArray {
                variable: *variable,
                index: Held::Register(self.expression(index)?),
                elements: *elements,
            },
            LValue::Memory { address, size } => Prepared::Memory {
                address: Held::Register(self.expression(address)?),
                size: *size,
            },
            LValue::MemoryCopy {
                address,
                size,
                string,
            } => Prepared::MemoryCopy {
                address: Held::Register(self.expression(address)?),
                size: *size,
                string: *string,
            },
            LValue::BitField {
                address,
                unit_size,
                shift,
                width,
            } => Prepared::BitField {
                address: Held::Register(self.expression(address)?),
                unit_size: *unit_size,
                shift: *shift,
                width: *width,
            },
            LValue::VariableMember {
                variable,
                current,
                size,
                slack,
                member,
            } => self.prepare_variable_member(variable, current, *size, *slack, member)?,
        })
    }

    /// Copies the struct a variable holds into zeroed scratch with `slack` more zeroed
    /// bytes (leaving the copy zero when the variable has no storage yet) and prepares
    /// `member` within the copy.
    fn prepare_variable_member<'e>(
        &mut self,
        variable: &'e LValue,
        current: &TypedExpr,
        size: u32,
        slack: u32,
        member: &'e LValue,
    ) -> Result<Prepared<'e>, Diagnostic> {
        let source = self.expression(current)?;
        let count = self.builder.allocate()?;
        let copy = self.builder.allocate()?;
        self.builder
            .set_integer(u64::from(size) + u64::from(slack), count)?;
        self.builder.emit_registers(Opcode::Allocs, count, 0, copy);
        if slack != 0 {
            self.builder.set_integer(u64::from(size), count)?;
        }
        let no_storage = self.builder.label();
        self.builder.emit_registers(Opcode::Tst, source, 0, 0);
        self.builder.branch(Opcode::Be, no_storage);
        self.builder
            .emit_registers(Opcode::Copys, source, count, copy);
        self.builder.place(no_storage);
        self.builder.release(count);
        self.builder.release(source);
        let mut held = [Held::Register(copy)];
        self.make_room(&mut held, target_need(member) + 1)?;
        let mut member = self.prepare(member)?;
        let copy = self.reload(held[0])?;
        let address = match &mut member {
            Prepared::Memory { address, .. }
            | Prepared::MemoryCopy { address, .. }
            | Prepared::BitField { address, .. } => address,
            _ => {
                return Err(Diagnostic::without_span(
                    ErrorTag::D_UNKNOWN,
                    "a variable member must be a place in memory",
                ))
            }
        };
        let offset = self.reload(*address)?;
        self.builder
            .emit_registers(Opcode::Add, copy, offset, offset);
        *address = Held::Register(offset);
        Ok(Prepared::VariableMember {
            variable,
            copy: Held::Register(copy),
            member: Box::new(member),
        })
    }

    /// Reads the current value of a prepared target into a new register.
    fn load(&mut self, prepared: &mut Prepared) -> Result<u8, Diagnostic> {
        match prepared {
            Prepared::Variable(id) => {
                let access = self.reference(*id, Access::Read)?;
                let register = self.builder.allocate()?;
                self.builder.emit_indexed(access.load, access.id, register);
                Ok(register)
            }
            Prepared::Associative { variable, keys } => {
                let held = self.evaluate_all(keys)?;
                self.push_tuple(keys, held)?;
                let access = self.reference(*variable, Access::Read)?;
                let register = self.builder.allocate()?;
                self.builder.emit_indexed(access.load, access.id, register);
                Ok(register)
            }
            Prepared::StaticArray {
                variable,
                index,
                elements,
            } => {
                let position = self.reload(*index)?;
                *index = Held::Register(position);
                let register = self.builder.allocate()?;
                self.builder
                    .emit_registers(Opcode::Mov, position, 0, register);
                self.load_static_array_element(*variable, register, *elements)?;
                Ok(register)
            }
            Prepared::Memory { address, size } => {
                let base = self.reload(*address)?;
                *address = Held::Register(base);
                let register = self.builder.allocate()?;
                self.builder.emit_registers(
                    load_opcode(*size, false, AddressSpace::Kernel),
                    base,
                    0,
                    register,
                );
                Ok(register)
            }
            Prepared::BitField {
                address,
                unit_size,
                shift,
                width,
            } => {
                let base = self.reload(*address)?;
                *address = Held::Register(base);
                let register = self.builder.allocate()?;
                self.builder.emit_registers(
                    load_opcode(*unit_size, false, AddressSpace::Kernel),
                    base,
                    0,
                    register,
                );
                self.extract_bits(register, *shift, *width, false)?;
                Ok(register)
            }
            Prepared::VariableMember { member, .. } => self.load(member),
            Prepared::MemoryCopy { .. } => Err(Diagnostic::without_span(
                ErrorTag::D_UNKNOWN,
                "a by-reference object cannot be read as a scalar",
            )),
        }
    }

    /// Stores `value` into a prepared target (`value` stays allocated).
    /// Sets `count` to the bytes a string store copies from the string in `value`: its
    /// length and NUL (`strlen() + 1`), at most the `size` of the destination. Copying
    /// the destination's whole size would read past the end of a shorter string (a
    /// string constant's bytes in the string table end at its NUL).
    fn string_copy_length(&mut self, value: u8, size: u32, count: u8) -> Result<(), Diagnostic> {
        self.builder.emit_registers(Opcode::Flushts, 0, 0, 0);
        self.builder
            .emit_registers(Opcode::Pushtr, DIF_TYPE_STRING, 0, value);
        self.builder
            .emit_indexed(Opcode::Call, subroutine::STRLEN, count);
        let limit = self.builder.allocate()?;
        self.builder.set_integer(1, limit)?;
        self.builder
            .emit_registers(Opcode::Add, count, limit, count);
        self.builder.set_integer(u64::from(size), limit)?;
        let within = self.builder.label();
        self.builder.emit_registers(Opcode::Cmp, count, limit, 0);
        self.builder.branch(Opcode::Bleu, within);
        self.builder.emit_registers(Opcode::Mov, limit, 0, count);
        self.builder.place(within);
        self.builder.release(limit);
        Ok(())
    }

    fn store(&mut self, prepared: Prepared, value: u8) -> Result<(), Diagnostic> {
        match prepared {
            Prepared::Variable(id) => {
                let access = self.reference(id, Access::Write)?;
                let store = access.store.ok_or_else(read_only)?;
                self.builder.emit_indexed(store, access.id, value);
            }
            Prepared::Associative { variable, keys } => {
                let mut held = [Held::Register(value)];
                self.make_room(&mut held, sequence_need(keys.iter()).max(1))?;
                let keys_held = self.evaluate_all(keys)?;
                self.push_tuple(keys, keys_held)?;
                let value = self.reload(held[0])?;
                let access = self.reference(variable, Access::Write)?;
                let store = access.store.ok_or_else(read_only)?;
                self.builder.emit_indexed(store, access.id, value);
            }
            Prepared::StaticArray {
                variable,
                index,
                elements,
            } => {
                let position = self.reload(index)?;
                let out_of_range = self.builder.label();
                self.branch_unless_in_bounds(position, elements, out_of_range)?;
                if let Some((size, _)) = self.static_array_element_address(variable, position)? {
                    self.builder
                        .emit_registers(store_opcode(size), value, 0, position);
                } else {
                    self.builder.emit_registers(Opcode::Flushts, 0, 0, 0);
                    self.builder
                        .emit_registers(Opcode::Pushtv, DIF_TYPE_CTF, 0, position);
                    let access = self.reference(variable, Access::Write)?;
                    let store = access.store.ok_or_else(read_only)?;
                    self.builder.emit_indexed(store, access.id, value);
                }
                self.builder.place(out_of_range);
                self.builder.release(position);
            }
            Prepared::Memory { address, size } => {
                let base = self.reload(address)?;
                self.builder
                    .emit_registers(store_opcode(size), value, 0, base);
                self.builder.release(base);
            }
            Prepared::MemoryCopy {
                address,
                size,
                string,
            } => {
                let base = self.reload(address)?;
                let count = self.builder.allocate()?;
                if string {
                    self.string_copy_length(value, size, count)?;
                } else {
                    self.builder.set_integer(u64::from(size), count)?;
                }
                self.builder
                    .emit_registers(Opcode::Copys, value, count, base);
                self.builder.release(count);
                self.builder.release(base);
            }
            Prepared::BitField {
                address,
                unit_size,
                shift,
                width,
            } => {
                let base = self.reload(address)?;
                let unit = self.builder.allocate()?;
                let mask = self.builder.allocate()?;
                let field = self.builder.allocate()?;
                let low_mask = if width >= 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                self.builder.emit_registers(
                    load_opcode(unit_size, false, AddressSpace::Kernel),
                    base,
                    0,
                    unit,
                );
                self.builder.set_integer(!(low_mask << shift), mask)?;
                self.builder.emit_registers(Opcode::And, unit, mask, unit);
                self.builder.set_integer(low_mask, mask)?;
                self.builder.emit_registers(Opcode::And, value, mask, field);
                self.builder.set_integer(u64::from(shift), mask)?;
                self.builder.emit_registers(Opcode::Sll, field, mask, field);
                self.builder.emit_registers(Opcode::Or, unit, field, unit);
                self.builder
                    .emit_registers(store_opcode(unit_size), unit, 0, base);
                for register in [field, mask, unit, base] {
                    self.builder.release(register);
                }
            }
            Prepared::VariableMember {
                variable,
                copy,
                member,
            } => {
                self.store(*member, value)?;
                let copy = self.reload(copy)?;
                let whole = self.prepare(variable)?;
                self.store(whole, copy)?;
                self.builder.release(copy);
            }
        }
        Ok(())
    }
}

/// The store of `size` bytes.
fn store_opcode(size: u32) -> Opcode {
    match size {
        1 => Opcode::Stb,
        2 => Opcode::Sth,
        4 => Opcode::Stw,
        _ => Opcode::Stx,
    }
}

fn read_only() -> Diagnostic {
    Diagnostic::without_span(
        ErrorTag::D_OP_WRITE,
        "operator = can only be applied to a writable variable",
    )
}
