//! Aggregations (§8.1–8.2): `@name[keys] = function(args)` with the key signature and
//! function fixed by the first use, the argument rules of every aggregating function
//! (including the constant parameters of lquantize and llquantize), and the actions
//! that name aggregations (`clear`, `trunc`, `normalize`, `denormalize`).

use difvm::aggregation::{LogLinearQuantization, LQUANTIZE_MAX_LEVELS};
use difvm::object::{AggregationFunction, ValueLayout};

use super::assignment::{aggregation_name, prototype_mismatch};
use super::functions::{self, ActionFunction, AggregatingFunction, FunctionKind};
use super::ir::{AggregationInfo, RecordedValue, TypedAction, TypedExpr};
use super::{constants, error, Analyzer, SemaResult};
use crate::ast::{AssignmentOperator, Expr, ExprKind};
use crate::diagnostics::{ErrorTag, Span};

impl Analyzer<'_> {
    /// `@name[keys] = function(args);`
    pub(super) fn aggregation_statement(
        &mut self,
        operator: AssignmentOperator,
        target: &Expr,
        value: &Expr,
        span: &Span,
    ) -> SemaResult<TypedAction> {
        let name = aggregation_name(target);
        let not_a_function = || {
            error(
                ErrorTag::D_AGG_FUNC,
                span,
                format!("@{name} must be assigned the result of an aggregating function"),
            )
        };
        let key_expressions: &[Expr] = match &target.kind {
            ExprKind::Index { base, keys } => {
                if !matches!(base.kind, ExprKind::Aggregation(_)) {
                    return Err(error(
                        ErrorTag::D_AGG_MDIM,
                        span,
                        format!(
                            "improper attempt to reference @{name} as a multi-dimensional array"
                        ),
                    ));
                }
                keys
            }
            _ => &[],
        };
        if operator != AssignmentOperator::Assign {
            return Err(not_a_function());
        }
        let ExprKind::Call { callee, arguments } = &value.kind else {
            return Err(not_a_function());
        };
        let ExprKind::Identifier(function_name) = &callee.kind else {
            return Err(not_a_function());
        };
        if self.variables.global(function_name).is_some()
            || self.inlines.contains_key(function_name)
        {
            return Err(not_a_function());
        }
        let Some((FunctionKind::Aggregating(function), prototype_text)) =
            functions::lookup_function(function_name)
        else {
            return Err(not_a_function());
        };

        let mut keys = Vec::new();
        for (index, key) in key_expressions.iter().enumerate() {
            let value = self.recordable_expression(key)?;
            if self.types.is_void(value.ty) || self.types.is_dynamic(value.ty) {
                let kind = if self.types.is_void(value.ty) {
                    "void"
                } else {
                    "dynamic"
                };
                return Err(error(
                    ErrorTag::D_KEY_TYPE,
                    &key.span,
                    format!(
                        "{kind} expression may not be used as aggregation index: key #{}",
                        index + 1
                    ),
                ));
            }
            let Some(shape) = self.record_shape(&value) else {
                return Err(error(
                    ErrorTag::D_KEY_TYPE,
                    &key.span,
                    format!(
                        "{} expression may not be used as aggregation index: key #{}",
                        self.type_name(value.ty),
                        index + 1
                    ),
                ));
            };
            keys.push(RecordedValue { value, shape });
        }

        let prototype = functions::parse_prototype(&mut self.types, prototype_text);
        let display = format!("{function_name}( )");
        functions::check_argument_count(&display, &prototype, arguments.len(), false, span)?;
        let (aggregation_function, values) =
            self.aggregating_arguments(function, function_name, arguments, span)?;

        let id = self.aggregation_for_use(&name, aggregation_function, &keys, span)?;
        // Keys are recorded with the layout the first use fixed.
        let shapes: Vec<_> = self.aggregations[id as usize - 1]
            .keys
            .iter()
            .map(|(_, shape)| shape.clone())
            .collect();
        for (key, shape) in keys.iter_mut().zip(shapes) {
            key.shape = shape;
        }
        Ok(TypedAction::Aggregate {
            aggregation: id,
            keys,
            arguments: values,
        })
    }

    /// Checks the arguments of an aggregating function; returns the function with its
    /// constant parameters and the values the engine computes at each firing (the
    /// value, then the optional increment).
    fn aggregating_arguments(
        &mut self,
        function: AggregatingFunction,
        name: &str,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<(AggregationFunction, Vec<TypedExpr>)> {
        let mut values = Vec::new();
        for argument in arguments {
            values.push(self.operand(argument)?);
        }
        let scalar = |analyzer: &Self, values: &[TypedExpr], index: usize| -> SemaResult<()> {
            match values.get(index) {
                Some(value) if !analyzer.types.is_scalar(value.ty) => Err(error(
                    ErrorTag::D_AGG_SCALAR,
                    &value.span,
                    format!("{name}( ) argument #{} must be of scalar type", index + 1),
                )),
                _ => Ok(()),
            }
        };
        // dt_compile_agg() checks a histogram's increment after its parameters: it must
        // be scalar, and nothing may follow it.
        let increment = |analyzer: &Self, values: &[TypedExpr], index: usize| -> SemaResult<()> {
            let Some(value) = values.get(index) else {
                return Ok(());
            };
            if !analyzer.types.is_scalar(value.ty) {
                return Err(error(
                    ErrorTag::D_PROTO_ARG,
                    span,
                    format!(
                        "{name}( ) increment value (argument #{}) must be of scalar type",
                        index + 1
                    ),
                ));
            }
            if values.len() > index + 1 {
                return Err(error(
                    ErrorTag::D_PROTO_LEN,
                    &value.span,
                    format!(
                        "{name}( ) prototype mismatch: {} args passed, at most {} expected",
                        values.len(),
                        index + 1
                    ),
                ));
            }
            Ok(())
        };
        let result = match function {
            AggregatingFunction::Count => (AggregationFunction::Count, Vec::new()),
            AggregatingFunction::Sum
            | AggregatingFunction::Avg
            | AggregatingFunction::Min
            | AggregatingFunction::Max
            | AggregatingFunction::Stddev => {
                scalar(self, &values, 0)?;
                let kind = match function {
                    AggregatingFunction::Sum => AggregationFunction::Sum,
                    AggregatingFunction::Avg => AggregationFunction::Avg,
                    AggregatingFunction::Min => AggregationFunction::Min,
                    AggregatingFunction::Max => AggregationFunction::Max,
                    _ => AggregationFunction::Stddev,
                };
                (kind, values)
            }
            AggregatingFunction::Quantize => {
                scalar(self, &values, 0)?;
                increment(self, &values, 1)?;
                (AggregationFunction::Quantize, values)
            }
            AggregatingFunction::Lquantize => {
                scalar(self, &values, 0)?;
                let kind = self.lquantize_parameters(&values, span)?;
                increment(self, &values, 4)?;
                let mut dynamic = vec![values[0].clone()];
                dynamic.extend(values.get(4).cloned());
                (kind, dynamic)
            }
            AggregatingFunction::Llquantize => {
                scalar(self, &values, 0)?;
                let kind = self.llquantize_parameters(&values, span)?;
                increment(self, &values, 5)?;
                let mut dynamic = vec![values[0].clone()];
                dynamic.extend(values.get(5).cloned());
                (kind, dynamic)
            }
        };
        Ok(result)
    }

    /// `lquantize(x, low, high[, step[, increment]])`'s constant parameters.
    fn lquantize_parameters(
        &self,
        values: &[TypedExpr],
        span: &Span,
    ) -> SemaResult<AggregationFunction> {
        let constant = |value: &TypedExpr| {
            constants::constant_value(value).filter(|_| self.types.is_integer(value.ty))
        };
        let low_value = &values[1];
        let Some(low) = constant(low_value) else {
            return Err(error(
                ErrorTag::D_LQUANT_BASETYPE,
                &low_value.span,
                "lquantize( ) argument #1 must be an integer constant",
            ));
        };
        let low = low as i64;
        if low < i64::from(i32::MIN) || low > i64::from(i32::MAX) {
            return Err(error(
                ErrorTag::D_LQUANT_BASEVAL,
                &low_value.span,
                "lquantize( ) argument #1 must be a 32-bit quantity",
            ));
        }
        let high_value = &values[2];
        let Some(high) = constant(high_value) else {
            return Err(error(
                ErrorTag::D_LQUANT_LIMTYPE,
                &high_value.span,
                "lquantize( ) argument #2 must be an integer constant",
            ));
        };
        let high = high as i64;
        if high < i64::from(i32::MIN) || high > i64::from(i32::MAX) {
            return Err(error(
                ErrorTag::D_LQUANT_LIMVAL,
                &high_value.span,
                "lquantize( ) argument #2 must be a 32-bit quantity",
            ));
        }
        if high < low {
            return Err(error(
                ErrorTag::D_LQUANT_MISMATCH,
                span,
                "lquantize( ) base (argument #1) must be less than limit (argument #2)",
            ));
        }
        let step = match values.get(3) {
            None => 1,
            Some(step_value) => {
                let step = constant(step_value)
                    .map(|step| step as i64)
                    .filter(|&step| step > 0)
                    .ok_or_else(|| {
                        error(
                            ErrorTag::D_LQUANT_STEPTYPE,
                            &step_value.span,
                            "lquantize( ) argument #3 must be a non-zero positive integer constant",
                        )
                    })?;
                if step > i64::from(u16::MAX) {
                    return Err(error(
                        ErrorTag::D_LQUANT_STEPVAL,
                        &step_value.span,
                        "lquantize( ) argument #3 must be a 16-bit quantity",
                    ));
                }
                step
            }
        };
        let levels = (high - low) / step;
        if levels == 0 {
            return Err(error(
                ErrorTag::D_LQUANT_STEPLARGE,
                span,
                "lquantize( ) step (argument #3) too large: must have at least one quantization level",
            ));
        }
        if levels > LQUANTIZE_MAX_LEVELS {
            return Err(error(
                ErrorTag::D_LQUANT_STEPSMALL,
                span,
                "lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity",
            ));
        }
        // DTrace keeps base, levels and step: the limit is where the last level ends,
        // so lquantize(x, 0, 11, 3) is lquantize(x, 0, 9, 3), and a later use matches
        // an earlier one by that limit.
        Ok(AggregationFunction::Lquantize {
            low: low as i32,
            high: (low + levels * step) as i32,
            step: step as u32,
        })
    }

    /// `llquantize(x, factor, low, high, steps[, increment])`'s constant parameters,
    /// checked with Linux DTrace's rules.
    fn llquantize_parameters(
        &self,
        values: &[TypedExpr],
        span: &Span,
    ) -> SemaResult<AggregationFunction> {
        let argument = |index: usize,
                        word: &str,
                        type_tag: ErrorTag,
                        value_tag: ErrorTag,
                        minimum: i64|
         -> SemaResult<u16> {
            let value = &values[index];
            let constant = constants::constant_value(value)
                .filter(|_| self.types.is_integer(value.ty))
                .ok_or_else(|| {
                    error(
                        type_tag,
                        &value.span,
                        format!(
                            "llquantize( ) argument #{index} ({word}) must be an integer constant"
                        ),
                    )
                })?;
            let constant = constant as i64;
            if constant < minimum || constant > i64::from(u16::MAX) {
                let message = if minimum > 0 && constant < minimum && constant >= 0 && index == 1 {
                    format!("llquantize( ) argument #{index} ({word}) must be two or more")
                } else {
                    format!("llquantize( ) argument #{index} ({word}) must be an unsigned 16-bit quantity")
                };
                return Err(error(value_tag, &value.span, message));
            }
            Ok(constant as u16)
        };
        let factor = argument(
            1,
            "factor",
            ErrorTag::D_LLQUANT_FACTORTYPE,
            ErrorTag::D_LLQUANT_FACTORVAL,
            2,
        )?;
        let low = argument(
            2,
            "low magnitude",
            ErrorTag::D_LLQUANT_LMAGTYPE,
            ErrorTag::D_LLQUANT_LMAGVAL,
            0,
        )?;
        let high = argument(
            3,
            "high magnitude",
            ErrorTag::D_LLQUANT_HMAGTYPE,
            ErrorTag::D_LLQUANT_HMAGVAL,
            0,
        )?;
        if high < low {
            return Err(error(
                ErrorTag::D_LLQUANT_HMAGVAL,
                &values[3].span,
                "llquantize( ) argument #3 (high magnitude) must be at least argument #2 (low magnitude)",
            ));
        }
        let steps = argument(
            4,
            "steps",
            ErrorTag::D_LLQUANT_STEPTYPE,
            ErrorTag::D_LLQUANT_STEPVAL,
            1,
        )?;
        if steps < factor && factor % steps != 0 {
            return Err(error(
                ErrorTag::D_LLQUANT_STEPVAL,
                &values[4].span,
                "llquantize( ) argument #4 (steps) must evenly divide argument #1 (factor) when steps<factor",
            ));
        }
        if steps > factor && steps % factor != 0 {
            return Err(error(
                ErrorTag::D_LLQUANT_STEPVAL,
                &values[4].span,
                "llquantize( ) argument #4 (steps) must be a multiple of argument #1 (factor) when steps>factor",
            ));
        }
        if i64::from(factor).checked_pow(u32::from(high) + 1).is_none() {
            return Err(error(
                ErrorTag::D_LLQUANT_MAGTOOBIG,
                span,
                format!("llquantize( ) factor ({factor}) raised to power of high magnitude ({high}) plus 1 overflows 64-bits"),
            ));
        }
        if LogLinearQuantization::new(factor, low, high, steps).is_err() {
            return Err(error(
                ErrorTag::D_LLQUANT_MAGTOOBIG,
                span,
                format!("llquantize( ) parameters factor {factor}, magnitudes {low}..{high}, {steps} steps need too many buckets"),
            ));
        }
        Ok(AggregationFunction::Llquantize {
            factor,
            low,
            high,
            steps,
        })
    }

    /// Finds or creates the aggregation for a use, checking that the use agrees with
    /// the first one. Returns its id.
    fn aggregation_for_use(
        &mut self,
        name: &str,
        function: AggregationFunction,
        keys: &[RecordedValue],
        span: &Span,
    ) -> SemaResult<u32> {
        let line = self.line_of(span.start);
        let Some(&index) = self.aggregation_names.get(name) else {
            let id = self.aggregations.len() as u32 + 1;
            self.aggregations.push(AggregationInfo {
                id,
                name: name.to_string(),
                function,
                keys: keys
                    .iter()
                    .map(|key| (key.value.ty, key.shape.clone()))
                    .collect(),
                defined_at_line: line,
            });
            self.aggregation_names
                .insert(name.to_string(), self.aggregations.len() - 1);
            return Ok(id);
        };
        let existing = self.aggregations[index].clone();
        if existing.function.name() != function.name() {
            return Err(error(
                ErrorTag::D_AGG_REDEF,
                span,
                format!(
                    "aggregation redefined: @{name}\n\t current: @{name} = {}( )\n\tprevious: @{name} = {}( ) : line {}",
                    function.name(),
                    existing.function.name(),
                    existing.defined_at_line
                ),
            ));
        }
        check_parameters(existing.function, function, span)?;
        let display = format!("@{name}[ ]");
        if existing.keys.len() != keys.len() {
            return Err(prototype_mismatch(
                &display,
                keys.len(),
                existing.keys.len(),
                span,
            ));
        }
        for (position, ((expected, _), key)) in existing.keys.iter().zip(keys).enumerate() {
            if !self.is_argument_compatible(*expected, &key.value) {
                return Err(functions::incompatible_argument(
                    &display,
                    position + 1,
                    &self.type_name(*expected),
                    &self.type_name(key.value.ty),
                    true,
                    &key.value.span,
                ));
            }
        }
        self.widen_string_keys(index, keys);
        Ok(existing.id)
    }

    /// Makes every string key slot of aggregation `index` large enough for this use's
    /// string: uses of one aggregation may record strings of different sizes
    /// (`@[execname]` needs 16 bytes, `@[copyinstr(arg0)]` `strsize`), and the key
    /// layout must hold the longest.
    fn widen_string_keys(&mut self, index: usize, keys: &[RecordedValue]) {
        for ((_, shape), key) in self.aggregations[index].keys.iter_mut().zip(keys) {
            if shape.layout == ValueLayout::String && key.shape.layout == ValueLayout::String {
                shape.size = shape.size.max(key.shape.size);
            }
        }
    }

    /// Gives the string key slots of aggregations that one `printa()` joins the same
    /// size, the largest any of them needs: the consumer joins entries by their key
    /// bytes, so `@a[execname]` (16 bytes) and `@b[s]` (`strsize`) must lay the same
    /// string out alike to meet. Joins may chain (`printa(@a, @b)`, `printa(@b, @c)`),
    /// so sizes are spread until none changes.
    pub(super) fn unify_joined_key_layouts(&mut self) {
        let mut changed = true;
        while changed {
            changed = false;
            for join in &self.printa_joins {
                let Some(first) = join.first() else { continue };
                let key_count = self.aggregations[*first as usize - 1].keys.len();
                for position in 0..key_count {
                    let string_size = |aggregation: &AggregationInfo| {
                        aggregation
                            .keys
                            .get(position)
                            .filter(|(_, shape)| shape.layout == ValueLayout::String)
                            .map(|(_, shape)| shape.size)
                    };
                    let widest = join
                        .iter()
                        .filter_map(|id| string_size(&self.aggregations[*id as usize - 1]))
                        .max();
                    let Some(widest) = widest else { continue };
                    for id in join {
                        let aggregation = &mut self.aggregations[*id as usize - 1];
                        if let Some((_, shape)) = aggregation.keys.get_mut(position) {
                            if shape.layout == ValueLayout::String && shape.size != widest {
                                shape.size = widest;
                                changed = true;
                            }
                        }
                    }
                }
            }
        }
    }

    /// The aggregation an argument names: it must be `@name` and already defined.
    pub(super) fn named_aggregation(
        &mut self,
        function: &str,
        argument: &Expr,
        number: usize,
        tags: (ErrorTag, ErrorTag),
    ) -> SemaResult<u32> {
        let ExprKind::Aggregation(name) = &argument.kind else {
            let described = match self.operand(argument) {
                Ok(value) => self.type_name(value.ty),
                Err(_) if is_indexed_aggregation(argument) => "aggregation element".to_string(),
                Err(diagnostic) => return Err(diagnostic),
            };
            return Err(error(
                tags.0,
                &argument.span,
                format!("{function}( ) argument #{number} is incompatible with prototype:\n\tprototype: aggregation\n\t argument: {described}"),
            ));
        };
        match self.aggregation_names.get(name) {
            Some(&index) => Ok(self.aggregations[index].id),
            None => Err(error(
                tags.1,
                &argument.span,
                format!("undefined aggregation: @{name}"),
            )),
        }
    }

    /// `clear(@a)`, `denormalize(@a)`, `trunc(@a[, n])`, `normalize(@a, n)`.
    pub(super) fn aggregation_action(
        &mut self,
        function: ActionFunction,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<TypedAction> {
        let (name, proto_tag, argument_tag, undefined_tag, minimum, maximum) = match function {
            ActionFunction::Clear => (
                "clear",
                ErrorTag::D_CLEAR_PROTO,
                ErrorTag::D_CLEAR_AGGARG,
                ErrorTag::D_CLEAR_AGGBAD,
                1,
                1,
            ),
            ActionFunction::Denormalize => (
                "denormalize",
                ErrorTag::D_NORMALIZE_PROTO,
                ErrorTag::D_NORMALIZE_AGGARG,
                ErrorTag::D_NORMALIZE_AGGBAD,
                1,
                1,
            ),
            ActionFunction::Normalize => (
                "normalize",
                ErrorTag::D_NORMALIZE_PROTO,
                ErrorTag::D_NORMALIZE_AGGARG,
                ErrorTag::D_NORMALIZE_AGGBAD,
                2,
                2,
            ),
            _ => (
                "trunc",
                ErrorTag::D_TRUNC_PROTO,
                ErrorTag::D_TRUNC_AGGARG,
                ErrorTag::D_TRUNC_AGGBAD,
                1,
                2,
            ),
        };
        if arguments.len() < minimum || arguments.len() > maximum {
            let bound = if minimum == maximum {
                String::new()
            } else if arguments.len() < minimum {
                "at least ".to_string()
            } else {
                "no more than ".to_string()
            };
            let expected = if arguments.len() < minimum {
                minimum
            } else {
                maximum
            };
            // The dt_action_*() functions word their own count check: "args" whatever
            // the count, and trunc()'s upper bound as "no more than 2".
            return Err(error(
                proto_tag,
                span,
                format!(
                    "{name}( ) prototype mismatch: {} args passed, {bound}{expected} expected",
                    arguments.len(),
                ),
            ));
        }
        let aggregation =
            self.named_aggregation(name, &arguments[0], 1, (argument_tag, undefined_tag))?;
        let second = match arguments.get(1) {
            Some(argument) => {
                let value = self.operand(argument)?;
                if !self.types.is_scalar(value.ty) {
                    let tag = if function == ActionFunction::Normalize {
                        ErrorTag::D_NORMALIZE_SCALAR
                    } else {
                        ErrorTag::D_TRUNC_SCALAR
                    };
                    return Err(error(
                        tag,
                        &argument.span,
                        format!("{name}( ) argument #2 must be of scalar type"),
                    ));
                }
                Some(value)
            }
            None => None,
        };
        Ok(match function {
            ActionFunction::Clear => TypedAction::Clear { aggregation },
            ActionFunction::Denormalize => TypedAction::Denormalize { aggregation },
            ActionFunction::Normalize => {
                let value = second.unwrap_or_else(|| self.int_constant(1, span));
                TypedAction::Normalize { aggregation, value }
            }
            _ => TypedAction::Trunc {
                aggregation,
                count: second,
            },
        })
    }
}

/// D_LQUANT_MATCH* / D_LLQUANT_MATCH* when a later use changes the parameters.
fn check_parameters(
    previous: AggregationFunction,
    current: AggregationFunction,
    span: &Span,
) -> SemaResult<()> {
    let mismatch = |tag, what: &str, expected: i64, found: i64| {
        Err(error(
            tag,
            span,
            format!(
                "{what} doesn't match previous declaration: expected {expected}, found {found}"
            ),
        ))
    };
    match (previous, current) {
        (
            AggregationFunction::Lquantize {
                low: a,
                high: b,
                step: c,
            },
            AggregationFunction::Lquantize {
                low: x,
                high: y,
                step: z,
            },
        ) => {
            if a != x {
                return mismatch(
                    ErrorTag::D_LQUANT_MATCHBASE,
                    "lquantize( ) base (argument #1)",
                    a.into(),
                    x.into(),
                );
            }
            if b != y {
                return mismatch(
                    ErrorTag::D_LQUANT_MATCHLIM,
                    "lquantize( ) limit (argument #2)",
                    b.into(),
                    y.into(),
                );
            }
            if c != z {
                return mismatch(
                    ErrorTag::D_LQUANT_MATCHSTEP,
                    "lquantize( ) step (argument #3)",
                    c.into(),
                    z.into(),
                );
            }
        }
        (
            AggregationFunction::Llquantize {
                factor: a,
                low: b,
                high: c,
                steps: d,
            },
            AggregationFunction::Llquantize {
                factor: w,
                low: x,
                high: y,
                steps: z,
            },
        ) => {
            if a != w {
                return mismatch(
                    ErrorTag::D_LLQUANT_MATCHFACTOR,
                    "llquantize( ) factor (argument #1)",
                    a.into(),
                    w.into(),
                );
            }
            if b != x {
                return mismatch(
                    ErrorTag::D_LLQUANT_MATCHLMAG,
                    "llquantize( ) low magnitude (argument #2)",
                    b.into(),
                    x.into(),
                );
            }
            if c != y {
                return mismatch(
                    ErrorTag::D_LLQUANT_MATCHHMAG,
                    "llquantize( ) high magnitude (argument #3)",
                    c.into(),
                    y.into(),
                );
            }
            if d != z {
                return mismatch(
                    ErrorTag::D_LLQUANT_MATCHSTEPS,
                    "llquantize( ) steps (argument #4)",
                    d.into(),
                    z.into(),
                );
            }
        }
        _ => {}
    }
    Ok(())
}

fn is_indexed_aggregation(expr: &Expr) -> bool {
    matches!(&expr.kind, ExprKind::Index { base, .. } if matches!(base.kind, ExprKind::Aggregation(_)))
}
