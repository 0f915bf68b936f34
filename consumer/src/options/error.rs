//! Why setting an option failed: libdtrace's option error codes and their texts, which
//! both the option table and the value parsers return.

use std::fmt;

/// Why setting an option failed; `message()` is libdtrace's error text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// EDT_BADOPTNAME.
    InvalidOptionName,
    /// EDT_BADOPTVAL.
    InvalidValue,
    /// EDT_BADOPTCTX: the option is refused inside a D program.
    NotFromProgram,
    /// EDT_ACTIVE: a non-dynamic runtime option was changed while tracing.
    TracingActive,
    /// EDT_VERSINVAL: the `version` value is malformed or a component is too large.
    MalformedVersion,
    /// EDT_VERSUNDEF: the `version` value names no D version this compiler knows.
    UnsupportedVersion,
}

impl OptionError {
    /// libdtrace's text for the error (EDT_VERSINVAL's wording is unverified).
    pub fn message(self) -> &'static str {
        match self {
            OptionError::InvalidOptionName => "Invalid option name",
            OptionError::InvalidValue => "Invalid value for specified option",
            OptionError::NotFromProgram => "Option cannot be used from within a D program",
            OptionError::TracingActive => "Operation illegal when tracing is active",
            OptionError::MalformedVersion => "Version is not properly formatted or is too large",
            OptionError::UnsupportedVersion => "Requested version is not supported by compiler",
        }
    }
}

impl fmt::Display for OptionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.message())
    }
}
