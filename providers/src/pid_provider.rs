//! The pid provider: `pidPID:MODULE:FUNCTION:entry|return|OFFSET`, user function
//! boundaries and instructions of one process, created on demand from the process's
//! mapped ELF objects.
//!
//! Only descriptions naming a process (`pid1234`, or `p*d1234`) create probes; `pid*`
//! does not list every process. A globbed (or empty) probe name makes the entry and
//! return probes it matches and one probe per instruction whose hex offset it matches.
//! A named offset must lie inside the function (D_PROC_OFF) and at the start of an
//! instruction (D_PROC_ALIGN): the boundaries come from decoding the function's bytes
//! in the ELF file (`x86_length`), so a uprobe never lands inside an instruction.
//! Instructions the kernel's uprobes refuse (`uprobe_instructions`) are left out of
//! globbed names and are D_PROC_CREATEFAIL when named. A module named exactly that has
//! no function of the exact name given is D_PROC_FUNC, as in DTrace. The `-` function
//! names absolute addresses (`pid_addresses`).

use difvm::glob::{field_matches, is_glob_pattern};
use difvm::object::ProbeDescription;

use crate::attributes::{ProviderAttributes, USER_PROBE_ATTRIBUTES};
use crate::elf_object::{ElfObject, FunctionSymbol};
use crate::error::{ProviderError, UserProbeErrorTag};
use crate::pid_addresses::absolute_address_probes;
use crate::pid_libraries::unloaded_library_candidates;
use crate::pid_probe_names::{parse_pid_probe_names, PidProbeNames};
use crate::process_maps::{mapped_objects, MappedObject};
use crate::provider::{concrete_description, ProbeEntry, ProbeKind, Provider, UprobeSite};
use crate::uprobe_instructions::uprobe_refuses;
use crate::user_objects::{module_matches, parse_pid, split_provider_pid, ElfObjectCache};
use crate::x86_branches::{exit_offsets, return_offsets};
use crate::x86_length::instruction_offsets;

