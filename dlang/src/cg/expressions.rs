//! DIF for expressions: constants, variable loads, arithmetic, comparisons (signed,
//! unsigned or `scmp`), short-circuit logical operators, `?:`, narrowing, memory and
//! bit-field loads, and subroutine calls through the tuple stack.

use difvm::difo::KernelRelocationValue;
use difvm::isa::{Opcode, DIF_TYPE_CTF, DIF_TYPE_STRING};

use super::builder::Access;
use super::generator::{DifoGenerator, Held};
use crate::diagnostics::{Diagnostic, ErrorTag};
use crate::sema::ir::{
    AddressSpace, Arithmetic, Comparison, ComparisonKind, Logical, OutOfRange, TypedExpr,
    TypedExprKind, Unary,
};

/// Registers an expression needs when none are held by its callers (an upper bound of
/// what [`DifoGenerator::expression`] allocates at once).
pub(super) fn need(expr: &TypedExpr) -> usize {
    use TypedExprKind as K;
    match &expr.kind {
        K::Integer(_)
        | K::String(_)
        | K::Variable(_)
        | K::Capture(_)
        | K::PerCpuVariableAddress { .. }
        | K::VariableAddress(_) => 1,
        K::AssociativeElement { keys, .. } => sequence_need(keys.iter()).max(1) + 1,
        K::StaticArrayElement { index, .. } => need(index).max(2),
        K::BuiltinArrayElement { index, .. } => need(index).max(1),
        K::BoundedElementAddress { array, index, .. } => need(array).max(1 + need(index)).max(3),
        K::Unary { operand, .. } => need(operand).max(1),
        K::Arithmetic { left, right, .. } | K::Compare { left, right, .. } => {
            need(left).max(1 + need(right))
        }
        K::Logical {
            operator: Logical::Xor,
            left,
            right,
        } => need(left).max(1 + need(right)),
        K::Logical { left, right, .. } => need(left).max(need(right)),
        K::Conditional {
            condition,
            then_value,
            else_value,
        } => need(condition)
            .max(need(then_value))
            .max(1 + need(else_value)),
        K::Narrow { operand, .. } => need(operand).max(2),
        K::Load { address, .. } => need(address).max(1),
        K::BitFieldLoad { address, .. } => need(address).max(2),
        K::Call { arguments, .. } => sequence_need(arguments.iter())
            .max(arguments.len() + 1)
            .max(1),
        K::Assign { target, value } => need(value).max(1 + super::lvalues::target_need(target)),
        K::Increment { target, .. } => super::lvalues::target_need(target) + 3,
        K::Comma { left, right } => need(left).max(need(right)),
        K::Symbol { value, .. } => need(value),
    }
}

/// Registers needed to evaluate `exprs` one after another, each held afterwards.
pub(super) fn sequence_need<'e>(exprs: impl Iterator<Item = &'e TypedExpr>) -> usize {
    exprs
        .enumerate()
        .map(|(held, expr)| held + need(expr))
        .max()
        .unwrap_or(0)
}

