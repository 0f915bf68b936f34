//! Format checking (§9.2) for `printf`, `system`, `freopen` and `printa`: the format
//! must be a string constant, and each conversion must find an argument (or key) of a
//! type it accepts.

use difvm::object::{AggregationFunction, FREOPEN_RESTORE_TOKEN};

use super::ir::{FormattedKind, RecordedValue, TypedAction};
use super::{error, Analyzer, SemaResult};
use crate::ast::{Expr, ExprKind};
use crate::diagnostics::{ErrorTag, Span};
use crate::format::{
    compile_format, ArgumentClass, ArgumentRole, ConversionRule, FormatArgument, FormatString,
    ParseFormat, PrintfFormat, SyntaxDiagnostic,
};
use crate::types::{TypeId, TypeKind};

/// An argument as format checking sees it: its type and its 1-based position in the
/// call (the format is argument #1).
struct CheckedArgument {
    ty: TypeId,
    position: usize,
    span: Span,
}

impl Analyzer<'_> {
    /// `printf`, `system` or `freopen`.
    pub(super) fn formatted_action(
        &mut self,
        kind: FormattedKind,
        name: &str,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<TypedAction> {
        let Some(format_argument) = arguments.first() else {
            return Err(error(
                ErrorTag::D_PROTO_LEN,
                span,
                format!("{name}( ) prototype mismatch: 0 args passed, at least 1 expected"),
            ));
        };
        let (stored_format, format) = if kind == FormattedKind::Freopen {
            self.freopen_format(format_argument, span)?
        } else {
            self.format_constant(name, format_argument)?
        };
        let mut values = Vec::new();
        for argument in &arguments[1..] {
            if super::operators::is_aggregation_expression(argument) {
                let value_name = super::assignment::aggregation_name(argument);
                return Err(error(
                    ErrorTag::D_PRINTF_ARG_TYPE,
                    &argument.span,
                    format!("{name}( ) argument may not be an aggregation: @{value_name}"),
                ));
            }
            values.push(self.recordable_expression(argument)?);
        }
        let checked: Vec<CheckedArgument> = values
            .iter()
            .enumerate()
            .map(|(index, value)| CheckedArgument {
                ty: value.ty,
                position: index + 2,
                span: value.span.clone(),
            })
            .collect();
        self.check_conversions(name, &format, &checked, None, span)?;
        let mut recorded = Vec::new();
        for value in values {
            let Some(shape) = self.record_shape(&value) else {
                return Err(error(
                    ErrorTag::D_PRINTF_ARG_TYPE,
                    &value.span,
                    format!(
                        "{name}( ) argument of type {} cannot be recorded",
                        self.type_name(value.ty)
                    ),
                ));
            };
            recorded.push(RecordedValue { value, shape });
        }
        Ok(TypedAction::Formatted {
            kind,
            format: stored_format,
            arguments: recorded,
        })
    }

    /// `printa(@a)`, `printa(fmt, @a[, @b ...])`.
    pub(super) fn printa(&mut self, arguments: &[Expr], span: &Span) -> SemaResult<TypedAction> {
        if arguments.is_empty() {
            // printa's prototype is printf's, void(@, ...): the generic prototype check
            // refuses a call without arguments before dt_action_printa() runs.
            return Err(error(
                ErrorTag::D_PROTO_LEN,
                span,
                "printa( ) prototype mismatch: 0 args passed, at least 1 expected",
            ));
        }
        // As in dt_cc.c, only a string literal first argument is a format: anything
        // else stands where an aggregation belongs (D_PRINTA_AGGARG, argument #1).
        let has_format = matches!(arguments[0].kind, ExprKind::String(_));
        let (format, first_aggregation) = if has_format {
            (Some(self.format_constant("printa", &arguments[0])?), 1)
        } else {
            (None, 0)
        };
        if arguments.len() <= first_aggregation {
            // dt_action_printa()'s own count check, worded without the plural and
            // "at least" of the generic prototype message: a format needs one
            // aggregation after it.
            return Err(error(
                ErrorTag::D_PRINTA_PROTO,
                span,
                format!(
                    "printa( ) prototype mismatch: {} args passed, {} expected",
                    arguments.len(),
                    first_aggregation + 1
                ),
            ));
        }
        // dt_action_printa() takes the aggregations in turn: each must be a defined
        // aggregation; the format is checked against the first one's keys as soon as
        // it is seen, and every later one's keys against the first one's.
        let mut aggregations: Vec<u32> = Vec::new();
        for (index, argument) in arguments.iter().enumerate().skip(first_aggregation) {
            let id = self.named_aggregation(
                "printa",
                argument,
                index + 1,
                (ErrorTag::D_PRINTA_AGGARG, ErrorTag::D_PRINTA_AGGBAD),
            )?;
            aggregations.push(id);
            if aggregations.len() == 1 {
                let first = self.aggregations[id as usize - 1].clone();
                if let Some((_, parsed)) = &format {
                    let keys: Vec<CheckedArgument> = first
                        .keys
                        .iter()
                        .enumerate()
                        .map(|(index, (ty, _))| CheckedArgument {
                            ty: *ty,
                            position: index + 2,
                            span: span.clone(),
                        })
                        .collect();
                    let value = AggregationValue::of(&first.function);
                    self.check_conversions("printa", parsed, &keys, Some(value), span)?;
                }
                continue;
            }
            let first = self.aggregations[aggregations[0] as usize - 1].clone();
            let other = &self.aggregations[id as usize - 1];
            if other.keys.len() != first.keys.len() {
                let plural = |count: usize| if count == 1 { "" } else { "s" };
                return Err(error(
                    ErrorTag::D_PRINTA_AGGKEY,
                    span,
                    format!(
                        "printa( ): @{} and @{} do not have matching key signatures: @{} has {} key{}, @{} has {} key{}",
                        first.name,
                        other.name,
                        first.name,
                        first.keys.len(),
                        plural(first.keys.len()),
                        other.name,
                        other.keys.len(),
                        plural(other.keys.len())
                    ),
                ));
            }
            for (position, ((expected, _), (found, _))) in
                first.keys.iter().zip(&other.keys).enumerate()
            {
                let compatible = self.types.same_type(*expected, *found)
                    || (self.types.is_integer(*expected) && self.types.is_integer(*found))
                    || self.types.is_same_internal(*expected, *found);
                if !compatible {
                    // dt_printa_validate() names each aggregation's key type on a
                    // line of its own, the names right-aligned in nine columns.
                    return Err(error(
                        ErrorTag::D_PRINTA_AGGPROTO,
                        span,
                        format!(
                            "printa( ): @{}[ ] key #{} is incompatible with @{}:\n{:>9} key #{}: {}\n{:>9} key #{}: {}",
                            other.name,
                            position + 1,
                            first.name,
                            first.name,
                            position + 1,
                            self.type_name(*expected),
                            other.name,
                            position + 1,
                            self.type_name(*found)
                        ),
                    ));
                }
            }
        }
        if aggregations.len() > 1 {
            self.printa_joins.push(aggregations.clone());
        }
        Ok(TypedAction::Printa {
            format: format.map(|(stored, _)| stored),
            aggregations,
        })
    }

    /// The format argument: a string constant that parses and is not empty. Returns the
    /// format the program stores and the parsed format the arguments are checked against.
    fn format_constant(
        &mut self,
        name: &str,
        argument: &Expr,
    ) -> SemaResult<(PrintfFormat, FormatString)> {
        let (text, parsed) = self.format_text(name, argument)?;
        if parsed.is_empty() {
            return Err(error(
                ErrorTag::D_PRINTF_FMT_EMPTY,
                &argument.span,
                format!("{name}( ) format string is empty"),
            ));
        }
        Ok((PrintfFormat::from_parsed(text, parsed.clone()), parsed))
    }

    /// The format argument of `freopen()`. An empty format means "restore the original
    /// output", so instead of being refused it becomes the restore sentinel, as dt_cc.c
    /// does; the sentinel itself is refused, since it would otherwise restore the output
    /// rather than open a file of that name. Returns the format the program stores and
    /// the parsed format the arguments are checked against.
    fn freopen_format(
        &mut self,
        argument: &Expr,
        span: &Span,
    ) -> SemaResult<(PrintfFormat, FormatString)> {
        let (text, parsed) = self.format_text("freopen", argument)?;
        if text == FREOPEN_RESTORE_TOKEN {
            return Err(error(
                ErrorTag::D_FREOPEN_INVALID,
                span,
                format!("freopen( ) argument #1 cannot be \"{FREOPEN_RESTORE_TOKEN}\""),
            ));
        }
        if parsed.is_empty() {
            // The sentinel has no conversions, so the arguments are checked against the
            // empty format just the same (extra arguments are refused).
            return Ok((compile_format(FREOPEN_RESTORE_TOKEN), parsed));
        }
        Ok((PrintfFormat::from_parsed(text, parsed.clone()), parsed))
    }

    /// The format argument as written: a string constant that parses (possibly empty).
    fn format_text(&mut self, name: &str, argument: &Expr) -> SemaResult<(String, FormatString)> {
        let ExprKind::String(bytes) = &argument.kind else {
            let value = self.operand(argument)?;
            return Err(error(
                ErrorTag::D_PRINTF_ARG_FMT,
                &argument.span,
                format!(
                    "{name}( ) argument #1 is incompatible with prototype:\n\tprototype: string constant\n\t argument: {}",
                    self.type_name(value.ty)
                ),
            ));
        };
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        let text = String::from_utf8_lossy(&bytes[..end]).into_owned();
        let parsed = FormatString::parse_bytes(&bytes[..end])
            .map_err(|failure| failure.to_diagnostic(argument.span.clone()))?;
        Ok((text, parsed))
    }

    /// Walks the conversions of `format`, matching each with the next arguments.
    /// `aggregation` is the value `printa()`'s `%@` conversions consume (None for the
    /// other actions, where `%@` is refused).
    fn check_conversions(
        &mut self,
        name: &str,
        format: &FormatString,
        arguments: &[CheckedArgument],
        aggregation: Option<AggregationValue>,
        span: &Span,
    ) -> SemaResult<()> {
        let mut next = 0;
        for conversion in format.conversions() {
            if conversion.flags.aggregation && aggregation.is_none() {
                return Err(error(
                    ErrorTag::D_PRINTF_AGG_CONV,
                    span,
                    format!(
                        "%@ conversion requires an aggregation and is not for use with {name}( )"
                    ),
                ));
            }
            for role in conversion.arguments() {
                let Some(argument) = arguments.get(next) else {
                    let (tag, what) = match role {
                        ArgumentRole::DynamicWidth => (ErrorTag::D_PRINTF_DYN_PROTO, "\"*\""),
                        ArgumentRole::DynamicPrecision => (ErrorTag::D_PRINTF_DYN_PROTO, "\".*\""),
                        ArgumentRole::Value => (ErrorTag::D_PRINTF_ARG_PROTO, "value"),
                    };
                    return Err(error(
                        tag,
                        span,
                        format!(
                            "{name}( ) prototype mismatch: conversion #{} (%{}) is missing a corresponding {what} argument",
                            conversion.number, conversion.name
                        ),
                    ));
                };
                next += 1;
                if role != ArgumentRole::Value {
                    // dt_printf_validate() names the dynamic part the argument was
                    // for: "*" for a width, ".*" for a precision.
                    let dynamic = if role == ArgumentRole::DynamicPrecision {
                        ".*"
                    } else {
                        "*"
                    };
                    if !self.types.is_integer(argument.ty) {
                        return Err(error(
                            ErrorTag::D_PRINTF_DYN_TYPE,
                            &argument.span,
                            format!(
                                "{name}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: % {dynamic}{}\n\t prototype: int\n\t  argument: {}",
                                argument.position,
                                conversion.number,
                                conversion.name,
                                self.type_name(argument.ty)
                            ),
                        ));
                    }
                    continue;
                }
                let (class, resolved, typedefs) = self.format_argument_description(argument.ty);
                let typedef_names: Vec<&str> = typedefs.iter().map(String::as_str).collect();
                let described = FormatArgument {
                    class,
                    resolved_name: &resolved,
                    typedef_names: &typedef_names,
                };
                if !conversion
                    .rule()
                    .accepts(&described, self.options.user_process_attached)
                {
                    return Err(error(
                        ErrorTag::D_PRINTF_ARG_TYPE,
                        &argument.span,
                        format!(
                            "{name}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: %{}\n\t prototype: {}\n\t  argument: {}",
                            argument.position,
                            conversion.number,
                            conversion.name,
                            conversion.rule().prototype(),
                            self.type_name(argument.ty)
                        ),
                    ));
                }
            }
            if let (true, Some(value)) = (conversion.flags.aggregation, aggregation) {
                // dt_printf_validate() checks a %@ conversion against a stand-in for
                // the aggregation's value: uint64_t for count(), int64_t for every
                // other function (histograms included), named "aggregating action".
                let described = value.described();
                if !conversion
                    .rule()
                    .accepts(&described, self.options.user_process_attached)
                {
                    return Err(error(
                        ErrorTag::D_PRINTF_ARG_TYPE,
                        span,
                        format!(
                            "{name}( ) aggregating action is incompatible with conversion #{} prototype:\n\tconversion: %{}\n\t prototype: {}\n\t  argument: {}",
                            conversion.number,
                            conversion.name,
                            conversion.rule().prototype(),
                            value.type_name()
                        ),
                    ));
                }
            }
        }
        if aggregation.is_none() && next < arguments.len() {
            return Err(error(
                ErrorTag::D_PRINTF_ARG_EXTRA,
                &arguments[next].span,
                format!("{name}( ) prototype mismatch: only {} arguments required by this format string", next + 1),
            ));
        }
        Ok(())
    }

    /// Describes a type for the format tables: class, resolved name, typedef chain.
    fn format_argument_description(&self, ty: TypeId) -> (ArgumentClass, String, Vec<String>) {
        let mut typedefs = Vec::new();
        let mut current = ty;
        loop {
            match self.types.kind(current) {
                TypeKind::Typedef { name, target } => {
                    typedefs.push(name.clone());
                    current = *target;
                }
                TypeKind::Qualified { target, .. } => current = *target,
                _ => break,
            }
        }
        let resolved = self.type_name(current);
        let class = match self.types.kind(current) {
            TypeKind::Integer { size, signed, .. } => ArgumentClass::Integer {
                size: *size,
                signed: *signed,
            },
            TypeKind::Enum { .. } => ArgumentClass::Enum { size: 4 },
            TypeKind::Float { size, .. } => ArgumentClass::Float { size: *size },
            TypeKind::Pointer { .. } => ArgumentClass::Pointer,
            TypeKind::String => ArgumentClass::String,
            TypeKind::Array { element, .. } if self.types.is_character(*element) => {
                ArgumentClass::CharArray
            }
            TypeKind::Array { element, .. } if self.types.name(*element) == "wchar_t" => {
                ArgumentClass::WideCharArray
            }
            TypeKind::Stack => ArgumentClass::Stack,
            TypeKind::SymbolAddress => ArgumentClass::SymbolAddress,
            TypeKind::UserSymbolAddress => ArgumentClass::UserSymbolAddress,
            _ => ArgumentClass::Other,
        };
        (class, resolved, typedefs)
    }
}

/// The value a `printa()` format's `%@` conversions print, as DTrace types it for
/// checking: unsigned for `count()`, signed for every other aggregating function.
#[derive(Debug, Clone, Copy)]
struct AggregationValue {
    signed: bool,
}

impl AggregationValue {
    fn of(function: &AggregationFunction) -> AggregationValue {
        AggregationValue {
            signed: !matches!(function, AggregationFunction::Count),
        }
    }

    /// The typedef DTrace's messages name.
    fn type_name(self) -> &'static str {
        if self.signed {
            "int64_t"
        } else {
            "uint64_t"
        }
    }

    /// The typedef as the conversion table sees it: a 64-bit integer (`long` or
    /// `unsigned long` on LP64) reached through `int64_t` or `uint64_t`.
    fn described(&self) -> FormatArgument<'static> {
        let (resolved_name, typedef_names): (&'static str, &'static [&'static str]) = if self.signed
        {
            ("long", &["int64_t"])
        } else {
            ("unsigned long", &["uint64_t"])
        };
        FormatArgument {
            class: ArgumentClass::Integer {
                size: 8,
                signed: self.signed,
            },
            resolved_name,
            typedef_names,
        }
    }
}
