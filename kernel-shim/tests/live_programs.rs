//! Live tests of program loading: trivial programs, verifier rejections with their log, log
//! growth, program information and statistics, test runs, the privilege check, and the
//! agreement of our disassembler and helper table with the running kernel's.

mod common;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;

use common::bpf_available;
use kernel_shim::ebpf::helpers::ALL_HELPERS;
use kernel_shim::ebpf::{
    disassemble, instruction_text, AluOp, Assembler, AtomicOp, ExtendFrom, Helper, Insn, JmpOp,
    MemSize, Reg, SwapWidth,
};
use kernel_shim::sys::{
    bpf_enable_stats, bpf_prog_load, check_bpf_access, BpfAccessError, ProgramLoadRequest,
    ProgramType, SysError, TestRunRequest, BPF_LOG_LEVEL2,
};

fn return_zero() -> Vec<Insn> {
    vec![Insn::mov64_imm(Reg::R0, 0), Insn::exit()]
}

#[test]
fn trivial_programs_load_and_report_information() {
    if !bpf_available("trivial_programs_load_and_report_information") {
        return;
    }
    let program = return_zero();
    for program_type in [
        ProgramType::SocketFilter,
        ProgramType::Tracepoint,
        ProgramType::RawTracepoint,
        ProgramType::PerfEvent,
        ProgramType::Kprobe,
    ] {
        let mut request = ProgramLoadRequest::new(program_type, &program);
        request.name = "dtrace_trivial";
        let loaded = bpf_prog_load(&request).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(loaded.program_type(), program_type);
        assert_eq!(loaded.verifier_log(), "");
        let info = loaded.info().expect("program info");
        assert!(info.id > 0);
        assert_eq!(info.program_type, program_type.number());
        assert_eq!(info.name, "dtrace_trivial");
        assert_eq!(info.recursion_misses, 0);
        assert!(info.jited_length > 0, "the JIT is on");
    }
}

#[test]
fn verifier_rejection_returns_the_log() {
    if !bpf_available("verifier_rejection_returns_the_log") {
        return;
    }
    // r0 is never written, so the verifier refuses to return it.
    let program = [Insn::exit()];
    let error = bpf_prog_load(&ProgramLoadRequest::new(ProgramType::Tracepoint, &program))
        .expect_err("the verifier must refuse");
    assert_eq!(error.error.errno(), Some(libc::EACCES), "{error}");
    assert!(error.log.contains("R0 !read_ok"), "log: {}", error.log);
    assert!(error.to_string().contains("verifier log:\n"), "{error}");
    assert!(
        error
            .error
            .attempted()
            .starts_with("bpf(BPF_PROG_LOAD) of tracepoint program"),
        "{}",
        error.error
    );

    // A helper the program type may not call.
    let program = [
        Insn::call(Helper::ProbeWriteUser),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ];
    let error = bpf_prog_load(&ProgramLoadRequest::new(
        ProgramType::SocketFilter,
        &program,
    ))
    .expect_err("socket filters cannot write user memory");
    assert!(
        error.log.contains("bpf_probe_write_user#36"),
        "log: {}",
        error.log
    );
}

#[test]
fn malformed_requests_are_refused_without_a_system_call() {
    let empty: [Insn; 0] = [];
    let error = bpf_prog_load(&ProgramLoadRequest::new(ProgramType::Tracepoint, &empty))
        .expect_err("no instructions");
    assert!(matches!(error.error, SysError::Invalid { .. }), "{error}");
    let program = return_zero();
    let mut request = ProgramLoadRequest::new(ProgramType::Tracepoint, &program);
    request.license = "G\0PL";
    let error = bpf_prog_load(&request).expect_err("NUL in license");
    assert!(matches!(error.error, SysError::Invalid { .. }), "{error}");
}

#[test]
fn requested_logs_are_kept_and_grown_as_needed() {
    if !bpf_available("requested_logs_are_kept_and_grown_as_needed") {
        return;
    }
    // Level 2 logs every instruction twice: thousands of them overflow the first buffer.
    let mut program = vec![Insn::mov64_imm(Reg::R0, 0); 5000];
    program.push(Insn::exit());
    let mut request = ProgramLoadRequest::new(ProgramType::Tracepoint, &program);
    request.log_level = BPF_LOG_LEVEL2;
    let loaded = bpf_prog_load(&request).unwrap_or_else(|error| panic!("{error}"));
    assert!(loaded.verifier_log().len() > 64 << 10);
    assert!(
        loaded.verifier_log().contains("processed 5001 insns"),
        "log tail: {}",
        &loaded.verifier_log()[loaded.verifier_log().len().saturating_sub(300)..]
    );
}