impl DifoGenerator<'_> {
    /// Evaluates `expr` into a newly allocated register.
    pub(super) fn expression(&mut self, expr: &TypedExpr) -> Result<u8, Diagnostic> {
        use TypedExprKind as K;
        match &expr.kind {
            K::Integer(value) => {
                let register = self.builder.allocate()?;
                self.builder.set_integer(*value, register)?;
                Ok(register)
            }
            K::String(bytes) => {
                let register = self.builder.allocate()?;
                self.builder.set_string(bytes, register)?;
                Ok(register)
            }
            K::VariableAddress(id) => {
                let access = self.reference(*id, Access::Read)?;
                let register = self.builder.allocate()?;
                self.builder.emit_indexed(access.load, access.id, register);
                Ok(register)
            }
            K::Variable(id) => {
                let access = self.reference(*id, Access::Read)?;
                let register = self.builder.allocate()?;
                self.builder.emit_indexed(access.load, access.id, register);
                self.zero_struct_if_missing(*id, register)?;
                Ok(register)
            }
            K::AssociativeElement { variable, keys } => {
                let held = self.evaluate_all(keys)?;
                self.push_tuple(keys, held)?;
                let access = self.reference(*variable, Access::Read)?;
                let register = self.builder.allocate()?;
                self.builder.emit_indexed(access.load, access.id, register);
                self.zero_struct_if_missing(*variable, register)?;
                Ok(register)
            }
            K::StaticArrayElement {
                variable,
                index,
                elements,
            } => {
                let register = self.expression(index)?;
                self.load_static_array_element(*variable, register, *elements)?;
                Ok(register)
            }
            K::BoundedElementAddress {
                array,
                index,
                elements,
                element_size,
                out_of_range,
            } => {
                self.bounded_element_address(array, index, *elements, *element_size, *out_of_range)
            }
            K::BuiltinArrayElement { array, index } => {
                let register = self.expression(index)?;
                self.builder
                    .emit_registers(Opcode::Ldga, *array as u8, register, register);
                Ok(register)
            }
            K::Unary { operator, operand } => {
                let register = self.expression(operand)?;
                match operator {
                    Unary::Negate => {
                        self.builder
                            .emit_registers(Opcode::Sub, 0, register, register)
                    }
                    Unary::BitwiseNot => {
                        self.builder
                            .emit_registers(Opcode::Not, register, 0, register)
                    }
                    Unary::LogicalNot => {
                        let is_zero = self.builder.label();
                        let done = self.builder.label();
                        self.builder.emit_registers(Opcode::Tst, register, 0, 0);
                        self.builder.branch(Opcode::Be, is_zero);
                        self.builder.emit_registers(Opcode::Mov, 0, 0, register);
                        self.builder.branch(Opcode::Ba, done);
                        self.builder.place(is_zero);
                        self.builder.set_integer(1, register)?;
                        self.builder.place(done);
                    }
                }
                Ok(register)
            }
            K::Arithmetic {
                operator,
                left,
                right,
            } => {
                let (left, right) = self.pair(left, right)?;
                let op = match operator {
                    Arithmetic::Add => Opcode::Add,
                    Arithmetic::Subtract => Opcode::Sub,
                    Arithmetic::Multiply => Opcode::Mul,
                    Arithmetic::DivideSigned => Opcode::Sdiv,
                    Arithmetic::DivideUnsigned => Opcode::Udiv,
                    Arithmetic::RemainderSigned => Opcode::Srem,
                    Arithmetic::RemainderUnsigned => Opcode::Urem,
                    Arithmetic::And => Opcode::And,
                    Arithmetic::Or => Opcode::Or,
                    Arithmetic::Xor => Opcode::Xor,
                    Arithmetic::ShiftLeft => Opcode::Sll,
                    Arithmetic::ShiftRightArithmetic => Opcode::Sra,
                    Arithmetic::ShiftRightLogical => Opcode::Srl,
                };
                self.builder.emit_registers(op, left, right, left);
                self.builder.release(right);
                Ok(left)
            }
            K::Compare {
                operator,
                kind,
                left,
                right,
            } => {
                let (left, right) = self.pair(left, right)?;
                let compare = if *kind == ComparisonKind::Strings {
                    Opcode::Scmp
                } else {
                    Opcode::Cmp
                };
                self.builder.emit_registers(compare, left, right, 0);
                self.builder.release(right);
                let unsigned = *kind == ComparisonKind::Unsigned;
                let branch = match (operator, unsigned) {
                    (Comparison::Equal, _) => Opcode::Be,
                    (Comparison::NotEqual, _) => Opcode::Bne,
                    (Comparison::Less, false) => Opcode::Bl,
                    (Comparison::Less, true) => Opcode::Blu,
                    (Comparison::LessEqual, false) => Opcode::Ble,
                    (Comparison::LessEqual, true) => Opcode::Bleu,
                    (Comparison::Greater, false) => Opcode::Bg,
                    (Comparison::Greater, true) => Opcode::Bgu,
                    (Comparison::GreaterEqual, false) => Opcode::Bge,
                    (Comparison::GreaterEqual, true) => Opcode::Bgeu,
                };
                self.boolean_from_branch(branch, left)?;
                Ok(left)
            }
            K::Logical {
                operator,
                left,
                right,
            } => self.logical(*operator, left, right),
            K::Conditional {
                condition,
                then_value,
                else_value,
            } => {
                let else_label = self.builder.label();
                let done = self.builder.label();
                let condition = self.expression(condition)?;
                self.builder.emit_registers(Opcode::Tst, condition, 0, 0);
                self.builder.release(condition);
                self.builder.branch(Opcode::Be, else_label);
                let result = self.expression(then_value)?;
                self.builder.branch(Opcode::Ba, done);
                self.builder.place(else_label);
                let mut held = [Held::Register(result)];
                self.make_room(&mut held, need(else_value))?;
                let other = self.expression(else_value)?;
                let result = self.reload(held[0])?;
                self.builder.emit_registers(Opcode::Mov, other, 0, result);
                self.builder.release(other);
                self.builder.place(done);
                Ok(result)
            }
            K::Narrow {
                operand,
                size,
                signed,
            } => {
                let register = self.expression(operand)?;
                self.narrow(register, *size, *signed)?;
                Ok(register)
            }
            K::Load {
                address,
                size,
                signed,
                space,
            } => {
                let register = self.expression(address)?;
                self.builder.emit_registers(
                    load_opcode(*size, *signed, *space),
                    register,
                    0,
                    register,
                );
                Ok(register)
            }
            K::BitFieldLoad {
                address,
                unit_size,
                shift,
                width,
                signed,
                space,
            } => {
                let register = self.expression(address)?;
                self.builder.emit_registers(
                    load_opcode(*unit_size, false, *space),
                    register,
                    0,
                    register,
                );
                self.extract_bits(register, *shift, *width, *signed)?;
                Ok(register)
            }
            K::Call {
                subroutine,
                arguments,
            } => {
                let held = self.evaluate_all(arguments)?;
                self.push_tuple(arguments, held)?;
                let register = self.builder.allocate()?;
                self.builder
                    .emit_indexed(Opcode::Call, *subroutine, register);
                Ok(register)
            }
            K::Assign { target, value } => self.assign(target, value),
            K::Increment {
                target,
                delta,
                postfix,
            } => self.increment(target, *delta, *postfix),
            K::Comma { left, right } => {
                let left = self.expression(left)?;
                self.builder.release(left);
                self.expression(right)
            }
            K::Symbol { value, .. } => self.expression(value),
            K::PerCpuVariableAddress {
                variable_id,
                section_offset,
            } => {
                let register = self.builder.allocate()?;
                let relocation = KernelRelocationValue::PerCpuVariableAddress {
                    variable_id: *variable_id,
                    section_offset: *section_offset,
                };
                self.builder.set_kernel_relocation(relocation, register)?;
                Ok(register)
            }
            K::Capture(_) => Err(Diagnostic::new(
                ErrorTag::D_CG_DYN,
                expr.span.clone(),
                "stack( ) may only be recorded, not computed in an expression",
            )),
        }
    }

    /// Evaluates `left` then `right`, spilling `left` if `right` needs every register.
    fn pair(&mut self, left: &TypedExpr, right: &TypedExpr) -> Result<(u8, u8), Diagnostic> {
        let left = self.expression(left)?;
        let mut held = [Held::Register(left)];
        self.make_room(&mut held, need(right))?;
        let right = self.expression(right)?;
        let left = self.reload(held[0])?;
        Ok((left, right))
    }

    /// Evaluates `exprs` in order, each held (possibly spilled) for later use.
    pub(super) fn evaluate_all(&mut self, exprs: &[TypedExpr]) -> Result<Vec<Held>, Diagnostic> {
        let mut held = Vec::with_capacity(exprs.len());
        for expr in exprs {
            self.make_room(&mut held, need(expr))?;
            let register = self.expression(expr)?;
            held.push(Held::Register(register));
        }
        Ok(held)
    }

    /// Clears the tuple stack and pushes the held values of `exprs`: strings by
    /// reference (`pushtr` type string), other by-reference objects with their size,
    /// everything else by value.
    pub(super) fn push_tuple(
        &mut self,
        exprs: &[TypedExpr],
        held: Vec<Held>,
    ) -> Result<(), Diagnostic> {
        self.builder.emit_registers(Opcode::Flushts, 0, 0, 0);
        for (expr, value) in exprs.iter().zip(held) {
            let register = self.reload(value)?;
            if self.types.is_string(expr.ty) {
                self.builder
                    .emit_registers(Opcode::Pushtr, DIF_TYPE_STRING, 0, register);
            } else if self.types.is_string_compatible(expr.ty) && self.types.is_array(expr.ty) {
                let size = self.builder.allocate()?;
                self.builder
                    .set_integer(self.types.size_of(expr.ty), size)?;
                self.builder
                    .emit_registers(Opcode::Pushtr, DIF_TYPE_STRING, size, register);
                self.builder.release(size);
            } else if self.types.is_by_reference(expr.ty) {
                let size = self.builder.allocate()?;
                self.builder
                    .set_integer(self.types.size_of(expr.ty), size)?;
                self.builder
                    .emit_registers(Opcode::Pushtr, DIF_TYPE_CTF, size, register);
                self.builder.release(size);
            } else {
                self.builder
                    .emit_registers(Opcode::Pushtv, DIF_TYPE_CTF, 0, register);
            }
            self.builder.release(register);
        }
        Ok(())
    }

    /// Branches to `out_of_range` unless the index in `index` is below `elements`
    /// (compared unsigned, so negative indexes are out of range too). DIF has no
    /// instruction that raises a fault on its own, so an access outside the array
    /// cannot raise `index out of bounds`; the callers make it read 0 or store nothing.
    pub(super) fn branch_unless_in_bounds(
        &mut self,
        index: u8,
        elements: u64,
        out_of_range: super::builder::Label,
    ) -> Result<(), Diagnostic> {
        let bound = self.builder.allocate()?;
        self.builder.set_integer(elements, bound)?;
        self.builder.emit_registers(Opcode::Cmp, index, bound, 0);
        self.builder.release(bound);
        self.builder.branch(Opcode::Bgeu, out_of_range);
        Ok(())
    }

    /// The address of element `index` of the array at `array` when the index is below
    /// `elements`, else `out_of_range`: a zero-filled scratch element (`allocs`) or an
    /// offset into a struct copy's slack, whose reads give 0 and whose stores are lost.
    fn bounded_element_address(
        &mut self,
        array: &TypedExpr,
        index: &TypedExpr,
        elements: u64,
        element_size: u64,
        out_of_range_value: OutOfRange,
    ) -> Result<u8, Diagnostic> {
        let address = self.expression(array)?;
        let position = self.expression(index)?;
        let out_of_range = self.builder.label();
        let done = self.builder.label();
        self.branch_unless_in_bounds(position, elements, out_of_range)?;
        let size = self.builder.allocate()?;
        self.builder.set_integer(element_size, size)?;
        self.builder
            .emit_registers(Opcode::Mul, position, size, position);
        self.builder.release(size);
        self.builder
            .emit_registers(Opcode::Add, address, position, address);
        self.builder.branch(Opcode::Ba, done);
        self.builder.place(out_of_range);
        match out_of_range_value {
            OutOfRange::ZeroedScratch => {
                self.builder.set_integer(element_size, address)?;
                self.builder
                    .emit_registers(Opcode::Allocs, address, 0, address);
            }
            OutOfRange::Offset(offset) => self.builder.set_integer(offset, address)?,
        }
        self.builder.place(done);
        self.builder.release(position);
        Ok(address)
    }

    /// Replaces the index in `register` by the element of scalar array `variable` at
    /// that index (loaded from its storage when it is kept in memory, else `ldgaa`
    /// keyed by the index), or 0 when the index is out of range.
    pub(super) fn load_static_array_element(
        &mut self,
        variable: crate::sema::ir::VariableId,
        register: u8,
        elements: u64,
    ) -> Result<(), Diagnostic> {
        let out_of_range = self.builder.label();
        let done = self.builder.label();
        self.branch_unless_in_bounds(register, elements, out_of_range)?;
        if let Some((size, signed)) = self.static_array_element_address(variable, register)? {
            let load = load_opcode(size, signed, AddressSpace::Kernel);
            self.builder.emit_registers(load, register, 0, register);
        } else {
            self.builder.emit_registers(Opcode::Flushts, 0, 0, 0);
            self.builder
                .emit_registers(Opcode::Pushtv, DIF_TYPE_CTF, 0, register);
            let access = self.reference(variable, Access::Read)?;
            self.builder.emit_indexed(access.load, access.id, register);
        }
        self.builder.branch(Opcode::Ba, done);
        self.builder.place(out_of_range);
        self.builder.emit_registers(Opcode::Mov, 0, 0, register);
        self.builder.place(done);
        Ok(())
    }

    /// For a scalar array kept in memory, replaces the (in-bounds) index in `register`
    /// by the address of that element and returns the element's size and signedness;
    /// `None`, leaving the index, for an array kept as an associative array.
    pub(super) fn static_array_element_address(
        &mut self,
        variable: crate::sema::ir::VariableId,
        register: u8,
    ) -> Result<Option<(u32, bool)>, Diagnostic> {
        let array = self.variables.get(variable);
        let (true, Some(element)) = (array.in_memory, array.ty) else {
            return Ok(None);
        };
        let size = self.types.size_of(element) as u32;
        let signed = self.types.is_signed(element);
        let scratch = self.builder.allocate()?;
        self.builder.set_integer(u64::from(size), scratch)?;
        self.builder
            .emit_registers(Opcode::Mul, register, scratch, register);
        let access = self.reference(variable, Access::Read)?;
        self.builder.emit_indexed(access.load, access.id, scratch);
        self.builder
            .emit_registers(Opcode::Add, register, scratch, register);
        self.builder.release(scratch);
        Ok(Some((size, signed)))
    }

    /// A thread-local or associative-array element of struct, union or array type that
    /// does not exist loads as 0; it reads as zero-filled storage instead (zeroed scratch of
    /// the type's size), as a dynamic variable that was never assigned does in DTrace.
    fn zero_struct_if_missing(
        &mut self,
        variable: crate::sema::ir::VariableId,
        register: u8,
    ) -> Result<(), Diagnostic> {
        let variable = self.variables.get(variable);
        let dynamic = variable.scope == crate::sema::VariableScope::ThreadLocal
            || matches!(
                variable.shape,
                crate::sema::VariableShape::Associative { .. }
            );
        let Some(ty) = variable.ty else {
            return Ok(());
        };
        if !dynamic || !(self.types.is_struct_or_union(ty) || self.types.is_array(ty)) {
            return Ok(());
        }
        let present = self.builder.label();
        self.builder.emit_registers(Opcode::Tst, register, 0, 0);
        self.builder.branch(Opcode::Bne, present);
        self.builder.set_integer(self.types.size_of(ty), register)?;
        self.builder
            .emit_registers(Opcode::Allocs, register, 0, register);
        self.builder.place(present);
        Ok(())
    }

    /// After a compare, sets `register` to 1 when `branch` is taken, else 0.
    fn boolean_from_branch(&mut self, branch: Opcode, register: u8) -> Result<(), Diagnostic> {
        let taken = self.builder.label();
        let done = self.builder.label();
        self.builder.branch(branch, taken);
        self.builder.emit_registers(Opcode::Mov, 0, 0, register);
        self.builder.branch(Opcode::Ba, done);
        self.builder.place(taken);
        self.builder.set_integer(1, register)?;
        self.builder.place(done);
        Ok(())
    }

    /// Makes a value 0 or 1.
    fn normalize_boolean(&mut self, register: u8) -> Result<(), Diagnostic> {
        let zero = self.builder.label();
        self.builder.emit_registers(Opcode::Tst, register, 0, 0);
        self.builder.branch(Opcode::Be, zero);
        self.builder.set_integer(1, register)?;
        self.builder.place(zero);
        Ok(())
    }

    /// `&&` and `||` short-circuit; `^^` evaluates both sides.
    fn logical(
        &mut self,
        operator: Logical,
        left: &TypedExpr,
        right: &TypedExpr,
    ) -> Result<u8, Diagnostic> {
        if operator == Logical::Xor {
            let (left, right) = self.pair(left, right)?;
            self.normalize_boolean(left)?;
            self.normalize_boolean(right)?;
            self.builder.emit_registers(Opcode::Xor, left, right, left);
            self.builder.release(right);
            return Ok(left);
        }
        let decided = self.builder.label();
        let done = self.builder.label();
        let (branch, decided_value) = match operator {
            Logical::And => (Opcode::Be, 0),
            _ => (Opcode::Bne, 1),
        };
        let first = self.expression(left)?;
        self.builder.emit_registers(Opcode::Tst, first, 0, 0);
        self.builder.release(first);
        self.builder.branch(branch, decided);
        let result = self.expression(right)?;
        self.builder.emit_registers(Opcode::Tst, result, 0, 0);
        self.builder.branch(branch, decided);
        self.builder.set_integer(1 - decided_value, result)?;
        self.builder.branch(Opcode::Ba, done);
        self.builder.place(decided);
        self.builder.set_integer(decided_value, result)?;
        self.builder.place(done);
        Ok(result)
    }

    /// Keeps the low `size` bytes of `register`, sign- or zero-extending them.
    pub(super) fn narrow(
        &mut self,
        register: u8,
        size: u32,
        signed: bool,
    ) -> Result<(), Diagnostic> {
        if size >= 8 {
            return Ok(());
        }
        let shift = self.builder.allocate()?;
        self.builder.set_integer(u64::from(64 - size * 8), shift)?;
        self.builder
            .emit_registers(Opcode::Sll, register, shift, register);
        let right = if signed { Opcode::Sra } else { Opcode::Srl };
        self.builder
            .emit_registers(right, register, shift, register);
        self.builder.release(shift);
        Ok(())
    }

    /// Extracts `width` bits at `shift` of the unit in `register`.
    pub(super) fn extract_bits(
        &mut self,
        register: u8,
        shift: u32,
        width: u32,
        signed: bool,
    ) -> Result<(), Diagnostic> {
        let amount = self.builder.allocate()?;
        let left = 64u32.saturating_sub(shift + width);
        if left > 0 {
            self.builder.set_integer(u64::from(left), amount)?;
            self.builder
                .emit_registers(Opcode::Sll, register, amount, register);
        }
        let right = 64u32.saturating_sub(width);
        if right > 0 {
            self.builder.set_integer(u64::from(right), amount)?;
            let op = if signed { Opcode::Sra } else { Opcode::Srl };
            self.builder.emit_registers(op, register, amount, register);
        }
        self.builder.release(amount);
        Ok(())
    }
}

/// The load opcode for `size` bytes with the given signedness and address space.
pub(super) fn load_opcode(size: u32, signed: bool, space: AddressSpace) -> Opcode {
    let user = space == AddressSpace::User;
    match (size, signed, user) {
        (1, true, false) => Opcode::Ldsb,
        (1, false, false) => Opcode::Ldub,
        (2, true, false) => Opcode::Ldsh,
        (2, false, false) => Opcode::Lduh,
        (4, true, false) => Opcode::Ldsw,
        (4, false, false) => Opcode::Lduw,
        (_, _, false) => Opcode::Ldx,
        (1, true, true) => Opcode::Uldsb,
        (1, false, true) => Opcode::Uldub,
        (2, true, true) => Opcode::Uldsh,
        (2, false, true) => Opcode::Ulduh,
        (4, true, true) => Opcode::Uldsw,
        (4, false, true) => Opcode::Ulduw,
        _ => Opcode::Uldx,
    }
}
