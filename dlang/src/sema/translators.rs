//! Translators (§1.9): `translator out < in IDENT > { member = expr; ... };`
//! definitions, checked against the output type, and `xlate` member references, which
//! are expanded by substituting the input value into the member's expression.

use std::collections::HashMap;

use super::derived_probes::is_arguments_array;
use super::ir::{LValue, TypedExpr, TypedExprKind};
use super::subject_task::SUBJECT_REFUSAL_TAG;
use super::{error, Analyzer, SemaResult, TranslatorInfo};
use crate::ast::{Expr, ExprKind, TranslatorDefinition, TypeName, UnaryOperator};
use crate::diagnostics::{ErrorTag, Span};
use crate::types::TypeId;

/// A value to be translated: the type it is translated to (a struct or union, or a
/// pointer to one) and the input the translator's parameter is bound to. Only its
/// members have values, each computed by the translator's expression for it.
pub(super) struct Translation {
    target: TypeId,
    input: TypedExpr,
}

/// Whether `expr` is written as a translation (`xlate <T>(e)`), the value of an inline
/// such as `curpsinfo`.
pub(super) fn is_translation(expr: &Expr) -> bool {
    matches!(expr.kind, ExprKind::Xlate { .. })
}

impl Analyzer<'_> {
    /// Checks and records a translator definition.
    /// `library_file` names the system library file of a library translator, whose
    /// members are checked when used: a member this kernel cannot provide is an error
    /// only for the programs that use it.
    pub(super) fn translator_definition(
        &mut self,
        translator: &TranslatorDefinition,
        library_file: Option<&'static str>,
    ) -> SemaResult<()> {
        // DTrace checks a translator (dt_node_xlator()) when its parser reduces the
        // definition at the closing `};`: its own errors report that line, while an
        // error inside a member's expression reports the line of that expression.
        let end = translator.span.end.saturating_sub(1)..translator.span.end;
        let output = self.type_from_type_name(&translator.output)?;
        let input = self.type_from_type_name(&translator.input)?;
        let redeclared = self.translators.iter().any(|existing| {
            self.types.same_type(existing.output, output)
                && self.types.same_type(existing.input, input)
        });
        if redeclared {
            return Err(error(
                ErrorTag::D_XLATE_REDECL,
                &end,
                format!(
                    "translator from {} to {} has already been declared",
                    self.type_name(input),
                    self.type_name(output)
                ),
            ));
        }
        if self.types.is_struct_or_union(output) && !self.types.is_defined(output) {
            return Err(error(
                ErrorTag::D_XLATE_SOU,
                &end,
                format!("incomplete struct/union/enum {}", self.type_name(output)),
            ));
        }
        if !self.types.is_struct_or_union(output) {
            return Err(error(
                ErrorTag::D_XLATE_SOU,
                &end,
                "translator output type must be a struct or union",
            ));
        }
        let placeholder = self.placeholder(input, &translator.input.span);
        let checked_members = if library_file.is_some() {
            &[][..]
        } else {
            translator.members.as_slice()
        };
        for (member, expr, _) in checked_members {
            let Some(found) = self.types.find_member(output, member) else {
                return Err(error(
                    ErrorTag::D_XLATE_MEMB,
                    &end,
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
                    &end,
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
            library_file,
            members: translator
                .members
                .iter()
                .map(|(member, expr, _)| (member.clone(), expr.clone()))
                .collect(),
        });
        Ok(())
    }

    /// `xlate <type> (expr)` used as a whole value. A translated pointer has, as in
    /// dt_cook_xlator(), DTrace's dynamic type: only its members can be used, and
    /// every other use is refused by the check for dynamic values of the context
    /// (`trace( ) may not be applied to a translated pointer`, D_TRACE_DYN).
    pub(super) fn xlate(
        &mut self,
        type_name: &TypeName,
        operand: &Expr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let target = self.checked_translation(type_name, operand, span)?;
        if !self.types.is_pointer(target) {
            let input = self.operand(operand)?;
            return self.translated_struct(Translation { target, input }, span);
        }
        let input = self.operand(operand)?;
        Ok(TypedExpr {
            kind: input.kind,
            ty: self.types.well_known().dynamic,
            span: span.clone(),
        })
    }

    /// `xlate <T>(e)` (or `*xlate <T *>(e)`) used as a whole, as dt_cg_xlate_expand()
    /// builds it: a `T` in scratch memory (alloca) into which each member the
    /// translator defines is stored in turn, the translator's members in their order.
    pub(super) fn translated_struct(
        &mut self,
        translation: Translation,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let Translation { target, input } = translation;
        let Some(index) = self.find_translator(target, &input) else {
            return Err(self.no_translator(&input, target, span));
        };
        let mut members: Vec<String> = Vec::new();
        for (member, _) in &self.translators[index].members {
            if !members.contains(member) {
                members.push(member.clone());
            }
        }
        let size = self.types.size_of(target);
        let pointer_type = self.types.pointer_to(target);
        let storage = self.hidden_clause_local("xlate")?;
        let pointer = TypedExpr {
            kind: TypedExprKind::Variable(storage),
            ty: pointer_type,
            span: span.clone(),
        };
        let allocation = TypedExpr {
            kind: TypedExprKind::Assign {
                target: LValue::Variable(storage),
                value: Box::new(TypedExpr {
                    kind: TypedExprKind::Call {
                        subroutine: difvm::isa::subroutine::ALLOCA,
                        arguments: vec![self.constant(size, self.types.well_known().size_t, span)],
                    },
                    ty: pointer_type,
                    span: span.clone(),
                }),
            },
            ty: pointer_type,
            span: span.clone(),
        };
        let mut steps = vec![allocation];
        for member in members {
            let translation = Translation {
                target,
                input: input.clone(),
            };
            let value = self.translated_member(translation, &member, false, span)?;
            let place = self.member_place(pointer.clone(), &member, "->", span)?;
            let member_type = self.place_type(&place);
            let lvalue = self.place_lvalue(place, "=", span)?;
            let value = self.convert(value, member_type);
            steps.push(TypedExpr {
                kind: TypedExprKind::Assign {
                    target: lvalue,
                    value: Box::new(value),
                },
                ty: member_type,
                span: span.clone(),
            });
        }
        let dereferenced = self.dereference_place(pointer, span)?;
        let mut result = self.read_place(dereferenced, span);
        while let Some(step) = steps.pop() {
            result = TypedExpr {
                ty: result.ty,
                span: span.clone(),
                kind: TypedExprKind::Comma {
                    left: Box::new(step),
                    right: Box::new(result),
                },
            };
        }
        Ok(result)
    }

    /// The type `xlate <type_name> (operand)` translates to, once it is checked that a
    /// translator from the operand's type to it (or, for a pointer, to what it points
    /// at) exists.
    pub(super) fn checked_translation(
        &mut self,
        type_name: &TypeName,
        operand: &Expr,
        span: &Span,
    ) -> SemaResult<TypeId> {
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
        Ok(target)
    }

    /// The translation `base` stands for, when it is one: `xlate <T>(e)`, a translated
    /// argument of a derived probe (`args[0]` of `proc:::create`), or an inline whose
    /// value is a translation (`curpsinfo`, `fds[0]`), through any number of inlines.
    pub(super) fn translation_of(&mut self, base: &Expr) -> SemaResult<Option<Translation>> {
        match &base.kind {
            // dt_cook_op1(): `*` applied to a translated pointer is the translated
            // struct (`(*curpsinfo).pr_pid`).
            ExprKind::Unary {
                operator: UnaryOperator::Dereference,
                operand,
            } => Ok(match self.translation_of(operand)? {
                Some(Translation { target, input }) if self.types.is_pointer(target) => {
                    Some(Translation {
                        target: self.types.referenced(target).unwrap_or(target),
                        input,
                    })
                }
                _ => None,
            }),
            ExprKind::Xlate { ty, operand } => {
                let target = self.type_from_type_name(ty)?;
                let input = self.operand(operand)?;
                Ok(Some(Translation { target, input }))
            }
            ExprKind::Index { base: array, keys } => {
                if let ([index], true) = (keys.as_slice(), is_arguments_array(array)) {
                    let translated = self.derived_argument_translation(index, &base.span)?;
                    return Ok(translated.map(|(target, input)| Translation { target, input }));
                }
                let ExprKind::Identifier(name) = &array.kind else {
                    return Ok(None);
                };
                if self.inline_parameter(name).is_some() {
                    return Ok(None);
                }
                self.declare_library_parameterised_inline(name)?;
                self.inline_translation(name, keys, &base.span)
            }
            ExprKind::Identifier(name) => {
                if self.inline_parameter(name).is_some() {
                    return Ok(None);
                }
                if !self.inlines.contains_key(name) && self.variables.global(name).is_none() {
                    self.declare_library_inline(name)?;
                }
                self.inline_translation(name, &[], &base.span)
            }
            _ => Ok(None),
        }
    }

    /// The translation inline `name` stands for with its parameters bound to
    /// `arguments`; None unless `name` is an inline whose value is a translation.
    fn inline_translation(
        &mut self,
        name: &str,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<Option<Translation>> {
        let Some(inline) = self.inlines.get(name).cloned() else {
            return Ok(None);
        };
        if !is_translation(&inline.definition.value) {
            return Ok(None);
        }
        if arguments.len() != inline.parameters.len() {
            // The ordinary expansion reports the mismatch.
            self.expand_inline(&inline, arguments, span)?;
            return Ok(None);
        }
        let mut bindings = HashMap::new();
        for ((parameter_type, parameter), argument) in inline.parameters.iter().zip(arguments) {
            let value = self.operand(argument)?;
            let value = self.convert(value, *parameter_type);
            bindings.insert(parameter.clone(), value);
        }
        self.inline_parameters.push(bindings);
        let translation = self.inline_body(&inline, span, |analyzer| {
            analyzer.translation_of(&inline.definition.value)
        });
        self.inline_parameters.pop();
        translation
    }

    /// `translation.member` (`arrow` false) or `translation->member`: the translator's
    /// expression for `member` with its parameter bound to the translated value.
    pub(super) fn translated_member(
        &mut self,
        translation: Translation,
        member: &str,
        arrow: bool,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let Translation { target, input } = translation;
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
        let Some(index) = self.find_translator(output, &input) else {
            return Err(self.no_translator(&input, target, span));
        };
        let Some(found) = self.types.find_member(output, member) else {
            return Err(error(
                ErrorTag::D_TYPE_MEMBER,
                span,
                format!("{member} is not a member of {}", self.type_name(output)),
            ));
        };
        let translator = self.translators[index].clone();
        // A library translator may define a member more than once, once per kernel
        // version's structures (`rss_stat` became an array of per-CPU counters in
        // 6.2): the first definition this kernel's types accept is the member's.
        let (input, hoisting) = self.hoisted_translator_input(input)?;
        // The parameter has the translator's input type, whatever compatible type the
        // translated value has (`xlate <T>(p)` of a `void *` p reads p as the input
        // struct), as DTrace cooks the members once with the declared parameter.
        let input = self.convert(input, translator.input);
        let mut result: Option<SemaResult<TypedExpr>> = None;
        for (_, expr) in translator.members.iter().filter(|(name, _)| name == member) {
            let mut bindings = HashMap::new();
            bindings.insert(translator.parameter.clone(), input.clone());
            self.inline_parameters.push(bindings);
            // DTrace cooks the members with the translator, not in the clause: what
            // they read counts neither for the statement's attributes nor against
            // `amin`.
            let attempt = self.without_attributes(|analyzer| analyzer.expression(expr));
            self.inline_parameters.pop();
            let accepted = attempt.is_ok();
            // The first definition's error is the one reported when none is accepted.
            if accepted || result.is_none() {
                result = Some(attempt);
            }
            if accepted {
                break;
            }
        }
        let Some(result) = result else {
            return Err(error(
                ErrorTag::D_XLATE_NOCONV,
                span,
                format!("translator does not define conversion for member: {member}"),
            ));
        };
        let result = result.map(|value| match hoisting {
            Some(assignment) => TypedExpr {
                ty: value.ty,
                span: value.span.clone(),
                kind: TypedExprKind::Comma {
                    left: Box::new(assignment),
                    right: Box::new(value),
                },
            },
            None => value,
        });
        let value = result.map_err(|diagnostic| match translator.library_file {
            // A member that cannot describe the thread a probe is about from another
            // thread's context (`pr_psargs` reads user memory) is refused as such, not
            // as missing from this kernel.
            Some(file) if diagnostic.tag == SUBJECT_REFUSAL_TAG => error(
                diagnostic.tag,
                span,
                format!(
                    "{}'s member {member} (translator in {file}): {}",
                    self.type_name(output),
                    diagnostic.message
                ),
            ),
            Some(_) if self.types.kernel_module().is_none() => error(
                diagnostic.tag,
                span,
                format!(
                    "{}'s member {member} needs the kernel's types (BTF), which are not available",
                    self.type_name(output)
                ),
            ),
            Some(file) => error(
                diagnostic.tag,
                span,
                format!(
                    "{}'s member {member} (translator in {file}) is not available on this kernel: {}",
                    self.type_name(output),
                    diagnostic.message
                ),
            ),
            None => diagnostic,
        })?;
        let converted = self.convert(value, found.ty);
        Ok(TypedExpr {
            span: span.clone(),
            ..converted
        })
    }

    /// The value a translator's parameter stands for in its member's expression: an
    /// input that is more than a constant or a variable (a derived probe's `args[N]`
    /// reads kernel memory to find its native value) is computed once, into a hidden
    /// clause-local, rather than once per use of the parameter; with the assignment
    /// that must come first.
    fn hoisted_translator_input(
        &mut self,
        input: TypedExpr,
    ) -> SemaResult<(TypedExpr, Option<TypedExpr>)> {
        let is_cheap = matches!(
            input.kind,
            TypedExprKind::Integer(_) | TypedExprKind::Variable(_)
        );
        let is_scalar = self.types.is_integer(input.ty) || self.types.is_pointer(input.ty);
        if is_cheap || !is_scalar {
            return Ok((input, None));
        }
        let variable = self.hidden_clause_local("translated")?;
        self.variables.get_mut(variable).ty = Some(input.ty);
        let read = TypedExpr {
            kind: TypedExprKind::Variable(variable),
            ty: input.ty,
            span: input.span.clone(),
        };
        let assignment = TypedExpr {
            ty: input.ty,
            span: input.span.clone(),
            kind: TypedExprKind::Assign {
                target: LValue::Variable(variable),
                value: Box::new(input),
            },
        };
        Ok((read, Some(assignment)))
    }

    /// The translator to `output` for `value`: one whose input type is `value`'s own,
    /// else the first whose input `value` is compatible with (dt_xlator_lookup's exact,
    /// then fuzzy, match), so that a NULL `void_ip_t` does not pick a pointer's.
    pub(super) fn find_translator(&self, output: TypeId, value: &TypedExpr) -> Option<usize> {
        let to_output = |index: &usize| {
            self.types
                .same_type(self.translators[*index].output, output)
        };
        let mut candidates = (0..self.translators.len()).filter(to_output);
        candidates
            .clone()
            .find(|&index| {
                self.types
                    .same_type(self.translators[index].input, value.ty)
            })
            .or_else(|| {
                candidates.find(|&index| {
                    self.is_argument_compatible(self.translators[index].input, value)
                })
            })
    }

    pub(super) fn no_translator(
        &self,
        value: &TypedExpr,
        target: TypeId,
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
