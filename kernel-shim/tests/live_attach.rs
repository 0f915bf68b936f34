//! Live tests of attachment: a tracepoint and a raw tracepoint counting this thread's
//! getppid(2) calls exactly, cpu-clock sampling on every CPU, uprobes and uretprobes with
//! attach cookies on a function of this test binary, and detachment when descriptors close.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{
    bpf_available, call_getppid, counter, counter_map, emit_increment, emit_return_zero,
    emit_thread_filter, thread_id,
};
use kernel_shim::ebpf::{Assembler, AtomicOp, Helper, Insn, JmpOp, MemSize, Reg};
use kernel_shim::sys::{
    bpf_map_create, bpf_prog_load, bpf_raw_tracepoint_open, online_cpus, perf_event_open_cpu_clock,
    perf_event_open_kprobe, perf_event_open_tracepoint, perf_event_open_uprobe, tracepoint_id,
    CpuClockRate, KprobeRequest, MapType, ProgramLoadRequest, ProgramType, SysError, UprobeRequest,
    BPF_ANY,
};

#[test]
fn tracepoint_counts_exactly_this_threads_getppid_calls_until_detached() {
    if !bpf_available("tracepoint_counts_exactly_this_threads_getppid_calls_until_detached") {
        return;
    }
    let id = match tracepoint_id("syscalls", "sys_enter_getppid") {
        Ok(id) => id,
        Err(error) => {
            eprintln!("skipping: no syscalls:sys_enter_getppid tracepoint: {error}");
            return;
        }
    };
    // The counter lives in element 0 of an ordinary array map, reached by a lookup call.
    let counts = bpf_map_create(MapType::Array, 4, 8, 1, 0, "dtrace_getppid").expect("map");
    let mut assembler = Assembler::new();
    let done = assembler.new_label();
    emit_thread_filter(&mut assembler, thread_id(), done);
    assembler.emit(Insn::st_mem(MemSize::W, Reg::R10, -4, 0));
    assembler.emit(Insn::mov64_reg(Reg::R2, Reg::R10));
    assembler.emit(Insn::add64_imm(Reg::R2, -4));
    assembler.emit_all(&Insn::ld_map_fd(Reg::R1, counts.raw_fd()));
    assembler.emit(Insn::call(Helper::MapLookupElem));
    assembler.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
    assembler.emit(Insn::mov64_imm(Reg::R1, 1));
    assembler.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::Add,
        Reg::R0,
        Reg::R1,
        0,
    ));
    emit_return_zero(&mut assembler, done);
    let program = assembler.finish().expect("assembles");
    let loaded = bpf_prog_load(&ProgramLoadRequest::new(ProgramType::Tracepoint, &program))
        .unwrap_or_else(|error| panic!("{error}"));
    let event = perf_event_open_tracepoint(id).expect("tracepoint event");
    let link = event.attach(&loaded, 0).expect("link");

    let read = || {
        let value = counts
            .lookup(&0u32.to_ne_bytes())
            .expect("lookup")
            .expect("element");
        u64::from_ne_bytes(value[..].try_into().expect("8 bytes"))
    };
    call_getppid(1000);
    assert_eq!(read(), 1000);

    drop(link);
    drop(event);
    drop(loaded);
    call_getppid(100);
    assert_eq!(
        read(),
        1000,
        "the program ran after its descriptors were closed"
    );
}

#[test]
fn raw_tracepoint_sys_enter_sees_the_syscall_number() {
    if !bpf_available("raw_tracepoint_sys_enter_sees_the_syscall_number") {
        return;
    }
    let counts = counter_map("dtrace_rawtp");
    // ctx is u64 args[]: args[0] is the pt_regs pointer, args[1] the syscall number.
    let mut assembler = Assembler::new();
    let done = assembler.new_label();
    assembler.emit(Insn::ldx_mem(MemSize::DW, Reg::R6, Reg::R1, 8));
    assembler.jmp_imm_to(JmpOp::Ne, Reg::R6, libc::SYS_getppid as i32, done);
    emit_thread_filter(&mut assembler, thread_id(), done);
    emit_increment(&mut assembler, &counts, 0);
    emit_return_zero(&mut assembler, done);
    let program = assembler.finish().expect("assembles");
    let loaded = bpf_prog_load(&ProgramLoadRequest::new(
        ProgramType::RawTracepoint,
        &program,
    ))
    .unwrap_or_else(|error| panic!("{error}"));
    let link = bpf_raw_tracepoint_open("sys_enter", &loaded).expect("raw tracepoint");
    call_getppid(1000);
    assert_eq!(counter(&counts, 0), 1000);
    drop(link);
    call_getppid(100);
    assert_eq!(
        counter(&counts, 0),
        1000,
        "still attached after the link closed"
    );

    let missing =
        bpf_raw_tracepoint_open("no_such_raw_tracepoint", &loaded).expect_err("unknown tracepoint");
    assert_eq!(missing.errno(), Some(libc::ENOENT), "{missing}");
}

