//! The sdt provider: kernel tracepoints, tracefs `events/GROUP/EVENT`, as
//! `sdt:GROUP::EVENT`, typed from the event's `format` file (every field after the
//! common header is an argument; `tracepoint_arguments` gives each its D type).
//!
//! When tracefs cannot be read (not mounted, or no permission) the provider has no
//! probes; argument types are read lazily because reading every `format` file is slow.

use std::sync::OnceLock;

use difvm::glob::field_matches;
use difvm::object::ProbeDescription;

use crate::attributes::{ProviderAttributes, SDT_ATTRIBUTES};
use crate::error::ProviderError;
use crate::provider::{
    concrete_description, module_function_name_match, ProbeEntry, ProbeKind, Provider,
};
use crate::tracefs::Tracefs;
use crate::tracepoint_arguments::tracepoint_arguments;

/// The sdt provider.
#[derive(Debug)]
pub struct SdtProvider {
    tracefs: Option<Tracefs>,
    tracepoints: OnceLock<Vec<(String, String)>>,
}

impl SdtProvider {
    /// A provider listing the tracepoints of `tracefs` (None: no probes).
    pub fn new(tracefs: Option<Tracefs>) -> SdtProvider {
        SdtProvider {
            tracefs,
            tracepoints: OnceLock::new(),
        }
    }

    /// Every (group, event) pair, sorted by group then event.
    fn tracepoints(&self) -> &[(String, String)] {
        self.tracepoints.get_or_init(|| {
            self.tracefs
                .as_ref()
                .map(Tracefs::tracepoints)
                .unwrap_or_default()
        })
    }
}

impl Provider for SdtProvider {
    fn name(&self) -> &str {
        "sdt"
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        if !field_matches(&description.provider, "sdt") {
            return Ok(Vec::new());
        }
        Ok(self
            .tracepoints()
            .iter()
            .filter(|(group, event)| module_function_name_match(description, group, "", event))
            .map(|(group, event)| {
                ProbeEntry::new(
                    concrete_description("sdt", group, "", event),
                    ProbeKind::Tracepoint {
                        group: group.clone(),
                        event: event.clone(),
                    },
                )
            })
            .collect())
    }

    fn argument_types(&self, probe: &ProbeEntry) -> Result<Vec<String>, ProviderError> {
        let (ProbeKind::Tracepoint { group, event }, Some(tracefs)) = (&probe.kind, &self.tracefs)
        else {
            return Ok(Vec::new());
        };
        let format = tracefs.event_format(group, event)?;
        Ok(tracepoint_arguments(&format)
            .into_iter()
            .map(|argument| argument.d_type)
            .collect())
    }

    fn attributes(&self) -> ProviderAttributes {
        SDT_ATTRIBUTES
    }
}
