//! The consumer: session, record decoding, formatting, aggregations, speculations.
pub mod aggregation_output;
pub mod messages;
pub mod options;
pub mod printf;
pub mod record;
pub mod trace_output;
