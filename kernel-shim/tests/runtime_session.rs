//! Live tests of the runtime session on real D programs compiled by `dlang::compile`:
//! BEGIN and END through the markers, syscall entry and return through the shared
//! dispatcher with exact counts, aggregation snapshots that add up across calls, the
//! `exit()` flag, a one-page buffer whose records plus counted drops equal the calls, and
//! the `fill` and `ring` buffer policies.

mod common;

use std::collections::BTreeMap;

use common::d_programs::{compile_d, getppid_plan, getppid_probe, marker_plan, session_options};
use common::{bpf_available, call_getppid, thread_id};
use difvm::engine::{AggregationEntry, BufferPolicy};
use difvm::object::{EnabledProbe, RECORD_HEADER_SIZE};
use difvm::verify::VerifiedProgram;
use kernel_shim::map_layout::LayoutOptions;
use kernel_shim::runtime::{LoweredSize, Marker, RuntimeOptions, RuntimeSession};

/// Compiles `text` against the dtrace provider and getppid's two syscall probes, and
/// enables it as dtrace(1) does.
fn compile_getppid_d(text: &str) -> (VerifiedProgram, Vec<EnabledProbe>) {
    compile_d(text, vec![getppid_probe(false), getppid_probe(true)])
}

fn session(text: &str, buffer_size: u64) -> (RuntimeSession, Vec<EnabledProbe>) {
    session_with_policy(text, buffer_size, BufferPolicy::Switch)
}

fn session_with_policy(
    text: &str,
    buffer_size: u64,
    buffer_policy: BufferPolicy,
) -> (RuntimeSession, Vec<EnabledProbe>) {
    let (program, enabled) = compile_getppid_d(text);
    let plans = vec![
        marker_plan(Marker::Begin),
        marker_plan(Marker::End),
        getppid_plan(false),
        getppid_plan(true),
    ];
    let options = session_options(buffer_size, buffer_policy);
    let session = RuntimeSession::new(&program, &enabled, &plans, &options)
        .unwrap_or_else(|error| panic!("{error}\n{}", error.verifier_log()));
    (session, enabled)
}

/// The EPIDs of a CPU buffer's records, in order.
fn epids(buffer: &[u8], record_length: &dyn Fn(u32) -> usize) -> Vec<u32> {
    let mut epids = Vec::new();
    let mut at = 0;
    while at + RECORD_HEADER_SIZE as usize <= buffer.len() {
        let epid = u32::from_le_bytes(buffer[at..at + 4].try_into().unwrap());
        epids.push(epid);
        at += record_length(epid);
    }
    epids
}

fn counts(entries: &[AggregationEntry]) -> BTreeMap<u32, i64> {
    let mut counts = BTreeMap::new();
    for entry in entries {
        *counts.entry(entry.aggregation).or_default() += entry.value[0];
    }
    counts
}

