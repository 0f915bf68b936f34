//! Live tests of the rawtp provider on the kernel engine: raw tracepoint arguments typed
//! from the kernel's BTF (`sched_switch`'s tasks, `sched_process_exec`'s task, pid and
//! `struct linux_binprm *`), `argN` as the raw 64-bit arguments, and the typed listing.
//!
//! These tests trace the running machine, so each one first checks that it may (root, a
//! working dtrace, and the raw tracepoint in the kernel's BTF) and otherwise prints
//! `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::{LiveDtrace, LiveOutcome};

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

/// True (after printing why) when the test must not run: not root, no working dtrace,
/// or `dtrace -lv` does not list the raw tracepoint `probe` with typed arguments.
/// Otherwise returns false and the listing's argument lines through `listing`.
fn must_skip(probe: &str, listing: &mut Vec<String>) -> bool {
    if DTRACE.must_skip() {
        return true;
    }
    let outcome = DTRACE.run(&["-lv", "-n", probe]);
    *listing = outcome
        .stdout
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with("args["))
        .map(str::to_string)
        .collect();
    if outcome.status != Some(0) || listing.is_empty() {
        println!("skipping: no raw tracepoint {probe} with BTF-typed arguments here");
        return true;
    }
    false
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

fn first_line(outcome: &LiveOutcome) -> &str {
    outcome
        .stdout
        .lines()
        .find(|line| !line.is_empty())
        .unwrap_or_else(|| panic!("no output; stderr: {}", outcome.stderr))
}

#[test]
fn sched_switch_tasks_are_typed_from_btf() {
    let mut listing = Vec::new();
    if must_skip("rawtp:sched::sched_switch", &mut listing) {
        return;
    }
    assert_eq!(listing[0], "args[0]: bool", "{listing:?}");
    assert_eq!(listing[1], "args[1]: struct task_struct *", "{listing:?}");
    assert_eq!(listing[2], "args[2]: struct task_struct *", "{listing:?}");
    // `sleep` switches out while it sleeps, so one of the two tasks is it (once it has
    // exec'd: before, the child is still called dtrace).
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"rawtp:sched::sched_switch
           /(args[1]->pid == $target && stringof(args[1]->comm) == "sleep") ||
            (args[2]->pid == $target && stringof(args[2]->comm) == "sleep")/
           { printf("%s %s %d\n", stringof(args[1]->comm), stringof(args[2]->comm),
                    arg1 == (uint64_t)args[1] && arg2 == (uint64_t)args[2]); exit(0); }"#,
        "-c",
        "/bin/sleep 0.5",
    ]);
    succeeded(&outcome);
    let line = first_line(&outcome);
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words.len(), 3, "{line:?}");
    assert!(
        words[0] == "sleep" || words[1] == "sleep",
        "neither task is sleep: {line:?}"
    );
    assert_eq!(words[2], "1", "argN are the raw arguments: {line:?}");
}

#[test]
fn sched_process_exec_reads_the_task_and_the_binprm() {
    let mut listing = Vec::new();
    if must_skip("rawtp:sched::sched_process_exec", &mut listing) {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"rawtp:sched::sched_process_exec /args[0]->tgid == $target/
           { printf("%s %d %s %d\n", stringof(args[0]->comm), args[1],
                    stringof(args[2]->filename), $target); }"#,
        // The command's own exec happens before tracing starts (it is held at its
        // entry point, as DTrace holds it): env's exec of /bin/true is the one seen.
        "-c",
        "/usr/bin/env /bin/true",
    ]);
    succeeded(&outcome);
    let line = first_line(&outcome);
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words, ["true", words[3], "/bin/true", words[3]], "{line:?}");
}
