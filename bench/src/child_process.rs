//! Children the harness runs (tracers and the load program): spawned in a process group
//! of their own and killed if the harness dies, waited for with a deadline, reaped with
//! wait4(2) for their peak RSS, and killed with their whole group when dropped.
//!
//! Children must be spawned from the main thread: the kernel delivers the parent-death
//! signal when the spawning *thread* ends, not the process.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crate::output_watch::StreamWatcher;

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitReport {
    /// The exit status, or `None` when a signal ended it.
    pub code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    /// When the harness saw it end.
    pub exited_at: Instant,
    /// Its peak resident set size, in bytes (wait4's `ru_maxrss`).
    pub peak_rss_bytes: u64,
}

impl ExitReport {
    /// `status 1` or `signal 9`, for messages.
    pub fn describe(&self) -> String {
        match (self.code, self.signal) {
            (Some(code), _) => format!("status {code}"),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => "an unknown status".to_string(),
        }
    }
}

/// What a child's output streams are watched for.
pub struct WatchPlan<'a> {
    /// Words counted on standard output.
    pub stdout_words: &'a [&'a str],
    /// Standard output lines kept (for the load program's result lines).
    pub stdout_keep: usize,
}

/// A running (or ended but not yet dropped) child.
pub struct MonitoredChild {
    pid: i32,
    started_at: Instant,
    started_monotonic_ns: u64,
    pidfd: Option<OwnedFd>,
    stdin: Option<ChildStdin>,
    pub stdout: StreamWatcher,
    pub stderr: StreamWatcher,
    exit: Option<ExitReport>,
}

/// Lines of standard error kept for failure messages.
const STDERR_KEEP: usize = 40;

impl MonitoredChild {
    /// Spawns `command` with piped standard streams.
    pub fn spawn(mut command: Command, plan: &WatchPlan<'_>) -> Result<MonitoredChild, String> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        // SIGINT is set back to its default because a harness started in the background
        // of a non-interactive shell inherits it ignored, and a tracer that keeps an
        // ignored SIGINT could not be stopped the way a user stops it.
        // SAFETY: the closure runs between fork and exec and calls only prctl and signal,
        // which are async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::signal(libc::SIGINT, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let program = command.get_program().to_string_lossy().into_owned();
        let started_at = Instant::now();
        let started_monotonic_ns = monotonic_now_ns();
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot run {program}: {error}"))?;
        let pid = child.id() as i32;
        let stdout = match child.stdout.take() {
            Some(stream) => StreamWatcher::start(stream, plan.stdout_words, plan.stdout_keep),
            None => StreamWatcher::start(std::io::empty(), &[], 0),
        };
        let stderr = match child.stderr.take() {
            Some(stream) => StreamWatcher::start(stream, &[], STDERR_KEEP),
            None => StreamWatcher::start(std::io::empty(), &[], 0),
        };
        Ok(MonitoredChild {
            pid,
            started_at,
            started_monotonic_ns,
            pidfd: open_pidfd(pid),
            stdin: child.stdin.take(),
            stdout,
            stderr,
            exit: None,
        })
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// When `spawn` was called.
    pub fn started_at(&self) -> Instant {
        self.started_at
    }

    /// When `spawn` was called, in CLOCK_MONOTONIC nanoseconds (the clock of the
    /// tracers' `timestamp` and `nsecs`).
    pub fn started_monotonic_ns(&self) -> u64 {
        self.started_monotonic_ns
    }

    /// Writes one line to the child's standard input.
    pub fn send_line(&mut self, line: &str) -> Result<(), String> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| "the child's input is closed".to_string())?;
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|_| stdin.flush())
            .map_err(|error| format!("cannot write to the child: {error}"))
    }

    /// Closes the child's standard input (the load program's signal to finish).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The exit report if the child has ended, reaping it if it just did.
    pub fn try_exit(&mut self) -> Option<&ExitReport> {
        if self.exit.is_none() {
            self.exit = reap(self.pid, false);
        }
        self.exit.as_ref()
    }

    /// Waits until the child ends or `deadline` passes.
    pub fn wait_until(&mut self, deadline: Instant) -> Option<&ExitReport> {
        while self.exit.is_none() {
            if self.try_exit().is_some() {
                break;
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            self.sleep_until_exit_or(deadline - now);
        }
        self.exit.as_ref()
    }

    /// Sleeps until the child may have ended, at most `longest`. With a pidfd the wake-up
    /// is at the exit itself; without, the harness looks every 200 µs.
    fn sleep_until_exit_or(&self, longest: Duration) {
        match &self.pidfd {
            Some(pidfd) => {
                let mut poll_fd = libc::pollfd {
                    fd: pidfd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                let milliseconds = longest.as_millis().clamp(1, 1_000) as libc::c_int;
                // SAFETY: one valid pollfd on our stack.
                unsafe {
                    libc::poll(&mut poll_fd, 1, milliseconds);
                }
            }
            None => std::thread::sleep(longest.min(Duration::from_micros(200))),
        }
    }

    /// Sends `signal` to the child alone (not its group).
    pub fn signal(&self, signal: i32) {
        if self.exit.is_none() {
            // SAFETY: kill has no memory effects; the child is not reaped, so its pid is
            // still its own.
            unsafe {
                libc::kill(self.pid, signal);
            }
        }
    }

    /// Sends SIGINT and waits up to `timeout` for the child to end; kills it if it does
    /// not. Returns the exit report and how long the child took after the signal.
    pub fn interrupt(&mut self, timeout: Duration) -> Result<(ExitReport, Duration), String> {
        let sent_at = Instant::now();
        self.signal(libc::SIGINT);
        match self.wait_until(sent_at + timeout).cloned() {
            Some(report) => {
                let took = report.exited_at.saturating_duration_since(sent_at);
                Ok((report, took))
            }
            None => {
                self.kill();
                Err(format!(
                    "still running {} s after SIGINT; killed",
                    timeout.as_secs()
                ))
            }
        }
    }

    /// Kills the child's whole process group and reaps the child, if it has not ended.
    /// A child already reaped is left alone: its process ID (and group ID) may belong to
    /// some other process by now.
    pub fn kill(&mut self) {
        if self.exit.is_some() {
            return;
        }
        // SAFETY: the child is not reaped, so the group (process_group(0)) is still its
        // own; kill has no memory effects.
        unsafe {
            libc::kill(-self.pid, libc::SIGKILL);
        }
        self.exit = reap(self.pid, true);
    }

    /// A one-line reason for a failed run: the most telling line of its standard error
    /// first (what a table cell has room for), then `what` and the exit status.
    pub fn failure_reason(&mut self, what: &str) -> String {
        let _ = self
            .stderr
            .wait_closed(Instant::now() + Duration::from_millis(200));
        let detail = telling_line(&self.stderr.kept_text());
        let status = self
            .try_exit()
            .map(|report| format!(", exit {}", report.describe()))
            .unwrap_or_default();
        match detail {
            Some(detail) => format!("{detail} ({what}{status})"),
            None => format!("{what}{status}"),
        }
    }
}

impl Drop for MonitoredChild {
    fn drop(&mut self) {
        self.stdin = None;
        self.kill();
    }
}

/// The line of a tool's standard error that says most about a failure: the last error
/// line (dtrace's `dtrace: ...`, bpftrace's `ERROR: ...`), else the last non-empty line.
/// bpftrace's RLIMIT_MEMLOCK warning, printed even when everything works, is passed
/// over.
pub fn telling_line(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.contains("RLIMIT_MEMLOCK"))
        .collect();
    lines
        .iter()
        .rev()
        .find(|line| {
            line.starts_with("dtrace:") || line.contains("ERROR") || line.contains("error")
        })
        .or(lines.last())
        .map(|line| line.to_string())
}

