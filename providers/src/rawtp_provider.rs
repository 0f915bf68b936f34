//! The rawtp provider: the kernel's raw tracepoints, `rawtp:GROUP::EVENT`, whose
//! arguments are the tracepoint's own C arguments (typed from BTF: `sched_switch`'s
//! `bool preempt, struct task_struct *prev, *next, unsigned int prev_state`) rather than
//! the fields of its trace entry (that is sdt).
//!
//! The kernel's BTF has, for each tracepoint, a typedef `btf_trace_EVENT` of a pointer
//! to a prototype whose first parameter is the tracepoint's `void *` data and whose
//! others are the raw arguments (libbpf and bpftrace find raw tracepoints the same
//! way). GROUP is the tracefs group listing `events/GROUP/EVENT`; a bare tracepoint,
//! which tracefs does not list (`sched_update_nr_running_tp`), has an empty module
//! field. Reading BTF is costly, so the provider is read only for descriptions that
//! may name one of its probes.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use difvm::glob::{field_matches, is_glob_pattern};
use difvm::object::ProbeDescription;
use kernel_shim::btf::{Btf, BtfKind, BtfParameters};

use crate::attributes::{ProviderAttributes, RAWTP_ATTRIBUTES};
use crate::btf_functions::{c_type_name, VMLINUX_BTF_PATH};
use crate::error::ProviderError;
use crate::provider::{
    concrete_description, module_function_name_match, ProbeEntry, ProbeKind, Provider,
};
use crate::tracefs::Tracefs;

/// The prefix of the BTF typedef that gives a tracepoint's prototype.
const PROTOTYPE_TYPEDEF_PREFIX: &str = "btf_trace_";

/// The provider's name in descriptions (Oracle's DTrace for Linux calls it so too).
const PROVIDER_NAME: &str = "rawtp";

/// One raw tracepoint: its tracefs group (empty for a bare tracepoint), its name, and
/// its BTF prototype.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RawTracepoint {
    group: String,
    event: String,
    /// The FUNC_PROTO type id of `btf_trace_EVENT`.
    prototype: u32,
    /// The raw arguments: the prototype's parameters after the `void *` data.
    argument_count: u8,
}

/// The raw tracepoints of a BTF blob, with the blob to name their argument types.
#[derive(Debug)]
struct RawTracepoints {
    btf: Btf,
    /// Sorted by group, then event.
    tracepoints: Vec<RawTracepoint>,
}

impl RawTracepoints {
    /// The raw tracepoints `btf` declares, grouped by `groups` (event → tracefs group).
    fn from_btf(btf: Btf, groups: &HashMap<String, String>) -> RawTracepoints {
        let mut tracepoints = Vec::new();
        for id in btf.own_type_ids() {
            let Some(ty) = btf.type_by_id(id) else {
                continue;
            };
            let (BtfKind::Typedef { target }, Some(event)) =
                (ty.kind, ty.name.strip_prefix(PROTOTYPE_TYPEDEF_PREFIX))
            else {
                continue;
            };
            let (Some((prototype, _)), Some(argument_count)) = (
                pointed_prototype(&btf, target),
                raw_tracepoint_argument_count(&btf, id),
            ) else {
                continue;
            };
            tracepoints.push(RawTracepoint {
                group: groups.get(event).cloned().unwrap_or_default(),
                event: event.to_string(),
                prototype,
                argument_count,
            });
        }
        tracepoints.sort_by(|a, b| (&a.group, &a.event).cmp(&(&b.group, &b.event)));
        tracepoints.dedup_by(|a, b| a.group == b.group && a.event == b.event);
        RawTracepoints { btf, tracepoints }
    }

    /// The C types of the raw arguments of the tracepoint whose prototype is
    /// `prototype` (a type that cannot be named is an empty string).
    fn argument_types(&self, prototype: u32) -> Vec<String> {
        let Some(BtfKind::FunctionPrototype(parameters)) =
            self.btf.type_by_id(prototype).map(|ty| ty.kind)
        else {
            return Vec::new();
        };
        parameters
            .iter()
            .skip(1)
            .map(|(_, id)| c_type_name(&self.btf, id).unwrap_or_default())
            .collect()
    }
}

/// The prototype `pointer` (a `btf_trace_` typedef's target) points at, with its
/// parameters: None unless it is a pointer to a prototype whose first parameter is the
/// tracepoint's data pointer.
fn pointed_prototype(btf: &Btf, pointer: u32) -> Option<(u32, BtfParameters<'_>)> {
    let BtfKind::Pointer { target } = btf.type_by_id(pointer)?.kind else {
        return None;
    };
    let BtfKind::FunctionPrototype(parameters) = btf.type_by_id(target)?.kind else {
        return None;
    };
    let (_, data) = parameters.get(0)?;
    matches!(btf.type_by_id(data)?.kind, BtfKind::Pointer { .. }).then_some((target, parameters))
}

/// The number of raw arguments of the tracepoint whose `btf_trace_EVENT` typedef is
/// `typedef`: its prototype's parameters after the tracepoint's data pointer.
pub(crate) fn raw_tracepoint_argument_count(btf: &Btf, typedef: u32) -> Option<u8> {
    let BtfKind::Typedef { target } = btf.type_by_id(typedef)?.kind else {
        return None;
    };
    let (_, parameters) = pointed_prototype(btf, target)?;
    Some(parameters.len().saturating_sub(1).min(u32::from(u8::MAX)) as u8)
}

