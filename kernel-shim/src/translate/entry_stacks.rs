//! User stacks at a function's first instruction (pid entry and offset-0 probes).
//!
//! There the function has not yet saved the caller's frame pointer, so a frame-pointer
//! walk from `rbp` starts at the caller's caller and leaves the caller out; in code
//! built without frame pointers it yields garbage from the second frame on. The return
//! address on top of the stack is the caller, exactly: `ucaller` is that word, and a
//! user stack whose second frame is not it gets it inserted there (Linux 6.12 and later
//! do this themselves when the first instruction is `push %rbp` or `endbr64`), as
//! illumos DTrace builds stacks at entry probes.

use super::code::ProgramCode;
use super::context::ContextKind;
use super::registers::{CONTEXT, STATE};
use super::translation_context::StatementContext;
use crate::ebpf::{Helper, Insn, JmpOp, MemSize, Reg};

/// `bpf_get_stack`'s flag for the user stack.
const BPF_F_USER_STACK: i32 = 1 << 8;

/// `struct pt_regs`'s `sp` on x86_64.
const PT_REGS_SP: i16 = 152;

/// Whether the statement's probe fires at a function's first instruction.
pub fn at_function_entry(cx: &StatementContext<'_>) -> bool {
    matches!(
        cx.context(),
        ContextKind::Uprobe {
            function_entry: true,
            ..
        }
    )
}

/// `r0 = ` the word at the user `sp` (the return address at a function's first
/// instruction), 0 when unreadable; it is also left in the first temporary word
/// (clobbers r1–r5).
pub fn load_return_address(code: &mut ProgramCode, cx: &StatementContext<'_>) {
    let temporary = cx.layout().state.temporary;
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, CONTEXT, PT_REGS_SP));
    code.state_pointer(Reg::R1, temporary);
    code.emit(Insn::mov64_imm(Reg::R2, 8));
    code.call(Helper::ProbeReadUser);
    code.load_state(Reg::R0, temporary);
}

/// After `bpf_get_stack` captured the user stack into `size` bytes at work-area offset
/// `at` (`r0` the bytes captured, negative on failure): when the second frame is not
/// the return address on top of the stack, captures the stack again one frame further
/// on and puts the return address between the first frame and the rest. Leaves `r0` the
/// bytes of frames now there (clobbers r1–r5 and two temporary words).
pub fn complete_entry_user_stack(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    at: u32,
    size: u32,
) {
    if size < 16 {
        return;
    }
    let temporary = cx.layout().state.temporary;
    let captured = temporary + 8;
    let done = code.label();
    let restore = code.label();
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R0, 8, done);
    code.store_state(captured, Reg::R0);
    load_return_address(code, cx);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, restore);
    code.load_state(Reg::R1, captured);
    let reinsert = code.label();
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 16, reinsert);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, STATE, (at + 8) as i16));
    code.asm.jmp_reg_to(JmpOp::Eq, Reg::R1, Reg::R0, restore);
    code.bind(reinsert);
    code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
    code.state_pointer(Reg::R2, at + 8);
    code.emit(Insn::mov64_imm(Reg::R3, (size - 8) as i32));
    code.emit(Insn::mov64_imm(Reg::R4, BPF_F_USER_STACK));
    code.call(Helper::GetStack);
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R0, 8, restore);
    // [pc, f1, f2, …] one frame on becomes [pc, return address, f1, f2, …].
    code.emit(Insn::add64_imm(Reg::R0, 8));
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, STATE, (at + 8) as i16));
    code.emit(Insn::stx_mem(MemSize::DW, STATE, Reg::R1, at as i16));
    code.load_state(Reg::R1, temporary);
    code.emit(Insn::stx_mem(MemSize::DW, STATE, Reg::R1, (at + 8) as i16));
    code.asm.ja_to(done);
    code.bind(restore);
    code.load_state(Reg::R0, captured);
    code.bind(done);
}
