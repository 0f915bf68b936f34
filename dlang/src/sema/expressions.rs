//! Expression typing: the dispatcher over AST expressions, literals, identifiers
//! (variables, inlines, enumerators), unary operators, `sizeof`, `offsetof` and
//! `stringof`.

use std::collections::HashMap;

use difvm::isa::subroutine;

use super::functions::{self, FunctionKind};
use super::ir::{Arithmetic, Comparison, ComparisonKind, TypedExpr, TypedExprKind, Unary};
use super::variables::{VariableScope, VariableShape};
use super::{constants, error, Analyzer, InlineInfo, SemaResult};
use crate::ast::{Expr, ExprKind, UnaryOperator};
use crate::diagnostics::{ErrorTag, Span};
use crate::types::TypeKind;

impl Analyzer<'_> {
    /// Types an expression used as a value.
    pub(super) fn expression(&mut self, expr: &Expr) -> SemaResult<TypedExpr> {
        let span = &expr.span;
        match &expr.kind {
            ExprKind::Integer {
                value,
                base,
                suffix,
                ..
            } => {
                let ty = self.integer_literal_type(*value, *base, *suffix, span)?;
                Ok(self.constant(*value, ty, span))
            }
            ExprKind::String(bytes) => {
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                Ok(TypedExpr {
                    kind: TypedExprKind::String(bytes[..end].to_vec()),
                    ty: self.types.well_known().string,
                    span: span.clone(),
                })
            }
            ExprKind::Identifier(name) => self.identifier(name, span),
            ExprKind::Macro(variable) => self.macro_expression(variable, span),
            ExprKind::ThreadLocal(_)
            | ExprKind::ScopedIdentifier { .. }
            | ExprKind::ClauseLocal(_)
            | ExprKind::Index { .. }
            | ExprKind::Member { .. }
            | ExprKind::PointerMember { .. }
            | ExprKind::Unary {
                operator: UnaryOperator::Dereference,
                ..
            } => {
                let place = self.place(expr)?;
                Ok(self.read_place(place, span))
            }
            ExprKind::Aggregation(name) => Err(error(
                ErrorTag::D_OP_INCOMPAT,
                span,
                format!("aggregation @{name} may not be used in an expression"),
            )),
            ExprKind::Unary { operator, operand } => self.unary(*operator, operand, span),
            ExprKind::Binary {
                operator,
                left,
                right,
            } => self.binary(*operator, left, right, span),
            ExprKind::Assign {
                operator,
                target,
                value,
            } => self.assignment(*operator, target, value, span),
            ExprKind::Conditional {
                condition,
                then_value,
                else_value,
            } => self.conditional(condition, then_value, else_value, span),
            ExprKind::Cast { ty, operand } => self.cast(ty, operand, span),
            ExprKind::SizeofExpr(operand) => self.sizeof_expression(operand, span),
            ExprKind::SizeofType(type_name) => {
                let ty = self
                    .type_from_type_name(type_name)
                    .map_err(super::found_while_parsing)?;
                let size = self.types.size_of(ty);
                if size == 0 {
                    // dt_node_op1() sizes a type name while DTrace parses, so the
                    // error has no region.
                    return Err(error(
                        ErrorTag::D_SIZEOF_TYPE,
                        span,
                        "cannot apply sizeof to an operand of unknown size",
                    )
                    .in_region(crate::diagnostics::Region::Parsing));
                }
                Ok(self.constant(size, self.types.well_known().size_t, span))
            }
            ExprKind::Stringof(operand) => self.stringof(operand, span),
            // dt_node_offsetof() computes the offset while DTrace parses, so its
            // errors have no region.
            ExprKind::Offsetof { ty, member } => self
                .offsetof(ty, member, span)
                .map_err(super::found_while_parsing),
            ExprKind::Xlate { ty, operand } => self.xlate(ty, operand, span),
            ExprKind::Call { callee, arguments } => self.call_expression(callee, arguments, span),
        }
    }

    /// Types an operand of an operator (the same as [`Analyzer::expression`]).
    pub(super) fn operand(&mut self, expr: &Expr) -> SemaResult<TypedExpr> {
        self.expression(expr)
    }

    /// The value of a parameter of the parameterised inline being expanded.
    pub(super) fn inline_parameter(&self, name: &str) -> Option<TypedExpr> {
        self.inline_parameters
            .iter()
            .rev()
            .find_map(|scope| scope.get(name).cloned())
    }

    /// A plain identifier used as a value.
    fn identifier(&mut self, name: &str, span: &Span) -> SemaResult<TypedExpr> {
        if let Some(word) = self.derived_argument_word(name, span)? {
            return Ok(word);
        }
        if let Some(value) = self.inline_parameter(name) {
            return Ok(TypedExpr {
                span: span.clone(),
                ..value
            });
        }
        if let Some(inline) = self.inlines.get(name).cloned() {
            if !inline.parameters.is_empty() {
                return Err(error(
                    ErrorTag::D_PROTO_LEN,
                    span,
                    format!(
                        "{name}[ ] prototype mismatch: 0 args passed, {} expected",
                        inline.parameters.len()
                    ),
                ));
            }
            return self.expand_inline(&inline, &[], span);
        }
        if let Some(id) = self.variables.global(name) {
            let variable = self.variables.get(id);
            let attributes = if variable.scope == VariableScope::Builtin {
                self.builtin_attributes(name)
            } else {
                self.declared_attributes(name)
            };
            self.use_attributes("scalar", name, attributes, span)?;
            let variable = self.variables.get(id);
            if variable.scope == VariableScope::Builtin {
                self.check_builtin_for_subject(variable.dif_id, name, span)?;
            }
            let variable = self.variables.get(id);
            if matches!(variable.shape, VariableShape::Scalar) {
                if variable.ty.is_none() {
                    return Err(self.not_yet_assigned(name, span));
                }
                let place = if self.is_in_memory(id) {
                    self.memory_variable_place(id, span)
                } else {
                    super::access::Place::Variable(id)
                };
                return Ok(self.read_place(place, span));
            }
            if matches!(variable.shape, VariableShape::StaticArray { .. }) && self.is_in_memory(id)
            {
                return Ok(self.static_array_value(id, span));
            }
            return Err(error(
                ErrorTag::D_IDENT_BADREF,
                span,
                format!("array {name} may not be referenced without a subscript"),
            ));
        }
        if let Some((enum_type, value)) = self.types.find_enumerator(name) {
            return Ok(self.constant(value as u64, enum_type, span));
        }
        if self.extern_variables.contains_key(name) {
            let place = self.kernel_variable_place("", name, span)?;
            return Ok(self.read_place(place, span));
        }
        if let Some((kind, _)) = functions::lookup_function(name) {
            return Err(error(
                ErrorTag::D_IDENT_BADREF,
                span,
                format!(
                    "{} {name}( ) may not be referenced as a variable",
                    kind.kind_name()
                ),
            ));
        }
        if self.declare_library_inline(name)? {
            return self.identifier(name, span);
        }
        if let Some((enum_type, value)) = self.types.kernel_enumerator(name) {
            return Ok(self.constant(value as u64, enum_type, span));
        }
        Err(error(
            ErrorTag::D_IDENT_UNDEF,
            span,
            format!("failed to resolve {name}: Unknown variable name"),
        ))
    }

    /// Substitutes an inline: re-analyzes its value with the parameters bound to the
    /// typed arguments, and converts the result to the inline's declared type.
    pub(super) fn expand_inline(
        &mut self,
        inline: &InlineInfo,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let name = &inline.definition.name;
        if arguments.len() != inline.parameters.len() {
            return Err(error(
                ErrorTag::D_PROTO_LEN,
                span,
                format!(
                    "{name}[ ] prototype mismatch: {} arg{}passed, {} expected",
                    arguments.len(),
                    if arguments.len() == 1 { " " } else { "s " },
                    inline.parameters.len()
                ),
            ));
        }
        let mut bindings = HashMap::new();
        for (index, (argument, (parameter_type, parameter_name))) in
            arguments.iter().zip(&inline.parameters).enumerate()
        {
            let value = self.operand(argument)?;
            if !self.is_argument_compatible(*parameter_type, &value) {
                return Err(functions::incompatible_argument(
                    &format!("{name}[ ]"),
                    index + 1,
                    &self.type_name(*parameter_type),
                    &self.type_name(value.ty),
                    false,
                    &argument.span,
                ));
            }
            let value = self.convert(value, *parameter_type);
            bindings.insert(parameter_name.clone(), value);
        }
        self.inline_parameters.push(bindings);
        let result = self.inline_body(inline, span, |analyzer| {
            analyzer.expression(&inline.definition.value)
        });
        self.inline_parameters.pop();
        let value = result?;
        let converted = self.convert(value, inline.ty);
        Ok(TypedExpr {
            span: span.clone(),
            ..converted
        })
    }

    /// Unary operators other than `*` (places) and `++`/`--` (assignments).
    fn unary(
        &mut self,
        operator: UnaryOperator,
        operand: &Expr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let symbol = match operator {
            UnaryOperator::Negate => "-",
            UnaryOperator::Plus => "+",
            UnaryOperator::BitwiseNot => "~",
            UnaryOperator::LogicalNot => "!",
            UnaryOperator::AddressOf => "&",
            UnaryOperator::Dereference => "*",
            UnaryOperator::PreIncrement | UnaryOperator::PostIncrement => "++",
            UnaryOperator::PreDecrement | UnaryOperator::PostDecrement => "--",
        };
        self.reject_action_operands(symbol, &[operand], span)?;
        match operator {
            UnaryOperator::AddressOf => return self.address_of(operand, span),
            UnaryOperator::PreIncrement
            | UnaryOperator::PostIncrement
            | UnaryOperator::PreDecrement
            | UnaryOperator::PostDecrement => return self.increment(operator, operand, span),
            _ => {}
        }
        let value = self.operand(operand)?;
        match operator {
            UnaryOperator::Negate | UnaryOperator::Plus => {
                if !self.types.is_arithmetic(value.ty) {
                    return Err(error(
                        ErrorTag::D_OP_ARITH,
                        span,
                        format!("operator {symbol} requires an operand of arithmetic type"),
                    ));
                }
                if operator == UnaryOperator::Plus {
                    return Ok(TypedExpr {
                        span: span.clone(),
                        ..value
                    });
                }
                let ty = value.ty;
                if let Some(constant) = constants::constant_value(&value) {
                    // dt_node_op1() truncates a negated unsigned constant to its
                    // type's size: -1u is 0xffffffff, as a uint holds it.
                    let mut negated = constant.wrapping_neg();
                    let size = self.types.size_of(ty);
                    if self.types.is_integer(ty) && !self.types.is_signed(ty) && size < 8 {
                        negated &= (1u64 << (size * 8)) - 1;
                    }
                    return Ok(self.constant(negated, ty, span));
                }
                Ok(TypedExpr {
                    kind: TypedExprKind::Unary {
                        operator: Unary::Negate,
                        operand: Box::new(value),
                    },
                    ty,
                    span: span.clone(),
                })
            }
            UnaryOperator::BitwiseNot => {
                if !self.types.is_integer(value.ty) {
                    return Err(error(
                        ErrorTag::D_OP_INT,
                        span,
                        "operator ~ requires an operand of integral type",
                    ));
                }
                let ty = value.ty;
                if let Some(constant) = constants::constant_value(&value) {
                    return Ok(self.constant(!constant, ty, span));
                }
                Ok(TypedExpr {
                    kind: TypedExprKind::Unary {
                        operator: Unary::BitwiseNot,
                        operand: Box::new(value),
                    },
                    ty,
                    span: span.clone(),
                })
            }
            _ => {
                if !self.types.is_scalar(value.ty) {
                    return Err(error(
                        ErrorTag::D_OP_SCALAR,
                        span,
                        "operator ! requires an operand of scalar type",
                    ));
                }
                if let Some(constant) = constants::constant_value(&value) {
                    // dt_node_op1() folds `!` of an integer constant in place, keeping
                    // the constant's type: sizeof (!0ul) is 8.
                    if self.types.is_integer(value.ty) {
                        return Ok(self.constant(u64::from(constant == 0), value.ty, span));
                    }
                    return Ok(self.int_constant(i64::from(constant == 0), span));
                }
                let int = self.types.well_known().int;
                Ok(TypedExpr {
                    kind: TypedExprKind::Unary {
                        operator: Unary::LogicalNot,
                        operand: Box::new(value),
                    },
                    ty: int,
                    span: span.clone(),
                })
            }
        }
    }

    /// D_OP_ACT when an operand is a call of an action.
    pub(super) fn reject_action_operands(
        &self,
        symbol: &str,
        operands: &[&Expr],
        span: &Span,
    ) -> SemaResult<()> {
        for operand in operands {
            if let ExprKind::Call { callee, .. } = &operand.kind {
                if let ExprKind::Identifier(name) = &callee.kind {
                    if let Some((FunctionKind::Action(_), _)) = functions::lookup_function(name) {
                        if self.variables.global(name).is_none() {
                            return Err(error(
                                ErrorTag::D_OP_ACT,
                                span,
                                format!("operator {symbol} operands cannot be actions"),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn sizeof_expression(&mut self, operand: &Expr, span: &Span) -> SemaResult<TypedExpr> {
        let size_t = self.types.well_known().size_t;
        // DTrace sizes a string constant by its text (`strlen() + 1`), not by the
        // string type's `strsize`: `sizeof ("hello")` is 6.
        // So is a `$$N` operand, which DTrace's lexer turns into a string constant.
        if matches!(operand.kind, ExprKind::String(_) | ExprKind::Macro(_)) {
            let value = self.expression(operand)?;
            if let TypedExprKind::String(bytes) = &value.kind {
                let length = bytes
                    .iter()
                    .position(|&byte| byte == 0)
                    .unwrap_or(bytes.len());
                return Ok(self.constant(length as u64 + 1, size_t, span));
            }
        }
        if let ExprKind::Identifier(name) = &operand.kind {
            if let Some(id) = self.variables.global(name) {
                let variable = self.variables.get(id);
                if let (VariableShape::StaticArray { elements }, Some(element)) =
                    (&variable.shape, variable.ty)
                {
                    let size = elements * self.types.size_of(element);
                    return Ok(self.constant(size, size_t, span));
                }
            }
        }
        // The operand is never evaluated, so a kernel type it names is no read of
        // kernel memory (which the user-space engine would refuse), and an action
        // called in it is no call in an expression (DTrace refuses those only when it
        // generates code): `sizeof (stack())` is the size of stack()'s type.
        let kernel_type_read = self.kernel_type_read.clone();
        let deferred_expression_call = self.deferred_expression_call.clone();
        let place = self.place(operand);
        self.kernel_type_read = kernel_type_read;
        self.deferred_expression_call = deferred_expression_call;
        let place = place?;
        if let super::access::Place::Memory {
            bit_field: Some(_), ..
        } = place
        {
            return Err(error(
                ErrorTag::D_SIZEOF_BITFIELD,
                span,
                "cannot apply sizeof to a bit-field",
            ));
        }
        // DTrace's stack, _symaddr and _usymaddr types are typedefs of void, of size 0.
        let ty = self.place_type(&place);
        let size = if self.types.is_internal(ty) {
            0
        } else {
            self.types.size_of(ty)
        };
        if size == 0 {
            return Err(error(
                ErrorTag::D_SIZEOF_TYPE,
                span,
                "cannot apply sizeof to an operand of unknown size",
            ));
        }
        Ok(self.constant(size, size_t, span))
    }

    fn stringof(&mut self, operand: &Expr, span: &Span) -> SemaResult<TypedExpr> {
        let value = self.operand(operand)?;
        let string = self.types.well_known().string;
        if self.types.is_string_compatible(value.ty) || self.types.is_pointer(value.ty) {
            return Ok(TypedExpr {
                ty: string,
                span: span.clone(),
                ..value
            });
        }
        if self.types.is_integer(value.ty) {
            // An integer becomes its decimal text.
            return Ok(TypedExpr {
                kind: TypedExprKind::Call {
                    subroutine: subroutine::LLTOSTR,
                    arguments: vec![value],
                },
                ty: string,
                span: span.clone(),
            });
        }
        Err(error(
            ErrorTag::D_STRINGOF_TYPE,
            span,
            format!(
                "cannot apply stringof to a value of type {}",
                self.type_name(value.ty)
            ),
        ))
    }

    fn offsetof(
        &mut self,
        type_name: &crate::ast::TypeName,
        member: &str,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let ty = self.type_from_type_name(type_name)?;
        if !self.types.is_struct_or_union(ty) || !self.types.is_defined(ty) {
            return Err(error(
                ErrorTag::D_OFFSETOF_TYPE,
                span,
                "offsetof operand must be a struct or union type",
            ));
        }
        // DTrace asks its type library for the member and reports the library's error.
        let Some(found) = self.types.find_member(ty, member) else {
            return Err(error(
                ErrorTag::D_UNKNOWN,
                span,
                format!("failed to determine offset of {member}: Member name not found"),
            ));
        };
        if found.bit_width.is_some() {
            return Err(error(
                ErrorTag::D_OFFSETOF_BITFIELD,
                span,
                format!("cannot take offset of a bit-field: {member}"),
            ));
        }
        Ok(self.constant(found.bit_offset / 8, self.types.well_known().size_t, span))
    }

    /// `value != 0` as an int, for conditions stored in hidden variables.
    pub(super) fn truth_value(&mut self, value: TypedExpr, span: &Span) -> SemaResult<TypedExpr> {
        let zero = self.int_constant(0, span);
        let kind = if self.types.is_signed(value.ty) {
            ComparisonKind::Signed
        } else {
            ComparisonKind::Unsigned
        };
        if let Some(constant) = constants::constant_value(&value) {
            return Ok(self.int_constant(i64::from(constant != 0), span));
        }
        Ok(TypedExpr {
            kind: TypedExprKind::Compare {
                operator: Comparison::NotEqual,
                kind,
                left: Box::new(value),
                right: Box::new(zero),
            },
            ty: self.types.well_known().int,
            span: span.clone(),
        })
    }

    /// Builds an arithmetic node, folding constants.
    pub(super) fn arithmetic_node(
        &mut self,
        operator: Arithmetic,
        left: TypedExpr,
        right: TypedExpr,
        ty: crate::types::TypeId,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        // A division by a constant zero that got this far (a divisor that is zero only
        // once analysed) divides at run time, where it faults.
        let divides_by_zero = matches!(
            operator,
            Arithmetic::DivideSigned
                | Arithmetic::DivideUnsigned
                | Arithmetic::RemainderSigned
                | Arithmetic::RemainderUnsigned
        ) && constants::constant_value(&right) == Some(0);
        if let (Some(a), Some(b), false) = (
            constants::constant_value(&left),
            constants::constant_value(&right),
            divides_by_zero,
        ) {
            let value = constants::fold_arithmetic(operator, a, b, span)?;
            return Ok(self.constant(value, ty, span));
        }
        Ok(TypedExpr {
            kind: TypedExprKind::Arithmetic {
                operator,
                left: Box::new(left),
                right: Box::new(right),
            },
            ty,
            span: span.clone(),
        })
    }

    /// True for the struct, union and enum kinds that have no definition yet.
    pub(super) fn is_incomplete(&self, ty: crate::types::TypeId) -> bool {
        matches!(
            self.types.resolved_kind(ty),
            TypeKind::Struct { body: None, .. }
                | TypeKind::Union { body: None, .. }
                | TypeKind::Enum {
                    enumerators: None,
                    ..
                }
        )
    }
}
