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
//! [`load_register`]). `curcpu` points to a `cpuinfo_t` in the work area that reading it
//! fills (see [`load_curcpu`]).

use difvm::isa::builtin_variable as variable;
use difvm::object::FaultCode;

use super::arguments::load_tracepoint_field;
use super::code::{FaultSite, FaultValue, ProgramCode};
use super::context::{ContextKind, TracepointField, MAXIMUM_RAW_TRACEPOINT_ARGUMENTS};
use super::entry_stacks::{at_function_entry, load_return_address};
use super::error::TranslateError;
use super::registers::{CONTEXT, SPILL_0, STATE};
use super::subject_task::{
    capture_stack, load_current_pid_tgid, load_current_task, load_current_uid_gid,
    store_current_comm,
};
use super::translation_context::{Chain, StatementContext};
use super::vtimestamps::load_vtimestamp;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::{TAG_SHIFT, TAG_STATE};

/// `bpf_get_stack`'s flag for the user stack.
const BPF_F_USER_STACK: i32 = 1 << 8;
/// u64 words of x86_64 `struct pt_regs`.
const PT_REGS_WORDS: u32 = 21;

fn arguments_offset(cx: &StatementContext<'_>) -> u32 {
    match cx.chain {
        Chain::Main => cx.layout().state.arguments,
        Chain::Error => cx.layout().state.error_arguments,
    }
}

fn chain_argument_count(cx: &StatementContext<'_>) -> u8 {
    match cx.chain {
        Chain::Main => cx.argument_count(),
        Chain::Error => 6,
    }
}

/// `execname` and `probeprov`, `probemod`, `probefunc`, `probename`: written into their
/// built-in string slot of the work area; r0 = its address.
fn load_builtin_string(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    id: u16,
) -> Result<(), TranslateError> {
    let strsize = cx.layout().options.strsize;
    if id == variable::EXECNAME {
        let offset = cx.layout().state.builtin_strings;
        store_current_comm(code, cx, offset, strsize.min(16))?;
        code.load_constant(Reg::R0, TAG_STATE << TAG_SHIFT | offset as u64);
        return Ok(());
    }
    let (slot, text) = match id {
        variable::PROBEPROV => (1, cx.probe.provider.clone()),
        variable::PROBEMOD => (2, cx.probe.module.clone()),
        variable::PROBEFUNC => (3, cx.probe.function.clone()),
        _ => (4, cx.probe.name.clone()),
    };
    let offset = cx.layout().state.builtin_strings + slot * strsize;
    let mut bytes = text.into_bytes();
    bytes.truncate(strsize as usize - 1);
    bytes.push(0);
    store_bytes(code, offset, &bytes, strsize);
    code.load_constant(Reg::R0, TAG_STATE << TAG_SHIFT | offset as u64);
    Ok(())
}

/// `curcpu`: fills the work area's `cpuinfo_t` with this CPU's `cpu_id`, `cpu_pset` (0:
/// Linux has no processor sets), `cpu_chip` (its physical package, from the layout's
/// table of them), `cpu_lgrp` (its NUMA node) and a NULL `cpu_info`; r0 = its tagged
/// address. The work area belongs to the CPU, so the values stay true for as long as
/// a clause keeps the pointer.
fn load_curcpu(code: &mut ProgramCode, cx: &StatementContext<'_>) -> Result<(), TranslateError> {
    // The layout has the area for every program that reads `curcpu`; a layout made for
    // another program does not.
    let Some(area) = cx.layout().state.cpuinfo else {
        return Err(cx.unsupported("curcpu in a layout without a cpuinfo_t area"));
    };
    let field = |offset: u32| (area + offset) as i16;
    code.call(Helper::GetNumaNodeId);
    code.emit(Insn::stx_mem(MemSize::W, STATE, Reg::R0, field(12)));
    code.call(Helper::GetSmpProcessorId);
    code.emit(Insn::stx_mem(MemSize::W, STATE, Reg::R0, field(0)));
    code.emit(Insn::st_mem(MemSize::W, STATE, field(4), 0));
    code.emit(Insn::st_mem(MemSize::DW, STATE, field(16), 0));
    // The package of CPU r0: one range test per run of CPUs on the same package other
    // than 0, so that a one-socket machine pays nothing.
    code.emit(Insn::mov64_imm(Reg::R1, 0));
    let chips = &cx.layout().options.cpu_chips;
    let mut start = 0;
    while start < chips.len() {
        let end = start
            + chips[start..]
                .iter()
                .take_while(|&&chip| chip == chips[start])
                .count();
        if chips[start] != 0 {
            let outside = code.label();
            code.asm
                .jmp_imm_to(JmpOp::Lt, Reg::R0, start as i32, outside);
            code.asm.jmp_imm_to(JmpOp::Ge, Reg::R0, end as i32, outside);
            code.emit(Insn::mov64_imm(Reg::R1, chips[start] as i32));
            code.bind(outside);
        }
        start = end;
    }
    code.emit(Insn::stx_mem(MemSize::W, STATE, Reg::R1, field(8)));
    code.load_constant(Reg::R0, TAG_STATE << TAG_SHIFT | area as u64);
    Ok(())
}

