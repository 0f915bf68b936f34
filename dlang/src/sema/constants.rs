//! Integer constants: the type of an integer literal (§2.3) and constant folding of
//! operators applied to constants, which is how D finds constant expressions (array
//! dimensions, lquantize parameters) and division by a constant zero.

use super::ir::{Arithmetic, Comparison, ComparisonKind, TypedExpr, TypedExprKind};
use super::{error, Analyzer, SemaResult};
use crate::ast::{BinaryOperator, Expr, ExprKind, IntegerBase, IntegerSuffix, UnaryOperator};
use crate::diagnostics::{ErrorTag, Region, Span};
use crate::types::TypeId;

impl Analyzer<'_> {
    /// The type of an integer literal: the first type of its candidate list that can
    /// hold the value.
    pub(super) fn integer_literal_type(
        &self,
        value: u64,
        base: IntegerBase,
        suffix: IntegerSuffix,
        span: &Span,
    ) -> SemaResult<TypeId> {
        let known = self.types.well_known();
        let candidates: Vec<TypeId> = if suffix.unsigned {
            vec![
                known.unsigned_int,
                known.unsigned_long,
                known.unsigned_long_long,
            ]
            .into_iter()
            .skip(suffix.long.into())
            .collect()
        } else if matches!(base, IntegerBase::Decimal | IntegerBase::Character) {
            // DTrace's lexer types a character constant as a decimal one (signed
            // types only), as the parser's overflow check assumes.
            vec![known.int, known.long, known.long_long]
                .into_iter()
                .skip(suffix.long.into())
                .collect()
        } else {
            vec![
                known.int,
                known.unsigned_int,
                known.long,
                known.unsigned_long,
                known.long_long,
                known.unsigned_long_long,
            ]
            .into_iter()
            .skip(2 * usize::from(suffix.long))
            .collect()
        };
        for candidate in candidates {
            let (size, signed) = self.types.scalar_access(candidate);
            let limit = match (size, signed) {
                (4, true) => i32::MAX as u64,
                (4, false) => u32::MAX as u64,
                (_, true) => i64::MAX as u64,
                _ => u64::MAX,
            };
            if value <= limit {
                return Ok(candidate);
            }
        }
        Err(error(
            ErrorTag::D_INT_OFLOW,
            span,
            format!(
                "integer constant 0x{value:x} cannot be represented in any built-in integral type"
            ),
        ))
    }

    /// D_DIV_ZERO as DTrace reports it: while parsing, when the right operand of `/`,
    /// `%`, `/=` or `%=` is an integer constant the parser folded to zero (see
    /// [`is_parse_time_constant`]). The error therefore has no region, and a divisor
    /// that is zero only once analysed (an inline, an enumerator) is left to fault at
    /// run time, as in DTrace.
    pub(super) fn check_constant_divisor(&mut self, divisor: &Expr) -> SemaResult<()> {
        if !is_parse_time_constant(divisor) {
            return Ok(());
        }
        let value = self.operand(divisor)?;
        if constant_value(&value) == Some(0) && self.types.is_integer(value.ty) {
            return Err(
                // DTrace reports the line its parser reached when it built the
                // division: the divisor's, not the dividend's.
                error(
                    ErrorTag::D_DIV_ZERO,
                    &divisor.span,
                    "expression contains division by zero",
                )
                .in_region(Region::Parsing),
            );
        }
        Ok(())
    }

    /// An integer constant of type `ty`.
    pub(super) fn constant(&self, value: u64, ty: TypeId, span: &Span) -> TypedExpr {
        TypedExpr {
            kind: TypedExprKind::Integer(value),
            ty,
            span: span.clone(),
        }
    }

    /// An `int` constant.
    pub(super) fn int_constant(&self, value: i64, span: &Span) -> TypedExpr {
        self.constant(value as u64, self.types.well_known().int, span)
    }
}

/// Whether DTrace's parser folds `expr` into an integer constant as it builds the
/// expression's nodes (dt_node_op1() and dt_node_op2()): integer and character
/// constants, a `$N` operand that is a number, the unary `- + ~ !` and every binary
/// operator but `,` applied to such constants, casts of them, `sizeof (type)`,
/// `sizeof` of a string constant, `offsetof()`, and `?:` with a constant condition.
/// Identifiers (inlines, enumerators) are only resolved later, when DTrace checks the
/// clause.
pub(super) fn is_parse_time_constant(expr: &Expr) -> bool {
    folds_to_constant(expr, &|_| false)
}