#[test]
fn cpu_clock_events_sample_every_cpu() {
    if !bpf_available("cpu_clock_events_sample_every_cpu") {
        return;
    }
    let counts = counter_map("dtrace_profile");
    let mut assembler = Assembler::new();
    let done = assembler.new_label();
    emit_increment(&mut assembler, &counts, 0);
    // Count the samples that land on this thread separately.
    emit_thread_filter(&mut assembler, thread_id(), done);
    emit_increment(&mut assembler, &counts, 1);
    emit_return_zero(&mut assembler, done);
    let program = assembler.finish().expect("assembles");
    let loaded = bpf_prog_load(&ProgramLoadRequest::new(ProgramType::PerfEvent, &program))
        .unwrap_or_else(|error| panic!("{error}"));

    // Both attachment styles: ioctl on the first CPU, BPF links on the others.
    let cpus = online_cpus().expect("online CPUs");
    let mut events = Vec::new();
    let mut links = Vec::new();
    for (index, cpu) in cpus.iter().enumerate() {
        let event = perf_event_open_cpu_clock(*cpu, CpuClockRate::FrequencyHz(997))
            .unwrap_or_else(|error| panic!("{error}"));
        if index == 0 {
            event.set_bpf(&loaded).expect("PERF_EVENT_IOC_SET_BPF");
            event.enable().expect("PERF_EVENT_IOC_ENABLE");
        } else {
            links.push(event.attach(&loaded, 0).expect("link"));
        }
        events.push(event);
    }
    // Keep this thread busy for 200 ms: about 200 of its samples at 997 Hz.
    let start = Instant::now();
    let mut spins = 0u64;
    while start.elapsed() < Duration::from_millis(200) {
        spins = std::hint::black_box(spins + 1);
    }
    let total = counter(&counts, 0);
    let on_this_thread = counter(&counts, 1);
    assert!(
        on_this_thread >= 40,
        "{on_this_thread} samples on this thread in 200 ms"
    );
    assert!(total >= on_this_thread);

    for event in &events {
        event.disable().expect("PERF_EVENT_IOC_DISABLE");
    }
    drop(links);
    drop(events);
    let after_detach = counter(&counts, 0);
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(
        counter(&counts, 0),
        after_detach,
        "sampling continued after close"
    );
}

#[test]
fn cpu_clock_refuses_a_zero_rate() {
    let error = perf_event_open_cpu_clock(0, CpuClockRate::PeriodNs(0)).expect_err("zero");
    assert!(matches!(error, SysError::Invalid { .. }), "{error}");
}

/// The function the uprobe tests probe. It must exist as a real symbol with its own code.
#[no_mangle]
#[inline(never)]
pub extern "C" fn kernel_shim_uprobe_target(argument: u64) -> u64 {
    std::hint::black_box(argument).wrapping_mul(3) + 1
}

/// The mapped file and file offset holding `address`, from /proc/self/maps.
fn file_offset_of(address: usize) -> Option<(PathBuf, u64)> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    for line in maps.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [range, _permissions, offset, _device, _inode, path, ..] = fields[..] else {
            continue;
        };
        let (start, end) = range.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        if (start..end).contains(&address) {
            let offset = u64::from_str_radix(offset, 16).ok()?;
            return Some((PathBuf::from(path), (address - start) as u64 + offset));
        }
    }
    None
}

