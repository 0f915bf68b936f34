//! The probe catalog the compiler matches probe descriptions against: the
//! [`ProbeCatalog`] trait that providers implement, the concrete [`ProbeInfo`] it
//! returns, glob matching per §1.4, and [`DtraceProviderCatalog`], the dtrace provider
//! alone (BEGIN, END, ERROR), for tests and for engines without other providers.

use std::sync::Arc;

use difvm::object::{ProbeDescription, PROBE_ID_BEGIN, PROBE_ID_END, PROBE_ID_ERROR};
use difvm::probe_derivation::ProbeDerivation;

use crate::diagnostics::ErrorTag;

pub use difvm::glob::{field_matches, glob_match, is_glob_pattern};

/// One concrete probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeInfo {
    /// The probe id, as `dtrace -l` lists it.
    pub id: u32,
    /// The concrete description (no globs; empty module/function only where the probe
    /// really has none).
    pub description: ProbeDescription,
    /// C type names of `args[0]`, `args[1]`, …; empty when the probe's arguments are
    /// untyped.
    pub argument_types: Vec<String>,
    /// For a probe built on another (the stable providers): its guard and arguments as
    /// D over the underlying probe's arguments; `argument_types` then lists the types
    /// of `args[]` for display only.
    pub derivation: Option<Arc<ProbeDerivation>>,
}

/// A provider's refusal of a probe description, in DTrace's words and with its tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeRefusal {
    pub tag: ErrorTag,
    pub message: String,
}

/// The probes a compilation may enable.
pub trait ProbeCatalog {
    /// Every probe matching `description` (fields may be empty or glob patterns).
    fn matching(&self, description: &ProbeDescription) -> Vec<ProbeInfo>;

    /// The C type names of `probe`'s arguments. Catalogs whose providers load argument
    /// types lazily (tracepoint formats) load them here, when a clause names `args[]`;
    /// the default is what the probe already carries.
    fn argument_types(&self, probe: &ProbeInfo) -> Vec<String> {
        probe.argument_types.clone()
    }

    /// The attributes of `probe`'s provider, for the attributes of statements that use
    /// `args[]` or `probe*`; None when unknown.
    fn provider_attributes(
        &self,
        _probe: &ProbeInfo,
    ) -> Option<difvm::provider_attributes::ProviderAttributes> {
        None
    }

    /// Why `description` matched no probes, when a provider refused it with an error
    /// that DTrace reports as the compile error itself (a pid probe offset outside its
    /// function is `D_PROC_OFF`); None when it simply matches nothing.
    fn refusal(&self, _description: &ProbeDescription) -> Option<ProbeRefusal> {
        None
    }

    /// The probe with id `id`, for descriptions written as a bare probe id.
    fn probe_by_id(&self, id: u32) -> Option<ProbeInfo> {
        let everything = ProbeDescription::default();
        self.matching(&everything)
            .into_iter()
            .find(|probe| probe.id == id)
    }
}

/// True when the concrete `probe` matches `description` field by field.
pub fn description_matches(description: &ProbeDescription, probe: &ProbeDescription) -> bool {
    field_matches(&description.provider, &probe.provider)
        && field_matches(&description.module, &probe.module)
        && field_matches(&description.function, &probe.function)
        && field_matches(&description.name, &probe.name)
}

/// The dtrace provider's three probes: `dtrace:::BEGIN` (1), `dtrace:::END` (2) and
/// `dtrace:::ERROR` (3), none with typed arguments.
#[derive(Debug, Clone, Copy, Default)]
pub struct DtraceProviderCatalog;

impl DtraceProviderCatalog {
    /// The three probes, in id order.
    pub fn probes() -> Vec<ProbeInfo> {
        [
            (PROBE_ID_BEGIN, "BEGIN"),
            (PROBE_ID_END, "END"),
            (PROBE_ID_ERROR, "ERROR"),
        ]
        .into_iter()
        .map(|(id, name)| ProbeInfo {
            id,
            description: ProbeDescription {
                provider: "dtrace".to_string(),
                module: String::new(),
                function: String::new(),
                name: name.to_string(),
            },
            argument_types: Vec::new(),
            derivation: None,
        })
        .collect()
    }
}

impl ProbeCatalog for DtraceProviderCatalog {
    fn matching(&self, description: &ProbeDescription) -> Vec<ProbeInfo> {
        DtraceProviderCatalog::probes()
            .into_iter()
            .filter(|probe| description_matches(description, &probe.description))
            .collect()
    }

    fn probe_by_id(&self, id: u32) -> Option<ProbeInfo> {
        DtraceProviderCatalog::probes()
            .into_iter()
            .find(|probe| probe.id == id)
    }
}

/// A catalog made from a fixed list of probes, for tests and for callers that have
/// already enumerated their providers.
#[derive(Debug, Clone, Default)]
pub struct ListCatalog {
    pub probes: Vec<ProbeInfo>,
}

impl ListCatalog {
    /// A catalog of the dtrace provider's probes plus `probes`.
    pub fn with_dtrace_provider(probes: Vec<ProbeInfo>) -> ListCatalog {
        let mut all = DtraceProviderCatalog::probes();
        all.extend(probes);
        ListCatalog { probes: all }
    }
}

impl ProbeCatalog for ListCatalog {
    fn matching(&self, description: &ProbeDescription) -> Vec<ProbeInfo> {
        self.probes
            .iter()
            .filter(|probe| description_matches(description, &probe.description))
            .cloned()
            .collect()
    }

    fn probe_by_id(&self, id: u32) -> Option<ProbeInfo> {
        self.probes.iter().find(|probe| probe.id == id).cloned()
    }
}
