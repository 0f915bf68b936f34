//! String subroutines that walk a string byte by byte: `toupper`, `tolower`, `strchr`,
//! `strrchr`, `lltostr` and `__copyin_arguments`, as loops over the work area's string
//! buffer 0 (bounded eBPF loops, or `bpf_loop` callbacks for `toupper`, `tolower` and
//! `lltostr`'s digits, which the verifier would otherwise follow for every byte).
//!
//! The loops are shaped for the kernel's verifier, which follows every iteration: the
//! bound is a constant (strsize, or 64 digits), the data-dependent exit tests a freshly
//! loaded byte or word, and everything carried across iterations or out of the loop lives
//! in the work area's temporary words (`T0`: magnitude, `T1`: character or base, `T2`:
//! result or count) rather than in registers. The states leaving the loop after different
//! numbers of iterations then differ only in dead registers, so the verifier merges them
//! instead of following the rest of the program once per iteration count.

use difvm::object::FaultCode;

use super::code::{invert, FaultSite, FaultValue, ProgramCode};
use super::loops::LoopBody;
use super::memory::ScratchSize;
use super::memory::{allocate_scratch, read_or_fault, scratch_address, Access};
use super::registers::{SAVED_1, SPILL_0, SPILL_1, SPILL_2, STATE};
use super::strings::{string_buffer, string_into_buffer};
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::{string_buffer_stride, ProgramLayout};

/// Bytes of string buffer 0 `lltostr` builds its text in, backwards from this offset.
const DIGITS_END: u32 = 80;

pub fn temporary_word(layout: &ProgramLayout, index: u32) -> u32 {
    layout.state.temporary + 8 * index
}

/// A new strsize-byte scratch string holding the bytes of the work area from the
/// offset in stack slot `source` on, as many as stack slot `length` says, at most
/// strsize − 1 (a longer text is cut there, as DTrace's string subroutines and the
/// recording of their results cut it); r0 = its TAG_SCRATCH address.
pub fn work_area_to_scratch_string(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    source: i16,
    length: i16,
    site: FaultSite,
) {
    let strsize = cx.layout().options.strsize;
    allocate_scratch(code, cx, ScratchSize::Constant(strsize), site);
    code.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
    code.emit(Insn::mov64_reg(Reg::R1, STATE));
    code.alu_imm(AluOp::Add, Reg::R1, cx.layout().state.scratch as i32);
    code.alu_reg(AluOp::Add, Reg::R1, Reg::R0);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, length));
    let copied = code.label();
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, copied);
    let bounded = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Lt, Reg::R2, strsize as i32, bounded);
    code.emit(Insn::mov64_imm(Reg::R2, strsize as i32 - 1));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, copied);
    code.bind(bounded);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, source));
    let limit = cx.layout().state.string_buffers;
    code.asm
        .jmp_imm_to(JmpOp::Gt, Reg::R3, limit as i32 + 512, copied);
    code.alu_reg(AluOp::Add, Reg::R3, STATE);
    code.call(Helper::ProbeReadKernel);
    code.bind(copied);
    scratch_address(code, Reg::R0, SAVED_1);
}

/// A new strsize-byte scratch string holding the NUL-terminated text of the work area
/// at the offset in stack slot `source` (cut to strsize − 1 bytes, as the interpreter
/// cuts string results); r0 = its TAG_SCRATCH address.
pub fn work_area_text_to_scratch(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    source: i16,
    site: FaultSite,
) {
    let strsize = cx.layout().options.strsize;
    allocate_scratch(code, cx, ScratchSize::Constant(strsize), site);
    code.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
    let copied = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, source));
    code.asm.jmp_imm_to(
        JmpOp::Ge,
        Reg::R3,
        cx.layout().state.zero_guard as i32,
        copied,
    );
    code.alu_reg(AluOp::Add, Reg::R3, STATE);
    code.emit(Insn::mov64_reg(Reg::R1, STATE));
    code.alu_imm(AluOp::Add, Reg::R1, cx.layout().state.scratch as i32);
    code.alu_reg(AluOp::Add, Reg::R1, SAVED_1);
    code.emit(Insn::mov64_imm(Reg::R2, strsize as i32));
    code.call(Helper::ProbeReadKernelStr);
    code.bind(copied);
    scratch_address(code, Reg::R0, SAVED_1);
    code.emit(Insn::mov64_imm(SAVED_1, 0));
}

