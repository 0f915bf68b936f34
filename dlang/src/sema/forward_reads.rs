//! Variables a predicate reads before the clause that first assigns them: DTrace
//! declares a global or thread-local variable the program assigns anywhere when a
//! predicate names it first, so `/self->ts/` may precede the clause that sets
//! `self->ts`, and the predicate reads 0 (or "") until that clause runs.

use std::collections::HashMap;

use super::variables::{VariableScope, VariableShape};
use super::{program_scan, Analyzer};
use crate::ast::{AssignmentOperator, Expr, ExprKind, Program, UnaryOperator};

/// A scalar variable a write names: its scope (global or thread-local) and name.
type WrittenName = (VariableScope, String);

/// How the program's first write of a variable gives it a type.
#[derive(Debug, Clone)]
pub(super) enum FirstWrite {
    /// `x = value`: the value's type.
    Assignment(Box<Expr>),
    /// `x++`, `x--`, `++x`, `--x`: `int`.
    Increment,
}

/// The first write of each scalar global and thread-local variable in `program`, in
/// program order (clause predicates and bodies, left to right).
pub(super) fn first_writes(program: &Program) -> HashMap<WrittenName, FirstWrite> {
    let mut writes = HashMap::new();
    program_scan::for_each_expression(program, &mut |expr| {
        let write = match &expr.kind {
            ExprKind::Assign {
                operator: AssignmentOperator::Assign,
                target,
                value,
            } => written_name(target).map(|name| (name, FirstWrite::Assignment(value.clone()))),
            ExprKind::Unary {
                operator:
                    UnaryOperator::PreIncrement
                    | UnaryOperator::PreDecrement
                    | UnaryOperator::PostIncrement
                    | UnaryOperator::PostDecrement,
                operand,
            } => written_name(operand).map(|name| (name, FirstWrite::Increment)),
            _ => None,
        };
        if let Some((name, write)) = write {
            writes.entry(name).or_insert(write);
        }
    });
    writes
}

/// The variable a write target names, when it is a scalar global or thread-local.
fn written_name(target: &Expr) -> Option<WrittenName> {
    match &target.kind {
        ExprKind::Identifier(name) => Some((VariableScope::Global, name.clone())),
        ExprKind::ThreadLocal(name) => Some((VariableScope::ThreadLocal, name.clone())),
        _ => None,
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