#[test]
fn begin_syscalls_and_end_with_exact_counts() {
    if !bpf_available("begin_syscalls_and_end_with_exact_counts") {
        return;
    }
    let tid = thread_id();
    let text = format!(
        "BEGIN {{ trace(1); }}
         syscall::getppid:entry /tid == {tid}/ {{ @calls = count(); }}
         syscall::getppid:return /tid == {tid}/ {{ @returns = count(); @value = max(arg1); }}
         END {{ trace(2); }}"
    );
    let (mut session, enabled) = session(&text, 1 << 20);
    assert!(session.lowered_sizes().is_empty());
    session.start().unwrap_or_else(|error| panic!("{error}"));
    assert!(!session.exit_requested().expect("flag"));
    call_getppid(3000);
    let first = counts(&session.take_aggregations().expect("aggregations"));
    assert_eq!(first.get(&1), Some(&3000));
    assert_eq!(first.get(&2), Some(&3000));
    call_getppid(4000);
    session.stop().expect("END fires");
    // Calls after stop are not seen.
    call_getppid(10);
    let second = session.take_aggregations().expect("aggregations");
    let second_counts = counts(&second);
    assert_eq!(second_counts.get(&1), Some(&4000));
    assert_eq!(second_counts.get(&2), Some(&4000));
    let parent = std::os::unix::process::parent_id() as i64;
    let maximum = second
        .iter()
        .find(|entry| entry.aggregation == 3)
        .expect("@value");
    assert_eq!(maximum.value, vec![parent]);
    assert!(session
        .take_aggregations()
        .expect("aggregations")
        .is_empty());

    let statements = &compile_getppid_d(&text).0.program().statements.clone();
    let record_length = |epid: u32| {
        let probe = enabled
            .iter()
            .find(|probe| probe.epid == epid)
            .expect("known EPID");
        RECORD_HEADER_SIZE as usize + statements[probe.statement].record_size as usize
    };
    let records: Vec<u32> = session
        .take_records()
        .iter()
        .flat_map(|(_, buffer)| epids(buffer, &record_length))
        .collect();
    let begin = enabled
        .iter()
        .find(|probe| probe.probe_id == 1)
        .unwrap()
        .epid;
    let end = enabled
        .iter()
        .find(|probe| probe.probe_id == 2)
        .unwrap()
        .epid;
    let mut sorted = records.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![begin, end], "records {records:?}");
    let drops = session.drop_counters().expect("drops");
    assert!(drops.principal.is_empty(), "{drops:?}");
    assert_eq!(session.unexplained_bytes(), 0);
}

#[test]
fn exit_in_begin_sets_the_flag() {
    if !bpf_available("exit_in_begin_sets_the_flag") {
        return;
    }
    let (mut session, _) = session("BEGIN { exit(3); }", 1 << 16);
    assert_eq!(
        session.lowered_sizes(),
        Vec::<LoweredSize>::new(),
        "64k is a power of two pages"
    );
    session.start().unwrap_or_else(|error| panic!("{error}"));
    assert!(session.exit_requested().expect("flag"));
    session.stop().expect("END fires");
    let records = session.take_records();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].1.len(), 16, "one exit record");
}

#[test]
fn one_page_buffer_records_plus_drops_equal_the_calls() {
    if !bpf_available("one_page_buffer_records_plus_drops_equal_the_calls") {
        return;
    }
    let tid = thread_id();
    let text = format!("syscall::getppid:entry /tid == {tid}/ {{ trace(arg0); }}");
    let (mut session, _) = session(&text, 4096);
    session.start().unwrap_or_else(|error| panic!("{error}"));
    const CALLS: usize = 20_000;
    let mut bytes = 0usize;
    for _ in 0..4 {
        call_getppid(CALLS / 4);
        bytes += session
            .take_records()
            .iter()
            .map(|(_, buffer)| buffer.len())
            .sum::<usize>();
    }
    session.stop().expect("END fires");
    bytes += session
        .take_records()
        .iter()
        .map(|(_, buffer)| buffer.len())
        .sum::<usize>();
    let records = bytes / 16;
    let drops = session.drop_counters().expect("drops");
    let dropped: u64 = drops.principal.values().sum();
    assert!(dropped > 0, "a one-page buffer should overflow");
    assert_eq!(records as u64 + dropped, CALLS as u64, "{drops:?}");
}

#[test]
fn missing_instrumentation_is_an_error() {
    if !bpf_available("missing_instrumentation_is_an_error") {
        return;
    }
    let (program, enabled) = compile_getppid_d("syscall::getppid:entry { trace(1); }");
    let options = RuntimeOptions {
        layout: LayoutOptions::default(),
        buffer_size: 4096,
        buffer_policy: BufferPolicy::Switch,
        keep_verifier_logs: false,
    };
    let error = RuntimeSession::new(&program, &enabled, &[], &options).expect_err("no plan");
    assert!(error.to_string().contains("no instrumentation"), "{error}");
}