#[test]
fn uprobe_and_uretprobe_fire_with_their_cookies() {
    if !bpf_available("uprobe_and_uretprobe_fire_with_their_cookies") {
        return;
    }
    let target: extern "C" fn(u64) -> u64 = std::hint::black_box(kernel_shim_uprobe_target);
    let Some((path, file_offset)) = file_offset_of(target as usize) else {
        eprintln!("skipping: cannot find the probed function in /proc/self/maps");
        return;
    };
    let counts = counter_map("dtrace_uprobe");
    // One program for both probes: it counts entries in word 0 or returns in word 1 and
    // adds the cookie to word 2 or 3, choosing by the cookie (1 = entry, 2 = return).
    let mut assembler = Assembler::new();
    let is_return = assembler.new_label();
    let done = assembler.new_label();
    assembler.emit(Insn::call(Helper::GetAttachCookie));
    assembler.emit(Insn::mov64_reg(Reg::R6, Reg::R0));
    assembler.jmp_imm_to(JmpOp::Eq, Reg::R6, 2, is_return);
    emit_increment(&mut assembler, &counts, 0);
    assembler.emit_all(&Insn::ld_map_value(Reg::R1, counts.raw_fd(), 16));
    assembler.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::Add,
        Reg::R1,
        Reg::R6,
        0,
    ));
    assembler.ja_to(done);
    assembler.bind(is_return);
    emit_increment(&mut assembler, &counts, 1);
    assembler.emit_all(&Insn::ld_map_value(Reg::R1, counts.raw_fd(), 24));
    assembler.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::Add,
        Reg::R1,
        Reg::R6,
        0,
    ));
    emit_return_zero(&mut assembler, done);
    let program = assembler.finish().expect("assembles");
    let loaded = bpf_prog_load(&ProgramLoadRequest::new(ProgramType::Kprobe, &program))
        .unwrap_or_else(|error| panic!("{error}"));

    let pid = std::process::id() as i32;
    let entry = perf_event_open_uprobe(&UprobeRequest {
        path: &path,
        file_offset,
        return_probe: false,
        reference_counter_offset: 0,
        pid: Some(pid),
    })
    .unwrap_or_else(|error| panic!("{error}"));
    let exit = perf_event_open_uprobe(&UprobeRequest {
        path: &path,
        file_offset,
        return_probe: true,
        reference_counter_offset: 0,
        pid: Some(pid),
    })
    .unwrap_or_else(|error| panic!("{error}"));
    let entry_link = entry.attach(&loaded, 1).expect("uprobe link");
    let exit_link = exit.attach(&loaded, 2).expect("uretprobe link");

    let mut sum = 0u64;
    for value in 0..50 {
        sum = sum.wrapping_add(target(value));
    }
    std::hint::black_box(sum);
    assert_eq!(
        (0..4)
            .map(|slot| counter(&counts, slot))
            .collect::<Vec<_>>(),
        vec![50, 50, 50, 100]
    );

    drop((entry_link, exit_link, entry, exit));
    target(1);
    assert_eq!(counter(&counts, 0), 50, "the uprobe fired after close");
    // Leave the map clean for anyone reading it later.
    counts
        .update(&0u32.to_ne_bytes(), &[0; 32], BPF_ANY)
        .expect("reset");
}

#[test]
fn missing_facilities_are_errors_not_panics() {
    assert!(matches!(
        tracepoint_id("../..", "id"),
        Err(SysError::Invalid { .. })
    ));
    assert!(matches!(
        tracepoint_id("syscalls", ""),
        Err(SysError::Invalid { .. })
    ));
    if !bpf_available("missing_facilities_are_errors_not_panics") {
        return;
    }
    let missing_tracepoint =
        tracepoint_id("no_such_group", "no_such_event").expect_err("no such tracepoint");
    assert_eq!(
        missing_tracepoint.errno(),
        Some(libc::ENOENT),
        "{missing_tracepoint}"
    );

    // This host has no kprobe PMU; a guest kernel may. Either way: no panic.
    match perf_event_open_kprobe(&KprobeRequest {
        function: "do_sys_openat2",
        offset: 0,
        return_probe: false,
    }) {
        Ok(_) => eprintln!("note: this kernel has kprobes"),
        Err(error) => eprintln!("kprobe unavailable as expected here: {error}"),
    }
}
