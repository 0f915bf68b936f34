//! Errors of probe enumeration: unreadable or malformed system files, and descriptions
//! the pid and usdt providers reject (with the D_PROC_* tag the compiler reports).

use std::fmt;
use std::path::{Path, PathBuf};

/// The D compile-error tag of a rejected user-probe description (§14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UserProbeErrorTag {
    /// D_PROC_OFF: an instruction offset beyond the end of the function.
    Offset,
    /// D_PROC_ALIGN: an instruction offset inside an instruction rather than at its start.
    Align,
    /// D_PROC_CREATEFAIL: the probe could not be made (its function's code could not be
    /// read to find the instruction boundaries).
    CreateFail,
    /// D_PROC_FUNC: an exactly named module that has no function of the exact name.
    Function,
    /// D_PROC_NAME: a pid probe name that is neither entry, return nor a hex offset.
    Name,
    /// D_PROC_LIB: a module other than the executable with the `-` function.
    Library,
    /// D_PROC_BADPID: a provider field whose pid is not a valid process id.
    BadPid,
    /// D_PROC_GRAB: the process does not exist or cannot be inspected.
    Grab,
}

impl UserProbeErrorTag {
    /// The tag as the compiler prints it (`D_PROC_OFF`).
    pub fn tag_name(self) -> &'static str {
        match self {
            UserProbeErrorTag::Offset => "D_PROC_OFF",
            UserProbeErrorTag::Align => "D_PROC_ALIGN",
            UserProbeErrorTag::Function => "D_PROC_FUNC",
            UserProbeErrorTag::CreateFail => "D_PROC_CREATEFAIL",
            UserProbeErrorTag::Name => "D_PROC_NAME",
            UserProbeErrorTag::Library => "D_PROC_LIB",
            UserProbeErrorTag::BadPid => "D_PROC_BADPID",
            UserProbeErrorTag::Grab => "D_PROC_GRAB",
        }
    }
}

/// Why a provider could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderError {
    /// A file or directory could not be read.
    Io { path: PathBuf, message: String },
    /// A file was read but its content is not what the provider expects.
    Malformed { path: PathBuf, message: String },
    /// A pid or usdt description was rejected; the message is DTrace's text.
    UserProbe {
        tag: UserProbeErrorTag,
        message: String,
    },
    /// tracefs could not be found or mounted.
    Tracefs { message: String },
    /// A probe named exactly that this kernel cannot back, with the reason.
    Unavailable { message: String },
}

impl ProviderError {
    /// An `Io` error for `path` from a `std::io::Error`.
    pub fn io(path: &Path, error: &std::io::Error) -> ProviderError {
        ProviderError::Io {
            path: path.to_path_buf(),
            message: error.to_string(),
        }
    }

    /// A `Malformed` error for `path`.
    pub fn malformed(path: &Path, message: impl Into<String>) -> ProviderError {
        ProviderError::Malformed {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }

    /// The D compile-error tag, for errors the compiler reports with one.
    pub fn tag_name(&self) -> Option<&'static str> {
        match self {
            ProviderError::UserProbe { tag, .. } => Some(tag.tag_name()),
            _ => None,
        }
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderError::Io { path, message } => {
                write!(f, "cannot read {}: {}", path.display(), message)
            }
            ProviderError::Malformed { path, message } => {
                write!(f, "malformed {}: {}", path.display(), message)
            }
            ProviderError::UserProbe { message, .. } => f.write_str(message),
            ProviderError::Tracefs { message } | ProviderError::Unavailable { message } => {
                f.write_str(message)
            }
        }
    }
}

impl std::error::Error for ProviderError {}
