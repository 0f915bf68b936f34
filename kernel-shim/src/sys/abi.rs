//! Kernel ABI for bpf(2) and perf_event_open(2): command numbers, flag bits, and the
//! `union bpf_attr` / `struct perf_event_attr` layouts, written out field by field from
//! include/uapi/linux/bpf.h and perf_event.h.
//!
//! Each bpf(2) command gets its own `#[repr(C)]` struct holding only the fields of its arm of
//! the union, zero-initialised. That is enough: the kernel zero-fills an attribute shorter
//! than its own and accepts a longer one whose extra bytes are zero, so older and newer
//! kernels both read these correctly.

/// bpf(2) commands (`enum bpf_cmd`).
pub const BPF_MAP_CREATE: u32 = 0;
pub const BPF_MAP_LOOKUP_ELEM: u32 = 1;
pub const BPF_MAP_UPDATE_ELEM: u32 = 2;
pub const BPF_MAP_DELETE_ELEM: u32 = 3;
pub const BPF_MAP_GET_NEXT_KEY: u32 = 4;
pub const BPF_PROG_LOAD: u32 = 5;
pub const BPF_PROG_TEST_RUN: u32 = 10;
pub const BPF_OBJ_GET_INFO_BY_FD: u32 = 15;
pub const BPF_RAW_TRACEPOINT_OPEN: u32 = 17;
pub const BPF_BTF_LOAD: u32 = 18;
pub const BPF_MAP_LOOKUP_BATCH: u32 = 24;
pub const BPF_LINK_CREATE: u32 = 28;
pub const BPF_ENABLE_STATS: u32 = 32;

/// The name of a bpf(2) command, for error messages.
pub fn bpf_command_name(command: u32) -> &'static str {
    match command {
        BPF_MAP_CREATE => "BPF_MAP_CREATE",
        BPF_MAP_LOOKUP_ELEM => "BPF_MAP_LOOKUP_ELEM",
        BPF_MAP_UPDATE_ELEM => "BPF_MAP_UPDATE_ELEM",
        BPF_MAP_DELETE_ELEM => "BPF_MAP_DELETE_ELEM",
        BPF_MAP_GET_NEXT_KEY => "BPF_MAP_GET_NEXT_KEY",
        BPF_PROG_LOAD => "BPF_PROG_LOAD",
        BPF_PROG_TEST_RUN => "BPF_PROG_TEST_RUN",
        BPF_OBJ_GET_INFO_BY_FD => "BPF_OBJ_GET_INFO_BY_FD",
        BPF_RAW_TRACEPOINT_OPEN => "BPF_RAW_TRACEPOINT_OPEN",
        BPF_BTF_LOAD => "BPF_BTF_LOAD",
        BPF_MAP_LOOKUP_BATCH => "BPF_MAP_LOOKUP_BATCH",
        BPF_LINK_CREATE => "BPF_LINK_CREATE",
        BPF_ENABLE_STATS => "BPF_ENABLE_STATS",
        _ => "unknown bpf command",
    }
}

/// Map creation flags (`map_flags`).
pub const BPF_F_NO_PREALLOC: u32 = 1 << 0;
pub const BPF_F_NO_COMMON_LRU: u32 = 1 << 1;
pub const BPF_F_RDONLY_PROG: u32 = 1 << 7;
pub const BPF_F_WRONLY_PROG: u32 = 1 << 8;
pub const BPF_F_MMAPABLE: u32 = 1 << 10;

/// Element update flags.
pub const BPF_ANY: u64 = 0;
pub const BPF_NOEXIST: u64 = 1;
pub const BPF_EXIST: u64 = 2;

/// Verifier log levels (`log_level` bits).
pub const BPF_LOG_LEVEL1: u32 = 1;
pub const BPF_LOG_LEVEL2: u32 = 2;
pub const BPF_LOG_STATS: u32 = 4;

/// `BPF_PROG_TEST_RUN` flag: run on the CPU named in `cpu`.
pub const BPF_F_TEST_RUN_ON_CPU: u32 = 1 << 0;

