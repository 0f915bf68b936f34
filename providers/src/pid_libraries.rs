//! Libraries a process has not loaded yet, for pid descriptions that name one exactly
//! under `-Z`: DTrace matches such a description again when the process loads the
//! library (`dlopen()`). Here the library's file is found now, where the process's
//! dynamic linker would look for it, and its probes are made from the file: the kernel
//! places a uprobe on a file's code in every later mapping of it, so the probes fire
//! once the process loads the library.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::process_maps::{mapped_objects, MappedObject};
use crate::user_objects::{module_matches, ElfObjectCache};

/// Directories the dynamic linker searches by default on Linux (after `LD_LIBRARY_PATH`
/// and the cache, which lists libraries of these directories).
const DEFAULT_LIBRARY_DIRECTORIES: [&str; 8] = [
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
    "/usr/local/lib",
    "/usr/local/lib64",
];

/// The files `module` (an exact module field) may name for process `pid` when the
/// process has not mapped it, best first: a path, or a name looked up in the process's
/// `LD_LIBRARY_PATH`, its executable's DT_RUNPATH (or DT_RPATH), its working directory
/// (a `dlopen("./libx.so")`), the directories of the objects it already loaded, and the
/// default directories (a file there may be a linker script rather than a library: the
/// caller takes the first that parses). None when the process maps it already.
pub fn unloaded_library_candidates(
    pid: u32,
    module: &str,
    objects: &ElfObjectCache,
) -> Vec<MappedObject> {
    let Ok(mapped) = mapped_objects(pid) else {
        return Vec::new();
    };
    if mapped.iter().any(|object| module_matches(module, object)) {
        return Vec::new();
    }
    let root = PathBuf::from(format!("/proc/{pid}/root"));
    if module.contains('/') {
        return library_object(&root, Path::new(module), module)
            .into_iter()
            .collect();
    }
    let mut directories: Vec<PathBuf> = Vec::new();
    if let Ok(environment) = fs::read(format!("/proc/{pid}/environ")) {
        for variable in environment.split(|&byte| byte == 0) {
            if let Some(value) = variable.strip_prefix(b"LD_LIBRARY_PATH=") {
                directories.extend(
                    String::from_utf8_lossy(value)
                        .split(':')
                        .filter(|directory| !directory.is_empty())
                        .map(PathBuf::from),
                );
            }
        }
    }
    if let Some(executable) = mapped.iter().find(|object| object.is_main_executable) {
        let origin = Path::new(&executable.path)
            .parent()
            .map_or_else(String::new, |directory| directory.display().to_string());
        if let Ok(elf) = objects.get(executable) {
            directories.extend(elf.library_search_path.iter().map(|directory| {
                PathBuf::from(
                    directory
                        .replace("${ORIGIN}", &origin)
                        .replace("$ORIGIN", &origin),
                )
            }));
        }
    }
    if let Ok(directory) = fs::read_link(format!("/proc/{pid}/cwd")) {
        directories.push(directory);
    }
    for object in &mapped {
        if let Some(directory) = Path::new(&object.path).parent() {
            directories.push(directory.to_path_buf());
        }
    }
    directories.extend(DEFAULT_LIBRARY_DIRECTORIES.iter().map(PathBuf::from));
    let mut seen = Vec::new();
    let mut candidates = Vec::new();
    for directory in directories {
        if seen.contains(&directory) {
            continue;
        }
        let Ok(entries) =
            fs::read_dir(root.join(directory.strip_prefix("/").unwrap_or(&directory)))
        else {
            seen.push(directory);
            continue;
        };
        // Only names that start with the module's can be it (`libc` names `libc.so.6`).
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.starts_with(module))
            .collect();
        // The exact name first, then versioned names in a stable order.
        names.sort_by_key(|name| (name != module, name.clone()));
        for name in names {
            let path = directory.join(&name);
            if let Some(object) = library_object(&root, &path, &name) {
                if module_matches(module, &object)
                    && !candidates.iter().any(|known: &MappedObject| {
                        known.inode == object.inode && known.device == object.device
                    })
                {
                    candidates.push(object);
                }
            }
        }
        seen.push(directory);
    }
    candidates
}

/// The object for the regular file at `path` (as the process sees it; opened through
/// `root`), with the identity `/proc/PID/maps` would show for it.
fn library_object(root: &Path, path: &Path, name: &str) -> Option<MappedObject> {
    let through_root = root.join(path.strip_prefix("/").unwrap_or(path));
    let open_path = if through_root.exists() {
        through_root
    } else {
        path.to_path_buf()
    };
    let metadata = fs::metadata(&open_path).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let device = metadata.dev();
    let module = Path::new(name).file_name().map_or_else(
        || name.to_string(),
        |base| base.to_string_lossy().into_owned(),
    );
    Some(MappedObject {
        path: path.display().to_string(),
        open_path,
        device: format!("{:02x}:{:02x}", libc::major(device), libc::minor(device)),
        inode: metadata.ino(),
        module,
        is_main_executable: false,
    })
}
