//! Live tests of kernel stacks on the kernel engine: `stack()`, `stackdepth` and `caller`
//! leave out the tracing machinery's frames (the BPF program, `bpf_trace_runN`,
//! `__bpf_trace_*`, `__traceiter_*`, `perf_syscall_*`), so a stack starts in the
//! function where the probe fired, for the syscall provider (raw tracepoints), sdt
//! tracepoints, profile probes and ERROR clauses alike; `stackdepth` is the number of
//! frames `stack()` prints and `caller` is its second frame. `maxframes` cuts every
//! stack depth to its value.
//!
//! These tests trace the running machine, so each one first checks that it may (root and
//! a working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise prints `skipping: <reason>`
//! and passes. The load processes are small Python scripts written to a private temporary
//! directory, because `-c` splits its command on blanks and so cannot carry `python -c`.

mod common;

use std::time::Duration;

use common::live::{LiveDtrace, GETPPID_LOAD};

/// How long any single dtrace run may take before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

/// What each firing prints: its depth and caller, then its stack.
const FIRING_ACTIONS: &str = "printf(\"depth %d caller %a\\n\", stackdepth, caller); stack();";

/// Forks argv[1] children that exit at once, waiting for each.
const FORK_LOAD: &str = "import os, sys\n\
for _ in range(int(sys.argv[1])):\n    child = os.fork()\n    \
if child == 0:\n        os._exit(0)\n    os.waitpid(child, 0)\n";

/// Spends about argv[1] seconds copying from /dev/zero, mostly in the kernel.
const KERNEL_BUSY_LOAD: &str = "import os, sys, time\n\
end = time.monotonic() + float(sys.argv[1])\n\
zero = os.open('/dev/zero', os.O_RDONLY)\n\
while time.monotonic() < end:\n    os.read(zero, 1 << 20)\n";

/// One firing's output: `stackdepth`, `caller` as `%a` prints it, and the frames.
#[derive(Debug)]
struct Firing {
    depth: usize,
    caller: String,
    frames: Vec<String>,
}

/// Splits the output of [`FIRING_ACTIONS`] into firings.
fn firings(stdout: &str) -> Vec<Firing> {
    let mut firings: Vec<Firing> = Vec::new();
    for line in stdout
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["depth", depth, "caller", caller] => firings.push(Firing {
                depth: depth.parse().expect("stackdepth is a number"),
                caller: caller.to_string(),
                frames: Vec::new(),
            }),
            _ => firings
                .last_mut()
                .expect("a frame follows a depth line")
                .frames
                .push(line.to_string()),
        }
    }
    firings
}

/// The function of a `module`function+0xoffset` frame.
fn function_of(frame: &str) -> &str {
    let function = frame.split_once('`').map_or(frame, |(_, rest)| rest);
    function.split_once('+').map_or(function, |(name, _)| name)
}

/// Whether `frame` belongs to the tracing machinery rather than to the traced code.
fn is_machinery(frame: &str) -> bool {
    let function = function_of(frame);
    frame.starts_with("bpf`")
        || function.starts_with("bpf_prog_")
        || function.starts_with("bpf_trace_run")
        || function.starts_with("__bpf_trace_")
        || function.starts_with("__traceiter_")
        || function.starts_with("perf_syscall_")
        || function.starts_with("perf_call_bpf_")
        || function.starts_with("perf_trace_")
        || function == "trace_call_bpf"
}

