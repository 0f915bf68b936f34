//! Clauses on derived probes (the stable providers: `proc:::exit` built on the
//! `sched_process_exit` raw tracepoint). The provider describes each such probe as D
//! over the underlying probe's arguments (`difvm::probe_derivation`); this pass applies
//! that description to every clause that enables the probe: the guard is and-ed before
//! the clause's predicate, `argN` becomes the derived native value, and `args[N]` the
//! native value with its native type, the user string it points at, or (as the base of
//! `->`) its translation by the D library's translator.
//!
//! A clause whose descriptions match probes with different derivations is analysed
//! once per derivation, each analysis enabling only the probes of its derivation, since
//! the same `arg0` means a different expression in each.

use std::sync::Arc;

use difvm::object::ProbeDescription;
use difvm::probe_derivation::{ArgumentTranslation, DerivedArgument, ProbeDerivation};

use super::ir::TypedExpr;
use super::{error, Analyzer, SemaResult};
use crate::ast::{Expr, ExprKind, Item};
use crate::diagnostics::{Diagnostic, ErrorTag, Span};
use crate::parse::{parse_program, ParseContext};
use crate::probes::ProbeInfo;
use crate::types::TypeId;

/// The probes of one clause that share a derivation (None: ordinary probes), with the
/// concrete descriptions they are enabled by.
pub(super) struct DerivationGroup {
    pub derivation: Option<Arc<ProbeDerivation>>,
    pub probes: Vec<ProbeInfo>,
}

impl DerivationGroup {
    /// The concrete descriptions that enable exactly this group's probes.
    pub fn descriptions(&self) -> Vec<ProbeDescription> {
        self.probes
            .iter()
            .map(|probe| probe.description.clone())
            .collect()
    }
}

/// The groups of `probes` by derivation, in the order first matched; None when no
/// probe is derived (the clause is then analysed once, as written).
pub(super) fn derivation_groups(
    probes: &[(String, Vec<ProbeInfo>)],
) -> Option<Vec<DerivationGroup>> {
    let all = probes.iter().flat_map(|(_, matched)| matched);
    if !all.clone().any(|probe| probe.derivation.is_some()) {
        return None;
    }
    let mut groups: Vec<DerivationGroup> = Vec::new();
    for probe in all {
        if groups
            .iter()
            .any(|group| group.probes.iter().any(|known| known.id == probe.id))
        {
            continue;
        }
        match groups
            .iter_mut()
            .find(|group| group.derivation == probe.derivation)
        {
            Some(group) => group.probes.push(probe.clone()),
            None => groups.push(DerivationGroup {
                derivation: probe.derivation.clone(),
                probes: vec![probe.clone()],
            }),
        }
    }
    Some(groups)
}

/// The name of the hidden inline a derivation expression is parsed as.
const DERIVATION_INLINE: &str = "__dtrace_derivation";

