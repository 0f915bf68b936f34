//! Built-in variables (`ldgs` of ids below 0x500) and `args[]`: probe arguments from the
//! work area, identity and time from helpers, and the built-in strings (`execname`,
//! `probeprov`…), written into the work area's built-in string slots when read and
//! addressed with `TAG_STATE`.
//!
//! `timestamp` and `walltimestamp` are read when a clause that uses them starts, so they
//! are constant within the clause. `vtimestamp` is the current thread's time on CPU up
//! to that same instant, kept by the session's `sched_switch` tracker (see
//! `vtimestamps`); it does not leave out DTrace's own time, as classic DTrace does.
//! `ipl` and `zonename` fault with `illegal operation`, as in the reference engine.
//!
//! Kernel stacks leave out the artificial frames of the tracing machinery (see
//! `artificial_frames`), so they start in the function where the probe fired:
//! `stackdepth` counts the frames `bpf_get_stack` captures past them (at most
//! `STACK_FRAMES`), and `caller` is the frame after that first one, the caller of the
//! function where the probe fired (for a kprobe the probed function's caller, for a
//! system call the system call dispatcher, for a tracepoint the caller of the function
//! that hit it, for a profile probe the caller of the interrupted function); it is 0
//! where there is no kernel stack (uprobes, BEGIN, END). `ustackdepth` and `ucaller`
//! are their user-stack counterparts. `regs[]` and `uregs[]` read `struct pt_regs` (see
//! [`Emitter::load_register`]). `curcpu` is not translated: Linux has no `cpuinfo_t`
//! for it to point to.

use difvm::isa::builtin_variable as variable;
use difvm::object::FaultCode;

use super::emitter::{Chain, Emitter, FaultSite, FaultValue};
use super::layout::{TAG_SHIFT, TAG_STATE};
use super::registers::{CONTEXT, SPILL_0, STATE};
use super::TranslateError;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};

/// `bpf_get_stack`'s flag for the user stack.
const BPF_F_USER_STACK: i32 = 1 << 8;
/// u64 words of x86_64 `struct pt_regs`.
const PT_REGS_WORDS: u32 = 21;

