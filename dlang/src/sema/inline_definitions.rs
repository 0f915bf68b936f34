//! Inline definitions (`inline int x = …;`, `inline int a[int k] = …;`): their checks
//! against earlier declarations, their parameters and the type of their value.

use std::collections::HashMap;

use super::ir::TypedExpr;
use super::{error, Analyzer, InlineInfo, SemaResult};
use crate::ast::{ArrayDimension, Derivation, Expr, ExprKind, InlineDefinition};
use crate::diagnostics::ErrorTag;

impl Analyzer<'_> {
    /// `inline type name[params] = value;`
    pub(super) fn inline_definition(&mut self, inline: &InlineDefinition) -> SemaResult<()> {
        let name = &inline.name;
        // DTrace defines an inline when its parser reads the closing `;`, so errors
        // report that line.
        let end_span = inline.span.end.saturating_sub(1)..inline.span.end;
        // dt_node_inline() takes no storage class (`inline self int x = 1;`).
        super::declarations::single_storage_class(&inline.ty.specifiers)?;
        if !inline.ty.specifiers.storage.is_empty() {
            return Err(error(
                ErrorTag::D_DECL_BADCLASS,
                &end_span,
                "specified storage class not appropriate for inline declaration",
            ));
        }
        // DTrace resolves the declared type before it looks the name up, and names the
        // identifier the inline would replace.
        if let Some(previous) = self.global_identifier_kind(name) {
            return Err(error(
                ErrorTag::D_DECL_IDRED,
                &end_span,
                format!(
                    "identifier redefined: {name}\n\t current: inline definition\n\tprevious: {previous}"
                ),
            ));
        }
        // An inline array takes a tuple signature (its parameters), never a dimension.
        match inline.ty.declarator.derivations.first() {
            Some(Derivation::Array(ArrayDimension::Unspecified)) => {
                return Err(error(
                    ErrorTag::D_DECL_ARRNULL,
                    &end_span,
                    format!("inline declaration requires array tuple signature: {name}"),
                ))
            }
            Some(Derivation::Array(_)) => {
                return Err(error(
                    ErrorTag::D_DECL_ARRNULL,
                    &end_span,
                    format!("inline declaration cannot be of scalar array type: {name}"),
                ))
            }
            _ => {}
        }
        let ty = self.type_from_type_name(&inline.ty)?;
        if self.types.is_void(ty) {
            return Err(error(
                ErrorTag::D_DECL_VOIDOBJ,
                &end_span,
                format!("cannot declare void inline: {name}"),
            ));
        }
        if self.is_incomplete(ty) {
            return Err(error(
                ErrorTag::D_DECL_INCOMPLETE,
                &end_span,
                format!(
                    "incomplete struct/union/enum {}: {name}",
                    self.type_name(ty)
                ),
            ));
        }
        let mut parameters = Vec::new();
        let mut placeholders = HashMap::new();
        for (type_name, parameter) in &inline.parameters {
            let parameter_type = self.type_from_type_name(type_name)?;
            parameters.push((parameter_type, parameter.clone()));
            placeholders.insert(
                parameter.clone(),
                self.placeholder(parameter_type, &type_name.span),
            );
        }
        self.inline_parameters.push(placeholders);
        let checked = self.inline_value(&inline.value);
        self.inline_parameters.pop();
        let value = checked?;
        if !self.is_argument_compatible(ty, &value) {
            return Err(error(
                ErrorTag::D_OP_INCOMPAT,
                &end_span,
                format!(
                    "inline {name} definition uses incompatible types: \"{}\" = \"{}\"",
                    self.type_name(ty),
                    self.type_name(value.ty)
                ),
            ));
        }
        self.inlines.insert(
            name.clone(),
            InlineInfo {
                definition: inline.clone(),
                ty,
                parameters,
            },
        );
        Ok(())
    }

    /// The value of an inline, type-checked. A translation
    /// (`xlate <psinfo_t *>(curthread)`) has no value of its own, only members: it
    /// stands for a value of the type it translates to when a translator exists.
    fn inline_value(&mut self, value: &Expr) -> SemaResult<TypedExpr> {
        let ExprKind::Xlate {
            ty: type_name,
            operand,
        } = &value.kind
        else {
            return self.expression(value);
        };
        let target = self.checked_translation(type_name, operand, &value.span)?;
        Ok(self.placeholder(target, &value.span))
    }
}
