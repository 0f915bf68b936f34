//! The firing context of probes run by the user-space engine: the dtrace process itself
//! is the current process, so the built-ins describe it, and `curcpu` the CPU it runs on.

use difvm::interp::context::SimpleFiringContext;
use kernel_shim::sys::{numa_node, physical_package_id};

/// The context of a firing now, in the dtrace process, on the CPU this thread runs on.
/// Clocks are read once: a BEGIN or END firing is over in microseconds, and DTrace keeps
/// `timestamp` constant within a clause anyway. There is no user memory to copy in
/// (`copyin()` of an address faults), as the dtrace provider's probes have no arguments
/// that point into a traced process.
pub fn dtrace_process_context(arguments: Vec<u64>) -> SimpleFiringContext {
    // SAFETY: these calls take no pointers and cannot fail.
    let (cpu, pid, tid, ppid, uid, gid) = unsafe {
        (
            libc::sched_getcpu().max(0) as u32,
            libc::getpid() as u64,
            libc::gettid() as u64,
            libc::getppid() as u64,
            libc::getuid() as u64,
            libc::getgid() as u64,
        )
    };
    let execname = std::fs::read_to_string("/proc/self/comm")
        .map(|name| name.trim_end_matches('\n').to_string())
        .unwrap_or_else(|_| "dtrace".to_string());
    SimpleFiringContext {
        cpu,
        cpu_chip: physical_package_id(cpu),
        cpu_lgrp: numa_node(cpu),
        arguments,
        pid,
        tid,
        ppid,
        ancestors: ancestors_of(ppid),
        uid,
        gid,
        execname,
        timestamp: clock_nanoseconds(libc::CLOCK_MONOTONIC),
        walltimestamp: clock_nanoseconds(libc::CLOCK_REALTIME),
        // The thread's CPU-time clock is what `vtimestamp` counts: the nanoseconds this
        // thread (the one firing BEGIN/END) has run.
        vtimestamp: Some(clock_nanoseconds(libc::CLOCK_THREAD_CPUTIME_ID)),
        ..SimpleFiringContext::default()
    }
}

/// The process `parent` and its ancestors up to init and the idle task above it (pid 0,
/// the parent `/proc` gives init), read from `/proc/PID/stat`, so that `progenyof()` of
/// any ancestor is true in the dtrace process as in the kernel, whose walk of
/// `real_parent` ends at the idle task (as illumos's ends at `sched`).
fn ancestors_of(parent: u64) -> Vec<u64> {
    let mut ancestors = Vec::new();
    let mut pid = parent;
    // A bounded walk: pid reuse cannot make /proc describe a cycle, but a bound costs
    // nothing.
    while pid != 0 && ancestors.len() < 4096 {
        ancestors.push(pid);
        pid = parent_of(pid).unwrap_or(0);
    }
    ancestors.push(0);
    ancestors
}

/// The parent process id field of `/proc/PID/stat` (the second field after the
/// parenthesised command name, which may itself contain spaces or parentheses).
fn parent_of(pid: u64) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

fn clock_nanoseconds(clock: libc::clockid_t) -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec.
    unsafe { libc::clock_gettime(clock, &mut time) };
    (time.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(time.tv_nsec as u64)
}
