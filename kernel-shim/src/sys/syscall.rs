//! The raw bpf(2) and perf_event_open(2) system calls; nothing else in the project issues them.

use std::os::fd::{FromRawFd, OwnedFd};

use super::abi::{bpf_command_name, PerfEventAttr, PERF_FLAG_FD_CLOEXEC};
use super::error::SysError;

/// Issues bpf(`command`, `attr`, sizeof(`attr`)), retrying on EINTR and (a few times, as
/// libbpf does for program loads) on EAGAIN. `describe` names the attempt for the error.
///
/// # Safety
///
/// `T` must be the `#[repr(C)]` attribute struct of `command`, and every pointer stored in it
/// must be valid, for the length stored next to it, until this call returns.
pub(crate) unsafe fn bpf<T>(
    command: u32,
    attr: &mut T,
    describe: impl FnOnce() -> String,
) -> Result<libc::c_long, SysError> {
    let mut again_budget = 5;
    loop {
        // SAFETY: the caller guarantees that `attr` is the right attribute struct for
        // `command` and that the pointers in it are valid.
        let result = unsafe {
            libc::syscall(
                libc::SYS_bpf,
                command as libc::c_long,
                attr as *mut T,
                std::mem::size_of::<T>() as libc::c_long,
            )
        };
        if result >= 0 {
            return Ok(result);
        }
        let errno = std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        match errno {
            libc::EINTR => continue,
            libc::EAGAIN if again_budget > 0 => {
                again_budget -= 1;
                continue;
            }
            _ => {
                return Err(SysError::Os {
                    attempted: format!("bpf({}) {}", bpf_command_name(command), describe()),
                    errno,
                })
            }
        }
    }
}

/// As `bpf`, for commands that return a new file descriptor.
///
/// # Safety
///
/// As for `bpf`.
pub(crate) unsafe fn bpf_fd<T>(
    command: u32,
    attr: &mut T,
    describe: impl FnOnce() -> String,
) -> Result<OwnedFd, SysError> {
    // SAFETY: forwarded from the caller.
    let fd = unsafe { bpf(command, attr, describe)? };
    // SAFETY: the kernel just returned this descriptor to us and nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// Issues perf_event_open(`attr`, `pid`, `cpu`, no group, close-on-exec).
///
/// # Safety
///
/// Pointers stored in `attr.config1` (a kprobe function name or uprobe path) must point to a
/// NUL-terminated string that lives until this call returns.
pub(crate) unsafe fn perf_event_open(
    attr: &mut PerfEventAttr,
    pid: libc::pid_t,
    cpu: libc::c_int,
    describe: impl FnOnce() -> String,
) -> Result<OwnedFd, SysError> {
    attr.size = std::mem::size_of::<PerfEventAttr>() as u32;
    let errno = loop {
        // SAFETY: `attr` is a complete perf_event_attr of the size it declares; the caller
        // guarantees the strings it points to.
        let result = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                attr as *mut PerfEventAttr,
                pid as libc::c_long,
                cpu as libc::c_long,
                -1 as libc::c_long,
                PERF_FLAG_FD_CLOEXEC,
            )
        };
        if result >= 0 {
            // SAFETY: a descriptor the kernel just returned to us.
            return Ok(unsafe { OwnedFd::from_raw_fd(result as libc::c_int) });
        }
        let errno = std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        if errno != libc::EINTR {
            break errno;
        }
    };
    Err(SysError::Os {
        attempted: format!("perf_event_open {}", describe()),
        errno,
    })
}

/// Copies `name` into a fixed kernel name field, keeping only the characters the kernel
/// accepts in object names (letters, digits, `_` and `.`) and leaving room for the NUL.
pub(crate) fn object_name(name: &str) -> [u8; 16] {
    let mut field = [0u8; 16];
    let accepted = name
        .bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.' {
                byte
            } else {
                b'_'
            }
        })
        .take(15);
    for (slot, byte) in field.iter_mut().zip(accepted) {
        *slot = byte;
    }
    field
}

/// The text of a NUL-padded kernel name field.
pub(crate) fn name_from_field(field: &[u8]) -> String {
    let end = field
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_names_are_sanitised_and_truncated() {
        assert_eq!(name_from_field(&object_name("dtrace_aggs")), "dtrace_aggs");
        assert_eq!(
            name_from_field(&object_name("syscall::read:entry")),
            "syscall__read_e"
        );
        assert_eq!(name_from_field(&object_name("")), "");
    }
}
