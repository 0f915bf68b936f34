//! The pid provider: `pidPID:MODULE:FUNCTION:entry|return|OFFSET`, user function
//! boundaries and instructions of one process, created on demand from the process's
//! mapped ELF objects.
//!
//! Only descriptions naming a process (`pid1234`, or `p*d1234`) create probes; `pid*`
//! does not list every process. Globbed probe names match `entry` and `return` only; an instruction
//! offset probe exists when a description names the hex offset exactly. Offsets are
//! checked against the function's size (D_PROC_OFF) but not against instruction
//! boundaries, which would need a disassembler.

use difvm::glob::{field_matches, is_glob_pattern};
use difvm::object::ProbeDescription;

use crate::attributes::{ProviderAttributes, USER_PROBE_ATTRIBUTES};
use crate::elf_object::{ElfObject, FunctionSymbol};
use crate::error::{ProviderError, UserProbeErrorTag};
use crate::process_maps::{mapped_objects, MappedObject};
use crate::provider::{concrete_description, ProbeEntry, ProbeKind, Provider, UprobeSite};
use crate::user_objects::{module_matches, parse_pid, split_provider_pid, ElfObjectCache};

/// The pid provider.
#[derive(Debug, Default)]
pub struct PidProvider {
    objects: ElfObjectCache,
}

/// What a description's name field asks of each matching function.
enum PidProbeNames {
    /// Entry and/or return probes, the ones whose name matches the pattern.
    Boundaries { entry: bool, is_return: bool },
    /// The instruction at this offset from the function's start.
    Offset(u64),
}

impl PidProvider {
    /// A provider with an empty object cache.
    pub fn new() -> PidProvider {
        PidProvider::default()
    }

    /// The probes of one mapped object matching `description`.
    fn object_probes(
        &self,
        pid: u32,
        description: &ProbeDescription,
        names: &PidProbeNames,
        object: &MappedObject,
        elf: &ElfObject,
        entries: &mut Vec<ProbeEntry>,
    ) -> Result<(), ProviderError> {
        let provider = format!("pid{pid}");
        let function_is_glob =
            description.function.is_empty() || is_glob_pattern(&description.function);
        for function in functions_described(&elf.functions, &description.function) {
            let Some(function_offset) = elf.file_offset(function.address) else {
                continue;
            };
            let site = |offset: u64| UprobeSite {
                path: object.open_path.clone(),
                file_offset: function_offset + offset,
                semaphore_file_offset: None,
                usdt_arguments: None,
            };
            let probe = |name: &str, is_return: bool, offset: u64| {
                ProbeEntry::new(
                    concrete_description(&provider, &object.module, &function.name, name),
                    ProbeKind::Uprobe {
                        pid: Some(pid),
                        is_return,
                        sites: vec![site(offset)],
                    },
                )
            };
            match *names {
                PidProbeNames::Boundaries { entry, is_return } => {
                    if entry {
                        entries.push(probe("entry", false, 0));
                    }
                    if is_return {
                        entries.push(probe("return", true, 0));
                    }
                }
                PidProbeNames::Offset(offset) => {
                    if offset < function.size {
                        entries.push(probe(&format!("{offset:x}"), false, offset));
                    } else if !function_is_glob {
                        return Err(offset_error(offset, function));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The functions a function field selects. An exact name selects its symbol. A
/// pattern, as DTrace's `dt_pid_sym_filt` does, takes each address once (the first
/// matching alias in preference order), and leaves out symbols of size zero and
/// `_init` and `_fini`, whose sizes old linkers bloated.
fn functions_described<'f>(
    functions: &'f [FunctionSymbol],
    pattern: &str,
) -> Vec<&'f FunctionSymbol> {
    if !pattern.is_empty() && !is_glob_pattern(pattern) {
        return functions
            .iter()
            .filter(|function| function.name == pattern)
            .collect();
    }
    let mut described = Vec::new();
    let mut last_taken: Option<(u64, u64)> = None;
    for function in functions.iter().filter(|function| function.size != 0) {
        if last_taken == Some((function.address, function.size))
            || function.name == "_init"
            || function.name == "_fini"
        {
            continue;
        }
        last_taken = field_matches(pattern, &function.name).then(|| {
            described.push(function);
            (function.address, function.size)
        });
    }
    described
}

/// The pid digits of a provider field naming the pid provider of one process: `pid1234`,
/// or a pattern such as `p*d1234` whose part before the digits matches `pid`.
fn pid_digits(provider_field: &str) -> Option<&str> {
    let (provider, digits) = split_provider_pid(provider_field)?;
    field_matches(provider, "pid").then_some(digits)
}

/// The D_PROC_OFF error for an offset past the end of `function`.
fn offset_error(offset: u64, function: &FunctionSymbol) -> ProviderError {
    ProviderError::UserProbe {
        tag: UserProbeErrorTag::Offset,
        message: format!(
            "offset 0x{offset:x} outside of function '{}'",
            function.name
        ),
    }
}

/// Interprets the name field: empty or a glob selects entry/return; `entry`,
/// `return` or a hex offset (with or without `0x`) select one probe; anything else is
/// D_PROC_NAME.
fn parse_pid_probe_names(name: &str) -> Result<PidProbeNames, ProviderError> {
    if name.is_empty() || is_glob_pattern(name) {
        return Ok(PidProbeNames::Boundaries {
            entry: field_matches(name, "entry"),
            is_return: field_matches(name, "return"),
        });
    }
    match name {
        "entry" => {
            return Ok(PidProbeNames::Boundaries {
                entry: true,
                is_return: false,
            })
        }
        "return" => {
            return Ok(PidProbeNames::Boundaries {
                entry: false,
                is_return: true,
            })
        }
        _ => {}
    }
    let digits = name
        .strip_prefix("0x")
        .or_else(|| name.strip_prefix("0X"))
        .unwrap_or(name);
    u64::from_str_radix(digits, 16)
        .map(PidProbeNames::Offset)
        .map_err(|_| ProviderError::UserProbe {
            tag: UserProbeErrorTag::Name,
            message: format!("'{name}' is an invalid probe name"),
        })
}

impl Provider for PidProvider {
    fn name(&self) -> &str {
        "pid"
    }

    fn may_match(&self, description: &ProbeDescription) -> bool {
        pid_digits(&description.provider).is_some()
    }

    fn has_static_probes(&self) -> bool {
        false
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        let Some(digits) = pid_digits(&description.provider) else {
            return Ok(Vec::new());
        };
        let pid = parse_pid(&description.provider, digits)?;
        let names = parse_pid_probe_names(&description.name)?;
        let mut entries = Vec::new();
        for object in mapped_objects(pid)?
            .iter()
            .filter(|object| module_matches(&description.module, object))
        {
            // Objects that are not readable 64-bit ELF files (locale archives, fonts,
            // files of another mount namespace we cannot reach) have no functions.
            let Ok(elf) = self.objects.get(object) else {
                continue;
            };
            self.object_probes(pid, description, &names, object, &elf, &mut entries)?;
        }
        Ok(entries)
    }

    fn attributes(&self) -> ProviderAttributes {
        USER_PROBE_ATTRIBUTES
    }
}
