//! Throughput: records per second a tracer delivers to its consumer without losing any,
//! with one record (`trace()`, or a printf line for bpftrace) per `getppid()` of the load
//! program; then an unpaced storm on every CPU and the records it loses.
//!
//! The load program runs in serve mode so its process ID is in the predicates. The paced
//! steps double the rate until a step delivers fewer lines than calls, or the traced load
//! cannot reach the asked rate, then bisect twice between the last lossless and the first
//! lossy rate; the best lossless achieved rate is the row's sample.
//! Records lost are counted as calls minus lines delivered, whatever the tracer reports.

use std::time::{Duration, Instant};

use crate::child_process::MonitoredChild;
use crate::harness::{
    cell, load_cpu, mark_unmeasured, start_tracer, stop_tracer, wait_for_records, Harness,
    LoadServer, EVENT_INDEX,
};
use crate::load_generator::{online_cpus, LoadRequest};
use crate::statistics::{thousands, Unit};
use crate::table::{Better, Row};
use crate::tools::{BpftraceScript, DtraceScript, ScriptPair, Tool, ToolKind};

const LIVE_TIMEOUT: Duration = Duration::from_secs(30);
const STOP_TIMEOUT: Duration = Duration::from_secs(60);
const LOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// Output quiet this long means every record in flight has arrived: longer than the
/// one-second drain period of dtrace's default `switchrate`.
const QUIET_TIME: Duration = Duration::from_millis(1500);
/// The longest wait for a step's records to arrive.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// Steps of bisection between the last lossless and the first lossy doubling step.
const BISECTION_STEPS: u32 = 2;
/// A paced step that reaches less than this share of its rate ends the search: the
/// traced load cannot go faster.
const RATE_REACHED: f64 = 0.8;

fn scripts(load_pid: i32) -> ScriptPair {
    ScriptPair {
        dtrace: DtraceScript {
            // Not quiet: every firing prints one line `CPU ID getppid:entry VALUE`.
            quiet: false,
            options: Vec::new(),
            clauses: vec![format!(
                "syscall::getppid:entry /pid == {load_pid}/ {{ trace(pid); }}"
            )],
        },
        bpftrace: BpftraceScript {
            program: format!(
                "tracepoint:syscalls:sys_enter_getppid /pid == {load_pid}/ {{ printf(\"getppid %d\\n\", pid); }}"
            ),
            environment: Vec::new(),
        },
    }
}

pub fn run(harness: &mut Harness) {
    let storm_label = format!(
        "throughput: storm on {} CPUs ({} calls), records/s delivered",
        online_cpus(),
        thousands(harness.settings.storm_calls as i64)
    );
    let lost_label = "throughput: storm, records lost";
    let mut rows = harness.rows(
        &[
            Row::new(
                "throughput: `trace()` records/s delivered without drops (paced, 1 CPU)",
                Unit::RecordsPerSecond,
                Better::Higher,
            ),
            Row::new(&storm_label, Unit::RecordsPerSecond, Better::Higher),
            Row::new(lost_label, Unit::Count, Better::Lower),
        ],
        true,
    );
    let repetitions = harness.settings.throughput_repetitions;
    for repetition in 0..repetitions {
        for kind in harness.tools_in_turn(repetition) {
            if !harness.has_time_for(Duration::from_secs(30)) {
                break;
            }
            let Ok(tool) = harness.tool(kind, true) else {
                continue;
            };
            match run_once(harness, tool, kind) {
                Ok(outcome) => {
                    harness.progress(&format!(
                        "throughput {}/{repetitions} {}: {:.0} records/s without drops; storm {:.0} records/s, {} lost",
                        repetition + 1,
                        kind.name(),
                        outcome.lossless_rate,
                        outcome.storm_rate,
                        outcome.storm_lost
                    ));
                    cell(&mut rows[0], kind).record(Ok(outcome.lossless_rate));
                    cell(&mut rows[1], kind).record(Ok(outcome.storm_rate));
                    cell(&mut rows[2], kind).record(Ok(outcome.storm_lost as f64));
                }
                Err(reason) => {
                    harness.progress(&format!(
                        "throughput {}/{repetitions} {}: {reason}",
                        repetition + 1,
                        kind.name()
                    ));
                    for row in &mut rows {
                        cell(row, kind).record(Err(reason.clone()));
                    }
                }
            }
        }
    }
    mark_unmeasured(&mut rows);
    harness.report.rows.extend(rows);
}

struct Outcome {
    lossless_rate: f64,
    storm_rate: f64,
    storm_lost: u64,
}

