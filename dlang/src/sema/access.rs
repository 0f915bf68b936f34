//! Places: the things an expression can name and that can be read, written or have
//! their address taken — variables, associative-array elements, array elements,
//! struct members, dereferenced pointers — and the operators that build them
//! (`[]`, `.`, `->`, unary `*` and `&`).

use difvm::isa::builtin_array;

use super::ir::{
    AddressSpace, Arithmetic, LValue, OutOfRange, TypedExpr, TypedExprKind, VariableId,
};
use super::variables::{VariableScope, VariableShape};
use super::{constants, error, Analyzer, SemaResult};
use crate::ast::{Expr, ExprKind, UnaryOperator};
use crate::diagnostics::{ErrorTag, Span};
use crate::types::{TypeId, TypeKind};

/// A bit-field's position within its storage unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct BitField {
    pub unit_size: u32,
    pub shift: u32,
    pub width: u32,
}

/// Something an expression designates.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Place {
    Variable(VariableId),
    Associative {
        variable: VariableId,
        keys: Vec<TypedExpr>,
    },
    StaticArray {
        variable: VariableId,
        index: TypedExpr,
        elements: u64,
    },
    BuiltinArray {
        array: u16,
        index: TypedExpr,
        ty: TypeId,
    },
    /// An object in memory at `address`.
    Memory {
        address: TypedExpr,
        ty: TypeId,
        bit_field: Option<BitField>,
        space: AddressSpace,
    },
    /// A value that is not an lvalue.
    Value(TypedExpr),
}

