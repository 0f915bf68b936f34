//! The sizes and limits of a tracing session that every engine honours (the runtime
//! options of D-REFERENCE.md §11.2 that matter to running DIF), with their defaults.

/// Sizes and limits of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineOptions {
    /// `strsize`: the size of a string, NUL included.
    pub strsize: u32,
    /// Scratch bytes per clause execution, for strings and `alloca()` together.
    pub scratch_size: u32,
    /// Bytes `alloca()` may allocate per clause execution (each allocation rounded up
    /// to 8): `scratchsize` less the 8 bytes DTrace for Linux keeps at the start of its
    /// scratch area. Beyond them `alloca()` faults with `out of scratch space`.
    pub alloca_size: u64,
    /// `bufsize`: principal buffer bytes per CPU.
    pub buffer_size: u64,
    /// `aggsize`: aggregation bytes per CPU.
    pub aggregation_size: u64,
    /// `dynvarsize`.
    pub dynamic_variable_size: u64,
    /// `nspec`.
    pub speculation_count: u32,
    /// `specsize`, per CPU.
    pub speculation_size: u64,
    /// The interval of `cleanrate`, in nanoseconds: how long a discarded speculation
    /// stays busy before DTrace's cleaner frees it.
    pub speculation_clean_interval: u64,
    /// Seed of `rand()`.
    pub random_seed: u64,
    /// `cpu`: the one CPU to trace on, when set. BEGIN and END fire there, and probes
    /// firing on other CPUs record nothing.
    pub only_cpu: Option<u32>,
}

/// `cleanrate`'s default interval, 101 Hz, in nanoseconds.
pub const DEFAULT_CLEAN_INTERVAL: u64 = 1_000_000_000 / 101;

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            strsize: 256,
            scratch_size: 64 * 1024,
            alloca_size: 256,
            buffer_size: 4 << 20,
            aggregation_size: 4 << 20,
            dynamic_variable_size: 1 << 20,
            speculation_count: 1,
            speculation_size: 32 * 1024,
            speculation_clean_interval: DEFAULT_CLEAN_INTERVAL,
            random_seed: 0x2545_f491_4f6c_dd1d,
            only_cpu: None,
        }
    }
}