/// `BPF_ENABLE_STATS` type that makes the kernel count run time and run count.
pub const BPF_STATS_RUN_TIME: u32 = 0;

#[repr(C)]
#[derive(Default)]
pub struct MapCreateAttr {
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    pub inner_map_fd: u32,
    pub numa_node: u32,
    pub map_name: [u8; 16],
    pub map_ifindex: u32,
    pub btf_fd: u32,
    pub btf_key_type_id: u32,
    pub btf_value_type_id: u32,
    pub btf_vmlinux_value_type_id: u32,
    pub map_extra: u64,
}

#[repr(C)]
#[derive(Default)]
pub struct MapElemAttr {
    pub map_fd: u32,
    pub pad: u32,
    pub key: u64,
    /// `value` for lookup and update, `next_key` for get-next-key.
    pub value: u64,
    pub flags: u64,
}

#[repr(C)]
#[derive(Default)]
pub struct MapBatchAttr {
    pub in_batch: u64,
    pub out_batch: u64,
    pub keys: u64,
    pub values: u64,
    pub count: u32,
    pub map_fd: u32,
    pub elem_flags: u64,
    pub flags: u64,
}

#[repr(C)]
#[derive(Default)]
pub struct ProgLoadAttr {
    pub prog_type: u32,
    pub insn_cnt: u32,
    pub insns: u64,
    pub license: u64,
    pub log_level: u32,
    pub log_size: u32,
    pub log_buf: u64,
    pub kern_version: u32,
    pub prog_flags: u32,
    pub prog_name: [u8; 16],
    pub prog_ifindex: u32,
    pub expected_attach_type: u32,
    pub prog_btf_fd: u32,
    pub func_info_rec_size: u32,
    pub func_info: u64,
    pub func_info_cnt: u32,
    pub line_info_rec_size: u32,
    pub line_info: u64,
    pub line_info_cnt: u32,
    pub attach_btf_id: u32,
    pub attach_prog_fd: u32,
    pub core_relo_cnt: u32,
    pub fd_array: u64,
    pub core_relos: u64,
    pub core_relo_rec_size: u32,
    /// Output (kernel 6.4 and later): the log size the verifier needed, terminator included.
    pub log_true_size: u32,
}

/// `BPF_BTF_LOAD` attributes.
#[repr(C)]
#[derive(Default)]
pub struct BtfLoadAttr {
    pub btf: u64,
    pub btf_log_buf: u64,
    pub btf_size: u32,
    pub btf_log_size: u32,
    pub btf_log_level: u32,
    /// Output (kernel 6.4 and later): the log size the kernel needed, terminator included.
    pub btf_log_true_size: u32,
}

#[repr(C)]
#[derive(Default)]
pub struct TestRunAttr {
    pub prog_fd: u32,
    pub retval: u32,
    pub data_size_in: u32,
    pub data_size_out: u32,
    pub data_in: u64,
    pub data_out: u64,
    pub repeat: u32,
    pub duration: u32,
    pub ctx_size_in: u32,
    pub ctx_size_out: u32,
    pub ctx_in: u64,
    pub ctx_out: u64,
    pub flags: u32,
    pub cpu: u32,
    pub batch_size: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Default)]
pub struct InfoAttr {
    pub bpf_fd: u32,
    pub info_len: u32,
    pub info: u64,
}

#[repr(C)]
#[derive(Default)]
pub struct RawTracepointOpenAttr {
    pub name: u64,
    pub prog_fd: u32,
    pub pad: u32,
    pub cookie: u64,
}

#[repr(C)]
#[derive(Default)]
pub struct LinkCreateAttr {
    pub prog_fd: u32,
    pub target_fd: u32,
    pub attach_type: u32,
    pub flags: u32,
    /// `perf_event.bpf_cookie`, the first word of the per-attach-type union.
    pub bpf_cookie: u64,
}

