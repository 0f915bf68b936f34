//! Code generation: turns the analyzed clauses into a [`CompiledProgram`] — one
//! statement per (clause segment, probe description), each predicate and action value
//! compiled to a DIFO, records and aggregation keys laid out, and the program's
//! variables described for the engines.

mod builder;
mod expressions;
mod generator;
mod lvalues;
mod records;
mod statements;

use difvm::isa::builtin_variable;
use difvm::object::CompiledProgram;

use crate::diagnostics::Diagnostic;
use crate::sema::{Analysis, VariableScope};
use generator::{variable_descriptions, SpillSlots};

/// A code generation failure in clause `clause` (an index into the analysis' clauses;
/// `None` for program-wide parts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerationError {
    pub clause: Option<usize>,
    pub diagnostic: Diagnostic,
}

/// What code generation needs besides the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenerationOptions {
    /// Append the consumer's default `dtrace:::ERROR` statement.
    pub default_error_handler: bool,
}

/// Compiles an analyzed program.
pub fn generate(
    analysis: &Analysis,
    options: GenerationOptions,
) -> Result<CompiledProgram, GenerationError> {
    let first_spill = analysis
        .variables
        .iter()
        .filter(|(_, variable)| variable.scope == VariableScope::ClauseLocal)
        .map(|(_, variable)| u32::from(variable.dif_id) + 1)
        .max()
        .unwrap_or(u32::from(builtin_variable::FIRST_USER));
    let mut spills = SpillSlots {
        first_id: first_spill,
        count: 0,
    };
    let mut program = CompiledProgram::default();
    let aggregation_keys = records::aggregation_key_layouts(analysis);
    for (index, clause) in analysis.clauses.iter().enumerate() {
        let statements =
            statements::clause_statements(analysis, clause, &aggregation_keys, &mut spills)
                .map_err(|diagnostic| GenerationError {
                    clause: Some(index),
                    diagnostic,
                })?;
        program.statements.extend(statements);
    }
    if options.default_error_handler {
        let statement =
            statements::default_error_handler(analysis, &mut spills).map_err(|diagnostic| {
                GenerationError {
                    clause: None,
                    diagnostic,
                }
            })?;
        program.statements.push(statement);
    }
    program.aggregations = records::aggregation_descriptions(analysis, &aggregation_keys);
    program.variables = variable_descriptions(analysis, &spills);
    program.options = analysis.options.clone();
    program.kernel_type_read = analysis.kernel_type_read.clone();
    program.provider_attributes = analysis.provider_attributes.clone();
    Ok(program)
}