#[test]
fn test_runs_and_run_time_statistics() {
    if !bpf_available("test_runs_and_run_time_statistics") {
        return;
    }
    // Raw tracepoint context: u64 args[]; return args[0] + 1.
    let program = [
        Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R1, 0),
        Insn::add64_imm(Reg::R0, 1),
        Insn::exit(),
    ];
    let loaded = bpf_prog_load(&ProgramLoadRequest::new(
        ProgramType::RawTracepoint,
        &program,
    ))
    .unwrap_or_else(|error| panic!("{error}"));
    let statistics = bpf_enable_stats().expect("BPF_ENABLE_STATS");
    let context = 41u64.to_ne_bytes();
    for _ in 0..3 {
        let result = loaded
            .test_run(&TestRunRequest {
                context: &context,
                cpu: Some(0),
                ..TestRunRequest::default()
            })
            .expect("test run");
        assert_eq!(result.return_value, 42);
    }
    let info = loaded.info().expect("program info");
    assert_eq!(info.run_count, 3);
    drop(statistics);
}

#[test]
fn privilege_check_passes_as_root_and_fails_as_nobody() {
    if std::env::var_os("KERNEL_SHIM_PRIVILEGE_CHILD").is_some() {
        // The re-executed copy, running as nobody.
        match check_bpf_access() {
            Err(BpfAccessError::NotPermitted(error)) => {
                assert!(error.is_permission_denied());
                println!("child: not permitted");
            }
            other => panic!("expected NotPermitted as nobody, got {other:?}"),
        }
        return;
    }
    if !bpf_available("privilege_check_passes_as_root_and_fails_as_nobody") {
        return;
    }
    assert_eq!(check_bpf_access(), Ok(()));
    let executable = std::env::current_exe().expect("test executable");
    let output = std::process::Command::new(executable)
        .args([
            "--exact",
            "privilege_check_passes_as_root_and_fails_as_nobody",
            "--nocapture",
        ])
        .env("KERNEL_SHIM_PRIVILEGE_CHILD", "1")
        .uid(65534)
        .gid(65534)
        .output()
        .expect("re-executing the test as nobody");
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() && stdout.is_empty() {
        eprintln!(
            "skipping the unprivileged half: the test binary cannot run as nobody: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        return;
    }
    assert!(
        output.status.success() && stdout.contains("child: not permitted"),
        "child stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The lines `PC: (OPCODE) TEXT` of a level-2 verifier log, without the register state the
/// verifier appends after `;`.
fn kernel_listing(log: &str) -> BTreeMap<usize, String> {
    let mut listing = BTreeMap::new();
    for line in log.lines() {
        let Some((pc, rest)) = line.split_once(": (") else {
            continue;
        };
        let Ok(pc) = pc.parse::<usize>() else {
            continue;
        };
        let text = rest.split(" ; ").next().unwrap_or(rest).trim_end();
        listing.entry(pc).or_insert_with(|| format!("({text}"));
    }
    listing
}

#[test]
fn disassembly_matches_the_kernel_verifier_log() {
    if !bpf_available("disassembly_matches_the_kernel_verifier_log") {
        return;
    }
    let mut assembler = Assembler::new();
    let out = assembler.new_label();
    assembler.emit(Insn::mov64_reg(Reg::R6, Reg::R1));
    assembler.emit(Insn::st_mem(MemSize::DW, Reg::R10, -8, 7));
    assembler.emit(Insn::st_mem(MemSize::W, Reg::R10, -12, -3));
    assembler.emit(Insn::st_mem(MemSize::H, Reg::R10, -14, 2));
    assembler.emit(Insn::st_mem(MemSize::B, Reg::R10, -15, 1));
    assembler.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::R10, -8));
    assembler.emit(Insn::ldx_mem(MemSize::W, Reg::R3, Reg::R10, -12));
    assembler.emit(Insn::ldx_memsx(MemSize::W, Reg::R4, Reg::R10, -12));
    assembler.emit(Insn::ldx_mem(MemSize::H, Reg::R5, Reg::R10, -14));
    assembler.emit(Insn::ldx_memsx(MemSize::B, Reg::R5, Reg::R10, -15));
    assembler.emit(Insn::stx_mem(MemSize::DW, Reg::R10, Reg::R2, -24));
    assembler.emit(Insn::stx_mem(MemSize::W, Reg::R10, Reg::R3, -28));
    assembler.emit(Insn::mov64_reg(Reg::R1, Reg::R10));
    assembler.emit(Insn::add64_imm(Reg::R1, -24));
    assembler.emit(Insn::mov64_imm(Reg::R2, 1));
    assembler.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::Add,
        Reg::R1,
        Reg::R2,
        0,
    ));
    assembler.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::FetchOr,
        Reg::R1,
        Reg::R2,
        0,
    ));
    assembler.emit(Insn::atomic(
        MemSize::W,
        AtomicOp::Xchg,
        Reg::R1,
        Reg::R2,
        0,
    ));
    assembler.emit(Insn::mov64_imm(Reg::R0, 0));
    assembler.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::CmpXchg,
        Reg::R1,
        Reg::R2,
        0,
    ));
    for op in [
        AluOp::Add,
        AluOp::Sub,
        AluOp::Mul,
        AluOp::Div,
        AluOp::SDiv,
        AluOp::Or,
        AluOp::And,
        AluOp::Lsh,
        AluOp::Rsh,
        AluOp::Mod,
        AluOp::SMod,
        AluOp::Xor,
        AluOp::Arsh,
    ] {
        assembler.emit(Insn::alu64_imm(op, Reg::R3, 3));
        assembler.emit(Insn::alu64_reg(op, Reg::R3, Reg::R2));
        assembler.emit(Insn::alu32_imm(op, Reg::R4, 5));
        assembler.emit(Insn::alu32_reg(op, Reg::R4, Reg::R2));
    }
    assembler.emit(Insn::neg64(Reg::R3));
    assembler.emit(Insn::neg32(Reg::R4));
    assembler.emit(Insn::movsx64_reg(Reg::R5, Reg::R3, ExtendFrom::S16));
    assembler.emit(Insn::movsx64_reg(Reg::R5, Reg::R3, ExtendFrom::S32));
    assembler.emit(Insn::movsx32_reg(Reg::R5, Reg::R3, ExtendFrom::S8));
    assembler.emit(Insn::to_be(Reg::R5, SwapWidth::W32));
    assembler.emit(Insn::to_le(Reg::R5, SwapWidth::W16));
    assembler.emit(Insn::bswap(Reg::R5, SwapWidth::W64));
    assembler.emit_all(&Insn::ld_imm64(Reg::R7, 0xdead_beef_0000_0001));
    for op in [
        JmpOp::Eq,
        JmpOp::Ne,
        JmpOp::Gt,
        JmpOp::Ge,
        JmpOp::Lt,
        JmpOp::Le,
        JmpOp::Sgt,
        JmpOp::Sge,
        JmpOp::Slt,
        JmpOp::Sle,
        JmpOp::Set,
    ] {
        assembler.emit(Insn::jmp_imm(op, Reg::R3, -2, 0));
        assembler.emit(Insn::jmp_reg(op, Reg::R3, Reg::R5, 0));
        assembler.emit(Insn::jmp32_imm(op, Reg::R4, 9, 0));
        assembler.emit(Insn::jmp32_reg(op, Reg::R4, Reg::R5, 0));
    }
    assembler.emit(Insn::ja(0));
    assembler.emit(Insn::call(Helper::KtimeGetNs));
    assembler.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, out);
    assembler.emit(Insn::call(Helper::GetSmpProcessorId));
    assembler.bind(out);
    assembler.emit(Insn::mov64_imm(Reg::R0, 0));
    assembler.emit(Insn::exit());
    let program = assembler.finish().expect("assembles");

    let mut request = ProgramLoadRequest::new(ProgramType::Tracepoint, &program);
    request.log_level = BPF_LOG_LEVEL2;
    let loaded = bpf_prog_load(&request).unwrap_or_else(|error| panic!("{error}"));
    let kernel = kernel_listing(loaded.verifier_log());
    let ours = kernel_listing(&disassemble(&program));
    assert!(ours.len() > 80);
    for (pc, text) in &ours {
        assert_eq!(
            kernel.get(pc),
            Some(text),
            "instruction {pc}; kernel log:\n{}",
            loaded.verifier_log()
        );
    }
}

