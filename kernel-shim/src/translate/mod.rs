//! DIF → eBPF translation: every verified DIFO of the statements enabled on one probe is
//! translated instruction by instruction into one eBPF program, the probe's ECB chain
//! (predicate → actions → record, clause after clause), which the runtime loads and
//! attaches.
//!
//! The only input accepted is a [`VerifiedProgram`]; [`crate::map_layout`] is the contract
//! with the runtime (maps, keys, values, tagged addresses). The program behaves like the reference
//! interpreter (`difvm::interp`): the same records byte for byte, the same aggregation
//! words, the same faults with the same DIF offsets.
//!
//! # Machine model
//!
//! | eBPF | holds |
//! |---|---|
//! | r6 | the program's context (`ctx`) |
//! | r7 | the work area the program took (a `state` map value, see `chain`) |
//! | r8, r9 | values that must survive helper calls (a DIFO's result, loop cursors) |
//! | r0–r5 | temporaries and helper arguments |
//! | stack | DIF registers `%r1`–`%r7`, the condition-code operands, spill slots (`registers`) |
//!
//! The ERROR probe's clauses are compiled into every program as a subprogram that a
//! faulting clause calls (see `chain`); they run with their own arguments and clause-local
//! storage, and a fault inside them only counts.
//!
//! Loops that would nest (`index()` tries every position, `cleanpath()` backs up inside
//! its walk over the path), and the byte and digit loops of `toupper()`, `tolower()`,
//! `strchr()`, `strrchr()`, `basename()`, `dirname()`, `lltostr()` and `strtoll()`,
//! which the verifier would otherwise follow once per byte, against its limit of a
//! million instructions for the whole program, run through `bpf_loop` callbacks (see
//! `loops`); the kernel
//! accepts those only with BTF typing every function of the program, so a program is
//! returned as a [`TranslatedProgram`] that knows its functions and loads itself with
//! that BTF ([`TranslatedProgram::load`]).
//!
//! # What the kernel engine does not do yet
//!
//! Translation fails with a [`TranslateError`] naming what is missing rather than
//! producing code that would behave differently: `copyout()` and `copyoutstr()` (they
//! need `bpf_probe_write_user`, which kernels in lockdown refuse), `ppid`, `progenyof()` and `vtimestamp` without task
//! offsets (see [`TaskStructOffsets::from_running_kernel`]), tuple stacks whose shape
//! differs between the paths reaching a use, struct-keyed associative arrays, and
//! speculation with more than 256 (speculation × CPU) buffers. `panic()`,
//! `breakpoint()` and `chill()` are refused too, as by the interpreter: Linux has no way
//! for a BPF program to carry them out.
//!
//! # Known differences from the interpreter
//!
//! * Tagged addresses (in `arg5` of a fault on internal memory) have other values than
//!   the interpreter's region-numbered ones.
//! * A string read that faults part-way reports its start address, not the first
//!   unreadable byte.
//! * Loading a by-reference dynamic variable other than a string copies it into scratch,
//!   so it uses scratch space the interpreter does not.
//! * Storing a by-reference value that faults part-way leaves the variable cleared.
//! * Drops are decided by the kernel maps' capacities (entries derived from `aggsize` and
//!   `dynvarsize`), not by the interpreter's byte accounting. A principal-buffer drop
//!   happens before the predicate, as in the interpreter, when the programs count the
//!   buffer's bytes (`switch` and `fill`, see `principal_buffer`); under `ring`, or when
//!   the perf ring is full all the same (records of 8 bytes), after the clause ran.
//! * `substr()` computes in 64 bits, the interpreter in 128: they differ only for
//!   arguments near the ends of the 64-bit range.
//! * `rand()` keeps one generator per CPU.
//! * `regs[]` and `uregs[]` are indexed by the u64 slots of x86_64 `struct pt_regs`;
//!   `ucaller` is the second frame of the user stack as frame pointers reveal it.
//! * `progenyof()` follows at most 32 ancestors.
//! * `vtimestamp` adds up `bpf_ktime_get_ns` time between a thread's switches from the
//!   scheduler's count at the first switch the session sees (see `vtimestamps`); the
//!   interpreter reads the thread's CPU clock. Both include DTrace's own time.
//! * Kernel stacks leave out the tracing machinery's frames (see `artificial_frames`).