/// The pid provider.
#[derive(Debug, Default)]
pub struct PidProvider {
    objects: ElfObjectCache,
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
            let probe = |name: &str, is_return: bool, offset: u64| {
                // A return probe is a uretprobe: it fires once the function has
                // returned, as DTrace for Linux's does and as illumos' does after
                // emulating the `ret`. Its arg0 is the offset of the instruction the
                // function left by: known when the function has a single way out, a
                // `ret`, else recorded at each of its exits as the thread takes it.
                let (return_offset, return_exits) = if is_return {
                    function_exits(elf, function)
                } else {
                    (None, Vec::new())
                };
                ProbeEntry::new(
                    concrete_description(&provider, &object.module, &function.name, name),
                    ProbeKind::Uprobe {
                        pid: Some(pid),
                        is_return,
                        sites: vec![UprobeSite {
                            path: object.open_path.clone(),
                            file_offset: function_offset + offset,
                            semaphore_file_offset: None,
                            usdt_arguments: None,
                            return_offset,
                            return_exits,
                            function_entry: offset == 0,
                        }],
                    },
                )
            };
            // Entry and return probes both place a uprobe on the first instruction;
            // when the kernel refuses it, only a description naming the probe exactly
            // is an error.
            let boundary = |name: &str| -> Result<Option<ProbeEntry>, ProviderError> {
                if !first_instruction_refused(elf, function) {
                    return Ok(Some(probe(name, name == "return", 0)));
                }
                if function_is_glob || matches!(names, PidProbeNames::Pattern(_)) {
                    return Ok(None);
                }
                Err(refused_error(
                    format!("failed to create {name} probe for '{}'", function.name),
                    0,
                ))
            };
            match names {
                PidProbeNames::Entry => entries.extend(boundary("entry")?),
                PidProbeNames::Return => entries.extend(boundary("return")?),
                PidProbeNames::Pattern(pattern) => {
                    for name in ["entry", "return"] {
                        if field_matches(pattern, name) {
                            entries.extend(boundary(name)?);
                        }
                    }
                    if may_match_hex(pattern) {
                        for offset in probeable_offsets(elf, function) {
                            let name = format!("{offset:x}");
                            if field_matches(pattern, &name) {
                                entries.push(probe(&name, false, offset));
                            }
                        }
                    }
                }
                PidProbeNames::Offset(offset) => {
                    let offset = *offset;
                    if offset >= function.size {
                        if function_is_glob {
                            continue;
                        }
                        return Err(offset_error(offset, function));
                    }
                    let code = match elf.read_bytes(function.address, function.size) {
                        Ok(code) => code,
                        Err(_) if function_is_glob => continue,
                        Err(error) => {
                            return Err(ProviderError::UserProbe {
                                tag: UserProbeErrorTag::CreateFail,
                                message: format!(
                                    "failed to create probe at '{}+0x{offset:x}': {error}",
                                    function.name
                                ),
                            })
                        }
                    };
                    // As DTrace, a function that does not decode to its end gets no
                    // offset probe (the description may then match nothing), and an
                    // offset inside an instruction is D_PROC_ALIGN: a uprobe there
                    // would overwrite part of an instruction and corrupt the process.
                    let Some(offsets) = instruction_offsets(&code) else {
                        continue;
                    };
                    if offsets.binary_search(&offset).is_err() {
                        if function_is_glob {
                            continue;
                        }
                        return Err(ProviderError::UserProbe {
                            tag: UserProbeErrorTag::Align,
                            message: format!(
                                "offset 0x{offset:x} is not aligned on an instruction"
                            ),
                        });
                    }
                    if uprobe_refuses(&code[offset as usize..]) {
                        if function_is_glob {
                            continue;
                        }
                        return Err(refused_error(
                            format!("failed to create probe at '{}+0x{offset:x}'", function.name),
                            offset,
                        ));
                    }
                    entries.push(probe(&format!("{offset:x}"), false, offset));
                }
            }
        }
        Ok(())
    }
}

/// How a return probe on `function` knows the instruction it left by: the offset of its
/// only way out, a `ret`; or else the offsets of all its exits, where the one taken is
/// recorded (none when one of them refuses a uprobe, or the code does not decode: the
/// offset is then unknown, and `arg0` 0).
fn function_exits(elf: &ElfObject, function: &FunctionSymbol) -> (Option<u64>, Vec<u64>) {
    let Ok(code) = elf.read_bytes(function.address, function.size) else {
        return (None, Vec::new());
    };
    if let Some([only]) = return_offsets(&code).as_deref() {
        return (Some(*only), Vec::new());
    }
    let exits = exit_offsets(&code).unwrap_or_default();
    if exits
        .iter()
        .any(|&offset| uprobe_refuses(&code[offset as usize..]))
    {
        return (None, Vec::new());
    }
    (None, exits)
}

/// Whether the kernel would refuse a uprobe on `function`'s first instruction (a
/// function whose first bytes cannot be read is given the benefit of the doubt: the
/// enabling reports the kernel's own error).
fn first_instruction_refused(elf: &ElfObject, function: &FunctionSymbol) -> bool {
    const LONGEST_INSTRUCTION: u64 = 15;
    elf.read_bytes(function.address, function.size.min(LONGEST_INSTRUCTION))
        .is_ok_and(|code| uprobe_refuses(&code))
}

/// The offsets of `function`'s instructions the kernel can place a uprobe on. A
/// function whose code cannot be read or decoded has none, as DTrace gives no offset
/// probes to a function it suspects of holding a jump table.
fn probeable_offsets(elf: &ElfObject, function: &FunctionSymbol) -> Vec<u64> {
    let Ok(code) = elf.read_bytes(function.address, function.size) else {
        return Vec::new();
    };
    let Some(offsets) = instruction_offsets(&code) else {
        return Vec::new();
    };
    offsets
        .into_iter()
        .filter(|&offset| !uprobe_refuses(&code[offset as usize..]))
        .collect()
}

