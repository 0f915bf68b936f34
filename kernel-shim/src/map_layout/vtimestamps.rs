//! The value of a `vtimestamps` map entry, which the runtime's `sched_switch` tracker
//! writes and translated programs read for `vtimestamp`.

/// Threads the `vtimestamps` map keeps; the least recently used are evicted first.
pub const VTIMESTAMP_THREADS: u32 = 32 * 1024;

/// The value of a `vtimestamps` entry: u64 offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VtimestampLayout;

impl VtimestampLayout {
    /// The thread's `start_time`, which tells it from a later thread at the same address.
    pub const START_TIME: u32 = 0;
    /// Nanoseconds on CPU before `SWITCHED_IN`.
    pub const ON_CPU: u32 = 8;
    /// `bpf_ktime_get_ns()` at the thread's last switch-in; 0 while it is switched out.
    pub const SWITCHED_IN: u32 = 16;
    /// Bytes of the value.
    pub const SIZE: u32 = 24;
}
