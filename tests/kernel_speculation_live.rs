//! Live test of speculations spread over CPUs on the kernel engine: a speculation that
//! holds data of another CPU than the committing one stays busy after the commit until
//! DTrace's cleaner would have committed that CPU's buffer (`cleanrate`), so a
//! `speculation()` right after the commit fails with the "busy" reason.
//!
//! A `specsize` larger than the programs can address is halved until they can, with
//! dtrace(1)'s `speculation size lowered to` notice.
//!
//! It traces the running machine, so it first checks that it may (root, a working
//! dtrace and a second CPU) and otherwise prints `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::LiveDtrace;

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

#[test]
fn a_commit_of_another_cpus_data_leaves_the_speculation_busy_until_cleaned() {
    if DTRACE.must_skip() {
        return;
    }
    if std::thread::available_parallelism().map_or(1, |cpus| cpus.get()) < 2 {
        println!("skipping: one CPU");
        return;
    }
    // dtrace, and so END, runs on CPU 0; the command exits on CPU 1.
    let outcome = DTRACE.run_on_first_cpu(&[
        "-q",
        "-n",
        r#"BEGIN { s = speculation(); }
           syscall::exit_group:entry /pid == $target/
           {
               speculate(s);
               printf("speculated on CPU %d\n", cpu);
           }
           END { commit(s); }
           END { printf("END on CPU %d: %d\n", cpu, speculation()); }"#,
        "-c",
        "taskset -c 1 true",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr {:?}", outcome.stderr);
    assert_eq!(
        outcome.stdout, "speculated on CPU 1\nEND on CPU 0: 0\n\n",
        "stderr {:?}",
        outcome.stderr
    );
    assert_eq!(
        outcome.stderr,
        "dtrace: 1 failed speculation (available buffer(s) still busy)\n"
    );
}

#[test]
fn a_specsize_too_large_to_address_is_halved_with_dtraces_notice() {
    if DTRACE.must_skip() {
        return;
    }
    let program = r#"BEGIN { s = speculation(); }
                     BEGIN { speculate(s); printf("speculated\n"); }
                     BEGIN { commit(s); }
                     BEGIN { exit(0); }"#;
    let outcome = DTRACE.run(&["-x", "specsize=1g", "-n", program]);
    assert_eq!(outcome.status, Some(0), "stderr {:?}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("\ndtrace: speculation size lowered to 256m\n"),
        "stderr {:?}",
        outcome.stderr
    );
    assert!(
        outcome.stdout.contains(":BEGIN speculated\n"),
        "{:?}",
        outcome.stdout
    );
    // dtrace(1) prints the notice as an error, which quiet does not silence.
    let outcome = DTRACE.run(&["-q", "-x", "specsize=1g", "-n", program]);
    assert_eq!(
        (
            outcome.status,
            outcome.stdout.as_str(),
            outcome.stderr.as_str()
        ),
        (
            Some(0),
            "speculated\n\n",
            "dtrace: speculation size lowered to 256m\n"
        )
    );
    // Under bufresize=manual DTrace's kernel refuses a buffer it cannot give whole.
    let outcome = DTRACE.run(&["-x", "specsize=1g", "-x", "bufresize=manual", "-n", program]);
    assert_eq!(outcome.status, Some(1), "stderr {:?}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .ends_with("dtrace: could not enable tracing: Cannot allocate memory\n"),
        "stderr {:?}",
        outcome.stderr
    );
}
