//! Clauses: probe descriptions, the predicate (§1.5), and the body, split at `if`/`else`
//! into straight-line segments. Each `if` stores its condition in a hidden clause-local
//! variable; each segment becomes its own statement whose predicate tests the
//! conditions that lead to it (how illumos implements `if`).
//!
//! When the clause has a predicate and an `if`, the first segment's predicate stores the
//! predicate's truth in a hidden variable as it tests it, so later segments test the
//! stored value and never re-evaluate the predicate after the clause's actions have
//! changed its inputs. A segment that only stores conditions (nothing the user wrote)
//! does its stores in a predicate that then evaluates to false, so it never writes a
//! record of its own.
//!
//! A fault must end the whole clause, not just the segment it happened in. When a clause
//! has several segments, a hidden clause-local "busy" flag is set as a segment starts
//! (in its predicate, once its conditions hold) and cleared by its last action (or at
//! the end of its condition stores); every later segment requires the flag to be clear.
//! A segment that faults never clears it, so the rest of the clause does not run.

use super::derived_probes;
use super::ir::{
    AnalyzedClause, ClauseSegment, Logical, TypedAction, TypedExpr, TypedExprKind, Unary,
    VariableId,
};
use super::speculation::SpeculationState;
use super::{error, in_region, Analyzer, ClauseContext, SemaResult};
use crate::ast::{Clause, Expr, Statement};
use crate::diagnostics::{Diagnostic, ErrorTag, Region, Span};
use crate::options::ProgramSource;
use difvm::object::ProbeDescription;

/// A condition on the path to a segment: a hidden variable and whether it must be
/// true.
type Condition = (VariableId, bool);

/// An action of a segment under construction; `hidden` for the compiler's stores of
/// `if` conditions.
struct SegmentAction {
    action: TypedAction,
    hidden: bool,
}

/// Segments under construction.
#[derive(Default)]
struct SegmentBuilder {
    segments: Vec<(Vec<Condition>, Vec<SegmentAction>)>,
}

impl SegmentBuilder {
    fn push(&mut self, conditions: &[Condition], action: TypedAction, hidden: bool) {
        let action = SegmentAction { action, hidden };
        match self.segments.last_mut() {
            Some((existing, actions)) if existing.as_slice() == conditions => actions.push(action),
            _ => self.segments.push((conditions.to_vec(), vec![action])),
        }
    }
}

