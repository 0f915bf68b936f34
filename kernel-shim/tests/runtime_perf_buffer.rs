//! Live tests of the principal buffers: a hand-written program on
//! `syscalls:sys_enter_getppid` emits one sequence-numbered record per call of this thread
//! with `bpf_perf_event_output`; the reader sees every record exactly once and in order,
//! and with a one-page buffer the records read plus the samples reported lost add up to
//! exactly the number of calls.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{bpf_available, call_getppid, counter, counter_map, emit_return_zero, thread_id};
use kernel_shim::ebpf::{Assembler, AtomicOp, Helper, Insn, JmpOp, MemSize, Reg};
use kernel_shim::runtime::{BufferEvent, LoweredSize, PerfBufferSet, SizeOption};
use kernel_shim::sys::{
    bpf_map_create, bpf_prog_load, online_cpus, perf_event_open_tracepoint, possible_cpu_count,
    tracepoint_id, LinkFd, MapFd, MapType, PerfEventFd, ProgFd, ProgramLoadRequest, ProgramType,
};

/// `BPF_F_CURRENT_CPU`: the perf event array slot of the CPU the program runs on.
const CURRENT_CPU: i64 = 0xffff_ffff;
/// The EPID the test program writes in its records' headers.
const TEST_EPID: u32 = 7;

/// A program that, for getppid(2) calls of `thread`, takes the next sequence number from
/// `counters[0]` and emits the 16-byte record {EPID, 0, sequence}; a failed output
/// increments `counters[1]`.
/// Moves the calling thread to `cpu`.
fn run_on_cpu(cpu: u32) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the calls only read it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut set);
        assert_eq!(
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set),
            0,
            "sched_setaffinity"
        );
    }
}

fn sequence_program(thread: u32, buffers: &MapFd, counters: &MapFd) -> Vec<Insn> {
    let mut assembler = Assembler::new();
    let done = assembler.new_label();
    assembler.emit(Insn::mov64_reg(Reg::R6, Reg::R1));
    common::emit_thread_filter(&mut assembler, thread, done);
    assembler.emit_all(&Insn::ld_map_value(Reg::R1, counters.raw_fd(), 0));
    assembler.emit(Insn::mov64_imm(Reg::R2, 1));
    assembler.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::FetchAdd,
        Reg::R1,
        Reg::R2,
        0,
    ));
    assembler.emit(Insn::add64_imm(Reg::R2, 1));
    assembler.emit(Insn::st_mem(MemSize::W, Reg::R10, -16, TEST_EPID as i32));
    assembler.emit(Insn::st_mem(MemSize::W, Reg::R10, -12, 0));
    assembler.emit(Insn::stx_mem(MemSize::DW, Reg::R10, Reg::R2, -8));
    assembler.emit(Insn::mov64_reg(Reg::R1, Reg::R6));
    assembler.emit_all(&Insn::ld_map_fd(Reg::R2, buffers.raw_fd()));
    assembler.emit_all(&Insn::ld_imm64(Reg::R3, CURRENT_CPU as u64));
    assembler.emit(Insn::mov64_reg(Reg::R4, Reg::R10));
    assembler.emit(Insn::add64_imm(Reg::R4, -16));
    assembler.emit(Insn::mov64_imm(Reg::R5, 16));
    assembler.emit(Insn::call(Helper::PerfEventOutput));
    assembler.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
    common::emit_increment(&mut assembler, counters, 1);
    emit_return_zero(&mut assembler, done);
    assembler.finish().expect("assembles")
}

/// The program attached to `syscalls:sys_enter_getppid`, with everything it needs.
struct Fixture {
    counters: MapFd,
    buffers: PerfBufferSet,
    _attachment: (ProgFd, PerfEventFd, LinkFd),
}

fn fixture(buffer_size: u64) -> Option<Fixture> {
    let id = match tracepoint_id("syscalls", "sys_enter_getppid") {
        Ok(id) => id,
        Err(error) => {
            eprintln!("skipping: no syscalls:sys_enter_getppid tracepoint: {error}");
            return None;
        }
    };
    let cpus = possible_cpu_count().expect("possible CPUs") as u32;
    let map = bpf_map_create(MapType::PerfEventArray, 4, 4, cpus, 0, "dtrace_buf").expect("map");
    let buffers = PerfBufferSet::open(map, buffer_size).unwrap_or_else(|error| panic!("{error}"));
    let counters = counter_map("dtrace_seq");
    let program = sequence_program(thread_id(), buffers.map(), &counters);
    let loaded = bpf_prog_load(&ProgramLoadRequest::new(ProgramType::Tracepoint, &program))
        .unwrap_or_else(|error| panic!("{error}"));
    let event = perf_event_open_tracepoint(id).expect("tracepoint event");
    let link = event.attach(&loaded, 0).expect("link");
    Some(Fixture {
        counters,
        buffers,
        _attachment: (loaded, event, link),
    })
}

/// What a drain delivered: sequence numbers per CPU in ring order, and lost counts.
#[derive(Default)]
struct Delivered {
    sequences: BTreeMap<u32, Vec<u64>>,
    lost: u64,
}

