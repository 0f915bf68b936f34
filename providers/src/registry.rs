//! The probe registry: every provider of the machine, probe ids, and matching of probe
//! descriptions across providers.
//!
//! Ids are stable within a run: a probe keeps the id it was first given. They are also
//! deterministic across runs on the same machine for the statically listed probes. The
//! cheap static providers are populated (asked for all their probes) in registration
//! order, so the dtrace provider always owns ids 1–3 (BEGIN, END, ERROR) and, for
//! example, the syscall probes always follow them in syscall-number order whatever the
//! first query was. A query populates them only as far as the last provider that may
//! match it (`dtrace:::BEGIN` reads nothing, `syscall::read:entry` no tracefs event
//! list), and every one of them before a probe is created on demand, so the ids come
//! out as if all had been populated at the first query. A costly static provider (fbt,
//! which reads kallsyms; rawtp, which reads BTF) is populated at the first query that
//! may match it. Probes created on demand (`tick-5s`, `pid1234::malloc:entry`, USDT
//! probes) take the next free id when first seen, so fbt and rawtp ids shift by the
//! number of on-demand probes (and, for rawtp, fbt probes) created before they were
//! read; listing everything, or looking a probe up by id, populates fbt, then rawtp,
//! first.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use difvm::object::ProbeDescription;

use crate::attributes::ProviderAttributes;
use crate::dtrace_provider::DtraceProvider;
use crate::error::ProviderError;
use crate::fbt_provider::FbtProvider;
use crate::pid_provider::PidProvider;
use crate::profile_provider::ProfileProvider;
use crate::provider::{description_matches, ProbeEntry, Provider};
use crate::rawtp_provider::RawtpProvider;
use crate::sdt_provider::SdtProvider;
use crate::stable::{KernelProbeSources, StableProvider};
use crate::syscall_provider::SyscallProvider;
use crate::tracefs::Tracefs;
use crate::usdt_provider::UsdtProvider;

/// A probe together with its provider's attributes, as `-l`/`-lv` print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedProbe {
    pub entry: ProbeEntry,
    pub attributes: ProviderAttributes,
}

/// Every provider and every probe seen so far.
pub struct ProbeRegistry {
    providers: Vec<Box<dyn Provider>>,
    /// `entries[id - 1]` is the probe with that id.
    entries: Vec<ProbeEntry>,
    /// Index into `providers` of each entry's provider.
    entry_providers: Vec<usize>,
    /// Whether each entry's argument types have been loaded.
    argument_types_loaded: Vec<bool>,
    /// Probe ids by a hash of their description. Keying by hash instead of by a clone
    /// of the description halves the allocations when fbt adds 100,000+ probes.
    ids_by_hash: HashMap<u64, u32>,
    /// Further ids whose description hash collided with an entry of `ids_by_hash`.
    colliding_ids: HashMap<u64, Vec<u32>>,
    /// Whether each provider has had all its listed probes given ids.
    populated: Vec<bool>,
}

impl std::fmt::Debug for ProbeRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self
            .providers
            .iter()
            .map(|provider| provider.name())
            .collect();
        f.debug_struct("ProbeRegistry")
            .field("providers", &names)
            .field("probes", &self.entries.len())
            .finish()
    }
}

impl ProbeRegistry {
    /// A registry over `providers`, in this order (put the dtrace provider first so
    /// that BEGIN, END and ERROR get ids 1, 2 and 3).
    pub fn new(providers: Vec<Box<dyn Provider>>) -> ProbeRegistry {
        ProbeRegistry {
            providers,
            entries: Vec::new(),
            entry_providers: Vec::new(),
            argument_types_loaded: Vec::new(),
            ids_by_hash: HashMap::new(),
            colliding_ids: HashMap::new(),
            populated: Vec::new(),
        }
    }

