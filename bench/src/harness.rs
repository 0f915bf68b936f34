//! What every benchmark group shares: the two tracers (or why one cannot run), the time
//! budget, alternating the tools between repetitions, starting a tracer and waiting until
//! its probes are live, stopping it with SIGINT, and driving the load program.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::child_process::{ExitReport, MonitoredChild, WatchPlan};
use crate::load_generator::{LoadRequest, LoadResult};
use crate::settings::Settings;
use crate::table::{Measurement, Report, Row};
use crate::tools::{
    make_marker_call, marker_timestamp, ScriptPair, Tool, ToolKind, EVENT_WORD, LOAD_PROGRAM_WORD,
    MARKER_WORD,
};

/// Words watched on a tracer's standard output, by index.
pub const TRACER_WORDS: [&str; 3] = [MARKER_WORD, EVENT_WORD, LOAD_PROGRAM_WORD];
/// Index of the marker word in `TRACER_WORDS`.
pub const MARKER_INDEX: usize = 0;
/// Index of the per-event word in `TRACER_WORDS`.
pub const EVENT_INDEX: usize = 1;
/// Index of the load program's name in `TRACER_WORDS` (lines printed per event with
/// `execname` or `comm`).
pub const LOAD_PROGRAM_INDEX: usize = 2;

/// How often the harness makes the marker syscall while waiting for a tracer.
const MARKER_INTERVAL: Duration = Duration::from_millis(1);

/// A tracer that can run, or why it cannot.
#[derive(Debug, Clone)]
pub enum ToolSlot {
    Ready(Tool),
    Unavailable(String),
}

/// The state of one benchmark run.
pub struct Harness {
    pub settings: Settings,
    pub ours: ToolSlot,
    pub bpftrace: ToolSlot,
    pub load_program: PathBuf,
    pub is_root: bool,
    pub started: Instant,
    pub report: Report,
}

impl Harness {
    /// Time left of the run's budget.
    pub fn time_left(&self) -> Duration {
        self.settings.budget.saturating_sub(self.started.elapsed())
    }

    /// Whether a repetition that takes about `needed` still fits in the budget.
    pub fn has_time_for(&self, needed: Duration) -> bool {
        self.time_left() >= needed
    }

    /// The tools in the order repetition `repetition` runs them: alternating, so that
    /// neither always runs first (on a cold cache) or last.
    pub fn tools_in_turn(&self, repetition: u32) -> [ToolKind; 2] {
        if repetition.is_multiple_of(2) {
            [ToolKind::Dtrace, ToolKind::Bpftrace]
        } else {
            [ToolKind::Bpftrace, ToolKind::Dtrace]
        }
    }

    /// The tool of `kind`, or why it cannot run. Rows that need the kernel (all of
    /// bpftrace's, and ours except the user-space engine's start-up) also need root.
    pub fn tool(&self, kind: ToolKind, needs_kernel: bool) -> Result<&Tool, String> {
        let needs_kernel = needs_kernel || kind == ToolKind::Bpftrace;
        let slot = match kind {
            ToolKind::Dtrace => &self.ours,
            ToolKind::Bpftrace => &self.bpftrace,
        };
        match slot {
            ToolSlot::Unavailable(reason) => Err(reason.clone()),
            ToolSlot::Ready(_) if needs_kernel && !self.is_root => Err("needs root".to_string()),
            ToolSlot::Ready(tool) => Ok(tool),
        }
    }

    /// Fresh rows, with the cells of tools that cannot run marked skipped.
    pub fn rows(&self, specs: &[Row], needs_kernel: bool) -> Vec<Row> {
        specs
            .iter()
            .map(|spec| {
                let mut row = spec.clone();
                if let Err(reason) = self.tool(ToolKind::Dtrace, needs_kernel) {
                    row.ours = Measurement::skipped(&reason);
                }
                if let Err(reason) = self.tool(ToolKind::Bpftrace, needs_kernel) {
                    row.bpftrace = Measurement::skipped(&reason);
                }
                row
            })
            .collect()
    }

    /// Prints one progress line on standard error.
    pub fn progress(&self, text: &str) {
        eprintln!("[{:6.1} s] {text}", self.started.elapsed().as_secs_f64());
    }
}