/// Emits `for (r1 = 0; r1 < limit; r1++) { r3 = &work area[r1]; body }`, where the
/// body may jump to the returned `exit` label to stop early.
pub fn byte_loop(code: &mut ProgramCode, limit: u32, body: impl FnOnce(&mut ProgramCode, Label)) {
    let top = code.label();
    let exit = code.label();
    code.emit(Insn::mov64_imm(Reg::R1, 0));
    code.bind(top);
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, limit as i32, exit);
    code.emit(Insn::mov64_reg(Reg::R3, STATE));
    code.alu_reg(AluOp::Add, Reg::R3, Reg::R1);
    body(code, exit);
    code.alu_imm(AluOp::Add, Reg::R1, 1);
    code.asm.ja_to(top);
    code.bind(exit);
    code.emit(Insn::mov64_imm(Reg::R1, 0));
    code.emit(Insn::mov64_imm(Reg::R3, 0));
}

/// Leaves a byte loop through `exit` when `register OP imm`. The continuation is the
/// jump's target and the exit its fall-through, so that the verifier, which follows
/// the fall-through first and keeps the target for later, follows the rest of the
/// program after an early exit before the next iteration instead of keeping one
/// pending exit per iteration (it refuses programs with more than 8192 pending).
pub fn exit_if_imm(code: &mut ProgramCode, op: JmpOp, register: Reg, imm: i32, exit: Label) {
    let stay = code.label();
    code.asm.jmp_imm_to(invert(op), register, imm, stay);
    code.asm.ja_to(exit);
    code.bind(stay);
}

/// `toupper(s)` / `tolower(s)` with `s` in r9: r0 = the converted scratch string.
pub fn change_case(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    upper: bool,
    site: FaultSite,
) {
    let strsize = cx.layout().options.strsize;
    string_into_buffer(code, cx, 0, false, site);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
    let buffer = string_buffer(cx.layout(), 0) as i16;
    // One bpf_loop callback per byte: the verifier checks its body once, where a
    // bounded loop would be followed for every one of strsize bytes.
    code.load_constant(Reg::R1, u64::from(strsize));
    code.run_loop(LoopBody::ChangeCase { upper });
    code.load_constant(Reg::R0, buffer as u64);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
    work_area_to_scratch_string(code, cx, SPILL_1, SPILL_0, site);
}

/// The body of [`LoopBody::ChangeCase`]: byte r1 of string buffer 0 changes case; the
/// NUL (or the end of the buffer) stops the loop.
pub fn change_case_iteration(code: &mut ProgramCode, layout: &ProgramLayout, upper: bool) {
    let stop = code.label();
    let keep = code.label();
    let buffer = string_buffer(layout, 0) as i16;
    let (first, shift) = if upper { (b'a', -32) } else { (b'A', 32) };
    code.asm
        .jmp_imm_to(JmpOp::Ge, Reg::R1, layout.options.strsize as i32, stop);
    code.emit(Insn::mov64_reg(Reg::R3, STATE));
    code.alu_reg(AluOp::Add, Reg::R3, Reg::R1);
    code.emit(Insn::ldx_mem(MemSize::B, Reg::R4, Reg::R3, buffer));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R4, 0, stop);
    code.emit(Insn::mov64_reg(Reg::R5, Reg::R4));
    code.alu_imm(AluOp::Sub, Reg::R5, first as i32);
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R5, 26, keep);
    code.alu_imm(AluOp::Add, Reg::R4, shift);
    code.emit(Insn::stx_mem(MemSize::B, Reg::R3, Reg::R4, buffer));
    code.bind(keep);
    code.loop_return(false);
    code.bind(stop);
    code.loop_return(true);
}

