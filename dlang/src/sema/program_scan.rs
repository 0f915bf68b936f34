//! Walks over a whole program's clauses before analysis, for the facts DTrace knows
//! about a variable before the clause that first uses it is analysed: the first
//! write of each variable (`forward_reads.rs`) and the globals whose address is
//! taken (`memory_variables.rs`).

use crate::ast::{Expr, ExprKind, Item, Program, Statement};

/// Calls `visit` on every expression of every clause of `program` (predicates, then
/// bodies, in program order), each before the expressions it contains.
pub(super) fn for_each_expression(program: &Program, visit: &mut impl FnMut(&Expr)) {
    for item in &program.items {
        let Item::Clause(clause) = item else { continue };
        if let Some(predicate) = &clause.predicate {
            walk_expression(predicate, visit);
        }
        if let Some(body) = &clause.body {
            for statement in &body.statements {
                walk_statement(statement, visit);
            }
        }
    }
}

fn walk_statement(statement: &Statement, visit: &mut impl FnMut(&Expr)) {
    match statement {
        Statement::Expression(expr) => walk_expression(expr, visit),
        Statement::If {
            condition,
            then_branch,
            else_branch,
            ..
        } => {
            walk_expression(condition, visit);
            walk_statement(then_branch, visit);
            if let Some(else_branch) = else_branch {
                walk_statement(else_branch, visit);
            }
        }
        Statement::Block(block) => {
            for inner in &block.statements {
                walk_statement(inner, visit);
            }
        }
        Statement::Empty(_) => {}
    }
}

fn walk_expression(expr: &Expr, visit: &mut impl FnMut(&Expr)) {
    visit(expr);
    match &expr.kind {
        ExprKind::Assign { target, value, .. } => {
            walk_expression(value, visit);
            walk_expression(target, visit);
        }
        ExprKind::Unary { operand, .. }
        | ExprKind::Cast { operand, .. }
        | ExprKind::Stringof(operand)
        | ExprKind::SizeofExpr(operand)
        | ExprKind::Xlate { operand, .. } => walk_expression(operand, visit),
        ExprKind::Binary { left, right, .. } => {
            walk_expression(left, visit);
            walk_expression(right, visit);
        }
        ExprKind::Conditional {
            condition,
            then_value,
            else_value,
        } => {
            walk_expression(condition, visit);
            walk_expression(then_value, visit);
            walk_expression(else_value, visit);
        }
        ExprKind::Call { arguments, .. } => {
            for argument in arguments {
                walk_expression(argument, visit);
            }
        }
        ExprKind::Index { base, keys } => {
            walk_expression(base, visit);
            for key in keys {
                walk_expression(key, visit);
            }
        }
        ExprKind::Member { base, .. } | ExprKind::PointerMember { base, .. } => {
            walk_expression(base, visit)
        }
        _ => {}
    }
}
