//! The pid provider's `-` function: `pidPID:a.out:-:ADDRESS` probes the instruction at
//! an absolute address of the process, as DTrace's does: the module must be the
//! executable, the address may be in any code of the process, and the probe is named
//! by the executable and the address in hex.

use std::fs;

use difvm::glob::is_glob_pattern;
use difvm::object::ProbeDescription;

use crate::error::{ProviderError, UserProbeErrorTag};
use crate::pid_probe_names::{parse_pid_probe_names, PidProbeNames};
use crate::process_maps::{mapped_objects, parse_maps};
use crate::provider::{concrete_description, ProbeEntry, ProbeKind, UprobeSite};
use crate::uprobe_instructions::uprobe_refuses;
use crate::user_objects::{module_matches, ElfObjectCache};
use crate::x86_length::instruction_offsets;

/// The probe `description` (whose function is `-`) names in process `pid`.
pub(crate) fn absolute_address_probes(
    pid: u32,
    description: &ProbeDescription,
    objects: &ElfObjectCache,
) -> Result<Vec<ProbeEntry>, ProviderError> {
    let error = |tag: UserProbeErrorTag, message: String| ProviderError::UserProbe { tag, message };
    // As DTrace, the module is checked first: empty (then a.out), or a name of the
    // executable itself.
    let mapped = mapped_objects(pid)?;
    let executable = mapped
        .iter()
        .find(|object| object.is_main_executable)
        .filter(|object| {
            description.module.is_empty()
                || (!is_glob_pattern(&description.module)
                    && module_matches(&description.module, object))
        })
        .ok_or_else(|| {
            error(
                UserProbeErrorTag::Library,
                "only the a.out module is valid with the '-' function".to_string(),
            )
        })?;
    let address = match parse_pid_probe_names(&description.name)? {
        PidProbeNames::Offset(address) => address,
        PidProbeNames::Pattern(_) => {
            return Err(error(
                UserProbeErrorTag::Name,
                "only individual addresses may be specified with the '-' function".to_string(),
            ))
        }
        PidProbeNames::Entry | PidProbeNames::Return => {
            return Err(error(
                UserProbeErrorTag::Name,
                format!("'{}' is an invalid probe name", description.name),
            ))
        }
    };
    let create_fail = |why: &str| {
        error(
            UserProbeErrorTag::CreateFail,
            format!("failed to create probe at '-+0x{address:x}': {why}"),
        )
    };
    // The code mapping holding the address (the executable's or, as DTrace's address
    // probes reach any code of the process, a library's) gives its file and offset.
    let maps = fs::read_to_string(format!("/proc/{pid}/maps")).map_err(|_| {
        error(
            UserProbeErrorTag::Grab,
            format!("failed to grab process {pid}"),
        )
    })?;
    let (object, file_offset) = parse_maps(&maps)
        .into_iter()
        .filter(|line| line.permissions.contains('x') && (line.start..line.end).contains(&address))
        .find_map(|line| {
            let object = mapped
                .iter()
                .find(|object| object.device == line.device && object.inode == line.inode)?;
            Some((object, line.file_offset + (address - line.start)))
        })
        .ok_or_else(|| create_fail("no code of the process is mapped there"))?;
    // Inside a function whose code decodes, the address must start an instruction: a
    // uprobe inside one would corrupt the process.
    let elf = objects
        .get(object)
        .map_err(|cause| create_fail(&cause.to_string()))?;
    let mut function_entry = false;
    if let Some(function) = elf
        .address_of_file_offset(file_offset)
        .and_then(|virtual_address| elf.function_containing(virtual_address))
    {
        let code = elf
            .read_bytes(function.address, function.size)
            .map_err(|cause| create_fail(&cause.to_string()))?;
        let offset = elf.address_of_file_offset(file_offset).unwrap_or(0) - function.address;
        if let Some(offsets) = instruction_offsets(&code) {
            if offsets.binary_search(&offset).is_err() {
                return Err(error(
                    UserProbeErrorTag::Align,
                    format!("offset 0x{address:x} is not aligned on an instruction"),
                ));
            }
        }
        function_entry = offset == 0;
        if uprobe_refuses(&code[offset as usize..]) {
            return Err(create_fail(
                "the kernel cannot place a uprobe on the instruction there",
            ));
        }
    }
    Ok(vec![ProbeEntry::new(
        concrete_description(
            &description.provider,
            &executable.module,
            "-",
            &format!("{address:x}"),
        ),
        ProbeKind::Uprobe {
            pid: Some(pid),
            is_return: false,
            sites: vec![UprobeSite {
                path: object.open_path.clone(),
                file_offset,
                semaphore_file_offset: None,
                usdt_arguments: None,
                return_offset: None,
                return_exits: Vec::new(),
                function_entry,
            }],
        },
    )])
}
