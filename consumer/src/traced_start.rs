//! Bringing a `-c` child from its `exec` to its program's entry point under ptrace, so
//! that its executable and shared libraries are mapped (DTrace's default `evaltime` of
//! `postinit`) before its pid and usdt probes are resolved, and holding it there until
//! tracing starts.
//!
//! The child asks to be traced (`PTRACE_TRACEME`) before it calls `exec`, so the kernel
//! stops it with SIGTRAP once the new image is loaded. At that point only the executable
//! and the dynamic linker are mapped: `pid$target:a.out:main:entry` could be resolved,
//! but not `pid$target:libc.so.6:malloc:entry`. So a breakpoint is planted at the entry
//! point the kernel passed in the auxiliary vector (`AT_ENTRY`), the child runs until
//! it reaches it (the dynamic linker has then mapped and relocated every library the
//! program needs), the original instruction is put back, and the child stays stopped
//! there until [`release_traced_child`] detaches from it.
//!
//! ptrace requests must come from the thread that forked the child: the consumer
//! creates and releases its targets from one thread.

use std::io;

/// The auxiliary-vector key of the program's entry point.
const AT_ENTRY: u64 = 9;

/// How a traced child stopped or ended while it was brought to its entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TracedStart {
    /// The child is stopped at its entry point (or, on architectures where no
    /// breakpoint is planted, right after `exec`), its libraries mapped.
    StoppedAtEntry,
    /// The child ended before reaching it, with this raw wait status (already reaped).
    Ended(libc::c_int),
}

fn last_os_error() -> io::Error {
    io::Error::last_os_error()
}

/// Waits for the next stop or end of `pid`, retrying on EINTR.
fn wait_for_child(pid: libc::pid_t) -> io::Result<libc::c_int> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status of our own child into `status`.
        let result = unsafe { libc::waitpid(pid, &mut status, 0) };
        if result == pid {
            return Ok(status);
        }
        if result < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return Err(last_os_error());
        }
    }
}

/// Waits until `pid` stops with SIGTRAP; any other signal that stops it on the way is
/// passed on to it. `Ok(Some(status))` when the child ended instead.
fn wait_for_trap(pid: libc::pid_t) -> io::Result<Option<libc::c_int>> {
    loop {
        let status = wait_for_child(pid)?;
        if !libc::WIFSTOPPED(status) {
            return Ok(Some(status));
        }
        let signal = libc::WSTOPSIG(status);
        if signal == libc::SIGTRAP {
            return Ok(None);
        }
        // SAFETY: the child is in a signal-delivery stop; resuming it delivers `signal`.
        if unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0usize, signal as usize) } != 0 {
            return Err(last_os_error());
        }
    }
}

/// The entry point of the image `pid` runs, from `/proc/PID/auxv`.
fn entry_point(pid: libc::pid_t) -> io::Result<u64> {
    let bytes = std::fs::read(format!("/proc/{pid}/auxv"))?;
    bytes
        .chunks_exact(16)
        .map(|pair| {
            let key = u64::from_ne_bytes(pair[..8].try_into().expect("8 bytes"));
            let value = u64::from_ne_bytes(pair[8..].try_into().expect("8 bytes"));
            (key, value)
        })
        .find(|&(key, _)| key == AT_ENTRY)
        .map(|(_, value)| value)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no AT_ENTRY in auxv"))
}

/// Runs the stopped tracee `pid` to `entry` with an int3 breakpoint, and leaves it
/// stopped there with the original instruction restored and its program counter at
/// `entry`.
#[cfg(target_arch = "x86_64")]
fn run_to_entry(pid: libc::pid_t, entry: u64) -> io::Result<TracedStart> {
    const INT3: libc::c_long = 0xcc;
    // SAFETY: PEEKDATA reads one word of the stopped tracee; errno tells a -1 word from
    // an error.
    let original = unsafe {
        *libc::__errno_location() = 0;
        let word = libc::ptrace(libc::PTRACE_PEEKDATA, pid, entry as usize, 0usize);
        if word == -1 && *libc::__errno_location() != 0 {
            return Err(last_os_error());
        }
        word
    };
    let patched = (original & !0xff) | INT3;
    // SAFETY: POKEDATA writes one word of the stopped tracee's (copy-on-write) text.
    if unsafe { libc::ptrace(libc::PTRACE_POKEDATA, pid, entry as usize, patched as usize) } != 0 {
        return Err(last_os_error());
    }
    // SAFETY: the tracee is stopped; resume it without a signal.
    if unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0usize, 0usize) } != 0 {
        return Err(last_os_error());
    }
    if let Some(status) = wait_for_trap(pid)? {
        return Ok(TracedStart::Ended(status));
    }
    // SAFETY: the tracee is stopped at the breakpoint; the registers are read into and
    // written from a properly sized user_regs_struct, and the text word is restored.
    unsafe {
        let mut registers: libc::user_regs_struct = std::mem::zeroed();
        if libc::ptrace(
            libc::PTRACE_GETREGS,
            pid,
            0usize,
            &mut registers as *mut libc::user_regs_struct as usize,
        ) != 0
        {
            return Err(last_os_error());
        }
        if libc::ptrace(
            libc::PTRACE_POKEDATA,
            pid,
            entry as usize,
            original as usize,
        ) != 0
        {
            return Err(last_os_error());
        }
        registers.rip = entry;
        if libc::ptrace(
            libc::PTRACE_SETREGS,
            pid,
            0usize,
            &registers as *const libc::user_regs_struct as usize,
        ) != 0
        {
            return Err(last_os_error());
        }
    }
    Ok(TracedStart::StoppedAtEntry)
}

/// Elsewhere the child stays stopped right after `exec`: the executable is mapped, the
/// shared libraries are not yet.
#[cfg(not(target_arch = "x86_64"))]
fn run_to_entry(_pid: libc::pid_t, _entry: u64) -> io::Result<TracedStart> {
    Ok(TracedStart::StoppedAtEntry)
}

/// Called in the parent once the child that asked to be traced has successfully
/// `exec`ed: waits for its post-exec stop, makes the kernel kill it should dtrace die
/// before releasing it, and runs it to its entry point.
pub fn bring_traced_child_to_entry(pid: libc::pid_t) -> io::Result<TracedStart> {
    if let Some(status) = wait_for_trap(pid)? {
        return Ok(TracedStart::Ended(status));
    }
    // SAFETY: the tracee is stopped; EXITKILL only sets a tracing option.
    if unsafe {
        libc::ptrace(
            libc::PTRACE_SETOPTIONS,
            pid,
            0usize,
            libc::PTRACE_O_EXITKILL as usize,
        )
    } != 0
    {
        return Err(last_os_error());
    }
    run_to_entry(pid, entry_point(pid)?)
}

/// Lets the stopped, traced child run on, untraced. False when it is gone (killed from
/// outside while held).
pub fn release_traced_child(pid: libc::pid_t) -> bool {
    // SAFETY: detaching from our own stopped tracee, without delivering a signal.
    unsafe { libc::ptrace(libc::PTRACE_DETACH, pid, 0usize, 0usize) == 0 }
}
