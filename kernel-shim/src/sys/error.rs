//! The error type of the syscall layer: what was attempted, and the errno or the reason it
//! was refused before reaching the kernel.

use std::fmt;

/// A failed bpf(2), perf_event_open(2), ioctl, mmap or kernel-file access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SysError {
    /// The kernel (or a file under /sys) answered with an errno.
    Os { attempted: String, errno: i32 },
    /// The request was refused before reaching the kernel (a key of the wrong size, say),
    /// or a kernel file did not say what it should.
    Invalid { attempted: String, reason: String },
}

impl SysError {
    /// An error for `attempted` with the calling thread's current errno.
    pub fn last_os_error(attempted: impl Into<String>) -> SysError {
        SysError::Os {
            attempted: attempted.into(),
            errno: std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO),
        }
    }

    /// An error for `attempted` from a standard library I/O error.
    pub fn from_io(attempted: impl Into<String>, error: &std::io::Error) -> SysError {
        match error.raw_os_error() {
            Some(errno) => SysError::Os {
                attempted: attempted.into(),
                errno,
            },
            None => SysError::Invalid {
                attempted: attempted.into(),
                reason: error.to_string(),
            },
        }
    }

    /// A request refused before reaching the kernel.
    pub fn invalid(attempted: impl Into<String>, reason: impl Into<String>) -> SysError {
        SysError::Invalid {
            attempted: attempted.into(),
            reason: reason.into(),
        }
    }

    /// What was attempted, e.g. `bpf(BPF_MAP_CREATE) of hash map "counts"`.
    pub fn attempted(&self) -> &str {
        match self {
            SysError::Os { attempted, .. } | SysError::Invalid { attempted, .. } => attempted,
        }
    }

    /// The errno, if the kernel gave one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            SysError::Os { errno, .. } => Some(*errno),
            SysError::Invalid { .. } => None,
        }
    }

    /// Whether the kernel refused for lack of privilege (EPERM or EACCES).
    pub fn is_permission_denied(&self) -> bool {
        matches!(self.errno(), Some(libc::EPERM) | Some(libc::EACCES))
    }
}

/// The C library's words for `errno` (strerror(3)), without the ` (os error N)` that
/// Rust's `io::Error` adds: the words dtrace(1) prints, e.g. `No such file or directory`.
pub fn errno_description(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    match text.find(" (os error") {
        Some(position) => text[..position].to_string(),
        None => text,
    }
}

impl fmt::Display for SysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SysError::Os { attempted, errno } => {
                write!(f, "{attempted}: {}", errno_description(*errno))
            }
            SysError::Invalid { attempted, reason } => write!(f, "{attempted}: {reason}"),
        }
    }
}

impl std::error::Error for SysError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_attempt_and_the_errno() {
        let error = SysError::Os {
            attempted: "bpf(BPF_MAP_CREATE) of array map \"x\"".to_string(),
            errno: libc::EPERM,
        };
        assert_eq!(
            error.to_string(),
            "bpf(BPF_MAP_CREATE) of array map \"x\": Operation not permitted"
        );
        assert!(error.is_permission_denied());
        let refused = SysError::invalid("map lookup", "key is 3 bytes, the map's keys are 4");
        assert_eq!(refused.errno(), None);
        assert_eq!(
            refused.to_string(),
            "map lookup: key is 3 bytes, the map's keys are 4"
        );
    }
}
