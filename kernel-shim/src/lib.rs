//! The kernel engine: eBPF encoding (`ebpf`) and the thin bpf(2)/perf_event_open(2) layer
//! (`sys`); DIF → eBPF translation will build on both.

pub mod btf;
pub mod ebpf;
pub mod kallsyms;
pub mod runtime;
pub mod sys;
pub mod translate;
