//! Function calls in expressions: subroutines checked against their prototypes;
//! actions and aggregating functions rejected (they belong to statements).

use difvm::isa::subroutine;

use super::constants;
use super::functions::{self, FunctionKind, Parameter, Prototype};
use super::ir::{TypedExpr, TypedExprKind};
use super::variables::VariableShape;
use super::{error, Analyzer, SemaResult};
use crate::ast::{Expr, ExprKind};
use crate::diagnostics::{Diagnostic, ErrorTag, Span};

impl Analyzer<'_> {
    /// Resolves the callee of a call to a built-in function.
    pub(super) fn callee(
        &mut self,
        callee: &Expr,
    ) -> SemaResult<(String, FunctionKind, &'static str)> {
        let ExprKind::Identifier(name) = &callee.kind else {
            return Err(error(
                ErrorTag::D_FUNC_IDENT,
                &callee.span,
                "function designator is not of function type",
            ));
        };
        if self.inline_parameter(name).is_some() || self.inlines.contains_key(name) {
            return Err(error(
                ErrorTag::D_FUNC_IDKIND,
                &callee.span,
                format!("inline '{name}' may not be referenced as a function"),
            ));
        }
        if let Some(id) = self.variables.global(name) {
            let kind = match self.variables.get(id).shape {
                VariableShape::Scalar => "scalar",
                _ => "array",
            };
            return Err(error(
                ErrorTag::D_FUNC_IDKIND,
                &callee.span,
                format!("{kind} '{name}' may not be referenced as a function"),
            ));
        }
        match functions::lookup_function(name) {
            Some((kind, prototype)) => {
                let attributes = self.builtin_attributes(name);
                let designator = format!("{name}( )");
                self.use_attributes(kind.kind_name(), &designator, attributes, &callee.span)?;
                Ok((name.clone(), kind, prototype))
            }
            None => Err(error(
                ErrorTag::D_FUNC_UNDEF,
                &callee.span,
                format!("undefined function name: {name}"),
            )),
        }
    }

    /// A call used as a value: only subroutines are allowed.
    pub(super) fn call_expression(
        &mut self,
        callee: &Expr,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let (name, kind, prototype_text) = self.callee(callee)?;
        let FunctionKind::Subroutine(number) = kind else {
            let refused = error(
                ErrorTag::D_CG_EXPR,
                span,
                format!("{} {name}( ) may not be called from a D expression (D program context required)", kind.kind_name()),
            );
            return self.defer_expression_call(refused, prototype_text, span);
        };
        self.check_subroutine_for_subject(&name, span)?;
        let prototype = functions::parse_prototype(&mut self.types, prototype_text);
        let values = self.checked_arguments(&name, &prototype, arguments, span)?;
        if let (Some(argument), Some(Parameter::Typed(parameter))) =
            (values.first(), prototype.parameters.first())
        {
            let lock = self.lock_subroutine(number, argument.clone(), *parameter, span)?;
            if let Some(value) = lock {
                return Ok(value);
            }
        }
        if number == subroutine::JSON {
            // illumos's json() walks the JSON text with a parser neither engine has;
            // refusing it here says so, where a run-time fault would not.
            return Err(error(
                ErrorTag::D_FUNC_UNDEF,
                span,
                "json( ) is not available: selecting an element of JSON text is an \
                 illumos extension this DTrace does not implement",
            ));
        }
        if number == subroutine::ALLOCA {
            if let Some(size) = values.first().and_then(constants::constant_value) {
                let limit = self.settings.scratch_size.saturating_sub(8);
                if size > limit {
                    return Err(error(
                        ErrorTag::D_ALLOCA_SIZE,
                        span,
                        format!(
                            "alloca({size}) size larger than scratchsize {}",
                            self.settings.scratch_size
                        ),
                    ));
                }
            }
        }
        Ok(TypedExpr {
            kind: TypedExprKind::Call {
                subroutine: number,
                arguments: values,
            },
            ty: prototype.return_type,
            span: span.clone(),
        })
    }

    /// Types the arguments of a call and checks them against `prototype`.
    pub(super) fn checked_arguments(
        &mut self,
        name: &str,
        prototype: &Prototype,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<Vec<TypedExpr>> {
        let display = format!("{name}( )");
        functions::check_argument_count(&display, prototype, arguments.len(), false, span)?;
        let mut values = Vec::with_capacity(arguments.len());
        for (index, argument) in arguments.iter().enumerate() {
            let value = self.operand(argument)?;
            if let Some(Parameter::Typed(expected)) = prototype.parameters.get(index) {
                if !self.is_argument_compatible(*expected, &value) {
                    return Err(functions::incompatible_argument(
                        &display,
                        index + 1,
                        &self.type_name(*expected),
                        &self.type_name(value.ty),
                        false,
                        &argument.span,
                    ));
                }
            }
            values.push(value);
        }
        Ok(values)
    }

    /// An action or aggregating function called as a value. Inside a clause the call is
    /// typed by its prototype (`void` for most) and D_CG_EXPR waits for the end of the
    /// clause, so that what the value is used for is checked first, in DTrace's order
    /// (`trace(trace(1))` is D_TRACE_VOID). Elsewhere (an inline's value) it is refused
    /// at once.
    fn defer_expression_call(
        &mut self,
        refused: Diagnostic,
        prototype_text: &str,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        if self.clause.is_none() {
            return Err(refused);
        }
        self.deferred_expression_call.get_or_insert(refused);
        let returned = functions::parse_prototype(&mut self.types, prototype_text).return_type;
        Ok(TypedExpr {
            kind: TypedExprKind::Integer(0),
            ty: returned,
            span: span.clone(),
        })
    }
}
