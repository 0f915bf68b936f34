//! The layout contract between translated probe programs (`translate`) and the runtime
//! (`runtime`), shared by both: which maps a program uses, their key and value layouts, the sizes derived from the options, and how
//! values are found in them. The runtime creates the maps from [`ProgramLayout`]'s
//! [`MapSpec`]s, hands their descriptors back as [`MapFds`], fills the constants map with
//! [`ProgramLayout::constants_image`], and reads records, aggregations, drop counters and
//! the `exit()` flag as described here. Everything is little-endian (x86_64).
//!
//! # Maps
//!
//! | map | type | key | value | entries |
//! |---|---|---|---|---|
//! | `state` | `ARRAY` | u32 CPU number × [`WORK_AREAS_PER_CPU`] + nesting level | [`StateLayout`]: one work area | possible CPUs × [`WORK_AREAS_PER_CPU`] |
//! | `globals` | `ARRAY` | u32 0 | [`GlobalsLayout`]: exit flag, wall-clock offset, speculation states and unreported drops, global variables | 1 |
//! | `constants` | `ARRAY`, read-only for programs | u32 0 | every DIFO's string table, back to back | 1 |
//! | `counters` | `PERCPU_ARRAY` | u32 0: [`COUNTER_COUNT`] u64 counters, indexed by the `COUNTER_*` constants; u32 [`COUNTERS_KEY_PRINCIPAL_DRAINED`]: the consumer's count of principal bytes read | the counters | 2 |
//! | `principal` | `PERF_EVENT_ARRAY` | u32 CPU | the CPU's `BPF_OUTPUT` perf event fd | possible CPUs |
//! | `dynamic` (if the program has thread-locals or associative arrays) | `HASH` | [`DynamicKeyLayout`] | the variable's value | from `dynvarsize` |
//! | `aggregations` (if the program aggregates) | `PERCPU_HASH` | [`AggregationKeyLayout`] | u64 update count, u64 generation, then the aggregation's words | from `aggsize` |
//! | `aggregation_generations` (if the program aggregates) | `ARRAY` | u32 aggregation id | u64 clear generation, written by the consumer | largest aggregation id + 1 |
//! | `speculations` (if the program speculates) | `ARRAY` | u32 `(id - 1) * cpus + cpu` | u64 bytes used, then `specsize` bytes of records | `nspec × cpus` |
//! | `vtimestamps` (if the program reads `vtimestamp`) | `LRU_HASH` | u64 `task_struct` address | [`VtimestampLayout`]: the thread's time on CPU, kept by the runtime's `sched_switch` tracker (see `translate::vtimestamps`) | [`VTIMESTAMP_THREADS`] |
//!
//! The work areas are an ordinary array indexed from `bpf_get_smp_processor_id()`
//! rather than a per-CPU array, because per-CPU values are limited to 32 KiB and scratch
//! space alone may be larger. Each CPU has [`WORK_AREAS_PER_CPU`] of them, one for each
//! context that can interrupt another (task, softirq, hardirq, NMI), so that a probe
//! firing inside another of our programs (a `profile` probe in a hard interrupt during a
//! `syscall` probe's program) has a work area of its own; a program uses the first of its
//! CPU's areas whose nesting word is 0 (see `translate::nesting`).
//!
//! # Records
//!
//! A record is `RECORD_HEADER_SIZE + record_size` bytes exactly as `difvm::object` defines
//! it (EPID u32, zero u32, the statement's data). It is built in the per-CPU work area and
//! written with one `bpf_perf_event_output(ctx, principal, BPF_F_CURRENT_CPU, record,
//! size)`, so it is never torn, and a record that does not fit is counted by the kernel
//! (a `PERF_RECORD_LOST`) and in [`COUNTER_PRINCIPAL_DROPS`]. One perf sample carries one
//! or more whole records: a committed speculation arrives as one sample holding all the
//! records one CPU speculated. The kernel pads a sample's raw data to a multiple of 8
//! bytes with up to 4 bytes after the last record; a reader walks records by their EPID's
//! record size and stops when fewer than `RECORD_HEADER_SIZE` bytes remain or the EPID
//! is 0.
//!
//! Under the `switch` and `fill` policies, the programs count the principal buffer's
//! bytes themselves, so that it holds `bufsize` bytes of records as DTrace's per-CPU
//! buffer does ([`LayoutOptions::principal_buffer_limit`]; the perf ring, a power of two
//! pages that also holds each sample's header, is made large enough not to fill first): the work area's
//! `principal_written` is the bytes of records this CPU has written (only the programs,
//! one at a time per CPU, write it), and the word 0 of this CPU's value under
//! [`COUNTERS_KEY_PRINCIPAL_DRAINED`] in the counters map is the bytes of records the
//! consumer has read from this CPU's ring (only the consumer writes it). Their difference
//! is what the buffer holds; a statement whose record would take it past `bufsize` does
//! not run (checked before its predicate, where DTrace reserves the room) and counts
//! [`COUNTER_PRINCIPAL_DROPS`]; a committed speculation that does not fit is dropped and
//! counted the same way. Under `switch` the consumer reads at every drain, under `fill`
//! only before END fires (which gives END the room DTrace reserves for it).
//!
//! # Aggregations
//!
//! An aggregation entry's key is [`AggregationKeyLayout`]: the aggregation id (u32), a
//! part number u32 (zero but for split histograms, below), then the key tuple encoded exactly as the reference engine encodes it
//! (`key_size` bytes of the aggregation, zero-padded to the longest key of the program).
//! Its value, per CPU, is a u64 count of updates on that CPU, the u64 generation its words
//! belong to, then the words of `difvm::aggregation::AggregationRule` (same words, same
//! order, same update rule), zero-padded to the largest aggregation. A program creating
//! an entry can only set its own CPU's value (the kernel zeroes the others), so a CPU
//! whose update count is 0 never touched the entry and must be skipped when merging.
//! An entry that cannot be created (the map is full) counts
//! [`COUNTER_AGGREGATION_DROPS`].
//!
//! `clear()` and `trunc()` are carried out by the consumer. The words of every function
//! but `min()` and `max()` only grow by addition, so the consumer's differences between
//! snapshots restart them exactly. A `min()` or `max()` cannot be taken apart that way:
//! the consumer bumps the aggregation's generation in the `aggregation_generations` map,
//! and before applying an update, a program compares the generation stored in the entry
//! with the aggregation's current one plus one (so that a zeroed value, generation 0,
//! never matches); when they differ it stores the new generation and restarts the words
//! from the rule's initial value ([`restarts_on_new_generation`]). After a `clear()`,
//! `min()` and `max()` therefore see only later values, and the consumer can tell which
//! generation every CPU's words belong to. The update count is written after the
//! words, so that a count the consumer reads covers the words it reads after it.
//!
//! A histogram of more than [`AGGREGATION_PART_WORDS`] buckets (a large `lquantize`) is
//! split into parts of that many words, each an entry of its own whose key holds the
//! part number in the u32 after the aggregation id (0 for every other aggregation). A
//! program computes the bucket first, then updates the part holding it, created on its
//! first update; the consumer places each part's change at its offset in the
//! histogram's words, zeroes elsewhere (histogram words only grow by addition).
//!
//! `aggsize` is the aggregation space of one CPU, as in DTrace: the map holds
//! `aggsize / (AGGREGATION_ENTRY_OVERHEAD + key size + value size)` entries, where the
//! key and value sizes are those of the program's longest key and largest value (every
//! entry of the map has the same size). For `@[pid] = count()` an entry costs
//! 64 + 16 + 24 = 104 bytes, so the default 4m holds 40,329 keys and 100m a little over
//! a million.
//!
//! # Dynamic variables
//!
//! Thread-local variables and associative-array elements live in one hash map keyed by
//! [`DynamicKeyLayout`] (variable id, scope, thread id, encoded tuple). Assigning 0
//! deletes the element; a failed insert counts [`COUNTER_DYNAMIC_DROPS`].
//!
//! # Addresses
//!
//! DIF registers hold either real kernel (or user) addresses or tagged offsets into the
//! maps, like the reference interpreter's tagged address space: bits 63–56 hold one of
//! the `TAG_*` values and bits 31–0 the offset. Tagged addresses are turned into real
//! pointers only when accessed, after a bounds check; any other address is read with
//! `bpf_probe_read_kernel` (or `_user`), and a failed read is an `invalid address` fault.