/// Whether a probe name field could name a raw tracepoint: a glob, or a C identifier in
/// the kernel's lower-case spelling. This keeps `BEGIN`, `tick-1s` and the like from
/// reading BTF, with an empty provider field as with none.
fn name_may_be_raw_tracepoint(name: &str) -> bool {
    is_glob_pattern(name)
        || name.is_empty()
        || name
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_')
}

/// The rawtp provider.
#[derive(Debug)]
pub struct RawtpProvider {
    tracefs: Option<Tracefs>,
    btf_path: PathBuf,
    /// None when the BTF cannot be read (the provider then has no probes).
    tracepoints: OnceLock<Option<RawTracepoints>>,
}

impl RawtpProvider {
    /// A provider reading the BTF at `btf_path`, grouping events as `tracefs` does (no
    /// tracefs: every module field empty).
    pub fn new(tracefs: Option<Tracefs>, btf_path: impl Into<PathBuf>) -> RawtpProvider {
        RawtpProvider {
            tracefs,
            btf_path: btf_path.into(),
            tracepoints: OnceLock::new(),
        }
    }

    /// A provider reading this machine's `/sys/kernel/btf/vmlinux`.
    pub fn for_this_machine(tracefs: Option<Tracefs>) -> RawtpProvider {
        RawtpProvider::new(tracefs, VMLINUX_BTF_PATH)
    }

    /// The raw tracepoints, read once; None when BTF cannot be read.
    fn tracepoints(&self) -> Option<&RawTracepoints> {
        self.tracepoints
            .get_or_init(|| {
                let btf = read_btf(&self.btf_path).ok()?;
                let groups = self.tracefs.as_ref().map(event_groups).unwrap_or_default();
                Some(RawTracepoints::from_btf(btf, &groups))
            })
            .as_ref()
    }
}

/// Reads and parses the BTF file at `path`.
fn read_btf(path: &Path) -> Result<Btf, ProviderError> {
    let data = fs::read(path).map_err(|error| ProviderError::io(path, &error))?;
    Btf::parse(data).map_err(|error| ProviderError::malformed(path, error.to_string()))
}

/// The tracefs group of each event (the first group in sorted order, should two groups
/// list the same event name).
fn event_groups(tracefs: &Tracefs) -> HashMap<String, String> {
    let mut groups = HashMap::new();
    for (group, event) in tracefs.tracepoints() {
        groups.entry(event).or_insert(group);
    }
    groups
}

impl Provider for RawtpProvider {
    fn name(&self) -> &str {
        PROVIDER_NAME
    }

    fn enumeration_is_costly(&self) -> bool {
        true
    }

    /// Raw tracepoint probes have an empty function field and a lower-case name.
    fn may_match(&self, description: &ProbeDescription) -> bool {
        field_matches(&description.provider, PROVIDER_NAME)
            && field_matches(&description.function, "")
            && name_may_be_raw_tracepoint(&description.name)
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        if !self.may_match(description) {
            return Ok(Vec::new());
        }
        let Some(tracepoints) = self.tracepoints() else {
            return Ok(Vec::new());
        };
        Ok(tracepoints
            .tracepoints
            .iter()
            .filter(|tracepoint| {
                module_function_name_match(description, &tracepoint.group, "", &tracepoint.event)
            })
            .map(|tracepoint| {
                ProbeEntry::new(
                    concrete_description(PROVIDER_NAME, &tracepoint.group, "", &tracepoint.event),
                    ProbeKind::RawTracepoint {
                        event: tracepoint.event.clone(),
                        argument_count: tracepoint.argument_count,
                    },
                )
            })
            .collect())
    }

    fn argument_types(&self, probe: &ProbeEntry) -> Result<Vec<String>, ProviderError> {
        let (ProbeKind::RawTracepoint { event, .. }, Some(tracepoints)) =
            (&probe.kind, self.tracepoints())
        else {
            return Ok(Vec::new());
        };
        Ok(tracepoints
            .tracepoints
            .iter()
            .find(|tracepoint| {
                tracepoint.event == *event && tracepoint.group == probe.description.module
            })
            .map(|tracepoint| tracepoints.argument_types(tracepoint.prototype))
            .unwrap_or_default())
    }

    fn attributes(&self) -> ProviderAttributes {
        RAWTP_ATTRIBUTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn description(provider: &str, module: &str, function: &str, name: &str) -> ProbeDescription {
        concrete_description(provider, module, function, name)
    }

    #[test]
    fn only_descriptions_that_may_name_a_raw_tracepoint_read_btf() {
        let provider = RawtpProvider::new(None, "/nonexistent/btf");
        for (text, expected) in [
            (description("", "", "", "BEGIN"), false),
            (description("", "", "", "tick-1s"), false),
            (description("", "", "vfs_read", "entry"), false),
            (description("syscall", "", "", "entry"), false),
            (description("rawtp", "", "", ""), true),
            (description("", "", "", "sched_switch"), true),
            (description("raw*", "sched", "", "sched_*"), true),
            (description("rawtp", "", "", "SCHED*"), true),
        ] {
            assert_eq!(provider.may_match(&text), expected, "{text}");
        }
        provider.probes(&description("", "", "", "BEGIN")).unwrap();
        assert!(provider.tracepoints.get().is_none());
        assert!(provider
            .probes(&description("rawtp", "", "", ""))
            .unwrap()
            .is_empty());
        assert!(provider.tracepoints.get().is_some());
    }
}
