//! Statements of a clause body: actions (trace, printf, exit, speculate, …) with their
//! argument rules and the speculation ordering, aggregation statements, and
//! expression statements. Also decides how recorded values are laid out.

use difvm::isa::builtin_variable;
use difvm::object::{SymbolFormat, ValueLayout};

use super::functions::{self, ActionFunction, FunctionKind};
use super::ir::{
    Capture, FormattedKind, RecordShape, RecordedValue, SymbolAction, TypedAction, TypedExpr,
    TypedExprKind,
};
use super::operators::is_aggregation_expression;
use super::printed_type::printed_type;
use super::speculation::{ActionClass, SpeculationState};
use super::variables::VariableScope;
use super::{constants, error, Analyzer, SemaResult};
use crate::ast::{Expr, ExprKind};
use crate::diagnostics::{ErrorTag, Span};
use crate::types::TypeKind;

impl Analyzer<'_> {
    /// Analyzes one statement of a clause body into an action.
    pub(super) fn statement_action(
        &mut self,
        expr: &Expr,
        speculation: &mut SpeculationState,
    ) -> SemaResult<TypedAction> {
        let span = &expr.span;
        match &expr.kind {
            ExprKind::Call { callee, arguments } => {
                if let Some(function) = self.action_named(callee) {
                    let name = action_name(function);
                    let attributes = self.builtin_attributes(name);
                    let designator = format!("{name}( )");
                    self.use_attributes("action", &designator, attributes, &callee.span)?;
                    let (action, class) = self.action_call(function, arguments, span)?;
                    speculation.check(class, span)?;
                    return Ok(action);
                }
            }
            ExprKind::Assign {
                operator,
                target,
                value,
            } if is_aggregation_expression(target) => {
                let action = self.aggregation_statement(*operator, target, value, span)?;
                speculation.check(ActionClass::Aggregation, span)?;
                return Ok(action);
            }
            ExprKind::Aggregation(name) => {
                return Err(error(
                    ErrorTag::D_AGG_NULL,
                    span,
                    format!("expression has null effect: @{name}"),
                ));
            }
            ExprKind::Index { base, .. }
                if is_aggregation_expression(expr)
                    || matches!(base.kind, ExprKind::Index { .. }) =>
            {
                if let Some(name) = multi_dimensional_aggregation(expr) {
                    return Err(error(
                        ErrorTag::D_AGG_MDIM,
                        span,
                        format!(
                            "improper attempt to reference @{name} as a multi-dimensional array"
                        ),
                    ));
                }
                if let ExprKind::Aggregation(name) = &base.kind {
                    return Err(error(
                        ErrorTag::D_AGG_NULL,
                        span,
                        format!("expression has null effect: @{name}"),
                    ));
                }
            }
            _ => {}
        }
        let value = self.expression(expr)?;
        let class = if self.calls_destructive_subroutine(expr) {
            ActionClass::Destructive
        } else {
            ActionClass::Other
        };
        speculation.check(class, span)?;
        Ok(TypedAction::Expression(value))
    }

    /// Whether a statement is a call of `copyout()` or `copyoutstr()`: those subroutines
    /// write to the traced process, so DTrace counts them as destructive actions for
    /// the speculation rules (D_ACT_SPEC after `speculate()`).
    fn calls_destructive_subroutine(&self, expr: &Expr) -> bool {
        let ExprKind::Call { callee, .. } = &expr.kind else {
            return false;
        };
        let ExprKind::Identifier(name) = &callee.kind else {
            return false;
        };
        matches!(name.as_str(), "copyout" | "copyoutstr")
            && self.variables.global(name).is_none()
            && !self.inlines.contains_key(name)
            && self.inline_parameter(name).is_none()
    }

    /// The action a callee names, unless a variable shadows it.
    fn action_named(&self, callee: &Expr) -> Option<ActionFunction> {
        let ExprKind::Identifier(name) = &callee.kind else {
            return None;
        };
        if self.variables.global(name).is_some()
            || self.inlines.contains_key(name)
            || self.inline_parameter(name).is_some()
        {
            return None;
        }
        match functions::lookup_function(name) {
            Some((FunctionKind::Action(action), _)) => Some(action),
            _ => None,
        }
    }

    /// Checks an action's arguments and builds it, with its class for the speculation
    /// rules.
    fn action_call(
        &mut self,
        function: ActionFunction,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<(TypedAction, ActionClass)> {
        use ActionFunction as A;
        self.check_action_for_subject(function, span)?;
        let name = action_name(function);
        let record = ActionClass::DataRecording;
        match function {
            A::Trace | A::Print => {
                self.exact_arguments(name, arguments, 1, span)?;
                let mut value = self.traced_value(function, &arguments[0])?;
                if function == A::Trace {
                    Ok((TypedAction::Trace(value), record))
                } else {
                    // `printsize` bounds what print() records of a struct, union or
                    // array; the consumer shows the members that fit (§11.3).
                    if value.shape.layout == ValueLayout::Bytes {
                        let limit = self.settings.print_size.clamp(1, u64::from(u32::MAX));
                        value.shape.size = value.shape.size.min(limit as u32);
                    }
                    let printed_type = printed_type(&self.types, value.value.ty);
                    Ok((
                        TypedAction::Print {
                            value,
                            printed_type,
                        },
                        record,
                    ))
                }
            }
            A::Tracemem => Ok((self.tracemem(arguments, span)?, record)),
            A::Printf | A::System | A::Freopen => {
                let kind = match function {
                    A::Printf => FormattedKind::Printf,
                    A::System => FormattedKind::System,
                    _ => FormattedKind::Freopen,
                };
                let action = self.formatted_action(kind, name, arguments, span)?;
                let class = if function == A::Printf {
                    record
                } else {
                    ActionClass::Destructive
                };
                Ok((action, class))
            }
            A::Printa => Ok((self.printa(arguments, span)?, record)),
            A::Stack
            | A::Ustack
            | A::Jstack
            | A::Sym
            | A::Func
            | A::Mod
            | A::Usym
            | A::Ufunc
            | A::Umod
            | A::Uaddr => {
                let call = Expr {
                    kind: ExprKind::Call {
                        callee: Box::new(Expr {
                            kind: ExprKind::Identifier(name.to_string()),
                            span: span.clone(),
                        }),
                        arguments: arguments.to_vec(),
                    },
                    span: span.clone(),
                };
                let value = self.recordable_expression(&call)?;
                let Some(shape) = self.record_shape(&value) else {
                    return Err(error(
                        ErrorTag::D_UNKNOWN,
                        span,
                        format!("{name}( ) value cannot be recorded"),
                    ));
                };
                Ok((
                    TypedAction::RecordSymbolic(RecordedValue { value, shape }),
                    record,
                ))
            }
            A::Exit | A::Speculate | A::Commit | A::Discard | A::Raise | A::Chill => {
                let value = self.prototyped_single(name, arguments, span)?;
                Ok(match function {
                    A::Exit => (TypedAction::Exit(value), ActionClass::Exit),
                    A::Speculate => (TypedAction::Speculate(value), ActionClass::Speculate),
                    A::Commit => (TypedAction::Commit(value), ActionClass::Commit),
                    A::Discard => (TypedAction::Discard(value), ActionClass::Other),
                    A::Raise => (TypedAction::Raise(value), ActionClass::Destructive),
                    _ => (TypedAction::Chill(value), ActionClass::Destructive),
                })
            }
            A::Stop | A::Breakpoint | A::Panic | A::Ftruncate => {
                self.exact_arguments(name, arguments, 0, span)?;
                Ok(match function {
                    A::Stop => (TypedAction::Stop, ActionClass::Destructive),
                    A::Breakpoint => (TypedAction::Breakpoint, ActionClass::Destructive),
                    A::Panic => (TypedAction::Panic, ActionClass::Destructive),
                    _ => (TypedAction::Ftruncate, record),
                })
            }
            A::Setopt => Ok((self.setopt(arguments, span)?, record)),
            A::Clear | A::Denormalize | A::Trunc | A::Normalize => {
                Ok((self.aggregation_action(function, arguments, span)?, record))
            }
        }
    }

    /// D_PROTO_LEN unless exactly `count` arguments were given.
    fn exact_arguments(
        &self,
        name: &str,
        arguments: &[Expr],
        count: usize,
        span: &Span,
    ) -> SemaResult<()> {
        let prototype = functions::Prototype {
            return_type: self.types.well_known().void,
            parameters: vec![functions::Parameter::Any; count],
            required: None,
            varargs: false,
        };
        functions::check_argument_count(
            &format!("{name}( )"),
            &prototype,
            arguments.len(),
            false,
            span,
        )
    }

    /// An action with one argument checked against its prototype (`void(int)`).
    fn prototyped_single(
        &mut self,
        name: &str,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let text = functions::lookup_function(name)
            .map(|(_, prototype)| prototype)
            .unwrap_or("void(int)");
        let prototype = functions::parse_prototype(&mut self.types, text);
        let mut values = self.checked_arguments(name, &prototype, arguments, span)?;
        Ok(values.remove(0))
    }

    /// The argument of `trace()` / `print()`.
    fn traced_value(
        &mut self,
        function: ActionFunction,
        argument: &Expr,
    ) -> SemaResult<RecordedValue> {
        let print = function == ActionFunction::Print;
        let name = if print { "print" } else { "trace" };
        if is_aggregation_expression(argument) {
            let tag = if print {
                ErrorTag::D_PRINT_AGG
            } else {
                ErrorTag::D_TRACE_AGG
            };
            return Err(error(
                tag,
                &argument.span,
                format!("{name}( ) may not be applied to an aggregation"),
            ));
        }
        let value = self.recordable_expression(argument)?;
        if self.types.is_void(value.ty) {
            let tag = if print {
                ErrorTag::D_PRINT_VOID
            } else {
                ErrorTag::D_TRACE_VOID
            };
            return Err(error(
                tag,
                &argument.span,
                format!("{name}( ) may not be applied to a void expression"),
            ));
        }
        if self.types.is_dynamic(value.ty) {
            let tag = if print {
                ErrorTag::D_PRINT_DYN
            } else {
                ErrorTag::D_TRACE_DYN
            };
            return Err(error(
                tag,
                &argument.span,
                format!("{name}( ) may not be applied to a translated pointer"),
            ));
        }
        match self.record_shape(&value) {
            Some(shape) => Ok(RecordedValue { value, shape }),
            None => {
                let tag = if print {
                    ErrorTag::D_PRINT_SIZE
                } else {
                    ErrorTag::D_TRACE_VOID
                };
                Err(error(
                    tag,
                    &argument.span,
                    format!(
                        "{name}( ) argument #1 reference has type '{}' with size 0; cannot {name}( ) it.",
                        self.type_name(value.ty)
                    ),
                ))
            }
        }
    }

    /// `tracemem(address, size[, dynamic size])`.
    fn tracemem(&mut self, arguments: &[Expr], span: &Span) -> SemaResult<TypedAction> {
        if arguments.len() < 2 || arguments.len() > 3 {
            return Err(error(
                ErrorTag::D_TRACEMEM_ARGS,
                span,
                format!(
                    "tracemem( ) prototype mismatch: {} arg{}passed, {} expected",
                    arguments.len(),
                    if arguments.len() == 1 { " " } else { "s " },
                    if arguments.len() < 2 {
                        "at least 2"
                    } else {
                        "at most 3"
                    }
                ),
            ));
        }
        let address = self.operand(&arguments[0])?;
        if !self.types.is_scalar(address.ty) {
            return Err(error(
                ErrorTag::D_TRACEMEM_ADDR,
                &arguments[0].span,
                format!(
                    "tracemem( ) argument #1 is incompatible with prototype:\n\tprototype: pointer or integer\n\t argument: {}",
                    self.type_name(address.ty)
                ),
            ));
        }
        let size_value = self.operand(&arguments[1])?;
        let size = match constants::constant_value(&size_value) {
            Some(size)
                if self.types.is_integer(size_value.ty)
                    && (size as i64) > 0
                    && size <= u64::from(u32::MAX) =>
            {
                size as u32
            }
            _ => {
                return Err(error(
                    ErrorTag::D_TRACEMEM_SIZE,
                    &arguments[1].span,
                    "tracemem( ) argument #2 must be a non-zero positive integer constant",
                ))
            }
        };
        let dynamic_size = match arguments.get(2) {
            Some(argument) => {
                let value = self.operand(argument)?;
                if !self.types.is_scalar(value.ty) {
                    return Err(error(
                        ErrorTag::D_TRACEMEM_DYNSIZE,
                        &argument.span,
                        "tracemem( ) argument #3 must be a scalar",
                    ));
                }
                Some(value)
            }
            None => None,
        };
        Ok(TypedAction::TraceMemory {
            address,
            size,
            dynamic_size,
        })
    }

    /// `setopt(name[, value])` with string constants.
    fn setopt(&mut self, arguments: &[Expr], span: &Span) -> SemaResult<TypedAction> {
        let text = functions::lookup_function("setopt")
            .map(|(_, prototype)| prototype)
            .unwrap_or("void()");
        let prototype = functions::parse_prototype(&mut self.types, text);
        let values = self.checked_arguments("setopt", &prototype, arguments, span)?;
        let mut strings = Vec::new();
        for (index, value) in values.iter().enumerate() {
            let TypedExprKind::String(bytes) = &value.kind else {
                return Err(error(
                    ErrorTag::D_PROTO_ARG,
                    &value.span,
                    format!(
                        "setopt( ) argument #{} must be a string constant",
                        index + 1
                    ),
                ));
            };
            strings.push(String::from_utf8_lossy(bytes).into_owned());
        }
        let mut strings = strings.into_iter();
        let name = strings.next().unwrap_or_default();
        Ok(TypedAction::Setopt {
            name,
            value: strings.next(),
        })
    }

    /// `stack([frames])`, `ustack([frames[, strsize]])`, `jstack(...)`.
    pub(super) fn stack_capture(
        &mut self,
        function: ActionFunction,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<Capture> {
        self.check_action_for_subject(function, span)?;
        let name = action_name(function);
        let mut constants = Vec::new();
        for argument in arguments {
            let value = self.operand(argument)?;
            constants.push((
                constants::constant_value(&value).filter(|_| self.types.is_integer(value.ty)),
                argument.span.clone(),
            ));
        }
        if function == ActionFunction::Stack {
            if arguments.len() > 1 {
                return Err(error(
                    ErrorTag::D_STACK_PROTO,
                    span,
                    "stack( ) prototype mismatch: too many arguments",
                ));
            }
            let frames = match constants.first() {
                None => self.settings.stack_frames,
                Some((Some(value), _)) if (*value as i64) > 0 && *value <= u64::from(u32::MAX) => {
                    *value as u32
                }
                Some((_, span)) => {
                    return Err(error(
                        ErrorTag::D_STACK_SIZE,
                        span,
                        "stack( ) size must be a non-zero positive integral constant expression",
                    ))
                }
            };
            return Ok(Capture::KernelStack {
                frames: self.within_max_frames(frames),
            });
        }
        if arguments.len() > 2 {
            return Err(error(
                ErrorTag::D_USTACK_PROTO,
                span,
                format!("{name}( ) prototype mismatch: too many arguments"),
            ));
        }
        let java = function == ActionFunction::Jstack;
        let frames = match constants.first() {
            None if java => self.settings.java_stack_frames,
            None => self.settings.user_stack_frames,
            Some((Some(value), _)) if (*value as i64) > 0 && *value <= u64::from(u32::MAX) => {
                *value as u32
            }
            Some((_, span)) => {
                return Err(error(
                    ErrorTag::D_USTACK_FRAMES,
                    span,
                    format!("{name}( ) argument #1 must be a non-zero positive integer constant"),
                ))
            }
        };
        let string_size = match constants.get(1) {
            None if java => self.settings.java_stack_string_size,
            None => 0,
            Some((Some(value), _)) if (*value as i64) >= 0 && *value <= u64::from(u32::MAX) => {
                *value as u32
            }
            Some((_, span)) => {
                return Err(error(
                    ErrorTag::D_USTACK_STRSIZE,
                    span,
                    format!("{name}( ) argument #2 must be a positive integer constant"),
                ))
            }
        };
        Ok(Capture::UserStack {
            frames: self.within_max_frames(frames),
            string_size,
        })
    }

    /// A stack depth cut to `maxframes`, as DTrace for Linux cuts it.
    fn within_max_frames(&self, frames: u32) -> u32 {
        self.settings
            .max_frames
            .map_or(frames, |most| frames.min(most.max(1)))
    }

    /// `sym(addr)` and friends as a value.
    fn symbol_value(
        &mut self,
        function: ActionFunction,
        arguments: &[Expr],
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        use ActionFunction as A;
        let name = action_name(function);
        let text = functions::lookup_function(name)
            .map(|(_, prototype)| prototype)
            .unwrap_or("_symaddr(uintptr_t)");
        let prototype = functions::parse_prototype(&mut self.types, text);
        let mut values = self.checked_arguments(name, &prototype, arguments, span)?;
        let value = values.remove(0);
        let (user, format) = match function {
            A::Sym | A::Func => (false, SymbolFormat::Symbol),
            A::Mod => (false, SymbolFormat::Module),
            A::Usym | A::Ufunc => (true, SymbolFormat::Symbol),
            A::Umod => (true, SymbolFormat::Module),
            _ => (true, SymbolFormat::SymbolWithOffset),
        };
        Ok(TypedExpr {
            kind: TypedExprKind::Symbol {
                value: Box::new(value),
                action: SymbolAction { user, format },
            },
            ty: prototype.return_type,
            span: span.clone(),
        })
    }

    /// An expression whose value is recorded (a trace/printf argument or an
    /// aggregation key): like any expression, but `stack()`, `sym()` and the other
    /// value-producing actions are allowed.
    pub(super) fn recordable_expression(&mut self, expr: &Expr) -> SemaResult<TypedExpr> {
        if let ExprKind::Call { callee, arguments } = &expr.kind {
            if let Some(function) = self.action_named(callee) {
                use ActionFunction as A;
                match function {
                    A::Stack | A::Ustack | A::Jstack => {
                        let capture = self.stack_capture(function, arguments, &expr.span)?;
                        return Ok(TypedExpr {
                            kind: TypedExprKind::Capture(capture),
                            ty: self.types.well_known().stack,
                            span: expr.span.clone(),
                        });
                    }
                    A::Sym | A::Func | A::Mod | A::Usym | A::Ufunc | A::Umod | A::Uaddr => {
                        return self.symbol_value(function, arguments, &expr.span);
                    }
                    _ => {}
                }
            }
        }
        self.expression(expr)
    }

    /// How a value is recorded, or `None` when it cannot be (void, functions, types of
    /// unknown size).
    pub(super) fn record_shape(&self, value: &TypedExpr) -> Option<RecordShape> {
        let shape = |size: u32, alignment: u32, layout: ValueLayout| {
            Some(RecordShape {
                size,
                alignment,
                layout,
            })
        };
        match &value.kind {
            TypedExprKind::Capture(Capture::KernelStack { frames }) => {
                return shape(
                    frames.saturating_mul(8),
                    8,
                    ValueLayout::KernelStack { frames: *frames },
                )
            }
            TypedExprKind::Capture(Capture::UserStack {
                frames,
                string_size,
            }) => {
                let size = 8u32
                    .saturating_add(frames.saturating_mul(8))
                    .saturating_add(string_size.div_ceil(8).saturating_mul(8));
                return shape(
                    size,
                    8,
                    ValueLayout::UserStack {
                        frames: *frames,
                        string_size: *string_size,
                    },
                );
            }
            TypedExprKind::Symbol { action, .. } => {
                return if action.user {
                    shape(16, 8, ValueLayout::UserSymbol(action.format))
                } else {
                    shape(8, 8, ValueLayout::KernelSymbol(action.format))
                };
            }
            _ => {}
        }
        let ty = value.ty;
        match self.types.resolved_kind(ty) {
            TypeKind::Integer { .. } | TypeKind::Enum { .. } => {
                let (size, signed) = self.types.scalar_access(ty);
                shape(size, size, ValueLayout::Integer { signed })
            }
            TypeKind::Pointer { .. } => shape(8, 8, ValueLayout::Pointer),
            TypeKind::String => shape(self.recorded_string_size(value), 1, ValueLayout::String),
            TypeKind::SymbolAddress => shape(8, 8, ValueLayout::KernelSymbol(SymbolFormat::Symbol)),
            TypeKind::UserSymbolAddress => {
                shape(16, 8, ValueLayout::UserSymbol(SymbolFormat::Symbol))
            }
            TypeKind::Struct { .. }
            | TypeKind::Union { .. }
            | TypeKind::Array { .. }
            | TypeKind::Float { .. } => {
                let size = self.types.size_of(ty);
                if size == 0 || size > u64::from(u32::MAX) {
                    return None;
                }
                shape(
                    size as u32,
                    self.types.alignment_of(ty).min(8) as u32,
                    ValueLayout::Bytes,
                )
            }
            _ => None,
        }
    }
}

impl Analyzer<'_> {
    /// The bytes a recorded string needs: `strsize`, or less when the expression cannot
    /// be longer. `execname` is the task's `comm`, at most `TASK_COMM_LEN` bytes with
    /// its NUL, so a record or aggregation key holding it needs 16 bytes, not 256: the
    /// kernel engine then copies, hashes and compares 16 bytes per aggregation update.
    /// The printed output does not depend on a string slot's size.
    fn recorded_string_size(&self, value: &TypedExpr) -> u32 {
        let string_size = self.types.string_size();
        match value.kind {
            TypedExprKind::Variable(id) => {
                let variable = self.variables.get(id);
                if variable.scope == VariableScope::Builtin
                    && variable.dif_id == builtin_variable::EXECNAME
                {
                    string_size.min(TASK_COMM_SIZE)
                } else {
                    string_size
                }
            }
            _ => string_size,
        }
    }
}

