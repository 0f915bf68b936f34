//! Live tests of `vtimestamp` on the kernel engine: it grows by the time the thread runs
//! and not by the time it sleeps, it agrees with the thread's own CPU clock, and it never
//! goes back within a thread, however the threads move between CPUs.
//!
//! These tests trace the running machine, so each one first checks that it may (root and
//! a working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise prints `skipping: <reason>`
//! and passes. The load processes are small Python scripts written to a private temporary
//! directory, because `-c` splits its command on blanks and so cannot carry `python -c`.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::live::LiveDtrace;

/// How long any single dtrace run may take before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

/// What every getppid() of the target prints: thread, `vtimestamp`, `timestamp`.
const PROGRAM: &str =
    "syscall::getppid:entry /pid == $target/ { printf(\"vt %d %d %d\\n\", tid, vtimestamp, timestamp); }";

/// How long (nanoseconds) each busy or sleeping stretch of the load lasts.
const STRETCH_NS: u64 = 150_000_000;

/// Rounds of getppid(), a stretch of argv[1] (`busy`: burning CPU, `sleep`: sleeping),
/// getppid(); after each round it prints `child NS`, the thread CPU time the round took.
const STRETCH_LOAD: &str = "import os, sys, time\n\
mode, rounds, stretch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])\n\
for _ in range(rounds):\n    \
start = time.thread_time_ns()\n    os.getppid()\n    \
if mode == 'busy':\n        \
while time.thread_time_ns() - start < stretch:\n            pass\n    \
else:\n        time.sleep(stretch / 1e9)\n    \
os.getppid()\n    print('child', time.thread_time_ns() - start, flush=True)\n";

/// Two threads each make argv[1] getppid() calls with a little work or a short sleep
/// between them, so that they are switched out and in, and move between CPUs.
const THREADS_LOAD: &str = "import os, sys, threading, time\n\
calls = int(sys.argv[1])\n\
def work(sleep):\n    \
for i in range(calls):\n        os.getppid()\n        \
if i % 3 == 0:\n            time.sleep(0.001 if sleep else 0)\n        \
sum(range(2000))\n\
other = threading.Thread(target=work, args=(True,))\n\
other.start()\n\
work(False)\n\
other.join()\n";

/// One getppid() firing: thread, `vtimestamp`, `timestamp`.
#[derive(Debug, Clone, Copy)]
struct Sample {
    tid: u64,
    vtimestamp: u64,
    timestamp: u64,
}

/// Runs [`PROGRAM`] over the load `source` with `arguments`; returns the samples sorted
/// by `timestamp` and the load's `child` lines' numbers.
fn trace_load(test_name: &str, source: &str, arguments: &str) -> (Vec<Sample>, Vec<u64>) {
    let outcome = DTRACE.run_with_load(test_name, source, arguments, &["-q", "-n", PROGRAM]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let mut samples = Vec::new();
    let mut child = Vec::new();
    for line in outcome.stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |word: &str| word.parse::<u64>().expect("a number");
        match words.as_slice() {
            ["vt", tid, vtimestamp, timestamp] => samples.push(Sample {
                tid: number(tid),
                vtimestamp: number(vtimestamp),
                timestamp: number(timestamp),
            }),
            ["child", cpu] => child.push(number(cpu)),
            _ => {}
        }
    }
    samples.sort_by_key(|sample| sample.timestamp);
    (samples, child)
}

/// The (vtimestamp, timestamp) deltas of the last `rounds` pairs of samples: the load's
/// rounds, which come after any getppid() the interpreter makes while starting.
fn round_deltas(samples: &[Sample], rounds: usize) -> Vec<(u64, u64)> {
    assert!(samples.len() >= 2 * rounds, "{samples:#?}");
    samples[samples.len() - 2 * rounds..]
        .chunks(2)
        .map(|pair| {
            assert_eq!(pair[0].tid, pair[1].tid, "{pair:#?}");
            (
                pair[1].vtimestamp - pair[0].vtimestamp,
                pair[1].timestamp - pair[0].timestamp,
            )
        })
        .collect()
}

#[test]
fn vtimestamp_counts_running_time_and_not_sleeping_time() {
    if DTRACE.must_skip() {
        return;
    }
    const ROUNDS: usize = 3;
    let arguments = |mode: &str| format!("{mode} {ROUNDS} {STRETCH_NS}");

    let (samples, child) = trace_load("busy", STRETCH_LOAD, &arguments("busy"));
    assert_eq!(child.len(), ROUNDS, "{child:?}");
    for ((on_cpu, wall), child_cpu) in round_deltas(&samples, ROUNDS).into_iter().zip(child) {
        // The thread ran all along: its time on CPU is at least the busy stretch (as the
        // thread's own clock measured it, which also counts the two system calls), and
        // cannot exceed the time that passed. It may exceed the thread's own clock by
        // any amount: `vtimestamp` adds up the time between switches as DTrace does,
        // which takes in the interrupt and steal time that the scheduler's task clock
        // leaves out, and a virtual machine on a busy host can be robbed of much.
        let described = format!("on CPU {on_cpu} ns, wall {wall} ns, child's clock {child_cpu} ns");
        assert!(on_cpu >= STRETCH_NS * 9 / 10, "{described}");
        assert!(on_cpu <= wall, "{described}");
        assert!(on_cpu >= child_cpu * 9 / 10, "{described}");
    }

    let (samples, _) = trace_load("sleep", STRETCH_LOAD, &arguments("sleep"));
    for (on_cpu, wall) in round_deltas(&samples, ROUNDS) {
        let described = format!("on CPU {on_cpu} ns, wall {wall} ns");
        assert!(wall >= STRETCH_NS, "{described}");
        assert!(on_cpu < STRETCH_NS / 10, "{described}");
    }
}

#[test]
fn vtimestamp_never_goes_back_within_a_thread() {
    if DTRACE.must_skip() {
        return;
    }
    const CALLS: usize = 300;
    let (samples, _) = trace_load("threads", THREADS_LOAD, &CALLS.to_string());
    let mut by_thread: BTreeMap<u64, Vec<Sample>> = BTreeMap::new();
    for sample in samples {
        by_thread.entry(sample.tid).or_default().push(sample);
    }
    let busy_threads = by_thread
        .values()
        .filter(|samples| samples.len() >= CALLS)
        .count();
    assert_eq!(busy_threads, 2, "{by_thread:#?}");
    for samples in by_thread.values() {
        for pair in samples.windows(2) {
            assert!(pair[0].vtimestamp <= pair[1].vtimestamp, "{pair:#?}");
            assert!(
                pair[1].vtimestamp - pair[0].vtimestamp <= pair[1].timestamp - pair[0].timestamp,
                "more time on CPU than passed: {pair:#?}"
            );
        }
    }
}
