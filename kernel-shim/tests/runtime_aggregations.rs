//! Live tests of the runtime session's aggregation generations on real D programs: after
//! a new generation starts (the first step of `clear()` and `trunc()`), programs restart
//! the words of the entries they update, so `min()` and `max()` see only later values;
//! the snapshot delivers the old generation's changes, holds the new one's back until
//! the generation is finished, and drops late old-generation changes of keys the
//! consumer did not keep.

mod common;

use std::collections::BTreeMap;

use common::d_programs::{compile_d, getppid_plan, getppid_probe, marker_plan, session_options};
use common::{bpf_available, call_getppid, thread_id};
use difvm::engine::{AggregationEntry, BufferPolicy};
use kernel_shim::runtime::{Marker, RuntimeSession};

/// A session of `text`, compiled against the dtrace provider and getppid's entry probe,
/// with a 64k principal buffer.
fn session(text: &str) -> RuntimeSession {
    let (program, enabled) = compile_d(text, vec![getppid_probe(false)]);
    let plans = vec![marker_plan(Marker::Begin), getppid_plan(false)];
    let options = session_options(1 << 16, BufferPolicy::Switch);
    RuntimeSession::new(&program, &enabled, &plans, &options)
        .unwrap_or_else(|error| panic!("{error}\n{}", error.verifier_log()))
}

/// (aggregation id, key) → value words, merged in delivery order.
fn merged(entries: &[AggregationEntry]) -> BTreeMap<(u32, Vec<u8>), Vec<i64>> {
    let mut values: BTreeMap<(u32, Vec<u8>), Vec<i64>> = BTreeMap::new();
    for entry in entries {
        let slot = (entry.aggregation, entry.key.clone());
        match values.get_mut(&slot) {
            // Every aggregation of these programs is count() (summed) or min()/max()
            // (id 2 and 3, of which later deliveries are newer extremes).
            Some(value) if entry.aggregation == 1 => value[0] += entry.value[0],
            Some(value) if entry.aggregation == 2 => value[0] = value[0].min(entry.value[0]),
            Some(value) if entry.aggregation == 3 => value[0] = value[0].max(entry.value[0]),
            _ => {
                values.insert(slot, entry.value.clone());
            }
        }
    }
    values
}

fn value(values: &BTreeMap<(u32, Vec<u8>), Vec<i64>>, id: u32) -> Option<i64> {
    values.get(&(id, Vec::new())).map(|words| words[0])
}

#[test]
fn a_new_generation_restarts_min_max_and_count() {
    if !bpf_available("a_new_generation_restarts_min_max_and_count") {
        return;
    }
    let tid = thread_id();
    let mut session = session(&format!(
        "BEGIN {{ i = 0; }}
         syscall::getppid:entry /tid == {tid}/ {{
             @calls = count(); @low = min(i); @high = max(i); i++; }}"
    ));
    session.start().unwrap_or_else(|error| panic!("{error}"));
    call_getppid(1000);
    let before = merged(&session.begin_aggregation_generation(1).expect("begin"));
    assert_eq!(value(&before, 1), Some(1000));
    assert_eq!(value(&before, 2), Some(0));
    assert_eq!(value(&before, 3), Some(999));
    session.finish_aggregation_generation(1, &[]);
    // Only @calls (id 1) started a new generation: @low and @high go on.
    call_getppid(500);
    let after = merged(&session.take_aggregations().expect("aggregations"));
    assert_eq!(value(&after, 1), Some(500));
    assert_eq!(value(&after, 2), Some(0));
    assert_eq!(value(&after, 3), Some(1499));
    for id in [2, 3] {
        session.begin_aggregation_generation(id).expect("begin");
        session.finish_aggregation_generation(id, &[]);
    }
    call_getppid(250);
    let restarted = merged(&session.take_aggregations().expect("aggregations"));
    assert_eq!(value(&restarted, 1), Some(250));
    assert_eq!(value(&restarted, 2), Some(1500));
    assert_eq!(value(&restarted, 3), Some(1749));
    session.stop().expect("END fires");
}

#[test]
fn changes_after_a_new_generation_begins_wait_for_it_to_finish() {
    if !bpf_available("changes_after_a_new_generation_begins_wait_for_it_to_finish") {
        return;
    }
    let tid = thread_id();
    let mut session = session(&format!(
        "BEGIN {{ i = 0; }}
         syscall::getppid:entry /tid == {tid}/ {{
             @low[0] = min(i); @low[1] = min(i); @calls[0] = count(); i++; }}"
    ));
    session.start().unwrap_or_else(|error| panic!("{error}"));
    // (aggregation, first key byte) → min() of the values delivered, or their sum.
    let values = |entries: &[AggregationEntry]| -> BTreeMap<(u32, u8), i64> {
        let mut values = BTreeMap::new();
        for entry in entries {
            let slot = (entry.aggregation, entry.key[0]);
            let value = entry.value[0];
            values
                .entry(slot)
                .and_modify(|into: &mut i64| {
                    *into = if slot.0 == 1 {
                        (*into).min(value)
                    } else {
                        *into + value
                    }
                })
                .or_insert(value);
        }
        values
    };
    call_getppid(100);
    let before = values(&session.begin_aggregation_generation(1).expect("begin"));
    assert_eq!(
        before.into_iter().collect::<Vec<_>>(),
        vec![((1, 0), 0), ((1, 1), 0), ((2, 0), 100)]
    );
    // min() updates between the two steps belong to the new generation: held back.
    // count() changes are differences and come at once.
    call_getppid(10);
    let between = values(&session.take_aggregations().expect("aggregations"));
    assert_eq!(between.into_iter().collect::<Vec<_>>(), vec![((2, 0), 10)]);
    session.finish_aggregation_generation(1, &[vec![0u8; 4]]);
    call_getppid(5);
    let after = values(&session.take_aggregations().expect("aggregations"));
    assert_eq!(
        after.into_iter().collect::<Vec<_>>(),
        vec![((1, 0), 100), ((1, 1), 100), ((2, 0), 5)]
    );
    session.stop().expect("END fires");
}