use std::collections::BTreeMap;

use difvm::aggregation::AggregationRule;
use difvm::difo::{DifType, VariableScope};
use difvm::engine::{AGGREGATION_ENTRY_OVERHEAD, DYNAMIC_VARIABLE_OVERHEAD};
use difvm::isa::DIF_TUPLE_STACK_DEPTH;
use difvm::object::{ActionKind, CompiledProgram, VariableStorage, RECORD_HEADER_SIZE};
use difvm::verify::VerifiedProgram;

mod address_tags;
mod counters;
mod difos;
mod options;
mod path_offsets;
mod return_exits;
mod task_offsets;
mod vtimestamps;

pub use address_tags::{TAG_CONSTANTS, TAG_GLOBALS, TAG_SCRATCH, TAG_SHIFT, TAG_STATE};
pub use counters::{
    COUNTERS_KEY_PRINCIPAL_DRAINED, COUNTER_AGGREGATION_DROPS, COUNTER_COUNT,
    COUNTER_DYNAMIC_DROPS, COUNTER_ERROR_IN_ERROR_PROBE, COUNTER_FAULTS, COUNTER_NESTING_DROPS,
    COUNTER_PRINCIPAL_DROPS, COUNTER_SPECULATION_BUSY, COUNTER_SPECULATION_UNAVAILABLE,
    COUNTER_SPECULATIVE_DROPS,
};
pub use difos::{
    calls_subroutine, program_difos, program_reads_builtin, program_reads_vtimestamp, DifoLocation,
    DifoSlot,
};
pub use options::{
    LayoutError, LayoutOptions, MAX_HASH_KEY_SIZE, MAX_KERNEL_STRSIZE, MAX_PER_CPU_VALUE_SIZE,
};
pub use path_offsets::DentryPathOffsets;
pub use return_exits::{ReturnExitLayout, RETURN_EXIT_ENTRIES};
pub use task_offsets::{
    kernel_offsets_for, KernelOffsets, PerCpuBaseOffsets, RunQueueCurrentOffsets, TaskStructOffsets,
};
pub use vtimestamps::{VtimestampLayout, VTIMESTAMP_THREADS};

