//! The key and value of the `return_exits` map: where each thread last left a function
//! whose pid return probe records its exits. The runtime's recorder, attached at the
//! function's exit instructions (`runtime::return_exits`), writes an entry there; the
//! return probe, a uretprobe that fires once the function has returned, reads it for
//! `arg0` (`translate::arguments`).

/// Entries the map keeps (threads, times functions being left); the least recently
/// used are evicted first.
pub const RETURN_EXIT_ENTRIES: u32 = 16 * 1024;

/// Offsets and sizes of the map's key and value (u64 words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReturnExitLayout;

impl ReturnExitLayout {
    /// Key: `bpf_get_current_pid_tgid()`, then the return probe's attachment cookie (the
    /// high half of the recorders' cookies).
    pub const KEY_SIZE: u32 = 16;
    /// Value: the user stack pointer at the exit instruction, where the return address
    /// is (a `ret` pops it; a tail call's jump leaves it for the function jumped to).
    pub const STACK_POINTER: u32 = 0;
    /// The exit instruction's offset in the function (the low half of the recorder's
    /// cookie).
    pub const OFFSET: u32 = 8;
    pub const VALUE_SIZE: u32 = 16;
}
