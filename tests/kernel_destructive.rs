//! The destructive actions that signal processes, on the live kernel: `raise(sig)`
//! delivers the signal to the thread that fired the probe, `stop()` stops its process,
//! and a bad signal number is an illegal operation while tracing goes on; these need
//! root and skip with a reason otherwise. Both engines refuse `panic()`, `breakpoint()`
//! and `chill()`, which Linux cannot carry out (the user-space engine's refusal needs no
//! root). The interpreter's signals are tested in difvm.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::live::{python_interpreter, LiveDtrace, ScratchDirectory};

const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(30));

/// Installs a SIGUSR1 handler that reports the signal, then makes one getppid() call per
/// 10 ms for at most ten seconds, leaving as soon as the signal has come.
const SIGNALLED_LOAD: &str = "import os, signal, sys, time\n\
got = []\n\
signal.signal(signal.SIGUSR1, lambda *_: got.append(1))\n\
for _ in range(1000):\n    os.getppid()\n    time.sleep(0.01)\n    if got:\n        print('got SIGUSR1', flush=True)\n        break\n";

/// Makes one getppid() call per 10 ms, for at most a minute.
const POLLING_LOAD: &str = "import os, time\n\
for _ in range(6000):\n    os.getppid()\n    time.sleep(0.01)\n";

#[test]
fn raise_delivers_the_signal_to_the_firing_thread() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run_with_load(
        "raise",
        SIGNALLED_LOAD,
        "",
        &[
            "-w",
            "-q",
            "-n",
            "syscall::getppid:entry /pid == $target/ { raise(10); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert!(
        outcome.stdout.contains("got SIGUSR1"),
        "the target never saw the signal; stdout {:?}, stderr {:?}",
        outcome.stdout,
        outcome.stderr
    );
}

#[test]
fn a_signal_number_past_the_last_is_an_illegal_operation() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-w",
        "-q",
        "-n",
        "BEGIN { raise(65); printf(\"not reached\\n\"); } BEGIN { printf(\"next clause\\n\"); exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert!(
        outcome.stderr.contains(
            "dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): illegal operation in action #1"
        ),
        "stderr {:?}",
        outcome.stderr
    );
    assert_eq!(outcome.stdout, "next clause\n\n");
}

#[test]
fn actions_linux_cannot_carry_out_are_refused_before_tracing() {
    let mut engines = vec!["vm"];
    if DTRACE.reason_to_skip().is_none() {
        engines.push("kernel");
    } else {
        println!("kernel engine not checked: it needs root");
    }
    for engine in engines {
        for action in ["panic()", "breakpoint()", "chill(10)"] {
            let program = format!("BEGIN {{ {action}; exit(0); }}");
            let arguments = [
                "-w",
                "-q",
                "-x",
                &format!("engine={engine}"),
                "-n",
                &program,
            ];
            let outcome = DTRACE.run(&arguments);
            assert_eq!(
                outcome.status,
                Some(1),
                "{engine} {action}: {}",
                outcome.stderr
            );
            let name = &action[..action.find('(').expect("an action call")];
            let refusal = outcome.stderr.lines().find(|line| {
                line.starts_with("dtrace: could not enable tracing: ")
                    && line.contains(&format!("{name}() ("))
                    && line.contains("is not supported")
            });
            assert!(refusal.is_some(), "{engine} {action}: {:?}", outcome.stderr);
            assert!(
                outcome.stdout.is_empty(),
                "{engine} {action}: {:?}",
                outcome.stdout
            );
        }
    }
}

/// The process state letter of `/proc/PID/stat` (after the parenthesised name).
fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")?.1.chars().next()
}

/// Kills the load process however the test ends.
struct LoadProcess(Child);

impl Drop for LoadProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn stop_stops_the_firing_process() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("stop");
    let script = scratch.write("load.py", POLLING_LOAD);
    let load = LoadProcess(
        Command::new(python_interpreter().expect("checked by must_skip"))
            .arg(&script)
            .stdin(Stdio::null())
            .spawn()
            .expect("start the load"),
    );
    let pid = load.0.id();
    let program = format!("syscall::getppid:entry /pid == {pid}/ {{ stop(); exit(0); }}");
    let outcome = DTRACE.run(&["-w", "-q", "-n", &program]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut state = process_state(pid);
    while state != Some('T') && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        state = process_state(pid);
    }
    assert_eq!(state, Some('T'), "the load process was not stopped");
}

/// Spins without system calls, for at most a minute, with SIGINT's default action (a
/// process started in the background by a shell may inherit SIGINT ignored).
const SPINNING_LOAD: &str = "import signal, time\n\
signal.signal(signal.SIGINT, signal.SIG_DFL)\n\
end = time.monotonic() + 60\n\
while time.monotonic() < end:\n    pass\n";

/// Makes one getppid() call per 10 ms, for at most a minute, with SIGINT's default action.
const POLLING_LOAD_DYING_OF_SIGINT: &str = "import os, signal, time\n\
signal.signal(signal.SIGINT, signal.SIG_DFL)\n\
for _ in range(6000):\n    os.getppid()\n    time.sleep(0.01)\n";

/// Runs `dtrace -w ARGUMENTS -c LOAD` where `probe` raises SIGINT in the command, and
/// checks that the command dies of it and dtrace says so and exits by itself, as
/// DTrace does (`dtrace: pid N terminated by SIGINT`, exit status 0).
fn assert_raise_kills_the_command(test_name: &str, load: &str, clause: &str) {
    let outcome = DTRACE.run_with_load(test_name, load, "", &["-w", "-n", clause]);
    assert_eq!(outcome.status, Some(0), "{clause}: {}", outcome.stderr);
    let reported = outcome
        .stderr
        .lines()
        .any(|line| line.starts_with("dtrace: pid ") && line.ends_with(" terminated by SIGINT"));
    assert!(reported, "{clause}: stderr {:?}", outcome.stderr);
}

#[test]
fn raise_in_a_system_call_probe_kills_the_command() {
    if DTRACE.must_skip() {
        return;
    }
    assert_raise_kills_the_command(
        "raise-syscall",
        POLLING_LOAD_DYING_OF_SIGINT,
        "syscall::getppid:return /pid == $target/ { raise(SIGINT); }",
    );
}

#[test]
fn raise_in_a_profile_probe_kills_the_spinning_command() {
    if DTRACE.must_skip() {
        return;
    }
    // The profile probe fires from the timer interrupt (NMI-like context for the perf
    // event), where the signal is queued for the interrupted thread.
    assert_raise_kills_the_command(
        "raise-profile",
        SPINNING_LOAD,
        "profile-997 /pid == $target/ { raise(SIGINT); }",
    );
}

#[test]
fn raise_in_a_pid_probe_kills_the_command() {
    if DTRACE.must_skip() {
        return;
    }
    assert_raise_kills_the_command(
        "raise-pid",
        POLLING_LOAD_DYING_OF_SIGINT,
        "pid$target::getppid:entry { raise(SIGINT); }",
    );
}

#[test]
fn raise_in_a_grabbed_process_ends_tracing_when_it_dies() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("raise-grabbed");
    let script = scratch.write("load.py", POLLING_LOAD_DYING_OF_SIGINT);
    let load = LoadProcess(
        Command::new(python_interpreter().expect("checked by must_skip"))
            .arg(&script)
            .stdin(Stdio::null())
            .spawn()
            .expect("start the load"),
    );
    let pid = load.0.id().to_string();
    let outcome = DTRACE.run(&[
        "-w",
        "-q",
        "-n",
        "syscall::getppid:entry /pid == $target/ { raise(SIGINT); }",
        "-p",
        &pid,
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
}