use crate::sys::MapType;

/// The most words of an aggregating function one aggregation entry holds. A histogram
/// with more buckets (`lquantize` has up to 65,537) is split into parts of this many
/// words (see the aggregations section above); the per-CPU value stays far below the
/// kernel's [`MAX_PER_CPU_VALUE_SIZE`] and the work area's copy of it small.
pub const AGGREGATION_PART_WORDS: usize = 1024;

/// Whether the words of `rule` are split into parts of [`AGGREGATION_PART_WORDS`].
pub fn is_split_into_parts(rule: &AggregationRule) -> bool {
    rule.word_count() > AGGREGATION_PART_WORDS
}

/// Work areas (`state` map entries) per CPU: one per context that can interrupt another
/// on a CPU (task, softirq, hardirq, NMI). CPU `c`'s areas are entries
/// `c × WORK_AREAS_PER_CPU` up to the next CPU's first.
pub const WORK_AREAS_PER_CPU: u32 = 4;

/// Offset of the generation word in an aggregation value.
pub const AGGREGATION_GENERATION_OFFSET: u32 = 8;
/// Offset of the first word of the aggregating function in an aggregation value, after
/// the update count and the generation.
pub const AGGREGATION_WORDS_OFFSET: u32 = 16;
/// Whether entries of aggregations of `rule` restart from the initial value when their
/// generation is older than the aggregation's (`min()` and `max()`, whose words the
/// consumer cannot take apart by difference).
pub fn restarts_on_new_generation(rule: &AggregationRule) -> bool {
    matches!(rule, AggregationRule::Minimum | AggregationRule::Maximum)
}

/// Bytes of the `cpuinfo_t` that `curcpu` points to: `cpu_id`, `cpu_pset`, `cpu_chip`,
/// `cpu_lgrp` (32 bits each), then the `void *cpu_info`.
pub const CPUINFO_SIZE: u32 = 24;

/// Frames `stackdepth` and `ustackdepth` count at most (the kernel's default
/// `perf_event_max_stack`).
pub const STACK_FRAMES: u32 = 127;

/// One map the runtime must create for a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapSpec {
    pub name: &'static str,
    pub map_type: MapType,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    /// `BPF_F_*` creation flags.
    pub flags: u32,
}

/// The descriptors of the maps the runtime created from a [`ProgramLayout`]; the optional
/// ones are `Some` exactly when the layout asks for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapFds {
    pub state: i32,
    pub globals: i32,
    pub constants: i32,
    pub counters: i32,
    pub principal: i32,
    pub dynamic: Option<i32>,
    pub aggregations: Option<i32>,
    /// The aggregations' clear generations; present with `aggregations`.
    pub aggregation_generations: Option<i32>,
    pub speculations: Option<i32>,
    /// The threads' times on CPU; present when the program reads `vtimestamp`.
    pub vtimestamps: Option<i32>,
    /// Where pid return probes' functions were left (`runtime::return_exits`); present
    /// when some enabled return probe records its exits.
    pub return_exits: Option<i32>,
}

/// A work area (`state` map value), offsets in bytes. Fixed words come first;
/// areas follow in the order of the fields below; the zero guard is last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateLayout {
    /// u64 nesting word: 0 while the work area is free, else the footprint of the program
    /// using it (see `translate::nesting`).
    pub nesting: u32,
    /// u64 bytes of scratch allocated by the current clause.
    pub scratch_used: u32,
    /// u64 bytes `alloca()` allocated in the current clause (each rounded up to 8).
    pub alloca_used: u32,
    /// u64 fault code, value, DIF offset (−1 when outside code) and action index of the
    /// fault being reported.
    pub fault_code: u32,
    pub fault_value: u32,
    pub fault_offset: u32,
    pub fault_action: u32,
    /// u64 `timestamp` and `walltimestamp` of the current clause.
    pub timestamp: u32,
    pub walltimestamp: u32,
    /// u64 where the clause's record goes: 0 principal, `id` a speculation, u64::MAX
    /// nowhere.
    pub destination: u32,
    /// u64 bit mask of speculations (bit `id - 1`) the clause commits.
    pub commits: u32,
    /// u64 `rand()` state.
    pub random: u32,
    /// u64 number of tuple-stack entries.
    pub tuple_count: u32,
    /// u64 bytes of records this CPU has written to its principal buffer, when the
    /// programs count them ([`LayoutOptions::principal_buffer_limit`]).
    pub principal_written: u32,
    /// u64 the address decoder (`translate::memory`) leaves the bytes a decoded address's
    /// area has from it on in (and launders its pointers into numbers through).
    pub decoded_span: u32,
    /// Tuple stack: `DIF_TUPLE_STACK_DEPTH` entries of (value, size, kind) u64s.
    pub tuples: u32,
    /// u64 `arg0`–`arg9` of the current firing.
    pub arguments: u32,
    /// u64 `arg0`–`arg9` of the ERROR firing being run.
    pub error_arguments: u32,
    /// Eight u64 words for loads and helper results.
    pub temporary: u32,
    /// The record being built: header and data.
    pub record: u32,
    pub record_size: u32,
    /// The aggregation key being built ([`AggregationKeyLayout`]).
    pub aggregation_key: u32,
    /// An aggregation value being initialised.
    pub aggregation_value: u32,
    /// The dynamic-variable key being built ([`DynamicKeyLayout`]).
    pub dynamic_key: u32,
    /// A dynamic-variable value being stored.
    pub dynamic_value: u32,
    /// Clause-local (`this->`) storage of the current firing, then of the ERROR firing.
    pub clause_locals: u32,
    pub error_clause_locals: u32,
    pub clause_locals_size: u32,
    /// Built-in strings of the firing: `execname`, then `probeprov`, `probemod`,
    /// `probefunc`, `probename`, each `strsize` bytes.
    pub builtin_strings: u32,
    /// Two string buffers of `strsize + 8` bytes for string operations.
    pub string_buffers: u32,
    /// [`STACK_FRAMES`] u64 program counters for `stackdepth`, `ustackdepth`, `caller`.
    pub stack: u32,
    /// The `cpuinfo_t` `curcpu` points to, when the program reads `curcpu`
    /// ([`CPUINFO_SIZE`] bytes, see `translate::builtins`). The work area is this CPU's,
    /// so a `curcpu` pointer kept for later reads this CPU's values.
    pub cpuinfo: Option<u32>,
    /// `strtok()` state of the current firing and of the ERROR firing, when the program
    /// calls `strtok`: each a u64 position in the copy (−1 when there is none), then the
    /// copy of the string being tokenised (`strsize + 8` bytes). Past the fixed areas, so
    /// addressed through computed pointers.
    pub tokens: Option<[u32; 2]>,
    /// Scratch space: `scratch_size` usable bytes.
    pub scratch: u32,
    pub scratch_size: u32,
    /// The power of two at or above `scratch_size` that masks scratch offsets.
    pub scratch_mask_size: u32,
    /// Zero bytes that are never written: the source for zero-filling, and room that
    /// lets the kernel's verifier accept masked offsets.
    pub zero_guard: u32,
    pub zero_guard_size: u32,
    /// Total value size.
    pub size: u32,
}