fn run_once(harness: &Harness, tool: &Tool, kind: ToolKind) -> Result<Outcome, String> {
    let mut load = LoadServer::start(&harness.load_program)?;
    let mut tracer = start_tracer(tool, &scripts(load.pid()))?;
    wait_for_first_record(&mut tracer, &mut load, kind)?;
    // The warm-up calls' records may still be in flight; none may count in a step.
    wait_for_records(&tracer, EVENT_INDEX, u64::MAX, QUIET_TIME, DRAIN_TIMEOUT);
    let settings = &harness.settings;
    let step = settings.throughput_step;
    let mut lossless_rate: f64 = 0.0;
    // The doubling search: the last rate without loss and the first with loss.
    let mut bounds: Option<(u64, u64)> = None;
    let mut last_good = 0;
    for &rate in &settings.throughput_rates {
        match paced_step(&tracer, &mut load, rate, step)? {
            StepOutcome::Lossless(achieved) => {
                lossless_rate = lossless_rate.max(achieved);
                last_good = rate;
                if achieved < RATE_REACHED * rate as f64 {
                    break;
                }
            }
            StepOutcome::Lost => {
                bounds = Some((last_good, rate));
                break;
            }
        }
    }
    // Bisection between them narrows the doubling's factor of two.
    if let Some((mut good, mut bad)) = bounds {
        for _ in 0..BISECTION_STEPS {
            let middle = (good + bad) / 2;
            if middle <= good {
                break;
            }
            match paced_step(&tracer, &mut load, middle, step)? {
                StepOutcome::Lossless(achieved) if achieved >= RATE_REACHED * middle as f64 => {
                    lossless_rate = lossless_rate.max(achieved);
                    good = middle;
                }
                StepOutcome::Lossless(achieved) => {
                    lossless_rate = lossless_rate.max(achieved);
                    break;
                }
                StepOutcome::Lost => bad = middle,
            }
        }
    }
    let before = tracer.stdout.word_lines(EVENT_INDEX);
    let storm_started = Instant::now();
    load.run(
        &LoadRequest {
            calls: settings.storm_calls,
            threads: online_cpus() as u32,
            first_cpu: Some(0),
            ..LoadRequest::default()
        },
        LOAD_TIMEOUT,
    )?;
    wait_for_records(
        &tracer,
        EVENT_INDEX,
        before + settings.storm_calls,
        QUIET_TIME,
        DRAIN_TIMEOUT,
    );
    let state = tracer.stdout.snapshot();
    let delivered = state.word_lines[EVENT_INDEX] - before;
    let storm_rate = match state.last_line_at {
        Some(last) if delivered > 0 => {
            delivered as f64
                / last
                    .saturating_duration_since(storm_started)
                    .as_secs_f64()
                    .max(1e-9)
        }
        _ => 0.0,
    };
    stop_tracer(&mut tracer, kind, STOP_TIMEOUT)?;
    Ok(Outcome {
        lossless_rate,
        storm_rate,
        storm_lost: settings.storm_calls.saturating_sub(delivered),
    })
}

enum StepOutcome {
    /// Every call's record arrived; the calls per second the load reached.
    Lossless(f64),
    /// Some records never arrived.
    Lost,
}

/// One paced step: `rate` calls per second for `step`, then a wait for their records.
fn paced_step(
    tracer: &MonitoredChild,
    load: &mut LoadServer,
    rate: u64,
    step: Duration,
) -> Result<StepOutcome, String> {
    let calls = ((rate as f64) * step.as_secs_f64()).max(1.0) as u64;
    let before = tracer.stdout.word_lines(EVENT_INDEX);
    let result = load.run(
        &LoadRequest {
            calls,
            rate_per_second: Some(rate),
            first_cpu: Some(load_cpu()),
            ..LoadRequest::default()
        },
        LOAD_TIMEOUT,
    )?;
    wait_for_records(
        tracer,
        EVENT_INDEX,
        before + calls,
        QUIET_TIME,
        DRAIN_TIMEOUT,
    );
    let delivered = tracer.stdout.word_lines(EVENT_INDEX) - before;
    Ok(if delivered < calls {
        StepOutcome::Lost
    } else {
        StepOutcome::Lossless(result.calls_per_second())
    })
}

/// Makes single calls until the first record arrives: the probe is live.
fn wait_for_first_record(
    tracer: &mut MonitoredChild,
    load: &mut LoadServer,
    kind: ToolKind,
) -> Result<(), String> {
    let deadline = Instant::now() + LIVE_TIMEOUT;
    let single_call = LoadRequest {
        calls: 1,
        ..LoadRequest::default()
    };
    while tracer.stdout.word_lines(EVENT_INDEX) == 0 {
        if tracer.try_exit().is_some() {
            return Err(tracer.failure_reason(&format!("{} exited before tracing", kind.name())));
        }
        if Instant::now() >= deadline {
            return Err(tracer.failure_reason(&format!(
                "{} was not tracing after {} s",
                kind.name(),
                LIVE_TIMEOUT.as_secs()
            )));
        }
        load.run(&single_call, LOAD_TIMEOUT)?;
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(())
}