impl Analyzer<'_> {
    /// The type of the object a place designates.
    pub(super) fn place_type(&self, place: &Place) -> TypeId {
        match place {
            Place::Variable(id)
            | Place::Associative { variable: id, .. }
            | Place::StaticArray { variable: id, .. } => self
                .variables
                .get(*id)
                .ty
                .unwrap_or(self.types.well_known().int),
            Place::BuiltinArray { ty, .. } | Place::Memory { ty, .. } => *ty,
            Place::Value(value) => value.ty,
        }
    }

    /// Reads a place: loads scalars, gives the address of by-reference objects.
    pub(super) fn read_place(&mut self, place: Place, span: &Span) -> TypedExpr {
        let ty = self.place_type(&place);
        let kind = match place {
            Place::Variable(id) => TypedExprKind::Variable(id),
            Place::Associative { variable, keys } => {
                TypedExprKind::AssociativeElement { variable, keys }
            }
            Place::StaticArray {
                variable,
                index,
                elements,
            } => TypedExprKind::StaticArrayElement {
                variable,
                index: Box::new(index),
                elements,
            },
            Place::BuiltinArray { array, index, ty } => {
                let raw = TypedExpr {
                    kind: TypedExprKind::BuiltinArrayElement {
                        array,
                        index: Box::new(index),
                    },
                    ty: self.types.well_known().int64_t,
                    span: span.clone(),
                };
                return self.convert(raw, ty);
            }
            Place::Memory {
                address,
                ty,
                bit_field,
                space,
            } => {
                if let Some(field) = bit_field {
                    TypedExprKind::BitFieldLoad {
                        address: Box::new(address),
                        unit_size: field.unit_size,
                        shift: field.shift,
                        width: field.width,
                        signed: self.types.is_signed(ty),
                        space,
                    }
                } else if self.types.is_by_reference(ty) {
                    return TypedExpr { ty, ..address };
                } else {
                    let (size, signed) = self.types.scalar_access(ty);
                    TypedExprKind::Load {
                        address: Box::new(address),
                        size,
                        signed,
                        space,
                    }
                }
            }
            Place::Value(value) => return value,
        };
        TypedExpr {
            kind,
            ty,
            span: span.clone(),
        }
    }

    /// The lvalue of a place for `operator` (D_OP_LVAL / D_OP_WRITE when it cannot be
    /// assigned).
    pub(super) fn place_lvalue(
        &mut self,
        place: Place,
        operator: &str,
        span: &Span,
    ) -> SemaResult<LValue> {
        match place {
            Place::Variable(id)
            | Place::Associative { variable: id, .. }
            | Place::StaticArray { variable: id, .. }
                if self.variables.get(id).scope == VariableScope::Builtin =>
            {
                Err(error(
                    ErrorTag::D_OP_WRITE,
                    span,
                    format!("operator {operator} can only be applied to a writable variable"),
                ))
            }
            Place::Variable(id) => Ok(LValue::Variable(id)),
            Place::Associative { variable, keys } => {
                Ok(LValue::AssociativeElement { variable, keys })
            }
            Place::StaticArray {
                variable,
                index,
                elements,
            } => Ok(LValue::StaticArrayElement {
                variable,
                index: Box::new(index),
                elements,
            }),
            Place::BuiltinArray { .. } => Err(error(
                ErrorTag::D_OP_WRITE,
                span,
                format!("operator {operator} can only be applied to a writable variable"),
            )),
            Place::Memory {
                address,
                ty,
                bit_field,
                ..
            } => {
                let size = self.types.size_of(ty) as u32;
                let string = self.types.is_string(ty);
                let by_reference = self.types.is_by_reference(ty);
                let scalar_size = if by_reference {
                    0
                } else {
                    self.types.scalar_access(ty).0
                };
                Ok(self.member_lvalue(address, |address| {
                    let address = Box::new(address);
                    match bit_field {
                        Some(field) => LValue::BitField {
                            address,
                            unit_size: field.unit_size,
                            shift: field.shift,
                            width: field.width,
                        },
                        None if by_reference => LValue::MemoryCopy {
                            address,
                            size,
                            string,
                        },
                        None => LValue::Memory {
                            address,
                            size: scalar_size,
                        },
                    }
                }))
            }
            Place::Value(_) => Err(error(
                ErrorTag::D_OP_LVAL,
                span,
                format!("operator {operator} requires modifiable lvalue as an operand"),
            )),
        }
    }

    /// Resolves `expr` to a place for reading.
    pub(super) fn place(&mut self, expr: &Expr) -> SemaResult<Place> {
        let span = &expr.span;
        match &expr.kind {
            ExprKind::Identifier(name) => {
                if let Some(word) = self.derived_argument_word(name, span)? {
                    return Ok(Place::Value(word));
                }
                if self.inline_parameter(name).is_none() && !self.inlines.contains_key(name) {
                    if let Some(id) = self.variables.global(name) {
                        return self.scalar_variable_place(id, span);
                    }
                    if self.extern_variables.contains_key(name) {
                        return self.kernel_variable_place("", name, span);
                    }
                }
                Ok(Place::Value(self.expression(expr)?))
            }
            ExprKind::ThreadLocal(name) => match self.variables.thread_local(name) {
                Some(id) => self.scalar_variable_place(id, span),
                None => Err(self.not_yet_assigned(&format!("self->{name}"), span)),
            },
            ExprKind::ClauseLocal(name) => match self.variables.clause_local(name) {
                Some(id) => self.scalar_variable_place(id, span),
                None => Err(self.not_yet_assigned(&format!("this->{name}"), span)),
            },
            ExprKind::Index { base, keys } => self.index_place(base, keys, span),
            ExprKind::ScopedIdentifier { module, name } => {
                self.kernel_variable_place(module, name, span)
            }
            ExprKind::Member { base, member } => {
                if let Some(translation) = self.translation_of(base)? {
                    return Ok(Place::Value(self.translated_member(
                        translation,
                        member,
                        false,
                        span,
                    )?));
                }
                let base_value = self.operand(base)?;
                self.member_place(base_value, member, ".", span)
            }
            ExprKind::PointerMember { base, member } => {
                if let Some(translation) = self.translation_of(base)? {
                    return Ok(Place::Value(self.translated_member(
                        translation,
                        member,
                        true,
                        span,
                    )?));
                }
                let base_value = self.operand(base)?;
                if !matches!(
                    self.types.resolved_kind(base_value.ty),
                    TypeKind::Pointer { .. }
                ) {
                    return Err(error(
                        ErrorTag::D_OP_PTR,
                        span,
                        "operator -> must be applied to a pointer",
                    ));
                }
                self.member_place(base_value, member, "->", span)
            }
            ExprKind::Unary {
                operator: UnaryOperator::Dereference,
                operand,
            } => {
                if let Some(translation) = self.translation_of(expr)? {
                    return Ok(Place::Value(self.translated_struct(translation, span)?));
                }
                let pointer = self.operand(operand)?;
                self.dereference_place(pointer, span)
            }
            _ => Ok(Place::Value(self.expression(expr)?)),
        }
    }

    /// The D_VAR_UNDEF diagnostic for a variable read before it has a type.
    pub(super) fn not_yet_assigned(
        &self,
        display_name: &str,
        span: &Span,
    ) -> crate::diagnostics::Diagnostic {
        error(
            ErrorTag::D_VAR_UNDEF,
            span,
            format!("{display_name} has not yet been declared or assigned"),
        )
    }

    fn scalar_variable_place(&mut self, id: VariableId, span: &Span) -> SemaResult<Place> {
        let variable = self.variables.get(id);
        match variable.shape {
            VariableShape::Scalar => {
                if variable.ty.is_none() {
                    return Err(self.not_yet_assigned(&variable.display_name(), span));
                }
                if self.is_in_memory(id) {
                    return Ok(self.memory_variable_place(id, span));
                }
                Ok(Place::Variable(id))
            }
            VariableShape::Associative { .. }
            | VariableShape::StaticArray { .. }
            | VariableShape::BuiltinArray { .. } => Err(error(
                ErrorTag::D_IDENT_BADREF,
                span,
                format!(
                    "array {} may not be referenced without a subscript",
                    variable.display_name()
                ),
            )),
        }
    }

    /// `base[keys]` for everything but aggregations.
    fn index_place(&mut self, base: &Expr, keys: &[Expr], span: &Span) -> SemaResult<Place> {
        if let ([index], true) = (keys, super::derived_probes::is_arguments_array(base)) {
            if let Some(value) = self.derived_argument_value(index, span)? {
                return Ok(Place::Value(value));
            }
        }
        let (variable, scope_prefix) = match &base.kind {
            ExprKind::Identifier(name) if self.inline_parameter(name).is_none() => {
                self.declare_library_parameterised_inline(name)?;
                if let Some(inline) = self.inlines.get(name).cloned() {
                    if !inline.parameters.is_empty() {
                        let value = self.expand_inline(&inline, keys, span)?;
                        return Ok(Place::Value(value));
                    }
                }
                (self.variables.global(name), "")
            }
            ExprKind::ThreadLocal(name) => (self.variables.thread_local(name), "self->"),
            ExprKind::ClauseLocal(name) => {
                let id = self.variables.clause_local(name);
                let is_pointer = id.is_some_and(|id| {
                    let variable = self.variables.get(id);
                    variable
                        .ty
                        .is_some_and(|ty| self.types.is_pointer(ty) || self.types.is_string(ty))
                });
                if !is_pointer {
                    return Err(error(
                        ErrorTag::D_ARR_LOCAL,
                        span,
                        format!("local variables may not be used as associative arrays: {name}"),
                    ));
                }
                (None, "this->")
            }
            ExprKind::Aggregation(name) => {
                return Err(error(
                    ErrorTag::D_AGG_NULL,
                    span,
                    format!("expression has null effect: @{name}"),
                ))
            }
            _ => (None, ""),
        };
        if let (Some(id), ExprKind::Identifier(name)) = (variable, &base.kind) {
            let attributes = if self.variables.get(id).scope == VariableScope::Builtin {
                self.builtin_attributes(name)
            } else {
                self.declared_attributes(name)
            };
            self.use_attributes("associative array", name, attributes, span)?;
        }
        if let Some(id) = variable {
            let shape = self.variables.get(id).shape.clone();
            match shape {
                VariableShape::Associative { .. } => {
                    let keys = self.associative_keys(id, keys, span, false)?;
                    let variable = self.variables.get(id);
                    if variable.ty.is_none() {
                        return Err(self
                            .not_yet_assigned(&format!("{scope_prefix}{}", variable.name), span));
                    }
                    return Ok(Place::Associative { variable: id, keys });
                }
                VariableShape::StaticArray { elements } => {
                    let index = self.single_index(keys, span)?;
                    if !self.types.is_integer(index.ty) {
                        return Err(error(
                            ErrorTag::D_OP_INT,
                            &index.span,
                            "operator [ ] requires an index of integral type",
                        ));
                    }
                    if elements > 1 {
                        self.check_array_bounds(&index, elements)?;
                    }
                    return Ok(Place::StaticArray {
                        variable: id,
                        index,
                        elements,
                    });
                }
                VariableShape::BuiltinArray { array } => {
                    self.check_builtin_array_for_subject(array, span)?;
                    let index = self.single_index(keys, span)?;
                    let ty = self.builtin_array_element_type(array, &index, span)?;
                    return Ok(Place::BuiltinArray { array, index, ty });
                }
                VariableShape::Scalar => {}
            }
        }
        if variable.is_none() && scope_prefix == "self->" {
            if let ExprKind::ThreadLocal(name) = &base.kind {
                return Err(self.not_yet_assigned(&format!("self->{name}"), span));
            }
        }
        // Pointer or array indexing: base[i] is *(base + i).
        let mut base_value = self.operand(base)?;
        let index = if !self.types.is_pointer(base_value.ty) && !self.types.is_string(base_value.ty)
        {
            // DTrace rewrites any other E1[E2] as *(E1 + E2) and checks that: an
            // integer indexed by a pointer (3[p]) is p[3], two integers make a value
            // that cannot be dereferenced, anything else is an incompatible `+`.
            let index = self.single_index(keys, span)?;
            let base_is_integer = self.types.is_integer(base_value.ty);
            if base_is_integer
                && self.types.is_pointer(index.ty)
                && !self.types.is_void_or_function_pointer(index.ty)
            {
                std::mem::replace(&mut base_value, index)
            } else if base_is_integer && self.types.is_integer(index.ty) {
                return Err(error(
                    ErrorTag::D_DEREF_NONPTR,
                    span,
                    "cannot dereference non-pointer type",
                ));
            } else {
                return Err(self.incompatible(&base_value, "+", &index, span));
            }
        } else {
            self.single_index(keys, span)?
        };
        if !self.types.is_integer(index.ty) {
            return Err(error(
                ErrorTag::D_OP_INT,
                &index.span,
                "operator [ ] requires an index of integral type",
            ));
        }
        let mut elements = None;
        if let TypeKind::Array { count, .. } = self.types.resolved_kind(base_value.ty) {
            let count = *count;
            if count > 1 {
                self.check_array_bounds(&index, count)?;
                elements = Some(count);
            }
        }
        let element = self
            .types
            .referenced(base_value.ty)
            .unwrap_or(self.types.well_known().char);
        self.check_dereferenceable(element, span)?;
        self.note_kernel_type_read(element);
        let address = match elements {
            Some(elements)
                if constants::constant_value(&index).is_none()
                    && in_variable_storage(&base_value) =>
            {
                TypedExpr {
                    kind: TypedExprKind::BoundedElementAddress {
                        array: Box::new(base_value),
                        index: Box::new(index),
                        elements,
                        element_size: self.types.size_of(element),
                        out_of_range: OutOfRange::ZeroedScratch,
                    },
                    ty: self.types.pointer_to(element),
                    span: span.clone(),
                }
            }
            _ => self.pointer_offset(base_value, index, element, span)?,
        };
        Ok(Place::Memory {
            address,
            ty: element,
            bit_field: None,
            space: AddressSpace::Kernel,
        })
    }

    fn single_index(&mut self, keys: &[Expr], span: &Span) -> SemaResult<TypedExpr> {
        match keys {
            [key] => self.operand(key),
            _ => Err(error(
                ErrorTag::D_ARR_BADREF,
                span,
                format!(
                    "array subscript requires exactly one index: {} given",
                    keys.len()
                ),
            )),
        }
    }

    fn check_array_bounds(&self, index: &TypedExpr, elements: u64) -> SemaResult<()> {
        if let Some(value) = constants::constant_value(index) {
            if value >= elements {
                return Err(error(
                    ErrorTag::D_ARR_BOUNDS,
                    &index.span,
                    format!(
                        "index outside array bounds: {}, max is {}",
                        value,
                        elements.saturating_sub(1)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The type of `args[i]` / `regs[i]` / `uregs[i]`.
    fn builtin_array_element_type(
        &mut self,
        array: u16,
        index: &TypedExpr,
        span: &Span,
    ) -> SemaResult<TypeId> {
        if array != builtin_array::ARGS {
            if !self.types.is_integer(index.ty) {
                return Err(error(
                    ErrorTag::D_REGS_IDX,
                    span,
                    "index for register array must be of integral type",
                ));
            }
            return Ok(self.types.well_known().uint64_t);
        }
        let Some(clause) = self.clause.clone() else {
            return Err(error(
                ErrorTag::D_ARGS_NONE,
                span,
                "args[ ] may not be referenced outside of a probe clause",
            ));
        };
        let Some(index_value) = constants::constant_value(index) else {
            return Err(error(
                ErrorTag::D_ARGS_IDX,
                span,
                "index for args[ ] must be an integer constant",
            ));
        };
        let mut signature: Option<(&str, Vec<String>)> = None;
        for (description, probes) in &clause.probes {
            for probe in probes {
                let types = self.catalog.argument_types(probe);
                match &signature {
                    None => signature = Some((description, types)),
                    Some((_, existing)) if *existing == types => {}
                    Some(_) => {
                        return Err(error(
                            ErrorTag::D_ARGS_MULTI,
                            span,
                            format!(
                                "args[ ] may not be referenced because probe description {description} matches an unstable set of probes"
                            ),
                        ))
                    }
                }
            }
        }
        let description = clause
            .probes
            .first()
            .map(|(text, _)| text.clone())
            .unwrap_or_default();
        let types = signature.map(|(_, types)| types).unwrap_or_default();
        let Some(type_name) = types.get(index_value as usize) else {
            return Err(error(
                ErrorTag::D_ARGS_IDX,
                span,
                format!(
                    "index {} is out of range for {} args[ ]",
                    index_value as i64, description
                ),
            ));
        };
        let ty = crate::types::parse_type_name(&mut self.types, type_name).map_err(|failure| {
            error(
                ErrorTag::D_ARGS_TYPE,
                span,
                format!("args[{index_value}] of {description}: {}", failure.message),
            )
        })?;
        // Arrays (a tracepoint's `char [16]`) and strings (its `__data_loc char[]`) are
        // passed as the address of their data, as D passes them everywhere else.
        let by_address = matches!(
            self.types.resolved_kind(ty),
            TypeKind::Array { .. } | TypeKind::String
        );
        if (self.types.is_by_reference(ty) && !by_address) || self.types.is_void(ty) {
            return Err(error(
                ErrorTag::D_ARGS_TYPE,
                span,
                format!("args[{index_value}] of type {type_name} cannot be passed in a register"),
            ));
        }
        Ok(ty)
    }

    /// `base.member` (`base` a struct/union value) or `base->member` (`base` a pointer).
    pub(super) fn member_place(
        &mut self,
        base: TypedExpr,
        member: &str,
        operator: &str,
        span: &Span,
    ) -> SemaResult<Place> {
        let aggregate = if operator == "->" {
            self.types.referenced(base.ty).unwrap_or(base.ty)
        } else {
            base.ty
        };
        if self.types.is_dynamic(aggregate) {
            return Err(error(
                ErrorTag::D_OP_DYN,
                span,
                format!("operator {operator} cannot be applied to a dynamic type"),
            ));
        }
        match self.types.resolved_kind(aggregate) {
            TypeKind::Struct { body: None, .. } | TypeKind::Union { body: None, .. } => {
                // dt_cook_op2() names the forward declaration as libctf does: `struct T`.
                return Err(error(
                    ErrorTag::D_OP_INCOMPLETE,
                    span,
                    format!(
                        "operator {operator} cannot be applied to a forward declaration: no {} definition is available",
                        self.type_name(self.types.resolve(aggregate))
                    ),
                ));
            }
            TypeKind::Struct { .. } | TypeKind::Union { .. } => {}
            _ => {
                return Err(error(
                    ErrorTag::D_OP_SOU,
                    span,
                    format!("operator {operator} cannot be applied to type \"{}\": must be applied to a struct or union", self.type_name(base.ty)),
                ))
            }
        }
        if operator == "->" {
            self.note_kernel_type_read(aggregate);
        }
        let Some(found) = self.types.find_member(aggregate, member) else {
            return Err(error(
                ErrorTag::D_TYPE_MEMBER,
                span,
                format!("{member} is not a member of {}", self.type_name(aggregate)),
            ));
        };
        let (byte_offset, bit_field) = match found.bit_width {
            Some(width) => {
                let (unit_start, unit_size, shift) =
                    bit_field_unit(found.bit_offset, width, self.types.size_of(found.ty));
                (
                    unit_start,
                    Some(BitField {
                        unit_size,
                        shift,
                        width,
                    }),
                )
            }
            None => (found.bit_offset / 8, None),
        };
        let pointer_type = self.types.pointer_to(found.ty);
        let offset = self.constant(byte_offset, self.types.well_known().size_t, span);
        let address = self.add_address(base, offset, pointer_type, span)?;
        Ok(Place::Memory {
            address,
            ty: found.ty,
            bit_field,
            space: AddressSpace::Kernel,
        })
    }

    /// `*pointer`.
    pub(super) fn dereference_place(
        &mut self,
        pointer: TypedExpr,
        span: &Span,
    ) -> SemaResult<Place> {
        if !self.types.is_pointer(pointer.ty) && !self.types.is_string(pointer.ty) {
            return Err(error(
                ErrorTag::D_DEREF_NONPTR,
                span,
                "cannot dereference non-pointer type",
            ));
        }
        let target = self
            .types
            .referenced(pointer.ty)
            .unwrap_or(self.types.well_known().char);
        self.check_dereferenceable(target, span)?;
        self.note_kernel_type_read(target);
        Ok(Place::Memory {
            address: pointer,
            ty: target,
            bit_field: None,
            space: AddressSpace::Kernel,
        })
    }

    /// Remembers the first kernel type the program reads kernel memory through, which
    /// only the kernel engine can do.
    fn note_kernel_type_read(&mut self, target: TypeId) {
        if self.kernel_type_read.is_none() && self.types.is_kernel_type(target) {
            self.kernel_type_read = Some(self.type_name(target));
        }
    }

    fn check_dereferenceable(&self, target: TypeId, span: &Span) -> SemaResult<()> {
        if self.types.is_void(target) {
            return Err(error(
                ErrorTag::D_DEREF_VOID,
                span,
                "cannot dereference pointer to void",
            ));
        }
        if self.types.is_function(target) {
            return Err(error(
                ErrorTag::D_DEREF_FUNC,
                span,
                "cannot dereference pointer to function",
            ));
        }
        if !self.types.is_defined(target) {
            return Err(error(
                ErrorTag::D_OP_INCOMPLETE,
                span,
                format!(
                    "cannot dereference pointer to incomplete type {}",
                    self.type_name(target)
                ),
            ));
        }
        Ok(())
    }

    /// `&expr`.
    pub(super) fn address_of(&mut self, operand: &Expr, span: &Span) -> SemaResult<TypedExpr> {
        let place = self.place(operand)?;
        match place {
            Place::Memory {
                bit_field: Some(_), ..
            } => Err(error(
                ErrorTag::D_ADDROF_BITFIELD,
                span,
                "cannot take address of bit-field",
            )),
            Place::Memory { address, ty, .. } => {
                let pointer = self.types.pointer_to(ty);
                Ok(TypedExpr {
                    ty: pointer,
                    span: span.clone(),
                    ..address
                })
            }
            Place::StaticArray {
                variable, index, ..
            } if self.is_in_memory(variable) => {
                self.static_array_element_address(variable, index, span)
            }
            // A global struct or union is by reference: its value is the address of
            // storage kept for the whole session, which `&` types as a pointer.
            Place::Variable(id) if self.is_global_struct_variable(id) => {
                let ty = self.place_type(&place);
                Ok(TypedExpr {
                    kind: TypedExprKind::Variable(id),
                    ty: self.types.pointer_to(ty),
                    span: span.clone(),
                })
            }
            Place::Variable(_)
            | Place::Associative { .. }
            | Place::StaticArray { .. }
            | Place::BuiltinArray { .. } => Err(error(
                ErrorTag::D_ADDROF_VAR,
                span,
                "cannot take address of dynamic variable",
            )),
            Place::Value(value) => {
                if self.types.is_dynamic(value.ty) {
                    return Err(error(
                        ErrorTag::D_ADDROF_VAR,
                        span,
                        "cannot take address of dynamic object",
                    ));
                }
                Err(error(
                    ErrorTag::D_ADDROF_LVAL,
                    span,
                    "unacceptable operand for unary & operator",
                ))
            }
        }
    }

    /// `pointer + index` scaled by the size of `element`.
    pub(super) fn pointer_offset(
        &mut self,
        pointer: TypedExpr,
        index: TypedExpr,
        element: TypeId,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let size = self.types.size_of(element).max(1);
        let size_constant = self.constant(size, self.types.well_known().long, span);
        let scaled = self.arithmetic_node(
            Arithmetic::Multiply,
            index,
            size_constant,
            self.types.well_known().long,
            span,
        )?;
        let result_type = if self.types.is_array(pointer.ty) || self.types.is_string(pointer.ty) {
            self.types.pointer_to(element)
        } else {
            pointer.ty
        };
        self.add_address(pointer, scaled, result_type, span)
    }

    /// `base + offset` as an address of type `ty` (folding a zero offset away).
    fn add_address(
        &mut self,
        base: TypedExpr,
        offset: TypedExpr,
        ty: TypeId,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        if constants::constant_value(&offset) == Some(0) {
            return Ok(TypedExpr { ty, ..base });
        }
        self.arithmetic_node(Arithmetic::Add, base, offset, ty, span)
    }
}

/// The bytes a bit-field is loaded from and stored to: `(first byte, size, shift)`. As
/// DTrace does, the load starts at the byte holding the field's first bit and is the
/// power-of-two size its bits need from there, so a field of a D-declared struct (which
/// starts on a byte and ends within its own storage) never touches bytes past the end
/// of the struct. A kernel bit-field too wide for one such load (more than 64 bits from
/// its byte) is loaded as an aligned unit of its declared type, as C places it.
/// Whether `address` points into a D variable's own storage (a by-reference variable,
/// an associative-array element, or a member of one), whose arrays D bounds, rather
/// than into memory a pointer reaches, which D indexes as C does.
fn in_variable_storage(address: &TypedExpr) -> bool {
    match &address.kind {
        TypedExprKind::Variable(_)
        | TypedExprKind::VariableAddress(_)
        | TypedExprKind::AssociativeElement { .. }
        | TypedExprKind::StaticArrayElement { .. }
        | TypedExprKind::BoundedElementAddress { .. } => true,
        TypedExprKind::Arithmetic {
            operator: Arithmetic::Add,
            left,
            ..
        } => in_variable_storage(left),
        _ => false,
    }
}

fn bit_field_unit(bit_offset: u64, width: u32, declared_size: u64) -> (u64, u32, u32) {
    let shift = bit_offset % 8;
    let needed = shift + u64::from(width);
    if needed <= 64 {
        let unit_size = needed.div_ceil(8).next_power_of_two();
        return (bit_offset / 8, unit_size as u32, shift as u32);
    }
    let unit_size = declared_size.clamp(1, 8);
    let unit_bits = unit_size * 8;
    let unit_start = bit_offset / unit_bits * unit_size;
    (
        unit_start,
        unit_size as u32,
        (bit_offset - unit_start * 8) as u32,
    )
}
