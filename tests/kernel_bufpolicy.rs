//! End-to-end tests of the principal buffer policies (`-x bufpolicy=switch|fill|ring`).
//!
//! The kernel tests trace the running machine, so each one first checks that it may (root
//! and a working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise prints
//! `skipping: <reason>` and passes. Their load is a Python script, run with `-c`, that
//! pins itself to one CPU (so that every record lands in one CPU's buffer and the
//! sequence numbers printed must be consecutive), makes argv[1] getppid() calls, sleeps
//! argv[2] seconds, and then creates the file argv[3] (when given) just before it exits.
//! The user-space engine's tests need no privileges. The tests of buffers smaller than a
//! page (where the kernel engine's programs count the buffer's bytes themselves) run the
//! same BEGIN programs on both engines, bound to CPU 0, and compare what they print.

mod common;

use std::time::{Duration, Instant};

use common::live::{drops_per_cpu, LiveDtrace, LiveOutcome, ScratchDirectory};

/// Any single dtrace run may take 30 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(30));

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

/// Runs `SEQUENCE_PROGRAM` quietly with a 16k buffer and `policy_arguments` over the
/// pinned load of `CALLS` calls that then sleeps `sleep_seconds`. With `watch_done`, the
/// load creates a file as it exits, and the outcome tells whether that file existed when
/// dtrace's first output came.
fn trace_pinned_load(
    test_name: &str,
    policy_arguments: &[&str],
    sleep_seconds: u32,
    watch_done: bool,
) -> LiveOutcome {
    let scratch = ScratchDirectory::new(test_name);
    let done = watch_done.then(|| scratch.path("done"));
    let mut load_arguments = format!("{CALLS} {sleep_seconds}");
    if let Some(done) = &done {
        load_arguments.push_str(&format!(" {}", done.display()));
    }
    let command = scratch.load_command(PINNED_GETPPID_LOAD, &load_arguments);
    let mut arguments = vec!["-q", "-b", "16k"];
    arguments.extend_from_slice(policy_arguments);
    arguments.extend_from_slice(&["-n", SEQUENCE_PROGRAM, "-c", &command]);
    DTRACE.run_watching(&arguments, done)
}

/// The sequence numbers at the start of quiet output, checked to be followed by END's
/// line and nothing else.
fn sequence_before_end(stdout: &str) -> Vec<u64> {
    let lines: Vec<&str> = stdout.lines().filter(|line| !line.is_empty()).collect();
    let numbers = lines
        .iter()
        .take_while(|line| line.parse::<u64>().is_ok())
        .map(|line| line.parse::<u64>().unwrap_or(0))
        .collect::<Vec<_>>();
    assert_eq!(
        lines[numbers.len()..],
        ["end"],
        "END's output must follow the records; stdout {stdout:?}"
    );
    numbers
}

