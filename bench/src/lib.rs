//! Benchmarks of dtrace side by side with bpftrace (issue 5): the getppid() load
//! generator, the harness that runs both tracers alternately under timeouts, and the
//! table of medians and ratios.

pub mod child_process;
pub mod harness;
pub mod load_generator;
pub mod machine;
pub mod output_watch;
pub mod scenarios;
pub mod settings;
pub mod statistics;
pub mod table;
pub mod tools;
