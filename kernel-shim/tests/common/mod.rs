//! Shared pieces of the live kernel tests: the skip check and small counting programs;
//! `d_programs` holds what the runtime-session tests of real D programs share.

#![allow(dead_code)]

pub mod d_programs;

use kernel_shim::ebpf::{Assembler, AtomicOp, Helper, Insn, JmpOp, Label, MemSize, Reg};
use kernel_shim::sys::{bpf_map_create, check_bpf_access, MapFd, MapType};

/// Whether the live tests can run: root and a working bpf(2). Prints the one-line reason
/// when they cannot.
pub fn bpf_available(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipping {test}: not running as root");
        return false;
    }
    if let Err(error) = check_bpf_access() {
        eprintln!("skipping {test}: {error}: {}", error.sys_error());
        return false;
    }
    true
}

/// The calling thread's id, which is the low half of `bpf_get_current_pid_tgid`.
pub fn thread_id() -> u32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() as u32 }
}

/// A single-entry array of four u64 counters; programs reach it with `ld_map_value`.
pub fn counter_map(name: &str) -> MapFd {
    bpf_map_create(MapType::Array, 4, 32, 1, 0, name).expect("counter map")
}

/// Counter `slot` (0–3) of a `counter_map`.
pub fn counter(map: &MapFd, slot: usize) -> u64 {
    let value = map
        .lookup(&0u32.to_ne_bytes())
        .expect("lookup")
        .expect("element 0");
    u64::from_ne_bytes(value[slot * 8..slot * 8 + 8].try_into().expect("8 bytes"))
}

/// Emits `if (u32)bpf_get_current_pid_tgid() != thread goto skip` (clobbers r0–r5).
pub fn emit_thread_filter(assembler: &mut Assembler, thread: u32, skip: Label) {
    assembler.emit(Insn::call(Helper::GetCurrentPidTgid));
    assembler.jmp32_imm_to(JmpOp::Ne, Reg::R0, thread as i32, skip);
}

/// Emits `counter[slot] += 1` atomically on a `counter_map` (clobbers r1, r2).
pub fn emit_increment(assembler: &mut Assembler, map: &MapFd, slot: usize) {
    assembler.emit_all(&Insn::ld_map_value(
        Reg::R1,
        map.raw_fd(),
        (slot * 8) as u32,
    ));
    assembler.emit(Insn::mov64_imm(Reg::R2, 1));
    assembler.emit(Insn::atomic(
        MemSize::DW,
        AtomicOp::Add,
        Reg::R1,
        Reg::R2,
        0,
    ));
}

/// Emits `r0 = 0; exit` at `label`.
pub fn emit_return_zero(assembler: &mut Assembler, label: Label) {
    assembler.bind(label);
    assembler.emit(Insn::mov64_imm(Reg::R0, 0));
    assembler.emit(Insn::exit());
}

/// Makes `count` getppid(2) calls from the calling thread.
pub fn call_getppid(count: usize) {
    for _ in 0..count {
        // SAFETY: getppid has no preconditions.
        std::hint::black_box(unsafe { libc::getppid() });
    }
}