/// CLOCK_MONOTONIC now, in nanoseconds.
pub fn monotonic_now_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec on our stack.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now);
    }
    now.tv_sec.max(0) as u64 * 1_000_000_000 + now.tv_nsec.max(0) as u64
}

fn open_pidfd(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: the descriptor was just created and is owned by nobody else.
    Some(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// wait4 on `pid`, blocking or not.
fn reap(pid: i32, block: bool) -> Option<ExitReport> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it and the status.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let flags = if block { 0 } else { libc::WNOHANG };
    // SAFETY: valid pointers to our stack.
    let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
    if reaped != pid {
        return None;
    }
    let exited_at = Instant::now();
    let (code, signal) = if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)))
    } else {
        (None, None)
    };
    Some(ExitReport {
        code,
        signal,
        exited_at,
        peak_rss_bytes: (usage.ru_maxrss.max(0) as u64) * 1024,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn telling_lines_are_chosen() {
        for (stderr, expected) in [
            ("", None),
            (
                "ERROR: Unknown error -1: couldn't set RLIMIT_MEMLOCK for bpftrace.\nAttaching 1 probe...\n",
                Some("Attaching 1 probe..."),
            ),
            (
                "dtrace: description 'syscall:::entry ' matched 360 probes\ndtrace: could not enable tracing: no\n",
                Some("dtrace: could not enable tracing: no"),
            ),
            (
                "stdin:1:9-16: ERROR: exit() requires no arguments (1 provided)\nBEGIN { exit(0); }\n        ~~~~~~~\n",
                Some("stdin:1:9-16: ERROR: exit() requires no arguments (1 provided)"),
            ),
        ] {
            assert_eq!(telling_line(stderr).as_deref(), expected, "{stderr:?}");
        }
    }

    #[test]
    fn children_run_and_report() {
        let mut command = Command::new("sh");
        command.args(["-c", "echo out; echo err >&2; exit 3"]);
        let mut child = MonitoredChild::spawn(
            command,
            &WatchPlan {
                stdout_words: &["out"],
                stdout_keep: 5,
            },
        )
        .expect("sh runs");
        let report = child
            .wait_until(Instant::now() + Duration::from_secs(10))
            .cloned()
            .expect("sh ends");
        assert_eq!(report.code, Some(3));
        assert!(report.peak_rss_bytes > 0);
        assert!(child
            .stdout
            .wait_closed(Instant::now() + Duration::from_secs(5)));
        assert_eq!(child.stdout.word_lines(0), 1);
        assert_eq!(
            child.failure_reason("sh failed"),
            "err (sh failed, exit status 3)"
        );
    }

    #[test]
    fn slow_children_are_interrupted() {
        let mut command = Command::new("sleep");
        command.arg("30");
        let mut child = MonitoredChild::spawn(
            command,
            &WatchPlan {
                stdout_words: &[],
                stdout_keep: 0,
            },
        )
        .expect("sleep runs");
        assert!(child
            .wait_until(Instant::now() + Duration::from_millis(20))
            .is_none());
        let (report, took) = child
            .interrupt(Duration::from_secs(10))
            .expect("sleep stops");
        assert_eq!(report.signal, Some(libc::SIGINT));
        assert!(took < Duration::from_secs(10));
    }
}
