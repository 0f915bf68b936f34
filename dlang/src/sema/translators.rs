//! Translators (§1.9): `translator out < in IDENT > { member = expr; ... };`
//! definitions, checked against the output type, and `xlate` member references, which
//! are expanded by substituting the input value into the member's expression.

use std::collections::HashMap;

use super::ir::TypedExpr;
use super::{error, Analyzer, SemaResult, TranslatorInfo};
use crate::ast::{Expr, TranslatorDefinition, TypeName};
use crate::diagnostics::{ErrorTag, Span};

impl Analyzer<'_> {
    /// Checks and records a translator definition.
    pub(super) fn translator_definition(
        &mut self,
        translator: &TranslatorDefinition,
    ) -> SemaResult<()> {
        let output = self.type_from_type_name(&translator.output)?;
        let input = self.type_from_type_name(&translator.input)?;
        if !self.types.is_struct_or_union(output) || !self.types.is_defined(output) {
            return Err(error(
                ErrorTag::D_XLATE_SOU,
                &translator.output.span,
                format!(
                    "translator output type must be a struct or union: {}",
                    self.type_name(output)
                ),
            ));
        }
        let redeclared = self.translators.iter().any(|existing| {
            self.types.same_type(existing.output, output)
                && self.types.same_type(existing.input, input)
        });
        if redeclared {
            return Err(error(
                ErrorTag::D_XLATE_REDECL,
                &translator.span,
                format!(
                    "translator from {} to {} has already been declared",
                    self.type_name(input),
                    self.type_name(output)
                ),
            ));
        }
        let placeholder = self.placeholder(input, &translator.input.span);
        for (member, expr, span) in &translator.members {
            let Some(found) = self.types.find_member(output, member) else {
                return Err(error(
                    ErrorTag::D_XLATE_MEMB,
                    span,
                    format!(
                        "translator member {member} is not a member of {}",
                        self.type_name(output)
                    ),
                ));
            };
            let mut bindings = HashMap::new();
            bindings.insert(translator.parameter.clone(), placeholder.clone());
            self.inline_parameters.push(bindings);
            let checked = self.expression(expr);
            self.inline_parameters.pop();
            let value = checked?;
            if !self.is_argument_compatible(found.ty, &value) {
                return Err(error(
                    ErrorTag::D_XLATE_INCOMPAT,
                    span,
                    format!(
                        "translator member {member} definition uses incompatible types: \"{}\" = \"{}\"",
                        self.type_name(found.ty),
                        self.type_name(value.ty)
                    ),
                ));
            }
        }
        self.translators.push(TranslatorInfo {
            output,
            input,
            parameter: translator.parameter.clone(),
            members: translator
                .members
                .iter()
                .map(|(member, expr, _)| (member.clone(), expr.clone()))
                .collect(),
        });
        Ok(())
    }

    /// `xlate <type> (expr)` used as a whole value.
    pub(super) fn xlate(
        &mut self,
        type_name: &TypeName,
        operand: &Expr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let target = self.type_from_type_name(type_name)?;
        let value = self.operand(operand)?;
        let output = self
            .types
            .referenced(target)
            .filter(|_| self.types.is_pointer(target))
            .unwrap_or(target);
        if self.find_translator(output, &value).is_none() {
            return Err(self.no_translator(&value, target, span));
        }
        Err(error(
            ErrorTag::D_XLATE_NONE,
            span,
            format!(
                "translated value of type {} may only be used to access a member (xlate <T>(e).member or xlate <T *>(e)->member)",
                self.type_name(target)
            ),
        ))
    }

    /// `xlate <T>(expr).member` or `xlate <T *>(expr)->member`: the translator's
    /// expression for `member` with its parameter bound to `expr`.
    pub(super) fn translated_member(
        &mut self,
        type_name: &TypeName,
        operand: &Expr,
        member: &str,
        arrow: bool,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let target = self.type_from_type_name(type_name)?;
        let output = if arrow {
            if !self.types.is_pointer(target) {
                return Err(error(
                    ErrorTag::D_OP_PTR,
                    span,
                    "operator -> must be applied to a pointer",
                ));
            }
            self.types.referenced(target).unwrap_or(target)
        } else {
            target
        };
        let value = self.operand(operand)?;
        let Some(index) = self.find_translator(output, &value) else {
            return Err(self.no_translator(&value, target, span));
        };
        let Some(found) = self.types.find_member(output, member) else {
            return Err(error(
                ErrorTag::D_TYPE_MEMBER,
                span,
                format!("{member} is not a member of {}", self.type_name(output)),
            ));
        };
        let translator = self.translators[index].clone();
        let Some((_, expr)) = translator.members.iter().find(|(name, _)| name == member) else {
            return Err(error(
                ErrorTag::D_XLATE_NOCONV,
                span,
                format!("translator does not define conversion for member: {member}"),
            ));
        };
        let mut bindings = HashMap::new();
        bindings.insert(translator.parameter.clone(), value);
        self.inline_parameters.push(bindings);
        let result = self.expression(expr);
        self.inline_parameters.pop();
        let converted = self.convert(result?, found.ty);
        Ok(TypedExpr {
            span: span.clone(),
            ..converted
        })
    }

    fn find_translator(&self, output: crate::types::TypeId, value: &TypedExpr) -> Option<usize> {
        self.translators.iter().position(|translator| {
            self.types.same_type(translator.output, output)
                && self.is_argument_compatible(translator.input, value)
        })
    }

    fn no_translator(
        &self,
        value: &TypedExpr,
        target: crate::types::TypeId,
        span: &Span,
    ) -> crate::diagnostics::Diagnostic {
        error(
            ErrorTag::D_XLATE_NONE,
            span,
            format!(
                "cannot translate from \"{}\" to \"{}\"",
                self.type_name(value.ty),
                self.type_name(target)
            ),
        )
    }
}