/// `__copyin_arguments(start, end)` with `start` in SAVED_1 and `end` in the stack slot
/// `SPILL_1`: the current process's argument area [start, end), at most strsize − 1
/// bytes of it, each NUL followed by more text turned into a space; r0 = the scratch
/// string. A bad address faults as `copyin()`'s does.
pub fn process_arguments(code: &mut ProgramCode, cx: &StatementContext<'_>, site: FaultSite) {
    let strsize = cx.layout().options.strsize;
    let buffer = string_buffer(cx.layout(), 0);
    code.zero_fill(STATE, buffer, string_buffer_stride(strsize));
    let (empty, bounded) = (code.label(), code.label());
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_1));
    code.alu_reg(AluOp::Sub, Reg::R2, SAVED_1);
    code.asm.jmp_imm_to(JmpOp::Sle, Reg::R2, 0, empty);
    code.load_constant(Reg::R3, u64::from(strsize) - 1);
    code.asm.jmp_reg_to(JmpOp::Le, Reg::R2, Reg::R3, bounded);
    code.emit(Insn::mov64_reg(Reg::R2, Reg::R3));
    code.bind(bounded);
    code.emit(Insn::mov64_reg(Reg::R1, STATE));
    code.alu_imm(AluOp::Add, Reg::R1, buffer as i32);
    code.emit(Insn::mov64_reg(Reg::R3, SAVED_1));
    read_or_fault(code, cx, Access::User, SAVED_1, site);
    code.bind(empty);
    let buffer = buffer as i16;
    // The buffer is zero-filled past what was read, so the NUL that ends the last
    // argument, followed by zeros, stays and ends the text.
    byte_loop(code, strsize - 1, |code, _| {
        let keep = code.label();
        code.emit(Insn::ldx_mem(MemSize::B, Reg::R4, Reg::R3, buffer));
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, keep);
        code.emit(Insn::ldx_mem(MemSize::B, Reg::R5, Reg::R3, buffer + 1));
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R5, 0, keep);
        code.emit(Insn::mov64_imm(Reg::R4, i32::from(b' ')));
        code.emit(Insn::stx_mem(MemSize::B, Reg::R3, Reg::R4, buffer));
        code.bind(keep);
    });
    code.load_constant(Reg::R0, buffer as u64);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
    work_area_text_to_scratch(code, cx, SPILL_0, site);
}

/// `strchr(s, c)` / `strrchr(s, c)` with `s` in r9 and `c` in the stack slot
/// `SPILL_1`: r0 = the address of the first (last) `c` in `s`, its NUL included when
/// within strsize, or 0.
pub fn find_character(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    last: bool,
    site: FaultSite,
) {
    let strsize = cx.layout().options.strsize;
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, SAVED_1, SPILL_2));
    string_into_buffer(code, cx, 0, false, site);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_1));
    code.alu_imm(AluOp::And, Reg::R2, 0xff);
    code.store_state(temporary_word(cx.layout(), 1), Reg::R2);
    code.store_state_imm(temporary_word(cx.layout(), 2), 0);
    // One bpf_loop callback per byte, which the verifier checks once.
    code.load_constant(Reg::R1, u64::from(strsize));
    code.run_loop(LoopBody::FindCharacter { last });
    let result_word = temporary_word(cx.layout(), 2);
    let none = code.label();
    code.load_state(Reg::R0, result_word);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, none);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_2));
    code.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
    code.alu_imm(AluOp::Sub, Reg::R0, 1);
    code.bind(none);
}

/// The body of [`LoopBody::FindCharacter`]: byte r1 of string buffer 0 against the
/// character in temporary word 1; a match records its position + 1 in word 2 (and
/// stops, unless looking for the last one); the NUL stops.
pub fn find_character_iteration(code: &mut ProgramCode, layout: &ProgramLayout, last: bool) {
    let strsize = layout.options.strsize;
    let buffer = string_buffer(layout, 0) as i16;
    let found_word = temporary_word(layout, 1);
    let result_word = temporary_word(layout, 2);
    loop_iteration(code, |code, exit| {
        let differs = code.label();
        code.asm
            .jmp_imm_to(JmpOp::Ge, Reg::R1, strsize as i32, exit);
        code.emit(Insn::mov64_reg(Reg::R3, STATE));
        code.alu_reg(AluOp::Add, Reg::R3, Reg::R1);
        code.emit(Insn::ldx_mem(MemSize::B, Reg::R4, Reg::R3, buffer));
        code.load_state(Reg::R5, found_word);
        code.asm.jmp_reg_to(JmpOp::Ne, Reg::R4, Reg::R5, differs);
        code.emit(Insn::mov64_reg(Reg::R0, Reg::R1));
        code.alu_imm(AluOp::Add, Reg::R0, 1);
        code.store_state(result_word, Reg::R0);
        if !last {
            code.asm.ja_to(exit);
        }
        code.bind(differs);
        exit_if_imm(code, JmpOp::Eq, Reg::R4, 0, exit);
    });
}

