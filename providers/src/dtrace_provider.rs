//! The dtrace provider: BEGIN, END and ERROR, with empty module and function. Like
//! classic DTrace it declares no typed arguments (ERROR passes raw arg0–arg5, §13).

use difvm::object::ProbeDescription;

use crate::attributes::{ProviderAttributes, DTRACE_ATTRIBUTES};
use crate::error::ProviderError;
use crate::provider::{
    concrete_description, description_matches, DtraceProbe, ProbeEntry, ProbeKind, Provider,
};

/// The dtrace provider.
#[derive(Debug, Default)]
pub struct DtraceProvider;

/// The provider's probes in id order (BEGIN=1, END=2, ERROR=3 in the registry).
const DTRACE_PROBES: [(&str, DtraceProbe); 3] = [
    ("BEGIN", DtraceProbe::Begin),
    ("END", DtraceProbe::End),
    ("ERROR", DtraceProbe::Error),
];

impl Provider for DtraceProvider {
    fn name(&self) -> &str {
        "dtrace"
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        Ok(DTRACE_PROBES
            .iter()
            .map(|&(name, probe)| {
                ProbeEntry::new(
                    concrete_description("dtrace", "", "", name),
                    ProbeKind::Dtrace(probe),
                )
            })
            .filter(|entry| description_matches(description, &entry.description))
            .collect())
    }

    fn attributes(&self) -> ProviderAttributes {
        DTRACE_ATTRIBUTES
    }
}
