//! Probe effect: nanoseconds a traced `getppid()` costs more than an untraced one, for
//! three enablings of the getppid entry probe: a count aggregation keyed by the program
//! name, the same behind a predicate that is always false, and a printf per event.
//!
//! Each repetition measures the untraced baseline, then each variant under each tracer
//! (alternating which goes first); the row shows the median traced cost minus the median
//! baseline.

use std::time::Duration;

use crate::harness::{
    cell, load_cpu, mark_unmeasured, run_load_once, start_tracer, stop_tracer, wait_until_live,
    Harness, LOAD_PROGRAM_INDEX,
};
use crate::load_generator::LoadRequest;
use crate::statistics::{median, Unit};
use crate::table::{Better, Row};
use crate::tools::{
    bpftrace_marker_clause, dtrace_marker_clause, BpftraceScript, DtraceScript, ScriptPair, Tool,
    ToolKind,
};

const LIVE_TIMEOUT: Duration = Duration::from_secs(30);
const STOP_TIMEOUT: Duration = Duration::from_secs(60);
const LOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// A pause between the marker showing the tracer live and the load, so that the
/// tracer's own start-up work is over.
const SETTLE_TIME: Duration = Duration::from_millis(100);

/// One enabling measured: its row label, the two scripts (without the marker), and the
/// share of the calls it makes (a printf per event costs microseconds, so its runs make
/// fewer calls to stay within the time budget; the cost per call does not depend on it).
struct Variant {
    label: &'static str,
    calls_divisor: u64,
    prints_per_event: bool,
    dtrace_clause: &'static str,
    bpftrace_clause: &'static str,
}

const VARIANTS: [Variant; 3] = [
    Variant {
        label: "probe effect: `@[execname] = count()` on getppid entry, ns added per call",
        calls_divisor: 1,
        prints_per_event: false,
        dtrace_clause: "syscall::getppid:entry { @[execname] = count(); }",
        bpftrace_clause: "tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }",
    },
    Variant {
        label: "probe effect: same behind a false predicate (`/pid == 0/`), ns added per call",
        calls_divisor: 1,
        prints_per_event: false,
        dtrace_clause: "syscall::getppid:entry /pid == 0/ { @[execname] = count(); }",
        bpftrace_clause: "tracepoint:syscalls:sys_enter_getppid /pid == 0/ { @[comm] = count(); }",
    },
    Variant {
        label: "probe effect: `printf` per event, ns added per call",
        calls_divisor: 10,
        prints_per_event: true,
        dtrace_clause: "syscall::getppid:entry { printf(\"%s %d\\n\", execname, pid); }",
        bpftrace_clause:
            "tracepoint:syscalls:sys_enter_getppid { printf(\"%s %d\\n\", comm, pid); }",
    },
];

fn scripts(variant: &Variant) -> ScriptPair {
    ScriptPair {
        dtrace: DtraceScript {
            quiet: true,
            options: Vec::new(),
            clauses: vec![variant.dtrace_clause.to_string(), dtrace_marker_clause()],
        },
        bpftrace: BpftraceScript {
            program: format!("{} {}", variant.bpftrace_clause, bpftrace_marker_clause()),
            environment: Vec::new(),
        },
    }
}