/// The measurement of `kind` in `row`.
pub fn cell(row: &mut Row, kind: ToolKind) -> &mut Measurement {
    match kind {
        ToolKind::Dtrace => &mut row.ours,
        ToolKind::Bpftrace => &mut row.bpftrace,
    }
}

/// Marks every cell that got nothing (no samples, failures or skip reason) as skipped
/// for want of time.
pub fn mark_unmeasured(rows: &mut [Row]) {
    for row in rows {
        for measurement in [&mut row.ours, &mut row.bpftrace] {
            if measurement.samples.is_empty()
                && measurement.failures.is_empty()
                && measurement.skipped.is_none()
            {
                measurement.skipped = Some("time budget".to_string());
            }
        }
    }
}

/// Starts `tool` on `scripts`.
pub fn start_tracer(tool: &Tool, scripts: &ScriptPair) -> Result<MonitoredChild, String> {
    MonitoredChild::spawn(
        tool.command(scripts),
        &WatchPlan {
            stdout_words: &TRACER_WORDS,
            stdout_keep: 0,
        },
    )
}

/// Makes the marker syscall every millisecond until the tracer prints the marker line
/// (its probes are live), it exits, or `timeout` passes. Returns how long after the
/// spawn the marker probe fired, from the timestamp in the marker line (or, if the line
/// has none, from when the line arrived).
pub fn wait_until_live(
    tracer: &mut MonitoredChild,
    tool: ToolKind,
    timeout: Duration,
) -> Result<Duration, String> {
    let deadline = Instant::now() + timeout;
    loop {
        make_marker_call();
        if let Some((arrived, line)) = tracer.stdout.word_first_seen(MARKER_INDEX) {
            let started = tracer.started_monotonic_ns();
            return Ok(match marker_timestamp(&line) {
                Some(fired) if fired >= started => Duration::from_nanos(fired - started),
                _ => arrived.saturating_duration_since(tracer.started_at()),
            });
        }
        if tracer.try_exit().is_some() {
            return Err(tracer.failure_reason(&format!("{} exited before tracing", tool.name())));
        }
        if Instant::now() >= deadline {
            tracer.kill();
            return Err(tracer.failure_reason(&format!(
                "{} was not tracing after {} s",
                tool.name(),
                timeout.as_secs()
            )));
        }
        std::thread::sleep(MARKER_INTERVAL);
    }
}

/// Stops a tracer with SIGINT, waits for it (killing it after `timeout`) and for the
/// end of its output. Returns its exit report and how long it took after the signal.
pub fn stop_tracer(
    tracer: &mut MonitoredChild,
    tool: ToolKind,
    timeout: Duration,
) -> Result<(ExitReport, Duration), String> {
    if tracer.try_exit().is_some() {
        return Err(tracer.failure_reason(&format!("{} exited while tracing", tool.name())));
    }
    let (report, took) = tracer
        .interrupt(timeout)
        .map_err(|reason| format!("{} {reason}", tool.name()))?;
    if report.code != Some(0) {
        return Err(tracer.failure_reason(&format!("{} failed after SIGINT", tool.name())));
    }
    tracer
        .stdout
        .wait_closed(Instant::now() + Duration::from_secs(30));
    Ok((report, took))
}

