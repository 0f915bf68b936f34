//! What an engine hands to the consumer besides records: aggregation entries (a
//! snapshot's data, per-CPU parts included when asked for) and the cumulative drop and
//! error counters the consumer reports differences of.

use std::collections::BTreeMap;

/// Cumulative drop and error counters (§12.9); the consumer reports differences.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DropCounters {
    /// Principal-buffer drops per CPU.
    pub principal: BTreeMap<u32, u64>,
    /// Aggregation drops per CPU.
    pub aggregation: BTreeMap<u32, u64>,
    pub dynamic: u64,
    pub speculative: u64,
    /// Failed `speculation()` calls because every speculation was in use.
    pub speculation_unavailable: u64,
    /// Failed `speculation()` calls because a speculation was still being committed.
    pub speculation_busy: u64,
    /// Faults in ERROR probe enablings.
    pub error_in_error_probe: u64,
}

/// One aggregation entry of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggregationEntry {
    pub aggregation: u32,
    /// The encoded key tuple (`key_size` bytes).
    pub key: Vec<u8>,
    /// The value words, laid out as [`crate::aggregation`] describes.
    pub value: Vec<i64>,
    /// Each CPU's part of `value` as (CPU, words), when the engine was asked to keep
    /// per-CPU values (`aggpercpu`); empty otherwise.
    pub per_cpu: Vec<(u32, Vec<i64>)>,
}