/// `lltostr(value [, base])` with the value in `SPILL_1` and the base in `SPILL_2`:
/// r0 = the scratch string. Bases outside 2..=36 fault with `illegal operation`.
pub fn integer_to_string(code: &mut ProgramCode, cx: &StatementContext<'_>, site: FaultSite) {
    let end = string_buffer(cx.layout(), 0) + DIGITS_END;
    let (magnitude, base, count) = (
        temporary_word(cx.layout(), 0),
        temporary_word(cx.layout(), 1),
        temporary_word(cx.layout(), 2),
    );
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
    for (op, limit) in [(JmpOp::Lt, 2), (JmpOp::Gt, 36)] {
        code.fault_if_imm(
            cx.fault_exit,
            op,
            Reg::R2,
            limit,
            FaultCode::IllegalOperation,
            FaultValue::Register(Reg::R2),
            site,
        );
    }
    // The magnitude is negated only in base 10.
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
    let positive = code.label();
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 10, positive);
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, positive);
    code.emit(Insn::neg64(Reg::R1));
    code.bind(positive);
    code.store_state(magnitude, Reg::R1);
    code.store_state(base, Reg::R2);
    code.store_state_imm(count, 0);
    // Digits, least significant first, written backwards, one bpf_loop callback per
    // digit so that the verifier checks the division once rather than 64 times.
    code.emit(Insn::mov64_imm(Reg::R1, 64));
    code.run_loop(LoopBody::IntegerDigit);
    // Prefixes: "0x" (base 16, after a "0" digit for zero), "0" (zero, base 8), "-".
    let (value, base_slot) = (SPILL_1, SPILL_2);
    let push = |code: &mut ProgramCode, byte: u8| {
        code.emit(Insn::mov64_imm(Reg::R4, byte as i32));
        push_character(code, end, count, Reg::R4);
    };
    let not_hex = code.label();
    let zero_done = code.label();
    let sign = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, value));
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, base_slot));
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 16, not_hex);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, zero_done);
    push(code, b'0');
    code.bind(zero_done);
    push(code, b'x');
    push(code, b'0');
    code.asm.ja_to(sign);
    code.bind(not_hex);
    let zero_digit = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, value));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, zero_digit);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, base_slot));
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 8, sign);
    code.bind(zero_digit);
    push(code, b'0');
    code.bind(sign);
    let unsigned = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, value));
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, base_slot));
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 10, unsigned);
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, unsigned);
    push(code, b'-');
    code.bind(unsigned);
    // The characters before `end` become the scratch string.
    code.load_state(Reg::R3, count);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R3, SPILL_0));
    code.emit(Insn::mov64_imm(Reg::R0, end as i32));
    code.alu_reg(AluOp::Sub, Reg::R0, Reg::R3);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
    work_area_to_scratch_string(code, cx, SPILL_1, SPILL_0, site);
}

/// The body of [`LoopBody::IntegerDigit`]: the least significant digit of the
/// magnitude in temporary word 0 (base in word 1) is pushed before the digits so far
/// (count in word 2) and the magnitude divided by the base; a zero magnitude stops.
pub fn integer_digit_iteration(code: &mut ProgramCode, layout: &ProgramLayout) {
    let end = string_buffer(layout, 0) + DIGITS_END;
    let (magnitude, base, count) = (
        temporary_word(layout, 0),
        temporary_word(layout, 1),
        temporary_word(layout, 2),
    );
    let stop = code.label();
    code.load_state(Reg::R4, magnitude);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R4, 0, stop);
    code.load_state(Reg::R2, base);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, stop);
    code.emit(Insn::mov64_reg(Reg::R5, Reg::R4));
    code.alu_reg(AluOp::Div, Reg::R5, Reg::R2);
    code.store_state(magnitude, Reg::R5);
    code.alu_reg(AluOp::Mod, Reg::R4, Reg::R2);
    let decimal = code.label();
    let stored = code.label();
    code.asm.jmp_imm_to(JmpOp::Lt, Reg::R4, 10, decimal);
    code.alu_imm(AluOp::Add, Reg::R4, b'a' as i32 - 10);
    code.asm.ja_to(stored);
    code.bind(decimal);
    code.alu_imm(AluOp::Add, Reg::R4, b'0' as i32);
    code.bind(stored);
    push_character(code, end, count, Reg::R4);
    code.loop_return(false);
    code.bind(stop);
    code.loop_return(true);
}

/// Counts one more character in the work-area word `count` and stores the byte in
/// `value` at work-area offset `end - count` (clobbers r5; at most `DIGITS_END`).
pub fn push_character(code: &mut ProgramCode, end: u32, count: u32, value: Reg) {
    let skip = code.label();
    code.load_state(Reg::R5, count);
    code.asm
        .jmp_imm_to(JmpOp::Ge, Reg::R5, DIGITS_END as i32, skip);
    code.alu_imm(AluOp::Add, Reg::R5, 1);
    code.store_state(count, Reg::R5);
    // end - count as !count + 1 + end: kernels before 6.2 or so lose a register's
    // bounds on negation (and then refuse it as an offset into the work area), but
    // keep them through xor with a constant.
    code.alu_imm(AluOp::Xor, Reg::R5, -1);
    code.alu_imm(AluOp::Add, Reg::R5, end as i32 + 1);
    code.alu_reg(AluOp::Add, Reg::R5, STATE);
    code.emit(Insn::stx_mem(MemSize::B, Reg::R5, value, 0));
    code.bind(skip);
}