pub mod artificial_frames;
pub mod context;
mod registers;
mod tuples;
pub mod usdt_arguments;

mod aggregations;
mod arguments;
mod builtins;
mod chain;
mod clean_path;
mod code;
mod dentry_path;
mod entry_stacks;
mod error;
mod fold;
mod instructions;
mod loops;
mod memory;
mod nesting;
mod network;
mod principal_buffer;
pub mod program;
mod prune;
mod records;
mod signals;
mod speculation;
mod statement;
mod string_search;
mod string_subroutines;
mod strings;
mod subject_task;
mod subroutines;
mod tokens;
mod translation_context;
mod variables;
mod vtimestamps;

use difvm::object::EnabledProbe;
use difvm::verify::VerifiedProgram;

use crate::ebpf::Insn;
use crate::map_layout::{MapFds, ProgramLayout};

pub use artificial_frames::{program_reads_kernel_stacks, ArtificialFrames, KernelTextRange};
pub use context::{ContextKind, ReturnOffset, TracepointField, TracepointValue};
pub use error::TranslateError;
pub use program::{FunctionKind, ProgramFunction, TranslatedProgram};
pub use usdt_arguments::{parse_usdt_arguments, UsdtArgument, UsdtLocation};
pub use vtimestamps::vtimestamp_tracker;

/// Translates the ECB chain of probe `probe_id`: every statement of `enabled` whose
/// probe id is `probe_id`, in EPID order, plus the statements enabled on the ERROR probe
/// (run when a clause faults). `context` says how the probe's arguments are read. Load the
/// result with [`TranslatedProgram::load`], which adds the functions' BTF when needed.
/// Kernel stacks skip the fixed artificial frames of the context
/// ([`ArtificialFrames::structural`]); the runtime, which knows the machinery functions'
/// addresses, uses [`translate_probe_with_artificial_frames`].
pub fn translate_probe(
    layout: &ProgramLayout,
    maps: &MapFds,
    probe_id: u32,
    enabled: &[EnabledProbe],
    program: &VerifiedProgram,
    context: &ContextKind,
) -> Result<TranslatedProgram, TranslateError> {
    let artificial_frames = ArtificialFrames::structural(context);
    translate_probe_with_artificial_frames(
        layout,
        maps,
        probe_id,
        enabled,
        program,
        context,
        &artificial_frames,
    )
}

/// [`translate_probe`] with the artificial frames of the probe's kernel stacks found as
/// `artificial_frames` says (see [`artificial_frames`]).
pub fn translate_probe_with_artificial_frames(
    layout: &ProgramLayout,
    maps: &MapFds,
    probe_id: u32,
    enabled: &[EnabledProbe],
    program: &VerifiedProgram,
    context: &ContextKind,
    artificial_frames: &ArtificialFrames,
) -> Result<TranslatedProgram, TranslateError> {
    chain::translate(
        layout,
        maps,
        probe_id,
        enabled,
        program.program(),
        context,
        artificial_frames,
    )
}

/// [`translate_probe`] for callers that load the instructions themselves: a program
/// that needs its functions' BTF (one using `bpf_loop`, for `index()`, `strtok()`…, or
/// the address decoder, for reads of DIF memory) is refused with an error saying so,
/// since the kernel would refuse it without.
pub fn translate_probe_program(
    layout: &ProgramLayout,
    maps: &MapFds,
    probe_id: u32,
    enabled: &[EnabledProbe],
    program: &VerifiedProgram,
    context: &ContextKind,
) -> Result<Vec<Insn>, TranslateError> {
    let translated = translate_probe(layout, maps, probe_id, enabled, program, context)?;
    if translated.needs_function_info() {
        return Err(TranslateError::Unsupported {
            what: "loading a program with bpf_loop callbacks or global functions without \
                   its functions' BTF (translate it with translate_probe and load it with \
                   TranslatedProgram::load)"
                .to_string(),
            location: format!("probe {probe_id}"),
        });
    }
    Ok(translated.instructions)
}