#[test]
fn helper_table_matches_the_kernel() {
    if !bpf_available("helper_table_matches_the_kernel") {
        return;
    }
    // The verifier prints `call bpf_NAME#N` for every helper it knows, allowed or not, and
    // `call unknown#N` past the end of its table.
    for number in 0..ALL_HELPERS.len() as u32 + 2 {
        let program = [
            Insn::mov64_imm(Reg::R1, 0),
            Insn::call_helper_number(number),
            Insn::mov64_imm(Reg::R0, 0),
            Insn::exit(),
        ];
        let mut request = ProgramLoadRequest::new(ProgramType::Kprobe, &program);
        request.log_level = BPF_LOG_LEVEL2;
        let log = match bpf_prog_load(&request) {
            Ok(loaded) => loaded.verifier_log().to_string(),
            Err(error) => error.log,
        };
        let expected = format!("(85) {}", instruction_text(&program[1], None));
        let kernel_line = log.lines().find(|line| line.contains("(85) call"));
        let kernel_knows_more = number as usize >= ALL_HELPERS.len()
            && kernel_line.is_some_and(|line| !line.contains("unknown"));
        if kernel_knows_more {
            eprintln!("note: the kernel knows helper {number}, newer than our table");
            continue;
        }
        assert!(
            kernel_line.is_some_and(|line| line.contains(&expected)),
            "helper {number}: kernel says {kernel_line:?}, we say {expected:?}"
        );
    }
}