/// `substr(s, index [, length])` with `s` in r9, the index in `SPILL_1` and the
/// length in `SPILL_2` (strsize when absent): r0 = the scratch string, computed as
/// the interpreter computes it (in 64-bit arithmetic, which only differs for
/// arguments near the ends of the 64-bit range).
pub fn substring(code: &mut ProgramCode, cx: &StatementContext<'_>, site: FaultSite) {
    let strsize = cx.layout().options.strsize as i32;
    string_into_buffer(code, cx, 0, false, site);
    // r3 = len, r1 = index, r2 = remaining.
    code.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
    let empty = code.label();
    let bounded = code.label();
    let not_negative = code.label();
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, not_negative);
    code.alu_reg(AluOp::Add, Reg::R1, Reg::R3);
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, not_negative);
    // index < 0 and index + remaining > 0: start at 0 with what is left.
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
    code.alu_reg(AluOp::Add, Reg::R4, Reg::R2);
    code.asm.jmp_imm_to(JmpOp::Sle, Reg::R4, 0, not_negative);
    code.emit(Insn::mov64_reg(Reg::R2, Reg::R4));
    code.emit(Insn::mov64_imm(Reg::R1, 0));
    code.bind(not_negative);
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, empty);
    code.asm.jmp_reg_to(JmpOp::Sge, Reg::R1, Reg::R3, empty);
    let positive_length = code.label();
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R2, 0, positive_length);
    // remaining += len - index
    code.alu_reg(AluOp::Add, Reg::R2, Reg::R3);
    code.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
    code.asm.ja_to(bounded);
    code.bind(positive_length);
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
    code.alu_reg(AluOp::Add, Reg::R4, Reg::R2);
    code.asm.jmp_imm_to(JmpOp::Sle, Reg::R4, strsize, bounded);
    code.emit(Insn::mov64_imm(Reg::R2, strsize));
    code.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
    code.bind(bounded);
    code.asm.jmp_imm_to(JmpOp::Sle, Reg::R2, 0, empty);
    // end = min(index + remaining, len); length = end - index.
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
    code.alu_reg(AluOp::Add, Reg::R4, Reg::R2);
    let within = code.label();
    code.asm.jmp_reg_to(JmpOp::Sle, Reg::R4, Reg::R3, within);
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R3));
    code.bind(within);
    code.alu_reg(AluOp::Sub, Reg::R4, Reg::R1);
    let copy = code.label();
    code.asm.ja_to(copy);
    code.bind(empty);
    code.emit(Insn::mov64_imm(Reg::R1, 0));
    code.emit(Insn::mov64_imm(Reg::R4, 0));
    code.bind(copy);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R4, SPILL_0));
    code.alu_imm(AluOp::Add, Reg::R1, string_buffer(cx.layout(), 0) as i32);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R1, SPILL_1));
    work_area_to_scratch_string(code, cx, SPILL_1, SPILL_0, site);
}

/// One backward scan of `basename`/`dirname`: while the position in the work-area
/// word `cursor` is not negative and the byte of string buffer 0 there is (or, with
/// `slash` false, is not) a slash, moves it back one. Each step is a bpf_loop callback,
/// which the verifier checks once rather than for every byte.
fn scan_back(code: &mut ProgramCode, layout: &ProgramLayout, cursor: u32, slash: bool) {
    code.load_constant(Reg::R1, u64::from(layout.options.strsize) + 1);
    code.run_loop(LoopBody::ScanBack { cursor, slash });
}

/// The body of [`LoopBody::ScanBack`]: one step of [`scan_back`].
pub fn scan_back_iteration(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    cursor: u32,
    slash: bool,
) {
    let strsize = layout.options.strsize;
    let buffer = string_buffer(layout, 0) as i16;
    loop_iteration(code, |code, exit| {
        code.load_state(Reg::R4, cursor);
        exit_if_imm(code, JmpOp::Slt, Reg::R4, 0, exit);
        exit_if_imm(code, JmpOp::Ge, Reg::R4, strsize as i32, exit);
        code.emit(Insn::mov64_reg(Reg::R5, STATE));
        code.alu_reg(AluOp::Add, Reg::R5, Reg::R4);
        code.emit(Insn::ldx_mem(MemSize::B, Reg::R5, Reg::R5, buffer));
        let stop = if slash { JmpOp::Ne } else { JmpOp::Eq };
        exit_if_imm(code, stop, Reg::R5, b'/' as i32, exit);
        code.alu_imm(AluOp::Sub, Reg::R4, 1);
        code.store_state(cursor, Reg::R4);
    });
}