/// The globals value, offsets in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalsLayout {
    /// u64, non-zero once `exit()` ran: later firings of probes other than END and ERROR
    /// do nothing. The runtime reads it to start draining.
    pub exiting: u32,
    /// u64 nanoseconds to add to `bpf_ktime_get_boot_ns()` for `walltimestamp`; the
    /// runtime writes it (wall clock minus boot-time clock) before enabling probes.
    pub wall_clock_offset: u32,
    /// u64 per speculation (`nspec` of them): 0 free, 1 active, or the time (ktime ns) a
    /// `discard()` or `commit()` left it busy until `cleanrate`'s interval has passed.
    pub speculation_states: u32,
    /// u64 per speculation: its speculative drops not yet reported. DTrace reports a
    /// speculation's drops when it is committed and forgets them when it is discarded.
    pub speculation_drops: u32,
    /// Global scalar variables by id: offset of their storage. Integers take 8 bytes; a
    /// by-reference variable takes a u64 NULL flag then `size` bytes rounded up to 8.
    pub variables: BTreeMap<u16, GlobalVariableSlot>,
    /// Where the variables end; then `store_slack` bytes (the largest by-reference
    /// variable), so the verifier, which bounds a copy's offset and size apart, accepts
    /// copies of run-time sizes into variables.
    pub variables_end: u32,
    pub store_slack: u32,
    pub size: u32,
}

/// Where one global or clause-local variable is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalVariableSlot {
    pub offset: u32,
    /// `Some(size)` for by-reference variables.
    pub by_reference_size: Option<u32>,
    /// `true` for strings (copied up to the NUL, then zero-filled).
    pub is_string: bool,
}

/// The dynamic-variable hash key: u32 variable id, u32 scope (0 global associative array,
/// 1 thread-local), u64 thread id (0 for global associative arrays), then the encoded
/// tuple zero-padded to `tuple_size` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynamicKeyLayout {
    pub tuple_size: u32,
    pub key_size: u32,
    /// Largest value: 8, or the largest by-reference dynamic variable rounded up to 8.
    pub value_size: u32,
}

/// The aggregation hash key: u32 aggregation id, u32 part number (0 unless the
/// aggregation is split into parts), `key_size` bytes of key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AggregationKeyLayout {
    /// Longest aggregation key of the program.
    pub tuple_size: u32,
    pub key_size: u32,
    /// u64 update count, u64 generation, then the largest aggregation's words.
    pub value_size: u32,
    /// Entries of the generations map: the largest aggregation id + 1.
    pub generation_entries: u32,
}

/// Everything the translator and the runtime agree on for one program.
#[derive(Debug, Clone)]
pub struct ProgramLayout {
    pub options: LayoutOptions,
    pub state: StateLayout,
    pub globals: GlobalsLayout,
    /// Clause-local variables by id, offsets relative to a clause-locals area.
    pub clause_locals: BTreeMap<u16, GlobalVariableSlot>,
    pub dynamic: Option<DynamicKeyLayout>,
    /// Types of the program's dynamic (thread-local and associative) variables by
    /// (scope, id).
    pub dynamic_types: BTreeMap<(u8, u16), DifType>,
    pub aggregation: Option<AggregationKeyLayout>,
    /// Aggregation rules by id.
    pub aggregation_rules: BTreeMap<u32, AggregationRule>,
    /// Offset of each DIFO's string table in the constants value.
    pub string_tables: BTreeMap<DifoLocation, u32>,
    constants: Vec<u8>,
    /// Whether any statement speculates.
    pub speculates: bool,
    /// Whether any DIFO reads `vtimestamp`: the session then keeps the `vtimestamps` map
    /// with its `sched_switch` tracker.
    pub tracks_vtimestamps: bool,
}