/// `BPF_LINK_CREATE` for `BPF_TRACE_UPROBE_MULTI`: the common head, then the
/// union's `uprobe_multi` member (user pointers to the path and to `cnt` offsets,
/// reference-counter offsets and cookies).
#[repr(C)]
#[derive(Default)]
pub struct UprobeMultiLinkCreateAttr {
    pub prog_fd: u32,
    pub target_fd: u32,
    pub attach_type: u32,
    pub flags: u32,
    pub path: u64,
    pub offsets: u64,
    pub ref_ctr_offsets: u64,
    pub cookies: u64,
    pub cnt: u32,
    /// `BPF_F_UPROBE_MULTI_RETURN` (1) for uretprobes.
    pub multi_flags: u32,
    pub pid: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Default)]
pub struct EnableStatsAttr {
    pub stats_type: u32,
}

/// `struct bpf_prog_info` up to `attach_btf_id`.
#[repr(C)]
#[derive(Default)]
pub struct ProgInfoRaw {
    pub prog_type: u32,
    pub id: u32,
    pub tag: [u8; 8],
    pub jited_prog_len: u32,
    pub xlated_prog_len: u32,
    pub jited_prog_insns: u64,
    pub xlated_prog_insns: u64,
    pub load_time: u64,
    pub created_by_uid: u32,
    pub nr_map_ids: u32,
    pub map_ids: u64,
    pub name: [u8; 16],
    pub ifindex: u32,
    pub gpl_compatible: u32,
    pub netns_dev: u64,
    pub netns_ino: u64,
    pub nr_jited_ksyms: u32,
    pub nr_jited_func_lens: u32,
    pub jited_ksyms: u64,
    pub jited_func_lens: u64,
    pub btf_id: u32,
    pub func_info_rec_size: u32,
    pub func_info: u64,
    pub nr_func_info: u32,
    pub nr_line_info: u32,
    pub line_info: u64,
    pub jited_line_info: u64,
    pub nr_jited_line_info: u32,
    pub line_info_rec_size: u32,
    pub jited_line_info_rec_size: u32,
    pub nr_prog_tags: u32,
    pub prog_tags: u64,
    pub run_time_ns: u64,
    pub run_cnt: u64,
    pub recursion_misses: u64,
    pub verified_insns: u32,
    pub attach_btf_obj_id: u32,
    pub attach_btf_id: u32,
}

/// `struct bpf_map_info` up to `map_extra`.
#[repr(C)]
#[derive(Default)]
pub struct MapInfoRaw {
    pub map_type: u32,
    pub id: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    pub name: [u8; 16],
    pub ifindex: u32,
    pub btf_vmlinux_value_type_id: u32,
    pub netns_dev: u64,
    pub netns_ino: u64,
    pub btf_id: u32,
    pub btf_key_type_id: u32,
    pub btf_value_type_id: u32,
    pub btf_vmlinux_id: u32,
    pub map_extra: u64,
}

/// perf_event_open(2) event types and software event configs.
pub const PERF_TYPE_SOFTWARE: u32 = 1;
pub const PERF_TYPE_TRACEPOINT: u32 = 2;
pub const PERF_COUNT_SW_CPU_CLOCK: u64 = 0;

/// `sample_type` bit asking for the raw tracepoint record, as tracing tools set it.
pub const PERF_SAMPLE_RAW: u64 = 1 << 10;

/// Bits of the flags word of `perf_event_attr`.
pub const PERF_ATTR_FLAG_DISABLED: u64 = 1 << 0;
pub const PERF_ATTR_FLAG_FREQ: u64 = 1 << 10;
/// `write_backward`: the kernel writes the ring from high addresses to low, so that a
/// reader of an overwritable (read-only mapped) ring finds the newest record at
/// `data_head` and older ones after it.
pub const PERF_ATTR_FLAG_WRITE_BACKWARD: u64 = 1 << 27;

/// perf_event_open(2) flag: close the event fd on exec.
pub const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 1 << 3;

/// perf event ioctls: `_IO('$', 0)`, `_IO('$', 1)` and `_IOW('$', 8, __u32)`.
pub const PERF_EVENT_IOC_ENABLE: libc::c_ulong = 0x2400;
pub const PERF_EVENT_IOC_DISABLE: libc::c_ulong = 0x2401;
pub const PERF_EVENT_IOC_SET_BPF: libc::c_ulong = 0x4004_2408;
/// `_IOW('$', 9, __u32)`: with 1, the ring stops taking samples (they are counted lost);
/// with 0, it takes them again.
pub const PERF_EVENT_IOC_PAUSE_OUTPUT: libc::c_ulong = 0x4004_2409;