/// `basename(s)` (`directory` false) or `dirname(s)` with `s` in r9: r0 = the
/// scratch string, as classic DTrace computes them (see the interpreter's
/// `basename_or_dirname`).
pub fn path_component(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    directory: bool,
    site: FaultSite,
) {
    let buffer = string_buffer(cx.layout(), 0);
    let (cursor, last_base, first_base, last_directory) = (
        temporary_word(cx.layout(), 0),
        temporary_word(cx.layout(), 1),
        temporary_word(cx.layout(), 2),
        temporary_word(cx.layout(), 3),
    );
    string_into_buffer(code, cx, 0, false, site);
    // An empty path is ".".
    let not_empty = code.label();
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, not_empty);
    code.emit(Insn::st_mem(MemSize::B, STATE, buffer as i16, b'.' as i32));
    code.emit(Insn::mov64_imm(Reg::R0, 1));
    code.bind(not_empty);
    code.alu_imm(AluOp::Sub, Reg::R0, 1);
    code.store_state(cursor, Reg::R0);
    scan_back(code, cx.layout(), cursor, true);
    code.load_state(Reg::R0, cursor);
    code.store_state(last_base, Reg::R0);
    scan_back(code, cx.layout(), cursor, false);
    // first_base = cursor + 1 when a slash precedes the name, else −1.
    code.load_state(Reg::R0, cursor);
    code.alu_imm(AluOp::Add, Reg::R0, 1);
    let has_slash = code.label();
    code.asm.jmp_imm_to(JmpOp::Sgt, Reg::R0, 0, has_slash);
    code.emit(Insn::mov64_imm(Reg::R0, -1));
    code.bind(has_slash);
    code.store_state(first_base, Reg::R0);
    scan_back(code, cx.layout(), cursor, true);
    code.load_state(Reg::R0, cursor);
    code.store_state(last_directory, Reg::R0);
    // Nothing but slashes: both names are "/".
    let has_name = code.label();
    code.load_state(Reg::R0, last_base);
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R0, 0, has_name);
    code.store_state_imm(first_base, 0);
    code.store_state_imm(last_base, 0);
    code.store_state_imm(last_directory, 0);
    code.bind(has_name);
    // r1 = start, r2 = end (inclusive).
    let range = code.label();
    code.load_state(Reg::R0, first_base);
    if directory {
        let has_directory = code.label();
        code.asm.jmp_imm_to(JmpOp::Sge, Reg::R0, 0, has_directory);
        // No slash before the name: the directory is ".".
        code.emit(Insn::st_mem(MemSize::B, STATE, buffer as i16, b'.' as i32));
        code.emit(Insn::mov64_imm(Reg::R1, 0));
        code.emit(Insn::mov64_imm(Reg::R2, 0));
        code.asm.ja_to(range);
        code.bind(has_directory);
        code.emit(Insn::mov64_imm(Reg::R1, 0));
        code.load_state(Reg::R2, last_directory);
        code.asm.jmp_imm_to(JmpOp::Sge, Reg::R2, 0, range);
        code.emit(Insn::mov64_imm(Reg::R2, 0));
    } else {
        let start_known = code.label();
        code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
        code.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, start_known);
        code.emit(Insn::mov64_imm(Reg::R1, 0));
        code.bind(start_known);
        code.load_state(Reg::R2, last_base);
    }
    code.bind(range);
    // length = end − start + 1, at most strsize − 1 (checked by the copy).
    code.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
    code.alu_imm(AluOp::Add, Reg::R2, 1);
    let strsize = cx.layout().options.strsize as i32;
    let fits = code.label();
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R2, strsize, fits);
    code.emit(Insn::mov64_imm(Reg::R2, strsize - 1));
    code.bind(fits);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R2, SPILL_0));
    code.alu_imm(AluOp::Add, Reg::R1, buffer as i32);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R1, SPILL_1));
    work_area_to_scratch_string(code, cx, SPILL_1, SPILL_0, site);
}

