//! Live tests of USDT probes' arguments on the kernel engine: `argN` is where the
//! probe's `stapsdt` note says the program put it (a register or memory the note names),
//! not the calling convention's registers, which a probe in the middle of a function
//! does not follow. Python's `function-entry` (`8@%rbp 8@%r12 -4@%eax` in Debian's
//! interpreter) gives the file name, the function name and the line.
//!
//! These tests trace the running machine, so each one first checks that it may (root, a
//! working dtrace, a Python) and otherwise prints `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::{python_interpreter, LiveDtrace, ScratchDirectory};

const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(60));

/// Every `function-entry` of the interpreter's start-up (Python 3.11 fires it for the
/// frames its C code enters, such as the frozen modules' generator expressions) names a
/// file, a function and a line: before the note's places were read, `arg1` was a line
/// number and every `copyinstr(arg1)` an invalid address.
#[test]
fn python_function_entry_arguments_are_the_notes() {
    if DTRACE.must_skip() {
        return;
    }
    let python = python_interpreter().expect("checked by must_skip");
    let scratch = ScratchDirectory::new("usdt_python");
    let script = scratch.write("start.py", "pass\n");
    let command = format!("{python} {}", script.display());
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"python$target:::function-entry {
               printf("[%s] [%s] %d\n", copyinstr(arg0), copyinstr(arg1), arg2);
           }"#,
        "-c",
        &command,
    ]);
    if outcome.stderr.contains("does not match any probes") {
        println!("skipping: {python} has no USDT probes");
        return;
    }
    assert_eq!(outcome.status, Some(0), "{}", outcome.stderr);
    assert!(outcome.stderr.is_empty(), "stderr: {}", outcome.stderr);
    let firings: Vec<&str> = outcome
        .stdout
        .lines()
        .filter(|line| !line.is_empty())
        .collect();
    assert!(!firings.is_empty(), "stdout: {}", outcome.stdout);
    for firing in firings {
        let (names, line) = firing.rsplit_once(' ').expect("three fields");
        assert!(
            names.starts_with("[") && !names.contains("[]") && line.parse::<u32>().unwrap() > 0,
            "{firing}"
        );
    }
}
