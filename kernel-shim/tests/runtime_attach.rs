//! Live tests of attachment through `runtime::attach`: a BEGIN or END marker runs its
//! program at once in the firing thread (no attachment at all); the
//! syscall targets (tracepoint and raw tracepoint) count this thread's calls exactly;
//! profile and tick clocks sample every CPU or one; mismatched program types are refused;
//! and a process killed with SIGKILL leaves no program behind.

mod common;

use std::io::BufRead;
use std::time::{Duration, Instant};

use common::{
    bpf_available, call_getppid, counter, counter_map, emit_increment, emit_return_zero,
    emit_thread_filter, thread_id,
};
use kernel_shim::ebpf::{Assembler, Helper, Insn, JmpOp, Reg};
use kernel_shim::runtime::{attach, AttachTarget, ClockCpus, Marker};
use kernel_shim::sys::{
    bpf_prog_load, online_cpus, CpuClockRate, MapFd, ProgFd, ProgramLoadRequest, ProgramType,
};

fn load(program_type: ProgramType, instructions: &[Insn]) -> ProgFd {
    bpf_prog_load(&ProgramLoadRequest::new(program_type, instructions))
        .unwrap_or_else(|error| panic!("{error}"))
}

/// A raw-tracepoint program counting, in `counters[0]`, its runs in this thread.
fn marker_counter(counters: &MapFd) -> ProgFd {
    let mut assembler = Assembler::new();
    let done = assembler.new_label();
    emit_thread_filter(&mut assembler, thread_id(), done);
    emit_increment(&mut assembler, counters, 0);
    emit_return_zero(&mut assembler, done);
    load(
        ProgramType::RawTracepoint,
        &assembler.finish().expect("assembles"),
    )
}

#[test]
fn a_marker_runs_its_program_in_the_firing_thread_each_time_it_fires() {
    if !bpf_available("a_marker_runs_its_program_in_the_firing_thread_each_time_it_fires") {
        return;
    }
    let counters = counter_map("dtrace_begin");
    let program = marker_counter(&counters);
    Marker::Begin
        .fire(&program)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counter(&counters, 0), 1);
    Marker::End.fire(&program).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        counter(&counters, 0),
        2,
        "the program runs synchronously, in this thread"
    );
    // A program the test run cannot take is reported, not ignored.
    let tracepoint_program = getppid_counter(ProgramType::Tracepoint, &counters);
    let error = Marker::End
        .fire(&tracepoint_program)
        .expect_err("not a raw tracepoint");
    assert!(error.to_string().contains("dtrace:::END"), "{error}");
}

/// A program counting this thread's getppid(2) calls: at a `syscalls` tracepoint, or at
/// raw `sys_enter` after checking the syscall number (args[1]).
fn getppid_counter(program_type: ProgramType, counters: &MapFd) -> ProgFd {
    let mut assembler = Assembler::new();
    let done = assembler.new_label();
    if program_type == ProgramType::RawTracepoint {
        assembler.emit(Insn::ldx_mem(
            kernel_shim::ebpf::MemSize::DW,
            Reg::R6,
            Reg::R1,
            8,
        ));
        assembler.jmp_imm_to(JmpOp::Ne, Reg::R6, libc::SYS_getppid as i32, done);
    }
    emit_thread_filter(&mut assembler, thread_id(), done);
    emit_increment(&mut assembler, counters, 0);
    emit_return_zero(&mut assembler, done);
    load(program_type, &assembler.finish().expect("assembles"))
}

#[test]
fn syscall_targets_count_exactly() {
    if !bpf_available("syscall_targets_count_exactly") {
        return;
    }
    let targets = [
        AttachTarget::Tracepoint {
            group: "syscalls".into(),
            event: "sys_enter_getppid".into(),
        },
        AttachTarget::RawTracepoint {
            name: "sys_enter".into(),
        },
    ];
    for target in targets {
        let counters = counter_map("dtrace_sys");
        let program = getppid_counter(target.program_type(), &counters);
        let attachment = match attach(&program, &target, 0) {
            Ok(attachment) => attachment,
            Err(error) => {
                eprintln!("skipping {}: {error}", target.describe());
                continue;
            }
        };
        call_getppid(777);
        assert_eq!(counter(&counters, 0), 777, "{}", target.describe());
        drop(attachment);
        call_getppid(10);
        assert_eq!(
            counter(&counters, 0),
            777,
            "{} after detach",
            target.describe()
        );
    }
}

/// A perf-event program counting samples per CPU: `counters[cpu]` (CPUs 0–3).
fn per_cpu_sample_counter(counters: &MapFd) -> ProgFd {
    let mut assembler = Assembler::new();
    let done = assembler.new_label();
    assembler.emit(Insn::call(Helper::GetSmpProcessorId));
    for cpu in 0..4 {
        let next = assembler.new_label();
        assembler.jmp_imm_to(JmpOp::Ne, Reg::R0, cpu, next);
        emit_increment(&mut assembler, counters, cpu as usize);
        assembler.ja_to(done);
        assembler.bind(next);
    }
    emit_return_zero(&mut assembler, done);
    load(
        ProgramType::PerfEvent,
        &assembler.finish().expect("assembles"),
    )
}

