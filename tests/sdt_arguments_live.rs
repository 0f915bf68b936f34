//! Live tests of sdt probes' arguments on the kernel engine, one per kind of tracepoint
//! field: `char [N]` arrays as strings (sched_switch's task names), a `__data_loc` string
//! (sched_process_exec's file name), signed integers (signal_generate's code), the
//! address `argN` holds for an array field, and block_rq_issue's bytes by command.
//!
//! These tests trace the running machine, so each one first checks that it may (root, a
//! working dtrace, and the tracepoint under tracefs) and otherwise prints
//! `skipping: <reason>` and passes.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

use common::live::{LiveDtrace, LiveOutcome, ScratchDirectory};

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

/// True (after printing why) when the test must not run: not root, no working dtrace,
/// or no tracefs event `group/event`.
fn must_skip(group: &str, event: &str) -> bool {
    if DTRACE.must_skip() {
        return true;
    }
    let found = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"]
        .iter()
        .any(|root| {
            Path::new(root)
                .join("events")
                .join(group)
                .join(event)
                .is_dir()
        });
    if !found {
        println!("skipping: tracefs has no events/{group}/{event}");
    }
    !found
}

fn succeeded(outcome: &LiveOutcome) {
    assert_eq!(
        outcome.status,
        Some(0),
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
}

#[test]
fn sched_switch_task_names_are_strings() {
    if must_skip("sched", "sched_switch") {
        return;
    }
    // `sleep` switches out while it sleeps, so one of the two names is its own.
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"sdt:sched::sched_switch
           /stringof(args[0]) == "sleep" || args[4] == "sleep"/
           { printf("%s -> %s\n", stringof(args[0]), stringof(args[4])); exit(0); }"#,
        "-c",
        "/bin/sleep 0.5",
    ]);
    succeeded(&outcome);
    let line = outcome
        .stdout
        .lines()
        .find(|line| !line.is_empty())
        .unwrap_or_else(|| panic!("no output; stderr: {}", outcome.stderr));
    let (previous, next) = line.split_once(" -> ").expect("an `A -> B` line");
    assert!(
        previous == "sleep" || next == "sleep",
        "neither task is sleep: {line:?}"
    );
    for name in [previous, next] {
        assert!(
            !name.is_empty() && name.len() < 16 && name.chars().all(|c| !c.is_control()),
            "not a task name: {name:?} in {line:?}"
        );
    }
}

#[test]
fn sched_switch_array_arguments_are_addresses_in_the_entry() {
    if must_skip("sched", "sched_switch") {
        return;
    }
    // prev_comm is at offset 8 of the entry and next_comm at 40: their addresses differ
    // by 32, and reading through arg0 gives the same name as args[0].
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"sdt:sched::sched_switch
           { printf("%d %d %d\n", arg0 != 0, arg4 - arg0,
                    stringof((char *)arg0) == stringof(args[0])); exit(0); }"#,
    ]);
    succeeded(&outcome);
    assert!(
        outcome.stdout.lines().any(|line| line == "1 32 1"),
        "stdout: {:?}",
        outcome.stdout
    );
}

#[test]
fn sched_process_exec_file_name_is_a_data_loc_string() {
    if must_skip("sched", "sched_process_exec") {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"sdt:sched::sched_process_exec /args[1] == $target/
           { printf("%s %d %d %d\n", args[0], args[1], args[2], $target); }"#,
        // The command's own exec happens before tracing starts (it is held at its
        // entry point, as DTrace holds it): env's exec of /bin/true is the one seen.
        "-c",
        "/usr/bin/env /bin/true",
    ]);
    succeeded(&outcome);
    let line = outcome
        .stdout
        .lines()
        .find(|line| !line.is_empty())
        .unwrap_or_else(|| panic!("no exec seen; stderr: {}", outcome.stderr));
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words.len(), 4, "{line:?}");
    assert_eq!(words[0], "/bin/true", "{line:?}");
    assert_eq!(words[1], words[3], "pid is the target's: {line:?}");
    assert_eq!(words[2], words[3], "old_pid is the target's: {line:?}");
}

