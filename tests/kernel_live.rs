//! Live end-to-end tests of the dtrace command on the kernel engine: exact counts, drop
//! accounting, runtime faults, cleanup after `kill -9`, per-CPU record integrity and the
//! longest record a perf sample carries.
//!
//! These tests trace the running machine, so each one first checks that it may (root and a
//! working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise prints `skipping: <reason>` and
//! passes. The load processes are small Python scripts written to a private temporary
//! directory, because `-c` splits its command on blanks and so cannot carry `python -c`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::live::{drops_per_cpu, LiveDtrace, GETPPID_LOAD, TWO_PROCESS_GETPPID_LOAD};

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

#[test]
fn count_of_getppid_calls_is_exact() {
    if DTRACE.must_skip() {
        return;
    }
    const CALLS: u64 = 1_000_000;
    let outcome = DTRACE.run_with_load(
        "exact",
        GETPPID_LOAD,
        &CALLS.to_string(),
        &[
            "-q",
            "-n",
            "syscall::getppid:entry /pid == $target/ { @ = count(); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let printed: Vec<&str> = outcome.stdout.split_whitespace().collect();
    assert_eq!(
        printed,
        vec![CALLS.to_string().as_str()],
        "expected exactly {CALLS} getppid calls; stdout {:?}, stderr {:?}",
        outcome.stdout,
        outcome.stderr
    );
}

#[test]
fn printed_records_plus_drops_equal_firings() {
    if DTRACE.must_skip() {
        return;
    }
    const CALLS: u64 = 1_000_000;
    let outcome = DTRACE.run_with_load(
        "drops",
        GETPPID_LOAD,
        &CALLS.to_string(),
        &[
            "-q",
            "-b",
            "16k",
            "-n",
            "syscall::getppid:entry /pid == $target/ { trace(1); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    // Quiet trace(1) prints a bare `1` per record with no separator, so every `1` on
    // stdout is one record and nothing else may appear there.
    let unexpected: String = outcome
        .stdout
        .chars()
        .filter(|character| *character != '1' && !character.is_whitespace())
        .collect();
    assert!(unexpected.is_empty(), "unexpected output {unexpected:?}");
    let records = outcome.stdout.chars().filter(|c| *c == '1').count() as u64;
    let drops: u64 = drops_per_cpu(&outcome.stderr).values().sum();
    assert_eq!(
        records + drops,
        CALLS,
        "{records} printed records + {drops} reported drops != {CALLS} firings"
    );
}

#[test]
fn invalid_address_is_reported_and_error_clause_fires() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-n",
        "BEGIN { x = *(int *)0; } ERROR { printf(\"error fired\\n\"); } tick-200ms { exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let fault_line = outcome
        .stderr
        .lines()
        .find(|line| line.contains("invalid address (0x0)"));
    let Some(fault_line) = fault_line else {
        panic!("no invalid address message; stderr {:?}", outcome.stderr);
    };
    assert!(
        fault_line.starts_with("dtrace: error on enabled probe ID ")
            && fault_line.contains(": invalid address (0x0) in action #1 at DIF offset "),
        "fault message not in DTrace's words: {fault_line:?}"
    );
    assert!(
        outcome.stdout.contains("error fired"),
        "ERROR clause did not fire; stdout {:?}",
        outcome.stdout
    );
    assert!(
        outcome.stdout.contains(":tick-200ms"),
        "tracing did not continue to tick-200ms; stdout {:?}",
        outcome.stdout
    );
}

/// The bpf(2) commands that walk the kernel's table of loaded programs and links.
const BPF_PROG_GET_NEXT_ID: libc::c_long = 11;
const BPF_LINK_GET_NEXT_ID: libc::c_long = 31;

/// Lists every id the kernel currently knows for the given `*_GET_NEXT_ID` command. This
/// asks the kernel itself, so an object held only by a kernel reference (not by any file
/// descriptor) is still seen, which a scan of /proc/*/fdinfo would miss.
fn kernel_object_ids(command: libc::c_long) -> BTreeSet<u32> {
    let mut ids = BTreeSet::new();
    let mut start_id: u32 = 0;
    loop {
        // The attribute union starts with start_id and next_id for these commands; the
        // rest stays zero, as the kernel requires.
        let mut attribute = [0u32; 16];
        attribute[0] = start_id;
        // SAFETY: the attribute is a live, zero-filled buffer of the size passed, and the
        // kernel writes only next_id inside it.
        let result = unsafe {
            libc::syscall(
                libc::SYS_bpf,
                command,
                attribute.as_mut_ptr(),
                std::mem::size_of_val(&attribute),
            )
        };
        if result != 0 {
            break;
        }
        start_id = attribute[1];
        ids.insert(start_id);
    }
    ids
}

/// Reads the `prog_id:` and `link_id:` lines of every descriptor the process holds.
fn owned_program_and_link_ids(pid: u32) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let mut programs = BTreeSet::new();
    let mut links = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) else {
        return (programs, links);
    };
    for entry in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        for line in text.lines() {
            let mut parts = line.split(':');
            let (Some(key), Some(value)) = (parts.next(), parts.next()) else {
                continue;
            };
            let Ok(id) = value.trim().parse::<u32>() else {
                continue;
            };
            match key {
                "prog_id" => {
                    programs.insert(id);
                }
                "link_id" => {
                    links.insert(id);
                }
                _ => {}
            }
        }
    }
    (programs, links)
}

