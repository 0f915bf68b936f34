//! DIF → eBPF translation and the thin bpf(2)/perf_event_open(2) layer (kernel engine; not yet built).
