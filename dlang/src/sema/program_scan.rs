//! Walks over a whole program's clauses before analysis, for the facts DTrace knows
//! about a variable before the clause that first uses it is analysed: the first
//! write of each variable (`forward_reads.rs`) and the globals whose address is
//! taken (`memory_variables.rs`).

use crate::ast::{Clause, Expr, ExprKind, Item, Program, Statement};

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

/// Calls `visit` on `expr` and every expression it contains, each before its parts.
pub(super) fn walk_expression(expr: &Expr, visit: &mut impl FnMut(&Expr)) {
    visit(expr);
    for child in subexpressions(expr) {
        walk_expression(child, visit);
    }
}

/// Calls `visit` on every expression of `clause` (predicate, then body), each after
/// the expressions it contains: the order in which DTrace's parser builds the nodes.
pub(super) fn for_each_clause_expression_post_order<'p>(
    clause: &'p Clause,
    visit: &mut impl FnMut(&'p Expr),
) {
    fn walk<'p>(expr: &'p Expr, visit: &mut impl FnMut(&'p Expr)) {
        for child in subexpressions(expr) {
            walk(child, visit);
        }
        visit(expr);
    }
    let mut expressions = Vec::new();
    if let Some(predicate) = &clause.predicate {
        expressions.push(predicate);
    }
    if let Some(body) = &clause.body {
        for statement in &body.statements {
            statement_expressions(statement, &mut expressions);
        }
    }
    for expr in expressions {
        walk(expr, visit);
    }
}

/// The top-level expressions of `statement`, in source order.
fn statement_expressions<'p>(statement: &'p Statement, out: &mut Vec<&'p Expr>) {
    match statement {
        Statement::Expression(expr) => out.push(expr),
        Statement::If {
            condition,
            then_branch,
            else_branch,
            ..
        } => {
            out.push(condition);
            statement_expressions(then_branch, out);
            if let Some(else_branch) = else_branch {
                statement_expressions(else_branch, out);
            }
        }
        Statement::Block(block) => {
            for inner in &block.statements {
                statement_expressions(inner, out);
            }
        }
        Statement::Empty(_) => {}
    }
}

/// The expressions `expr` directly contains (an assignment's value before its target).
fn subexpressions(expr: &Expr) -> Vec<&Expr> {
    match &expr.kind {
        ExprKind::Assign { target, value, .. } => vec![value, target],
        ExprKind::Unary { operand, .. }
        | ExprKind::Cast { operand, .. }
        | ExprKind::Stringof(operand)
        | ExprKind::SizeofExpr(operand)
        | ExprKind::Xlate { operand, .. } => vec![operand],
        ExprKind::Binary { left, right, .. } => vec![left, right],
        ExprKind::Conditional {
            condition,
            then_value,
            else_value,
        } => vec![condition, then_value, else_value],
        ExprKind::Call { arguments, .. } => arguments.iter().collect(),
        ExprKind::Index { base, keys } => std::iter::once(&**base).chain(keys.iter()).collect(),
        ExprKind::Member { base, .. } | ExprKind::PointerMember { base, .. } => vec![base],
        _ => Vec::new(),
    }
}
