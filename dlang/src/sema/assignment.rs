//! Assignment, compound assignment and `++`/`--`, including the implicit declaration
//! of variables by their first assignment (§5.1) and the key signatures of
//! associative arrays.

use super::access::Place;
use super::functions;
use super::ir::{TypedExpr, TypedExprKind, VariableId};
use super::operators::is_aggregation_expression;
use super::variables::{VariableScope, VariableShape};
use super::{constants, error, Analyzer, SemaResult};
use crate::ast::{AssignmentOperator, BinaryOperator, Expr, ExprKind, UnaryOperator};
use crate::diagnostics::{Diagnostic, ErrorTag, Span};
use crate::types::{TypeId, TypeKind};

/// How a write may create a variable that does not exist yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Creation {
    /// `x = value`: the variable takes the value's type.
    Assignment(TypeId),
    /// `x++`: the variable becomes an `int`.
    Increment,
    /// `x += value`: the variable is created without a type, which is an error.
    Compound,
}

impl Analyzer<'_> {
    /// `target = value` and `target op= value`.
    pub(super) fn assignment(
        &mut self,
        operator: AssignmentOperator,
        target: &Expr,
        value: &Expr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let symbol = match operator {
            AssignmentOperator::Assign => "=".to_string(),
            AssignmentOperator::Compound(binary) => format!("{}=", binary.symbol()),
        };
        self.reject_action_operands(&symbol, &[target, value], span)?;
        if is_aggregation_expression(target) {
            let name = aggregation_name(target);
            return Err(error(
                ErrorTag::D_AGG_FUNC,
                span,
                format!("@{name} must be assigned the result of an aggregating function"),
            ));
        }
        if is_aggregation_expression(value) {
            return Err(error(
                ErrorTag::D_OP_INCOMPAT,
                span,
                format!("operator {symbol} operands cannot be aggregations"),
            ));
        }
        if let AssignmentOperator::Compound(BinaryOperator::Divide | BinaryOperator::Modulo) =
            operator
        {
            self.check_constant_divisor(value)?;
        }
        let value = self.operand(value)?;
        // A global array decays to a pointer to its first element when it creates a
        // variable or is stored in a pointer.
        let decayed = self.decayed_array(&value);
        let creation = match operator {
            AssignmentOperator::Assign => {
                Creation::Assignment(decayed.as_ref().map_or(value.ty, |decayed| decayed.ty))
            }
            AssignmentOperator::Compound(_) => Creation::Compound,
        };
        let place = self.write_target(target, &symbol, creation, span)?;
        let target_type = self.place_type(&place);
        let value = match decayed {
            Some(decayed) if self.types.is_pointer(target_type) => decayed,
            _ => value,
        };
        let is_dynamic_variable = match &place {
            Place::Associative { .. } => true,
            Place::Variable(id) => self.variables.get(*id).scope == VariableScope::ThreadLocal,
            _ => false,
        };
        let new_value = match operator {
            AssignmentOperator::Assign => value,
            AssignmentOperator::Compound(binary) => {
                let current = self.read_place(place.clone(), &target.span);
                self.binary_values(binary, current, value, span)?
            }
        };
        let lvalue = self.place_lvalue(place, &symbol, span)?;
        // Assigning 0 to a dynamic variable deletes it, whatever its type.
        let deletes = is_dynamic_variable
            && operator == AssignmentOperator::Assign
            && matches!(new_value.kind, TypedExprKind::Integer(0))
            && self.types.is_integer(new_value.ty);
        if !self.types.is_string(target_type)
            && matches!(
                self.types.resolved_kind(target_type),
                TypeKind::Array { .. } | TypeKind::Function { .. }
            )
            && !deletes
        {
            return Err(error(
                ErrorTag::D_OP_ARRFUN,
                span,
                format!(
                    "operator {symbol} may not be applied to operand of type \"{}\"",
                    self.type_name(target_type)
                ),
            ));
        }
        if !deletes && !self.is_argument_compatible(target_type, &new_value) {
            return Err(error(
                ErrorTag::D_OP_INCOMPAT,
                span,
                format!(
                    "operands have incompatible types: \"{}\" {symbol} \"{}\"",
                    self.type_name(target_type),
                    self.type_name(new_value.ty)
                ),
            ));
        }
        let new_value = if deletes {
            new_value
        } else {
            self.convert(new_value, target_type)
        };
        Ok(TypedExpr {
            kind: TypedExprKind::Assign {
                target: lvalue,
                value: Box::new(new_value),
            },
            ty: target_type,
            span: span.clone(),
        })
    }

    /// `value`, a whole global array, as a pointer to its first element (`None` for
    /// other values; an array member of a struct stays an array, which the assignment
    /// refuses as DTrace does).
    fn decayed_array(&mut self, value: &TypedExpr) -> Option<TypedExpr> {
        if !matches!(value.kind, TypedExprKind::VariableAddress(_)) {
            return None;
        }
        let TypeKind::Array { element, .. } = *self.types.resolved_kind(value.ty) else {
            return None;
        };
        let pointer = self.types.pointer_to(element);
        Some(TypedExpr {
            ty: pointer,
            ..value.clone()
        })
    }

    /// `++x`, `x++`, `--x`, `x--`.
    pub(super) fn increment(
        &mut self,
        operator: UnaryOperator,
        operand: &Expr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let increment = matches!(
            operator,
            UnaryOperator::PreIncrement | UnaryOperator::PostIncrement
        );
        let postfix = matches!(
            operator,
            UnaryOperator::PostIncrement | UnaryOperator::PostDecrement
        );
        let symbol = if increment { "++" } else { "--" };
        let place = self.write_target(operand, symbol, Creation::Increment, span)?;
        let ty = self.place_type(&place);
        if !self.types.is_scalar(ty) {
            return Err(error(
                ErrorTag::D_OP_SCALAR,
                span,
                format!("operator {symbol} requires operand of scalar type"),
            ));
        }
        if self.types.is_void_or_function_pointer(ty) {
            return Err(error(
                ErrorTag::D_OP_VFPTR,
                span,
                format!("operator {symbol} requires an operand of known size"),
            ));
        }
        let step = match self.types.resolved_kind(ty) {
            TypeKind::Pointer { target } => self.types.size_of(*target) as i64,
            _ => 1,
        };
        let delta = if increment { step } else { -step };
        let target = self.place_lvalue(place, symbol, span)?;
        Ok(TypedExpr {
            kind: TypedExprKind::Increment {
                target,
                delta,
                postfix,
            },
            ty,
            span: span.clone(),
        })
    }

    /// Resolves the target of a write, creating the variable it names when the write
    /// may do so.
    fn write_target(
        &mut self,
        target: &Expr,
        symbol: &str,
        creation: Creation,
        span: &Span,
    ) -> SemaResult<Place> {
        match &target.kind {
            ExprKind::Identifier(name) if self.inline_parameter(name).is_none() => {
                // An integer constant (an enumerator, an inline of a constant value)
                // is no lvalue; any other inline is a variable that cannot be written.
                if self.is_constant_identifier(name) {
                    return Err(error(
                        ErrorTag::D_OP_LVAL,
                        span,
                        format!("operator {symbol} requires modifiable lvalue as an operand"),
                    ));
                }
                if self.inlines.contains_key(name) {
                    return Err(error(
                        ErrorTag::D_OP_WRITE,
                        span,
                        format!("operator {symbol} can only be applied to a writable variable"),
                    ));
                }
                let id = match self.variables.global(name) {
                    Some(id) => id,
                    None => self.create_scalar(name, VariableScope::Global, creation, span)?,
                };
                self.writable_scalar(id, symbol, creation, span)
            }
            ExprKind::ThreadLocal(name) => {
                let id = match self.variables.thread_local(name) {
                    Some(id) => id,
                    None => self.create_scalar(name, VariableScope::ThreadLocal, creation, span)?,
                };
                self.writable_scalar(id, symbol, creation, span)
            }
            ExprKind::ClauseLocal(name) => {
                let id = match self.variables.clause_local(name) {
                    Some(id) if !self.clause_local_retyped(id, creation, span) => id,
                    _ => {
                        let id =
                            self.create_scalar(name, VariableScope::ClauseLocal, creation, span)?;
                        self.variables.get_mut(id).origin_clause = Some(self.clauses.len() as u32);
                        id
                    }
                };
                self.writable_scalar(id, symbol, creation, span)
            }
            ExprKind::Index { base, keys } => {
                let (existing, scope) = match &base.kind {
                    ExprKind::Identifier(name)
                        if self.inline_parameter(name).is_none()
                            && !self.inlines.contains_key(name) =>
                    {
                        (
                            Some((name, self.variables.global(name))),
                            VariableScope::Global,
                        )
                    }
                    ExprKind::ThreadLocal(name) => (
                        Some((name, self.variables.thread_local(name))),
                        VariableScope::ThreadLocal,
                    ),
                    _ => (None, VariableScope::Global),
                };
                match existing {
                    Some((name, None)) => {
                        let keys = self.analyze_keys(keys)?;
                        let id = self.variables.create(
                            name,
                            scope,
                            VariableShape::Associative { keys: None },
                            None,
                            false,
                        )?;
                        let keys = self.check_keys(id, keys, span)?;
                        self.give_array_type(id, creation, span)?;
                        Ok(Place::Associative { variable: id, keys })
                    }
                    Some((_, Some(id)))
                        if matches!(
                            self.variables.get(id).shape,
                            VariableShape::Associative { .. }
                        ) =>
                    {
                        let keys = self.analyze_keys(keys)?;
                        let keys = self.check_keys(id, keys, span)?;
                        self.give_array_type(id, creation, span)?;
                        Ok(Place::Associative { variable: id, keys })
                    }
                    _ => {
                        let place = self.place(target)?;
                        // An element of an inline array (`inline int a[int i] = ...`),
                        // once its keys check, is a variable that may not be written.
                        if let ExprKind::Identifier(name) = &base.kind {
                            if self.inline_parameter(name).is_none()
                                && self.inlines.contains_key(name)
                            {
                                return Err(error(
                                    ErrorTag::D_OP_WRITE,
                                    span,
                                    format!(
                                        "operator {symbol} can only be applied to a writable variable"
                                    ),
                                ));
                            }
                        }
                        Ok(place)
                    }
                }
            }
            _ => {
                if let ExprKind::Aggregation(name) = &target.kind {
                    return Err(error(
                        ErrorTag::D_AGG_FUNC,
                        span,
                        format!("@{name} must be assigned the result of an aggregating function"),
                    ));
                }
                self.place(target)
            }
        }
    }

    /// True when an assignment in a later clause gives an implicitly created
    /// clause-local a type incompatible with the one an earlier clause gave it: the
    /// later clause then gets a variable of its own with the same name, as each clause
    /// has its own clause-locals in classic DTrace.
    fn clause_local_retyped(&self, id: VariableId, creation: Creation, span: &Span) -> bool {
        let variable = self.variables.get(id);
        let (Creation::Assignment(ty), Some(current), Some(origin)) =
            (creation, variable.ty, variable.origin_clause)
        else {
            return false;
        };
        !variable.declared
            && origin != self.clauses.len() as u32
            && !self.is_argument_compatible(current, &self.placeholder(ty, span))
    }

    /// Creates a scalar variable by its first write.
    fn create_scalar(
        &mut self,
        name: &str,
        scope: VariableScope,
        creation: Creation,
        span: &Span,
    ) -> SemaResult<VariableId> {
        let ty = match creation {
            Creation::Assignment(ty) => {
                self.check_object_type(name, ty, span)?;
                Some(ty)
            }
            Creation::Increment => Some(self.types.well_known().int),
            Creation::Compound => None,
        };
        self.variables
            .create(name, scope, VariableShape::Scalar, ty, false)
    }

    /// D_DECL_VOIDOBJ / D_DECL_DYNOBJ for variables that would get a type no object
    /// may have.
    pub(super) fn check_object_type(&self, name: &str, ty: TypeId, span: &Span) -> SemaResult<()> {
        if self.types.is_void(ty) {
            // A variable that takes the `void` of an action called in the expression
            // (`x = count()`) is the code generator's refusal of that call in DTrace.
            if let Some(refused) = &self.deferred_expression_call {
                return Err(refused.clone());
            }
            return Err(error(
                ErrorTag::D_DECL_VOIDOBJ,
                span,
                format!("cannot have void object: {name}"),
            ));
        }
        if self.types.is_dynamic(ty) {
            return Err(error(
                ErrorTag::D_DECL_DYNOBJ,
                span,
                format!("cannot have dynamic object: {name}"),
            ));
        }
        if self.types.is_internal(ty) {
            return Err(error(
                ErrorTag::D_DECL_DYNOBJ,
                span,
                format!("cannot have object of type {}: {name}", self.type_name(ty)),
            ));
        }
        Ok(())
    }

    /// Whether `name` is an enumerator or an inline whose value DTrace's parser folds
    /// into an integer constant, which dt_node_ident() then puts in its place.
    fn is_constant_identifier(&self, name: &str) -> bool {
        if self.types.find_enumerator(name).is_some() {
            return true;
        }
        self.inlines.get(name).is_some_and(|inline| {
            inline.parameters.is_empty()
                && self.types.is_integer(inline.ty)
                && constants::folds_to_constant(&inline.definition.value, &|name| {
                    self.is_constant_identifier(name)
                })
        })
    }

    /// The place of a scalar variable being written, giving it a type if the write
    /// is its first assignment.
    fn writable_scalar(
        &mut self,
        id: VariableId,
        symbol: &str,
        creation: Creation,
        span: &Span,
    ) -> SemaResult<Place> {
        let variable = self.variables.get(id);
        if variable.scope == VariableScope::Builtin {
            return Err(error(
                ErrorTag::D_OP_WRITE,
                span,
                format!("operator {symbol} can only be applied to a writable variable"),
            ));
        }
        if let (VariableShape::StaticArray { elements }, "=") = (&variable.shape, symbol) {
            // A scalar array is a variable of array type, which `=` cannot store into.
            let element = variable.ty.unwrap_or(self.types.well_known().int);
            let array = self.types.array_of(element, *elements);
            return Err(error(
                ErrorTag::D_OP_ARRFUN,
                span,
                format!(
                    "operator = may not be applied to operand of type \"{}\"",
                    self.type_name(array)
                ),
            ));
        }
        if let (VariableShape::StaticArray { .. }, "++" | "--") = (&variable.shape, symbol) {
            return Err(error(
                ErrorTag::D_OP_SCALAR,
                span,
                format!("operator {symbol} requires operand of scalar type"),
            ));
        }
        if !matches!(variable.shape, VariableShape::Scalar) {
            return Err(error(
                ErrorTag::D_IDENT_BADREF,
                span,
                format!(
                    "array {} may not be referenced without a subscript",
                    variable.display_name()
                ),
            ));
        }
        if variable.ty.is_none() {
            match creation {
                Creation::Assignment(ty) => {
                    let name = variable.name.clone();
                    self.check_object_type(&name, ty, span)?;
                    self.variables.get_mut(id).ty = Some(ty);
                }
                Creation::Increment => {
                    self.variables.get_mut(id).ty = Some(self.types.well_known().int)
                }
                Creation::Compound => {
                    return Err(self.not_yet_assigned(&variable.display_name(), span))
                }
            }
        }
        if self.is_in_memory(id) {
            return Ok(self.memory_variable_place(id, span));
        }
        Ok(Place::Variable(id))
    }

    /// Gives an associative array its value type on its first assignment.
    fn give_array_type(
        &mut self,
        id: VariableId,
        creation: Creation,
        span: &Span,
    ) -> SemaResult<()> {
        if self.variables.get(id).ty.is_some() {
            return Ok(());
        }
        match creation {
            Creation::Assignment(ty) => {
                let name = self.variables.get(id).name.clone();
                self.check_object_type(&name, ty, span)?;
                self.variables.get_mut(id).ty = Some(ty);
                Ok(())
            }
            Creation::Increment => {
                self.variables.get_mut(id).ty = Some(self.types.well_known().int);
                Ok(())
            }
            Creation::Compound => {
                Err(self.not_yet_assigned(&self.variables.get(id).display_name(), span))
            }
        }
    }

    /// Types the keys of an associative-array reference.
    fn analyze_keys(&mut self, keys: &[Expr]) -> SemaResult<Vec<TypedExpr>> {
        keys.iter().map(|key| self.operand(key)).collect()
    }

    /// Types keys and checks them against an array's signature (reads).
    pub(super) fn associative_keys(
        &mut self,
        id: VariableId,
        keys: &[Expr],
        span: &Span,
        _creating: bool,
    ) -> SemaResult<Vec<TypedExpr>> {
        let keys = self.analyze_keys(keys)?;
        self.check_keys(id, keys, span)
    }

    /// Checks keys against the array's key signature, fixing the signature on first
    /// use.
    fn check_keys(
        &mut self,
        id: VariableId,
        keys: Vec<TypedExpr>,
        span: &Span,
    ) -> SemaResult<Vec<TypedExpr>> {
        for (index, key) in keys.iter().enumerate() {
            if self.types.is_void(key.ty) || self.types.is_dynamic(key.ty) {
                let kind = if self.types.is_void(key.ty) {
                    "void"
                } else {
                    "dynamic"
                };
                return Err(error(
                    ErrorTag::D_KEY_TYPE,
                    &key.span,
                    format!(
                        "{kind} expression may not be used as associative array index: key #{}",
                        index + 1
                    ),
                ));
            }
        }
        let variable = self.variables.get(id);
        let prefix = match variable.scope {
            VariableScope::ThreadLocal => "self->",
            _ => "",
        };
        let name = format!("{prefix}{}[ ]", variable.name);
        match &variable.shape {
            VariableShape::Associative { keys: None } => {
                let signature = keys.iter().map(|key| key.ty).collect();
                self.variables.get_mut(id).shape = VariableShape::Associative {
                    keys: Some(signature),
                };
                Ok(keys)
            }
            VariableShape::Associative {
                keys: Some(signature),
            } => {
                let signature = signature.clone();
                if signature.len() != keys.len() {
                    return Err(prototype_mismatch(&name, keys.len(), signature.len(), span));
                }
                for (index, (expected, key)) in signature.iter().zip(&keys).enumerate() {
                    if !self.is_argument_compatible(*expected, key) {
                        return Err(functions::incompatible_argument(
                            &name,
                            index + 1,
                            &self.type_name(*expected),
                            &self.type_name(key.ty),
                            true,
                            &key.span,
                        ));
                    }
                }
                Ok(keys)
            }
            _ => Ok(keys),
        }
    }
}

/// D_PROTO_LEN for a key count mismatch.
pub(super) fn prototype_mismatch(
    name: &str,
    passed: usize,
    expected: usize,
    span: &Span,
) -> Diagnostic {
    error(
        ErrorTag::D_PROTO_LEN,
        span,
        format!(
            "{name} prototype mismatch: {passed} key{}passed, {expected} expected",
            if passed == 1 { " " } else { "s " }
        ),
    )
}

/// The name of `@a` or `@a[...]`.
pub(super) fn aggregation_name(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Aggregation(name) => name.clone(),
        ExprKind::Index { base, .. } => aggregation_name(base),
        _ => String::new(),
    }
}
