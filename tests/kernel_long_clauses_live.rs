//! Live tests of long string-heavy clauses on the kernel engine: the kernel's verifier
//! must accept, in reasonable time, a clause of hundreds of string dynamic-variable round
//! trips or of `index()` calls, and the program must print what the clause says. Each
//! test first checks that it may trace (root and a working dtrace) and otherwise prints
//! `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::LiveDtrace;

const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(120));

#[test]
fn a_clause_of_two_hundred_string_round_trips_loads_and_prints_them() {
    if DTRACE.must_skip() {
        return;
    }
    let statements: String = (0..200)
        .map(|index| {
            format!(
                "s[\"k{}\"] = \"v{index}\"; self->s = s[\"k{}\"]; printf(\"%s\\n\", self->s);\n",
                index % 7,
                index % 7
            )
        })
        .collect();
    let program = format!("BEGIN {{\n{statements}exit(0);\n}}");
    let outcome = DTRACE.run(&["-q", "-n", &program]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let expected: String = (0..200).map(|index| format!("v{index}\n")).collect();
    assert_eq!(
        outcome.stdout,
        format!("{expected}\n"),
        "stderr: {}",
        outcome.stderr
    );
}

#[test]
fn a_clause_of_three_hundred_index_calls_loads_and_computes_them() {
    if DTRACE.must_skip() {
        return;
    }
    let statements: String = (0..300)
        .map(|index| {
            format!(
                "n += index(\"needle in a haystack\", \"{}\");\n",
                ["hay", "in", "zz"][index % 3]
            )
        })
        .collect();
    let program = format!("BEGIN {{\nn = 0;\n{statements}printf(\"%d\\n\", n);\nexit(0);\n}}");
    let outcome = DTRACE.run(&["-q", "-n", &program]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    // hay at 12, in at 7, zz absent (−1): 100 of each.
    assert_eq!(outcome.stdout, format!("{}\n\n", 100 * (12 + 7 - 1)));
}