/// `struct perf_event_attr` at `PERF_ATTR_SIZE_VER8` (136 bytes). Older kernels accept it
/// because the fields they do not know are zero.
#[repr(C)]
#[derive(Default)]
pub struct PerfEventAttr {
    pub event_type: u32,
    pub size: u32,
    pub config: u64,
    /// `sample_period`, or `sample_freq` when `PERF_ATTR_FLAG_FREQ` is set.
    pub sample_period_or_freq: u64,
    pub sample_type: u64,
    pub read_format: u64,
    /// The bitfield word: `disabled`, `inherit`, …, `freq` (bit 10), ….
    pub flags: u64,
    pub wakeup_events: u32,
    pub bp_type: u32,
    /// `config1`: for kprobes and uprobes, a pointer to the function name or path.
    pub config1: u64,
    /// `config2`: for kprobes and uprobes, the offset.
    pub config2: u64,
    pub branch_sample_type: u64,
    pub sample_regs_user: u64,
    pub sample_stack_user: u32,
    pub clockid: i32,
    pub sample_regs_intr: u64,
    pub aux_watermark: u32,
    pub sample_max_stack: u16,
    pub reserved_2: u16,
    pub aux_sample_size: u32,
    pub aux_action: u32,
    pub sig_data: u64,
    pub config3: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The offsets the kernel headers give; a wrong one would silently send garbage.
    #[test]
    fn layouts_match_the_kernel_headers() {
        assert_eq!(size_of::<MapCreateAttr>(), 72);
        assert_eq!(offset_of!(MapCreateAttr, map_name), 28);
        assert_eq!(offset_of!(MapCreateAttr, map_extra), 64);
        assert_eq!(size_of::<MapElemAttr>(), 32);
        assert_eq!(size_of::<MapBatchAttr>(), 56);
        assert_eq!(offset_of!(ProgLoadAttr, prog_name), 48);
        assert_eq!(offset_of!(ProgLoadAttr, expected_attach_type), 68);
        assert_eq!(offset_of!(ProgLoadAttr, attach_btf_id), 108);
        assert_eq!(offset_of!(ProgLoadAttr, fd_array), 120);
        assert_eq!(offset_of!(ProgLoadAttr, log_true_size), 140);
        assert_eq!(size_of::<ProgLoadAttr>(), 144);
        assert_eq!(size_of::<BtfLoadAttr>(), 32);
        assert_eq!(offset_of!(TestRunAttr, ctx_in), 48);
        assert_eq!(offset_of!(TestRunAttr, cpu), 68);
        assert_eq!(size_of::<RawTracepointOpenAttr>(), 24);
        assert_eq!(offset_of!(LinkCreateAttr, bpf_cookie), 16);
        assert_eq!(offset_of!(UprobeMultiLinkCreateAttr, path), 16);
        assert_eq!(offset_of!(UprobeMultiLinkCreateAttr, cnt), 48);
        assert_eq!(offset_of!(UprobeMultiLinkCreateAttr, pid), 56);
        assert_eq!(offset_of!(ProgInfoRaw, name), 64);
        assert_eq!(offset_of!(ProgInfoRaw, btf_id), 128);
        assert_eq!(offset_of!(ProgInfoRaw, run_time_ns), 192);
        assert_eq!(offset_of!(ProgInfoRaw, recursion_misses), 208);
        assert_eq!(size_of::<ProgInfoRaw>(), 232);
        assert_eq!(offset_of!(MapInfoRaw, name), 24);
        assert_eq!(offset_of!(MapInfoRaw, map_extra), 80);
        assert_eq!(offset_of!(PerfEventAttr, wakeup_events), 48);
        assert_eq!(offset_of!(PerfEventAttr, config1), 56);
        assert_eq!(offset_of!(PerfEventAttr, sig_data), 120);
        assert_eq!(size_of::<PerfEventAttr>(), 136);
    }
}