impl Emitter<'_> {
    fn arguments_offset(&self) -> u32 {
        match self.chain {
            Chain::Main => self.layout.state.arguments,
            Chain::Error => self.layout.state.error_arguments,
        }
    }

    fn chain_argument_count(&self) -> u8 {
        match self.chain {
            Chain::Main => self.argument_count,
            Chain::Error => 6,
        }
    }

    /// `r0 = args[r1]`; an index past the probe's arguments faults with `illegal
    /// operation`.
    pub fn load_argument_by_index(&mut self, index: Reg, site: FaultSite) {
        let count = self.chain_argument_count();
        self.fault_if_imm(
            JmpOp::Ge,
            index,
            count as i32,
            FaultCode::IllegalOperation,
            FaultValue::Register(index),
            site,
        );
        self.emit(Insn::mov64_reg(Reg::R2, index));
        self.alu_imm(AluOp::Lsh, Reg::R2, 3);
        self.alu_reg(AluOp::Add, Reg::R2, STATE);
        self.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R0,
            Reg::R2,
            self.arguments_offset() as i16,
        ));
    }

    /// `r0 = built-in variable id`.
    pub fn load_builtin(&mut self, id: u16, site: FaultSite) -> Result<(), TranslateError> {
        let strsize = self.layout.options.strsize;
        match id {
            variable::CURTHREAD => self.call(Helper::GetCurrentTask),
            variable::TIMESTAMP => self.load_state(Reg::R0, self.layout.state.timestamp),
            variable::WALLTIMESTAMP => self.load_state(Reg::R0, self.layout.state.walltimestamp),
            variable::VTIMESTAMP => self.load_vtimestamp()?,
            variable::IPL | variable::ZONENAME => {
                self.fault(
                    FaultCode::IllegalOperation,
                    FaultValue::Constant(id as i32),
                    site,
                );
            }
            variable::EPID => self.load_constant(Reg::R0, self.epid as u64),
            variable::ID => self.load_constant(Reg::R0, self.probe_id as u64),
            _ if (variable::ARG0..variable::ARG0 + 10).contains(&id) => {
                let offset = self.arguments_offset() + 8 * (id - variable::ARG0) as u32;
                self.load_state(Reg::R0, offset);
            }
            variable::PID => {
                self.call(Helper::GetCurrentPidTgid);
                self.alu_imm(AluOp::Rsh, Reg::R0, 32);
            }
            variable::TID => {
                self.call(Helper::GetCurrentPidTgid);
                self.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
            }
            variable::UID => {
                self.call(Helper::GetCurrentUidGid);
                self.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
            }
            variable::GID => {
                self.call(Helper::GetCurrentUidGid);
                self.alu_imm(AluOp::Rsh, Reg::R0, 32);
            }
            variable::PPID => self.load_ppid()?,
            variable::ERRNO => {
                self.emit(Insn::mov64_imm(Reg::R0, 0));
                if self.has_errno {
                    let done = self.label();
                    self.load_state(Reg::R1, self.layout.state.arguments);
                    self.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, done);
                    self.emit(Insn::mov64_reg(Reg::R0, Reg::R1));
                    self.emit(Insn::neg64(Reg::R0));
                    self.bind(done);
                }
            }
            variable::CPU => {
                self.call(Helper::GetSmpProcessorId);
                self.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
            }
            variable::EXECNAME => {
                let offset = self.layout.state.builtin_strings;
                self.state_pointer(Reg::R1, offset);
                self.emit(Insn::mov64_imm(Reg::R2, strsize.min(16) as i32));
                self.call(Helper::GetCurrentComm);
                self.load_constant(Reg::R0, TAG_STATE << TAG_SHIFT | offset as u64);
            }
            variable::PROBEPROV
            | variable::PROBEMOD
            | variable::PROBEFUNC
            | variable::PROBENAME => {
                let (slot, text) = match id {
                    variable::PROBEPROV => (1, self.probe.provider.clone()),
                    variable::PROBEMOD => (2, self.probe.module.clone()),
                    variable::PROBEFUNC => (3, self.probe.function.clone()),
                    _ => (4, self.probe.name.clone()),
                };
                let offset = self.layout.state.builtin_strings + slot * strsize;
                let mut bytes = text.into_bytes();
                bytes.truncate(strsize as usize - 1);
                bytes.push(0);
                self.store_bytes(offset, &bytes, strsize);
                self.load_constant(Reg::R0, TAG_STATE << TAG_SHIFT | offset as u64);
            }
            variable::STACKDEPTH | variable::USTACKDEPTH => {
                let flags = if id == variable::USTACKDEPTH {
                    BPF_F_USER_STACK
                } else {
                    0
                };
                self.capture_frames(super::layout::STACK_FRAMES, flags);
                self.alu_imm(AluOp::Rsh, Reg::R0, 3);
            }
            variable::CALLER => {
                // The second frame past the artificial ones: the first is in the
                // function where the probe fired, the second in its caller.
                self.capture_frames(2, 0);
                let done = self.label();
                let known = self.label();
                self.asm.jmp_imm_to(JmpOp::Ge, Reg::R0, 16, known);
                self.emit(Insn::mov64_imm(Reg::R0, 0));
                self.asm.ja_to(done);
                self.bind(known);
                self.emit(Insn::ldx_mem(
                    MemSize::DW,
                    Reg::R0,
                    STATE,
                    self.layout.state.stack as i16 + 8,
                ));
                self.bind(done);
            }
            variable::UCALLER => {
                // The second user frame, the caller of the function the thread is in
                // (as far as the user stack can be walked by frame pointers).
                self.capture_frames(2, BPF_F_USER_STACK);
                let done = self.label();
                let known = self.label();
                self.asm.jmp_imm_to(JmpOp::Ge, Reg::R0, 16, known);
                self.emit(Insn::mov64_imm(Reg::R0, 0));
                self.asm.ja_to(done);
                self.bind(known);
                self.emit(Insn::ldx_mem(
                    MemSize::DW,
                    Reg::R0,
                    STATE,
                    self.layout.state.stack as i16 + 8,
                ));
                self.bind(done);
            }
            variable::CURCPU => {
                return Err(
                    self.unsupported("curcpu (Linux has no cpuinfo_t for it to point to; use cpu)")
                )
            }
            _ => {
                self.fault(
                    FaultCode::IllegalOperation,
                    FaultValue::Constant(id as i32),
                    site,
                );
            }
        }
        Ok(())
    }

    /// `r0 = regs[r1]` (`user` false) or `uregs[r1]`: the index is a u64 slot of x86_64
    /// `struct pt_regs` (r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di,
    /// orig_ax, ip, cs, flags, sp, ss). `regs[]` reads the probe's own registers where its
    /// context has them (kprobes, uprobes, perf events; elsewhere it faults with `illegal
    /// operation`, as the interpreter does for a context without registers); `uregs[]`
    /// reads the user registers the current thread entered the kernel with.
    pub fn load_register(&mut self, user: bool, site: FaultSite) {
        let stack = self.layout.state.stack;
        self.fault_if_imm(
            JmpOp::Ge,
            Reg::R1,
            PT_REGS_WORDS as i32,
            FaultCode::IllegalOperation,
            FaultValue::Register(Reg::R1),
            site,
        );
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R1, SPILL_0));
        if user {
            self.call(Helper::GetCurrentTaskBtf);
            self.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
            self.call(Helper::TaskPtRegs);
            self.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
            self.state_pointer(Reg::R1, stack);
            self.emit(Insn::mov64_imm(Reg::R2, 8 * PT_REGS_WORDS as i32));
            self.call(Helper::ProbeReadKernel);
            self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
            self.fault_if_imm(
                JmpOp::Ne,
                Reg::R0,
                0,
                FaultCode::IllegalOperation,
                FaultValue::Register(Reg::R1),
                site,
            );
        } else if self.context.has_pt_regs() {
            for word in 0..PT_REGS_WORDS {
                self.emit(Insn::ldx_mem(
                    MemSize::DW,
                    Reg::R0,
                    CONTEXT,
                    (8 * word) as i16,
                ));
                self.store_state(stack + 8 * word, Reg::R0);
            }
        } else {
            self.fault(
                FaultCode::IllegalOperation,
                FaultValue::Register(Reg::R1),
                site,
            );
            return;
        }
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
        self.fault_if_imm(
            JmpOp::Ge,
            Reg::R1,
            PT_REGS_WORDS as i32,
            FaultCode::IllegalOperation,
            FaultValue::Register(Reg::R1),
            site,
        );
        self.alu_imm(AluOp::Lsh, Reg::R1, 3);
        self.alu_reg(AluOp::Add, Reg::R1, STATE);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R1, stack as i16));
    }

    /// `r0 = bpf_get_stack(ctx, stack area, 8 × frames, flags)`, 0 on failure; a kernel
    /// stack leaves out the artificial frames (see `artificial_frames`).
    fn capture_frames(&mut self, frames: u32, flags: i32) {
        let done = self.label();
        if flags & BPF_F_USER_STACK == 0 {
            self.load_artificial_frame_count();
        } else {
            self.emit(Insn::mov64_imm(Reg::R4, flags));
        }
        self.emit(Insn::mov64_reg(Reg::R1, super::registers::CONTEXT));
        self.state_pointer(Reg::R2, self.layout.state.stack);
        self.emit(Insn::mov64_imm(Reg::R3, 8 * frames as i32));
        self.call(Helper::GetStack);
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R0, 0, done);
        self.emit(Insn::mov64_imm(Reg::R0, 0));
        self.bind(done);
    }

    /// `r0 = current->real_parent->tgid`, 0 when unreadable.
    fn load_ppid(&mut self) -> Result<(), TranslateError> {
        let offsets = self
            .layout
            .options
            .task_offsets
            .ok_or_else(|| self.unsupported("ppid without task_struct offsets from BTF"))?;
        let temporary = self.layout.state.temporary;
        let done = self.label();
        self.store_state_imm(temporary, 0);
        self.call(Helper::GetCurrentTask);
        self.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        self.alu_imm(AluOp::Add, Reg::R3, offsets.real_parent as i32);
        self.state_pointer(Reg::R1, temporary);
        self.emit(Insn::mov64_imm(Reg::R2, 8));
        self.call(Helper::ProbeReadKernel);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, done);
        self.load_state(Reg::R3, temporary);
        self.store_state_imm(temporary, 0);
        self.alu_imm(AluOp::Add, Reg::R3, offsets.tgid as i32);
        self.state_pointer(Reg::R1, temporary);
        self.emit(Insn::mov64_imm(Reg::R2, 4));
        self.call(Helper::ProbeReadKernel);
        self.bind(done);
        self.emit(Insn::ldx_mem(MemSize::W, Reg::R0, STATE, temporary as i16));
        Ok(())
    }

    /// Writes constant `bytes` (at most `capacity`) into the work area at `offset`, eight
    /// bytes at a time (clobbers r0).
    pub fn store_bytes(&mut self, offset: u32, bytes: &[u8], capacity: u32) {
        let mut padded = bytes.to_vec();
        padded.resize(bytes.len().next_multiple_of(8).min(capacity as usize), 0);
        for (index, chunk) in padded.chunks(8).enumerate() {
            let at = offset + 8 * index as u32;
            if chunk.len() == 8 {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                self.load_constant(Reg::R0, u64::from_le_bytes(word));
                self.emit(Insn::stx_mem(MemSize::DW, STATE, Reg::R0, at as i16));
            } else {
                for (position, byte) in chunk.iter().enumerate() {
                    self.emit(Insn::st_mem(
                        MemSize::B,
                        STATE,
                        (at + position as u32) as i16,
                        *byte as i32,
                    ));
                }
            }
        }
    }
}