#[test]
fn profile_samples_every_cpu_and_tick_one() {
    if !bpf_available("profile_samples_every_cpu_and_tick_one") {
        return;
    }
    let online = online_cpus().expect("online CPUs");
    let watched: Vec<u32> = online.iter().copied().filter(|cpu| *cpu < 4).collect();
    // `-x cpu` puts the one event on the CPU it names (the last online one here).
    let last = *online.last().expect("an online CPU");
    for (cpus, expected_attachments) in [
        (ClockCpus::Every, online.len()),
        (ClockCpus::One, 1),
        (ClockCpus::Only(last), 1),
    ] {
        let counters = counter_map("dtrace_prof");
        let program = per_cpu_sample_counter(&counters);
        let target = AttachTarget::CpuClock {
            rate: CpuClockRate::PeriodNs(1_000_000),
            cpus,
        };
        let attachment = attach(&program, &target, 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(attachment.attachment_count(), expected_attachments);
        let expected = match cpus {
            ClockCpus::Every => watched.clone(),
            ClockCpus::One => vec![online[0]],
            ClockCpus::Only(cpu) => watched.iter().copied().filter(|c| *c == cpu).collect(),
        };
        let sampled_cpus = || -> Vec<u32> {
            watched
                .iter()
                .copied()
                .filter(|cpu| counter(&counters, *cpu as usize) > 0)
                .collect()
        };
        // Spin until every expected CPU has taken a sample: 150 ms is plenty on an idle
        // machine, but a busy host may not run one of this VM's CPUs for a while.
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(150)
            || (sampled_cpus() != expected && start.elapsed() < Duration::from_secs(5))
        {
            std::hint::black_box(start.elapsed());
        }
        drop(attachment);
        let sampled = sampled_cpus();
        match cpus {
            ClockCpus::Every => assert_eq!(sampled, watched, "profile"),
            ClockCpus::One => assert_eq!(sampled, vec![online[0]], "tick"),
            ClockCpus::Only(_) => assert_eq!(sampled, expected, "one chosen CPU"),
        }
    }
}

#[test]
fn mismatched_program_types_are_refused() {
    if !bpf_available("mismatched_program_types_are_refused") {
        return;
    }
    let counters = counter_map("dtrace_mis");
    let program = getppid_counter(ProgramType::Tracepoint, &counters);
    let target = AttachTarget::Kprobe {
        function: "do_nanosleep".to_string(),
        return_probe: false,
    };
    let error = attach(&program, &target, 0).expect_err("mismatch");
    assert!(
        error.to_string().contains("needs a kprobe program"),
        "{error}"
    );
}

/// Runs in the child process of `a_killed_process_leaves_no_program_attached`: attaches
/// a counting program to getppid(2), reports its program id, and waits to be killed.
fn attached_child() {
    let counters = counter_map("dtrace_child");
    let program = getppid_counter(ProgramType::Tracepoint, &counters);
    let _attachment = attach(
        &program,
        &AttachTarget::Tracepoint {
            group: "syscalls".into(),
            event: "sys_enter_getppid".into(),
        },
        0,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    println!("program-id {}", program.info().expect("info").id);
    std::thread::sleep(Duration::from_secs(30));
}

/// Whether a BPF program with this id exists (`BPF_PROG_GET_FD_BY_ID`).
fn program_exists(id: u32) -> bool {
    #[repr(C)]
    struct GetIdAttr {
        id: u32,
        next_id: u32,
        open_flags: u32,
    }
    let mut attr = GetIdAttr {
        id,
        next_id: 0,
        open_flags: 0,
    };
    const BPF_PROG_GET_FD_BY_ID: libc::c_long = 13;
    // SAFETY: the attribute holds no pointers and is as long as the size given.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            BPF_PROG_GET_FD_BY_ID,
            &mut attr as *mut GetIdAttr,
            std::mem::size_of::<GetIdAttr>(),
        )
    };
    if fd >= 0 {
        // SAFETY: a descriptor the kernel just gave us.
        unsafe { libc::close(fd as i32) };
        true
    } else {
        false
    }
}

#[test]
fn a_killed_process_leaves_no_program_attached() {
    if std::env::var_os("DTRACE_RUNTIME_ATTACHED_CHILD").is_some() {
        attached_child();
        return;
    }
    if !bpf_available("a_killed_process_leaves_no_program_attached") {
        return;
    }
    let mut child = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "a_killed_process_leaves_no_program_attached",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("DTRACE_RUNTIME_ATTACHED_CHILD", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("child");
    let stdout = child.stdout.take().expect("stdout");
    let id = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|line| {
            // libtest's "test NAME ... " may precede the line on the same output line.
            let (_, id) = line.split_once("program-id ")?;
            id.trim().parse::<u32>().ok()
        });
    let Some(id) = id else {
        let _ = child.kill();
        panic!("the child did not report its program id");
    };
    assert!(
        program_exists(id),
        "the child's program {id} should be loaded"
    );
    child.kill().expect("SIGKILL");
    child.wait().expect("wait");
    // The kernel frees programs after an RCU grace period.
    let start = Instant::now();
    while program_exists(id) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        !program_exists(id),
        "program {id} outlived its killed process"
    );
}
