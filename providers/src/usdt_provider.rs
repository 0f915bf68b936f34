//! The usdt provider: statically defined user probes (SystemTap `.note.stapsdt` notes)
//! of a process, as `PROVIDERpid:MODULE:FUNCTION:NAME` (`python1234:::function__entry`),
//! or of an ELF file named by path (no process, so no pid in the provider name).
//!
//! Every site of a probe (inlined or unrolled copies) belongs to one probe entry; the
//! probe's function is the symbol containing the site. A description's name may also
//! use DTrace's `-` spelling of `__` (`function-entry`).

use std::path::Path;

use difvm::glob::field_matches;
use difvm::object::ProbeDescription;

use crate::attributes::{ProviderAttributes, USER_PROBE_ATTRIBUTES};
use crate::elf_object::ElfObject;
use crate::error::ProviderError;
use crate::process_maps::mapped_objects;
use crate::provider::{concrete_description, ProbeEntry, ProbeKind, Provider, UprobeSite};
use crate::user_objects::{module_matches, parse_pid, split_provider_pid, ElfObjectCache};

/// The usdt provider.
#[derive(Debug, Default)]
pub struct UsdtProvider {
    objects: ElfObjectCache,
}

impl UsdtProvider {
    /// A provider with an empty object cache.
    pub fn new() -> UsdtProvider {
        UsdtProvider::default()
    }
}

/// The provider part and pid digits of a usdt provider field; `pid1234` belongs to the
/// pid provider.
fn usdt_provider_and_pid(provider_field: &str) -> Option<(&str, &str)> {
    split_provider_pid(provider_field).filter(|(provider, _)| *provider != "pid")
}

/// True when name pattern `pattern` matches USDT probe `name` as written in the note
/// or in DTrace's spelling with `-` for `__`.
fn usdt_name_matches(pattern: &str, name: &str) -> bool {
    field_matches(pattern, name)
        || (name.contains("__") && field_matches(pattern, &name.replace("__", "-")))
}

/// The C type of a USDT argument from its specification's size (`-4@…` is `int32_t`,
/// `8@…` is `uint64_t`); an empty string when the size is not one of 1, 2, 4, 8.
fn usdt_argument_type(specification: &str) -> String {
    let size = specification
        .split_once('@')
        .map(|(size, _)| size)
        .unwrap_or("");
    let (signed, magnitude) = match size.strip_prefix('-') {
        Some(magnitude) => (true, magnitude),
        None => (false, size),
    };
    match (signed, magnitude) {
        (true, "1" | "2" | "4" | "8") => {
            format!("int{}_t", magnitude.parse::<u32>().unwrap_or(0) * 8)
        }
        (false, "1" | "2" | "4" | "8") => {
            format!("uint{}_t", magnitude.parse::<u32>().unwrap_or(0) * 8)
        }
        _ => String::new(),
    }
}

/// Appends the probes of `elf` matching `description` (whose provider field has
/// already been reduced to `provider_pattern`) to `entries`, one entry per probe with
/// every site. `pid` is the owning process, if any; `module` the module name to show.
fn collect_usdt_probes(
    elf: &ElfObject,
    module: &str,
    pid: Option<u32>,
    provider_pattern: &str,
    description: &ProbeDescription,
    entries: &mut Vec<ProbeEntry>,
) {
    for note in &elf.usdt_notes {
        if !field_matches(provider_pattern, &note.provider)
            || !usdt_name_matches(&description.name, &note.name)
        {
            continue;
        }
        let function = elf
            .function_containing(note.address)
            .map(|function| function.name.as_str())
            .unwrap_or("");
        if !field_matches(&description.function, function) {
            continue;
        }
        let Some(file_offset) = elf.file_offset(note.address) else {
            continue;
        };
        let site = UprobeSite {
            path: elf.path.clone(),
            file_offset,
            semaphore_file_offset: (note.semaphore_address != 0)
                .then(|| elf.file_offset(note.semaphore_address))
                .flatten(),
            usdt_arguments: Some(note.arguments.clone()),
            return_offset: None,
            return_exits: Vec::new(),
            function_entry: false,
        };
        let provider = match pid {
            Some(pid) => format!("{}{pid}", note.provider),
            None => note.provider.clone(),
        };
        let description = concrete_description(&provider, module, function, &note.name);
        if let Some(existing) = entries
            .iter_mut()
            .find(|entry| entry.description == description)
        {
            if let ProbeKind::Uprobe { sites, .. } = &mut existing.kind {
                sites.push(site);
            }
            continue;
        }
        let mut entry = ProbeEntry::new(
            description,
            ProbeKind::Uprobe {
                pid,
                is_return: false,
                sites: vec![site],
            },
        );
        entry.argument_types = note
            .arguments
            .split_whitespace()
            .map(usdt_argument_type)
            .collect();
        entries.push(entry);
    }
}

/// The USDT probes of the ELF file at `path`, without a process: the provider field is
/// the note's provider alone and the module is the file's basename. `description`
/// filters them as usual (its provider field is matched against the note's provider).
pub fn usdt_probes_in_file(
    path: &Path,
    description: &ProbeDescription,
) -> Result<Vec<ProbeEntry>, ProviderError> {
    let elf = ElfObject::open(path)?;
    let module = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut entries = Vec::new();
    if field_matches(&description.module, &module) {
        collect_usdt_probes(
            &elf,
            &module,
            None,
            &description.provider,
            description,
            &mut entries,
        );
    }
    Ok(entries)
}

impl Provider for UsdtProvider {
    fn name(&self) -> &str {
        "usdt"
    }

    fn may_match(&self, description: &ProbeDescription) -> bool {
        usdt_provider_and_pid(&description.provider).is_some()
    }

    fn has_static_probes(&self) -> bool {
        false
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        let Some((provider_pattern, digits)) = usdt_provider_and_pid(&description.provider) else {
            return Ok(Vec::new());
        };
        let pid = parse_pid(&description.provider, digits)?;
        let mut entries = Vec::new();
        for object in mapped_objects(pid)?
            .iter()
            .filter(|object| module_matches(&description.module, object))
        {
            let Ok(elf) = self.objects.get(object) else {
                continue;
            };
            collect_usdt_probes(
                &elf,
                &object.module,
                Some(pid),
                provider_pattern,
                description,
                &mut entries,
            );
        }
        Ok(entries)
    }

    fn attributes(&self) -> ProviderAttributes {
        USER_PROBE_ATTRIBUTES
    }
}
