//! Live tests of `sched:::on-cpu`, which fires at `sched_switch` (as the previous thread
//! leaves the CPU) with every thread built-in bound to the thread being switched in:
//! per-thread on-CPU time summed from `on-cpu`/`off-cpu` agrees with the kernel's own
//! figure in `/proc/PID/task/TID/schedstat` within 5%, and `pid`, `tid`, `execname`,
//! `curpsinfo->pr_pid` and `curlwpsinfo->pr_lwpid` there name the incoming thread. And,
//! compiled against the real D library: `curpsinfo`'s members that read user memory
//! (`pr_psargs`, `pr_argc`) are refused in `on-cpu`, where the user memory at hand is
//! another process's.
//!
//! These tests trace the running machine, so each one first checks that it may (root, a
//! Python for the load, a dtrace that traces, and the kernel BTF the stable providers
//! are built from) and otherwise prints `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::LiveDtrace;

/// How long any single dtrace run may take before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(30));

/// The load: prints `load PID TID COMM`, sleeps so that it is switched in again under
/// tracing, then between two marks (a SIGURG to itself, which it ignores; each followed
/// by a read of its own schedstat) burns about 0.8 s of CPU in stretches with short
/// sleeps between them, and prints `schedstat NS`: the thread's time on CPU between the
/// two reads. The marks are signals rather than system calls so that every probe of the
/// program fires where the kernel cannot preempt it: a syscall probe's program can be
/// preempted on kernels whose syscall tracepoints may fault, and a sched_switch whose
/// program then finds the preempted one using state it shares counts a nesting drop and
/// loses an on-CPU stretch.
const LOAD: &str = "import os, signal, threading, time\n\
tid = threading.get_native_id()\n\
def schedstat():\n    \
with open('/proc/self/task/%d/schedstat' % tid) as f:\n        \
return int(f.read().split()[0])\n\
print('load', os.getpid(), tid, open('/proc/self/comm').read().strip(), flush=True)\n\
time.sleep(0.3)\n\
os.kill(os.getpid(), signal.SIGURG)\n\
first = schedstat()\n\
for _ in range(8):\n    \
start = time.thread_time_ns()\n    \
while time.thread_time_ns() - start < 100000000:\n        pass\n    \
time.sleep(0.03)\n\
os.kill(os.getpid(), signal.SIGURG)\n\
last = schedstat()\n\
print('schedstat', last - first, flush=True)\n";

