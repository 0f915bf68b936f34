//! What a session is asked to instrument: each enabled probe and how (a marker's
//! uprobe for BEGIN and END, the shared system-call dispatcher, or the probe's own
//! attachment targets), and the context its program reads.

use super::attach::AttachTarget;
use super::markers::Marker;
use crate::translate::ContextKind;

/// How a probe is instrumented.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeInstrumentation {
    /// `dtrace:::BEGIN` or `dtrace:::END`: the marker's uprobe.
    Marker(Marker),
    /// A system call's entry or return, reached through the shared dispatcher on
    /// `raw_syscalls` (one attachment per direction for all system calls).
    Syscall { number: u32, is_return: bool },
    /// Any other probe: its program reads `context` and is attached at every target
    /// (a USDT probe has one per site).
    Targets {
        context: ContextKind,
        targets: Vec<AttachTarget>,
    },
}

/// One enabled probe and how to instrument it. The ERROR probe needs none: its clauses
/// are compiled into every other probe's program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbePlan {
    pub probe_id: u32,
    /// `provider:module:function:name`, for messages.
    pub name: String,
    pub instrumentation: ProbeInstrumentation,
    /// Where the recorder of `runtime::return_exits` is attached for this probe: the
    /// exits of a pid return probe's function (uprobes whose cookies hold the probe's
    /// own cookie and each exit's offset); empty for every other probe.
    pub exit_recorders: Vec<AttachTarget>,
}

impl ProbeInstrumentation {
    /// What the probe's program reads as `ctx`.
    pub fn context(&self) -> ContextKind {
        match self {
            ProbeInstrumentation::Marker(_) => ContextKind::DtraceMarker,
            ProbeInstrumentation::Syscall { number, is_return } => {
                if *is_return {
                    ContextKind::SyscallReturn {
                        syscall: Some(*number),
                    }
                } else {
                    ContextKind::SyscallEntry {
                        syscall: Some(*number),
                    }
                }
            }
            ProbeInstrumentation::Targets { context, .. } => context.clone(),
        }
    }
}
