//! The dtrace provider's BEGIN and END probes: programs that no kernel event fires, run
//! by the consumer itself with `BPF_PROG_RUN` (a raw-tracepoint program's test run).
//!
//! The test run of a raw-tracepoint program runs it at once, in the calling thread, on
//! the calling CPU, with preemption disabled: `pid`, `execname`, `curthread`, `cpu` and
//! the user stack are the consumer's, as a probe in the consumer's own thread would see
//! them, and the records it writes are in the principal buffer before the call returns.
//! Earlier the markers were uprobes on two functions of our own binary; closing a uprobe
//! waits for an RCU-tasks grace period, which cost a tenth of a second of every run's
//! start-up, and the test run needs no attachment at all (Linux 5.10 and later).

use super::error::RuntimeError;
use crate::sys::{ProgFd, TestRunRequest};

/// Which marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    Begin,
    End,
}

/// The words of the raw tracepoint context a marker program is run with: every argument
/// of BEGIN and END reads as 0, and the kernel refuses a test run whose context is
/// shorter than the program's reads of it (at most 12 words: `MAX_BPF_FUNC_ARGS`).
const MARKER_CONTEXT: [u8; 8 * 12] = [0; 8 * 12];

impl Marker {
    /// The probe's name, for messages.
    pub const fn probe_name(self) -> &'static str {
        match self {
            Marker::Begin => "dtrace:::BEGIN",
            Marker::End => "dtrace:::END",
        }
    }

    /// Runs `program`, the marker's ECB chain, in this thread on this CPU.
    pub fn fire(self, program: &ProgFd) -> Result<(), RuntimeError> {
        program
            .test_run(&TestRunRequest {
                context: &MARKER_CONTEXT,
                ..TestRunRequest::default()
            })
            .map(|_| ())
            .map_err(|error| {
                RuntimeError::invalid(format!("firing {}", self.probe_name()), error.to_string())
            })
    }
}