/// `caller` (`flags` 0) or `ucaller` (`BPF_F_USER_STACK`): r0 = the second frame of the
/// stack, or 0 when it has fewer.
fn load_caller(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    flags: i32,
) -> Result<(), TranslateError> {
    capture_frames(code, cx, 2, flags)?;
    let done = code.label();
    let known = code.label();
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R0, 16, known);
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.asm.ja_to(done);
    code.bind(known);
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R0,
        STATE,
        cx.layout().state.stack as i16 + 8,
    ));
    code.bind(done);
    Ok(())
}

/// `r0 = args[r1]`; an index past the probe's arguments faults with `illegal
/// operation`.
pub fn load_argument_by_index(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    index: Reg,
    site: FaultSite,
) -> Result<(), TranslateError> {
    let done = code.label();
    match (cx.chain, cx.context()) {
        (Chain::Main, ContextKind::Tracepoint { fields }) => {
            load_tracepoint_argument_beyond_words(code, cx, fields, index, done)?
        }
        (Chain::Main, ContextKind::RawTracepoint { argument_count, .. }) => {
            load_raw_tracepoint_argument_beyond_words(code, *argument_count, index, done)
        }
        _ => {}
    }
    let count = chain_argument_count(cx);
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Ge,
        index,
        count as i32,
        FaultCode::IllegalOperation,
        FaultValue::Register(index),
        site,
    );
    code.emit(Insn::mov64_reg(Reg::R2, index));
    code.alu_imm(AluOp::Lsh, Reg::R2, 3);
    code.alu_reg(AluOp::Add, Reg::R2, STATE);
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R0,
        Reg::R2,
        arguments_offset(cx) as i16,
    ));
    code.bind(done);
    Ok(())
}

/// `args[i]` of a tracepoint with more fields than the ten argument words: for each
/// field from the eleventh on, when `index` names it, r0 = the field read from the trace
/// entry, then a jump to `done`. Other indices fall through.
fn load_tracepoint_argument_beyond_words(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    fields: &[TracepointField],
    index: Reg,
    done: Label,
) -> Result<(), TranslateError> {
    let scratch = cx.layout().state.temporary;
    for (position, field) in fields.iter().enumerate().skip(10) {
        let next = code.label();
        code.asm.jmp_imm_to(JmpOp::Ne, index, position as i32, next);
        load_tracepoint_field(code, field, position, scratch)?;
        code.asm.ja_to(done);
        code.bind(next);
    }
    Ok(())
}

/// `args[i]` of a raw tracepoint with more arguments than the ten argument words (the
/// kernel passes at most twelve): for each argument from the eleventh on, when `index`
/// names it, r0 = the argument read from `ctx`, then a jump to `done`. Other indices
/// fall through.
fn load_raw_tracepoint_argument_beyond_words(
    code: &mut ProgramCode,
    argument_count: u8,
    index: Reg,
    done: Label,
) {
    for position in 10..argument_count.min(MAXIMUM_RAW_TRACEPOINT_ARGUMENTS) {
        let next = code.label();
        code.asm
            .jmp_imm_to(JmpOp::Ne, index, i32::from(position), next);
        code.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R0,
            CONTEXT,
            8 * i16::from(position),
        ));
        code.asm.ja_to(done);
        code.bind(next);
    }
}

