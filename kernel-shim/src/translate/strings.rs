//! String operations on the work area's two string buffers: `scmp` (a bounded, zero-padded
//! comparison eight bytes at a time, as big-endian words so that the first differing byte
//! decides), `strlen` and `strjoin`.

use difvm::object::FaultCode;

use super::code::{FaultSite, FaultValue, ProgramCode};
use super::memory::{allocate_scratch, read_string, scratch_address};
use super::memory::{Access, ScratchSize, StringDestination};
use super::registers::{SAVED_0, SAVED_1, SPILL_0, SPILL_1, STATE};
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg, SwapWidth};
use crate::map_layout::string_buffer_stride;
use crate::map_layout::ProgramLayout;

/// Work-area offset of string buffer 0 or 1.
pub fn string_buffer(layout: &ProgramLayout, index: u32) -> u32 {
    layout.state.string_buffers + index * string_buffer_stride(layout.options.strsize)
}

/// Reads the string at the DIF address in r9 into string buffer `index`, zero-filled
/// after its NUL; NULL reads as the empty string when `null_is_empty`. Leaves the
/// length in r0.
pub fn string_into_buffer(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    index: u32,
    null_is_empty: bool,
    site: FaultSite,
) {
    let strsize = cx.layout().options.strsize;
    let buffer = string_buffer(cx.layout(), index);
    code.zero_fill(STATE, buffer, string_buffer_stride(strsize));
    let done = code.label();
    if null_is_empty {
        code.emit(Insn::mov64_imm(Reg::R0, 0));
        code.asm.jmp_imm_to(JmpOp::Eq, SAVED_1, 0, done);
    }
    read_string(
        code,
        cx,
        SAVED_1,
        strsize,
        None,
        StringDestination::State(buffer),
        Access::Kernel,
        site,
    );
    code.bind(done);
}

/// `scmp`: r0 = −1, 0 or 1 as the string at DIF `%r1` sorts before, with or after the
/// one at DIF `%r2` (NULL reads as the empty string).
pub fn compare_strings(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    r1: u8,
    r2: u8,
    site: FaultSite,
) {
    let strsize = cx.layout().options.strsize;
    code.load_dif(SAVED_1, r1);
    string_into_buffer(code, cx, 0, true, site);
    code.load_dif(SAVED_1, r2);
    string_into_buffer(code, cx, 1, true, site);
    let (first, second) = (string_buffer(cx.layout(), 0), string_buffer(cx.layout(), 1));
    let differ = code.label();
    let done = code.label();
    for word in 0..(strsize + 1).div_ceil(8) {
        code.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R1,
            STATE,
            (first + 8 * word) as i16,
        ));
        code.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R2,
            STATE,
            (second + 8 * word) as i16,
        ));
        code.asm.jmp_reg_to(JmpOp::Ne, Reg::R1, Reg::R2, differ);
    }
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.asm.ja_to(done);
    code.bind(differ);
    let less = code.label();
    code.emit(Insn::to_be(Reg::R1, SwapWidth::W64));
    code.emit(Insn::to_be(Reg::R2, SwapWidth::W64));
    code.asm.jmp_reg_to(JmpOp::Lt, Reg::R1, Reg::R2, less);
    code.emit(Insn::mov64_imm(Reg::R0, 1));
    code.asm.ja_to(done);
    code.bind(less);
    code.emit(Insn::mov64_imm(Reg::R0, -1));
    code.bind(done);
}

/// `strlen(s)` with `s` in r9: r0 = its length (NULL faults).
pub fn string_length(code: &mut ProgramCode, cx: &StatementContext<'_>, site: FaultSite) {
    string_into_buffer(code, cx, 0, false, site);
}

/// `strjoin(s1, s2)` with the strings' DIF addresses in the stack slots `first` and
/// `second`: r0 = the TAG_SCRATCH address of the joined string. Faults with `out of
/// scratch space` when the result would not fit in strsize.
pub fn join_strings(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    first: i16,
    second: i16,
    site: FaultSite,
) {
    let strsize = cx.layout().options.strsize;
    code.emit(Insn::ldx_mem(MemSize::DW, SAVED_1, Reg::FP, first));
    string_into_buffer(code, cx, 0, false, site);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
    code.emit(Insn::ldx_mem(MemSize::DW, SAVED_1, Reg::FP, second));
    string_into_buffer(code, cx, 1, false, site);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
    code.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Ge,
        Reg::R0,
        strsize as i32,
        FaultCode::NoScratch,
        FaultValue::Constant(0),
        site,
    );
    allocate_scratch(code, cx, ScratchSize::Constant(strsize), site);
    code.emit(Insn::mov64_reg(SAVED_1, Reg::R0));
    // Both parts are copied with their NULs; the second overwrites the first's.
    code.emit(Insn::mov64_reg(SAVED_0, STATE));
    code.alu_imm(AluOp::Add, SAVED_0, cx.layout().state.scratch as i32);
    code.alu_reg(AluOp::Add, SAVED_0, Reg::R0);
    copy_buffer_prefix(code, cx.layout(), 0, SPILL_0);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Ge,
        Reg::R1,
        strsize as i32,
        FaultCode::NoScratch,
        FaultValue::Constant(0),
        site,
    );
    code.alu_reg(AluOp::Add, SAVED_0, Reg::R1);
    copy_buffer_prefix(code, cx.layout(), 1, SPILL_1);
    scratch_address(code, Reg::R0, SAVED_1);
}

/// Copies the first `length` bytes (in a stack slot, below strsize) of string buffer
/// `index` to the pointer in r8.
fn copy_buffer_prefix(code: &mut ProgramCode, layout: &ProgramLayout, index: u32, length: i16) {
    let strsize = layout.options.strsize;
    let skip = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, length));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, skip);
    code.asm
        .jmp_imm_to(JmpOp::Ge, Reg::R2, strsize as i32, skip);
    code.emit(Insn::mov64_reg(Reg::R1, SAVED_0));
    code.state_pointer(Reg::R3, string_buffer(layout, index));
    code.call(Helper::ProbeReadKernel);
    code.bind(skip);
}
