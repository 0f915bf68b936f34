//! Live tests of symbolization with the dtrace command on the kernel engine: kernel
//! and user stacks aggregated from a short-lived `-c` process resolve to
//! `module`symbol+0xoffset` frames after it has exited, `-x noresolve` prints user frames
//! as `object:0xoffset`, and `%a`, `sym()`, `func()` and `mod()` name a kernel function
//! taken from `/proc/kallsyms`.
//!
//! These tests trace the running machine, so each one first checks that it may (root and
//! a working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise prints `skipping: <reason>`
//! and passes. The load process is a small Python script written to a private temporary
//! directory, because `-c` splits its command on blanks and so cannot carry `python -c`.

mod common;

use std::time::Duration;

use common::live::LiveDtrace;

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

/// How many getppid() calls the load makes.
const CALLS: u64 = 1000;

/// Makes exactly argv[1] getppid() calls, then exits. Unlike the shared
/// `common::live::GETPPID_LOAD` it calls `os.getppid()` through the module each time, the
/// call whose user stack these tests were written against.
const GETPPID_LOAD: &str = "import os, sys\n\
n = int(sys.argv[1])\n\
for _ in range(n):\n    os.getppid()\n";

/// One aggregation entry keyed by a stack: its frames and its count.
#[derive(Debug)]
struct StackEntry {
    frames: Vec<String>,
    count: u64,
}

/// Splits the output of stack-keyed aggregations into entries: frame lines, then the
/// count on a line of its own.
fn stack_entries(stdout: &str) -> Vec<StackEntry> {
    let mut entries = Vec::new();
    let mut frames = Vec::new();
    for line in stdout
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
    {
        match line.parse::<u64>() {
            Ok(count) => entries.push(StackEntry {
                frames: std::mem::take(&mut frames),
                count,
            }),
            Err(_) => frames.push(line.to_string()),
        }
    }
    entries
}

/// Runs the getppid load under `program` with extra dtrace arguments, and returns the
/// stack entries printed.
fn getppid_stacks(test_name: &str, extra_arguments: &[&str], program: &str) -> Vec<StackEntry> {
    let mut arguments = vec!["-q"];
    arguments.extend_from_slice(extra_arguments);
    arguments.extend_from_slice(&["-n", program]);
    let outcome = DTRACE.run_with_load(test_name, GETPPID_LOAD, &CALLS.to_string(), &arguments);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    stack_entries(&outcome.stdout)
}

#[test]
fn aggregated_kernel_and_user_stacks_resolve_after_the_process_exits() {
    if DTRACE.must_skip() {
        return;
    }
    let entries = getppid_stacks(
        "stacks",
        &[],
        "syscall::getppid:entry /pid == $target/ { @k[stack()] = count(); @u[ustack()] = count(); }",
    );
    let described = format!("{entries:#?}");
    assert_eq!(entries.len(), 2, "{described}");
    for entry in &entries {
        assert_eq!(entry.count, CALLS, "{described}");
    }
    let kernel = &entries[0].frames;
    assert!(
        kernel.iter().all(|frame| !frame.starts_with("0x")),
        "every kernel frame resolves: {described}"
    );
    assert!(
        kernel
            .iter()
            .any(|frame| frame.starts_with("vmlinux`") && frame.contains("+0x")),
        "kernel frames are vmlinux`symbol+0xoffset: {described}"
    );
    if cfg!(target_arch = "x86_64") {
        assert!(
            kernel
                .iter()
                .any(|frame| frame.starts_with("vmlinux`do_syscall_64+0x")),
            "the system call entry shows: {described}"
        );
    }
    let user = &entries[1].frames;
    assert!(
        user.first()
            .is_some_and(|frame| frame.starts_with("libc.so.6`getppid")),
        "the innermost user frame is the C library's getppid: {described}"
    );
}

#[test]
fn noresolve_prints_user_frames_as_object_offsets() {
    if DTRACE.must_skip() {
        return;
    }
    let entries = getppid_stacks(
        "noresolve",
        &["-x", "noresolve"],
        "syscall::getppid:entry /pid == $target/ { @u[ustack()] = count(); }",
    );
    let described = format!("{entries:#?}");
    assert_eq!(entries.len(), 1, "{described}");
    assert_eq!(entries[0].count, CALLS, "{described}");
    assert!(
        entries[0]
            .frames
            .first()
            .is_some_and(|frame| frame.starts_with("libc.so.6:0x")),
        "the innermost frame is an offset in the C library: {described}"
    );
}

/// The address of a global kernel function that no other kallsyms name shares.
fn lone_kernel_function(name: &str) -> Option<u64> {
    let kallsyms = std::fs::read_to_string("/proc/kallsyms").ok()?;
    let address = kallsyms.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        (fields.len() == 3 && fields[1] == "T" && fields[2] == name).then(|| fields[0])
    })?;
    let sharing = kallsyms
        .lines()
        .filter(|line| line.split_whitespace().next() == Some(address))
        .count();
    (sharing == 1)
        .then(|| u64::from_str_radix(address, 16).ok())
        .flatten()
}

#[test]
fn kernel_address_formats_name_a_kallsyms_function() {
    if DTRACE.must_skip() {
        return;
    }
    let Some((name, address)) = ["vfs_read", "ksys_read", "vfs_write"]
        .into_iter()
        .find_map(|name| lone_kernel_function(name).map(|address| (name, address)))
    else {
        println!("skipping: no lone vfs_read/ksys_read/vfs_write in /proc/kallsyms");
        return;
    };
    let program = format!(
        "BEGIN {{ printf(\"%a|%a|%a|\", {address:#x}, {address:#x} + 5, 1234); \
         printf(\"%s|\", \"\"); trace(sym({address:#x} + 5)); trace(func({address:#x})); \
         trace(mod({address:#x})); exit(0); }}"
    );
    let outcome = DTRACE.run(&["-q", "-n", &program]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let fields: Vec<&str> = outcome
        .stdout
        .split(['|', ' ', '\n'])
        .filter(|field| !field.is_empty())
        .collect();
    assert_eq!(
        fields,
        vec![
            format!("vmlinux`{name}"),
            format!("vmlinux`{name}+0x5"),
            "0x4d2".to_string(),
            format!("vmlinux`{name}"),
            format!("vmlinux`{name}"),
            "vmlinux".to_string(),
        ],
        "stdout {:?}",
        outcome.stdout
    );
}
