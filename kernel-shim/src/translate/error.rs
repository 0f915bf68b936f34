//! Why a probe's program could not be translated.

use std::fmt;

use crate::ebpf::AssembleError;

/// Why a probe's program could not be translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranslateError {
    /// The kernel engine does not support something the program uses yet; the text says
    /// what (a subroutine, a built-in variable, …) and where.
    Unsupported { what: String, location: String },
    /// A map the program needs was not created.
    MissingMap { map: &'static str },
    /// The generated code could not be assembled (a jump too long, say).
    Assemble(AssembleError),
    /// An enabled probe names a statement the program does not have.
    StatementOutOfRange { epid: u32, statement: usize },
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranslateError::Unsupported { what, location } => {
                write!(
                    f,
                    "{location}: {what} is not supported by the kernel engine"
                )
            }
            TranslateError::MissingMap { map } => {
                write!(f, "the program needs the {map} map, which was not created")
            }
            TranslateError::Assemble(error) => write!(f, "{error}"),
            TranslateError::StatementOutOfRange { epid, statement } => {
                write!(
                    f,
                    "enabled probe {epid} names missing statement {statement}"
                )
            }
        }
    }
}

impl std::error::Error for TranslateError {}

impl From<AssembleError> for TranslateError {
    fn from(error: AssembleError) -> TranslateError {
        TranslateError::Assemble(error)
    }
}
