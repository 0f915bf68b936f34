//! String operations on the work area's two string buffers: `scmp` (a bounded, zero-padded
//! comparison eight bytes at a time, as big-endian words so that the first differing byte
//! decides), `strlen` and `strjoin`.

use difvm::object::FaultCode;

use super::emitter::{Emitter, FaultSite, FaultValue};
use super::layout::string_buffer_stride;
use super::memory::{Access, ScratchSize, StringDestination};
use super::registers::{SAVED_0, SAVED_1, SPILL_0, SPILL_1, STATE};
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg, SwapWidth};

impl Emitter<'_> {
    /// Work-area offset of string buffer 0 or 1.
    pub fn string_buffer(&self, index: u32) -> u32 {
        self.layout.state.string_buffers + index * string_buffer_stride(self.layout.options.strsize)
    }

    /// Reads the string at the DIF address in r9 into string buffer `index`, zero-filled
    /// after its NUL; NULL reads as the empty string when `null_is_empty`. Leaves the
    /// length in r0.
    pub fn string_into_buffer(&mut self, index: u32, null_is_empty: bool, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        let buffer = self.string_buffer(index);
        self.zero_fill(STATE, buffer, string_buffer_stride(strsize));
        let done = self.label();
        if null_is_empty {
            self.emit(Insn::mov64_imm(Reg::R0, 0));
            self.asm.jmp_imm_to(JmpOp::Eq, SAVED_1, 0, done);
        }
        self.read_string(
            SAVED_1,
            strsize,
            None,
            StringDestination::State(buffer),
            Access::Kernel,
            site,
        );
        self.bind(done);
    }

    /// `scmp`: r0 = −1, 0 or 1 as the string at DIF `%r1` sorts before, with or after the
    /// one at DIF `%r2` (NULL reads as the empty string).
    pub fn compare_strings(&mut self, r1: u8, r2: u8, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        self.load_dif(SAVED_1, r1);
        self.string_into_buffer(0, true, site);
        self.load_dif(SAVED_1, r2);
        self.string_into_buffer(1, true, site);
        let (first, second) = (self.string_buffer(0), self.string_buffer(1));
        let differ = self.label();
        let done = self.label();
        for word in 0..(strsize + 1).div_ceil(8) {
            self.emit(Insn::ldx_mem(
                MemSize::DW,
                Reg::R1,
                STATE,
                (first + 8 * word) as i16,
            ));
            self.emit(Insn::ldx_mem(
                MemSize::DW,
                Reg::R2,
                STATE,
                (second + 8 * word) as i16,
            ));
            self.asm.jmp_reg_to(JmpOp::Ne, Reg::R1, Reg::R2, differ);
        }
        self.emit(Insn::mov64_imm(Reg::R0, 0));
        self.asm.ja_to(done);
        self.bind(differ);
        let less = self.label();
        self.emit(Insn::to_be(Reg::R1, SwapWidth::W64));
        self.emit(Insn::to_be(Reg::R2, SwapWidth::W64));
        self.asm.jmp_reg_to(JmpOp::Lt, Reg::R1, Reg::R2, less);
        self.emit(Insn::mov64_imm(Reg::R0, 1));
        self.asm.ja_to(done);
        self.bind(less);
        self.emit(Insn::mov64_imm(Reg::R0, -1));
        self.bind(done);
    }

    /// `strlen(s)` with `s` in r9: r0 = its length (NULL faults).
    pub fn string_length(&mut self, site: FaultSite) {
        self.string_into_buffer(0, false, site);
    }

    /// `strjoin(s1, s2)` with the strings' DIF addresses in the stack slots `first` and
    /// `second`: r0 = the TAG_SCRATCH address of the joined string. Faults with `out of
    /// scratch space` when the result would not fit in strsize.
    pub fn join_strings(&mut self, first: i16, second: i16, site: FaultSite) {
        let strsize = self.layout.options.strsize;
        self.emit(Insn::ldx_mem(MemSize::DW, SAVED_1, Reg::FP, first));
        self.string_into_buffer(0, false, site);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
        self.emit(Insn::ldx_mem(MemSize::DW, SAVED_1, Reg::FP, second));
        self.string_into_buffer(1, false, site);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
        self.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
        self.fault_if_imm(
            JmpOp::Ge,
            Reg::R0,
            strsize as i32,
            FaultCode::NoScratch,
            FaultValue::Constant(0),
            site,
        );
        self.allocate_scratch(ScratchSize::Constant(strsize), site);
        self.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
        // Both parts are copied with their NULs; the second overwrites the first's.
        self.emit(Insn::mov64_reg(SAVED_0, STATE));
        self.alu_imm(AluOp::Add, SAVED_0, self.layout.state.scratch as i32);
        self.alu_reg(AluOp::Add, SAVED_0, Reg::R0);
        self.copy_buffer_prefix(0, SPILL_0);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
        self.fault_if_imm(
            JmpOp::Ge,
            Reg::R1,
            strsize as i32,
            FaultCode::NoScratch,
            FaultValue::Constant(0),
            site,
        );
        self.alu_reg(AluOp::Add, SAVED_0, Reg::R1);
        self.copy_buffer_prefix(1, SPILL_1);
        self.scratch_address(Reg::R0, SAVED_1);
    }

    /// Copies the first `length` bytes (in a stack slot, below strsize) of string buffer
    /// `index` to the pointer in r8.
    fn copy_buffer_prefix(&mut self, index: u32, length: i16) {
        let strsize = self.layout.options.strsize;
        let skip = self.label();
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, length));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, skip);
        self.asm
            .jmp_imm_to(JmpOp::Ge, Reg::R2, strsize as i32, skip);
        self.emit(Insn::mov64_reg(Reg::R1, SAVED_0));
        self.state_pointer(Reg::R3, self.string_buffer(index));
        self.call(Helper::ProbeReadKernel);
        self.bind(skip);
    }
}
