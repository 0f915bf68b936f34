//! The error type of the runtime: what the kernel engine was doing when a system call,
//! a program load or a lookup of the running binary failed.

use std::fmt;

use crate::sys::{LoadError, SysError};

/// Why the kernel engine could not set up, run or tear down a tracing session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeError {
    /// A bpf(2), perf_event_open(2), mmap or epoll call failed.
    Sys(SysError),
    /// The kernel's verifier refused a probe's program; `log` is the verifier's
    /// explanation, kept for `-x debug`.
    ProgramRejected {
        probe: String,
        error: SysError,
        log: String,
    },
    /// The translator cannot turn a probe's clauses into eBPF.
    Translate { probe: String, reason: String },
    /// Something the runtime needs is missing or malformed (a marker symbol, say).
    Invalid { attempted: String, reason: String },
}

impl RuntimeError {
    pub fn invalid(attempted: impl Into<String>, reason: impl Into<String>) -> RuntimeError {
        RuntimeError::Invalid {
            attempted: attempted.into(),
            reason: reason.into(),
        }
    }

    /// A verifier rejection of the program of `probe`.
    pub fn rejected(probe: impl Into<String>, error: LoadError) -> RuntimeError {
        RuntimeError::ProgramRejected {
            probe: probe.into(),
            error: error.error,
            log: error.log,
        }
    }

    /// The verifier log of a rejected program (empty for other errors).
    pub fn verifier_log(&self) -> &str {
        match self {
            RuntimeError::ProgramRejected { log, .. } => log,
            _ => "",
        }
    }

    /// Whether the kernel refused for lack of privilege.
    pub fn is_permission_denied(&self) -> bool {
        match self {
            RuntimeError::Sys(error) | RuntimeError::ProgramRejected { error, .. } => {
                error.is_permission_denied()
            }
            RuntimeError::Invalid { .. } | RuntimeError::Translate { .. } => false,
        }
    }
}

impl From<SysError> for RuntimeError {
    fn from(error: SysError) -> RuntimeError {
        RuntimeError::Sys(error)
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::Sys(error) => write!(f, "{error}"),
            RuntimeError::ProgramRejected { probe, error, .. } => {
                write!(f, "the kernel refused the program for {probe}: {error}")
            }
            RuntimeError::Translate { probe, reason } => write!(f, "{probe}: {reason}"),
            RuntimeError::Invalid { attempted, reason } => write!(f, "{attempted}: {reason}"),
        }
    }
}

impl std::error::Error for RuntimeError {}
