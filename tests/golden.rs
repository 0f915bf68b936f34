//! The golden corpus: every `tests/golden/NAME.d` runs with `dtrace -x engine=vm`, the
//! options its first line names (`/* options: -q -x strsize=16 */`) and `-s NAME.d`,
//! and must print exactly `NAME.out` on stdout, exactly `NAME.err` on stderr (nothing
//! when there is no such file) and exit with the status in `NAME.status` (0 when there
//! is no such file). Expected outputs are derived from D-REFERENCE.md, not copied from
//! what dtrace prints. dtrace runs bound to CPU 0, so the `CPU` column of non-quiet output
//! is 0.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{compare, options_of, programs_in, run_dtrace, Outcome};

fn read_or_empty(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_default()
}

fn expected_outcome(directory: &Path, name: &str) -> Outcome {
    let status = std::fs::read_to_string(directory.join(format!("{name}.status")))
        .map(|text| {
            text.trim()
                .parse()
                .unwrap_or_else(|_| panic!("{name}.status: not a number: {text:?}"))
        })
        .unwrap_or(0);
    Outcome {
        stdout: read_or_empty(&directory.join(format!("{name}.out"))),
        stderr: read_or_empty(&directory.join(format!("{name}.err"))),
        status,
    }
}

/// How long one program may run; the corpus programs all end with `exit()` at once, so
/// a program still running after this is a hang.
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// Runs `NAME.d` on the vm engine, or explains why it could not be run to completion.
fn run_program(directory: &Path, name: &str, options: &[String]) -> Result<Outcome, String> {
    let mut arguments = vec!["-x".to_string(), "engine=vm".to_string()];
    arguments.extend(options.iter().cloned());
    arguments.extend(["-s".to_string(), format!("{name}.d")]);
    Ok(run_dtrace(directory, &arguments, TIME_LIMIT)?.outcome)
}

#[test]
fn golden_programs_print_exactly_their_expected_output() {
    let directory = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let names = programs_in(&directory);
    assert!(
        names.len() >= 60,
        "tests/golden/ holds {} programs, want at least 60",
        names.len()
    );
    let mut failures = Vec::new();
    for name in &names {
        let source = std::fs::read_to_string(directory.join(format!("{name}.d")))
            .unwrap_or_else(|error| panic!("{name}.d: {error}"));
        let expected = expected_outcome(&directory, name);
        match run_program(&directory, name, &options_of(&source)) {
            Ok(actual) => {
                if let Some(report) = compare(name, &expected, &actual) {
                    failures.push(report);
                }
            }
            Err(problem) => failures.push(format!("==== {name}\n{problem}\n")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden programs differ:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