/// Sums each target thread's time on CPU from on-cpu to off-cpu; at each mark (the
/// SIGURG it ignores: `proc:::signal-discard`, in the sender's context) prints that sum
/// up to now (the running stretch included). The first on-cpu of a thread after its
/// mark (by then it runs the load, not the shell or dtrace's fork before exec) prints
/// what the built-ins there say.
const PROGRAM: &str = "
self uint64_t total;
self uint64_t ts;
self int report;
sched:::on-cpu /pid == $target/ { self->ts = timestamp; }
sched:::on-cpu /pid == $target && self->report/ {
    self->report = 0;
    printf(\"on-cpu %d %d %s %d %d\\n\", pid, tid, execname, curpsinfo->pr_pid,
        curlwpsinfo->pr_lwpid);
}
sched:::off-cpu /pid == $target && self->ts/ {
    self->total += timestamp - self->ts;
    self->ts = 0;
}
proc:::signal-discard /pid == $target && args[2] == SIGURG && self->ts/ {
    printf(\"dtrace %d %d\\n\", tid, self->total + (timestamp - self->ts));
    self->report = 1;
}
";

/// Why the stable providers cannot be used here, if they cannot.
fn reason_without_stable_providers() -> Option<String> {
    if std::fs::metadata("/sys/kernel/btf/vmlinux").is_err() {
        return Some("no kernel BTF (/sys/kernel/btf/vmlinux)".to_string());
    }
    None
}

fn must_skip() -> bool {
    if let Some(reason) = reason_without_stable_providers() {
        println!("skipping: {reason}");
        return true;
    }
    DTRACE.must_skip()
}

#[test]
fn on_cpu_time_per_thread_matches_schedstat_and_names_the_incoming_thread() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run_with_load(
        "sched_on_cpu_time",
        LOAD,
        "",
        &["-q", "-x", "switchrate=10hz", "-n", PROGRAM],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let lines: Vec<Vec<&str>> = outcome
        .stdout
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    let find = |tag: &str| -> Vec<&Vec<&str>> {
        lines
            .iter()
            .filter(|words| words.first() == Some(&tag))
            .collect()
    };
    let number = |word: &str| word.parse::<u64>().expect("a number");
    let load = find("load");
    let [load] = load.as_slice() else {
        panic!("no load line: {}", outcome.stdout);
    };
    let (pid, tid, comm) = (load[1], load[2], load[3]);

    // An on-cpu of the load's thread (the load has one thread) names it.
    let on_cpu = find("on-cpu");
    let first = on_cpu
        .iter()
        .find(|words| words[2] == tid)
        .unwrap_or_else(|| panic!("no on-cpu of thread {tid}: {}", outcome.stdout));
    assert_eq!(first[1], pid, "{first:?}");
    // The load is python, whose thread the kernel names after the executable.
    assert_eq!(first[3], comm, "{first:?}");
    assert_eq!(first[4], pid, "curpsinfo->pr_pid {first:?}");
    assert_eq!(first[5], tid, "curlwpsinfo->pr_lwpid {first:?}");
    assert!(
        on_cpu.iter().all(|words| words[1] == pid),
        "an on-cpu of another process passed pid == $target: {on_cpu:?}"
    );

    let samples: Vec<u64> = find("dtrace")
        .iter()
        .filter(|words| words[1] == tid)
        .map(|words| number(words[2]))
        .collect();
    let [start, end] = samples.as_slice() else {
        panic!("expected two marks: {}", outcome.stdout);
    };
    let traced = end - start;
    let schedstat = find("schedstat");
    let [schedstat] = schedstat.as_slice() else {
        panic!("no schedstat line: {}", outcome.stdout);
    };
    let kernel = number(schedstat[1]);
    assert!(kernel > 500_000_000, "the load ran only {kernel} ns");
    let difference = traced.abs_diff(kernel) as f64 / kernel as f64;
    println!("on-cpu/off-cpu {traced} ns, schedstat {kernel} ns");
    assert!(
        difference < 0.05,
        "on-cpu/off-cpu summed {traced} ns, schedstat says {kernel} ns ({:.1}% apart)",
        100.0 * difference
    );
}

#[test]
fn user_memory_members_of_curpsinfo_are_refused_in_on_cpu() {
    if let Some(reason) = reason_without_stable_providers() {
        println!("skipping: {reason}");
        return;
    }
    for member in ["pr_psargs", "pr_argc"] {
        let program = format!("sched:::on-cpu {{ trace(curpsinfo->{member}); }}");
        let outcome = DTRACE.run(&["-e", "-n", &program]);
        assert_eq!(outcome.status, Some(1), "{member}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains(&format!(
                "psinfo_t's member {member} (translator in procfs.d): "
            )) && outcome
                .stderr
                .contains("may not be used in sched:vmlinux::on-cpu"),
            "{member}: {}",
            outcome.stderr
        );
        // The same member compiles where the probe is about its own thread.
        let program = format!("sched:::off-cpu {{ trace(curpsinfo->{member}); }}");
        let outcome = DTRACE.run(&["-e", "-n", &program]);
        assert_eq!(outcome.status, Some(0), "{member}: {}", outcome.stderr);
    }
}

#[test]
fn on_cpu_and_off_cpu_share_a_clause() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "sched:::on-cpu, sched:::off-cpu /pid == $target/ { @[probename] = count(); }",
        "-n",
        "END { printa(\"%s %@d\\n\", @); }",
        "-c",
        "sleep 0.2",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    for name in ["on-cpu", "off-cpu"] {
        assert!(
            outcome
                .stdout
                .lines()
                .any(|line| line.starts_with(&format!("{name} "))),
            "{name}: {}",
            outcome.stdout
        );
    }
}