#[test]
fn kill_dash_nine_leaves_no_program_or_link() {
    if DTRACE.must_skip() {
        return;
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(["-n", "syscall::getppid:entry { @ = count(); }"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let pid = child.id();
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut first_line = String::new();
    let _ = stderr.read_line(&mut first_line);
    // Keep draining stderr so that dtrace never blocks on a full pipe.
    let drainer = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
    });
    // The `matched` message comes before the programs are attached, so wait until the
    // process holds programs and its set of programs and links has stopped changing.
    let started = Instant::now();
    let (mut programs, mut links) = owned_program_and_link_ids(pid);
    while started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(200));
        let now = owned_program_and_link_ids(pid);
        if !programs.is_empty() && now == (programs.clone(), links.clone()) {
            break;
        }
        (programs, links) = now;
    }
    // SAFETY: pid names our own child, which has not been reaped yet.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
    let _ = child.wait();
    let _ = drainer.join();
    assert!(
        first_line.contains("matched 1 probe"),
        "dtrace did not start: {first_line:?}"
    );
    assert!(
        !programs.is_empty(),
        "dtrace held no BPF program while tracing"
    );
    // Programs and links are freed after an RCU grace period, so allow a short while.
    let started = Instant::now();
    let (mut remaining_programs, mut remaining_links);
    loop {
        let loaded = kernel_object_ids(BPF_PROG_GET_NEXT_ID);
        let attached = kernel_object_ids(BPF_LINK_GET_NEXT_ID);
        remaining_programs = programs.intersection(&loaded).copied().collect::<Vec<_>>();
        remaining_links = links.intersection(&attached).copied().collect::<Vec<_>>();
        if (remaining_programs.is_empty() && remaining_links.is_empty())
            || started.elapsed() > Duration::from_secs(5)
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        remaining_programs.is_empty() && remaining_links.is_empty(),
        "after kill -9: programs {remaining_programs:?} and links {remaining_links:?} remain"
    );
}

#[test]
fn per_cpu_sequence_numbers_have_no_duplicates_and_no_uncounted_gaps() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run_with_load(
        "integrity",
        TWO_PROCESS_GETPPID_LOAD,
        "150000",
        &[
        "-q",
        "-n",
        "profile-4999, syscall::getppid:entry { seq[cpu]++; printf(\"%d %d\\n\", cpu, seq[cpu]); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let mut last_sequence: BTreeMap<u32, u64> = BTreeMap::new();
    let mut gaps: BTreeMap<u32, u64> = BTreeMap::new();
    let mut problems = Vec::new();
    for (index, line) in outcome.stdout.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let parsed = match fields.as_slice() {
            [cpu, sequence] => cpu.parse::<u32>().ok().zip(sequence.parse::<u64>().ok()),
            _ => None,
        };
        let Some((cpu, sequence)) = parsed else {
            problems.push(format!("line {}: torn record {line:?}", index + 1));
            continue;
        };
        let previous = last_sequence.get(&cpu).copied().unwrap_or(0);
        if sequence <= previous {
            problems.push(format!(
                "line {}: CPU {cpu} sequence {sequence} after {previous}",
                index + 1
            ));
            continue;
        }
        *gaps.entry(cpu).or_insert(0) += sequence - previous - 1;
        last_sequence.insert(cpu, sequence);
    }
    let drops = drops_per_cpu(&outcome.stderr);
    for (cpu, gap) in &gaps {
        let dropped = drops.get(cpu).copied().unwrap_or(0);
        if *gap > dropped {
            problems.push(format!(
                "CPU {cpu}: {gap} missing sequence numbers but only {dropped} drops reported"
            ));
        }
    }
    assert!(
        !last_sequence.is_empty(),
        "no records; stderr {:?}",
        outcome.stderr
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn fbt_on_a_kernel_without_kprobes_says_what_is_missing() {
    if DTRACE.must_skip() {
        return;
    }
    if std::path::Path::new("/sys/bus/event_source/devices/kprobe").exists() {
        println!("skipping: this kernel has kprobes, so fbt probes attach");
        return;
    }
    let outcome = DTRACE.run(&["-q", "-n", "fbt::vfs_read:entry { @ = count(); }"]);
    assert_eq!(outcome.status, Some(1), "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stderr.trim_end(),
        "dtrace: could not enable tracing: enabling fbt:vmlinux:vfs_read:entry: finding the \
         kprobe PMU: this kernel has no kprobes (it is built without CONFIG_KPROBES), which \
         fbt probes need"
    );
}

/// A record goes to the principal buffer as one perf sample, whose size must fit 16 bits:
/// a clause recording more (here 260 strings of 256 bytes) cannot be enabled, and dtrace
/// says so as DTrace does of a record larger than its buffer.
#[test]
fn record_longer_than_a_perf_sample_is_refused_when_enabling() {
    if DTRACE.must_skip() {
        return;
    }
    let clause = "printf(\"%s\", \"x\"); ".repeat(260);
    let program = format!("BEGIN {{ {clause} exit(0); }}");
    let outcome = DTRACE.run(&["-q", "-n", &program]);
    assert_eq!(outcome.status, Some(1), "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stderr,
        "dtrace: could not enable tracing: Enabling exceeds size of buffer\n"
    );
}