/// Moves the calling thread to the first CPU it may run on, so that every record it
/// causes lands in one CPU's buffer.
fn stay_on_one_cpu() {
    // SAFETY: zeroed cpu_set_t values are valid empty sets; the calls only read and write
    // the sets passed.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        assert_eq!(libc::sched_getaffinity(0, size, &mut allowed), 0);
        let cpu = (0..libc::CPU_SETSIZE as usize)
            .find(|cpu| libc::CPU_ISSET(*cpu, &allowed))
            .expect("some CPU");
        let mut only: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut only);
        assert_eq!(libc::sched_setaffinity(0, size, &only), 0);
    }
}

/// The traced values of 16-byte records (`trace()` of one 8-byte integer), all CPUs'
/// buffers in the order given.
fn traced_values(buffers: &[(u32, Vec<u8>)]) -> Vec<i64> {
    buffers
        .iter()
        .flat_map(|(_, buffer)| buffer.chunks(16))
        .map(|record| i64::from_le_bytes(record[8..16].try_into().unwrap()))
        .collect()
}

/// One getppid entry clause tracing a global sequence number, and END tracing a mark.
fn sequence_program() -> String {
    let tid = thread_id();
    format!(
        "syscall::getppid:entry /tid == {tid}/ {{ trace(n++); }}
         END {{ trace(1000000); }}"
    )
}

#[test]
fn fill_policy_keeps_the_first_records_and_counts_the_rest_as_drops() {
    if !bpf_available("fill_policy_keeps_the_first_records_and_counts_the_rest_as_drops") {
        return;
    }
    stay_on_one_cpu();
    let (mut session, _) = session_with_policy(&sequence_program(), 4096, BufferPolicy::Fill);
    session.start().unwrap_or_else(|error| panic!("{error}"));
    const CALLS: usize = 2000;
    call_getppid(CALLS);
    assert!(session.take_records().is_empty(), "read before the end");
    assert!(session.principal_buffer_filled().expect("counters"));
    session.stop().expect("END fires");
    let values = traced_values(&session.take_records());
    let (end, values) = values.split_last().expect("records");
    assert_eq!(*end, 1_000_000, "END's record comes last");
    assert!(!values.is_empty());
    let expected: Vec<i64> = (0..values.len() as i64).collect();
    assert_eq!(values, expected, "the first records, in order");
    let dropped: u64 = session
        .drop_counters()
        .expect("drops")
        .principal
        .values()
        .sum();
    assert_eq!(values.len() as u64 + dropped, CALLS as u64);
    assert_eq!(session.unexplained_bytes(), 0);
}

#[test]
fn ring_policy_keeps_the_last_records_without_drops() {
    if !bpf_available("ring_policy_keeps_the_last_records_without_drops") {
        return;
    }
    stay_on_one_cpu();
    let (mut session, _) = session_with_policy(&sequence_program(), 4096, BufferPolicy::Ring);
    session.start().unwrap_or_else(|error| panic!("{error}"));
    const CALLS: usize = 2000;
    call_getppid(CALLS);
    assert!(session.take_records().is_empty(), "read before the end");
    assert!(!session.principal_buffer_filled().expect("counters"));
    session.stop().expect("END fires");
    let values = traced_values(&session.take_records());
    let (end, values) = values.split_last().expect("records");
    assert_eq!(*end, 1_000_000, "END's record comes last");
    // A 4096-byte ring of 32-byte samples (16 bytes of record, 16 of perf framing).
    assert!(
        values.len() > 64 && values.len() < CALLS,
        "{} records",
        values.len()
    );
    let first = CALLS as i64 - values.len() as i64;
    let expected: Vec<i64> = (first..CALLS as i64).collect();
    assert_eq!(values, expected, "the last records, in order");
    let drops = session.drop_counters().expect("drops");
    assert!(drops.principal.is_empty(), "{drops:?}");
    assert!(session.take_records().is_empty(), "read once");
    assert_eq!(session.unexplained_bytes(), 0);
}
