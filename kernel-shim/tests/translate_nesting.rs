//! The translated entry's choice of work area: a program takes the first of its CPU's
//! `WORK_AREAS_PER_CPU` work areas whose nesting word is 0, runs its statements and its
//! ERROR clauses there, frees it again, and counts a nesting drop only when every area
//! is in use or one is in use by a program whose shared state (variables, aggregations)
//! it touches. The tests mark areas of CPU 0 busy by hand (as programs interrupted on it
//! would) and fire the program there with `BPF_PROG_TEST_RUN`.

mod translate_common;

use kernel_shim::map_layout::{COUNTER_NESTING_DROPS, WORK_AREAS_PER_CPU};
use kernel_shim::sys::BPF_ANY;
use translate_common::{bpf_available, compile_d, load_kernel, options, KernelRun};

/// The u64 at `offset` of work area `index` (CPU 0's areas are 0 to 3).
fn work_area_word(run: &KernelRun, index: u32, offset: u32) -> u64 {
    let value = state_map(run)
        .lookup(&index.to_ne_bytes())
        .expect("lookup")
        .expect("the work area exists");
    let at = offset as usize;
    u64::from_le_bytes(value[at..at + 8].try_into().unwrap())
}

fn state_map(run: &KernelRun) -> &kernel_shim::sys::MapFd {
    run.maps
        .iter()
        .find(|map| map.definition().name == "dtrace_state")
        .expect("the state map")
}

/// Sets work area `index`'s nesting word to `busy` (0 free, 1 in use by a program that
/// touches no shared state), as a program running in it would.
fn mark(run: &KernelRun, index: u32, busy: bool) {
    set_nesting_word(run, index, u64::from(busy));
}

fn set_nesting_word(run: &KernelRun, index: u32, word: u64) {
    let mut value = vec![0u8; run.layout.state.size as usize];
    let at = run.layout.state.nesting as usize;
    value[at..at + 8].copy_from_slice(&word.to_le_bytes());
    state_map(run)
        .update(&index.to_ne_bytes(), &value, BPF_ANY)
        .expect("update the work area");
}

/// The EPID of the record last built in work area `index` (0 when none was).
fn record_epid(run: &KernelRun, index: u32) -> u64 {
    work_area_word(run, index, run.layout.state.record) & 0xffff_ffff
}

#[test]
fn each_cpu_has_one_work_area_per_nesting_level() {
    if !bpf_available("each_cpu_has_one_work_area_per_nesting_level") {
        return;
    }
    let program = compile_d("test:mod:func:fire { trace(arg0); }");
    let run = load_kernel(&program, &options());
    let spec = run
        .layout
        .map_specs()
        .into_iter()
        .find(|spec| spec.name == "dtrace_state")
        .unwrap();
    assert_eq!(spec.max_entries, run.layout.options.cpu_count * 4);
    assert_eq!(WORK_AREAS_PER_CPU, 4);
}

#[test]
fn a_program_takes_the_first_free_work_area_and_frees_it() {
    if !bpf_available("a_program_takes_the_first_free_work_area_and_frees_it") {
        return;
    }
    let program = compile_d("test:mod:func:fire { trace(arg0); }");
    let mut run = load_kernel(&program, &options());
    let nesting = run.layout.state.nesting;

    // Nothing runs: the program uses area 0.
    run.fire(&[7]);
    assert_ne!(record_epid(&run, 0), 0, "area 0 built the record");
    assert_eq!(record_epid(&run, 1), 0);

    // Three programs interrupted on CPU 0: the fourth level's area is left.
    for index in 0..WORK_AREAS_PER_CPU - 1 {
        mark(&run, index, true);
    }
    run.fire(&[8]);
    let last = WORK_AREAS_PER_CPU - 1;
    assert_ne!(record_epid(&run, last), 0, "the last area built the record");
    for index in 0..last {
        assert_eq!(work_area_word(&run, index, nesting), 1, "area {index} busy");
        assert_eq!(record_epid(&run, index), 0, "area {index} untouched");
    }
    assert_eq!(work_area_word(&run, last, nesting), 0, "freed after use");

    // A gap (area 1 busy, area 0 free, as after a preempted program): area 0 is taken.
    mark(&run, 0, false);
    mark(&run, 2, false);
    run.fire(&[9]);
    assert_ne!(record_epid(&run, 0), 0);
    assert_eq!(work_area_word(&run, 0, nesting), 0);
    assert_eq!(work_area_word(&run, 1, nesting), 1);

    let outcome = run.outcome(&program);
    let arguments: Vec<u64> = outcome
        .records
        .iter()
        .map(|record| u64::from_le_bytes(record[8..16].try_into().unwrap()))
        .collect();
    assert_eq!(arguments, [7, 8, 9]);
    assert_eq!(run.counters()[COUNTER_NESTING_DROPS], 0);
}

