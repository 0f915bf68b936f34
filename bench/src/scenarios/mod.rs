//! The five groups of rows of the issue: start-up, enabling all syscall probes, probe
//! effect, throughput and aggregation scale. Each runs both tracers alternately and adds
//! its rows (and notes) to the report.

pub mod aggregation;
pub mod enable_all;
pub mod probe_effect;
pub mod startup;
pub mod throughput;
