//! The reference DIF interpreter: executes DIFOs with DTrace's semantics (registers,
//! condition codes, tuple stack, variables, subroutines, faults) and runs a compiled
//! program's statements when probes fire, producing the same records, aggregations,
//! speculations and drop counts a kernel engine would.
//!
//! [`Engine`] is the entry point for running programs; [`execute_difo`] runs a single
//! DIFO against a [`MachineState`] (for tests and fuzzing).

pub mod context;
pub mod engine;
#[cfg(test)]
mod engine_tests;
pub mod fault;
pub mod machine;
pub mod memory;
mod records;
pub mod speculation;
mod strings;
mod subroutines;
pub mod variables;

pub use context::{ProbeFiringContext, SimpleFiringContext};
pub use engine::{Engine, EngineError, FaultReport, FiringOutcome};
pub use fault::{DifFault, RuntimeFault};
pub use machine::{execute_difo, MachineOptions, MachineState, ProbeIdentity};

/// Runs one DIFO on a fresh machine with default options, as probe 0 (EPID 0) of an
/// empty probe description; for tests.
pub fn evaluate_difo(
    difo: &crate::difo::Difo,
    context: &dyn ProbeFiringContext,
) -> Result<u64, DifFault> {
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    let probe = crate::object::ProbeDescription::default();
    let identity = ProbeIdentity {
        epid: 0,
        probe_id: 0,
        probe: &probe,
    };
    execute_difo(difo, &mut state, &identity, context)
}
