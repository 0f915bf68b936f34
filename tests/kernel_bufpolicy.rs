//! End-to-end tests of the principal buffer policies (`-x bufpolicy=switch|fill|ring`).
//!
//! The kernel tests trace the running machine, so each one first checks that it may (root
//! and a working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise prints
//! `skipping: <reason>` and passes. Their load is a Python script, run with `-c`, that
//! pins itself to one CPU (so that every record lands in one CPU's buffer and the
//! sequence numbers printed must be consecutive), makes argv[1] getppid() calls, sleeps
//! argv[2] seconds, and then creates the file argv[3] (when given) just before it exits.
//! The user-space engine's tests need no privileges.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long any single dtrace run may take before the test kills it and fails.
const RUN_DEADLINE: Duration = Duration::from_secs(30);

/// The getppid() calls of a load; far more records than a 16k buffer holds.
const CALLS: u64 = 20_000;

/// Pins the process to one CPU, makes argv[1] getppid() calls, sleeps argv[2] seconds,
/// then creates the file argv[3] if there is one.
const PINNED_GETPPID_LOAD: &str = "import os, sys, time\n\
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n\
n = int(sys.argv[1])\n\
g = os.getppid\n\
for _ in range(n):\n    g()\n\
time.sleep(float(sys.argv[2]))\n\
if len(sys.argv) > 3:\n    open(sys.argv[3], 'w').close()\n";

/// One record per traced call, numbered by a global counter, and END's mark.
const SEQUENCE_PROGRAM: &str =
    "syscall::getppid:entry /pid == $target/ { printf(\"%d\\n\", i++); } END { printf(\"end\\n\"); }";

struct Outcome {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    /// Whether the file watched for (if any) existed when the first byte of stdout came.
    watched_file_existed_at_first_output: Option<bool>,
}

/// Returns the Python interpreter the load scripts run under, if one is installed.
fn python_interpreter() -> Option<&'static str> {
    ["/usr/bin/python3.11", "/usr/bin/python3"]
        .into_iter()
        .find(|path| Path::new(path).exists())
}

/// Decides whether this process may trace; returns the reason to skip when it may not.
fn reason_to_skip() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not running as root".to_string());
    }
    if python_interpreter().is_none() {
        return Some("no /usr/bin/python3 for the load process".to_string());
    }
    let outcome = run_dtrace(&["-q", "-n", "BEGIN { exit(0); }"], None);
    if outcome.status != Some(0) {
        return Some(format!(
            "dtrace cannot trace here (exit {:?}): {}",
            outcome.status,
            outcome.stderr.lines().next().unwrap_or("")
        ));
    }
    None
}

/// Prints the skip line and returns true when the calling test must not trace.
fn must_skip() -> bool {
    match reason_to_skip() {
        Some(reason) => {
            println!("skipping: {reason}");
            true
        }
        None => false,
    }
}

/// Collects a child's stdout and stderr on helper threads, so that neither pipe can fill
/// up and stall the child, noting whether `watched` existed when stdout's first byte
/// arrived; kills the child if it outlives the deadline.
fn collect(mut child: Child, watched: Option<PathBuf>) -> Outcome {
    let mut stdout_pipe = child.stdout.take().expect("stdout is piped");
    let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
    let stdout_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut first_output = None;
        let mut chunk = [0u8; 4096];
        loop {
            match stdout_pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(length) => {
                    if first_output.is_none() {
                        first_output = watched.as_ref().map(|path| path.exists());
                    }
                    bytes.extend_from_slice(&chunk[..length]);
                }
            }
        }
        (String::from_utf8_lossy(&bytes).into_owned(), first_output)
    });
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait().expect("wait for dtrace") {
            Some(status) => break status.code(),
            None if started.elapsed() > RUN_DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let (stdout, watched_file_existed_at_first_output) = stdout_reader.join().unwrap_or_default();
    Outcome {
        status,
        stdout,
        stderr: stderr_reader.join().unwrap_or_default(),
        watched_file_existed_at_first_output,
    }
}

fn run_dtrace(args: &[&str], watched: Option<PathBuf>) -> Outcome {
    let child = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    collect(child, watched)
}

/// A private directory holding a file, removed when the test ends.
struct ScratchDirectory {
    directory: PathBuf,
}

impl ScratchDirectory {
    fn new(test_name: &str) -> ScratchDirectory {
        let directory = std::env::temp_dir().join(format!(
            "dtrace-bufpolicy-{}-{}",
            test_name,
            std::process::id()
        ));
        std::fs::create_dir_all(&directory).expect("create scratch directory");
        ScratchDirectory { directory }
    }

    fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.directory.join(name);
        std::fs::write(&path, contents).expect("write scratch file");
        path
    }

    /// The `-c` command line of the pinned getppid load.
    fn load_command(&self, calls: u64, sleep_seconds: u32, done_file: Option<&Path>) -> String {
        let script = self.write("load.py", PINNED_GETPPID_LOAD);
        let mut command = format!(
            "{} {} {calls} {sleep_seconds}",
            python_interpreter().expect("checked by must_skip"),
            script.display()
        );
        if let Some(done_file) = done_file {
            command.push_str(&format!(" {}", done_file.display()));
        }
        command
    }
}

impl Drop for ScratchDirectory {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.directory);
    }
}

/// Sums the `dtrace: N drops on CPU C` messages per CPU.
fn drops_per_cpu(stderr: &str) -> BTreeMap<u32, u64> {
    let mut drops = BTreeMap::new();
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix("dtrace: ") else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        if words.len() == 5
            && (words[1] == "drops" || words[1] == "drop")
            && words[2] == "on"
            && words[3] == "CPU"
        {
            if let (Ok(count), Ok(cpu)) = (words[0].parse::<u64>(), words[4].parse::<u32>()) {
                *drops.entry(cpu).or_insert(0) += count;
            }
        }
    }
    drops
}

/// Splits quiet output into the sequence numbers printed and what followed the last one
/// (END's line is expected there); panics on any other line.
fn sequence_and_rest(stdout: &str) -> (Vec<u64>, Vec<&str>) {
    let lines: Vec<&str> = stdout.lines().filter(|line| !line.is_empty()).collect();
    let numbers = lines
        .iter()
        .take_while(|line| line.parse::<u64>().is_ok())
        .map(|line| line.parse::<u64>().unwrap_or(0))
        .collect::<Vec<_>>();
    let rest = lines[numbers.len()..].to_vec();
    (numbers, rest)
}

#[test]
fn fill_stops_tracing_at_the_first_full_buffer_and_runs_end() {
    if must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("fill");
    // The load sleeps far longer than the deadline: only the full buffer can stop tracing
    // in time.
    let command = scratch.load_command(CALLS, 120, None);
    let started = Instant::now();
    let outcome = run_dtrace(
        &[
            "-q",
            "-b",
            "16k",
            "-x",
            "bufpolicy=fill",
            "-n",
            SEQUENCE_PROGRAM,
            "-c",
            &command,
        ],
        None,
    );
    assert_eq!(
        outcome.status,
        Some(0),
        "tracing did not stop by itself within {:?}; stderr {:?}",
        started.elapsed(),
        outcome.stderr
    );
    let (numbers, rest) = sequence_and_rest(&outcome.stdout);
    assert_eq!(
        rest,
        vec!["end"],
        "END's output must follow the records; stdout {:?}",
        outcome.stdout
    );
    // Records are never read before tracing stops, so the buffer kept exactly the first
    // records: the sequence from 0 with no gap.
    assert!(
        !numbers.is_empty(),
        "no records; stderr {:?}",
        outcome.stderr
    );
    let expected: Vec<u64> = (0..numbers.len() as u64).collect();
    assert!(
        numbers == expected,
        "not a prefix of the sequence: {} records from {:?} to {:?}",
        numbers.len(),
        numbers.first(),
        numbers.last()
    );
    assert!(
        numbers.len() * 16 <= 16 << 10,
        "{} records cannot fit a 16k buffer",
        numbers.len()
    );
    let drops: u64 = drops_per_cpu(&outcome.stderr).values().sum();
    assert!(
        drops > 0,
        "the records that did not fit must be reported; stderr {:?}",
        outcome.stderr
    );
    assert!(
        numbers.len() as u64 + drops <= CALLS,
        "{} records + {drops} drops > {CALLS} calls",
        numbers.len()
    );
}

#[test]
fn ring_prints_only_at_the_end_and_keeps_the_last_records() {
    if must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("ring");
    let done = scratch.directory.join("done");
    let command = scratch.load_command(CALLS, 4, Some(&done));
    let outcome = run_dtrace(
        &[
            "-q",
            "-b",
            "16k",
            "-x",
            "bufpolicy=ring",
            "-n",
            SEQUENCE_PROGRAM,
            "-c",
            &command,
        ],
        Some(done.clone()),
    );
    assert_eq!(outcome.status, Some(0), "stderr {:?}", outcome.stderr);
    assert_eq!(
        outcome.watched_file_existed_at_first_output,
        Some(true),
        "output appeared while the load was still running"
    );
    let (numbers, rest) = sequence_and_rest(&outcome.stdout);
    assert_eq!(
        rest,
        vec!["end"],
        "END's output must follow the records; stdout {:?}",
        outcome.stdout
    );
    assert_eq!(
        numbers.last().copied(),
        Some(CALLS - 1),
        "the last call's record must be printed last"
    );
    for pair in numbers.windows(2) {
        assert_eq!(
            pair[1],
            pair[0] + 1,
            "records of one CPU must be consecutive; {} records from {:?}",
            numbers.len(),
            numbers.first()
        );
    }
    // A 16k ring overwritten many times over holds a few hundred of these records.
    assert!(
        numbers.len() >= 100 && (numbers.len() as u64) < CALLS,
        "{} records",
        numbers.len()
    );
    assert!(
        drops_per_cpu(&outcome.stderr).is_empty(),
        "overwritten records are not drops; stderr {:?}",
        outcome.stderr
    );
}