/// Distance between the work area's two string buffers (`strsize` bytes, the NUL and
/// padding to whole words).
pub fn string_buffer_stride(strsize: u32) -> u32 {
    round_up(strsize as u64 + 8, 8) as u32
}

fn round_up(value: u64, to: u64) -> u64 {
    value.div_ceil(to) * to
}

fn checked_u32(name: &'static str, value: u64) -> Result<u32, LayoutError> {
    u32::try_from(value).map_err(|_| LayoutError::Option {
        name,
        reason: format!("{value} bytes is more than the kernel engine supports"),
    })
}

/// Scope numbers used in [`ProgramLayout::dynamic_types`] and in dynamic keys.
pub const DYNAMIC_SCOPE_GLOBAL: u8 = 0;
pub const DYNAMIC_SCOPE_THREAD: u8 = 1;

/// The program's variable types by (scope, id): the program's declarations first, then
/// every DIFO's variable table, as the reference engine resolves them.
fn variable_types(program: &CompiledProgram) -> BTreeMap<(u8, u16), (DifType, bool)> {
    let scope_number = |scope: VariableScope| match scope {
        VariableScope::Global => 0u8,
        VariableScope::ThreadLocal => 1,
        VariableScope::ClauseLocal => 2,
    };
    let mut types = BTreeMap::new();
    for variable in &program.variables {
        let associative = matches!(variable.storage, VariableStorage::Associative { .. });
        types.insert(
            (scope_number(variable.scope), variable.id),
            (variable.ty, associative),
        );
    }
    for (_, difo) in program_difos(program) {
        for variable in &difo.variable_table {
            let associative = variable.kind == difvm::difo::VariableKind::Array;
            let entry = types
                .entry((scope_number(variable.scope), variable.id))
                .or_insert((variable.ty, associative));
            entry.1 |= associative;
        }
    }
    types
}

fn slot_for(ty: &DifType) -> (u32, GlobalVariableSlot) {
    if ty.is_by_reference() {
        let size = ty.size.max(1);
        let slot = GlobalVariableSlot {
            offset: 0,
            by_reference_size: Some(size),
            is_string: ty.kind == difvm::difo::DifTypeKind::String,
        };
        (8 + round_up(size as u64, 8) as u32, slot)
    } else {
        let slot = GlobalVariableSlot {
            offset: 0,
            by_reference_size: None,
            is_string: false,
        };
        (8, slot)
    }
}

/// Where the program's variables live: global scalars in the globals value, clause-locals
/// in the work area, thread-locals and associative arrays in the dynamic map.
struct VariableLayout {
    globals: GlobalsLayout,
    clause_locals: BTreeMap<u16, GlobalVariableSlot>,
    clause_locals_size: u32,
    dynamic_types: BTreeMap<(u8, u16), DifType>,
    /// The largest dynamic value: 8, or the largest by-reference one rounded up to 8.
    dynamic_value_size: u32,
}

impl VariableLayout {
    fn new(
        types: &BTreeMap<(u8, u16), (DifType, bool)>,
        options: &LayoutOptions,
    ) -> Result<VariableLayout, LayoutError> {
        let mut globals_offset: u32 = 24;
        let speculation_states = globals_offset;
        globals_offset += 8 * options.speculation_count.max(1);
        let speculation_drops = globals_offset;
        globals_offset += 8 * options.speculation_count.max(1);
        let mut global_variables = BTreeMap::new();
        let mut clause_locals = BTreeMap::new();
        let mut clause_locals_size: u32 = 0;
        let mut dynamic_types = BTreeMap::new();
        let mut dynamic_value_size: u32 = 8;
        for (&(scope, id), &(ty, associative)) in types {
            if id < difvm::isa::builtin_variable::FIRST_USER {
                continue;
            }
            match scope {
                0 if !associative => {
                    let (size, mut slot) = slot_for(&ty);
                    slot.offset = globals_offset;
                    globals_offset = checked_u32("globals", globals_offset as u64 + size as u64)?;
                    global_variables.insert(id, slot);
                }
                2 => {
                    let (size, mut slot) = slot_for(&ty);
                    slot.offset = clause_locals_size;
                    clause_locals_size =
                        checked_u32("clause-locals", clause_locals_size as u64 + size as u64)?;
                    clause_locals.insert(id, slot);
                }
                _ => {
                    let dynamic_scope = if scope == 1 {
                        DYNAMIC_SCOPE_THREAD
                    } else {
                        DYNAMIC_SCOPE_GLOBAL
                    };
                    if ty.is_by_reference() {
                        dynamic_value_size =
                            dynamic_value_size.max(round_up(ty.size.max(1) as u64, 8) as u32);
                    }
                    dynamic_types.insert((dynamic_scope, id), ty);
                }
            }
        }
        let store_slack = global_variables
            .values()
            .filter_map(|slot: &GlobalVariableSlot| {
                slot.by_reference_size
                    .map(|size| round_up(size as u64, 8) as u32)
            });
        let store_slack = store_slack.max().unwrap_or(0);
        let globals = GlobalsLayout {
            exiting: 0,
            wall_clock_offset: 8,
            speculation_states,
            speculation_drops,
            variables: global_variables,
            variables_end: globals_offset,
            store_slack,
            size: checked_u32("globals", globals_offset as u64 + store_slack as u64)?.max(32),
        };
        Ok(VariableLayout {
            globals,
            clause_locals,
            clause_locals_size,
            dynamic_types,
            dynamic_value_size,
        })
    }
}

