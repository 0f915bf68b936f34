//! Live test of `uregs[]` indexed by regs.d's register names on the kernel engine: at a
//! system call's entry the user registers hold the call's number and first argument.
//!
//! It traces the running machine, so it first checks that it may (root and a working
//! dtrace) and otherwise prints `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::LiveDtrace;

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

#[test]
fn user_registers_by_name_hold_the_system_call_and_its_argument() {
    if DTRACE.must_skip() {
        return;
    }
    // false(1) ends with exit_group(1): system call 231 on x86_64, its first argument in
    // %rdi, and a program counter and stack pointer in user space.
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"syscall::exit_group:entry /pid == $target/
           { printf("%d %d %d\n", uregs[R_RDI], uregs[R_ORIG_RAX],
                    uregs[R_PC] != 0 && uregs[R_SP] != 0 && uregs[R_PC] < 0x800000000000); }"#,
        "-c",
        "/bin/false",
    ]);
    assert_eq!(
        outcome.status,
        Some(0),
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
    assert!(
        outcome.stdout.lines().any(|line| line == "1 231 1"),
        "stdout: {:?}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
}
