//! Live tests of pointers and memory on the kernel engine in probes only it can run
//! (system calls, profile ticks): `(string)copyin()`, `copyinto()` into `alloca()`
//! memory, and pointers to global variables and scalar-array elements. Each test first
//! checks that it may trace (root and a working dtrace) and otherwise prints
//! `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::{LiveDtrace, ScratchDirectory};

const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

#[test]
fn copied_in_user_memory_reads_as_a_string() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-c",
        "/bin/echo hello",
        "-n",
        "syscall::write:entry /pid == $target/ {
            p = (char *)alloca(8);
            copyinto(arg1, 5, p);
            printf(\"[%s] [%s]\\n\", (string)copyin(arg1, 5), stringof(p));
            exit(0);
        }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert!(
        outcome.stdout.contains("[hello] [hello]\n"),
        "stdout {:?}, stderr {:?}",
        outcome.stdout,
        outcome.stderr
    );
}

#[test]
fn pointers_to_globals_and_array_elements_work_in_a_profile_probe() {
    if DTRACE.must_skip() {
        return;
    }
    let directory = ScratchDirectory::new("pointers_profile");
    let script = directory.write(
        "pointers.d",
        "int a[4];
        int v;

        profile:::tick-1ms
        {
            p = &a[1];
            *p = 5;
            p[1] = 6;
            q = a;
            ip = &v;
            *ip = q[1] + q[2];
            printf(\"%d %d %d %d\\n\", a[1], a[2], v, &a[2] - q);
            exit(0);
        }
        ",
    );
    let outcome = DTRACE.run(&["-q", "-s", script.to_str().unwrap()]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert_eq!(outcome.stdout, "5 6 11 2\n\n", "stderr: {}", outcome.stderr);
}
