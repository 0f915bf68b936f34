//! Start-up: wall time and peak RSS of `BEGIN { exit(0); }`, from spawning the tracer to
//! its exit; and the same for a BEGIN clause that reads a kernel type
//! (`curthread->pid`), which is what resolving `struct task_struct` from the kernel's BTF
//! costs.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::child_process::{MonitoredChild, WatchPlan};
use crate::harness::{cell, mark_unmeasured, Harness};
use crate::statistics::Unit;
use crate::table::{Better, Row};
use crate::tools::{BpftraceScript, DtraceScript, ScriptPair, ToolKind};

/// The longest a start-up run may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(30);

fn scripts() -> ScriptPair {
    ScriptPair {
        dtrace: DtraceScript {
            quiet: true,
            options: Vec::new(),
            clauses: vec!["BEGIN { exit(0); }".to_string()],
        },
        bpftrace: BpftraceScript {
            // bpftrace before 0.19 takes no exit status.
            program: "BEGIN { exit(); }".to_string(),
            environment: Vec::new(),
        },
    }
}

/// A BEGIN clause that reads `struct task_struct` through the kernel's BTF.
fn kernel_type_scripts() -> ScriptPair {
    ScriptPair {
        dtrace: DtraceScript {
            quiet: true,
            options: Vec::new(),
            clauses: vec!["BEGIN { trace(curthread->pid); exit(0); }".to_string()],
        },
        bpftrace: BpftraceScript {
            program: "BEGIN { printf(\"%d\\n\", curtask->pid); exit(); }".to_string(),
            environment: Vec::new(),
        },
    }
}

pub fn run(harness: &mut Harness) {
    // dtrace's BEGIN may run on the user-space engine, without privileges.
    measure(
        harness,
        &scripts(),
        "start-up: `BEGIN { exit(0); }` wall time",
        "start-up: peak RSS",
        false,
    );
    // Reading kernel memory needs the kernel engine, so privileges.
    measure(
        harness,
        &kernel_type_scripts(),
        "start-up reading `curthread->pid` (BTF): wall time",
        "start-up reading `curthread->pid` (BTF): peak RSS",
        true,
    );
}

/// Runs both tools' `scripts` the configured number of times, alternating, into a wall
/// time row and a peak RSS row.
fn measure(
    harness: &mut Harness,
    scripts: &ScriptPair,
    wall_row: &str,
    rss_row: &str,
    needs_privileges: bool,
) {
    let mut rows = harness.rows(
        &[
            Row::new(wall_row, Unit::Milliseconds, Better::Lower),
            Row::new(rss_row, Unit::Bytes, Better::Lower),
        ],
        needs_privileges,
    );
    for repetition in 0..harness.settings.startup_repetitions {
        if !harness.has_time_for(Duration::from_secs(5)) {
            break;
        }
        for kind in harness.tools_in_turn(repetition) {
            let Ok(tool) = harness.tool(kind, needs_privileges) else {
                continue;
            };
            let outcome = run_once(tool.command(scripts), kind);
            harness.progress(&format!(
                "{wall_row} {}/{} {}: {}",
                repetition + 1,
                harness.settings.startup_repetitions,
                kind.name(),
                match &outcome {
                    Ok((wall, rss)) => format!("{wall:.1} ms, {:.1} MiB", rss / 1048576.0),
                    Err(reason) => reason.clone(),
                }
            ));
            match outcome {
                Ok((wall, rss)) => {
                    cell(&mut rows[0], kind).record(Ok(wall));
                    cell(&mut rows[1], kind).record(Ok(rss));
                }
                Err(reason) => {
                    cell(&mut rows[0], kind).record(Err(reason.clone()));
                    cell(&mut rows[1], kind).record(Err(reason));
                }
            }
        }
    }
    mark_unmeasured(&mut rows);
    harness.report.rows.extend(rows);
}

/// One start-up: milliseconds from spawn to exit, and peak RSS in bytes.
fn run_once(command: Command, kind: ToolKind) -> Result<(f64, f64), String> {
    let mut tracer = MonitoredChild::spawn(
        command,
        &WatchPlan {
            stdout_words: &[],
            stdout_keep: 0,
        },
    )?;
    let started = tracer.started_at();
    let Some(report) = tracer.wait_until(Instant::now() + RUN_TIMEOUT).cloned() else {
        tracer.kill();
        return Err(format!(
            "{} did not exit within {} s",
            kind.name(),
            RUN_TIMEOUT.as_secs()
        ));
    };
    if report.code != Some(0) {
        return Err(tracer.failure_reason(&format!("{} failed", kind.name())));
    }
    let wall = report.exited_at.saturating_duration_since(started);
    Ok((wall.as_secs_f64() * 1e3, report.peak_rss_bytes as f64))
}
