//! The sizes that are too small to hold one object, refused when tracing is enabled
//! rather than when the option is set (D-REFERENCE.md §12.3): a principal buffer
//! smaller than the largest record an enabled probe writes, an aggregation buffer
//! smaller than one aggregation entry, or dynamic-variable space smaller than one
//! dynamic variable. dtrace(1) reports each as `could not enable tracing: Enabling
//! exceeds size of buffer` and exits with status 1. Under `bufpolicy=fill` the principal
//! buffer must also hold the room DTrace reserves for END's records, or tracing is not
//! enabled either (`END enablings exceed size of principal buffer`).

use difvm::aggregation::AggregationRule;
use difvm::difo::VariableScope;
use difvm::engine::{BufferPolicy, EngineOptions};
use difvm::object::{
    CompiledProgram, EnabledProbe, StatementRole, VariableStorage, PROBE_ID_END, RECORD_HEADER_SIZE,
};

/// libdtrace's text for EDT_BUFTOOSMALL.
pub const BUFFER_TOO_SMALL: &str = "Enabling exceeds size of buffer";
/// libdtrace's text for EDT_ENDTOOBIG.
pub const END_TOO_BIG: &str = "END enablings exceed size of principal buffer";
/// The alignment of records, which DTrace adds to each END record it reserves room for.
const RECORD_ALIGNMENT: u64 = 8;

/// The bytes of the largest record any of `enabled` writes, header included (0 when
/// nothing is enabled). The consumer's default ERROR handler is left out: DTrace
/// reports faults from the library, without a record of its own.
pub fn largest_record(program: &CompiledProgram, enabled: &[EnabledProbe]) -> u64 {
    enabled
        .iter()
        .filter_map(|probe| program.statements.get(probe.statement))
        .filter(|statement| statement.role == StatementRole::User && statement.writes_record())
        .map(|statement| u64::from(RECORD_HEADER_SIZE) + u64::from(statement.record_size))
        .max()
        .unwrap_or(0)
}

/// The bytes DTrace reserves in a `fill` principal buffer for END: each of END's records
/// with its alignment.
pub fn end_reserve(program: &CompiledProgram, enabled: &[EnabledProbe]) -> u64 {
    enabled
        .iter()
        .filter(|probe| probe.probe_id == PROBE_ID_END)
        .filter_map(|probe| program.statements.get(probe.statement))
        .filter(|statement| statement.role == StatementRole::User && statement.writes_record())
        .map(|statement| {
            u64::from(RECORD_HEADER_SIZE) + u64::from(statement.record_size) + RECORD_ALIGNMENT
        })
        .sum()
}

/// The bytes of the largest aggregation entry of the program, key and value (0 when it
/// has no aggregation).
pub fn largest_aggregation_entry(program: &CompiledProgram) -> u64 {
    program
        .aggregations
        .iter()
        .map(|aggregation| {
            let value_words = AggregationRule::new(&aggregation.function)
                .map(|rule| rule.word_count())
                .unwrap_or(1);
            u64::from(aggregation.key_size) + 8 * value_words as u64
        })
        .max()
        .unwrap_or(0)
}

/// The bytes of the largest dynamic variable of the program (a thread-local or an
/// element of a global associative array), key and value (0 when it has none).
pub fn largest_dynamic_variable(program: &CompiledProgram) -> u64 {
    program
        .variables
        .iter()
        .filter_map(|variable| match (variable.scope, variable.storage) {
            (VariableScope::ThreadLocal, _) => Some(u64::from(variable.ty.size)),
            (VariableScope::Global, VariableStorage::Associative { key_size }) => {
                Some(u64::from(key_size) + u64::from(variable.ty.size))
            }
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Refuses sizes too small for the objects `program` stores on the probes `enabled`,
/// as dtrace_state_go() does, and a `fill` principal buffer smaller than END's reserve;
/// `Err` holds the message after `could not enable tracing: `.
pub fn check_minimum_sizes(
    program: &CompiledProgram,
    enabled: &[EnabledProbe],
    options: &EngineOptions,
    buffer_policy: BufferPolicy,
) -> Result<(), &'static str> {
    let too_small = options.buffer_size < largest_record(program, enabled)
        || options.aggregation_size < largest_aggregation_entry(program)
        || options.dynamic_variable_size < largest_dynamic_variable(program);
    if too_small {
        Err(BUFFER_TOO_SMALL)
    } else if buffer_policy == BufferPolicy::Fill
        && options.buffer_size < end_reserve(program, enabled)
    {
        Err(END_TOO_BIG)
    } else {
        Ok(())
    }
}