/// Whether `expr` folds into an integer constant when the identifiers for which
/// `constant_identifier` holds are integer constants themselves (dt_node_ident() turns
/// a name of an inline whose value is an integer constant, an enumerator among them,
/// into that constant as soon as it is parsed).
pub(super) fn folds_to_constant(expr: &Expr, constant_identifier: &dyn Fn(&str) -> bool) -> bool {
    let folds = |expr: &Expr| folds_to_constant(expr, constant_identifier);
    match &expr.kind {
        ExprKind::Identifier(name) => constant_identifier(name),
        ExprKind::Integer { .. } | ExprKind::SizeofType(_) | ExprKind::Offsetof { .. } => true,
        ExprKind::Macro(crate::ast::MacroVariable::Argument { .. }) => true,
        ExprKind::SizeofExpr(operand) => matches!(operand.kind, ExprKind::String(_)),
        ExprKind::Unary { operator, operand } => {
            matches!(
                operator,
                UnaryOperator::Negate
                    | UnaryOperator::Plus
                    | UnaryOperator::BitwiseNot
                    | UnaryOperator::LogicalNot
            ) && folds(operand)
        }
        ExprKind::Binary {
            operator,
            left,
            right,
        } => *operator != BinaryOperator::Comma && folds(left) && folds(right),
        ExprKind::Cast { operand, .. } => folds(operand),
        // dt_node_op3() picks the branch of a constant condition; whether the branch
        // it picks is a constant is for the analysed value to tell.
        ExprKind::Conditional {
            condition,
            then_value,
            else_value,
        } => folds(condition) && (folds(then_value) || folds(else_value)),
        _ => false,
    }
}

/// The value of a constant expression, sign-extended from its type when signed.
pub(super) fn constant_value(expr: &TypedExpr) -> Option<u64> {
    match expr.kind {
        TypedExprKind::Integer(value) => Some(value),
        _ => None,
    }
}

/// Folds an arithmetic operation on two constants; division by zero is D_DIV_ZERO.
pub(super) fn fold_arithmetic(
    operator: Arithmetic,
    left: u64,
    right: u64,
    span: &Span,
) -> SemaResult<u64> {
    let divide_by_zero = || {
        error(
            ErrorTag::D_DIV_ZERO,
            span,
            "expression contains division by zero",
        )
    };
    Ok(match operator {
        Arithmetic::Add => left.wrapping_add(right),
        Arithmetic::Subtract => left.wrapping_sub(right),
        Arithmetic::Multiply => left.wrapping_mul(right),
        Arithmetic::DivideSigned => {
            if right == 0 {
                return Err(divide_by_zero());
            }
            (left as i64).wrapping_div(right as i64) as u64
        }
        Arithmetic::DivideUnsigned => {
            if right == 0 {
                return Err(divide_by_zero());
            }
            left / right
        }
        Arithmetic::RemainderSigned => {
            if right == 0 {
                return Err(divide_by_zero());
            }
            (left as i64).wrapping_rem(right as i64) as u64
        }
        Arithmetic::RemainderUnsigned => {
            if right == 0 {
                return Err(divide_by_zero());
            }
            left % right
        }
        Arithmetic::And => left & right,
        Arithmetic::Or => left | right,
        Arithmetic::Xor => left ^ right,
        Arithmetic::ShiftLeft => left.wrapping_shl(right as u32),
        Arithmetic::ShiftRightArithmetic => (left as i64).wrapping_shr(right as u32) as u64,
        Arithmetic::ShiftRightLogical => left.wrapping_shr(right as u32),
    })
}

/// Folds a comparison of two integer constants to 0 or 1.
pub(super) fn fold_comparison(
    operator: Comparison,
    kind: ComparisonKind,
    left: u64,
    right: u64,
) -> u64 {
    let ordering = match kind {
        ComparisonKind::Signed => (left as i64).cmp(&(right as i64)),
        _ => left.cmp(&right),
    };
    let result = match operator {
        Comparison::Equal => ordering.is_eq(),
        Comparison::NotEqual => ordering.is_ne(),
        Comparison::Less => ordering.is_lt(),
        Comparison::LessEqual => ordering.is_le(),
        Comparison::Greater => ordering.is_gt(),
        Comparison::GreaterEqual => ordering.is_ge(),
    };
    u64::from(result)
}

/// Reduces `value` to `size` bytes and extends it back to 64 bits, as `Narrow` does
/// at run time.
pub(super) fn narrow_value(value: u64, size: u32, signed: bool) -> u64 {
    if size >= 8 {
        return value;
    }
    let bits = size * 8;
    let shift = 64 - bits;
    if signed {
        (((value << shift) as i64) >> shift) as u64
    } else {
        (value << shift) >> shift
    }
}
