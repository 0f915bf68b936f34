//! Enabling every syscall entry probe: the time from spawning the tracer until its probes
//! count (the marker clause, last in the script, fires on the harness's marker syscall;
//! the time is the probe's own timestamp), and the time from SIGINT until it has printed
//! the aggregation and exited.

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
    let mut rows = harness.rows(
        &[
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
        ],
        true,
    );
    let scripts = scripts();
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
            let outcome = run_once(tool, &scripts, kind);
            harness.progress(&format!(
                "enable all syscalls {}/{repetitions} {}: {}",
                repetition + 1,
                kind.name(),
                describe(&outcome)
            ));
            let (enable, teardown) = outcome;
            cell(&mut rows[0], kind).record(enable);
            cell(&mut rows[1], kind).record(teardown);
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
