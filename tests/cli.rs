//! End-to-end tests of the dtrace command on the user-space engine: options, messages,
//! exit status and exact output.

mod common;

use std::path::Path;
use std::time::Duration;

struct Outcome {
    status: i32,
    stdout: String,
    stderr: String,
}

/// Runs dtrace bound to CPU 0 (BEGIN and END, which fire in the dtrace process, then
/// print CPU 0 in non-quiet output whichever CPU the test would run on).
fn dtrace(args: &[&str]) -> Outcome {
    let arguments: Vec<String> = args.iter().map(|argument| argument.to_string()).collect();
    let run = common::run_dtrace(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &arguments,
        Duration::from_secs(30),
    )
    .expect("run dtrace");
    Outcome {
        status: run.outcome.status,
        stdout: String::from_utf8_lossy(&run.outcome.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&run.outcome.stderr).into_owned(),
    }
}

/// Runs a quiet one-liner on the user-space engine and checks status, stdout, stderr.
fn check(program: &str, status: i32, stdout: &str, stderr: &str) {
    let outcome = dtrace(&["-x", "engine=vm", "-q", "-n", program]);
    assert_eq!(
        (
            outcome.status,
            outcome.stdout.as_str(),
            outcome.stderr.as_str()
        ),
        (status, stdout, stderr),
        "program: {program}"
    );
}

#[test]
fn issue_example_prints_14_ok() {
    let outcome = dtrace(&[
        "-x",
        "engine=vm",
        "-n",
        r#"BEGIN { x = 1 + 2 * 3 << 1; printf("%d %s\n", x, "ok"); exit(0); }"#,
    ]);
    assert_eq!(outcome.status, 0, "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stdout,
        "CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN 14 ok\n\n\n"
    );
    assert_eq!(
        outcome.stderr,
        "dtrace: description 'BEGIN ' matched 1 probe\n"
    );
}