/// The dynamic-variable key: the tuple area holds the longest declared key, or the
/// longest tuple the stack can hold when the program does not say.
fn dynamic_key_layout(
    program: &CompiledProgram,
    types: &BTreeMap<(u8, u16), (DifType, bool)>,
    strsize: u32,
    dynamic_value_size: u32,
) -> Result<DynamicKeyLayout, LayoutError> {
    let declared = program
        .variables
        .iter()
        .filter_map(|variable| match variable.storage {
            VariableStorage::Associative { key_size } => Some(key_size),
            _ => None,
        })
        .max();
    let has_arrays = types.iter().any(|(&(scope, id), &(_, associative))| {
        associative && scope != 2 && id >= difvm::isa::builtin_variable::FIRST_USER
    });
    let tuple_size = match (has_arrays, declared) {
        (false, _) => 0,
        (true, Some(size)) => round_up(size as u64, 8) as u32,
        (true, None) => (MAX_HASH_KEY_SIZE - 16)
            .min((DIF_TUPLE_STACK_DEPTH as u32) * round_up(strsize as u64, 8) as u32),
    };
    let key_size = 16 + tuple_size;
    if key_size > MAX_HASH_KEY_SIZE {
        return Err(LayoutError::KeyTooLarge {
            what: "dynamic variable".to_string(),
            size: key_size,
        });
    }
    Ok(DynamicKeyLayout {
        tuple_size,
        key_size,
        value_size: dynamic_value_size,
    })
}

/// The aggregation key and value sizes (the longest key and largest value of the
/// program) and every aggregation's rule.
fn aggregation_layout(
    program: &CompiledProgram,
) -> Result<(Option<AggregationKeyLayout>, BTreeMap<u32, AggregationRule>), LayoutError> {
    let mut aggregation_rules = BTreeMap::new();
    let mut longest_key: u32 = 0;
    let mut longest_value: u32 = 0;
    for description in &program.aggregations {
        let rule = AggregationRule::new(&description.function).map_err(|error| {
            LayoutError::InvalidAggregation {
                aggregation: description.id,
                reason: error.to_string(),
            }
        })?;
        let words_per_entry = rule.word_count().min(AGGREGATION_PART_WORDS);
        let value_size = AGGREGATION_WORDS_OFFSET + 8 * words_per_entry as u32;
        longest_value = longest_value.max(value_size);
        longest_key = longest_key.max(round_up(description.key_size as u64, 8) as u32);
        aggregation_rules.insert(description.id, rule);
    }
    let aggregation = if program.aggregations.is_empty() {
        None
    } else {
        let key_size = 8 + longest_key;
        if key_size > MAX_HASH_KEY_SIZE {
            return Err(LayoutError::KeyTooLarge {
                what: "aggregation".to_string(),
                size: key_size,
            });
        }
        let largest_id = program
            .aggregations
            .iter()
            .map(|description| description.id)
            .max()
            .unwrap_or(0);
        Some(AggregationKeyLayout {
            tuple_size: longest_key,
            key_size,
            value_size: longest_value,
            generation_entries: largest_id.checked_add(1).ok_or_else(|| {
                LayoutError::InvalidAggregation {
                    aggregation: largest_id,
                    reason: "the aggregation id is too large".to_string(),
                }
            })?,
        })
    };
    Ok((aggregation, aggregation_rules))
}

/// Every DIFO's string table, back to back (the constants value), and where each starts.
fn string_tables(
    program: &CompiledProgram,
) -> Result<(Vec<u8>, BTreeMap<DifoLocation, u32>), LayoutError> {
    let mut constants = Vec::new();
    let mut string_tables = BTreeMap::new();
    for (location, difo) in program_difos(program) {
        string_tables.insert(location, constants.len() as u32);
        constants.extend_from_slice(&difo.string_table);
        constants.push(0);
        constants.resize(round_up(constants.len() as u64, 8) as usize, 0);
    }
    if constants.is_empty() {
        constants.resize(8, 0);
    }
    checked_u32("string tables", constants.len() as u64)?;
    Ok((constants, string_tables))
}