/// The D_PROC_CREATEFAIL error for a probe at an instruction the kernel's uprobes
/// refuse (a `lock`-prefixed instruction, `hlt`, port I/O, …); `what` is DTrace's
/// "failed to create … probe …" beginning.
fn refused_error(what: String, offset: u64) -> ProviderError {
    ProviderError::UserProbe {
        tag: UserProbeErrorTag::CreateFail,
        message: format!(
            "{what}: the kernel cannot place a uprobe on the instruction at offset 0x{offset:x}"
        ),
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

/// Whether some lowercase hex number could match `pattern`: false when a character
/// outside brackets is neither a hex digit nor a glob metacharacter, so that names such
/// as `ent*` do not make the provider decode every function.
fn may_match_hex(pattern: &str) -> bool {
    let mut in_brackets = false;
    let mut escaped = false;
    for character in pattern.chars() {
        match character {
            _ if escaped => {
                if !in_brackets && !matches!(character, '0'..='9' | 'a'..='f') {
                    return false;
                }
                escaped = false;
            }
            '\\' => escaped = true,
            '[' if !in_brackets => in_brackets = true,
            ']' if in_brackets => in_brackets = false,
            _ if in_brackets => {}
            '*' | '?' | '0'..='9' | 'a'..='f' => {}
            _ => return false,
        }
    }
    true
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
        if description.function == "-" {
            return absolute_address_probes(pid, description, &self.objects);
        }
        // As in DTrace, the name is checked once a function is found: a description
        // naming no function matches nothing whatever its name.
        let names = parse_pid_probe_names(&description.name);
        let mut entries = Vec::new();
        let mut module_found = false;
        let mut function_found = false;
        for object in mapped_objects(pid)?
            .iter()
            .filter(|object| module_matches(&description.module, object))
        {
            // Objects that are not readable 64-bit ELF files (locale archives, fonts,
            // files of another mount namespace we cannot reach) have no functions.
            let Ok(elf) = self.objects.get(object) else {
                continue;
            };
            module_found = true;
            if functions_described(&elf.functions, &description.function).is_empty() {
                continue;
            }
            function_found = true;
            let names = names.as_ref().map_err(Clone::clone)?;
            self.object_probes(pid, description, names, object, &elf, &mut entries)?;
        }
        let exact = |field: &str| !field.is_empty() && !is_glob_pattern(field);
        if module_found
            && !function_found
            && exact(&description.module)
            && exact(&description.function)
        {
            return Err(ProviderError::UserProbe {
                tag: UserProbeErrorTag::Function,
                message: format!(
                    "failed to lookup '{}' in module '{}'",
                    description.function, description.module
                ),
            });
        }
        Ok(entries)
    }

    fn deferred_probes(
        &self,
        description: &ProbeDescription,
    ) -> Result<Vec<ProbeEntry>, ProviderError> {
        let exact = |field: &str| !field.is_empty() && !is_glob_pattern(field);
        let Some(digits) = pid_digits(&description.provider) else {
            return Ok(Vec::new());
        };
        if !exact(&description.module) || description.function == "-" {
            return Ok(Vec::new());
        }
        let pid = parse_pid(&description.provider, digits)?;
        for object in unloaded_library_candidates(pid, &description.module, &self.objects) {
            let Ok(elf) = self.objects.get(&object) else {
                continue;
            };
            // As for loaded objects, the name is checked once a function is found.
            let mut entries = Vec::new();
            if !functions_described(&elf.functions, &description.function).is_empty() {
                let names = parse_pid_probe_names(&description.name)?;
                self.object_probes(pid, description, &names, &object, &elf, &mut entries)?;
            }
            return Ok(entries);
        }
        Ok(Vec::new())
    }

    fn attributes(&self) -> ProviderAttributes {
        USER_PROBE_ATTRIBUTES
    }
}