/// The work-area words of `strtoll()`'s parse.
#[derive(Debug, Clone, Copy)]
struct IntegerParseWords {
    /// The byte being looked at in string buffer 0.
    position: u32,
    /// The magnitude parsed so far.
    value: u32,
    base: u32,
    /// Whether a `-` came first.
    negative: u32,
    /// The string's length.
    length: u32,
}

/// `strtoll(s [, base])` with `s` in r9 and the base in `SPILL_2`: r0 = the value,
/// parsed as the interpreter's `strtoll` does (blanks, a sign, `0x` in base 16, then
/// digits; overflow wraps). Bases outside 2..=36 fault with `illegal operation`.
pub fn string_to_integer(code: &mut ProgramCode, cx: &StatementContext<'_>, site: FaultSite) {
    let layout = cx.layout();
    let strsize = layout.options.strsize;
    let words = IntegerParseWords::of(layout);
    let IntegerParseWords {
        position,
        value,
        base,
        negative,
        length,
    } = words;
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
    for (op, limit) in [(JmpOp::Lt, 2), (JmpOp::Gt, 36)] {
        code.fault_if_imm(
            cx.fault_exit,
            op,
            Reg::R2,
            limit,
            FaultCode::IllegalOperation,
            FaultValue::Register(Reg::R2),
            site,
        );
    }
    string_into_buffer(code, cx, 0, false, site);
    code.store_state(length, Reg::R0);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
    code.store_state(base, Reg::R2);
    for word in [position, value, negative] {
        code.store_state_imm(word, 0);
    }
    let byte_at =
        |code: &mut ProgramCode, ahead: i32, exit: Label| parse_byte_at(code, layout, ahead, exit);
    // Blanks, then (after the sign and prefix) digits, each byte in a bpf_loop
    // callback: the verifier checks the bodies once, where bounded loops would be
    // followed byte by byte (some 45,000 instructions per call).
    code.load_constant(Reg::R1, u64::from(strsize));
    code.run_loop(LoopBody::SkipBlank);
    // A sign.
    let signed = code.label();
    let unsigned = code.label();
    let no_sign = code.label();
    byte_at(code, 0, no_sign);
    code.asm
        .jmp_imm_to(JmpOp::Eq, Reg::R5, b'+' as i32, unsigned);
    code.asm
        .jmp_imm_to(JmpOp::Ne, Reg::R5, b'-' as i32, no_sign);
    code.bind(signed);
    code.store_state_imm(negative, 1);
    code.bind(unsigned);
    code.load_state(Reg::R4, position);
    code.alu_imm(AluOp::Add, Reg::R4, 1);
    code.store_state(position, Reg::R4);
    code.bind(no_sign);
    // "0x" before a hexadecimal digit in base 16.
    let no_prefix = code.label();
    code.load_state(Reg::R4, base);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 16, no_prefix);
    byte_at(code, 0, no_prefix);
    code.asm
        .jmp_imm_to(JmpOp::Ne, Reg::R5, b'0' as i32, no_prefix);
    byte_at(code, 1, no_prefix);
    code.alu_imm(AluOp::Or, Reg::R5, 0x20);
    code.asm
        .jmp_imm_to(JmpOp::Ne, Reg::R5, b'x' as i32, no_prefix);
    byte_at(code, 2, no_prefix);
    let hexadecimal = code.label();
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
    code.alu_imm(AluOp::Sub, Reg::R4, b'0' as i32);
    code.asm.jmp_imm_to(JmpOp::Lt, Reg::R4, 10, hexadecimal);
    code.alu_imm(AluOp::Or, Reg::R5, 0x20);
    code.alu_imm(AluOp::Sub, Reg::R5, b'a' as i32);
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R5, 6, no_prefix);
    code.bind(hexadecimal);
    code.load_state(Reg::R4, position);
    code.alu_imm(AluOp::Add, Reg::R4, 2);
    code.store_state(position, Reg::R4);
    code.bind(no_prefix);
    code.load_constant(Reg::R1, u64::from(strsize));
    code.run_loop(LoopBody::IntegerParseDigit);
    let done = code.label();
    code.load_state(Reg::R0, value);
    code.load_state(Reg::R1, negative);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, done);
    code.emit(Insn::neg64(Reg::R0));
    code.bind(done);
}

impl IntegerParseWords {
    fn of(layout: &ProgramLayout) -> IntegerParseWords {
        IntegerParseWords {
            position: temporary_word(layout, 0),
            value: temporary_word(layout, 1),
            base: temporary_word(layout, 2),
            negative: temporary_word(layout, 3),
            length: temporary_word(layout, 4),
        }
    }
}