/// Linux's `TASK_COMM_LEN`: the size of a task's `comm`, the source of `execname`.
const TASK_COMM_SIZE: u32 = 16;

/// The D name of an action.
pub(super) fn action_name(function: ActionFunction) -> &'static str {
    use ActionFunction as A;
    match function {
        A::Trace => "trace",
        A::Print => "print",
        A::Tracemem => "tracemem",
        A::Printf => "printf",
        A::Printa => "printa",
        A::Stack => "stack",
        A::Ustack => "ustack",
        A::Jstack => "jstack",
        A::Sym => "sym",
        A::Func => "func",
        A::Mod => "mod",
        A::Usym => "usym",
        A::Ufunc => "ufunc",
        A::Umod => "umod",
        A::Uaddr => "uaddr",
        A::Exit => "exit",
        A::Speculate => "speculate",
        A::Commit => "commit",
        A::Discard => "discard",
        A::Clear => "clear",
        A::Trunc => "trunc",
        A::Normalize => "normalize",
        A::Denormalize => "denormalize",
        A::Setopt => "setopt",
        A::Ftruncate => "ftruncate",
        A::System => "system",
        A::Freopen => "freopen",
        A::Raise => "raise",
        A::Stop => "stop",
        A::Chill => "chill",
        A::Breakpoint => "breakpoint",
        A::Panic => "panic",
    }
}

/// The aggregation name of `@a[..][..]`, when it is indexed more than once.
fn multi_dimensional_aggregation(expr: &Expr) -> Option<String> {
    let ExprKind::Index { base, .. } = &expr.kind else {
        return None;
    };
    let ExprKind::Index { base: inner, .. } = &base.kind else {
        return None;
    };
    match &inner.kind {
        ExprKind::Aggregation(name) => Some(name.clone()),
        ExprKind::Index { .. } => multi_dimensional_aggregation(base),
        _ => None,
    }
}
