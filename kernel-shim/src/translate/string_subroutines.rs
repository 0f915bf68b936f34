//! String subroutines that walk a string byte by byte: `toupper`, `tolower`, `strchr`,
//! `strrchr` and `lltostr`, as bounded eBPF loops over the work area's string buffer 0.
//!
//! The loops are shaped for the kernel's verifier, which follows every iteration: the
//! bound is a constant (strsize, or 64 digits), the data-dependent exit tests a freshly
//! loaded byte or word, and everything carried across iterations or out of the loop lives
//! in the work area's temporary words (`T0`: magnitude, `T1`: character or base, `T2`:
//! result or count) rather than in registers. The states leaving the loop after different
//! numbers of iterations then differ only in dead registers, so the verifier merges them
//! instead of following the rest of the program once per iteration count.

use difvm::object::FaultCode;

use super::emitter::{Emitter, FaultSite, FaultValue};
use super::memory::ScratchSize;
use super::registers::{SAVED_1, SPILL_0, SPILL_1, SPILL_2, STATE};
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};

/// Bytes of string buffer 0 `lltostr` builds its text in, backwards from this offset.
const DIGITS_END: u32 = 80;

impl Emitter<'_> {
    pub fn temporary_word(&self, index: u32) -> u32 {
        self.layout.state.temporary + 8 * index
    }

    /// A new strsize-byte scratch string holding the bytes of the work area from the
    /// offset in stack slot `source` on, as many as stack slot `length` says (below
    /// strsize); r0 = its TAG_SCRATCH address.
    pub fn work_area_to_scratch_string(&mut self, source: i16, length: i16, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        self.allocate_scratch(ScratchSize::Constant(strsize), site);
        self.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
        self.emit(Insn::mov64_reg(Reg::R1, STATE));
        self.alu_imm(AluOp::Add, Reg::R1, self.layout.state.scratch as i32);
        self.alu_reg(AluOp::Add, Reg::R1, Reg::R0);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, length));
        let copied = self.label();
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, copied);
        self.asm
            .jmp_imm_to(JmpOp::Ge, Reg::R2, strsize as i32, copied);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, source));
        let limit = self.layout.state.string_buffers;
        self.asm
            .jmp_imm_to(JmpOp::Gt, Reg::R3, limit as i32 + 512, copied);
        self.alu_reg(AluOp::Add, Reg::R3, STATE);
        self.call(Helper::ProbeReadKernel);
        self.bind(copied);
        self.scratch_address(Reg::R0, SAVED_1);
    }

    /// A new strsize-byte scratch string holding the NUL-terminated text of the work area
    /// at the offset in stack slot `source` (cut to strsize − 1 bytes, as the interpreter
    /// cuts string results); r0 = its TAG_SCRATCH address.
    pub fn work_area_text_to_scratch(&mut self, source: i16, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        self.allocate_scratch(ScratchSize::Constant(strsize), site);
        self.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
        let copied = self.label();
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, source));
        self.asm.jmp_imm_to(
            JmpOp::Ge,
            Reg::R3,
            self.layout.state.zero_guard as i32,
            copied,
        );
        self.alu_reg(AluOp::Add, Reg::R3, STATE);
        self.emit(Insn::mov64_reg(Reg::R1, STATE));
        self.alu_imm(AluOp::Add, Reg::R1, self.layout.state.scratch as i32);
        self.alu_reg(AluOp::Add, Reg::R1, SAVED_1);
        self.emit(Insn::mov64_imm(Reg::R2, strsize as i32));
        self.call(Helper::ProbeReadKernelStr);
        self.bind(copied);
        self.scratch_address(Reg::R0, SAVED_1);
        self.emit(Insn::mov64_imm(SAVED_1, 0));
    }

    /// Emits `for (r1 = 0; r1 < limit; r1++) { r3 = &work area[r1]; body }`, where the
    /// body may jump to the returned `exit` label to stop early.
    pub fn byte_loop(
        &mut self,
        limit: u32,
        body: impl FnOnce(&mut Emitter<'_>, crate::ebpf::Label),
    ) {
        let top = self.label();
        let exit = self.label();
        self.emit(Insn::mov64_imm(Reg::R1, 0));
        self.bind(top);
        self.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, limit as i32, exit);
        self.emit(Insn::mov64_reg(Reg::R3, STATE));
        self.alu_reg(AluOp::Add, Reg::R3, Reg::R1);
        body(self, exit);
        self.alu_imm(AluOp::Add, Reg::R1, 1);
        self.asm.ja_to(top);
        self.bind(exit);
        self.emit(Insn::mov64_imm(Reg::R1, 0));
        self.emit(Insn::mov64_imm(Reg::R3, 0));
    }

    /// Leaves a byte loop through `exit` when `register OP imm`. The continuation is the
    /// jump's target and the exit its fall-through, so that the verifier, which follows
    /// the fall-through first and keeps the target for later, follows the rest of the
    /// program after an early exit before the next iteration instead of keeping one
    /// pending exit per iteration (it refuses programs with more than 8192 pending).
    pub fn exit_if_imm(&mut self, op: JmpOp, register: Reg, imm: i32, exit: crate::ebpf::Label) {
        let stay = self.label();
        self.asm
            .jmp_imm_to(super::emitter::invert(op), register, imm, stay);
        self.asm.ja_to(exit);
        self.bind(stay);
    }

    /// `toupper(s)` / `tolower(s)` with `s` in r9: r0 = the converted scratch string.
    pub fn change_case(&mut self, upper: bool, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        self.string_into_buffer(0, false, site);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
        let buffer = self.string_buffer(0) as i16;
        let (first, shift) = if upper { (b'a', -32) } else { (b'A', 32) };
        self.byte_loop(strsize, |emitter, exit| {
            let keep = emitter.label();
            emitter.emit(Insn::ldx_mem(MemSize::B, Reg::R4, Reg::R3, buffer));
            emitter.exit_if_imm(JmpOp::Eq, Reg::R4, 0, exit);
            emitter.emit(Insn::mov64_reg(Reg::R5, Reg::R4));
            emitter.alu_imm(AluOp::Sub, Reg::R5, first as i32);
            emitter.asm.jmp_imm_to(JmpOp::Ge, Reg::R5, 26, keep);
            emitter.alu_imm(AluOp::Add, Reg::R4, shift);
            emitter.emit(Insn::stx_mem(MemSize::B, Reg::R3, Reg::R4, buffer));
            emitter.bind(keep);
        });
        self.load_constant(Reg::R0, buffer as u64);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
        self.work_area_to_scratch_string(SPILL_1, SPILL_0, site);
    }

    /// `strchr(s, c)` / `strrchr(s, c)` with `s` in r9 and `c` in the stack slot
    /// `SPILL_1`: r0 = the address of the first (last) `c` in `s`, its NUL included when
    /// within strsize, or 0.
    pub fn find_character(&mut self, last: bool, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, SAVED_1, SPILL_2));
        self.string_into_buffer(0, false, site);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_1));
        self.alu_imm(AluOp::And, Reg::R2, 0xff);
        self.store_state(self.temporary_word(1), Reg::R2);
        self.store_state_imm(self.temporary_word(2), 0);
        let buffer = self.string_buffer(0) as i16;
        let found_word = self.temporary_word(1);
        let result_word = self.temporary_word(2);
        self.byte_loop(strsize, |emitter, exit| {
            let differs = emitter.label();
            emitter.emit(Insn::ldx_mem(MemSize::B, Reg::R4, Reg::R3, buffer));
            emitter.load_state(Reg::R5, found_word);
            emitter.asm.jmp_reg_to(JmpOp::Ne, Reg::R4, Reg::R5, differs);
            emitter.emit(Insn::mov64_reg(Reg::R0, Reg::R1));
            emitter.alu_imm(AluOp::Add, Reg::R0, 1);
            emitter.store_state(result_word, Reg::R0);
            if !last {
                emitter.asm.ja_to(exit);
            }
            emitter.bind(differs);
            emitter.exit_if_imm(JmpOp::Eq, Reg::R4, 0, exit);
        });
        let none = self.label();
        self.load_state(Reg::R0, result_word);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, none);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_2));
        self.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
        self.alu_imm(AluOp::Sub, Reg::R0, 1);
        self.bind(none);
    }

    /// `lltostr(value [, base])` with the value in `SPILL_1` and the base in `SPILL_2`:
    /// r0 = the scratch string. Bases outside 2..=36 fault with `illegal operation`.
    pub fn integer_to_string(&mut self, site: FaultSite) {
        let end = self.string_buffer(0) + DIGITS_END;
        let (magnitude, base, count) = (
            self.temporary_word(0),
            self.temporary_word(1),
            self.temporary_word(2),
        );
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
        for (op, limit) in [(JmpOp::Lt, 2), (JmpOp::Gt, 36)] {
            self.fault_if_imm(
                op,
                Reg::R2,
                limit,
                FaultCode::IllegalOperation,
                FaultValue::Register(Reg::R2),
                site,
            );
        }
        // The magnitude is negated only in base 10.
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
        let positive = self.label();
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 10, positive);
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, positive);
        self.emit(Insn::neg64(Reg::R1));
        self.bind(positive);
        self.store_state(magnitude, Reg::R1);
        self.store_state(base, Reg::R2);
        self.store_state_imm(count, 0);
        // Digits, least significant first, written backwards.
        self.byte_loop(64, |emitter, exit| {
            emitter.load_state(Reg::R4, magnitude);
            emitter.exit_if_imm(JmpOp::Eq, Reg::R4, 0, exit);
            emitter.load_state(Reg::R2, base);
            emitter.exit_if_imm(JmpOp::Eq, Reg::R2, 0, exit);
            emitter.emit(Insn::mov64_reg(Reg::R5, Reg::R4));
            emitter.alu_reg(AluOp::Div, Reg::R5, Reg::R2);
            emitter.store_state(magnitude, Reg::R5);
            emitter.alu_reg(AluOp::Mod, Reg::R4, Reg::R2);
            let decimal = emitter.label();
            let stored = emitter.label();
            emitter.asm.jmp_imm_to(JmpOp::Lt, Reg::R4, 10, decimal);
            emitter.alu_imm(AluOp::Add, Reg::R4, b'a' as i32 - 10);
            emitter.asm.ja_to(stored);
            emitter.bind(decimal);
            emitter.alu_imm(AluOp::Add, Reg::R4, b'0' as i32);
            emitter.bind(stored);
            emitter.push_character(end, count, Reg::R4);
        });
        // Prefixes: "0x" (base 16, after a "0" digit for zero), "0" (zero, base 8), "-".
        let (value, base_slot) = (SPILL_1, SPILL_2);
        let push = |emitter: &mut Emitter<'_>, byte: u8| {
            emitter.emit(Insn::mov64_imm(Reg::R4, byte as i32));
            emitter.push_character(end, count, Reg::R4);
        };
        let not_hex = self.label();
        let zero_done = self.label();
        let sign = self.label();
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, value));
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, base_slot));
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 16, not_hex);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, zero_done);
        push(self, b'0');
        self.bind(zero_done);
        push(self, b'x');
        push(self, b'0');
        self.asm.ja_to(sign);
        self.bind(not_hex);
        let zero_digit = self.label();
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, value));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, zero_digit);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, base_slot));
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 8, sign);
        self.bind(zero_digit);
        push(self, b'0');
        self.bind(sign);
        let unsigned = self.label();
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, value));
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, base_slot));
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 10, unsigned);
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, unsigned);
        push(self, b'-');
        self.bind(unsigned);
        // The characters before `end` become the scratch string.
        self.load_state(Reg::R3, count);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R3, SPILL_0));
        self.emit(Insn::mov64_imm(Reg::R0, end as i32));
        self.alu_reg(AluOp::Sub, Reg::R0, Reg::R3);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
        self.work_area_to_scratch_string(SPILL_1, SPILL_0, site);
    }

    /// Counts one more character in the work-area word `count` and stores the byte in
    /// `value` at work-area offset `end - count` (clobbers r5; at most `DIGITS_END`).
    pub fn push_character(&mut self, end: u32, count: u32, value: Reg) {
        let skip = self.label();
        self.load_state(Reg::R5, count);
        self.asm
            .jmp_imm_to(JmpOp::Ge, Reg::R5, DIGITS_END as i32, skip);
        self.alu_imm(AluOp::Add, Reg::R5, 1);
        self.store_state(count, Reg::R5);
        // end - count as !count + 1 + end: kernels before 6.2 or so lose a register's
        // bounds on negation (and then refuse it as an offset into the work area), but
        // keep them through xor with a constant.
        self.alu_imm(AluOp::Xor, Reg::R5, -1);
        self.alu_imm(AluOp::Add, Reg::R5, end as i32 + 1);
        self.alu_reg(AluOp::Add, Reg::R5, STATE);
        self.emit(Insn::stx_mem(MemSize::B, Reg::R5, value, 0));
        self.bind(skip);
    }

    /// `substr(s, index [, length])` with `s` in r9, the index in `SPILL_1` and the
    /// length in `SPILL_2` (strsize when absent): r0 = the scratch string, computed as
    /// the interpreter computes it (in 64-bit arithmetic, which only differs for
    /// arguments near the ends of the 64-bit range).
    pub fn substring(&mut self, site: FaultSite) {
        let strsize = self.layout.options.strsize as i32;
        self.string_into_buffer(0, false, site);
        // r3 = len, r1 = index, r2 = remaining.
        self.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
        let empty = self.label();
        let bounded = self.label();
        let not_negative = self.label();
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, not_negative);
        self.alu_reg(AluOp::Add, Reg::R1, Reg::R3);
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, not_negative);
        // index < 0 and index + remaining > 0: start at 0 with what is left.
        self.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
        self.alu_reg(AluOp::Add, Reg::R4, Reg::R2);
        self.asm.jmp_imm_to(JmpOp::Sle, Reg::R4, 0, not_negative);
        self.emit(Insn::mov64_reg(Reg::R2, Reg::R4));
        self.emit(Insn::mov64_imm(Reg::R1, 0));
        self.bind(not_negative);
        self.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, empty);
        self.asm.jmp_reg_to(JmpOp::Sge, Reg::R1, Reg::R3, empty);
        let positive_length = self.label();
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R2, 0, positive_length);
        // remaining += len - index
        self.alu_reg(AluOp::Add, Reg::R2, Reg::R3);
        self.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
        self.asm.ja_to(bounded);
        self.bind(positive_length);
        self.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
        self.alu_reg(AluOp::Add, Reg::R4, Reg::R2);
        self.asm.jmp_imm_to(JmpOp::Sle, Reg::R4, strsize, bounded);
        self.emit(Insn::mov64_imm(Reg::R2, strsize));
        self.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
        self.bind(bounded);
        self.asm.jmp_imm_to(JmpOp::Sle, Reg::R2, 0, empty);
        // end = min(index + remaining, len); length = end - index.
        self.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
        self.alu_reg(AluOp::Add, Reg::R4, Reg::R2);
        let within = self.label();
        self.asm.jmp_reg_to(JmpOp::Sle, Reg::R4, Reg::R3, within);
        self.emit(Insn::mov64_reg(Reg::R4, Reg::R3));
        self.bind(within);
        self.alu_reg(AluOp::Sub, Reg::R4, Reg::R1);
        let copy = self.label();
        self.asm.ja_to(copy);
        self.bind(empty);
        self.emit(Insn::mov64_imm(Reg::R1, 0));
        self.emit(Insn::mov64_imm(Reg::R4, 0));
        self.bind(copy);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R4, SPILL_0));
        self.alu_imm(AluOp::Add, Reg::R1, self.string_buffer(0) as i32);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R1, SPILL_1));
        self.work_area_to_scratch_string(SPILL_1, SPILL_0, site);
    }

    /// One backward scan of `basename`/`dirname`: while the position in the work-area
    /// word `cursor` is not negative and the byte of string buffer 0 there is (or, with
    /// `slash` false, is not) a slash, moves it back one.
    fn scan_back(&mut self, cursor: u32, slash: bool) {
        let strsize = self.layout.options.strsize;
        let buffer = self.string_buffer(0) as i16;
        self.byte_loop(strsize + 1, |emitter, exit| {
            emitter.load_state(Reg::R4, cursor);
            emitter.exit_if_imm(JmpOp::Slt, Reg::R4, 0, exit);
            emitter.exit_if_imm(JmpOp::Ge, Reg::R4, strsize as i32, exit);
            emitter.emit(Insn::mov64_reg(Reg::R5, STATE));
            emitter.alu_reg(AluOp::Add, Reg::R5, Reg::R4);
            emitter.emit(Insn::ldx_mem(MemSize::B, Reg::R5, Reg::R5, buffer));
            let stop = if slash { JmpOp::Ne } else { JmpOp::Eq };
            emitter.exit_if_imm(stop, Reg::R5, b'/' as i32, exit);
            emitter.alu_imm(AluOp::Sub, Reg::R4, 1);
            emitter.store_state(cursor, Reg::R4);
        });
    }

    /// `basename(s)` (`directory` false) or `dirname(s)` with `s` in r9: r0 = the
    /// scratch string, as classic DTrace computes them (see the interpreter's
    /// `basename_or_dirname`).
    pub fn path_component(&mut self, directory: bool, site: FaultSite) {
        let buffer = self.string_buffer(0);
        let (cursor, last_base, first_base, last_directory) = (
            self.temporary_word(0),
            self.temporary_word(1),
            self.temporary_word(2),
            self.temporary_word(3),
        );
        self.string_into_buffer(0, false, site);
        // An empty path is ".".
        let not_empty = self.label();
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, not_empty);
        self.emit(Insn::st_mem(MemSize::B, STATE, buffer as i16, b'.' as i32));
        self.emit(Insn::mov64_imm(Reg::R0, 1));
        self.bind(not_empty);
        self.alu_imm(AluOp::Sub, Reg::R0, 1);
        self.store_state(cursor, Reg::R0);
        self.scan_back(cursor, true);
        self.load_state(Reg::R0, cursor);
        self.store_state(last_base, Reg::R0);
        self.scan_back(cursor, false);
        // first_base = cursor + 1 when a slash precedes the name, else −1.
        self.load_state(Reg::R0, cursor);
        self.alu_imm(AluOp::Add, Reg::R0, 1);
        let has_slash = self.label();
        self.asm.jmp_imm_to(JmpOp::Sgt, Reg::R0, 0, has_slash);
        self.emit(Insn::mov64_imm(Reg::R0, -1));
        self.bind(has_slash);
        self.store_state(first_base, Reg::R0);
        self.scan_back(cursor, true);
        self.load_state(Reg::R0, cursor);
        self.store_state(last_directory, Reg::R0);
        // Nothing but slashes: both names are "/".
        let has_name = self.label();
        self.load_state(Reg::R0, last_base);
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R0, 0, has_name);
        self.store_state_imm(first_base, 0);
        self.store_state_imm(last_base, 0);
        self.store_state_imm(last_directory, 0);
        self.bind(has_name);
        // r1 = start, r2 = end (inclusive).
        let range = self.label();
        self.load_state(Reg::R0, first_base);
        if directory {
            let has_directory = self.label();
            self.asm.jmp_imm_to(JmpOp::Sge, Reg::R0, 0, has_directory);
            // No slash before the name: the directory is ".".
            self.emit(Insn::st_mem(MemSize::B, STATE, buffer as i16, b'.' as i32));
            self.emit(Insn::mov64_imm(Reg::R1, 0));
            self.emit(Insn::mov64_imm(Reg::R2, 0));
            self.asm.ja_to(range);
            self.bind(has_directory);
            self.emit(Insn::mov64_imm(Reg::R1, 0));
            self.load_state(Reg::R2, last_directory);
            self.asm.jmp_imm_to(JmpOp::Sge, Reg::R2, 0, range);
            self.emit(Insn::mov64_imm(Reg::R2, 0));
        } else {
            let start_known = self.label();
            self.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
            self.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, start_known);
            self.emit(Insn::mov64_imm(Reg::R1, 0));
            self.bind(start_known);
            self.load_state(Reg::R2, last_base);
        }
        self.bind(range);
        // length = end − start + 1, at most strsize − 1 (checked by the copy).
        self.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
        self.alu_imm(AluOp::Add, Reg::R2, 1);
        let strsize = self.layout.options.strsize as i32;
        let fits = self.label();
        self.asm.jmp_imm_to(JmpOp::Slt, Reg::R2, strsize, fits);
        self.emit(Insn::mov64_imm(Reg::R2, strsize - 1));
        self.bind(fits);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R2, SPILL_0));
        self.alu_imm(AluOp::Add, Reg::R1, buffer as i32);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R1, SPILL_1));
        self.work_area_to_scratch_string(SPILL_1, SPILL_0, site);
    }

    /// `strtoll(s [, base])` with `s` in r9 and the base in `SPILL_2`: r0 = the value,
    /// parsed as the interpreter's `strtoll` does (blanks, a sign, `0x` in base 16, then
    /// digits; overflow wraps). Bases outside 2..=36 fault with `illegal operation`.
    pub fn string_to_integer(&mut self, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        let buffer = self.string_buffer(0);
        let (position, value, base, negative, length) = (
            self.temporary_word(0),
            self.temporary_word(1),
            self.temporary_word(2),
            self.temporary_word(3),
            self.temporary_word(4),
        );
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
        for (op, limit) in [(JmpOp::Lt, 2), (JmpOp::Gt, 36)] {
            self.fault_if_imm(
                op,
                Reg::R2,
                limit,
                FaultCode::IllegalOperation,
                FaultValue::Register(Reg::R2),
                site,
            );
        }
        self.string_into_buffer(0, false, site);
        self.store_state(length, Reg::R0);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_2));
        self.store_state(base, Reg::R2);
        for word in [position, value, negative] {
            self.store_state_imm(word, 0);
        }
        // r5 = the byte at the position plus `ahead` (the buffer is zero after the NUL).
        let byte_at = |emitter: &mut Emitter<'_>, ahead: i32, exit: crate::ebpf::Label| {
            emitter.load_state(Reg::R5, position);
            emitter.alu_imm(AluOp::Add, Reg::R5, ahead);
            emitter.exit_if_imm(JmpOp::Ge, Reg::R5, strsize as i32, exit);
            emitter.alu_reg(AluOp::Add, Reg::R5, STATE);
            emitter.emit(Insn::ldx_mem(MemSize::B, Reg::R5, Reg::R5, buffer as i16));
        };
        // Blanks.
        self.byte_loop(strsize, |emitter, exit| {
            byte_at(emitter, 0, exit);
            let blank = emitter.label();
            emitter
                .asm
                .jmp_imm_to(JmpOp::Eq, Reg::R5, b' ' as i32, blank);
            emitter.exit_if_imm(JmpOp::Ne, Reg::R5, b'\t' as i32, exit);
            emitter.bind(blank);
            emitter.load_state(Reg::R4, position);
            emitter.alu_imm(AluOp::Add, Reg::R4, 1);
            emitter.store_state(position, Reg::R4);
        });
        // A sign.
        let signed = self.label();
        let unsigned = self.label();
        let no_sign = self.label();
        byte_at(self, 0, no_sign);
        self.asm
            .jmp_imm_to(JmpOp::Eq, Reg::R5, b'+' as i32, unsigned);
        self.asm
            .jmp_imm_to(JmpOp::Ne, Reg::R5, b'-' as i32, no_sign);
        self.bind(signed);
        self.store_state_imm(negative, 1);
        self.bind(unsigned);
        self.load_state(Reg::R4, position);
        self.alu_imm(AluOp::Add, Reg::R4, 1);
        self.store_state(position, Reg::R4);
        self.bind(no_sign);
        // "0x" before a hexadecimal digit in base 16.
        let no_prefix = self.label();
        self.load_state(Reg::R4, base);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 16, no_prefix);
        byte_at(self, 0, no_prefix);
        self.asm
            .jmp_imm_to(JmpOp::Ne, Reg::R5, b'0' as i32, no_prefix);
        byte_at(self, 1, no_prefix);
        self.alu_imm(AluOp::Or, Reg::R5, 0x20);
        self.asm
            .jmp_imm_to(JmpOp::Ne, Reg::R5, b'x' as i32, no_prefix);
        byte_at(self, 2, no_prefix);
        let hexadecimal = self.label();
        self.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
        self.alu_imm(AluOp::Sub, Reg::R4, b'0' as i32);
        self.asm.jmp_imm_to(JmpOp::Lt, Reg::R4, 10, hexadecimal);
        self.alu_imm(AluOp::Or, Reg::R5, 0x20);
        self.alu_imm(AluOp::Sub, Reg::R5, b'a' as i32);
        self.asm.jmp_imm_to(JmpOp::Ge, Reg::R5, 6, no_prefix);
        self.bind(hexadecimal);
        self.load_state(Reg::R4, position);
        self.alu_imm(AluOp::Add, Reg::R4, 2);
        self.store_state(position, Reg::R4);
        self.bind(no_prefix);
        // Digits.
        self.byte_loop(strsize, |emitter, exit| {
            emitter.load_state(Reg::R4, position);
            emitter.load_state(Reg::R5, length);
            emitter.exit_if_reg_unsigned_not_less(Reg::R4, Reg::R5, exit);
            byte_at(emitter, 0, exit);
            // r4 = the digit's value, or exit.
            let letter = emitter.label();
            let have = emitter.label();
            emitter.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
            emitter.alu_imm(AluOp::Sub, Reg::R4, b'0' as i32);
            emitter.asm.jmp_imm_to(JmpOp::Ge, Reg::R4, 10, letter);
            emitter.asm.ja_to(have);
            emitter.bind(letter);
            emitter.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
            emitter.alu_imm(AluOp::Sub, Reg::R4, b'a' as i32);
            let lower = emitter.label();
            emitter.asm.jmp_imm_to(JmpOp::Lt, Reg::R4, 26, lower);
            emitter.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
            emitter.alu_imm(AluOp::Sub, Reg::R4, b'A' as i32);
            emitter.exit_if_imm(JmpOp::Ge, Reg::R4, 26, exit);
            emitter.bind(lower);
            emitter.alu_imm(AluOp::Add, Reg::R4, 10);
            emitter.bind(have);
            emitter.load_state(Reg::R2, base);
            emitter.exit_if_reg_unsigned_not_less(Reg::R4, Reg::R2, exit);
            emitter.load_state(Reg::R5, value);
            emitter.alu_reg(AluOp::Mul, Reg::R5, Reg::R2);
            emitter.alu_reg(AluOp::Add, Reg::R5, Reg::R4);
            emitter.store_state(value, Reg::R5);
            emitter.load_state(Reg::R4, position);
            emitter.alu_imm(AluOp::Add, Reg::R4, 1);
            emitter.store_state(position, Reg::R4);
        });
        let done = self.label();
        self.load_state(Reg::R0, value);
        self.load_state(Reg::R1, negative);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, done);
        self.emit(Insn::neg64(Reg::R0));
        self.bind(done);
    }

    /// Leaves a loop through `exit` when `left >= right` (unsigned), exit first.
    fn exit_if_reg_unsigned_not_less(&mut self, left: Reg, right: Reg, exit: crate::ebpf::Label) {
        let stay = self.label();
        self.asm.jmp_reg_to(JmpOp::Lt, left, right, stay);
        self.asm.ja_to(exit);
        self.bind(stay);
    }
}
