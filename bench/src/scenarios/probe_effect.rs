//! Probe effect: nanoseconds a traced `getppid()` costs more than an untraced one, for
//! three enablings of the getppid entry probe: a count aggregation keyed by the program
//! name, the same behind a predicate that is always false, and a printf per event.
//!
//! Each repetition measures the untraced baseline, then each variant under each tracer
//! (alternating which goes first); the row shows the median traced cost minus the median
//! baseline. A floor row measures, the same way, a program that returns at once on the
//! raw `sys_enter` tracepoint our syscall probes attach to: what any program on that path
//! costs, against which the notes state the variants' costs as multiples.

use kernel_shim::ebpf::{Insn, Reg};
use kernel_shim::sys::{
    bpf_prog_load, bpf_raw_tracepoint_open, LinkFd, ProgramLoadRequest, ProgramType,
};

use std::time::Duration;

use crate::harness::{
    cell, load_cpu, mark_unmeasured, run_load_once, start_tracer, stop_tracer, wait_until_live,
    Harness, LOAD_PROGRAM_INDEX,
};
use crate::load_generator::LoadRequest;
use crate::statistics::{median, Unit};
use crate::table::{Better, Measurement, Row};
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

const FLOOR_LABEL: &str =
    "probe effect floor: a program that returns at once on raw `sys_enter` (our attach path), ns added per call";

/// Attaches a program that returns at once to the raw `sys_enter` tracepoint, where the
/// syscall provider's dispatcher goes; dropping the link detaches it.
fn attach_floor_program() -> Result<LinkFd, String> {
    let instructions = [Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
    let mut request = ProgramLoadRequest::new(ProgramType::RawTracepoint, &instructions);
    request.name = "bench_floor";
    let program = bpf_prog_load(&request).map_err(|error| error.to_string())?;
    bpf_raw_tracepoint_open("sys_enter", &program).map_err(|error| error.to_string())
}

pub fn run(harness: &mut Harness) {
    let mut specs: Vec<Row> = VARIANTS
        .iter()
        .map(|variant| Row::new(variant.label, Unit::Nanoseconds, Better::Lower))
        .collect();
    specs.push(Row::new(FLOOR_LABEL, Unit::Nanoseconds, Better::Lower));
    let floor_index = VARIANTS.len();
    let mut rows = harness.rows(&specs, true);
    rows[floor_index].bpftrace = Measurement::skipped("our attach path only");
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
        if rows[floor_index].ours.skipped.is_none() {
            let outcome = attach_floor_program().and_then(|link| {
                let result = run_load_once(&harness.load_program, &request, LOAD_TIMEOUT);
                drop(link);
                result.map(|result| result.ns_per_call)
            });
            harness.progress(&format!(
                "probe effect {}/{repetitions} floor: {}",
                repetition + 1,
                match &outcome {
                    Ok(ns) => format!("{ns:.1} ns per call"),
                    Err(reason) => reason.clone(),
                }
            ));
            cell(&mut traced[floor_index], ToolKind::Dtrace).record(outcome);
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
    if let Some(floor) = rows[floor_index].ours.median().filter(|&floor| floor > 0.0) {
        let multiples: Vec<String> = rows[..floor_index]
            .iter()
            .zip(["count", "false predicate", "printf"])
            .filter_map(|(row, name)| Some(format!("{name} {:.2}×", row.ours.median()? / floor)))
            .collect();
        if !multiples.is_empty() {
            harness.report.notes.push(format!(
                "Our probe-effect rows as multiples of the floor ({floor:.1} ns): {}.",
                multiples.join(", ")
            ));
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