/// Waits until `target` lines with watched word `word` have arrived in all, or the
/// output has been quiet for `quiet` (the rest are lost), at most `longest`. `quiet`
/// must be longer than the tracer's drain period: dtrace reads its buffers at
/// `switchrate` (once a second by default), so its records arrive in bursts.
pub fn wait_for_records(
    tracer: &MonitoredChild,
    word: usize,
    target: u64,
    quiet: Duration,
    longest: Duration,
) {
    let deadline = Instant::now() + longest;
    let mut last_count = tracer.stdout.snapshot().lines;
    let mut quiet_since = Instant::now();
    while Instant::now() < deadline {
        if tracer.stdout.word_lines(word) >= target {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
        let count = tracer.stdout.snapshot().lines;
        if count != last_count {
            last_count = count;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() >= quiet {
            return;
        }
    }
}

/// Runs the load program once with `request`, killing it after `timeout`.
pub fn run_load_once(
    load_program: &Path,
    request: &LoadRequest,
    timeout: Duration,
) -> Result<LoadResult, String> {
    let mut command = Command::new(load_program);
    command.args(request.to_arguments());
    let mut child = MonitoredChild::spawn(
        command,
        &WatchPlan {
            stdout_words: &[],
            stdout_keep: 4,
        },
    )?;
    let report = child
        .wait_until(Instant::now() + timeout)
        .cloned()
        .ok_or_else(|| format!("the load program took over {} s", timeout.as_secs()))?;
    if report.code != Some(0) {
        return Err(child.failure_reason("the load program failed"));
    }
    child
        .stdout
        .wait_closed(Instant::now() + Duration::from_secs(5));
    let text = child.stdout.kept_text();
    let line = text.lines().last().unwrap_or_default();
    LoadResult::parse_line(line)
}

/// The load program in `--serve` mode: its process ID is known before a tracer starts,
/// and it runs one request per line it is sent.
pub struct LoadServer {
    child: MonitoredChild,
}

impl LoadServer {
    /// Starts the load program and waits for its `ready` line.
    pub fn start(load_program: &Path) -> Result<LoadServer, String> {
        let mut command = Command::new(load_program);
        command.arg("--serve");
        let mut child = MonitoredChild::spawn(
            command,
            &WatchPlan {
                stdout_words: &["ready"],
                stdout_keep: 4,
            },
        )?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.stdout.word_lines(0) == 0 {
            if child.try_exit().is_some() || Instant::now() >= deadline {
                return Err(child.failure_reason("the load program did not start"));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(LoadServer { child })
    }

    pub fn pid(&self) -> i32 {
        self.child.pid()
    }

    /// Runs `request` and returns its result, failing after `timeout`.
    pub fn run(&mut self, request: &LoadRequest, timeout: Duration) -> Result<LoadResult, String> {
        let before = self.child.stdout.snapshot().lines;
        self.child.send_line(&request.to_arguments().join(" "))?;
        let deadline = Instant::now() + timeout;
        loop {
            let state = self.child.stdout.snapshot();
            if state.lines > before {
                let line = state.kept_lines.back().cloned().unwrap_or_default();
                return match line.strip_prefix("error ") {
                    Some(message) => Err(format!("the load program refused a request: {message}")),
                    None => LoadResult::parse_line(&line),
                };
            }
            if self.child.try_exit().is_some() {
                return Err(self.child.failure_reason("the load program ended"));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "the load program took over {} s",
                    timeout.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}

/// The CPU the single-threaded load runs on: the last one, so that the tracer's consumer
/// and the harness mostly have the others.
pub fn load_cpu() -> usize {
    crate::load_generator::online_cpus().saturating_sub(1)
}

/// Bytes the BPF maps a process holds are charged (the `memlock:` of each map in
/// /proc/PID/fdinfo): tracing memory that lives in the kernel, outside the process's RSS.
pub fn bpf_map_memory(pid: i32) -> Option<u64> {
    let entries = std::fs::read_dir(format!("/proc/{pid}/fdinfo")).ok()?;
    let mut total = 0;
    for entry in entries.flatten() {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            total += map_memlock(&text).unwrap_or(0);
        }
    }
    Some(total)
}

/// The `memlock:` bytes of one fdinfo text, if it describes a BPF map.
pub fn map_memlock(fdinfo: &str) -> Option<u64> {
    if !fdinfo.lines().any(|line| line.starts_with("map_type:")) {
        return None;
    }
    fdinfo
        .lines()
        .find_map(|line| line.strip_prefix("memlock:"))
        .and_then(|value| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statistics::Unit;
    use crate::table::Better;

    #[test]
    fn map_memory_is_read_from_fdinfo() {
        let map = "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t2052\nmap_type:\t1\nkey_size:\t8\nvalue_size:\t8\nmax_entries:\t4096\nmap_flags:\t0x0\nmap_extra:\t0x0\nmemlock:\t360448\nmap_id:\t24\n";
        let program = "pos:\t0\nprog_type:\t5\nmemlock:\t4096\n";
        assert_eq!(map_memlock(map), Some(360_448));
        assert_eq!(map_memlock(program), None);
        assert_eq!(map_memlock(""), None);
    }

    #[test]
    fn unmeasured_cells_are_marked() {
        let mut rows = vec![Row::new("r", Unit::Count, Better::Lower)];
        rows[0].ours.record(Ok(1.0));
        mark_unmeasured(&mut rows);
        assert_eq!(rows[0].ours.skipped, None);
        assert_eq!(rows[0].bpftrace.skipped.as_deref(), Some("time budget"));
    }
}