    /// The providers of this machine: dtrace, syscall, profile, sdt, fbt, rawtp (static,
    /// in this id order), then pid and usdt (on demand), then the stable providers proc,
    /// sched and io (static, but read only for descriptions that may name them). Uses tracefs where it is mounted
    /// and readable; never mounts it (see [`crate::tracefs::mount_tracefs_if_missing`]).
    pub fn for_this_machine() -> ProbeRegistry {
        let tracefs = Tracefs::find();
        let mut providers: Vec<Box<dyn Provider>> = vec![
            Box::new(DtraceProvider),
            Box::new(SyscallProvider::new(tracefs.clone())),
            Box::new(ProfileProvider),
            Box::new(SdtProvider::new(tracefs.clone())),
            Box::new(FbtProvider::for_this_machine()),
            Box::new(RawtpProvider::for_this_machine(tracefs)),
            Box::new(PidProvider::new()),
            Box::new(UsdtProvider::new()),
        ];
        let sources = Arc::new(KernelProbeSources::for_this_machine());
        for provider in StableProvider::all(sources) {
            providers.push(Box::new(provider));
        }
        ProbeRegistry::new(providers)
    }

    /// The ids of every probe matching `description`, in id order. The provider field
    /// may be empty or a glob; providers create on-demand probes as needed.
    pub fn matching(&mut self, description: &ProbeDescription) -> Result<Vec<u32>, ProviderError> {
        let mut ids = Vec::new();
        let last_that_may_match = self
            .providers
            .iter()
            .rposition(|provider| provider.may_match(description));
        self.populate(|index, provider| {
            if provider.enumeration_is_costly() {
                provider.may_match(description)
            } else {
                last_that_may_match.is_some_and(|last| index <= last)
            }
        })?;
        for index in 0..self.providers.len() {
            if !self.providers[index].may_match(description) {
                continue;
            }
            for entry in self.providers[index].probes(description)? {
                if self.known_id(&entry.description).is_none() {
                    // A probe created on demand: its id follows every cheap static
                    // provider's probes, whichever queries came first.
                    self.populate(|_, provider| !provider.enumeration_is_costly())?;
                }
                ids.push(self.intern(index, entry));
            }
        }
        // Probes created on demand by earlier descriptions exist from then on, so a
        // later glob matches them too, as in DTrace.
        ids.extend(
            self.entries
                .iter()
                .filter(|entry| description_matches(description, &entry.description))
                .map(|entry| entry.id),
        );
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// The ids of the probes `description` names in objects not loaded yet (see
    /// `Provider::deferred_probes`), for a description that matched nothing under `-Z`.
    pub fn deferred_matching(
        &mut self,
        description: &ProbeDescription,
    ) -> Result<Vec<u32>, ProviderError> {
        let mut ids = Vec::new();
        for index in 0..self.providers.len() {
            if !self.providers[index].may_match(description) {
                continue;
            }
            for entry in self.providers[index].deferred_probes(description)? {
                ids.push(self.intern(index, entry));
            }
        }
        Ok(ids)
    }

    /// The probe with `id`, among the probes seen so far.
    pub fn probe(&self, id: u32) -> Option<&ProbeEntry> {
        self.entries.get((id as usize).checked_sub(1)?)
    }

    /// The probe with `id`, reading every statically listed provider first so that an
    /// id taken from `dtrace -l` resolves.
    pub fn probe_by_id(&mut self, id: u32) -> Result<Option<&ProbeEntry>, ProviderError> {
        if self.probe(id).is_none() {
            self.populate(|_, _| true)?;
        }
        Ok(self.probe(id))
    }

    /// The attributes of the provider of probe `id`.
    pub fn attributes(&self, id: u32) -> Option<ProviderAttributes> {
        let provider = *self.entry_providers.get((id as usize).checked_sub(1)?)?;
        Some(self.providers[provider].attributes())
    }

    /// The argument types of probe `id`, loading them from the provider on first use.
    pub fn load_argument_types(&mut self, id: u32) -> Result<&[String], ProviderError> {
        let Some(index) = (id as usize)
            .checked_sub(1)
            .filter(|&index| index < self.entries.len())
        else {
            return Ok(&[]);
        };
        if !self.argument_types_loaded[index] {
            let types =
                self.providers[self.entry_providers[index]].argument_types(&self.entries[index])?;
            self.entries[index].argument_types = types;
            self.argument_types_loaded[index] = true;
        }
        Ok(&self.entries[index].argument_types)
    }

    /// The probes `dtrace -l` lists, with argument types loaded when asked (`-v`): every
    /// probe in id order when there are no `descriptions`; otherwise, as dtrace(1) lists
    /// statement after statement, the probes each description matches in id order, one
    /// description after the other (a probe two descriptions match is listed twice).
    pub fn list(
        &mut self,
        descriptions: &[ProbeDescription],
        with_argument_types: bool,
    ) -> Result<Vec<ListedProbe>, ProviderError> {
        let ids: Vec<u32> = if descriptions.is_empty() {
            self.populate(|_, _| true)?;
            (1..=self.entries.len() as u32).collect()
        } else {
            let mut ids = Vec::new();
            for description in descriptions {
                ids.extend(self.matching(description)?);
            }
            ids
        };
        let mut listed = Vec::with_capacity(ids.len());
        for id in ids {
            if with_argument_types {
                self.load_argument_types(id)?;
            }
            if let (Some(entry), Some(attributes)) = (self.probe(id), self.attributes(id)) {
                listed.push(ListedProbe {
                    entry: entry.clone(),
                    attributes,
                });
            }
        }
        Ok(listed)
    }

    /// Gives ids to every listed probe of each static provider, in registration order,
    /// that is not populated yet and that `wanted` selects.
    fn populate(
        &mut self,
        wanted: impl Fn(usize, &dyn Provider) -> bool,
    ) -> Result<(), ProviderError> {
        self.populated.resize(self.providers.len(), false);
        for index in 0..self.providers.len() {
            let provider = self.providers[index].as_ref();
            if self.populated[index] || !provider.has_static_probes() || !wanted(index, provider) {
                continue;
            }
            let all = ProbeDescription {
                provider: provider.name().to_string(),
                ..Default::default()
            };
            for entry in provider.probes(&all)? {
                self.intern(index, entry);
            }
            self.populated[index] = true;
        }
        Ok(())
    }

    /// The id of the probe `description` names, if it has one.
    fn known_id(&self, description: &ProbeDescription) -> Option<u32> {
        let hash = description_hash(description);
        let same_probe = |id: &&u32| self.entries[**id as usize - 1].description == *description;
        self.ids_by_hash
            .get(&hash)
            .filter(same_probe)
            .or_else(|| {
                self.colliding_ids
                    .get(&hash)
                    .and_then(|ids| ids.iter().find(same_probe))
            })
            .copied()
    }

    /// The id of `entry`, assigning the next one when the probe is new.
    fn intern(&mut self, provider: usize, mut entry: ProbeEntry) -> u32 {
        if let Some(id) = self.known_id(&entry.description) {
            return id;
        }
        let hash = description_hash(&entry.description);
        let id = self.entries.len() as u32 + 1;
        match self.ids_by_hash.entry(hash) {
            Entry::Occupied(_) => self.colliding_ids.entry(hash).or_default().push(id),
            Entry::Vacant(vacant) => {
                vacant.insert(id);
            }
        }
        entry.id = id;
        self.argument_types_loaded
            .push(!entry.argument_types.is_empty());
        self.entries.push(entry);
        self.entry_providers.push(provider);
        id
    }
}

/// A hash of the four fields of a description (deterministic within a run).
fn description_hash(description: &ProbeDescription) -> u64 {
    let mut hasher = DefaultHasher::new();
    description.hash(&mut hasher);
    hasher.finish()
}
