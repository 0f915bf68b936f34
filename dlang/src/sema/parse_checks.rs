//! The checks DTrace's parser makes on a clause as it builds the clause's nodes,
//! before any clause is checked: constant divisors of zero, type names (casts,
//! `sizeof`, `offsetof`, `xlate`), the sizes and offsets it folds, and the macro
//! variables its lexer replaces (in descriptions and in expressions).
//!
//! DTrace parses a whole program, declarations and all, before it cooks its first
//! clause, so such an error anywhere in the program is reported before any clause's
//! type-checking error (`BEGIN { trace(y); } END { x = 1/0; }` fails with
//! D_DIV_ZERO). The analyser runs these checks over each clause in program order,
//! interleaved with the declarations, then analyses the clauses.

use super::{found_while_parsing, program_scan, Analyzer, SemaResult};
use crate::ast::{AssignmentOperator, BinaryOperator, Clause, Expr, ExprKind};

impl Analyzer<'_> {
    /// Reports the first error DTrace's parser would raise in `clause`.
    pub(super) fn check_clause_while_parsing(&mut self, clause: &Clause) -> SemaResult<()> {
        // The parser expands a description's macros as it builds the description.
        for specifier in &clause.probes {
            self.expand_description_macros(&specifier.text, &specifier.span)
                .map_err(found_while_parsing)?;
        }
        let mut expressions = Vec::new();
        program_scan::for_each_clause_expression_post_order(clause, &mut |expr| {
            expressions.push(expr)
        });
        self.recording_clause_type_bodies = true;
        let checked = expressions
            .into_iter()
            .try_for_each(|expr| self.check_node_while_parsing(expr));
        self.recording_clause_type_bodies = false;
        checked
    }

    fn check_node_while_parsing(&mut self, expr: &Expr) -> SemaResult<()> {
        match &expr.kind {
            ExprKind::Binary {
                operator: BinaryOperator::Divide | BinaryOperator::Modulo,
                right,
                ..
            } => self.check_constant_divisor(right),
            ExprKind::Assign {
                operator:
                    AssignmentOperator::Compound(BinaryOperator::Divide | BinaryOperator::Modulo),
                value,
                ..
            } => self.check_constant_divisor(value),
            // These fold to constants as they are built, with the checks that go with
            // the folding.
            ExprKind::SizeofType(_) | ExprKind::Offsetof { .. } => {
                self.expression(expr).map(|_| ())
            }
            // dt_node_type() resolves a type name as soon as it is parsed.
            ExprKind::Cast { ty, .. } | ExprKind::Xlate { ty, .. } => self
                .type_from_type_name(ty)
                .map(|_| ())
                .map_err(found_while_parsing),
            // The lexer replaces a macro variable by its value as it reads it.
            ExprKind::Macro(variable) => self
                .check_macro_while_lexing(variable, &expr.span)
                .map_err(found_while_parsing),
            _ => Ok(()),
        }
    }
}
