//! Aggregation scale: a count aggregation keyed by a syscall argument that is distinct
//! for every call, over N calls (1,000,000 in a full run). Measured: the load's time with
//! tracing, the time from SIGINT until the tracer has printed every key and exited, its
//! peak RSS, the kernel memory of its BPF maps, and how many keys it printed.
//!
//! The keyed calls are `close(KEY_BASE + i)` (see `load_generator`): `close` has a real
//! first argument that both tracers name on their ordinary syscall probes.

use std::time::Duration;

use crate::harness::{
    bpf_map_memory, cell, load_cpu, mark_unmeasured, start_tracer, stop_tracer, wait_until_live,
    Harness, LoadServer,
};
use crate::load_generator::LoadRequest;
use crate::statistics::{thousands, Unit};
use crate::table::{Better, Row};
use crate::tools::{
    bpftrace_marker_clause, dtrace_marker_clause, BpftraceScript, DtraceScript, ScriptPair, Tool,
    ToolKind,
};

const LIVE_TIMEOUT: Duration = Duration::from_secs(30);
const LOAD_TIMEOUT: Duration = Duration::from_secs(120);
/// Printing a million keys may take a while.
const STOP_TIMEOUT: Duration = Duration::from_secs(240);

/// Aggregation space for `keys` keys: dtrace's `aggsize` in bytes. The kernel engine
/// sizes its map at `aggsize` / (64 bytes of bookkeeping + key + value), 96 bytes for a
/// one-integer key and a count; 104 bytes per key and 1 MiB more give about 9% spare
/// entries, close to bpftrace's map of `keys` + 4096 entries, so that the map memory
/// rows compare like with like. The keys-printed row shows if it was too little.
fn aggsize_bytes(keys: u64) -> u64 {
    keys * 104 + 1024 * 1024
}

fn scripts(load_pid: i32, keys: u64) -> ScriptPair {
    ScriptPair {
        dtrace: DtraceScript {
            quiet: true,
            options: vec![format!("aggsize={}", aggsize_bytes(keys))],
            clauses: vec![
                format!("syscall::close:entry /pid == {load_pid}/ {{ @[arg0] = count(); }}"),
                dtrace_marker_clause(),
            ],
        },
        bpftrace: BpftraceScript {
            program: format!(
                "tracepoint:syscalls:sys_enter_close /pid == {load_pid}/ {{ @[args->fd] = count(); }} {}",
                bpftrace_marker_clause()
            ),
            // bpftrace's maps hold 4096 keys unless told otherwise.
            environment: vec![("BPFTRACE_MAP_KEYS_MAX".to_string(), (keys + 4096).to_string())],
        },
    }
}

pub fn run(harness: &mut Harness) {
    let keys = harness.settings.aggregation_keys;
    let prefix = format!("aggregate {} distinct keys", thousands(keys as i64));
    let mut rows = harness.rows(
        &[
            Row::new(
                &format!("{prefix}: load time with tracing"),
                Unit::Seconds,
                Better::Lower,
            ),
            Row::new(
                &format!("{prefix}: print and exit after SIGINT"),
                Unit::Seconds,
                Better::Lower,
            ),
            Row::new(&format!("{prefix}: peak RSS"), Unit::Bytes, Better::Lower),
            Row::new(
                &format!("{prefix}: BPF map memory"),
                Unit::Bytes,
                Better::Lower,
            ),
            Row::new(
                &format!("{prefix}: keys printed"),
                Unit::Count,
                Better::Higher,
            ),
        ],
        true,
    );
    let repetitions = harness.settings.aggregation_repetitions;
    for repetition in 0..repetitions {
        for kind in harness.tools_in_turn(repetition) {
            if !harness.has_time_for(Duration::from_secs(45)) {
                break;
            }
            let Ok(tool) = harness.tool(kind, true) else {
                continue;
            };
            match run_once(harness, tool, kind, keys) {
                Ok(outcome) => {
                    harness.progress(&format!(
                        "aggregation {}/{repetitions} {}: load {:.2} s, print {:.2} s, RSS {:.1} MiB, maps {:.1} MiB, {} keys",
                        repetition + 1,
                        kind.name(),
                        outcome[0],
                        outcome[1],
                        outcome[2] / 1048576.0,
                        outcome[3] / 1048576.0,
                        outcome[4]
                    ));
                    for (row, value) in rows.iter_mut().zip(outcome) {
                        cell(row, kind).record(Ok(value));
                    }
                }
                Err(reason) => {
                    harness.progress(&format!(
                        "aggregation {}/{repetitions} {}: {reason}",
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

/// One run: load seconds, print seconds, peak RSS bytes, map bytes, keys printed.
fn run_once(harness: &Harness, tool: &Tool, kind: ToolKind, keys: u64) -> Result<[f64; 5], String> {
    let mut load = LoadServer::start(&harness.load_program)?;
    let mut tracer = start_tracer(tool, &scripts(load.pid(), keys))?;
    wait_until_live(&mut tracer, kind, LIVE_TIMEOUT)?;
    let result = load.run(
        &LoadRequest {
            calls: keys,
            keyed: true,
            first_cpu: Some(load_cpu()),
            ..LoadRequest::default()
        },
        LOAD_TIMEOUT,
    )?;
    let map_bytes = bpf_map_memory(tracer.pid()).unwrap_or(0);
    let (report, took) = stop_tracer(&mut tracer, kind, STOP_TIMEOUT)?;
    let printed = tracer.stdout.snapshot().aggregation_lines;
    Ok([
        result.elapsed_ns as f64 / 1e9,
        took.as_secs_f64(),
        report.peak_rss_bytes as f64,
        map_bytes as f64,
        printed as f64,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregation_space_fits_the_keys() {
        assert_eq!(aggsize_bytes(1_000_000) / 96, 1_094_256);
        assert_eq!(aggsize_bytes(0), 1_048_576);
    }
}
