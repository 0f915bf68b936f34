//! Variables a predicate reads before the clause that first assigns them: DTrace
//! declares a global or thread-local variable the program assigns anywhere when a
//! predicate names it first, so `/self->ts/` may precede the clause that sets
//! `self->ts`, and the predicate reads 0 (or "") until that clause runs.

use std::collections::HashMap;

use super::variables::{VariableScope, VariableShape};
use super::Analyzer;
use crate::ast::{AssignmentOperator, Expr, ExprKind, Item, Program, Statement, UnaryOperator};

/// A scalar variable a write names: its scope (global or thread-local) and name.
type WrittenName = (VariableScope, String);

/// How the program's first write of a variable gives it a type.
#[derive(Debug, Clone)]
pub(super) enum FirstWrite {
    /// `x = value`: the value's type.
    Assignment(Expr),
    /// `x++`, `x--`, `++x`, `--x`: `int`.
    Increment,
}

/// The first write of each scalar global and thread-local variable in `program`, in
/// program order (clause bodies and predicates, left to right).
pub(super) fn first_writes(program: &Program) -> HashMap<WrittenName, FirstWrite> {
    let mut writes = HashMap::new();
    for item in &program.items {
        let Item::Clause(clause) = item else { continue };
        if let Some(predicate) = &clause.predicate {
            collect_expression(predicate, &mut writes);
        }
        if let Some(body) = &clause.body {
            for statement in &body.statements {
                collect_statement(statement, &mut writes);
            }
        }
    }
    writes
}

fn collect_statement(statement: &Statement, writes: &mut HashMap<WrittenName, FirstWrite>) {
    match statement {
        Statement::Expression(expr) => collect_expression(expr, writes),
        Statement::If {
            condition,
            then_branch,
            else_branch,
            ..
        } => {
            collect_expression(condition, writes);
            collect_statement(then_branch, writes);
            if let Some(else_branch) = else_branch {
                collect_statement(else_branch, writes);
            }
        }
        Statement::Block(block) => {
            for inner in &block.statements {
                collect_statement(inner, writes);
            }
        }
        Statement::Empty(_) => {}
    }
}

/// The variable a write target names, when it is a scalar global or thread-local.
fn written_name(target: &Expr) -> Option<WrittenName> {
    match &target.kind {
        ExprKind::Identifier(name) => Some((VariableScope::Global, name.clone())),
        ExprKind::ThreadLocal(name) => Some((VariableScope::ThreadLocal, name.clone())),
        _ => None,
    }
}

fn collect_expression(expr: &Expr, writes: &mut HashMap<WrittenName, FirstWrite>) {
    match &expr.kind {
        ExprKind::Assign {
            operator,
            target,
            value,
        } => {
            // The value is evaluated before the store, so its writes come first.
            collect_expression(value, writes);
            if let (AssignmentOperator::Assign, Some(name)) = (operator, written_name(target)) {
                writes
                    .entry(name)
                    .or_insert_with(|| FirstWrite::Assignment((**value).clone()));
            }
        }
        ExprKind::Unary { operator, operand } => {
            let increments = matches!(
                operator,
                UnaryOperator::PreIncrement
                    | UnaryOperator::PreDecrement
                    | UnaryOperator::PostIncrement
                    | UnaryOperator::PostDecrement
            );
            if let (true, Some(name)) = (increments, written_name(operand)) {
                writes.entry(name).or_insert(FirstWrite::Increment);
            }
            collect_expression(operand, writes);
        }
        ExprKind::Binary { left, right, .. } => {
            collect_expression(left, writes);
            collect_expression(right, writes);
        }
        ExprKind::Conditional {
            condition,
            then_value,
            else_value,
        } => {
            collect_expression(condition, writes);
            collect_expression(then_value, writes);
            collect_expression(else_value, writes);
        }
        ExprKind::Cast { operand, .. }
        | ExprKind::Stringof(operand)
        | ExprKind::SizeofExpr(operand)
        | ExprKind::Xlate { operand, .. } => collect_expression(operand, writes),
        ExprKind::Call { arguments, .. } => {
            for argument in arguments {
                collect_expression(argument, writes);
            }
        }
        ExprKind::Index { base, keys } => {
            collect_expression(base, writes);
            for key in keys {
                collect_expression(key, writes);
            }
        }
        ExprKind::Member { base, .. } | ExprKind::PointerMember { base, .. } => {
            collect_expression(base, writes)
        }
        _ => {}
    }
}

/// The scalar globals and thread-locals `expr` reads by name.
fn read_names(expr: &Expr, names: &mut Vec<WrittenName>) {
    match &expr.kind {
        ExprKind::Identifier(_) | ExprKind::ThreadLocal(_) => {
            names.extend(written_name(expr));
        }
        ExprKind::Unary { operand, .. }
        | ExprKind::Cast { operand, .. }
        | ExprKind::Stringof(operand)
        | ExprKind::Xlate { operand, .. } => read_names(operand, names),
        ExprKind::Binary { left, right, .. } => {
            read_names(left, names);
            read_names(right, names);
        }
        ExprKind::Conditional {
            condition,
            then_value,
            else_value,
        } => {
            read_names(condition, names);
            read_names(then_value, names);
            read_names(else_value, names);
        }
        ExprKind::Call { arguments, .. } => {
            for argument in arguments {
                read_names(argument, names);
            }
        }
        ExprKind::Index { keys, .. } => {
            for key in keys {
                read_names(key, names);
            }
        }
        ExprKind::Member { base, .. } | ExprKind::PointerMember { base, .. } => {
            read_names(base, names)
        }
        _ => {}
    }
}

impl Analyzer<'_> {
    /// Declares each variable `predicate` reads that no clause has declared yet but
    /// the program writes later, with the type of that write's value. A value that
    /// cannot be typed here (it names another probe's arguments, say) declares
    /// nothing, and the read reports the undefined variable as before.
    pub(super) fn declare_forward_reads(&mut self, predicate: &Expr) {
        let mut names = Vec::new();
        read_names(predicate, &mut names);
        for (scope, name) in names {
            let known = match scope {
                VariableScope::ThreadLocal => self.variables.thread_local(&name).is_some(),
                _ => self.knows_identifier(&name) || self.extern_variables.contains_key(&name),
            };
            if known {
                continue;
            }
            let Some(write) = self.forward_writes.get(&(scope, name.clone())).cloned() else {
                continue;
            };
            let ty = match write {
                FirstWrite::Increment => self.types.well_known().int,
                FirstWrite::Assignment(value) => match self.operand(&value) {
                    Ok(value) if self.check_object_type(&name, value.ty, &value.span).is_ok() => {
                        value.ty
                    }
                    _ => continue,
                },
            };
            // A failed creation (too many identifiers) is reported by the write itself.
            let _ = self
                .variables
                .create(&name, scope, VariableShape::Scalar, Some(ty), false);
        }
    }
}
