//! The kernel engine: eBPF encoding (`ebpf`), the thin bpf(2)/perf_event_open(2) layer
//! (`sys`), the kernel's BTF and kallsyms (`btf`, `kallsyms`), the map layout that
//! translated programs and the runtime agree on (`map_layout`), DIF → eBPF translation
//! (`translate`) and the running session: maps, buffers, attachments (`runtime`).

pub mod btf;
pub mod ebpf;
pub mod kallsyms;
pub mod map_layout;
pub mod runtime;
pub mod sys;
pub mod translate;
