//! Statements: each segment of a clause, on each of the clause's probe descriptions,
//! with its predicate DIFO and its actions (one DIFO per action value, slots in the
//! record or the aggregation key), plus the consumer's default ERROR statement.

use difvm::difo::Difo;
use difvm::object::{
    Action, ActionKind, ActionValue, ProbeDescription, RecordSlot, Statement, StatementRole,
    ValueLayout,
};

use super::generator::{DifoGenerator, SpillSlots};
use super::records::{KeyLayout, RecordLayout};
use crate::diagnostics::{Diagnostic, ErrorTag};
use crate::sema::ir::{
    AnalyzedClause, FormattedKind, RecordShape, RecordedValue, TypedAction, TypedExpr,
    TypedExprKind,
};
use crate::sema::Analysis;

/// The statements of one analyzed clause.
pub(super) fn clause_statements(
    analysis: &Analysis,
    clause: &AnalyzedClause,
    key_layouts: &[KeyLayout],
    spills: &mut SpillSlots,
) -> Result<Vec<Statement>, Diagnostic> {
    let mut statements = Vec::new();
    for segment in &clause.segments {
        let mut generator = StatementGenerator {
            analysis,
            spills,
            key_layouts,
            layout: RecordLayout::default(),
        };
        let predicate = match &segment.predicate {
            Some(predicate) => Some(generator.difo(predicate)?),
            None => None,
        };
        let mut actions = Vec::new();
        for action in &segment.actions {
            actions.push(generator.action(action)?);
        }
        let record_size = generator.layout.size();
        for probe in &clause.probes {
            statements.push(Statement {
                clause: clause.index,
                role: StatementRole::User,
                probe: probe.clone(),
                predicate: predicate.clone(),
                actions: actions.clone(),
                record_size,
                attributes: clause.attributes,
            });
        }
    }
    Ok(statements)
}

/// The consumer's default ERROR handler: `dtrace:::ERROR` recording `arg1`…`arg5` as
/// five signed 8-byte integers.
pub(super) fn default_error_handler(
    analysis: &Analysis,
    spills: &mut SpillSlots,
) -> Result<Statement, Diagnostic> {
    let mut generator = StatementGenerator {
        analysis,
        spills,
        key_layouts: &[],
        layout: RecordLayout::default(),
    };
    let int64 = analysis.types.well_known().int64_t;
    let mut actions = Vec::new();
    for index in 1..=5 {
        let name = format!("arg{index}");
        let id = analysis.variables.global(&name).ok_or_else(|| {
            Diagnostic::without_span(
                ErrorTag::D_UNKNOWN,
                format!("built-in variable {name} is missing"),
            )
        })?;
        let value = TypedExpr {
            kind: TypedExprKind::Variable(id),
            ty: int64,
            span: 0..0,
        };
        let shape = RecordShape {
            size: 8,
            alignment: 8,
            layout: ValueLayout::Integer { signed: true },
        };
        let recorded = generator.recorded(&RecordedValue { value, shape })?;
        actions.push(Action {
            kind: ActionKind::Trace,
            values: vec![recorded],
        });
    }
    Ok(Statement {
        clause: analysis.clauses.len() as u32,
        role: StatementRole::DefaultErrorHandler,
        probe: ProbeDescription {
            provider: "dtrace".to_string(),
            module: String::new(),
            function: String::new(),
            name: "ERROR".to_string(),
        },
        predicate: None,
        actions,
        record_size: generator.layout.size(),
        attributes: difvm::stability::STABLE_COMMON,
    })
}

struct StatementGenerator<'s> {
    analysis: &'s Analysis,
    spills: &'s mut SpillSlots,
    key_layouts: &'s [KeyLayout],
    layout: RecordLayout,
}