/// Sends itself SIGUSR1 with tgkill (`pthread_kill`), whose si_code is SI_TKILL (-6).
const TGKILL_LOAD: &str = "import signal, threading\n\
signal.signal(signal.SIGUSR1, lambda number, frame: None)\n\
signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)\n";

#[test]
fn signal_generate_integers_keep_their_sign() {
    if must_skip("signal", "signal_generate") {
        return;
    }
    let outcome = DTRACE.run_with_load(
        "signal_generate_integers_keep_their_sign",
        TGKILL_LOAD,
        "",
        &[
            "-q",
            "-n",
            r#"sdt:signal::signal_generate /args[4] == $target && args[0] == 10/
               { printf("%d %d %d %d %d\n", args[0], args[2], arg2, args[2] < 0,
                        args[4] == pid); }"#,
        ],
    );
    succeeded(&outcome);
    assert!(
        outcome.stdout.lines().any(|line| line == "10 -6 -6 1 1"),
        "stdout: {:?}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
}

/// Whether a block device backs the file system holding `path` (its device number is
/// listed under /sys/dev/block).
fn block_device_backs(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    let device = metadata.dev();
    let (major, minor) = (libc::major(device), libc::minor(device));
    Path::new(&format!("/sys/dev/block/{major}:{minor}")).exists()
}

#[test]
fn block_rq_issue_sums_the_bytes_dd_writes() {
    if must_skip("block", "block_rq_issue") {
        return;
    }
    let scratch = ScratchDirectory::new("block_rq_issue_sums_the_bytes_dd_writes");
    let file = scratch.path("written");
    let directory = file.parent().expect("scratch file has a directory");
    if !block_device_backs(directory) {
        println!(
            "skipping: no block device backs the file system of {}",
            directory.display()
        );
        return;
    }
    const WRITTEN: u64 = 4 * 1024 * 1024;
    let command = format!(
        "/bin/dd if=/dev/zero of={} bs=1M count=4 oflag=direct",
        file.display()
    );
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "sdt:block::block_rq_issue { @[stringof(args[6])] = sum(args[3]); }",
        "-c",
        &command,
    ]);
    succeeded(&outcome);
    let dd_bytes: Option<u64> = outcome.stdout.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("dd"), Some(bytes), None) => bytes.parse().ok(),
            _ => None,
        }
    });
    match dd_bytes {
        Some(bytes) => assert!(bytes >= WRITTEN, "dd issued {bytes} bytes, wrote {WRITTEN}"),
        None => panic!(
            "no dd row in the aggregation: {:?}\nstderr: {}",
            outcome.stdout, outcome.stderr
        ),
    }
}

/// Sends one 100-byte UDP datagram to the discard port of 127.0.0.1.
const LOOPBACK_DATAGRAM_LOAD: &str = "import socket\n\
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
s.sendto(b'x' * 100, ('127.0.0.1', 9))\n";

#[test]
fn arguments_past_the_tenth_read_from_the_entry() {
    if must_skip("net", "net_dev_start_xmit") {
        return;
    }
    // net_dev_start_xmit has 17 fields: args[0] is the device name (`__data_loc`),
    // args[8] the length (100 bytes of data, 8 of UDP, 20 of IPv4 and 14 of the
    // loopback's Ethernet header) and args[10] the network header's offset.
    let outcome = DTRACE.run_with_load(
        "arguments_past_the_tenth_read_from_the_entry",
        LOOPBACK_DATAGRAM_LOAD,
        "",
        &[
            "-q",
            "-n",
            r#"sdt:net::net_dev_start_xmit /pid == $target/
               { printf("%s %d %d\n", args[0], args[8], args[10]); exit(0); }"#,
        ],
    );
    succeeded(&outcome);
    assert!(
        outcome.stdout.lines().any(|line| line == "lo 142 14"),
        "stdout: {:?}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
}