/// `r0 = built-in variable id`.
pub fn load_builtin(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    id: u16,
    site: FaultSite,
) -> Result<(), TranslateError> {
    match id {
        variable::CURTHREAD => load_current_task(code, cx),
        variable::TIMESTAMP => code.load_state(Reg::R0, cx.layout().state.timestamp),
        variable::WALLTIMESTAMP => code.load_state(Reg::R0, cx.layout().state.walltimestamp),
        variable::VTIMESTAMP => load_vtimestamp(code, cx)?,
        variable::IPL | variable::ZONENAME => {
            code.fault(
                cx.fault_exit,
                FaultCode::IllegalOperation,
                FaultValue::Constant(id as i32),
                site,
            );
        }
        variable::EPID => code.load_constant(Reg::R0, cx.epid as u64),
        variable::ID => code.load_constant(Reg::R0, cx.probe_id as u64),
        _ if (variable::ARG0..variable::ARG0 + 10).contains(&id) => {
            let offset = arguments_offset(cx) + 8 * (id - variable::ARG0) as u32;
            code.load_state(Reg::R0, offset);
        }
        variable::PID => {
            load_current_pid_tgid(code, cx)?;
            code.alu_imm(AluOp::Rsh, Reg::R0, 32);
        }
        variable::TID => {
            load_current_pid_tgid(code, cx)?;
            code.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
        }
        variable::UID => {
            load_current_uid_gid(code, cx)?;
            code.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
        }
        variable::GID => {
            load_current_uid_gid(code, cx)?;
            code.alu_imm(AluOp::Rsh, Reg::R0, 32);
        }
        variable::PPID => load_ppid(code, cx)?,
        variable::ERRNO => {
            code.emit(Insn::mov64_imm(Reg::R0, 0));
            if cx.has_errno() {
                let done = code.label();
                code.load_state(Reg::R1, cx.layout().state.arguments);
                code.asm.jmp_imm_to(JmpOp::Sge, Reg::R1, 0, done);
                code.emit(Insn::mov64_reg(Reg::R0, Reg::R1));
                code.emit(Insn::neg64(Reg::R0));
                code.bind(done);
            }
        }
        variable::CPU => {
            code.call(Helper::GetSmpProcessorId);
            code.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
        }
        variable::EXECNAME
        | variable::PROBEPROV
        | variable::PROBEMOD
        | variable::PROBEFUNC
        | variable::PROBENAME => load_builtin_string(code, cx, id)?,
        variable::STACKDEPTH | variable::USTACKDEPTH => {
            let flags = if id == variable::USTACKDEPTH {
                BPF_F_USER_STACK
            } else {
                0
            };
            capture_frames(code, cx, crate::map_layout::STACK_FRAMES, flags)?;
            code.alu_imm(AluOp::Rsh, Reg::R0, 3);
        }
        // The second frame past the artificial ones: the first is in the function where
        // the probe fired, the second in its caller.
        variable::CALLER => load_caller(code, cx, 0)?,
        // At a function's first instruction, the return address on top of the stack,
        // exact whether or not the code keeps frame pointers.
        variable::UCALLER if at_function_entry(cx) => load_return_address(code, cx),
        // The second user frame, the caller of the function the thread is in (as far as
        // the user stack can be walked by frame pointers).
        variable::UCALLER => load_caller(code, cx, BPF_F_USER_STACK)?,
        variable::CURCPU => load_curcpu(code, cx)?,
        _ => {
            code.fault(
                cx.fault_exit,
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
pub fn load_register(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    user: bool,
    site: FaultSite,
) {
    let stack = cx.layout().state.stack;
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Ge,
        Reg::R1,
        PT_REGS_WORDS as i32,
        FaultCode::IllegalOperation,
        FaultValue::Register(Reg::R1),
        site,
    );
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R1, SPILL_0));
    if user {
        code.call(Helper::GetCurrentTaskBtf);
        code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
        code.call(Helper::TaskPtRegs);
        code.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        code.state_pointer(Reg::R1, stack);
        code.emit(Insn::mov64_imm(Reg::R2, 8 * PT_REGS_WORDS as i32));
        code.call(Helper::ProbeReadKernel);
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
        code.fault_if_imm(
            cx.fault_exit,
            JmpOp::Ne,
            Reg::R0,
            0,
            FaultCode::IllegalOperation,
            FaultValue::Register(Reg::R1),
            site,
        );
    } else if cx.context().has_pt_regs() {
        for word in 0..PT_REGS_WORDS {
            code.emit(Insn::ldx_mem(
                MemSize::DW,
                Reg::R0,
                CONTEXT,
                (8 * word) as i16,
            ));
            code.store_state(stack + 8 * word, Reg::R0);
        }
    } else {
        code.fault(
            cx.fault_exit,
            FaultCode::IllegalOperation,
            FaultValue::Register(Reg::R1),
            site,
        );
        return;
    }
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_0));
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Ge,
        Reg::R1,
        PT_REGS_WORDS as i32,
        FaultCode::IllegalOperation,
        FaultValue::Register(Reg::R1),
        site,
    );
    code.alu_imm(AluOp::Lsh, Reg::R1, 3);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::R1, stack as i16));
}