#[test]
fn precedence_promotion_and_strings() {
    check(
        r#"BEGIN { printf("%d\n", 1 + 2 * 3 << 1); exit(0); }"#,
        0,
        "14\n\n",
        "",
    );
    check(
        r#"BEGIN { printf("%d %d\n", 7 / 2, -7 % 3); exit(0); }"#,
        0,
        "3 -1\n\n",
        "",
    );
    check(
        r#"BEGIN { printf("%d\n", 1 ^^ 1 || 0 && 1); exit(0); }"#,
        0,
        "0\n\n",
        "",
    );
    check(
        r#"BEGIN { printf("%d\n", 1 ? 2 : 3 ? 4 : 5); exit(0); }"#,
        0,
        "2\n\n",
        "",
    );
    check(
        r#"BEGIN { x = (char)300; printf("%d\n", x); exit(0); }"#,
        0,
        "44\n\n",
        "",
    );
    check(
        r#"BEGIN { x = (unsigned char)-1; printf("%d\n", x); exit(0); }"#,
        0,
        "255\n\n",
        "",
    );
    check(
        r#"BEGIN { printf("%u\n", (unsigned)-1 + 1); exit(0); }"#,
        0,
        "0\n\n",
        "",
    );
    check(
        r#"BEGIN { printf("%d\n", -1 < 0u); exit(0); }"#,
        0,
        "0\n\n",
        "",
    );
    check(
        r#"BEGIN { printf("%d\n", -1 < 0); exit(0); }"#,
        0,
        "1\n\n",
        "",
    );
    check(
        r#"BEGIN { s = "abc"; printf("%d %d\n", s == "abc", s < "abd"); exit(0); }"#,
        0,
        "1 1\n\n",
        "",
    );
    check(
        r#"BEGIN { printf("%s\n", strjoin("foo", "bar")); exit(0); }"#,
        0,
        "foobar\n\n",
        "",
    );
    check(
        r#"BEGIN { printf("%s|%s\n", substr("hello", 1, 3), substr("hello", -3)); exit(0); }"#,
        0,
        "ell|llo\n\n",
        "",
    );
    check(r#"BEGIN { exit(3); }"#, 3, "\n", "");
}

#[test]
fn compile_errors_use_dtrace_format_and_status_1() {
    check(
        "BEGIN { trace(x); }",
        1,
        "",
        "dtrace: invalid probe specifier BEGIN { trace(x); }: in action list: failed to resolve x: Unknown variable name\n",
    );
    let outcome = dtrace(&[
        "-x",
        "engine=vm",
        "-x",
        "errtags",
        "-n",
        "BEGIN { x = 1 / 0; }",
    ]);
    // DTrace finds a constant zero divisor while parsing, before it labels the
    // regions it checks ("in action list"), so the message has no region.
    assert_eq!(outcome.status, 1);
    assert_eq!(
        outcome.stderr,
        "dtrace: invalid probe specifier BEGIN { x = 1 / 0; }: [D_DIV_ZERO] expression contains division by zero\n"
    );
}

#[test]
fn usage_and_bad_options_exit_2() {
    let outcome = dtrace(&[]);
    assert_eq!(outcome.status, 2);
    assert!(
        outcome.stderr.starts_with("Usage: dtrace [-32|-64]"),
        "{}",
        outcome.stderr
    );
    let outcome = dtrace(&["-z"]);
    assert_eq!(outcome.status, 2);
    assert!(
        outcome
            .stderr
            .starts_with("dtrace: illegal option -- z\nUsage: "),
        "{}",
        outcome.stderr
    );
    let outcome = dtrace(&["-x", "nosuchoption", "-n", "BEGIN"]);
    assert_eq!(outcome.status, 1);
    assert_eq!(
        outcome.stderr,
        "dtrace: failed to set -x nosuchoption: Invalid option name\n"
    );
    let outcome = dtrace(&["-s", "/nonexistent/x.d"]);
    assert_eq!(outcome.status, 1);
    assert_eq!(
        outcome.stderr,
        "dtrace: failed to open /nonexistent/x.d: No such file or directory\n"
    );
}

#[test]
fn version() {
    let outcome = dtrace(&["-V"]);
    assert_eq!(
        (outcome.status, outcome.stdout.as_str()),
        (0, "dtrace: Sun D 1.13\n")
    );
}

/// `freopen(path)` sends all later output (the rest of the record, later records and the
/// aggregation report at exit) to `path`, appending; `freopen("")` brings it back to
/// standard output.
#[test]
fn freopen_redirects_output_and_an_empty_format_restores_it() {
    let scratch = common::live::ScratchDirectory::new("freopen_redirects_output");
    let file = scratch.write("redirected.txt", "already there\n");
    let directory = file.parent().expect("scratch directory");
    let outcome = dtrace(&[
        "-x",
        "engine=vm",
        "-w",
        "-q",
        "-n",
        r#"BEGIN { printf("first\n"); freopen("%s/redirected.txt", $$1); printf("to the file\n"); freopen(""); printf("back\n"); }
           BEGIN { @calls = count(); freopen("%s/redirected.txt", $$1); exit(0); }"#,
        directory.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(
        (
            outcome.status,
            outcome.stdout.as_str(),
            outcome.stderr.as_str()
        ),
        (0, "first\nback\n", "")
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("read redirected output"),
        "already there\nto the file\n\n                1\n"
    );
}

/// The output is bytes: a raw byte in a `freopen()` path names that byte, and a raw byte
/// printed to the file reaches it unchanged.
#[test]
fn freopen_path_and_output_keep_raw_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let scratch = common::live::ScratchDirectory::new("freopen_path_and_output_keep_raw_bytes");
    let marker = scratch.write("marker.txt", "");
    let directory = marker.parent().expect("scratch directory");
    let outcome = dtrace(&[
        "-x",
        "engine=vm",
        "-w",
        "-q",
        "-n",
        r#"BEGIN { freopen("%s/raw\xfb.txt", $$1); printf("x\xfb%c\n", 252); freopen(""); exit(0); }"#,
        directory.to_str().expect("utf-8 path"),
    ]);
    assert_eq!((outcome.status, outcome.stderr.as_str()), (0, ""));
    let path = directory.join(std::ffi::OsStr::from_bytes(b"raw\xfb.txt"));
    assert_eq!(
        std::fs::read(&path).expect("read the file with a raw byte in its name"),
        b"x\xfb\xfc\n"
    );
}

/// A file `freopen()` cannot open is a library error on the enabled probe; tracing goes
/// on with the output it had.
#[test]
fn freopen_of_an_unopenable_file_is_a_library_error() {
    check_destructive(
        r#"BEGIN { freopen("/nonexistent/dir/x"); printf("still here\n"); exit(0); }"#,
        "still here\n\n",
        "dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't freopen() \"/nonexistent/dir/x\": No such file or directory\n",
    );
}

/// `ftruncate()` empties the `-o` file (what it held before the run and what the run
/// wrote before the action) and output goes on at its start.
#[test]
fn ftruncate_empties_the_output_file() {
    let scratch = common::live::ScratchDirectory::new("ftruncate_empties_the_output_file");
    let file = scratch.write("output.txt", "from an earlier run\n");
    let outcome = dtrace(&[
        "-x",
        "engine=vm",
        "-w",
        "-q",
        "-o",
        file.to_str().expect("utf-8 path"),
        "-n",
        r#"BEGIN { printf("before\n"); } BEGIN { printf("same record "); ftruncate(); printf("after\n"); exit(0); }"#,
    ]);
    assert_eq!(
        (
            outcome.status,
            outcome.stdout.as_str(),
            outcome.stderr.as_str()
        ),
        (0, "", "")
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("read output file"),
        "after\n\n"
    );
}

/// Standard output redirected to a file (not for appending) is truncated too, and the
/// output after `ftruncate()` starts at the beginning of the file rather than after a
/// hole; on a pipe `ftruncate()` does nothing.
#[test]
fn ftruncate_empties_standard_output_only_when_it_is_a_file() {
    let program =
        r#"BEGIN { printf("before\n"); } BEGIN { ftruncate(); printf("after\n"); exit(0); }"#;
    let scratch = common::live::ScratchDirectory::new("ftruncate_standard_output");
    let path = scratch.write("stdout.txt", "a much longer line from an earlier run\n");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(["-x", "engine=vm", "-w", "-q", "-n", program])
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&path).expect("create stdout file"))
        .status()
        .expect("run dtrace");
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&path).expect("read stdout file"),
        "after\n\n"
    );
    check_destructive(program, "before\nafter\n\n", "");
}

