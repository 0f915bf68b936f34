//! The consumer: session, record decoding, formatting, aggregations, speculations.
pub mod aggregation_output;
pub mod catalog;
pub mod engine;
pub mod invocation;
pub mod kernel_engine;
pub mod messages;
pub mod options;
pub mod preprocess;
pub mod printf;
pub mod probe_listing;
pub mod record;
pub mod session;
pub mod signals;
pub mod symbolize;
pub mod target_process;
pub mod trace_output;
pub mod vm_context;
