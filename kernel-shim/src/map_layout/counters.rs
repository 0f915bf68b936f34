//! The words of the counters map: the drops and faults the programs count per CPU, and
//! the key where the consumer reports what it has read.

/// Counter: records the principal buffer had no room for.
pub const COUNTER_PRINCIPAL_DROPS: usize = 0;
/// Counter: aggregation entries that could not be created.
pub const COUNTER_AGGREGATION_DROPS: usize = 1;
/// Counter: dynamic variables that could not be stored.
pub const COUNTER_DYNAMIC_DROPS: usize = 2;
/// Counter: speculated records a full speculation buffer refused.
pub const COUNTER_SPECULATIVE_DROPS: usize = 3;
/// Counter: `speculation()` calls that found every speculation in use.
pub const COUNTER_SPECULATION_UNAVAILABLE: usize = 4;
/// Counter: `speculation()` calls that found a speculation still being committed.
pub const COUNTER_SPECULATION_BUSY: usize = 5;
/// Counter: faults inside ERROR clauses.
pub const COUNTER_ERROR_IN_ERROR_PROBE: usize = 6;
/// Counter: firings refused because every work area of the CPU was in use by
/// `WORK_AREAS_PER_CPU` of our programs interrupting one another, or one was in use by
/// an interrupted program whose shared state the firing's program touches.
pub const COUNTER_NESTING_DROPS: usize = 7;
/// Counter: faults reported to the ERROR probe.
pub const COUNTER_FAULTS: usize = 8;
/// Number of u64 counters in the counters map value.
pub const COUNTER_COUNT: usize = 9;
/// Key of the counters map whose per-CPU word 0 is the bytes of records the consumer has
/// read from that CPU's principal buffer (see the map layout's documentation on records).
pub const COUNTERS_KEY_PRINCIPAL_DRAINED: u32 = 1;