/// r5 = the byte of string buffer 0 at `strtoll()`'s position plus `ahead` (the buffer
/// is zero after the NUL), or on to `exit` past the buffer.
fn parse_byte_at(code: &mut ProgramCode, layout: &ProgramLayout, ahead: i32, exit: Label) {
    let strsize = layout.options.strsize;
    let buffer = string_buffer(layout, 0);
    code.load_state(Reg::R5, IntegerParseWords::of(layout).position);
    code.alu_imm(AluOp::Add, Reg::R5, ahead);
    exit_if_imm(code, JmpOp::Ge, Reg::R5, strsize as i32, exit);
    code.alu_reg(AluOp::Add, Reg::R5, STATE);
    code.emit(Insn::ldx_mem(MemSize::B, Reg::R5, Reg::R5, buffer as i16));
}

/// A callback body: `body` goes on to its label to stop the loop, or falls through to
/// the next iteration.
fn loop_iteration(code: &mut ProgramCode, body: impl FnOnce(&mut ProgramCode, Label)) {
    let stop = code.label();
    body(code, stop);
    code.loop_return(false);
    code.bind(stop);
    code.loop_return(true);
}

/// The body of [`LoopBody::SkipBlank`]: a blank or tab at `strtoll()`'s position is
/// skipped; anything else stops.
pub fn skip_blank_iteration(code: &mut ProgramCode, layout: &ProgramLayout) {
    let position = IntegerParseWords::of(layout).position;
    loop_iteration(code, |code, exit| {
        parse_byte_at(code, layout, 0, exit);
        let blank = code.label();
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R5, b' ' as i32, blank);
        exit_if_imm(code, JmpOp::Ne, Reg::R5, b'\t' as i32, exit);
        code.bind(blank);
        code.load_state(Reg::R4, position);
        code.alu_imm(AluOp::Add, Reg::R4, 1);
        code.store_state(position, Reg::R4);
    });
}

/// The body of [`LoopBody::IntegerParseDigit`]: while the byte at `strtoll()`'s
/// position is a digit of the base, `value` becomes `value * base + digit`.
pub fn integer_parse_digit_iteration(code: &mut ProgramCode, layout: &ProgramLayout) {
    let IntegerParseWords {
        position,
        value,
        base,
        length,
        ..
    } = IntegerParseWords::of(layout);
    let byte_at =
        |code: &mut ProgramCode, ahead: i32, exit: Label| parse_byte_at(code, layout, ahead, exit);
    loop_iteration(code, |code, exit| {
        code.load_state(Reg::R4, position);
        code.load_state(Reg::R5, length);
        exit_if_reg_unsigned_not_less(code, Reg::R4, Reg::R5, exit);
        byte_at(code, 0, exit);
        // r4 = the digit's value, or exit.
        let letter = code.label();
        let have = code.label();
        code.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
        code.alu_imm(AluOp::Sub, Reg::R4, b'0' as i32);
        code.asm.jmp_imm_to(JmpOp::Ge, Reg::R4, 10, letter);
        code.asm.ja_to(have);
        code.bind(letter);
        code.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
        code.alu_imm(AluOp::Sub, Reg::R4, b'a' as i32);
        let lower = code.label();
        code.asm.jmp_imm_to(JmpOp::Lt, Reg::R4, 26, lower);
        code.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
        code.alu_imm(AluOp::Sub, Reg::R4, b'A' as i32);
        exit_if_imm(code, JmpOp::Ge, Reg::R4, 26, exit);
        code.bind(lower);
        code.alu_imm(AluOp::Add, Reg::R4, 10);
        code.bind(have);
        code.load_state(Reg::R2, base);
        exit_if_reg_unsigned_not_less(code, Reg::R4, Reg::R2, exit);
        code.load_state(Reg::R5, value);
        code.alu_reg(AluOp::Mul, Reg::R5, Reg::R2);
        code.alu_reg(AluOp::Add, Reg::R5, Reg::R4);
        code.store_state(value, Reg::R5);
        code.load_state(Reg::R4, position);
        code.alu_imm(AluOp::Add, Reg::R4, 1);
        code.store_state(position, Reg::R4);
    });
}

/// Leaves a loop through `exit` when `left >= right` (unsigned), exit first.
fn exit_if_reg_unsigned_not_less(code: &mut ProgramCode, left: Reg, right: Reg, exit: Label) {
    let stay = code.label();
    code.asm.jmp_reg_to(JmpOp::Lt, left, right, stay);
    code.asm.ja_to(exit);
    code.bind(stay);
}