/// `r0 = ` the bytes of the kernel (`flags` 0) or user (`BPF_F_USER_STACK`) stack
/// captured into the stack area, at most `frames` frames, 0 on failure (see
/// `subject_task::capture_stack`).
fn capture_frames(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    frames: u32,
    flags: i32,
) -> Result<(), TranslateError> {
    let done = code.label();
    let user = flags & BPF_F_USER_STACK != 0;
    capture_stack(code, cx, cx.layout().state.stack, 8 * frames, user)?;
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R0, 0, done);
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.bind(done);
    Ok(())
}

/// `r0 = current->real_parent->tgid` (of the thread the clause describes), 0 when
/// unreadable.
fn load_ppid(code: &mut ProgramCode, cx: &StatementContext<'_>) -> Result<(), TranslateError> {
    let offsets = cx
        .layout()
        .options
        .task_offsets
        .ok_or_else(|| cx.unsupported("ppid without task_struct offsets from BTF"))?;
    let temporary = cx.layout().state.temporary;
    let done = code.label();
    code.store_state_imm(temporary, 0);
    load_current_task(code, cx);
    code.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
    code.alu_imm(AluOp::Add, Reg::R3, offsets.real_parent as i32);
    code.state_pointer(Reg::R1, temporary);
    code.emit(Insn::mov64_imm(Reg::R2, 8));
    code.call(Helper::ProbeReadKernel);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, done);
    code.load_state(Reg::R3, temporary);
    code.store_state_imm(temporary, 0);
    code.alu_imm(AluOp::Add, Reg::R3, offsets.tgid as i32);
    code.state_pointer(Reg::R1, temporary);
    code.emit(Insn::mov64_imm(Reg::R2, 4));
    code.call(Helper::ProbeReadKernel);
    code.bind(done);
    code.emit(Insn::ldx_mem(MemSize::W, Reg::R0, STATE, temporary as i16));
    Ok(())
}

/// Writes constant `bytes` (at most `capacity`) into the work area at `offset`, eight
/// bytes at a time (clobbers r0).
pub fn store_bytes(code: &mut ProgramCode, offset: u32, bytes: &[u8], capacity: u32) {
    let mut padded = bytes.to_vec();
    padded.resize(bytes.len().next_multiple_of(8).min(capacity as usize), 0);
    for (index, chunk) in padded.chunks(8).enumerate() {
        let at = offset + 8 * index as u32;
        if chunk.len() == 8 {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            code.load_constant(Reg::R0, u64::from_le_bytes(word));
            code.emit(Insn::stx_mem(MemSize::DW, STATE, Reg::R0, at as i16));
        } else {
            for (position, byte) in chunk.iter().enumerate() {
                code.emit(Insn::st_mem(
                    MemSize::B,
                    STATE,
                    (at + position as u32) as i16,
                    *byte as i32,
                ));
            }
        }
    }
}
