//! Enabling every syscall entry probe: the time from spawning the tracer until its probes
//! count (the marker clause, last in the script, fires on the harness's marker syscall;
//! the time is the probe's own timestamp), and the time from SIGINT until it has printed
//! the aggregation and exited. Scaling rows time the same enabling of the first 1, 10
//! and 100 syscall entry probes (in tracefs's name order), so that the growth with the
//! number of probes shows.

use std::time::Duration;

use crate::harness::{cell, mark_unmeasured, start_tracer, stop_tracer, wait_until_live, Harness};
use crate::statistics::Unit;
use crate::table::{Better, Row};
use crate::tools::{
    bpftrace_marker_clause, dtrace_marker_clause, BpftraceScript, DtraceScript, ScriptPair, Tool,
    ToolKind,
};

/// The longest a tracer may take to enable every syscall probe (both take under a
/// second on 2 cores; a slow kernel gets plenty of room).
const LIVE_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest teardown allowed: bpftrace 0.17 takes about 27 s to detach 361
/// tracepoints, and now and then hangs, which costs a run this much.
const STOP_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the probes count real traffic before SIGINT.
const TRACING_TIME: Duration = Duration::from_millis(500);

/// The numbers of syscall entry probes the scaling rows enable.
const SCALING_COUNTS: [usize; 3] = [1, 10, 100];

/// Where tracefs lists the syscall tracepoints.
const SYSCALL_EVENTS: &str = "/sys/kernel/tracing/events/syscalls";

/// The syscalls that have entry tracepoints, by name.
fn traced_syscalls() -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(SYSCALL_EVENTS)
        .map_err(|error| format!("cannot list {SYSCALL_EVENTS}: {error}"))?;
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter_map(|name| name.strip_prefix("sys_enter_").map(str::to_string))
        .collect();
    names.sort();
    Ok(names)
}

/// Both tools' scripts counting the entries of `syscalls`.
fn scaled_scripts(syscalls: &[String]) -> ScriptPair {
    let dtrace_probes: Vec<String> = syscalls
        .iter()
        .map(|name| format!("syscall::{name}:entry"))
        .collect();
    let bpftrace_probes: Vec<String> = syscalls
        .iter()
        .map(|name| format!("tracepoint:syscalls:sys_enter_{name}"))
        .collect();
    ScriptPair {
        dtrace: DtraceScript {
            quiet: true,
            options: Vec::new(),
            clauses: vec![
                format!("{} {{ @[probefunc] = count(); }}", dtrace_probes.join(", ")),
                dtrace_marker_clause(),
            ],
        },
        bpftrace: BpftraceScript {
            program: format!(
                "{} {{ @[probe] = count(); }} {}",
                bpftrace_probes.join(", "),
                bpftrace_marker_clause()
            ),
            environment: Vec::new(),
        },
    }
}

fn scripts() -> ScriptPair {
    ScriptPair {
        dtrace: DtraceScript {
            quiet: true,
            options: Vec::new(),
            clauses: vec![
                "syscall:::entry { @[probefunc] = count(); }".to_string(),
                dtrace_marker_clause(),
            ],
        },
        bpftrace: BpftraceScript {
            program: format!(
                "tracepoint:syscalls:sys_enter_* {{ @[probe] = count(); }} {}",
                bpftrace_marker_clause()
            ),
            environment: Vec::new(),
        },
    }
}

pub fn run(harness: &mut Harness) {
    let mut specs = vec![
        Row::new(
            "enable all syscalls: start until tracing",
            Unit::Milliseconds,
            Better::Lower,
        ),
        Row::new(
            "enable all syscalls: teardown after SIGINT",
            Unit::Milliseconds,
            Better::Lower,
        ),
    ];
    for count in SCALING_COUNTS {
        specs.push(Row::new(
            &format!(
                "scaling: enable {count} syscall entry probe{}: start until tracing",
                if count == 1 { "" } else { "s" }
            ),
            Unit::Milliseconds,
            Better::Lower,
        ));
    }
    let mut rows = harness.rows(&specs, true);
    // Each run's script and the row its enabling time goes to (its teardown time only
    // for the run of every syscall).
    let mut runs = vec![(scripts(), 0)];
    match traced_syscalls() {
        Ok(syscalls) => {
            for (index, count) in SCALING_COUNTS.into_iter().enumerate() {
                let chosen = &syscalls[..count.min(syscalls.len())];
                runs.push((scaled_scripts(chosen), 2 + index));
            }
        }
        Err(reason) => {
            for row in &mut rows[2..] {
                row.ours.failures.push(reason.clone());
                row.bpftrace.failures.push(reason.clone());
            }
        }
    }
    let repetitions = harness.settings.enable_all_repetitions;
    for repetition in 0..repetitions {
        for kind in harness.tools_in_turn(repetition) {
            // bpftrace needs about half a minute to tear down; leave room for it.
            if !harness.has_time_for(Duration::from_secs(60)) {
                break;
            }
            let Ok(tool) = harness.tool(kind, true) else {
                continue;
            };
            for (scripts, row) in &runs {
                let outcome = run_once(tool, scripts, kind);
                harness.progress(&format!(
                    "{} {}/{repetitions} {}: {}",
                    rows[*row].label,
                    repetition + 1,
                    kind.name(),
                    describe(&outcome)
                ));
                let (enable, teardown) = outcome;
                cell(&mut rows[*row], kind).record(enable);
                if *row == 0 {
                    cell(&mut rows[1], kind).record(teardown);
                }
            }
        }
    }
    mark_unmeasured(&mut rows);
    harness.report.rows.extend(rows);
}

type Outcome = (Result<f64, String>, Result<f64, String>);

/// One run: the enabling time and the teardown time (a failed enabling fails the
/// teardown cell with the same reason).
fn run_once(tool: &Tool, scripts: &ScriptPair, kind: ToolKind) -> Outcome {
    let mut tracer = match start_tracer(tool, scripts) {
        Ok(tracer) => tracer,
        Err(reason) => return (Err(reason.clone()), Err(reason)),
    };
    let enable = match wait_until_live(&mut tracer, kind, LIVE_TIMEOUT) {
        Ok(enable) => enable,
        Err(reason) => return (Err(reason.clone()), Err(reason)),
    };
    std::thread::sleep(TRACING_TIME);
    let teardown =
        stop_tracer(&mut tracer, kind, STOP_TIMEOUT).map(|(_, took)| took.as_secs_f64() * 1e3);
    (Ok(enable.as_secs_f64() * 1e3), teardown)
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        (Ok(enable), Ok(teardown)) => {
            format!("tracing after {enable:.0} ms, teardown {teardown:.0} ms")
        }
        (Ok(enable), Err(reason)) => format!("tracing after {enable:.0} ms; {reason}"),
        (Err(reason), _) => reason.clone(),
    }
}
