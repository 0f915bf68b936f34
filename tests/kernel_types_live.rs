//! Live tests of the kernel's types and variables on the kernel engine: `curthread`
//! walked through the running kernel's BTF (`comm`, `pid`, `real_parent->tgid`, nested
//! members), casts to kernel types, kernel typedefs and enumerators, per-CPU kernel
//! variables (`` `cpu_number ``), the messages for unknown and unreadable symbols, and
//! the user-space engine's refusal to read kernel memory.
//!
//! These tests trace the running machine, so each one first checks that it may (root,
//! a working dtrace, the kernel's BTF) and otherwise prints `skipping: <reason>` and
//! passes.

mod common;

use std::time::Duration;

use common::live::{LiveDtrace, LiveOutcome};

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

/// True (after printing why) when the test must not run.
fn must_skip() -> bool {
    DTRACE.must_skip_without_kernel_types()
}

fn succeeded(outcome: &LiveOutcome) -> &str {
    assert_eq!(
        outcome.status,
        Some(0),
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
    outcome.stdout.trim()
}

#[test]
fn curthread_is_the_kernels_task_struct() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "BEGIN { printf(\"%s %d %d %d\\n\", stringof(curthread->comm), \
         curthread->pid == $pid, curthread->real_parent->tgid, curthread->tgid == pid); \
         exit(0); }",
    ]);
    let line = succeeded(&outcome);
    let fields: Vec<&str> = line.split(' ').collect();
    assert_eq!(fields.len(), 4, "{line}");
    assert_eq!(fields[0], "dtrace", "{line}");
    assert_eq!(fields[1], "1", "{line}");
    // The test process started dtrace, so it is dtrace's parent.
    assert_eq!(fields[2], std::process::id().to_string(), "{line}");
    assert_eq!(fields[3], "1", "{line}");
}

#[test]
fn casts_typedefs_enumerators_and_nested_members_come_from_btf() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "BEGIN { this->t = (struct task_struct *)curthread; \
         printf(\"%d %d %d %d %d\\n\", this->t->pid == pid, sizeof (u64), TASK_COMM_LEN, \
         sizeof (struct vmlinux`task_struct) > 1000, \
         curthread->se.cfs_rq->rq->cpu == cpu); exit(0); }",
    ]);
    assert_eq!(succeeded(&outcome), "1 8 16 1 1");
}

#[test]
fn per_cpu_kernel_variables_read_this_cpus_instance() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "BEGIN { printf(\"%d %d\\n\", `cpu_number == cpu, vmlinux`cpu_number == cpu); \
         exit(0); }",
    ]);
    assert_eq!(succeeded(&outcome), "1 1");
    // On every CPU, as profile probes fire there.
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "profile-199 { @[`cpu_number == cpu] = count(); } tick-1s { exit(0); } \
         END { printa(\"%d\\n\", @); }",
    ]);
    let output = succeeded(&outcome).to_string();
    let lines: Vec<&str> = output.lines().map(str::trim).collect();
    assert_eq!(lines.first(), Some(&"1"), "{output}");
}

#[test]
fn unknown_and_unreadable_symbols_are_compile_errors() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&["-n", "BEGIN { trace(`no_such_symbol_here); }"]);
    assert_eq!(outcome.status, Some(1));
    assert!(
        outcome
            .stderr
            .contains("failed to resolve `no_such_symbol_here: Unknown symbol name"),
        "{}",
        outcome.stderr
    );
    let outcome = DTRACE.run(&["-n", "BEGIN { trace(`schedule); }"]);
    assert_eq!(outcome.status, Some(1));
    assert!(
        outcome.stderr.contains("failed to resolve `schedule:"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn the_vm_engine_refuses_kernel_type_reads() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-x",
        "engine=vm",
        "-n",
        "BEGIN { trace(curthread->pid); exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(1), "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains(
            "could not enable tracing: the vm engine cannot read kernel memory; \
             reading struct task_struct needs the kernel engine"
        ),
        "{}",
        outcome.stderr
    );
}

/// `*curpsinfo` is the translated `psinfo_t` (dt_cook_op1()): its members are the
/// translator's, as through `->`.
#[test]
fn dereferenced_translated_pointer_is_the_translated_struct() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "BEGIN { printf(\"%d %d\\n\", (*curpsinfo).pr_pid == pid, \
         (*curpsinfo).pr_ppid == curpsinfo->pr_ppid); exit(0); }",
    ]);
    assert_eq!(succeeded(&outcome), "1 1");
}

/// The `-v` report's statement attributes: `curthread`'s data semantics are Private,
/// while the library's `curpsinfo`, which reads `curthread` through a translator, is
/// one of DTrace's Stable built-ins; `args[]` has its provider's argument attributes.
#[test]
fn statement_attributes_of_kernel_data() {
    if must_skip() {
        return;
    }
    let statement_attributes = |program: &str| {
        let outcome = DTRACE.run(&["-q", "-v", "-n", program]);
        let report = succeeded(&outcome);
        let at = report
            .find("Minimum Statement Attributes")
            .unwrap_or_else(|| panic!("no statement attributes in {report}"));
        report[at..]
            .lines()
            .skip(1)
            .take(3)
            .map(|line| line.trim().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        statement_attributes("BEGIN { trace(curthread->pid > 0); exit(0); }"),
        [
            "Identifier Names: Stable",
            "Data Semantics:   Private",
            "Dependency Class: Common"
        ]
    );
    assert_eq!(
        statement_attributes("BEGIN { trace(curpsinfo->pr_pid > 0); exit(0); }"),
        [
            "Identifier Names: Stable",
            "Data Semantics:   Stable",
            "Dependency Class: Common"
        ]
    );
    assert_eq!(
        statement_attributes("syscall::read:entry { trace(args[0]); exit(0); }"),
        [
            "Identifier Names: Private",
            "Data Semantics:   Private",
            "Dependency Class: ISA"
        ]
    );
}
