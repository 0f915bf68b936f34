//! The consumer: session, record decoding, aggregation state, rendering, options and
//! messages.
pub mod aggregation_state;
pub mod catalog;
pub mod command_environment;
pub mod cpu_binding;
pub mod drop_reports;
pub mod engine;
pub mod invocation;
pub mod kernel_engine;
pub mod kernel_types;
pub mod messages;
pub mod options;
pub mod preprocess;
pub mod probe_listing;
pub mod record;
pub mod render;
pub mod session;
pub mod session_output;
pub mod settings;
pub mod signals;
pub mod size_minimums;
pub mod size_notices;
pub mod stability_report;
pub mod symbolize;
pub mod target_process;
mod traced_start;
pub mod user_libraries;
pub mod vm_context;
