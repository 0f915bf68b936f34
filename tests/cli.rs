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
    assert_eq!(outcome.status, 1);
    assert_eq!(
        outcome.stderr,
        "dtrace: invalid probe specifier BEGIN { x = 1 / 0; }: [D_DIV_ZERO] in action list: expression contains division by zero\n"
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
    assert_eq!(outcome.status, 2);
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
