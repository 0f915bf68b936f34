//! The probe catalog the compiler matches descriptions against, backed by the providers'
//! registry of this machine's real probes.

use std::cell::RefCell;

use difvm::object::ProbeDescription;
use dlang::diagnostics::ErrorTag;
use dlang::probes::{ProbeCatalog, ProbeInfo, ProbeRefusal};
use providers::attributes::ProviderAttributes;
use providers::provider::ProbeEntry;
use providers::registry::ProbeRegistry;

/// Adapts [`ProbeRegistry`] (which enumerates lazily and so needs `&mut`) to the
/// compiler's read-only [`ProbeCatalog`].
pub struct RegistryCatalog {
    registry: RefCell<ProbeRegistry>,
    /// The first provider error met while matching (an unreadable process, a bad pid
    /// probe offset); the session reports it after compiling.
    first_error: RefCell<Option<String>>,
    /// Whether a description matching nothing takes the probes it names in objects not
    /// loaded yet (`-Z`: a library the process will `dlopen()`).
    defers_unloaded_objects: bool,
}

impl RegistryCatalog {
    /// A catalog of every provider of this machine. As root, tracefs is mounted first
    /// if a fresh boot left it unmounted, so that the sdt and syscall providers see the
    /// kernel's tracepoints; otherwise (or if the mount fails) the providers enumerate
    /// what they can, and the kernel engine reports the missing tracefs when it starts.
    pub fn for_this_machine() -> RegistryCatalog {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            let _ = providers::tracefs::mount_tracefs_if_missing();
        }
        RegistryCatalog::new(ProbeRegistry::for_this_machine())
    }

    pub fn new(registry: ProbeRegistry) -> RegistryCatalog {
        RegistryCatalog {
            registry: RefCell::new(registry),
            first_error: RefCell::new(None),
            defers_unloaded_objects: false,
        }
    }

    /// This catalog, where a description that matches nothing takes the probes it names
    /// in objects not loaded yet when `defer` (`-Z` when tracing, as DTrace matches
    /// such descriptions again when a process loads a library).
    pub fn deferring_unloaded_objects(mut self, defer: bool) -> RegistryCatalog {
        self.defers_unloaded_objects = defer;
        self
    }

    /// The registry, for attaching and listing after compilation.
    pub fn into_registry(self) -> ProbeRegistry {
        self.registry.into_inner()
    }

    /// The first provider error met while matching, if any.
    pub fn take_error(&self) -> Option<String> {
        self.first_error.borrow_mut().take()
    }

    /// The argument types of probe `id` (loaded from its provider on first use), for
    /// the `-e -v` report; none when the provider cannot give them.
    pub fn argument_types(&self, id: u32) -> Vec<String> {
        self.registry
            .borrow_mut()
            .load_argument_types(id)
            .map(<[String]>::to_vec)
            .unwrap_or_default()
    }

    /// The attributes of the provider of probe `id`, for the `-v` stability report.
    pub fn provider_attributes(&self, id: u32) -> Option<ProviderAttributes> {
        self.registry.borrow().attributes(id)
    }

    /// The registry entries of the probes `ids` (what the kernel engine needs to attach
    /// them), each once, in the order first named.
    pub fn probe_entries(&self, ids: impl IntoIterator<Item = u32>) -> Vec<ProbeEntry> {
        let registry = self.registry.borrow();
        let mut entries: Vec<ProbeEntry> = Vec::new();
        for id in ids {
            if entries.iter().any(|entry| entry.id == id) {
                continue;
            }
            if let Some(entry) = registry.probe(id) {
                entries.push(entry.clone());
            }
        }
        entries
    }

    /// The probes `description` matches, and when it matches none and the catalog
    /// defers, those it names in objects not loaded yet.
    fn matched(
        &self,
        registry: &mut ProbeRegistry,
        description: &ProbeDescription,
    ) -> Result<Vec<u32>, providers::error::ProviderError> {
        let ids = registry.matching(description)?;
        if ids.is_empty() && self.defers_unloaded_objects {
            return registry.deferred_matching(description);
        }
        Ok(ids)
    }

    fn note_error(&self, message: String) {
        let mut first = self.first_error.borrow_mut();
        if first.is_none() {
            *first = Some(message);
        }
    }
}

impl ProbeCatalog for RegistryCatalog {
    fn provider_attributes(&self, probe: &ProbeInfo) -> Option<ProviderAttributes> {
        RegistryCatalog::provider_attributes(self, probe.id)
    }

    fn matching(&self, description: &ProbeDescription) -> Vec<ProbeInfo> {
        let mut registry = self.registry.borrow_mut();
        let ids = match self.matched(&mut registry, description) {
            Ok(ids) => ids,
            Err(error) => {
                drop(registry);
                // A tagged refusal becomes the compile error itself (see `refusal`);
                // other failures are printed before the no-match error.
                if error.tag_name().is_none() {
                    self.note_error(error.to_string());
                }
                return Vec::new();
            }
        };
        ids.into_iter()
            .filter_map(|id| registry.probe(id))
            .map(|entry| ProbeInfo {
                id: entry.id,
                description: entry.description.clone(),
                argument_types: entry.argument_types.clone(),
                derivation: entry.derivation.clone(),
            })
            .collect()
    }

    fn refusal(&self, description: &ProbeDescription) -> Option<ProbeRefusal> {
        let error = self
            .matched(&mut self.registry.borrow_mut(), description)
            .err()?;
        Some(ProbeRefusal {
            tag: ErrorTag::from_name(error.tag_name()?)?,
            message: error.to_string(),
        })
    }

    fn argument_types(&self, probe: &ProbeInfo) -> Vec<String> {
        let mut registry = self.registry.borrow_mut();
        match registry.load_argument_types(probe.id) {
            Ok(types) => types.to_vec(),
            Err(error) => {
                let message = error.to_string();
                drop(registry);
                self.note_error(message);
                probe.argument_types.clone()
            }
        }
    }

    fn probe_by_id(&self, id: u32) -> Option<ProbeInfo> {
        let mut registry = self.registry.borrow_mut();
        match registry.probe_by_id(id) {
            Ok(Some(entry)) => Some(ProbeInfo {
                id: entry.id,
                description: entry.description.clone(),
                argument_types: entry.argument_types.clone(),
                derivation: entry.derivation.clone(),
            }),
            Ok(None) => None,
            Err(error) => {
                let message = error.to_string();
                drop(registry);
                self.note_error(message);
                None
            }
        }
    }
}
