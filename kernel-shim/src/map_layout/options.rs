//! The options that shape a program's maps and code, the kernel's limits on map keys and
//! values, and why a layout is refused.

use std::fmt;

use super::path_offsets::DentryPathOffsets;
use super::task_offsets::{PerCpuBaseOffsets, TaskStructOffsets};

/// The largest hash key the layout produces. Kernels before 5.x refused keys larger than
/// the eBPF stack (512 bytes); current ones accept these (checked on 6.18), and keys live
/// in the work area, whose fixed part is addressed with 16-bit offsets.
pub const MAX_HASH_KEY_SIZE: u32 = 8 * 1024;
/// The kernel refuses per-CPU values larger than this.
pub const MAX_PER_CPU_VALUE_SIZE: u32 = 32 * 1024;

/// The largest `strsize` the kernel engine lays out: the work area holds several
/// string buffers of this size within the per-CPU value limit.
pub const MAX_KERNEL_STRSIZE: u32 = 4096;

/// The options that shape a program's maps and code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutOptions {
    /// `strsize`: bytes of a string, NUL included (at least 2).
    pub strsize: u32,
    /// Scratch bytes per clause execution, for strings and `alloca()` together.
    pub scratch_size: u32,
    /// Bytes `alloca()` may allocate per clause execution (`scratchsize` less 8).
    pub alloca_size: u64,
    /// `aggsize`: bytes of aggregation space per CPU.
    pub aggregation_size: u64,
    /// `dynvarsize`: bytes of dynamic-variable space.
    pub dynamic_variable_size: u64,
    /// `nspec`.
    pub speculation_count: u32,
    /// `specsize`: bytes of each speculation buffer per CPU.
    pub speculation_size: u32,
    /// `cleanrate`'s interval in nanoseconds: how long a discarded speculation stays
    /// busy.
    pub speculation_clean_interval: u64,
    /// Possible CPUs (`sys::possible_cpu_count()`): entries of the per-CPU maps.
    pub cpu_count: u32,
    /// Offsets in `struct task_struct` of the running kernel, from its BTF
    /// ([`TaskStructOffsets::from_running_kernel`]); `ppid` and `progenyof()` need them
    /// and cannot be translated without.
    pub task_offsets: Option<TaskStructOffsets>,
    /// The physical package of each possible CPU, by CPU number
    /// (`sys::physical_package_id`), for `curcpu->cpu_chip`; CPUs past its end are on
    /// package 0. The runtime fills it for programs that read `curcpu`.
    pub cpu_chips: Vec<u32>,
    /// How a probe finds this CPU's per-CPU area; per-CPU kernel variables need it and
    /// cannot be translated without. Only programs that read one look it up.
    pub per_cpu_base: Option<PerCpuBaseOffsets>,
    /// Offsets in the kernel's dentries and mounts `d_path()` walks; only programs that
    /// call it look them up.
    pub path_offsets: Option<DentryPathOffsets>,
    /// `bufsize`, when the programs must count the bytes of their principal buffer
    /// against it: under the `switch` and `fill` policies (see the records section of
    /// the `map_layout` documentation). None leaves the perf ring as the only limit.
    pub principal_buffer_limit: Option<u64>,
    /// `cpu`: when set, every program does nothing on other CPUs.
    pub only_cpu: Option<u32>,
}

impl Default for LayoutOptions {
    fn default() -> LayoutOptions {
        LayoutOptions {
            strsize: 256,
            scratch_size: 64 * 1024,
            alloca_size: 256,
            aggregation_size: 4 << 20,
            dynamic_variable_size: 1 << 20,
            speculation_count: 1,
            speculation_size: 32 * 1024,
            speculation_clean_interval: difvm::engine::DEFAULT_CLEAN_INTERVAL,
            cpu_count: 1,
            task_offsets: None,
            cpu_chips: Vec::new(),
            per_cpu_base: None,
            path_offsets: None,
            principal_buffer_limit: None,
            only_cpu: None,
        }
    }
}

impl LayoutOptions {
    /// Refuses options outside what the kernel engine supports.
    pub(super) fn check(&self) -> Result<(), LayoutError> {
        let options = self;
        if options.strsize < 2 || options.strsize > MAX_KERNEL_STRSIZE {
            return Err(LayoutError::Option {
                name: "strsize",
                reason: format!("{} is outside 2..={MAX_KERNEL_STRSIZE}", options.strsize),
            });
        }
        if options.cpu_count == 0 || options.cpu_count > 4096 {
            return Err(LayoutError::Option {
                name: "cpu count",
                reason: format!("{} is outside 1..=4096", options.cpu_count),
            });
        }
        if options.speculation_count > 64 {
            return Err(LayoutError::Option {
                name: "nspec",
                reason: format!("{} is more than 64", options.speculation_count),
            });
        }
        if options.scratch_size > 1 << 24 {
            return Err(LayoutError::Option {
                name: "scratchsize",
                reason: format!("{} is more than 16m", options.scratch_size),
            });
        }
        Ok(())
    }
}

/// Why a program's maps cannot be laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutError {
    /// An option is out of the range the kernel engine supports.
    Option { name: &'static str, reason: String },
    /// A key is longer than the kernel allows for hash keys.
    KeyTooLarge { what: String, size: u32 },
    /// An aggregation's parameters are unusable.
    InvalidAggregation { aggregation: u32, reason: String },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::Option { name, reason } => write!(f, "option {name}: {reason}"),
            LayoutError::KeyTooLarge { what, size } => write!(
                f,
                "{what} key of {size} bytes exceeds the {MAX_HASH_KEY_SIZE}-byte limit"
            ),
            LayoutError::InvalidAggregation {
                aggregation,
                reason,
            } => write!(f, "aggregation {aggregation}: {reason}"),
        }
    }
}

impl std::error::Error for LayoutError {}
