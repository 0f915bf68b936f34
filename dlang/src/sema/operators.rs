//! Binary operators, `?:` and casts with D's typing rules (§3.4, §4): the rank-based
//! promotion, pointer arithmetic, string comparison, and the conversions D inserts
//! when a value changes type.

use super::ir::{Arithmetic, Comparison, ComparisonKind, Logical, TypedExpr, TypedExprKind};
use super::{constants, error, Analyzer, SemaResult};
use crate::ast::{BinaryOperator, Expr, ExprKind, TypeName};
use crate::diagnostics::{ErrorTag, Span};
use crate::types::{TypeId, TypeKind};

impl Analyzer<'_> {
    /// A binary operator expression.
    pub(super) fn binary(
        &mut self,
        operator: BinaryOperator,
        left: &Expr,
        right: &Expr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let symbol = operator.symbol();
        self.reject_action_operands(symbol, &[left, right], span)?;
        for operand in [left, right] {
            if is_aggregation_expression(operand) {
                return Err(error(
                    ErrorTag::D_OP_INCOMPAT,
                    span,
                    format!("operator {symbol} operands cannot be aggregations"),
                ));
            }
        }
        if matches!(operator, BinaryOperator::Divide | BinaryOperator::Modulo) {
            self.check_constant_divisor(right)?;
        }
        let left_value = self.operand(left)?;
        if is_comparison(operator) {
            self.check_enum_ambiguity(symbol, &left_value, right, span)?;
        }
        let right_value = self.operand(right)?;
        self.binary_values(operator, left_value, right_value, span)
    }

    /// Applies a binary operator to typed operands (also used by compound assignment).
    pub(super) fn binary_values(
        &mut self,
        operator: BinaryOperator,
        left: TypedExpr,
        right: TypedExpr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let symbol = operator.symbol();
        match operator {
            BinaryOperator::Comma => {
                let ty = right.ty;
                Ok(TypedExpr {
                    kind: TypedExprKind::Comma {
                        left: Box::new(left),
                        right: Box::new(right),
                    },
                    ty,
                    span: span.clone(),
                })
            }
            BinaryOperator::Multiply | BinaryOperator::Divide => {
                if !self.types.is_integer(left.ty) || !self.types.is_integer(right.ty) {
                    return Err(error(
                        ErrorTag::D_OP_ARITH,
                        span,
                        format!("operator {symbol} requires operands of arithmetic type"),
                    ));
                }
                let ty = self.promote(left.ty, right.ty);
                let signed = self.types.is_signed(ty);
                let operation = match (operator, signed) {
                    (BinaryOperator::Multiply, _) => Arithmetic::Multiply,
                    (_, true) => Arithmetic::DivideSigned,
                    (_, false) => Arithmetic::DivideUnsigned,
                };
                self.arithmetic_node(operation, left, right, ty, span)
            }
            BinaryOperator::Modulo
            | BinaryOperator::BitwiseAnd
            | BinaryOperator::BitwiseOr
            | BinaryOperator::BitwiseXor
            | BinaryOperator::ShiftLeft
            | BinaryOperator::ShiftRight => {
                if !self.types.is_integer(left.ty) || !self.types.is_integer(right.ty) {
                    return Err(error(
                        ErrorTag::D_OP_INT,
                        span,
                        format!("operator {symbol} requires operands of integral type"),
                    ));
                }
                let shift = matches!(
                    operator,
                    BinaryOperator::ShiftLeft | BinaryOperator::ShiftRight
                );
                let ty = if shift {
                    left.ty
                } else {
                    self.promote(left.ty, right.ty)
                };
                let signed = self.types.is_signed(ty);
                let operation = match operator {
                    BinaryOperator::Modulo if signed => Arithmetic::RemainderSigned,
                    BinaryOperator::Modulo => Arithmetic::RemainderUnsigned,
                    BinaryOperator::BitwiseAnd => Arithmetic::And,
                    BinaryOperator::BitwiseOr => Arithmetic::Or,
                    BinaryOperator::BitwiseXor => Arithmetic::Xor,
                    BinaryOperator::ShiftLeft => Arithmetic::ShiftLeft,
                    _ if signed => Arithmetic::ShiftRightArithmetic,
                    _ => Arithmetic::ShiftRightLogical,
                };
                self.arithmetic_node(operation, left, right, ty, span)
            }
            BinaryOperator::Add | BinaryOperator::Subtract => {
                self.additive(operator, left, right, span)
            }
            BinaryOperator::Less
            | BinaryOperator::LessEqual
            | BinaryOperator::Greater
            | BinaryOperator::GreaterEqual
            | BinaryOperator::Equal
            | BinaryOperator::NotEqual => self.comparison(operator, left, right, span),
            BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr | BinaryOperator::LogicalXor => {
                if !self.types.is_scalar(left.ty) || !self.types.is_scalar(right.ty) {
                    return Err(error(
                        ErrorTag::D_OP_SCALAR,
                        span,
                        format!("operator {symbol} requires operands of scalar type"),
                    ));
                }
                let logical = match operator {
                    BinaryOperator::LogicalAnd => Logical::And,
                    BinaryOperator::LogicalOr => Logical::Or,
                    _ => Logical::Xor,
                };
                if let (Some(a), Some(b)) = (
                    constants::constant_value(&left),
                    constants::constant_value(&right),
                ) {
                    let (a, b) = (a != 0, b != 0);
                    let value = match logical {
                        Logical::And => a && b,
                        Logical::Or => a || b,
                        Logical::Xor => a != b,
                    };
                    return Ok(self.int_constant(i64::from(value), span));
                }
                Ok(TypedExpr {
                    kind: TypedExprKind::Logical {
                        operator: logical,
                        left: Box::new(left),
                        right: Box::new(right),
                    },
                    ty: self.types.well_known().int,
                    span: span.clone(),
                })
            }
        }
    }

    /// `+` and `-` with D's pointer rules: strings and pointers may be offset by
    /// integers, and two compatible pointers subtracted.
    fn additive(
        &mut self,
        operator: BinaryOperator,
        left: TypedExpr,
        right: TypedExpr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let is_pointer_like = |analyzer: &Self, ty: TypeId| {
            analyzer.types.is_string(ty)
                || (analyzer.types.is_pointer(ty)
                    && !analyzer.types.is_void_or_function_pointer(ty))
        };
        let left_pointer = is_pointer_like(self, left.ty);
        let right_pointer = is_pointer_like(self, right.ty);
        let left_integer = self.types.is_integer(left.ty);
        let right_integer = self.types.is_integer(right.ty);
        let subtract = operator == BinaryOperator::Subtract;
        if left_integer && right_integer {
            let ty = self.promote(left.ty, right.ty);
            let operation = if subtract {
                Arithmetic::Subtract
            } else {
                Arithmetic::Add
            };
            return self.arithmetic_node(operation, left, right, ty, span);
        }
        if left_pointer && right_integer {
            let element = self
                .types
                .referenced(left.ty)
                .unwrap_or(self.types.well_known().char);
            let index = if subtract {
                let zero = self.int_constant(0, span);
                let ty = right.ty;
                self.arithmetic_node(Arithmetic::Subtract, zero, right, ty, span)?
            } else {
                right
            };
            let result_type = left.ty;
            let result = self.pointer_offset(left, index, element, span)?;
            return Ok(TypedExpr {
                ty: result_type,
                ..result
            });
        }
        if left_integer && right_pointer && !subtract {
            let element = self
                .types
                .referenced(right.ty)
                .unwrap_or(self.types.well_known().char);
            return self.pointer_offset(right, left, element, span);
        }
        if left_pointer
            && right_pointer
            && subtract
            && self.pointer_compatible(&left, &right).is_some()
        {
            let element = self
                .types
                .referenced(left.ty)
                .unwrap_or(self.types.well_known().char);
            let size = self.types.size_of(element).max(1);
            let ptrdiff = self.types.well_known().ptrdiff_t;
            let difference =
                self.arithmetic_node(Arithmetic::Subtract, left, right, ptrdiff, span)?;
            if size == 1 {
                return Ok(difference);
            }
            let divisor = self.constant(size, ptrdiff, span);
            return self.arithmetic_node(
                Arithmetic::DivideSigned,
                difference,
                divisor,
                ptrdiff,
                span,
            );
        }
        Err(self.incompatible(&left, operator.symbol(), &right, span))
    }

    fn comparison(
        &mut self,
        operator: BinaryOperator,
        left: TypedExpr,
        right: TypedExpr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let comparison = match operator {
            BinaryOperator::Less => Comparison::Less,
            BinaryOperator::LessEqual => Comparison::LessEqual,
            BinaryOperator::Greater => Comparison::Greater,
            BinaryOperator::GreaterEqual => Comparison::GreaterEqual,
            BinaryOperator::Equal => Comparison::Equal,
            _ => Comparison::NotEqual,
        };
        let kind = if self.types.is_integer(left.ty) && self.types.is_integer(right.ty) {
            if self.types.is_signed(self.promote(left.ty, right.ty)) {
                ComparisonKind::Signed
            } else {
                ComparisonKind::Unsigned
            }
        } else if self.types.is_string_compatible(left.ty)
            && self.types.is_string_compatible(right.ty)
            && (self.types.is_string(left.ty) || self.types.is_string(right.ty))
        {
            ComparisonKind::Strings
        } else if self.pointer_compatible(&left, &right).is_some()
            || self.is_string_null_comparison(&left, &right)
            || (self.types.is_same_internal(left.ty, right.ty))
        {
            ComparisonKind::Unsigned
        } else {
            return Err(self.incompatible(&left, operator.symbol(), &right, span));
        };
        if let (Some(a), Some(b)) = (
            constants::constant_value(&left),
            constants::constant_value(&right),
        ) {
            return Ok(self.int_constant(
                constants::fold_comparison(comparison, kind, a, b) as i64,
                span,
            ));
        }
        Ok(TypedExpr {
            kind: TypedExprKind::Compare {
                operator: comparison,
                kind,
                left: Box::new(left),
                right: Box::new(right),
            },
            ty: self.types.well_known().int,
            span: span.clone(),
        })
    }

    /// D_IDENT_AMBIG: the right operand of a comparison with an enum names both an
    /// enumerator of that enum and a global variable.
    fn check_enum_ambiguity(
        &self,
        symbol: &str,
        left: &TypedExpr,
        right: &Expr,
        span: &Span,
    ) -> SemaResult<()> {
        let ExprKind::Identifier(name) = &right.kind else {
            return Ok(());
        };
        if !matches!(self.types.resolved_kind(left.ty), TypeKind::Enum { .. }) {
            return Ok(());
        }
        let is_enumerator = self
            .types
            .enumerators(left.ty)
            .iter()
            .any(|(enumerator, _)| enumerator == name);
        if let (true, Some(id)) = (is_enumerator, self.variables.global(name)) {
            let variable_type = self
                .variables
                .get(id)
                .ty
                .map(|ty| self.type_name(ty))
                .unwrap_or_default();
            return Err(error(
                ErrorTag::D_IDENT_AMBIG,
                span,
                format!(
                    "ambiguous use of operator {symbol}: {name} is both a {} enum tag and a global {variable_type}",
                    self.type_name(left.ty)
                ),
            ));
        }
        Ok(())
    }

    /// `condition ? then_value : else_value`.
    pub(super) fn conditional(
        &mut self,
        condition: &Expr,
        then_value: &Expr,
        else_value: &Expr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        for operand in [condition, then_value, else_value] {
            if self.reject_action_operands("?:", &[operand], span).is_err() {
                return Err(error(
                    ErrorTag::D_OP_ACT,
                    span,
                    "action cannot be used in a conditional context",
                ));
            }
        }
        let condition = self.operand(condition)?;
        if !self.types.is_scalar(condition.ty) {
            return Err(error(
                ErrorTag::D_OP_SCALAR,
                span,
                "operator ?: expression must be of scalar type",
            ));
        }
        let then_value = self.operand(then_value)?;
        let else_value = self.operand(else_value)?;
        if self.types.is_dynamic(then_value.ty) || self.types.is_dynamic(else_value.ty) {
            return Err(error(
                ErrorTag::D_OP_DYN,
                span,
                "operator ?: operands cannot be of dynamic type",
            ));
        }
        let ty = if self.types.is_integer(then_value.ty) && self.types.is_integer(else_value.ty) {
            self.promote(then_value.ty, else_value.ty)
        } else if self.types.same_type(then_value.ty, else_value.ty) {
            then_value.ty
        } else if self.types.is_string_compatible(then_value.ty)
            && self.types.is_string_compatible(else_value.ty)
            && (self.types.is_string(then_value.ty) || self.types.is_string(else_value.ty))
        {
            self.types.well_known().string
        } else if let Some(ty) = self.pointer_compatible(&then_value, &else_value) {
            ty
        } else {
            return Err(error(
                ErrorTag::D_OP_INCOMPAT,
                span,
                "operator ?: operands must have compatible types",
            ));
        };
        if let Some(value) = constants::constant_value(&condition) {
            let chosen = if value != 0 { then_value } else { else_value };
            return Ok(TypedExpr {
                ty,
                span: span.clone(),
                ..chosen
            });
        }
        Ok(TypedExpr {
            kind: TypedExprKind::Conditional {
                condition: Box::new(condition),
                then_value: Box::new(then_value),
                else_value: Box::new(else_value),
            },
            ty,
            span: span.clone(),
        })
    }

    /// `(type) operand`.
    pub(super) fn cast(
        &mut self,
        type_name: &TypeName,
        operand: &Expr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        self.reject_action_operands("( )", &[operand], span)?;
        let ty = self.type_from_type_name(type_name)?;
        let value = self.operand(operand)?;
        let to_string = self.types.is_string(ty);
        let allowed = self.types.is_void(ty)
            || (self.types.is_scalar(ty) && self.types.is_scalar(value.ty))
            || (to_string && self.types.is_string_compatible(value.ty))
            // `(string)copyin(addr, n)`: any pointer may be read as a string, and D adds
            // casts from integers to strings, which read the string at that address
            // (`(string)arg0`), as a cast of the integer to `char *` would.
            || (to_string && self.types.is_pointer(value.ty))
            || (to_string && self.types.is_integer(value.ty))
            || (self.types.is_pointer(ty) && self.types.is_string_compatible(value.ty))
            // An array casts to any pointer, as in C (dt_cook_op2's "from arrays to
            // pointers"): the pointer is the array's address.
            || (matches!(self.types.resolved_kind(ty), TypeKind::Pointer { .. })
                && self.types.is_array(value.ty))
            || self.types.same_type(ty, value.ty);
        if !allowed {
            return Err(error(
                ErrorTag::D_CAST_INVAL,
                span,
                format!(
                    "invalid cast expression: \"{}\" to \"{}\"",
                    self.type_name(value.ty),
                    self.type_name(ty)
                ),
            ));
        }
        let converted = self.convert(value, ty);
        Ok(TypedExpr {
            span: span.clone(),
            ..converted
        })
    }

    /// Converts `value` to `to`, inserting the narrowing or sign extension classic
    /// DTrace's code generator applies (dt_cg_typecast); non-scalars are retyped.
    pub(super) fn convert(&mut self, value: TypedExpr, to: TypeId) -> TypedExpr {
        if !self.types.is_scalar(to) || !self.types.is_scalar(value.ty) {
            return TypedExpr { ty: to, ..value };
        }
        let (source_size, source_signed) = self.types.scalar_access(value.ty);
        let (target_size, target_signed) = self.types.scalar_access(to);
        let source_signed = source_signed && self.types.is_integer(value.ty);
        let target_signed = target_signed && self.types.is_integer(to);
        if target_size == source_size && source_signed == target_signed {
            return TypedExpr { ty: to, ..value };
        }
        if target_size > source_size && !source_signed {
            return TypedExpr { ty: to, ..value };
        }
        let span = value.span.clone();
        let mut result = value;
        if target_size > source_size {
            // Sign-extend from the source width, then cut to an unsigned target width.
            result = narrow(result, source_size, true, to);
            if !target_signed && target_size < 8 {
                result = narrow(result, target_size, false, to);
            }
        } else if target_size < 8 {
            result = narrow(result, target_size, target_signed, to);
        }
        TypedExpr {
            ty: to,
            span,
            ..result
        }
    }

    /// D's promotion of two integer operands: the higher rank wins (§3.4).
    pub(super) fn promote(&self, left: TypeId, right: TypeId) -> TypeId {
        let int = self.types.well_known().int;
        let left = if matches!(self.types.resolved_kind(left), TypeKind::Enum { .. }) {
            int
        } else {
            left
        };
        let right = if matches!(self.types.resolved_kind(right), TypeKind::Enum { .. }) {
            int
        } else {
            right
        };
        let (left_base, right_base) = (self.types.resolve(left), self.types.resolve(right));
        if left_base == right_base {
            return left;
        }
        let (left_rank, right_rank) = (
            self.types.integer_rank(left),
            self.types.integer_rank(right),
        );
        match left_rank.cmp(&right_rank) {
            std::cmp::Ordering::Greater => left,
            std::cmp::Ordering::Less => right,
            std::cmp::Ordering::Equal => {
                if left_base < right_base {
                    right
                } else {
                    left
                }
            }
        }
    }

    /// Pointer compatibility (dt_node_is_ptrcompat): both pointers to compatible types
    /// (or one to void), or one a pointer and the other the constant 0. Returns the
    /// result type.
    pub(super) fn pointer_compatible(&self, left: &TypedExpr, right: &TypedExpr) -> Option<TypeId> {
        let is_zero = |value: &TypedExpr| self.is_null_pointer_constant(value);
        if self.types.is_pointer(left.ty) && is_zero(right) {
            return Some(left.ty);
        }
        if self.types.is_pointer(right.ty) && is_zero(left) {
            return Some(right.ty);
        }
        if !self.types.is_pointer(left.ty) || !self.types.is_pointer(right.ty) {
            return None;
        }
        let left_target = self.types.referenced(left.ty)?;
        let right_target = self.types.referenced(right.ty)?;
        if self.types.is_void(left_target) {
            return Some(right.ty);
        }
        if self.types.is_void(right_target) || self.types.same_type(left_target, right_target) {
            return Some(left.ty);
        }
        None
    }

    /// Whether `value` is a null pointer constant for dt_node_is_ptrcompat(): an integer
    /// constant node of value 0. An enumerator is an identifier node there, not an
    /// integer constant, so `A == "a"` is D_OP_INCOMPAT even when A is 0.
    fn is_null_pointer_constant(&self, value: &TypedExpr) -> bool {
        self.types.is_integer(value.ty)
            && !matches!(self.types.resolved_kind(value.ty), TypeKind::Enum { .. })
            && constants::constant_value(value) == Some(0)
    }

    /// Whether one operand is a `string` and the other a null pointer constant (the
    /// integer constant 0) or a `void *` such as `NULL`. DTrace's `string` is a character
    /// array, so its pointer rules allow these; the comparison is of addresses, which
    /// tells a string that is a null pointer (`strstr()` finding nothing) from any
    /// other, the empty string included. Any other integer stays D_OP_INCOMPAT.
    fn is_string_null_comparison(&self, left: &TypedExpr, right: &TypedExpr) -> bool {
        let is_null = |value: &TypedExpr| {
            if self.types.is_integer(value.ty) {
                return self.is_null_pointer_constant(value);
            }
            self.types.is_pointer(value.ty)
                && self
                    .types
                    .referenced(value.ty)
                    .is_some_and(|target| self.types.is_void(target))
        };
        (self.types.is_string(left.ty) && is_null(right))
            || (self.types.is_string(right.ty) && is_null(left))
    }

    /// Whether `value` may be assigned or passed where `target` is expected
    /// (dt_node_is_argcompat).
    pub(super) fn is_argument_compatible(&self, target: TypeId, value: &TypedExpr) -> bool {
        let types = &self.types;
        if types.is_integer(target) && types.is_integer(value.ty) {
            return true;
        }
        if types.is_string_compatible(target) && types.is_string_compatible(value.ty) {
            return true;
        }
        if types.is_same_internal(target, value.ty) {
            return true;
        }
        match types.resolved_kind(target) {
            TypeKind::Function { .. } | TypeKind::Struct { .. } | TypeKind::Union { .. } => {
                types.same_type(target, value.ty)
            }
            // An array or a string (D's `char [strsize]`) is its first element's
            // address to dt_node_is_ptrcompat(): `bcopy("hello", p, 6)`.
            TypeKind::Pointer { target: referenced }
                if types.is_array(value.ty) || types.is_string(value.ty) =>
            {
                let element = types.referenced(value.ty);
                types.is_void(*referenced)
                    || element.is_some_and(|element| types.same_type(*referenced, element))
            }
            _ => {
                let target_value = TypedExpr {
                    kind: TypedExprKind::String(Vec::new()),
                    ty: target,
                    span: value.span.clone(),
                };
                self.pointer_compatible(&target_value, value).is_some()
            }
        }
    }

    /// The D_OP_INCOMPAT diagnostic for `left operator right`.
    pub(super) fn incompatible(
        &self,
        left: &TypedExpr,
        symbol: &str,
        right: &TypedExpr,
        span: &Span,
    ) -> crate::diagnostics::Diagnostic {
        error(
            ErrorTag::D_OP_INCOMPAT,
            span,
            format!(
                "operands have incompatible types: \"{}\" {symbol} \"{}\"",
                self.type_name(left.ty),
                self.type_name(right.ty)
            ),
        )
    }
}

fn narrow(value: TypedExpr, size: u32, signed: bool, ty: TypeId) -> TypedExpr {
    if let TypedExprKind::Integer(constant) = value.kind {
        return TypedExpr {
            kind: TypedExprKind::Integer(constants::narrow_value(constant, size, signed)),
            ty,
            span: value.span,
        };
    }
    let span = value.span.clone();
    TypedExpr {
        kind: TypedExprKind::Narrow {
            operand: Box::new(value),
            size,
            signed,
        },
        ty,
        span,
    }
}

fn is_comparison(operator: BinaryOperator) -> bool {
    matches!(
        operator,
        BinaryOperator::Less
            | BinaryOperator::LessEqual
            | BinaryOperator::Greater
            | BinaryOperator::GreaterEqual
            | BinaryOperator::Equal
            | BinaryOperator::NotEqual
    )
}

/// `@a` or `@a[...]`.
pub(super) fn is_aggregation_expression(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Aggregation(_) => true,
        ExprKind::Index { base, .. } => is_aggregation_expression(base),
        _ => false,
    }
}
