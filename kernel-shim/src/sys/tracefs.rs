//! Finding tracefs (mounting it when a fresh boot left it unmounted) and reading tracepoint
//! ids from `events/GROUP/NAME/id`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::error::SysError;

const TRACEFS_MOUNT_POINT: &str = "/sys/kernel/tracing";
const DEBUGFS_TRACING: &str = "/sys/kernel/debug/tracing";

/// The tracefs root holding `events/`. Tries /sys/kernel/tracing, then the debugfs path, then
/// mounts tracefs at /sys/kernel/tracing (root only).
pub fn tracefs_root() -> Result<PathBuf, SysError> {
    // Threads that race here would mount tracefs twice; one mount is enough.
    static MOUNT_LOCK: Mutex<()> = Mutex::new(());
    let _guard = MOUNT_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for candidate in [TRACEFS_MOUNT_POINT, DEBUGFS_TRACING] {
        if Path::new(candidate).join("events").is_dir() {
            return Ok(PathBuf::from(candidate));
        }
    }
    mount_tracefs()?;
    let root = PathBuf::from(TRACEFS_MOUNT_POINT);
    if root.join("events").is_dir() {
        Ok(root)
    } else {
        Err(SysError::invalid(
            "finding tracefs",
            format!("{TRACEFS_MOUNT_POINT}/events is missing after mounting tracefs"),
        ))
    }
}

fn mount_tracefs() -> Result<(), SysError> {
    let attempted = || format!("mounting tracefs at {TRACEFS_MOUNT_POINT}");
    let source = c"tracefs";
    let target = c"/sys/kernel/tracing";
    // SAFETY: all strings are NUL-terminated literals; no mount data is passed.
    let result = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            source.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(SysError::last_os_error(attempted()))
    }
}

/// The directory of one tracepoint, `ROOT/events/GROUP/NAME`.
pub fn tracepoint_directory(group: &str, name: &str) -> Result<PathBuf, SysError> {
    let valid = |part: &str| !part.is_empty() && part != "." && part != ".." && !part.contains('/');
    if !valid(group) || !valid(name) {
        return Err(SysError::invalid(
            format!("finding tracepoint {group}:{name}"),
            "not a tracepoint name",
        ));
    }
    Ok(tracefs_root()?.join("events").join(group).join(name))
}

/// The id perf_event_open(2) wants for tracepoint `group:name`.
pub fn tracepoint_id(group: &str, name: &str) -> Result<u64, SysError> {
    let path = tracepoint_directory(group, name)?.join("id");
    let attempted = || {
        format!(
            "reading the id of tracepoint {group}:{name} ({})",
            path.display()
        )
    };
    let text =
        std::fs::read_to_string(&path).map_err(|error| SysError::from_io(attempted(), &error))?;
    text.trim()
        .parse()
        .map_err(|_| SysError::invalid(attempted(), format!("not a number: {:?}", text.trim())))
}