fn drain(buffers: &mut PerfBufferSet, delivered: &mut Delivered) {
    buffers.drain(&mut |cpu, event| match event {
        BufferEvent::Sample(data) => {
            // 16 bytes of record and 4 of the kernel's padding.
            assert_eq!(data.len(), 20, "sample length");
            assert_eq!(
                u32::from_le_bytes(data[0..4].try_into().unwrap()),
                TEST_EPID
            );
            let sequence = u64::from_le_bytes(data[8..16].try_into().unwrap());
            delivered.sequences.entry(cpu).or_default().push(sequence);
        }
        BufferEvent::Lost(count) => delivered.lost += count,
    });
}

#[test]
fn every_record_arrives_once_and_in_order() {
    if !bpf_available("every_record_arrives_once_and_in_order") {
        return;
    }
    let Some(mut fixture) = fixture(1 << 20) else {
        return;
    };
    assert_eq!(fixture.buffers.granted_size(), 1 << 20);
    assert_eq!(fixture.buffers.lowered_size(), None);
    const CALLS: u64 = 5000;
    let mut delivered = Delivered::default();
    for _ in 0..5 {
        call_getppid(CALLS as usize / 5);
        drain(&mut fixture.buffers, &mut delivered);
    }
    assert_eq!(delivered.lost, 0);
    assert_eq!(counter(&fixture.counters, 1), 0, "failed outputs");
    let mut all: Vec<u64> = Vec::new();
    for sequences in delivered.sequences.values() {
        assert!(
            sequences.windows(2).all(|pair| pair[0] < pair[1]),
            "a CPU's records out of order"
        );
        all.extend(sequences);
    }
    all.sort_unstable();
    assert_eq!(all, (1..=CALLS).collect::<Vec<_>>());
}

#[test]
fn records_and_lost_counts_add_up_with_a_one_page_buffer() {
    if !bpf_available("records_and_lost_counts_add_up_with_a_one_page_buffer") {
        return;
    }
    let Some(mut fixture) = fixture(100) else {
        return;
    };
    assert_eq!(fixture.buffers.granted_size(), 4096);
    // Raised, not lowered: no notice.
    assert_eq!(fixture.buffers.lowered_size(), None);
    const CALLS: u64 = 20_000;
    let mut delivered = Delivered::default();
    for _ in 0..4 {
        call_getppid(CALLS as usize / 4);
        drain(&mut fixture.buffers, &mut delivered);
    }
    // The kernel reports lost samples just before the next sample that fits on the same
    // CPU: one more call on every CPU (sequence numbers above CALLS) flushes the counts of
    // the last overflows.
    let cpus = online_cpus().expect("online CPUs");
    for cpu in &cpus {
        run_on_cpu(*cpu);
        call_getppid(1);
    }
    assert!(fixture.buffers.wait(Duration::ZERO).is_ok());
    drain(&mut fixture.buffers, &mut delivered);
    let mut received: Vec<u64> = delivered.sequences.values().flatten().copied().collect();
    received.sort_unstable();
    let flushing = received
        .iter()
        .filter(|&&sequence| sequence > CALLS)
        .count();
    assert_eq!(flushing, cpus.len(), "the flushing records");
    received.retain(|&sequence| sequence <= CALLS);
    received.dedup();
    let records = received.len() as u64;
    assert!(
        delivered.lost > 0,
        "a one-page buffer should overflow ({records} records)"
    );
    assert_eq!(records + delivered.lost, CALLS, "records + lost");
    assert_eq!(
        counter(&fixture.counters, 1),
        delivered.lost,
        "failed outputs"
    );
    let lost_by_cpu: u64 = fixture
        .buffers
        .lost_counts()
        .iter()
        .map(|(_, lost)| lost)
        .sum();
    assert_eq!(lost_by_cpu, delivered.lost);
}

#[test]
fn sizes_that_are_not_a_power_of_two_pages_are_lowered_with_a_notice() {
    if !bpf_available("sizes_that_are_not_a_power_of_two_pages_are_lowered_with_a_notice") {
        return;
    }
    let cpus = possible_cpu_count().expect("possible CPUs") as u32;
    let map = bpf_map_create(MapType::PerfEventArray, 4, 4, cpus, 0, "dtrace_buf").expect("map");
    let buffers = PerfBufferSet::open(map, 3 << 20).expect("buffers");
    assert_eq!(buffers.granted_size(), 2 << 20);
    assert_eq!(
        buffers.lowered_size(),
        Some(LoweredSize {
            option: SizeOption::BufferSize,
            requested: 3 << 20,
            granted: 2 << 20,
        })
    );
    // A wait on empty rings times out.
    assert!(!buffers.wait(Duration::from_millis(1)).expect("wait"));
    let wrong = bpf_map_create(MapType::Array, 4, 4, cpus, 0, "dtrace_arr").expect("map");
    assert!(PerfBufferSet::open(wrong, 4096).is_err());
}
