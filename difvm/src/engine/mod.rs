//! What both engines share — the reference interpreter (`crate::interp`) and the kernel
//! engine (`kernel-shim`) — so that neither imports the other: the session's sizes
//! (`EngineOptions`), the principal buffer policy, the aggregation entries and drop
//! counters an engine hands to the consumer, the limits that define DIF behaviour, EPID
//! assignment with each EPID's record length, and whether a program is destructive.
//!
//! Nothing here runs DIF; these are the values and rules an engine is built from.

pub mod buffer_policy;
pub mod destructive;
pub mod enabling;
pub mod limits;
pub mod options;
pub mod snapshot;

pub use buffer_policy::BufferPolicy;
pub use destructive::{difo_is_destructive, is_destructive};
pub use enabling::{enable_statements, RecordSizes};
pub use limits::{
    AGGREGATION_ENTRY_OVERHEAD, DYNAMIC_VARIABLE_OVERHEAD, MAX_AGGREGATION_KEY_SIZE,
    MAX_OBJECT_SIZE,
};
pub use options::{EngineOptions, DEFAULT_CLEAN_INTERVAL};
pub use snapshot::{AggregationEntry, DropCounters};
