//! Engine agreement: every golden program (with the options its first line names) and
//! every example (with no operands) that runs to completion on `-x engine=vm` must print
//! the same stdout and stderr and exit with the same status on `-x engine=kernel`. Two
//! things legitimately differ between two runs and are masked before comparing: the pid
//! of the dtrace process (BEGIN and END fire in it) and `%Y` wall-clock dates.
//! Needs root (the kernel engine); skips with a reason otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{compare, options_of, programs_in, run_dtrace, Outcome};

const TIME_LIMIT: Duration = Duration::from_secs(30);

/// The words `%Y` prints for a month.
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Replaces each `YYYY Mon DD HH:MM:SS` (what `%Y` prints) with `<date>`.
fn mask_dates(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut masked = String::with_capacity(text.len());
    let mut index = 0;
    while index < bytes.len() {
        let candidate = &bytes[index..];
        let digits = |range: std::ops::Range<usize>| {
            candidate.len() >= range.end && candidate[range].iter().all(u8::is_ascii_digit)
        };
        let is_date = candidate.len() >= 20
            && digits(0..4)
            && candidate[4] == b' '
            && MONTHS
                .iter()
                .any(|month| &candidate[5..8] == month.as_bytes())
            && candidate[8] == b' '
            && digits(9..11)
            && candidate[11] == b' '
            && digits(12..14)
            && candidate[14] == b':'
            && digits(15..17)
            && candidate[17] == b':'
            && digits(18..20);
        if is_date {
            masked.push_str("<date>");
            index += 20;
        } else {
            let character = text[index..].chars().next().expect("in bounds");
            masked.push(character);
            index += character.len_utf8();
        }
    }
    masked
}

/// Replaces `pid` where it stands as a whole number with `<dtrace pid>`.
fn mask_pid(text: &str, pid: u32) -> String {
    let pid = pid.to_string();
    let mut masked = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(position) = rest.find(&pid) {
        let before = rest[..position].chars().next_back();
        let after = rest[position + pid.len()..].chars().next();
        let whole = !before.is_some_and(|c| c.is_ascii_digit())
            && !after.is_some_and(|c| c.is_ascii_digit());
        masked.push_str(&rest[..position]);
        masked.push_str(if whole { "<dtrace pid>" } else { &pid });
        rest = &rest[position + pid.len()..];
    }
    masked.push_str(rest);
    masked
}

fn masked(outcome: Outcome, pid: u32) -> Outcome {
    let mask =
        |bytes: Vec<u8>| mask_pid(&mask_dates(&String::from_utf8_lossy(&bytes)), pid).into_bytes();
    Outcome {
        stdout: mask(outcome.stdout),
        stderr: mask(outcome.stderr),
        status: outcome.status,
    }
}

/// Runs `NAME.d` in `directory` on `engine` with `options`.
fn run_on(
    directory: &Path,
    name: &str,
    options: &[String],
    engine: &str,
) -> Result<Outcome, String> {
    let mut arguments = vec!["-x".to_string(), format!("engine={engine}")];
    arguments.extend(options.iter().cloned());
    arguments.extend(["-s".to_string(), format!("{name}.d")]);
    let run = run_dtrace(directory, &arguments, TIME_LIMIT)?;
    Ok(masked(run.outcome, run.pid))
}

/// Whether the vm engine refused the program because its probes need the kernel.
fn needs_the_kernel(outcome: &Outcome) -> bool {
    String::from_utf8_lossy(&outcome.stderr).contains("needs the kernel engine")
}

/// Compares the engines on every program of `directory` that the vm engine runs; the
/// number of programs compared and the reports of those that differ.
fn agreement_in(directory: &Path, with_options: bool) -> (usize, Vec<String>) {
    let mut compared = 0;
    let mut failures = Vec::new();
    for name in programs_in(directory) {
        let source = std::fs::read_to_string(directory.join(format!("{name}.d")))
            .unwrap_or_else(|error| panic!("{name}.d: {error}"));
        let options = if with_options {
            options_of(&source)
        } else {
            Vec::new()
        };
        let expected = match run_on(directory, &name, &options, "vm") {
            Ok(outcome) if needs_the_kernel(&outcome) => continue,
            // Examples that need operands or a running process do not run on their own.
            Ok(outcome) if !with_options && outcome.status != 0 => continue,
            Ok(outcome) => outcome,
            Err(problem) => {
                failures.push(format!("==== {name} (vm)\n{problem}\n"));
                continue;
            }
        };
        compared += 1;
        match run_on(directory, &name, &options, "kernel") {
            Ok(actual) => failures.extend(compare(&name, &expected, &actual)),
            Err(problem) => failures.push(format!("==== {name} (kernel)\n{problem}\n")),
        }
    }
    (compared, failures)
}

fn kernel_engine_available() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn golden_programs_and_examples_print_the_same_on_both_engines() {
    if !kernel_engine_available() {
        eprintln!("skipping engine agreement: the kernel engine needs root");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (golden, mut failures) = agreement_in(&root.join("tests/golden"), true);
    let (examples, example_failures) = agreement_in(&root.join("examples"), false);
    failures.extend(example_failures);
    eprintln!("compared {golden} golden programs and {examples} examples on both engines");
    // Guard against the comparison quietly shrinking: these many run on the vm engine
    // today (every golden program; hello, error_probe, printf_conversions and
    // string_functions among the examples).
    assert!(
        golden >= 90,
        "only {golden} golden programs ran on the vm engine"
    );
    assert!(
        examples >= 4,
        "only {examples} examples ran on the vm engine"
    );
    assert!(
        failures.is_empty(),
        "{} programs differ between the engines (vm expected, kernel actual):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn masking_hides_only_pids_and_dates() {
    assert_eq!(
        mask_dates("at 2026 Nov 22 11:28:36 (x) 2026 Nov 2"),
        "at <date> (x) 2026 Nov 2"
    );
    assert_eq!(
        mask_pid("pid 1234, 12345 and 1234\n", 1234),
        "pid <dtrace pid>, 12345 and <dtrace pid>\n"
    );
}