impl Analyzer<'_> {
    /// The derivation of the probes the clause being analysed enables, if derived.
    pub(super) fn current_derivation(&self) -> Option<Arc<ProbeDerivation>> {
        self.clause.as_ref()?.derivation.clone()
    }

    /// Analyses `text`, D written by a provider over the underlying probe's arguments:
    /// `argN` there are the underlying probe's own.
    fn derivation_expression(&mut self, text: &str, span: &Span) -> SemaResult<TypedExpr> {
        let expr = self.parse_derivation_expression(text, span)?;
        let derivation = self
            .clause
            .as_mut()
            .and_then(|clause| clause.derivation.take());
        let result = self.expression(&expr);
        if let Some(clause) = self.clause.as_mut() {
            clause.derivation = derivation;
        }
        result.map_err(|diagnostic| {
            error(
                diagnostic.tag,
                span,
                format!(
                    "in the provider's definition `{text}`: {}",
                    diagnostic.message
                ),
            )
        })
    }

    fn parse_derivation_expression(&self, text: &str, span: &Span) -> SemaResult<Expr> {
        let source = format!("inline int64_t {DERIVATION_INLINE} = ({text});");
        let knows_type = |name: &str| self.knows_type_name(name);
        let parsed = parse_program(
            &source,
            ParseContext::script_file().with_type_names(&knows_type),
        )
        .map_err(|failure| provider_text_error(text, &failure.diagnostic, span))?;
        match parsed.program.items.into_iter().next() {
            Some(Item::Inline(inline)) => Ok(inline.value),
            _ => Err(error(
                ErrorTag::D_UNKNOWN,
                span,
                format!("in the provider's definition `{text}`: not an expression"),
            )),
        }
    }

    /// The guard of the derived probes of the clause being analysed, as a predicate.
    pub(super) fn derivation_guard(&mut self, span: &Span) -> SemaResult<Option<TypedExpr>> {
        let Some(guard) = self.current_derivation().and_then(|d| d.guard.clone()) else {
            return Ok(None);
        };
        self.derivation_expression(&guard, span).map(Some)
    }

    /// `argN` of a derived probe: its native value as D's `int64_t` argument word, or
    /// None when the clause's probes are not derived or `name` is not `arg0`…`arg9`.
    pub(super) fn derived_argument_word(
        &mut self,
        name: &str,
        span: &Span,
    ) -> SemaResult<Option<TypedExpr>> {
        let Some(derivation) = self.current_derivation() else {
            return Ok(None);
        };
        let Some(index) = name
            .strip_prefix("arg")
            .and_then(|digits| digits.parse::<usize>().ok())
            .filter(|&index| index < 10 && name.len() == 4)
        else {
            return Ok(None);
        };
        let int64 = self.types.well_known().int64_t;
        // An argument beyond the probe's, or one that is `void` (tcp:::state-change's
        // packet arguments), reads 0.
        let Some(argument) = derivation
            .arguments
            .get(index)
            .filter(|argument| argument.native_type != "void")
        else {
            return Ok(Some(self.constant(0, int64, span)));
        };
        let value = self.native_argument(argument, span)?;
        let word = self.convert(value, int64);
        Ok(Some(TypedExpr {
            span: span.clone(),
            ..word
        }))
    }

    /// `args[N]` of a derived probe read as a value: None when the clause's probes are
    /// not derived. A translated argument has no value of its own: only its members do.
    pub(super) fn derived_argument_value(
        &mut self,
        index: &Expr,
        span: &Span,
    ) -> SemaResult<Option<TypedExpr>> {
        let Some((argument, index)) = self.derived_argument(index, span)? else {
            return Ok(None);
        };
        let value = match &argument.translation {
            ArgumentTranslation::Native => self.native_argument(&argument, span)?,
            ArgumentTranslation::UserString => {
                let text = format!("copyinstr((uintptr_t)({}))", argument.value);
                self.derivation_expression(&text, span)?
            }
            ArgumentTranslation::Translated(ty)
            | ArgumentTranslation::TranslatedFrom {
                translated_type: ty,
                ..
            } => {
                return Err(error(
                    ErrorTag::D_XLATE_NONE,
                    span,
                    format!(
                        "args[{index}] is a translated {ty}: it may only be used to access a member (args[{index}]->member)"
                    ),
                ))
            }
        };
        Ok(Some(TypedExpr {
            span: span.clone(),
            ..value
        }))
    }

    /// `args[N]` of a derived probe as the base of `->` or `.`: the translated type and
    /// the native value it is translated from; None unless the argument is translated.
    pub(super) fn derived_argument_translation(
        &mut self,
        index: &Expr,
        span: &Span,
    ) -> SemaResult<Option<(TypeId, TypedExpr)>> {
        let Some((argument, _)) = self.derived_argument(index, span)? else {
            return Ok(None);
        };
        let type_name = match &argument.translation {
            ArgumentTranslation::Translated(type_name)
            | ArgumentTranslation::TranslatedFrom {
                translated_type: type_name,
                ..
            } => type_name,
            ArgumentTranslation::Native | ArgumentTranslation::UserString => return Ok(None),
        };
        if !self.options.system_library {
            return Err(error(
                ErrorTag::D_ARGS_TYPE,
                span,
                format!(
                    "args[ ] of this probe is a {type_name}, a type of the D library, which -x nolibs leaves out"
                ),
            ));
        }
        self.load_library_defining_type(type_name.trim_end_matches(['*', ' ']))?;
        let translated = self.named_type(type_name, span)?;
        let native = match &argument.translation {
            ArgumentTranslation::TranslatedFrom {
                native_type, value, ..
            } => {
                let source = self.derivation_expression(value, span)?;
                let source_type = self.named_type(native_type, span)?;
                self.convert(source, source_type)
            }
            _ => self.native_argument(&argument, span)?,
        };
        Ok(Some((translated, native)))
    }

    /// The derived argument `args[index]` names, with its index; None when the
    /// clause's probes are not derived.
    fn derived_argument(
        &mut self,
        index: &Expr,
        span: &Span,
    ) -> SemaResult<Option<(DerivedArgument, usize)>> {
        let Some(derivation) = self.current_derivation() else {
            return Ok(None);
        };
        let index_value = self.operand(index)?;
        let Some(value) = super::constants::constant_value(&index_value) else {
            return Err(error(
                ErrorTag::D_ARGS_IDX,
                span,
                "index for args[ ] must be an integer constant",
            ));
        };
        let Some(argument) = derivation.arguments.get(value as usize) else {
            let description = self
                .clause
                .as_ref()
                .and_then(|clause| clause.probes.first())
                .map(|(text, _)| text.clone())
                .unwrap_or_default();
            return Err(error(
                ErrorTag::D_ARGS_IDX,
                span,
                format!(
                    "index {} is out of range for {description} args[ ]",
                    value as i64
                ),
            ));
        };
        Ok(Some((argument.clone(), value as usize)))
    }

    /// The native value of a derived argument, with its native type.
    fn native_argument(
        &mut self,
        argument: &DerivedArgument,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let value = self.derivation_expression(&argument.value, span)?;
        let native = self.named_type(&argument.native_type, span)?;
        Ok(self.convert(value, native))
    }

    /// The type a provider or the library names in text (`psinfo_t *`).
    fn named_type(&mut self, type_name: &str, span: &Span) -> SemaResult<TypeId> {
        crate::types::parse_type_name(&mut self.types, type_name).map_err(|failure| {
            error(
                ErrorTag::D_ARGS_TYPE,
                span,
                format!("type {type_name}: {}", failure.message),
            )
        })
    }
}

/// An error in text a provider wrote, which is our bug: reported with the text.
fn provider_text_error(text: &str, diagnostic: &Diagnostic, span: &Span) -> Diagnostic {
    error(
        ErrorTag::D_UNKNOWN,
        span,
        format!(
            "in the provider's definition `{text}`: {}",
            diagnostic.message
        ),
    )
}

/// Whether `expr` is `args[...]`, the built-in arguments array.
pub(super) fn is_arguments_array(expr: &Expr) -> bool {
    matches!(&expr.kind, ExprKind::Identifier(name) if name == "args")
}