impl Analyzer<'_> {
    /// Analyzes one clause and records it.
    pub(super) fn analyze_clause(
        &mut self,
        source: &ProgramSource,
        clause: &Clause,
    ) -> SemaResult<()> {
        let mut context = ClauseContext::default();
        let mut descriptions = Vec::new();
        for specifier in &clause.probes {
            let (description, probes) = self.resolve_probe_specifier(specifier, &source.origin)?;
            if let Some(count) = self.matched_probes.get_mut(self.program) {
                *count += probes.len() as u32;
            }
            context.probes.push((description.to_string(), probes));
            descriptions.push(description);
        }
        let Some(groups) = derived_probes::derivation_groups(&context.probes) else {
            return self.analyze_clause_for(context, descriptions, clause);
        };
        for group in groups {
            let descriptions = group.descriptions();
            let probes = group
                .probes
                .iter()
                .map(|probe| (probe.description.to_string(), vec![probe.clone()]))
                .collect();
            let context = ClauseContext {
                probes,
                derivation: group.derivation,
            };
            self.analyze_clause_for(context, descriptions, clause)?;
        }
        Ok(())
    }

    /// Analyses `clause` for the probes of `context`, enabled by `descriptions`.
    fn analyze_clause_for(
        &mut self,
        context: ClauseContext,
        descriptions: Vec<ProbeDescription>,
        clause: &Clause,
    ) -> SemaResult<()> {
        self.clause = Some(context);
        self.clause_attributes = difvm::stability::STABLE_COMMON;
        self.set_probe_attributes(&descriptions);
        let result = self.analyze_clause_body(clause);
        self.clause = None;
        let deferred = self.deferred_expression_call.take();
        let segments = result?;
        if let Some(diagnostic) = deferred {
            return Err(diagnostic);
        }
        let index = self.clauses.len() as u32;
        self.clauses.push(AnalyzedClause {
            index,
            program: self.program,
            probes: descriptions,
            segments,
            attributes: self.clause_attributes,
        });
        Ok(())
    }

    fn analyze_clause_body(&mut self, clause: &Clause) -> SemaResult<Vec<ClauseSegment>> {
        let predicate = match &clause.predicate {
            Some(predicate) => match self.predicate(predicate) {
                Ok(predicate) => Some(predicate),
                Err(diagnostic) => {
                    let diagnostic = in_region(diagnostic, Region::Predicate);
                    return Err(self.action_error_checked_first(clause, diagnostic));
                }
            },
            None => None,
        };
        // A derived probe's guard comes before the clause's own predicate, as its
        // trampoline runs before the clause in DTrace.
        let predicate = match (self.derivation_guard(&clause.span)?, predicate) {
            (Some(guard), Some(predicate)) => Some(self.and(guard, predicate)),
            (guard, predicate) => guard.or(predicate),
        };
        let statements = clause
            .body
            .as_ref()
            .map(|block| block.statements.as_slice())
            .unwrap_or(&[]);
        let has_if = statements.iter().any(contains_if);
        if !has_if {
            let mut speculation = SpeculationState::default();
            let mut actions = Vec::new();
            for statement in statements {
                self.flat_statement(statement, &mut speculation, &mut actions)
                    .map_err(|d| in_region(d, Region::ActionList))?;
            }
            return Ok(vec![ClauseSegment { predicate, actions }]);
        }
        let mut builder = SegmentBuilder::default();
        let mut conditions = Vec::new();
        // The predicate's truth, stored by the first segment's predicate.
        let mut stored_predicate = None;
        if let Some(predicate) = predicate {
            let span = predicate.span.clone();
            let variable = self.hidden_clause_local("predicate")?;
            let value = self.truth_value(predicate, &span)?;
            stored_predicate = Some((variable, value));
            conditions.push((variable, true));
        }
        let mut speculation = SpeculationState::default();
        for statement in statements {
            self.branching_statement(statement, &conditions, &mut speculation, &mut builder)
                .map_err(|d| in_region(d, Region::ActionList))?;
        }
        let last = builder.segments.len().saturating_sub(1);
        let busy = if last > 0 {
            Some(self.hidden_clause_local("busy")?)
        } else {
            None
        };
        let mut segments = Vec::new();
        for (index, (conditions, actions)) in builder.segments.into_iter().enumerate() {
            let store = if index == 0 {
                stored_predicate.take()
            } else {
                None
            };
            let mut predicate = self.conditions_predicate(&conditions, store);
            if let (Some(busy), true) = (busy, index > 0) {
                let idle = self.not(self.read_hidden(busy));
                predicate = Some(match predicate {
                    None => idle,
                    Some(path) => self.and(idle, path),
                });
            }
            // The last segment need not mark itself: no segment follows it.
            let marks = busy.filter(|_| index < last);
            let only_hidden = actions.iter().all(|action| action.hidden);
            let mut actions: Vec<TypedAction> =
                actions.into_iter().map(|action| action.action).collect();
            if only_hidden {
                // Do the stores in the predicate, which then fails: no record.
                let mut stores: Vec<TypedExpr> = actions
                    .into_iter()
                    .filter_map(|action| match action {
                        TypedAction::Expression(expr) => Some(expr),
                        _ => None,
                    })
                    .collect();
                if let Some(busy) = marks {
                    stores.insert(0, self.assign_hidden(busy, 1));
                    stores.push(self.assign_hidden(busy, 0));
                }
                let never = self.comma_sequence(stores, self.int_constant(0, &(0..0)));
                predicate = Some(match predicate {
                    None => never,
                    Some(path) => self.and(path, never),
                });
                segments.push(ClauseSegment {
                    predicate,
                    actions: Vec::new(),
                });
            } else {
                if let Some(busy) = marks {
                    let start = self.comma_sequence(
                        vec![self.assign_hidden(busy, 1)],
                        self.int_constant(1, &(0..0)),
                    );
                    predicate = Some(match predicate {
                        None => start,
                        Some(path) => self.and(path, start),
                    });
                    actions.push(TypedAction::Expression(self.assign_hidden(busy, 0)));
                }
                segments.push(ClauseSegment { predicate, actions });
            }
        }
        Ok(segments)
    }

    /// Reads a hidden `int` clause-local.
    fn read_hidden(&self, variable: VariableId) -> TypedExpr {
        TypedExpr {
            kind: TypedExprKind::Variable(variable),
            ty: self.types.well_known().int,
            span: 0..0,
        }
    }

    /// `this->%hidden = value`.
    fn assign_hidden(&self, variable: VariableId, value: i64) -> TypedExpr {
        TypedExpr {
            kind: TypedExprKind::Assign {
                target: super::ir::LValue::Variable(variable),
                value: Box::new(self.int_constant(value, &(0..0))),
            },
            ty: self.types.well_known().int,
            span: 0..0,
        }
    }

    /// `!operand`.
    fn not(&self, operand: TypedExpr) -> TypedExpr {
        TypedExpr {
            kind: TypedExprKind::Unary {
                operator: Unary::LogicalNot,
                operand: Box::new(operand),
            },
            ty: self.types.well_known().int,
            span: 0..0,
        }
    }

    /// `left && right`.
    fn and(&self, left: TypedExpr, right: TypedExpr) -> TypedExpr {
        TypedExpr {
            kind: TypedExprKind::Logical {
                operator: Logical::And,
                left: Box::new(left),
                right: Box::new(right),
            },
            ty: self.types.well_known().int,
            span: 0..0,
        }
    }

    /// `first, second, ..., result` with the comma operator.
    fn comma_sequence(&self, effects: Vec<TypedExpr>, result: TypedExpr) -> TypedExpr {
        let int = self.types.well_known().int;
        effects
            .into_iter()
            .rev()
            .fold(result, |rest, effect| TypedExpr {
                kind: TypedExprKind::Comma {
                    left: Box::new(effect),
                    right: Box::new(rest),
                },
                ty: int,
                span: 0..0,
            })
    }

    /// A predicate: any scalar expression.
    fn predicate(&mut self, expr: &Expr) -> SemaResult<TypedExpr> {
        self.declare_forward_reads(expr);
        let value = self.expression(expr)?;
        if !self.types.is_scalar(value.ty) {
            return Err(error(
                ErrorTag::D_PRED_SCALAR,
                &expr.span,
                "predicate result must be of scalar type",
            ));
        }
        Ok(value)
    }

    /// A statement of a clause without `if`.
    /// The error DTrace reports for a clause whose predicate is wrong: its
    /// dt_cook_clause() checks the action list first, and reports an action's error
    /// unless it is an undefined name (D_IDENT_UNDEF, D_VAR_UNDEF), for which it checks
    /// the predicate and reports the predicate's error. Clauses with `if` keep the
    /// predicate's error.
    fn action_error_checked_first(
        &mut self,
        clause: &Clause,
        predicate_error: Diagnostic,
    ) -> Diagnostic {
        let statements = clause
            .body
            .as_ref()
            .map(|block| block.statements.as_slice())
            .unwrap_or(&[]);
        if statements.iter().any(contains_if) {
            return predicate_error;
        }
        let mut speculation = SpeculationState::default();
        let mut actions = Vec::new();
        for statement in statements {
            if let Err(action_error) =
                self.flat_statement(statement, &mut speculation, &mut actions)
            {
                if matches!(
                    action_error.tag,
                    ErrorTag::D_IDENT_UNDEF | ErrorTag::D_VAR_UNDEF
                ) {
                    return predicate_error;
                }
                return in_region(action_error, Region::ActionList);
            }
        }
        predicate_error
    }

    fn flat_statement(
        &mut self,
        statement: &Statement,
        speculation: &mut SpeculationState,
        actions: &mut Vec<TypedAction>,
    ) -> SemaResult<()> {
        match statement {
            Statement::Expression(expr) => {
                let action = self.statement_action(expr, speculation)?;
                actions.push(action);
            }
            Statement::Block(block) => {
                for inner in &block.statements {
                    self.flat_statement(inner, speculation, actions)?;
                }
            }
            Statement::Empty(_) => {}
            Statement::If { span, .. } => {
                return Err(error(
                    ErrorTag::D_UNKNOWN,
                    span,
                    "if statement in a clause without conditions",
                ));
            }
        }
        Ok(())
    }

    /// A statement of a clause with `if`, appended to the segment its conditions
    /// select.
    fn branching_statement(
        &mut self,
        statement: &Statement,
        conditions: &[Condition],
        speculation: &mut SpeculationState,
        builder: &mut SegmentBuilder,
    ) -> SemaResult<()> {
        match statement {
            Statement::Expression(expr) => {
                let action = self.statement_action(expr, speculation)?;
                builder.push(conditions, action, false);
            }
            Statement::Block(block) => {
                for inner in &block.statements {
                    self.branching_statement(inner, conditions, speculation, builder)?;
                }
            }
            Statement::Empty(_) => {}
            Statement::If {
                condition,
                then_branch,
                else_branch,
                span,
            } => {
                let value = self.expression(condition)?;
                if !self.types.is_scalar(value.ty) {
                    return Err(error(
                        ErrorTag::D_PRED_SCALAR,
                        &condition.span,
                        "if condition must be of scalar type",
                    ));
                }
                let variable = self.hidden_clause_local("condition")?;
                let value = self.truth_value(value, span)?;
                builder.push(conditions, self.store_hidden(variable, value, span), true);
                let mut then_conditions = conditions.to_vec();
                then_conditions.push((variable, true));
                self.branching_statement(then_branch, &then_conditions, speculation, builder)?;
                if let Some(else_branch) = else_branch {
                    let mut else_conditions = conditions.to_vec();
                    else_conditions.push((variable, false));
                    self.branching_statement(else_branch, &else_conditions, speculation, builder)?;
                }
            }
        }
        Ok(())
    }

    /// `this->%hidden = value` as an expression action.
    fn store_hidden(&self, variable: VariableId, value: TypedExpr, span: &Span) -> TypedAction {
        let int = self.types.well_known().int;
        TypedAction::Expression(TypedExpr {
            kind: TypedExprKind::Assign {
                target: super::ir::LValue::Variable(variable),
                value: Box::new(value),
            },
            ty: int,
            span: span.clone(),
        })
    }

    /// The conjunction of `conditions`, or no predicate when there are none. With
    /// `store`, the first condition is that variable, assigned the given truth value
    /// as it is tested.
    fn conditions_predicate(
        &self,
        conditions: &[Condition],
        mut store: Option<(VariableId, TypedExpr)>,
    ) -> Option<TypedExpr> {
        let int = self.types.well_known().int;
        conditions
            .iter()
            .fold(None, |accumulated, (variable, wanted)| {
                let read = match store.take() {
                    Some((stored, value)) if stored == *variable => TypedExpr {
                        kind: TypedExprKind::Assign {
                            target: super::ir::LValue::Variable(*variable),
                            value: Box::new(value),
                        },
                        ty: int,
                        span: 0..0,
                    },
                    _ => TypedExpr {
                        kind: TypedExprKind::Variable(*variable),
                        ty: int,
                        span: 0..0,
                    },
                };
                let test = if *wanted {
                    read
                } else {
                    TypedExpr {
                        kind: TypedExprKind::Unary {
                            operator: Unary::LogicalNot,
                            operand: Box::new(read),
                        },
                        ty: int,
                        span: 0..0,
                    }
                };
                Some(match accumulated {
                    None => test,
                    Some(left) => TypedExpr {
                        kind: TypedExprKind::Logical {
                            operator: Logical::And,
                            left: Box::new(left),
                            right: Box::new(test),
                        },
                        ty: int,
                        span: 0..0,
                    },
                })
            })
    }
}

fn contains_if(statement: &Statement) -> bool {
    match statement {
        Statement::If { .. } => true,
        Statement::Block(block) => block.statements.iter().any(contains_if),
        _ => false,
    }
}