impl ProgramLayout {
    /// Lays out the maps of `program` for `options`.
    pub fn for_program(
        verified: &VerifiedProgram,
        options: &LayoutOptions,
    ) -> Result<ProgramLayout, LayoutError> {
        let program = verified.program();
        options.check()?;
        let types = variable_types(program);
        let variables = VariableLayout::new(&types, options)?;
        let dynamic = if variables.dynamic_types.is_empty() {
            None
        } else {
            Some(dynamic_key_layout(
                program,
                &types,
                options.strsize,
                variables.dynamic_value_size,
            )?)
        };
        let (aggregation, aggregation_rules) = aggregation_layout(program)?;
        let (constants, string_tables) = string_tables(program)?;
        let largest_by_reference = types
            .values()
            .filter(|(ty, _)| ty.is_by_reference())
            .map(|(ty, _)| ty.size)
            .max()
            .unwrap_or(0)
            .min(difvm::verify::STATIC_VARIABLE_MAX_SIZE.max(variables.dynamic_value_size));
        let record_size = program
            .statements
            .iter()
            .map(|statement| statement.record_size)
            .max()
            .unwrap_or(0)
            + RECORD_HEADER_SIZE;
        let state = StateLayout::new(
            options,
            round_up(record_size as u64, 8) as u32,
            aggregation.as_ref(),
            dynamic.as_ref(),
            round_up(variables.clause_locals_size as u64, 8) as u32,
            largest_by_reference,
            OptionalAreas {
                strtok: calls_subroutine(program, difvm::isa::subroutine::STRTOK),
                curcpu: program_reads_builtin(program, difvm::isa::builtin_variable::CURCPU),
            },
        )?;
        let speculates = program.statements.iter().any(|statement| {
            statement.actions.iter().any(|action| {
                matches!(
                    action.kind,
                    ActionKind::Speculate | ActionKind::Commit | ActionKind::Discard
                )
            })
        });
        Ok(ProgramLayout {
            options: options.clone(),
            state,
            globals: variables.globals,
            clause_locals: variables.clause_locals,
            dynamic,
            dynamic_types: variables.dynamic_types,
            aggregation,
            aggregation_rules,
            string_tables,
            constants,
            speculates,
            tracks_vtimestamps: program_reads_vtimestamp(program),
        })
    }

    /// The bytes the runtime writes into the constants map's single value.
    pub fn constants_image(&self) -> &[u8] {
        &self.constants
    }

    /// The maps to create, in the order of [`MapFds`]'s fields (optional maps only when
    /// the program needs them).
    pub fn map_specs(&self) -> Vec<MapSpec> {
        let cpus = self.options.cpu_count;
        let mut specs = vec![
            MapSpec {
                name: "dtrace_state",
                map_type: MapType::Array,
                key_size: 4,
                value_size: self.state.size,
                max_entries: cpus * WORK_AREAS_PER_CPU,
                flags: 0,
            },
            MapSpec {
                name: "dtrace_globals",
                map_type: MapType::Array,
                key_size: 4,
                value_size: self.globals.size,
                max_entries: 1,
                flags: 0,
            },
            MapSpec {
                name: "dtrace_consts",
                map_type: MapType::Array,
                key_size: 4,
                value_size: self.constants.len() as u32,
                max_entries: 1,
                flags: crate::sys::BPF_F_RDONLY_PROG,
            },
            MapSpec {
                name: "dtrace_counters",
                map_type: MapType::PercpuArray,
                key_size: 4,
                value_size: (COUNTER_COUNT * 8) as u32,
                max_entries: COUNTERS_KEY_PRINCIPAL_DRAINED + 1,
                flags: 0,
            },
            MapSpec {
                name: "dtrace_buffers",
                map_type: MapType::PerfEventArray,
                key_size: 4,
                value_size: 4,
                max_entries: cpus,
                flags: 0,
            },
        ];
        if let Some(dynamic) = &self.dynamic {
            let entry =
                DYNAMIC_VARIABLE_OVERHEAD + dynamic.key_size as u64 + dynamic.value_size as u64;
            specs.push(MapSpec {
                name: "dtrace_dynvars",
                map_type: MapType::Hash,
                key_size: dynamic.key_size,
                value_size: dynamic.value_size,
                max_entries: (self.options.dynamic_variable_size / entry).clamp(1, u32::MAX as u64)
                    as u32,
                flags: 0,
            });
        }
        if let Some(aggregation) = &self.aggregation {
            let entry = AGGREGATION_ENTRY_OVERHEAD
                + aggregation.key_size as u64
                + aggregation.value_size as u64;
            specs.push(MapSpec {
                name: "dtrace_aggs",
                map_type: MapType::PercpuHash,
                key_size: aggregation.key_size,
                value_size: aggregation.value_size,
                max_entries: (self.options.aggregation_size / entry).clamp(1, u32::MAX as u64)
                    as u32,
                flags: 0,
            });
            specs.push(MapSpec {
                name: "dtrace_agggen",
                map_type: MapType::Array,
                key_size: 4,
                value_size: 8,
                max_entries: aggregation.generation_entries,
                flags: 0,
            });
        }
        if self.speculates {
            specs.push(MapSpec {
                name: "dtrace_specs",
                map_type: MapType::Array,
                key_size: 4,
                value_size: 8 + self.options.speculation_size,
                max_entries: self.options.speculation_count.max(1) * cpus,
                flags: 0,
            });
        }
        if self.tracks_vtimestamps {
            specs.push(MapSpec {
                name: "dtrace_vtimes",
                map_type: MapType::LruHash,
                key_size: 8,
                value_size: VtimestampLayout::SIZE,
                max_entries: VTIMESTAMP_THREADS,
                flags: 0,
            });
        }
        specs
    }