impl StatementGenerator<'_> {
    fn difo(&mut self, expr: &TypedExpr) -> Result<Difo, Diagnostic> {
        DifoGenerator::new(self.analysis, self.spills).compile(expr)
    }

    /// A value computed and not recorded.
    fn computed(&mut self, expr: &TypedExpr) -> Result<ActionValue, Diagnostic> {
        Ok(ActionValue {
            difo: Some(self.difo(expr)?),
            slot: None,
        })
    }

    /// A value recorded in the next slot of the record.
    fn recorded(&mut self, value: &RecordedValue) -> Result<ActionValue, Diagnostic> {
        let difo = self.value_difo(&value.value)?;
        let slot = self.layout.place(&value.shape);
        Ok(ActionValue {
            difo,
            slot: Some(slot),
        })
    }

    /// A recorded integer of `size` bytes.
    fn recorded_integer(&mut self, expr: &TypedExpr, size: u32) -> Result<ActionValue, Diagnostic> {
        let shape = RecordShape {
            size,
            alignment: size,
            layout: ValueLayout::Integer { signed: true },
        };
        self.recorded(&RecordedValue {
            value: expr.clone(),
            shape,
        })
    }

    /// The DIFO of a recorded value; stacks are captured by the engine.
    fn value_difo(&mut self, expr: &TypedExpr) -> Result<Option<Difo>, Diagnostic> {
        match expr.kind {
            TypedExprKind::Capture(_) => Ok(None),
            _ => Ok(Some(self.difo(expr)?)),
        }
    }

    fn action(&mut self, action: &TypedAction) -> Result<Action, Diagnostic> {
        let (kind, values) = match action {
            TypedAction::Expression(expr) => (ActionKind::Expression, vec![self.computed(expr)?]),
            TypedAction::Trace(value) => (ActionKind::Trace, vec![self.recorded(value)?]),
            TypedAction::Print {
                value,
                printed_type,
            } => (
                ActionKind::Print {
                    printed_type: printed_type.clone(),
                },
                vec![self.recorded(value)?],
            ),
            TypedAction::TraceMemory {
                address,
                size,
                dynamic_size,
            } => {
                let shape = RecordShape {
                    size: *size,
                    alignment: 1,
                    layout: ValueLayout::Bytes,
                };
                let mut values = vec![self.recorded(&RecordedValue {
                    value: address.clone(),
                    shape,
                })?];
                if let Some(dynamic_size) = dynamic_size {
                    values.push(self.recorded_integer(dynamic_size, 8)?);
                }
                (ActionKind::TraceMemory, values)
            }
            TypedAction::Formatted {
                kind,
                format,
                arguments,
            } => {
                let values = arguments
                    .iter()
                    .map(|argument| self.recorded(argument))
                    .collect::<Result<Vec<_>, _>>()?;
                let format = format.clone();
                let kind = match kind {
                    FormattedKind::Printf => ActionKind::Printf { format },
                    FormattedKind::System => ActionKind::System { format },
                    FormattedKind::Freopen => ActionKind::Freopen { format },
                };
                (kind, values)
            }
            TypedAction::Printa {
                format,
                aggregations,
            } => (
                ActionKind::Printa {
                    format: format.clone(),
                    aggregations: aggregations.clone(),
                },
                Vec::new(),
            ),
            TypedAction::RecordSymbolic(value) => {
                (ActionKind::RecordSymbolic, vec![self.recorded(value)?])
            }
            TypedAction::Exit(value) => (ActionKind::Exit, vec![self.recorded_integer(value, 4)?]),
            TypedAction::Speculate(value) => (ActionKind::Speculate, vec![self.computed(value)?]),
            TypedAction::Commit(value) => {
                (ActionKind::Commit, vec![self.recorded_integer(value, 4)?])
            }
            TypedAction::Discard(value) => {
                (ActionKind::Discard, vec![self.recorded_integer(value, 4)?])
            }
            TypedAction::Clear { aggregation } => (
                ActionKind::Clear {
                    aggregation: *aggregation,
                },
                Vec::new(),
            ),
            TypedAction::Trunc { aggregation, count } => {
                let values = match count {
                    Some(count) => vec![self.recorded_integer(count, 8)?],
                    None => Vec::new(),
                };
                (
                    ActionKind::Trunc {
                        aggregation: *aggregation,
                    },
                    values,
                )
            }
            TypedAction::Normalize { aggregation, value } => (
                ActionKind::Normalize {
                    aggregation: *aggregation,
                },
                vec![self.recorded_integer(value, 8)?],
            ),
            TypedAction::Denormalize { aggregation } => (
                ActionKind::Denormalize {
                    aggregation: *aggregation,
                },
                Vec::new(),
            ),
            TypedAction::Setopt { name, value } => (
                ActionKind::Setopt {
                    name: name.clone(),
                    value: value.clone(),
                },
                Vec::new(),
            ),
            TypedAction::Ftruncate => (ActionKind::Ftruncate, Vec::new()),
            TypedAction::Raise(value) => (ActionKind::Raise, vec![self.computed(value)?]),
            TypedAction::Stop => (ActionKind::Stop, Vec::new()),
            TypedAction::Chill(value) => (ActionKind::Chill, vec![self.computed(value)?]),
            TypedAction::Breakpoint => (ActionKind::Breakpoint, Vec::new()),
            TypedAction::Panic => (ActionKind::Panic, Vec::new()),
            TypedAction::Aggregate {
                aggregation,
                keys,
                arguments,
            } => {
                let key_slots: Vec<RecordSlot> = self
                    .key_layouts
                    .get(*aggregation as usize - 1)
                    .map(|layout| layout.slots.clone())
                    .unwrap_or_default();
                let mut values = Vec::new();
                for (key, slot) in keys.iter().zip(key_slots) {
                    values.push(ActionValue {
                        difo: self.value_difo(&key.value)?,
                        slot: Some(slot),
                    });
                }
                for argument in arguments {
                    values.push(self.computed(argument)?);
                }
                (
                    ActionKind::Aggregate {
                        aggregation: *aggregation,
                    },
                    values,
                )
            }
        };
        Ok(Action { kind, values })
    }
}
