//! The destructive actions that signal the firing process: `raise(sig)` sends `sig` to
//! the firing thread (`bpf_send_signal_thread`), `stop()` stops the firing process with
//! SIGSTOP (`bpf_send_signal`). A signal number past the last one faults with `illegal
//! operation` outside code, as in DTrace and the interpreter; signal 0 sends nothing.

use difvm::object::{FaultCode, LAST_SIGNAL_NUMBER, STOP_SIGNAL_NUMBER};

use super::code::{FaultSite, FaultValue, ProgramCode};
use super::registers::FIRST_VALUE;
use super::translation_context::StatementContext;
use crate::ebpf::{Helper, Insn, JmpOp, MemSize, Reg};

/// `raise(sig)`, the signal number being the action's first value. The helper fails
/// (and nothing is sent) when the probe fired in a kernel thread, which has no
/// signals to take, as DTrace's raise() does nothing there either. From a probe that
/// fires in interrupt context (profile and tick probes, from the CPU clock's timer)
/// the kernel queues the signal for the interrupted thread, which takes it on its way
/// back to user mode; system-call, pid and profile probes are checked live in
/// tests/kernel_destructive.rs.
pub fn raise_signal(code: &mut ProgramCode, cx: &StatementContext<'_>) {
    let nothing_to_send = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, FIRST_VALUE));
    // Unsigned: a negative number is a huge one and faults too.
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Gt,
        Reg::R1,
        LAST_SIGNAL_NUMBER as i32,
        FaultCode::IllegalOperation,
        FaultValue::Register(Reg::R1),
        FaultSite::OutsideCode,
    );
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, nothing_to_send);
    code.call(Helper::SendSignalThread);
    code.bind(nothing_to_send);
}

/// `stop()`: SIGSTOP to the firing process.
pub fn stop_process(code: &mut ProgramCode) {
    code.emit(Insn::mov64_imm(Reg::R1, STOP_SIGNAL_NUMBER as i32));
    code.call(Helper::SendSignal);
}
