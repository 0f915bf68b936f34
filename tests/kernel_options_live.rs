//! Live tests of options whose handling is particular to the kernel engine: a `strsize`
//! beyond what the kernel engine lays out is DTrace's invalid-value message (not the
//! layout's own), and `rawbytes` dumps a traced string's whole record as on the
//! user-space engine; `cpu` traces on that CPU only (the tick and profile probes' events
//! go there, other CPUs' firings record nothing); under `bufresize=manual` a buffer the
//! kernel cannot give whole is a failure to enable tracing. Each test skips with a
//! one-line reason without root and a working kernel engine.

mod common;

use std::time::Duration;

use common::live::LiveDtrace;

const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

#[test]
fn strsize_beyond_the_kernel_engines_limit_is_an_invalid_value() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-x",
        "strsize=1m",
        "-n",
        "BEGIN { trace(\"x\"); exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(1), "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stderr,
        "dtrace: could not enable tracing: Invalid value for specified option\n"
    );
}

#[test]
fn strsize_of_one_is_refused_when_set() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&["-q", "-x", "strsize=1", "-n", "BEGIN { exit(0); }"]);
    assert_eq!(outcome.status, Some(1), "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stderr,
        "dtrace: failed to set -x strsize: Invalid value for specified option\n"
    );
}

#[test]
fn rawbytes_dumps_a_traced_strings_whole_record() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-x",
        "rawbytes",
        "-x",
        "strsize=18",
        "-n",
        "BEGIN { trace(\"hello, world\"); exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stdout,
        "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n         \
         0: 68 65 6c 6c 6f 2c 20 77 6f 72 6c 64 00 00 00 00  hello, world....\n        \
         10: 00 00                                            ..\n\n"
    );
}

#[test]
fn cpu_option_traces_on_that_cpu_only() {
    if DTRACE.must_skip() {
        return;
    }
    // dtrace itself runs bound to CPU 0; the probes fire on CPU 1 alone, tick-N too
    // (else its exit() would never be traced), and system calls on CPU 0 (dtrace's own)
    // are not counted.
    let outcome = DTRACE.run(&[
        "-q",
        "-x",
        "cpu=1",
        "-n",
        "syscall:::entry { @[cpu] = count(); }",
        "-n",
        "tick-200ms { printf(\"tick on %d\\n\", cpu); exit(0); }",
        "-n",
        "END { printa(\"counted on %d\\n\", @); }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stdout, "tick on 1\ncounted on 1\n\n",
        "stderr: {}",
        outcome.stderr
    );
}

#[test]
fn manual_bufresize_refuses_a_buffer_the_kernel_cannot_give() {
    if DTRACE.must_skip() {
        return;
    }
    // Perf rings of twice 4g per CPU are more than the kernel gives: under `auto` the
    // size is lowered with a notice, under `manual` enabling fails.
    let program = "BEGIN { exit(0); }";
    let auto = DTRACE.run(&["-x", "bufsize=4g", "-n", program]);
    assert_eq!(auto.status, Some(0), "stderr: {}", auto.stderr);
    assert!(
        auto.stderr.contains("dtrace: buffer size lowered to "),
        "stderr: {}",
        auto.stderr
    );
    let manual = DTRACE.run(&[
        "-q",
        "-x",
        "bufsize=4g",
        "-x",
        "bufresize=manual",
        "-n",
        program,
    ]);
    assert_eq!(manual.status, Some(1), "stderr: {}", manual.stderr);
    assert_eq!(
        manual.stderr,
        "dtrace: could not enable tracing: Cannot allocate memory\n"
    );
}
