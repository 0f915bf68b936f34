//! The thin bpf(2)/perf_event_open(2) layer: owned descriptors, maps, program loading,
//! links, perf events, tracefs and CPU sets. This is the only code in the project that
//! issues those system calls.

pub mod abi;
pub mod btf_load;
pub mod cpus;
pub mod error;
pub mod link;
pub mod map;
pub mod mmap;
pub mod perf_event;
pub mod privilege;
pub mod program;
mod syscall;
pub mod tracefs;

pub use abi::{
    BPF_ANY, BPF_EXIST, BPF_F_MMAPABLE, BPF_F_NO_COMMON_LRU, BPF_F_NO_PREALLOC, BPF_F_RDONLY_PROG,
    BPF_F_WRONLY_PROG, BPF_LOG_LEVEL1, BPF_LOG_LEVEL2, BPF_LOG_STATS, BPF_NOEXIST,
};
pub use cpus::{
    numa_node, online_cpus, parse_cpu_list, physical_package_id, possible_cpu_count, possible_cpus,
};
pub use error::{errno_description, SysError};
pub use link::{
    bpf_link_create, bpf_link_create_perf_event, bpf_link_create_uprobe_multi,
    bpf_raw_tracepoint_open, LinkFd, UprobeMultiRequest,
};
pub use map::{
    bpf_map_create, per_cpu_value_stride, MapDefinition, MapElement, MapFd, MapInfo, MapType,
};
pub use mmap::MmapArray;
pub use perf_event::{
    kprobe_pmu_type, perf_event_open_bpf_output, perf_event_open_bpf_output_overwritable,
    perf_event_open_cpu_clock, perf_event_open_kprobe, perf_event_open_tracepoint,
    perf_event_open_uprobe, uprobe_pmu_type, CpuClockRate, KprobeRequest, PerfEventFd,
    UprobeRequest,
};
pub use privilege::{check_bpf_access, BpfAccessError};
pub use program::{
    bpf_enable_stats, bpf_prog_load, AttachType, LoadError, ProgFd, ProgramInfo,
    ProgramLoadRequest, ProgramType, TestRunRequest, TestRunResult,
};
pub use tracefs::{tracefs_root, tracepoint_directory, tracepoint_id};