/// Runs `program` over the load `source` with `arguments` and returns its firings, after
/// checking every firing's stack: as many frames as `stackdepth`, and `caller` the
/// second frame (0 when there is none).
fn traced_firings(test_name: &str, source: &str, arguments: &str, program: &str) -> Vec<Firing> {
    let outcome = DTRACE.run_with_load(test_name, source, arguments, &["-q", "-n", program]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let firings = firings(&outcome.stdout);
    assert!(
        !firings.is_empty(),
        "no firing; stdout {:?}, stderr {:?}",
        outcome.stdout,
        outcome.stderr
    );
    for firing in &firings {
        assert_eq!(firing.depth, firing.frames.len(), "{firing:#?}");
        match firing.frames.get(1) {
            Some(second) => assert_eq!(&firing.caller, second, "{firing:#?}"),
            None => assert_eq!(firing.caller, "0x0", "{firing:#?}"),
        }
    }
    firings
}

/// Checks that no firing's stack holds a machinery frame and that every one starts in
/// one of `functions`.
fn assert_first_frames_in(firings: &[Firing], functions: &[&str]) {
    for firing in firings {
        assert!(
            !firing.frames.iter().any(|frame| is_machinery(frame)),
            "a machinery frame shows: {firing:#?}"
        );
        let first = firing.frames.first().map(|frame| function_of(frame));
        assert!(
            first.is_some_and(|first| functions.contains(&first)),
            "the stack starts in {first:?}, not in one of {functions:?}: {firing:#?}"
        );
    }
}

#[test]
fn syscall_entry_and_return_stacks_start_in_the_system_call_path() {
    if DTRACE.must_skip() {
        return;
    }
    // The sdt probe is a second callback on the `sys_enter` tracepoint, which puts the
    // optional `__traceiter_sys_enter` frame into every entry stack.
    let program = format!(
        "syscall::getppid:entry,syscall::getppid:return,sdt:syscalls::sys_enter_getppid \
         /pid == $target/ {{ {FIRING_ACTIONS} }}"
    );
    let firings = traced_firings("syscall", GETPPID_LOAD, "5", &program);
    assert!(firings.len() >= 15, "{firings:#?}");
    // The tracepoints are hit in the system call's entry and exit work, which the
    // dispatcher calls (a kernel may inline them into it).
    assert_first_frames_in(
        &firings,
        &[
            "syscall_trace_enter",
            "syscall_exit_work",
            "syscall_exit_to_user_mode",
            "do_syscall_64",
        ],
    );
}

#[test]
fn sdt_tracepoint_stacks_start_where_the_tracepoint_is_hit() {
    if DTRACE.must_skip() {
        return;
    }
    let program =
        format!("sdt:syscalls::sys_enter_getppid /pid == $target/ {{ {FIRING_ACTIONS} }}");
    let firings = traced_firings("sdt-syscalls", GETPPID_LOAD, "5", &program);
    assert!(firings.len() >= 5, "{firings:#?}");
    assert_first_frames_in(&firings, &["syscall_trace_enter", "do_syscall_64"]);

    let program = format!("sdt:sched::sched_process_fork /pid == $target/ {{ {FIRING_ACTIONS} }}");
    let firings = traced_firings("sdt-fork", FORK_LOAD, "3", &program);
    assert_eq!(firings.len(), 3, "{firings:#?}");
    assert_first_frames_in(&firings, &["kernel_clone", "_do_fork"]);
}

#[test]
fn error_clause_stacks_leave_out_the_machinery_too() {
    if DTRACE.must_skip() {
        return;
    }
    // The ERROR clauses run in a subprogram: one more BPF frame on top.
    let program = format!(
        "syscall::getppid:entry /pid == $target/ {{ x = *(int *)0; }} ERROR {{ {FIRING_ACTIONS} }}"
    );
    let firings = traced_firings("error", GETPPID_LOAD, "3", &program);
    assert!(firings.len() >= 3, "{firings:#?}");
    assert_first_frames_in(&firings, &["syscall_trace_enter", "do_syscall_64"]);
}

#[test]
fn profile_stacks_start_at_the_interrupted_function() {
    if DTRACE.must_skip() {
        return;
    }
    let program = format!("profile-997 /pid == $target/ {{ {FIRING_ACTIONS} }}");
    let firings = traced_firings("profile", KERNEL_BUSY_LOAD, "0.5", &program);
    // Samples that hit user mode have no kernel stack; reading /dev/zero keeps most of
    // them in the kernel.
    assert!(
        firings.iter().any(|firing| firing.depth > 0),
        "no sample hit the kernel: {firings:#?}"
    );
    // The stack starts at the interrupted instruction, which may be anywhere (even in
    // another session's BPF program), but never in the path from the timer interrupt to
    // the probe's program.
    for firing in &firings {
        assert!(
            !firing.frames.iter().any(|frame| {
                let function = function_of(frame);
                function.contains("perf_event_overflow")
                    || function == "bpf_overflow_handler"
                    || function.starts_with("perf_swevent")
                    || function.contains("bpf_prog_run")
            }),
            "the sampling machinery shows: {firing:#?}"
        );
    }
}

#[test]
fn maxframes_cuts_every_stack_depth() {
    if DTRACE.must_skip() {
        return;
    }
    // A system call's stack is several frames deep; `maxframes` cuts both an explicit
    // depth and the default one (`stackframes`) to its value.
    for (maxframes, program) in [
        ("1", "syscall:::entry { stack(5); exit(0); }"),
        ("2", "syscall:::entry { stack(); exit(0); }"),
    ] {
        let outcome = DTRACE.run(&["-q", "-x", &format!("maxframes={maxframes}"), "-n", program]);
        assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
        // Firings on other CPUs may record a stack before exit() takes effect: every
        // stack printed has the cut depth.
        let depths: Vec<String> = outcome
            .stdout
            .split("\n\n")
            .map(|stack| stack.lines().filter(|line| !line.trim().is_empty()).count())
            .filter(|&frames| frames > 0)
            .map(|frames| frames.to_string())
            .collect();
        assert!(!depths.is_empty(), "{}", outcome.stdout);
        assert!(
            depths.iter().all(|depth| depth == maxframes),
            "{}",
            outcome.stdout
        );
    }
}
