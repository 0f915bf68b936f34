//! Live tests of long string-heavy clauses on the kernel engine: the kernel's verifier
//! must accept, in reasonable time, a clause of hundreds of string dynamic-variable round
//! trips or of a thousand `index()` calls (which once exceeded its limit of a million
//! instructions), and the program must print what the clause says. Each
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
fn a_clause_of_eleven_hundred_index_calls_loads_and_computes_them() {
    if DTRACE.must_skip() {
        return;
    }
    // Each substring with where index() finds it in "needle in a haystack".
    let searches = [("hay", 12), ("in", 7), ("zz", -1)];
    let calls = 1100;
    let statements: String = (0..calls)
        .map(|index| {
            let (substring, _) = searches[index % searches.len()];
            format!("n += index(\"needle in a haystack\", \"{substring}\");\n")
        })
        .collect();
    let program = format!("BEGIN {{\nn = 0;\n{statements}printf(\"%d\\n\", n);\nexit(0);\n}}");
    let outcome = DTRACE.run(&["-q", "-n", &program]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let expected: i64 = (0..calls)
        .map(|index| searches[index % searches.len()].1)
        .sum();
    assert_eq!(outcome.stdout, format!("{expected}\n\n"));
}