#[test]
fn fill_stops_tracing_at_the_first_full_buffer_and_runs_end() {
    if DTRACE.must_skip() {
        return;
    }
    // The load sleeps far longer than the deadline: only the full buffer can stop tracing
    // in time.
    let started = Instant::now();
    let outcome = trace_pinned_load("fill", &["-x", "bufpolicy=fill"], 120, false);
    assert_eq!(
        outcome.status,
        Some(0),
        "tracing did not stop by itself within {:?}; stderr {:?}",
        started.elapsed(),
        outcome.stderr
    );
    let numbers = sequence_before_end(&outcome.stdout);
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
    if DTRACE.must_skip() {
        return;
    }
    let outcome = trace_pinned_load("ring", &["-x", "bufpolicy=ring"], 4, true);
    assert_eq!(outcome.status, Some(0), "stderr {:?}", outcome.stderr);
    assert_eq!(
        outcome.watched_file_existed_at_first_output,
        Some(true),
        "output appeared while the load was still running"
    );
    let numbers = sequence_before_end(&outcome.stdout);
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
    if DTRACE.must_skip() {
        return;
    }
    let outcome = trace_pinned_load("switch", &[], 4, true);
    assert_eq!(outcome.status, Some(0), "stderr {:?}", outcome.stderr);
    assert_eq!(
        outcome.watched_file_existed_at_first_output,
        Some(false),
        "no output while the load was running"
    );
    let numbers = sequence_before_end(&outcome.stdout);
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

/// The BEGIN clauses of the user-space engine's tests: more records than 4k holds.
const VM_CLAUSES: u64 = 600;

/// Runs the user-space engine on `VM_CLAUSES` BEGIN records with a 4k buffer (256
/// records) and `policy`, checks that it succeeds, and returns the sequence numbers printed and stderr.
fn vm_engine_sequence(test_name: &str, policy: &str) -> (Vec<u64>, String) {
    let scratch = ScratchDirectory::new(test_name);
    let script = scratch.write("begin.d", &begin_sequence_program(VM_CLAUSES));
    let script = script.to_string_lossy().into_owned();
    let outcome = DTRACE.run(&[
        "-q",
        "-x",
        "engine=vm",
        "-b",
        "4k",
        "-x",
        &format!("bufpolicy={policy}"),
        "-s",
        &script,
    ]);
    assert_eq!(outcome.status, Some(0), "{:?}", outcome.stderr);
    let numbers = sequence_before_end(&outcome.stdout);
    (numbers, outcome.stderr)
}

#[test]
fn vm_engine_fill_stops_tracing_at_the_first_full_buffer() {
    let (numbers, stderr) = vm_engine_sequence("vm-fill", "fill");
    // 4096 bytes hold the first 256 records of 16 bytes; the other clauses, exit()'s
    // included, are drops, and the full buffer stops tracing instead of exit().
    let expected: Vec<u64> = (0..256).collect();
    assert_eq!(numbers, expected);
    let drops: u64 = drops_per_cpu(&stderr).values().sum();
    assert_eq!(drops, VM_CLAUSES - 256 + 1, "{stderr:?}");
}

#[test]
fn vm_engine_ring_keeps_the_last_records() {
    let (numbers, stderr) = vm_engine_sequence("vm-ring", "ring");
    // The ring's 4096 bytes end with the exit() record and END's record (16 bytes each),
    // so 254 sequence records remain, the last ones written.
    let expected: Vec<u64> = (VM_CLAUSES - 254..VM_CLAUSES).collect();
    assert_eq!(numbers, expected);
    assert!(drops_per_cpu(&stderr).is_empty(), "{stderr:?}");
}

/// Runs `program` (a script written to a scratch directory) bound to CPU 0 on both
/// engines with `arguments`, and returns each engine's outcome, user-space engine first.
fn both_engines_on_first_cpu(
    test_name: &str,
    program: &str,
    arguments: &[&str],
) -> [LiveOutcome; 2] {
    let scratch = ScratchDirectory::new(test_name);
    let script = scratch.write("program.d", program);
    let script = script.to_string_lossy().into_owned();
    ["engine=vm", "engine=kernel"].map(|engine| {
        let mut all = vec!["-q", "-x", engine];
        all.extend_from_slice(arguments);
        all.extend_from_slice(&["-s", &script]);
        DTRACE.run_on_first_cpu(&all)
    })
}

/// Checks that both engines exited with 0 and printed the same stdout and stderr.
fn assert_engines_agree(outcomes: &[LiveOutcome; 2]) {
    let [vm, kernel] = outcomes;
    assert_eq!(vm.status, Some(0), "vm stderr {:?}", vm.stderr);
    assert_eq!(kernel.status, Some(0), "kernel stderr {:?}", kernel.stderr);
    assert_eq!(kernel.stdout, vm.stdout, "stdout differs");
    assert_eq!(kernel.stderr, vm.stderr, "stderr differs");
}

/// Ten BEGIN records of 16 bytes, exit() and END's record, in a 64-byte buffer.
const SMALL_BUFFER: &[&str] = &["-b", "64"];

#[test]
fn a_buffer_smaller_than_a_page_fills_at_bufsize_under_fill_on_both_engines() {
    if DTRACE.must_skip() {
        return;
    }
    let mut arguments = SMALL_BUFFER.to_vec();
    arguments.extend_from_slice(&["-x", "bufpolicy=fill"]);
    let outcomes = both_engines_on_first_cpu("small-fill", &begin_sequence_program(10), &arguments);
    assert_engines_agree(&outcomes);
    // 64 bytes hold four records; the other six and exit()'s are dropped, and the full
    // buffer stops tracing; END still has room.
    assert_eq!(sequence_before_end(&outcomes[1].stdout), [0, 1, 2, 3]);
    assert_eq!(
        drops_per_cpu(&outcomes[1].stderr),
        [(0, 7)].into_iter().collect(),
        "{:?}",
        outcomes[1].stderr
    );
}

#[test]
fn a_buffer_smaller_than_a_page_keeps_its_last_records_under_ring_on_both_engines() {
    if DTRACE.must_skip() {
        return;
    }
    let mut arguments = SMALL_BUFFER.to_vec();
    arguments.extend_from_slice(&["-x", "bufpolicy=ring"]);
    let outcomes = both_engines_on_first_cpu("small-ring", &begin_sequence_program(10), &arguments);
    assert_engines_agree(&outcomes);
    // The ring's 64 bytes end with exit()'s record and END's: two sequence records fit.
    assert_eq!(sequence_before_end(&outcomes[1].stdout), [8, 9]);
    assert!(outcomes[1].stderr.is_empty(), "{:?}", outcomes[1].stderr);
}

#[test]
fn a_buffer_smaller_than_a_page_drops_past_bufsize_under_switch_on_both_engines() {
    if DTRACE.must_skip() {
        return;
    }
    // No exit(): its record would be dropped too. The clause whose predicate is false
    // is dropped all the same, as DTrace reserves a record's room before the predicate.
    let mut program = String::new();
    for _ in 0..6 {
        program.push_str("BEGIN { printf(\"%d\\n\", i++); }\n");
    }
    program.push_str("BEGIN /i == 1000/ { printf(\"never\\n\"); }\n");
    program.push_str("END { printf(\"end\\n\"); }\n");
    let mut arguments = SMALL_BUFFER.to_vec();
    arguments.extend_from_slice(&["-x", "droptags", "-c", "sleep 0.5"]);
    let outcomes = both_engines_on_first_cpu("small-switch", &program, &arguments);
    assert_engines_agree(&outcomes);
    assert_eq!(sequence_before_end(&outcomes[1].stdout), [0, 1, 2, 3]);
    assert_eq!(
        outcomes[1].stderr, "dtrace: [DTRACEDROP_PRINCIPAL] 3 drops on CPU 0\n",
        "stderr"
    );
}

#[test]
fn a_buffer_smaller_than_a_page_takes_bufsize_bytes_per_switch_interval() {
    if DTRACE.must_skip() {
        return;
    }
    // 32-byte records every millisecond into a 32-byte buffer: one record per read gets
    // through, the others are drops. The session reads at most every 50 ms while it
    // watches a -c process (and at switchrate otherwise), so 2 seconds allow at most
    // about 40 reads, where 2,000 records fired.
    let outcome = DTRACE.run(&[
        "-q",
        "-b",
        "32",
        "-x",
        "switchrate=2hz",
        "-n",
        "tick-1ms { printf(\"%d %d %d\\n\", 1, 2, 3); }",
        "-c",
        "sleep 2",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr {:?}", outcome.stderr);
    let records = outcome
        .stdout
        .lines()
        .filter(|line| *line == "1 2 3")
        .count();
    let drops: u64 = drops_per_cpu(&outcome.stderr).values().sum();
    assert!(
        (2..=60).contains(&records),
        "{records} records in 2 seconds; stderr {:?}",
        outcome.stderr
    );
    assert!(drops >= 1000, "{drops} drops; stderr {:?}", outcome.stderr);
}

#[test]
fn a_buffer_of_whole_pages_holds_exactly_bufsize_bytes_on_both_engines() {
    if DTRACE.must_skip() {
        return;
    }
    // Records of a sequence number and an empty string (strsize bytes), so that a few
    // clauses fill 4k. The perf ring also holds each sample's header: only the programs'
    // own count makes 4k hold as many records as the user-space engine's buffer.
    let mut program = String::new();
    for _ in 0..40 {
        program.push_str("BEGIN { printf(\"%d\\n%s\", i++, \"\"); }\n");
    }
    program.push_str("BEGIN { exit(0); }\nEND { printf(\"end\\n\"); }\n");
    let outcomes = both_engines_on_first_cpu(
        "pages-fill",
        &program,
        &["-b", "4k", "-x", "bufpolicy=fill"],
    );
    assert_engines_agree(&outcomes);
    let numbers = sequence_before_end(&outcomes[1].stdout);
    assert!(
        (10..40).contains(&numbers.len()),
        "{} records",
        numbers.len()
    );
}

#[test]
fn error_probe_records_take_room_in_a_small_buffer_on_both_engines() {
    if DTRACE.must_skip() {
        return;
    }
    // 48 bytes hold two records and the ERROR clause's; the fault's own report and the
    // last BEGIN record find the buffer full and are drops.
    let program = "BEGIN { printf(\"%d\\n\", i++); }\n\
                   BEGIN { printf(\"%d\\n\", i++); }\n\
                   BEGIN { *(int *)0 = 1; }\n\
                   ERROR { printf(\"error %d\\n\", i++); }\n\
                   BEGIN { printf(\"%d\\n\", i++); }\n\
                   END { printf(\"end\\n\"); }\n";
    let outcomes = both_engines_on_first_cpu(
        "small-error",
        program,
        &["-b", "48", "-x", "droptags", "-c", "sleep 0.3"],
    );
    assert_engines_agree(&outcomes);
    assert_eq!(outcomes[1].stdout, "0\n1\nerror 2\nend\n\n");
    assert_eq!(
        outcomes[1].stderr,
        "dtrace: [DTRACEDROP_PRINCIPAL] 2 drops on CPU 0\n"
    );
}