    /// The aggregation key bytes of an entry of aggregation `id` with encoded key `key`
    /// (for the runtime's lookups and deletions).
    pub fn aggregation_key(&self, id: u32, key: &[u8]) -> Option<Vec<u8>> {
        let layout = self.aggregation.as_ref()?;
        if key.len() > layout.tuple_size as usize {
            return None;
        }
        let mut bytes = vec![0u8; layout.key_size as usize];
        bytes[..4].copy_from_slice(&id.to_le_bytes());
        bytes[8..8 + key.len()].copy_from_slice(key);
        Some(bytes)
    }
}

/// The work-area areas only some programs need.
struct OptionalAreas {
    /// The program calls `strtok()`.
    strtok: bool,
    /// The program reads `curcpu`.
    curcpu: bool,
}

impl StateLayout {
    fn new(
        options: &LayoutOptions,
        record_size: u32,
        aggregation: Option<&AggregationKeyLayout>,
        dynamic: Option<&DynamicKeyLayout>,
        clause_locals_size: u32,
        largest_by_reference: u32,
        optional: OptionalAreas,
    ) -> Result<StateLayout, LayoutError> {
        let strsize = options.strsize;
        let mut offset: u32 = 0;
        let mut word = || {
            let at = offset;
            offset += 8;
            at
        };
        let nesting = word();
        let scratch_used = word();
        let alloca_used = word();
        let fault_code = word();
        let fault_value = word();
        let fault_offset = word();
        let fault_action = word();
        let timestamp = word();
        let walltimestamp = word();
        let destination = word();
        let commits = word();
        let random = word();
        let tuple_count = word();
        let principal_written = word();
        let decoded_span = word();
        let area = |offset: &mut u32, size: u32| {
            let at = *offset;
            *offset += round_up(size as u64, 8) as u32;
            at
        };
        let tuples = area(&mut offset, 24 * DIF_TUPLE_STACK_DEPTH as u32);
        let arguments = area(&mut offset, 80);
        let error_arguments = area(&mut offset, 80);
        let temporary = area(&mut offset, 64);
        let aggregation_key = area(
            &mut offset,
            aggregation.map_or(0, |layout| layout.key_size) + 8,
        );
        let aggregation_value = area(
            &mut offset,
            aggregation.map_or(0, |layout| layout.value_size),
        );
        // The key buffer keeps `strsize + 8` spare bytes: a string copy writes its NUL
        // one byte past its slot before the next entry overwrites it.
        let dynamic_key = area(
            &mut offset,
            dynamic.map_or(0, |layout| layout.key_size) + strsize + 8,
        );
        let dynamic_value = area(&mut offset, dynamic.map_or(0, |layout| layout.value_size));
        let clause_locals = area(&mut offset, clause_locals_size);
        let error_clause_locals = area(&mut offset, clause_locals_size);
        let builtin_strings = area(&mut offset, 5 * strsize);
        let string_buffers = area(&mut offset, 2 * string_buffer_stride(strsize));
        let stack = area(&mut offset, 8 * STACK_FRAMES);
        let cpuinfo = optional.curcpu.then(|| area(&mut offset, CPUINFO_SIZE));
        // Fixed areas are addressed with 16-bit instruction offsets from the work area.
        if offset > i16::MAX as u32 {
            return Err(LayoutError::Option {
                name: "strsize",
                reason: format!(
                    "keys, clause-locals and strings need {offset} bytes of per-CPU work area, \
                     more than the 32767 the kernel engine addresses directly"
                ),
            });
        }
        // A record may be longer than 16-bit offsets reach (DTrace takes a clause of a
        // hundred printf()s): its stores form their address when it lies beyond them.
        let record = area(&mut offset, record_size);
        let tokens = optional.strtok.then(|| {
            let size = 8 + string_buffer_stride(strsize);
            [area(&mut offset, size), area(&mut offset, size)]
        });
        let scratch = area(&mut offset, options.scratch_size);
        let scratch_mask_size = (options.scratch_size.max(8) as u64).next_power_of_two() as u32;
        let zero_guard_size = scratch_mask_size
            .max((strsize as u64 + 8).next_power_of_two() as u32)
            .max(dynamic.map_or(0, |layout| layout.key_size * 2))
            .max(aggregation.map_or(0, |layout| layout.key_size.max(layout.value_size)))
            .max(record_size)
            .max(clause_locals_size)
            .max(5 * strsize)
            .max(round_up(largest_by_reference as u64, 8) as u32 + 8);
        let zero_guard = area(&mut offset, zero_guard_size);
        let size = checked_u32("per-CPU state", offset as u64)?;
        Ok(StateLayout {
            nesting,
            scratch_used,
            alloca_used,
            fault_code,
            fault_value,
            fault_offset,
            fault_action,
            timestamp,
            walltimestamp,
            destination,
            commits,
            random,
            tuple_count,
            principal_written,
            decoded_span,
            tuples,
            arguments,
            error_arguments,
            temporary,
            record,
            record_size,
            aggregation_key,
            aggregation_value,
            dynamic_key,
            dynamic_value,
            clause_locals,
            error_clause_locals,
            clause_locals_size,
            builtin_strings,
            string_buffers,
            stack,
            cpuinfo,
            tokens,
            scratch,
            scratch_size: options.scratch_size,
            scratch_mask_size,
            zero_guard,
            zero_guard_size,
            size,
        })
    }
}
