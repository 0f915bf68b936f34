//! Live tests of the kernel engine's probes interrupting one another on a CPU: a
//! `profile`/`tick` probe firing in a hard interrupt while a `syscall` probe's program
//! runs has a work area of its own, so DTrace's output (exact counts, no drops) is ours.
//!
//! These tests trace the running machine, so each one first checks that it may (root, a
//! Python for the load and a working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise
//! prints `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::{LiveDtrace, GETPPID_LOAD};

/// Any single dtrace run may take 60 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(60));

/// The getppid() calls of the load: a second or two of a busy syscall probe, during which
/// `profile-4999` and `tick-1ms` interrupt it thousands of times on every CPU.
const CALLS: u64 = 2_000_000;

/// The value printed for aggregation `name` by `printa("name %@d\n", @name)`.
fn printed_count(stdout: &str, name: &str) -> Option<u64> {
    stdout.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some(name))
            .then(|| words.next()?.parse().ok())
            .flatten()
    })
}

#[test]
fn timer_probes_interrupting_a_busy_syscall_probe_drop_nothing() {
    if DTRACE.must_skip() {
        return;
    }
    let program = "
        syscall:::entry { @all[probefunc] = count(); }
        syscall::getppid:entry /pid == $target/ { @calls = count(); }
        profile-4999 { @profile = count(); }
        tick-1ms { @ticks = count(); }
        END {
            printa(\"calls %@d\\n\", @calls);
            printa(\"profile %@d\\n\", @profile);
            printa(\"ticks %@d\\n\", @ticks);
        }";
    let outcome = DTRACE.run_with_load(
        "timer_probes_interrupting",
        GETPPID_LOAD,
        &CALLS.to_string(),
        &["-q", "-n", program],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert!(
        !outcome.stderr.contains("drop"),
        "no probe may be dropped; stderr {:?}",
        outcome.stderr
    );
    assert_eq!(
        printed_count(&outcome.stdout, "calls"),
        Some(CALLS),
        "every getppid call counted; stdout {:?}",
        outcome.stdout
    );
    // The timer probes really ran alongside (so the test exercised the nesting).
    for timer in ["profile", "ticks"] {
        let fired = printed_count(&outcome.stdout, timer).unwrap_or(0);
        assert!(
            fired > 100,
            "{timer} fired {fired} times; {:?}",
            outcome.stdout
        );
    }
}

/// The program: a clause on every system call and a `tick-1ms` clause that ends
/// the run, as DTrace runs it without a drop.
#[test]
fn syscall_entry_with_a_tick_that_exits_prints_no_drops() {
    if DTRACE.must_skip() {
        return;
    }
    let program = "
        syscall:::entry { @[probefunc] = count(); }
        profile-4999 { @profile = count(); }
        tick-1ms /i++ == 1000/ { exit(0); }";
    let outcome = DTRACE.run_with_load(
        "syscall_entry_with_a_tick",
        GETPPID_LOAD,
        &(4 * CALLS).to_string(),
        &["-q", "-n", program],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert_eq!(outcome.stderr, "", "no drops and no other complaint");
    assert!(
        outcome.stdout.contains("getppid"),
        "stdout {:?}",
        outcome.stdout
    );
}