#[test]
fn only_a_program_finding_every_work_area_busy_counts_a_nesting_drop() {
    if !bpf_available("only_a_program_finding_every_work_area_busy_counts_a_nesting_drop") {
        return;
    }
    let program = compile_d("test:mod:func:fire { trace(arg0); }");
    let mut run = load_kernel(&program, &options());
    for index in 0..WORK_AREAS_PER_CPU {
        mark(&run, index, true);
    }
    run.fire(&[1]);
    run.fire(&[2]);
    assert_eq!(run.counters()[COUNTER_NESTING_DROPS], 2);
    for index in 0..WORK_AREAS_PER_CPU {
        assert_eq!(record_epid(&run, index), 0, "area {index} untouched");
        assert_eq!(work_area_word(&run, index, run.layout.state.nesting), 1);
    }
    assert!(run.outcome(&program).records.is_empty());
}

#[test]
fn error_clauses_run_in_the_work_area_the_program_took() {
    if !bpf_available("error_clauses_run_in_the_work_area_the_program_took") {
        return;
    }
    let program = compile_d(
        "test:mod:func:fire { trace(*(int *)0); }
         ERROR { trace(arg4); }",
    );
    let mut run = load_kernel(&program, &options());
    for index in 0..2 {
        mark(&run, index, true);
    }
    run.fire(&[]);
    let error_arguments = run.layout.state.error_arguments;
    // arg4 of the ERROR firing is the fault's code, kept in the area the program took.
    let code = work_area_word(&run, 2, error_arguments + 32);
    assert_ne!(code, 0);
    for index in 0..2 {
        assert_eq!(work_area_word(&run, index, error_arguments + 32), 0);
        assert_eq!(record_epid(&run, index), 0, "area {index} untouched");
    }
    assert_eq!(work_area_word(&run, 2, run.layout.state.nesting), 0);
    // The default ERROR handler's record, then the ERROR clause's, which traces arg4.
    let outcome = run.outcome(&program);
    let last = outcome.records.last().expect("the ERROR clause's record");
    assert_eq!(u64::from_le_bytes(last[8..16].try_into().unwrap()), code);
    assert_eq!(run.counters()[COUNTER_NESTING_DROPS], 0);
}

/// A program that touches shared state does not run inside one that may touch the same
/// (a nesting word with every footprint bit), but does inside one that touches none.
#[test]
fn a_program_does_not_interrupt_one_whose_shared_state_it_touches() {
    if !bpf_available("a_program_does_not_interrupt_one_whose_shared_state_it_touches") {
        return;
    }
    let program = compile_d("test:mod:func:fire { x++; trace(x); }");
    let mut run = load_kernel(&program, &options());
    set_nesting_word(&run, 0, u64::MAX);
    run.fire(&[]);
    assert_eq!(run.counters()[COUNTER_NESTING_DROPS], 1);
    assert_eq!(record_epid(&run, 1), 0, "area 1 untouched");

    set_nesting_word(&run, 0, 1 << 63);
    run.fire(&[]);
    assert_ne!(record_epid(&run, 1), 0, "area 1 built the record");
    assert_eq!(run.counters()[COUNTER_NESTING_DROPS], 1);
    let outcome = run.outcome(&program);
    assert_eq!(outcome.records.len(), 1);
}