pub fn run(harness: &mut Harness) {
    let specs: Vec<Row> = VARIANTS
        .iter()
        .map(|variant| Row::new(variant.label, Unit::Nanoseconds, Better::Lower))
        .collect();
    let mut rows = harness.rows(&specs, true);
    // Traced costs per call, per variant; the baseline is subtracted at the end.
    let mut traced = rows.clone();
    let mut baseline: Vec<f64> = Vec::new();
    // Lines the printf variant delivered, out of `printed_calls` events.
    let mut printed = Row::new("", Unit::Count, Better::Higher);
    let mut printed_calls = 0;
    let request = LoadRequest {
        calls: harness.settings.probe_effect_calls,
        first_cpu: Some(load_cpu()),
        ..LoadRequest::default()
    };
    let repetitions = harness.settings.probe_effect_repetitions;
    for repetition in 0..repetitions {
        if !harness.has_time_for(Duration::from_secs(20)) {
            break;
        }
        match run_load_once(&harness.load_program, &request, LOAD_TIMEOUT) {
            Ok(result) => {
                harness.progress(&format!(
                    "probe effect {}/{repetitions} untraced: {:.1} ns per call",
                    repetition + 1,
                    result.ns_per_call
                ));
                baseline.push(result.ns_per_call);
            }
            Err(reason) => {
                harness.progress(&format!("untraced load failed: {reason}"));
                harness
                    .report
                    .notes
                    .push(format!("The untraced load failed once: {reason}"));
            }
        }
        for (index, variant) in VARIANTS.iter().enumerate() {
            for kind in harness.tools_in_turn(repetition) {
                let Ok(tool) = harness.tool(kind, true) else {
                    continue;
                };
                let variant_request = LoadRequest {
                    calls: (request.calls / variant.calls_divisor).max(1),
                    ..request.clone()
                };
                let outcome = run_traced(harness, tool, &scripts(variant), kind, &variant_request);
                harness.progress(&format!(
                    "probe effect {}/{repetitions} {} variant {}: {}",
                    repetition + 1,
                    kind.name(),
                    index + 1,
                    match &outcome {
                        Ok(run) => format!(
                            "{:.1} ns per call, {} lines printed",
                            run.ns_per_call, run.lines_printed
                        ),
                        Err(reason) => reason.clone(),
                    }
                ));
                if variant.prints_per_event {
                    if let Ok(run) = &outcome {
                        cell(&mut printed, kind).record(Ok(run.lines_printed as f64));
                    }
                    printed_calls = variant_request.calls;
                }
                cell(&mut traced[index], kind).record(outcome.map(|run| run.ns_per_call));
            }
        }
    }
    let Some(baseline_median) = median(&baseline) else {
        for row in &mut rows {
            for measurement in [&mut row.ours, &mut row.bpftrace] {
                if measurement.skipped.is_none() {
                    measurement
                        .failures
                        .push("no untraced baseline".to_string());
                }
            }
        }
        harness.report.rows.extend(rows);
        return;
    };
    harness.report.notes.push(format!(
        "Untraced `getppid()` (via syscall(2), one thread pinned to CPU {}): {baseline_median:.1} ns per call, median of {} runs of {} calls; the probe-effect rows subtract it.",
        load_cpu(),
        baseline.len(),
        crate::statistics::thousands(request.calls as i64),
    ));
    harness.report.notes.push(format!(
        "Probe-effect runs make {} calls each, the printf variant {}.",
        crate::statistics::thousands(request.calls as i64),
        crate::statistics::thousands((request.calls / VARIANTS[2].calls_divisor) as i64),
    ));
    if printed_calls > 0 {
        let describe = |measurement: &crate::table::Measurement| match measurement.median() {
            Some(lines) => format!(
                "{} of {}",
                crate::statistics::thousands(lines as i64),
                crate::statistics::thousands(printed_calls as i64)
            ),
            None => "not measured".to_string(),
        };
        harness.report.notes.push(format!(
            "The printf variant's lines delivered (median; the rest were dropped): ours {}, bpftrace {}.",
            describe(&printed.ours),
            describe(&printed.bpftrace)
        ));
    }
    for (row, traced_row) in rows.iter_mut().zip(traced) {
        for (measurement, traced_measurement) in [
            (&mut row.ours, traced_row.ours),
            (&mut row.bpftrace, traced_row.bpftrace),
        ] {
            if measurement.skipped.is_some() {
                continue;
            }
            measurement.samples = traced_measurement
                .samples
                .iter()
                .map(|cost| cost - baseline_median)
                .collect();
            measurement.failures = traced_measurement.failures;
        }
    }
    mark_unmeasured(&mut rows);
    harness.report.rows.extend(rows);
}

/// One traced load: the tracer is started, found live, the load runs, the tracer is
/// stopped. Returns the load's nanoseconds per call.
fn run_traced(
    harness: &Harness,
    tool: &Tool,
    scripts: &ScriptPair,
    kind: ToolKind,
    request: &LoadRequest,
) -> Result<TracedRun, String> {
    let mut tracer = start_tracer(tool, scripts)?;
    wait_until_live(&mut tracer, kind, LIVE_TIMEOUT)?;
    std::thread::sleep(SETTLE_TIME);
    let result = run_load_once(&harness.load_program, request, LOAD_TIMEOUT)?;
    stop_tracer(&mut tracer, kind, STOP_TIMEOUT)?;
    Ok(TracedRun {
        ns_per_call: result.ns_per_call,
        lines_printed: tracer.stdout.word_lines(LOAD_PROGRAM_INDEX),
    })
}

/// What one traced load gave.
struct TracedRun {
    ns_per_call: f64,
    /// Lines naming the load program: one per event delivered, for the printf variant.
    lines_printed: u64,
}