/// Runs a quiet destructive one-liner (`-w`) on the user-space engine and checks
/// status 0, stdout and stderr.
fn check_destructive(program: &str, stdout: &str, stderr: &str) {
    let outcome = dtrace(&["-x", "engine=vm", "-w", "-q", "-n", program]);
    assert_eq!(
        (
            outcome.status,
            outcome.stdout.as_str(),
            outcome.stderr.as_str()
        ),
        (0, stdout, stderr),
        "program: {program}"
    );
}

/// `dtrace -L dir -e` without programs loads the library directories (as DTrace's
/// `tst.libchain`/`err.circlibdep` tests run it): it exits 0 when they load and 1 with
/// the libraries' error otherwise.
#[test]
fn compile_only_without_programs_loads_the_library_directories() {
    let outcome = dtrace(&["-L", "tests/golden/user_libraries/chain", "-e"]);
    assert_eq!((outcome.status, outcome.stderr.as_str()), (0, ""));
    let outcome = dtrace(&["-L", "tests/golden/user_libraries/cycle", "-e"]);
    assert_eq!(
        (outcome.status, outcome.stderr.as_str()),
        (
            1,
            "dtrace: Cyclic dependency detected: tests/golden/user_libraries/cycle/a.d => \
             tests/golden/user_libraries/cycle/c.d\n"
        )
    );
    let outcome = dtrace(&["-L", "tests/golden/user_libraries/broken", "-e"]);
    assert_eq!(
        (outcome.status, outcome.stderr.as_str()),
        (
            1,
            "dtrace: \"tests/golden/user_libraries/broken/a.d\", line 3: failed to resolve \
             no_such_name: Unknown variable name\n"
        )
    );
}

#[test]
fn setenv_and_unsetenv_shape_the_environment_of_c_commands() {
    let shown = dtrace(&[
        "-x",
        "engine=vm",
        "-q",
        "-x",
        "setenv=DTRACE_TEST_SETENV=set by dtrace",
        "-c",
        "printenv DTRACE_TEST_SETENV",
        "-n",
        "BEGIN {}",
    ]);
    assert_eq!(shown.status, 0, "stderr: {}", shown.stderr);
    assert_eq!(shown.stdout, "set by dtrace\n\n");
    // PATH is in dtrace's environment; unsetenv removes it from the command's.
    let removed = dtrace(&[
        "-x",
        "engine=vm",
        "-q",
        "-x",
        "unsetenv=PATH",
        "-c",
        "/usr/bin/printenv PATH",
        "-n",
        "BEGIN {}",
    ]);
    assert_eq!(removed.status, 0, "stderr: {}", removed.stderr);
    assert_eq!(removed.stdout, "\n");
}

#[test]
fn a_listing_whose_reader_went_away_ends_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(["-l", "-n", "dtrace:::"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run dtrace");
    // The reader closes its end before dtrace writes (`dtrace -l | head -0`).
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait for dtrace");
    assert_eq!((status.code(), stderr.as_str()), (Some(0), ""));
}
