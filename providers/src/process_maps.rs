//! The objects mapped into a process: `/proc/PID/maps` parsing, and the list of
//! distinct file-backed objects with the module names DTrace shows for them.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{ProviderError, UserProbeErrorTag};

/// One line of `/proc/PID/maps`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapsLine {
    pub start: u64,
    pub end: u64,
    pub permissions: String,
    pub file_offset: u64,
    pub device: String,
    pub inode: u64,
    /// The path, `[heap]`-style pseudo name, or empty for anonymous mappings.
    pub path: String,
}

/// Parses the text of `/proc/PID/maps`, skipping lines that do not have its shape.
pub fn parse_maps(text: &str) -> Vec<MapsLine> {
    text.lines().filter_map(parse_maps_line).collect()
}

/// Parses `START-END PERMS OFFSET DEV INODE [PATH]`.
fn parse_maps_line(line: &str) -> Option<MapsLine> {
    let mut rest = line;
    let mut next_field = || {
        let trimmed = rest.trim_start();
        let end = trimmed.find(' ').unwrap_or(trimmed.len());
        let (field, tail) = trimmed.split_at(end);
        rest = tail;
        (!field.is_empty()).then_some(field)
    };
    let (range, permissions, offset, device, inode) = (
        next_field()?,
        next_field()?,
        next_field()?,
        next_field()?,
        next_field()?,
    );
    let (start, end) = range.split_once('-')?;
    Some(MapsLine {
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        permissions: permissions.to_string(),
        file_offset: u64::from_str_radix(offset, 16).ok()?,
        device: device.to_string(),
        inode: inode.parse().ok()?,
        path: rest.trim().to_string(),
    })
}

/// A file-backed object mapped into a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappedObject {
    /// The path as the process sees it.
    pub path: String,
    /// A path this process can open the same file through (via `/proc/PID/root` when
    /// that works, so objects of processes in other mount namespaces resolve).
    pub open_path: PathBuf,
    pub device: String,
    pub inode: u64,
    /// The module name DTrace shows: the object's basename (`libc.so.6`).
    pub module: String,
    /// True for the process's executable (also reachable as module `a.out`).
    pub is_main_executable: bool,
}

/// The distinct file-backed objects of process `pid`, in address order of their first
/// mapping. Deleted files and pseudo mappings (`[vdso]`, `[heap]`) are left out.
pub fn mapped_objects(pid: u32) -> Result<Vec<MappedObject>, ProviderError> {
    let process_directory = PathBuf::from(format!("/proc/{pid}"));
    let maps_path = process_directory.join("maps");
    // DTrace's message names the process only, whatever the reason.
    let text = fs::read_to_string(&maps_path).map_err(|_| ProviderError::UserProbe {
        tag: UserProbeErrorTag::Grab,
        message: format!("failed to grab process {pid}"),
    })?;
    let executable = fs::read_link(process_directory.join("exe")).ok();
    Ok(objects_from_maps(
        &parse_maps(&text),
        &process_directory.join("root"),
        executable.as_deref(),
    ))
}

/// The distinct objects named by `lines`; `root` is the process's root directory as
/// this process can reach it, `executable` the target of `/proc/PID/exe`.
pub fn objects_from_maps(
    lines: &[MapsLine],
    root: &Path,
    executable: Option<&Path>,
) -> Vec<MappedObject> {
    let mut objects: Vec<MappedObject> = Vec::new();
    for line in lines {
        if !line.path.starts_with('/') || line.path.ends_with(" (deleted)") || line.inode == 0 {
            continue;
        }
        if objects
            .iter()
            .any(|object| object.device == line.device && object.inode == line.inode)
        {
            continue;
        }
        let through_root = root.join(line.path.trim_start_matches('/'));
        let open_path = if through_root.exists() {
            through_root
        } else {
            PathBuf::from(&line.path)
        };
        let module = line
            .path
            .rsplit('/')
            .next()
            .unwrap_or(&line.path)
            .to_string();
        objects.push(MappedObject {
            path: line.path.clone(),
            open_path,
            device: line.device.clone(),
            inode: line.inode,
            module,
            is_main_executable: executable
                .is_some_and(|executable| executable == Path::new(&line.path)),
        });
    }
    objects
}