#[test]
fn switch_prints_while_tracing() {
    if must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("switch");
    let done = scratch.directory.join("done");
    let command = scratch.load_command(CALLS, 4, Some(&done));
    let outcome = run_dtrace(
        &["-q", "-b", "16k", "-n", SEQUENCE_PROGRAM, "-c", &command],
        Some(done.clone()),
    );
    assert_eq!(outcome.status, Some(0), "stderr {:?}", outcome.stderr);
    assert_eq!(
        outcome.watched_file_existed_at_first_output,
        Some(false),
        "no output while the load was running"
    );
    let (numbers, rest) = sequence_and_rest(&outcome.stdout);
    assert_eq!(rest, vec!["end"], "stdout {:?}", outcome.stdout);
    // Records go out in order; the ones missing were dropped and reported.
    let drops: u64 = drops_per_cpu(&outcome.stderr).values().sum();
    assert!(numbers.windows(2).all(|pair| pair[0] < pair[1]));
    assert_eq!(numbers.first().copied(), Some(0));
    assert_eq!(
        numbers.len() as u64 + drops,
        CALLS,
        "printed records + reported drops must equal the calls"
    );
}

/// A program of `clauses` BEGIN clauses, each recording the next number of a sequence
/// (16-byte records), and an END clause.
fn begin_sequence_program(clauses: u64) -> String {
    let mut text = String::new();
    for _ in 0..clauses {
        text.push_str("BEGIN { printf(\"%d\\n\", i++); }\n");
    }
    text.push_str("BEGIN { exit(0); }\nEND { printf(\"end\\n\"); }\n");
    text
}

/// Runs the user-space engine on `clauses` BEGIN records with a 4k buffer (256 records).
fn run_vm_engine(test_name: &str, clauses: u64, policy: &str) -> Outcome {
    let scratch = ScratchDirectory::new(test_name);
    let script = scratch.write("begin.d", &begin_sequence_program(clauses));
    let script = script.to_string_lossy().into_owned();
    run_dtrace(
        &[
            "-q",
            "-x",
            "engine=vm",
            "-b",
            "4k",
            "-x",
            &format!("bufpolicy={policy}"),
            "-s",
            &script,
        ],
        None,
    )
}

#[test]
fn vm_engine_fill_stops_tracing_at_the_first_full_buffer() {
    const CLAUSES: u64 = 600;
    let outcome = run_vm_engine("vm-fill", CLAUSES, "fill");
    assert_eq!(outcome.status, Some(0), "{:?}", outcome.stderr);
    let (numbers, rest) = sequence_and_rest(&outcome.stdout);
    assert_eq!(rest, vec!["end"], "{:?}", outcome.stdout);
    // 4096 bytes hold the first 256 records of 16 bytes; the other clauses, exit()'s
    // included, are drops, and the full buffer stops tracing instead of exit().
    let expected: Vec<u64> = (0..256).collect();
    assert_eq!(numbers, expected);
    let drops: u64 = drops_per_cpu(&outcome.stderr).values().sum();
    assert_eq!(drops, CLAUSES - 256 + 1, "{:?}", outcome.stderr);
}

#[test]
fn vm_engine_ring_keeps_the_last_records() {
    const CLAUSES: u64 = 600;
    let outcome = run_vm_engine("vm-ring", CLAUSES, "ring");
    assert_eq!(outcome.status, Some(0), "{:?}", outcome.stderr);
    let (numbers, rest) = sequence_and_rest(&outcome.stdout);
    assert_eq!(rest, vec!["end"], "{:?}", outcome.stdout);
    // The ring's 4096 bytes end with the exit() record and END's record (16 bytes each),
    // so 254 sequence records remain, the last ones written.
    let expected: Vec<u64> = (CLAUSES - 254..CLAUSES).collect();
    assert_eq!(numbers, expected);
    assert!(
        drops_per_cpu(&outcome.stderr).is_empty(),
        "{:?}",
        outcome.stderr
    );
}
