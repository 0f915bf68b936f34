//! The code that copies the probe's arguments from `ctx` into the work area when the
//! program starts (so that `argN` and `args[i]` with a run-time index read them from one
//! place), the system-call filter of a syscall context and the process filter of a
//! pid provider probe.
//!
//! Only the arguments some clause of the probe reads are copied (see
//! `context::arguments_read`): every firing pays for the copy, and a system call's
//! arguments cost a helper call to read, so a probe whose clauses name no argument reads
//! none.
//!
//! x86_64 `struct pt_regs` offsets are used for syscall, profile and uprobe contexts.

use super::code::ProgramCode;
use super::context::{ContextKind, ReturnOffset, TracepointField, TracepointValue};
use super::error::TranslateError;
use super::registers::{CONTEXT, STATE};
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::{ProgramLayout, ReturnExitLayout};

/// x86_64 `struct pt_regs` offsets.
mod pt_regs {
    pub const R10: i16 = 56;
    pub const R9: i16 = 64;
    pub const R8: i16 = 72;
    pub const AX: i16 = 80;
    pub const CX: i16 = 88;
    pub const DX: i16 = 96;
    pub const SI: i16 = 104;
    pub const DI: i16 = 112;
    pub const ORIG_AX: i16 = 120;
    pub const IP: i16 = 128;
    pub const CS: i16 = 136;
    pub const SP: i16 = 152;
}

/// Emits the code that fills the work area's argument words named in `used` (see
/// [`arguments_read`]) from `ctx`, and the system-call filter, which exits at `skip` for
/// other system calls. Words not named stay 0.
pub fn emit_argument_loading(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    context: &ContextKind,
    used: u16,
    skip: Label,
) -> Result<(), TranslateError> {
    let arguments = layout.state.arguments;
    code.zero_fill(STATE, arguments, 80);
    let wanted = |index: u32| used & (1 << index) != 0;
    match context {
        ContextKind::RawTracepoint { argument_count, .. } => {
            for index in (0..(*argument_count).min(10) as u32).filter(|&index| wanted(index)) {
                code.emit(Insn::ldx_mem(
                    MemSize::DW,
                    Reg::R0,
                    CONTEXT,
                    (8 * index) as i16,
                ));
                code.store_state(argument_word(layout, index), Reg::R0);
            }
        }
        ContextKind::SyscallEntry { syscall } => {
            load_syscall_entry_arguments(code, layout, *syscall, used, skip)
        }
        ContextKind::SyscallReturn { syscall } => {
            if let Some(number) = syscall {
                code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, CONTEXT, 0));
                code.emit(Insn::add64_imm(Reg::R3, pt_regs::ORIG_AX as i32));
                code.state_pointer(Reg::R1, arguments);
                code.emit(Insn::mov64_imm(Reg::R2, 8));
                code.call(Helper::ProbeReadKernel);
                code.load_state(Reg::R0, arguments);
                code.asm
                    .jmp_imm_to(JmpOp::Ne, Reg::R0, *number as i32, skip);
            }
            if used & 0b11 != 0 {
                code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, 8));
                code.store_state(argument_word(layout, 0), Reg::R0);
                code.store_state(argument_word(layout, 1), Reg::R0);
            }
        }
        ContextKind::Tracepoint { fields } => {
            load_tracepoint_arguments(code, layout, fields, used)?
        }
        ContextKind::PerfEvent => {
            let user = code.label();
            let done = code.label();
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, pt_regs::IP));
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, CONTEXT, pt_regs::CS));
            code.emit(Insn::alu64_imm(AluOp::And, Reg::R1, 3));
            code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, user);
            code.store_state(argument_word(layout, 0), Reg::R0);
            code.asm.ja_to(done);
            code.bind(user);
            code.store_state(argument_word(layout, 1), Reg::R0);
            code.bind(done);
        }
        ContextKind::Uprobe {
            return_probe,
            process,
            return_offset,
            ..
        } => {
            if let Some(process) = process {
                code.call(Helper::GetCurrentPidTgid);
                code.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R0, 32));
                code.asm
                    .jmp_imm_to(JmpOp::Ne, Reg::R0, *process as i32, skip);
            }
            load_function_arguments(code, layout, *return_probe, used, Helper::ProbeReadUser);
            if *return_probe && used & 1 != 0 {
                load_return_offset(code, layout, *return_offset)?;
            }
        }
        ContextKind::Kprobe { return_probe } => {
            load_function_arguments(code, layout, *return_probe, used, Helper::ProbeReadKernel);
        }
        ContextKind::DtraceMarker => {}
    }
    Ok(())
}

/// A uretprobe's `arg0`, the offset of the instruction its function left by (see
/// `ReturnOffset`; the argument word stays 0 when it is not known).
fn load_return_offset(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    source: ReturnOffset,
) -> Result<(), TranslateError> {
    match source {
        ReturnOffset::Unknown => {}
        ReturnOffset::Cookie => {
            code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
            code.call(Helper::GetAttachCookie);
            code.store_state(argument_word(layout, 0), Reg::R0);
        }
        ReturnOffset::Recorded => {
            let map = code.maps().return_exits.ok_or(TranslateError::MissingMap {
                map: "return_exits",
            })?;
            // The key, (pid_tgid, cookie), in the temporary words.
            let key = layout.state.temporary;
            let unknown = code.label();
            code.call(Helper::GetCurrentPidTgid);
            code.store_state(key, Reg::R0);
            code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
            code.call(Helper::GetAttachCookie);
            code.store_state(key + 8, Reg::R0);
            code.emit_all(&Insn::ld_map_fd(Reg::R1, map));
            code.state_pointer(Reg::R2, key);
            code.call(Helper::MapLookupElem);
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, unknown);
            // Written at the stack the function returned from: one word (the return
            // address) below the caller's stack pointer now.
            code.emit(Insn::ldx_mem(
                MemSize::DW,
                Reg::R1,
                Reg::R0,
                ReturnExitLayout::STACK_POINTER as i16,
            ));
            code.emit(Insn::add64_imm(Reg::R1, 8));
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, CONTEXT, pt_regs::SP));
            code.asm.jmp_reg_to(JmpOp::Ne, Reg::R1, Reg::R2, unknown);
            code.emit(Insn::ldx_mem(
                MemSize::DW,
                Reg::R1,
                Reg::R0,
                ReturnExitLayout::OFFSET as i16,
            ));
            code.store_state(argument_word(layout, 0), Reg::R1);
            code.bind(unknown);
        }
    }
    Ok(())
}

/// A function boundary's wanted arguments from `pt_regs`: at a return, `arg1` is the
/// return value; at an entry, the x86_64 calling convention's registers and then the
/// stack, read with `read_stack` (the user or kernel memory read helper).
fn load_function_arguments(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    return_probe: bool,
    used: u16,
    read_stack: Helper,
) {
    let wanted = |index: u32| used & (1 << index) != 0;
    if return_probe {
        if wanted(1) {
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, pt_regs::AX));
            code.store_state(argument_word(layout, 1), Reg::R0);
        }
        return;
    }
    let registers = [
        pt_regs::DI,
        pt_regs::SI,
        pt_regs::DX,
        pt_regs::CX,
        pt_regs::R8,
        pt_regs::R9,
    ];
    for (index, offset) in registers.iter().enumerate() {
        if wanted(index as u32) {
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, *offset));
            code.store_state(argument_word(layout, index as u32), Reg::R0);
        }
    }
    load_stack_arguments(code, layout, used, read_stack);
}

/// At a function's first instruction, the x86_64 calling convention's arguments after
/// the sixth (`arg6`…`arg9`): the stack words above the return address, read with one
/// helper call into the wanted argument words (a failed read leaves them 0).
fn load_stack_arguments(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    used: u16,
    read_stack: Helper,
) {
    let stacked: Vec<u32> = (6..10).filter(|index| used & (1 << index) != 0).collect();
    let (Some(&lowest), Some(&highest)) = (stacked.first(), stacked.last()) else {
        return;
    };
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, CONTEXT, pt_regs::SP));
    code.emit(Insn::add64_imm(Reg::R3, (8 * (lowest - 5)) as i32));
    code.state_pointer(Reg::R1, argument_word(layout, lowest));
    code.emit(Insn::mov64_imm(
        Reg::R2,
        (8 * (highest - lowest + 1)) as i32,
    ));
    code.call(read_stack);
}

/// The words of the work area's argument `index`.
fn argument_word(layout: &ProgramLayout, index: u32) -> u32 {
    layout.state.arguments + 8 * index
}

/// `raw_syscalls:sys_enter`: the system-call filter (other system calls than `syscall`
/// exit at `skip`), then the wanted arguments from the system call's `pt_regs`.
fn load_syscall_entry_arguments(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    syscall: Option<u32>,
    used: u16,
    skip: Label,
) {
    let wanted = |index: u32| used & (1 << index) != 0;
    if let Some(number) = syscall {
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, 8));
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, number as i32, skip);
    }
    let registers = [
        pt_regs::DI,
        pt_regs::SI,
        pt_regs::DX,
        pt_regs::R10,
        pt_regs::R8,
        pt_regs::R9,
    ];
    let read: Vec<(u32, i16)> = (0..registers.len() as u32)
        .filter(|&index| wanted(index))
        .map(|index| (index, registers[index as usize]))
        .collect();
    if let (Some(lowest), Some(highest)) = (
        read.iter().map(|&(_, offset)| offset).min(),
        read.iter().map(|&(_, offset)| offset).max(),
    ) {
        // One read of the span of `pt_regs` holding every wanted register (at
        // most 64 bytes) into the error arguments, which are only written after
        // a fault; then each wanted word moves to its argument.
        let scratch = layout.state.error_arguments;
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, CONTEXT, 0));
        code.emit(Insn::add64_imm(Reg::R3, lowest as i32));
        code.state_pointer(Reg::R1, scratch);
        code.emit(Insn::mov64_imm(Reg::R2, (highest - lowest + 8) as i32));
        code.call(Helper::ProbeReadKernel);
        for (index, offset) in read {
            code.load_state(Reg::R0, scratch + (offset - lowest) as u32);
            code.store_state(argument_word(layout, index), Reg::R0);
        }
    }
}

/// A tracepoint's wanted arguments from the fields of its trace entry (see
/// [`load_tracepoint_field`] for what each word holds).
fn load_tracepoint_arguments(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    fields: &[TracepointField],
    used: u16,
) -> Result<(), TranslateError> {
    let wanted = |index: u32| used & (1 << index) != 0;
    for (index, field) in fields
        .iter()
        .take(10)
        .enumerate()
        .filter(|&(index, _)| wanted(index as u32))
    {
        let word = argument_word(layout, index as u32);
        load_tracepoint_field(code, field, index, word)?;
        code.store_state(word, Reg::R0);
    }
    Ok(())
}

/// `r0` = the tracepoint argument `index` from its `field` of the trace entry: integers
/// sign-extended when signed, arrays as the kernel address of the field, `__data_loc`
/// fields as the kernel address of the data their location word points at. `scratch` is
/// a work-area word the address computation may use; r1–r5 are clobbered.
pub fn load_tracepoint_field(
    code: &mut ProgramCode,
    field: &TracepointField,
    index: usize,
    scratch: u32,
) -> Result<(), TranslateError> {
    match field.value {
        TracepointValue::Integer { size, signed } => {
            let memory_size =
                MemSize::from_bytes(size as usize).ok_or_else(|| TranslateError::Unsupported {
                    what: format!("a {size}-byte tracepoint argument (argument {index})"),
                    location: String::new(),
                })?;
            load_entry_word(code, field.offset, memory_size, size, scratch);
            if signed && size < 8 {
                let shift = 64 - 8 * size as i32;
                code.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R0, shift));
                code.emit(Insn::alu64_imm(AluOp::Arsh, Reg::R0, shift));
            }
        }
        TracepointValue::Address => {
            entry_address_as_number(code, scratch);
            code.emit(Insn::add64_imm(Reg::R0, i32::from(field.offset)));
        }
        TracepointValue::DataLocation => {
            load_entry_word(code, field.offset, MemSize::W, 4, scratch);
            code.emit(Insn::alu64_imm(AluOp::And, Reg::R0, 0xffff));
            code.emit(Insn::mov64_reg(Reg::R2, Reg::R0));
            entry_address_as_number(code, scratch);
            code.alu_reg(AluOp::Add, Reg::R0, Reg::R2);
        }
    }
    Ok(())
}

/// `r0` = the `size`-byte word at `offset` of the trace entry, zero-extended. The
/// verifier lets a tracepoint program read its context only at naturally aligned
/// offsets; a field of a packed record is read with the kernel-read helper instead,
/// through `scratch`.
fn load_entry_word(
    code: &mut ProgramCode,
    offset: u16,
    memory_size: MemSize,
    size: u8,
    scratch: u32,
) {
    if offset.is_multiple_of(u16::from(size)) {
        code.emit(Insn::ldx_mem(memory_size, Reg::R0, CONTEXT, offset as i16));
        return;
    }
    entry_address_as_number(code, scratch);
    code.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
    code.emit(Insn::add64_imm(Reg::R3, i32::from(offset)));
    code.state_pointer(Reg::R1, scratch);
    code.emit(Insn::mov64_imm(Reg::R2, i32::from(size)));
    code.call(Helper::ProbeReadKernel);
    code.emit(Insn::ldx_mem(memory_size, Reg::R0, STATE, scratch as i16));
}

/// `r0` = the trace entry's address (`ctx`), passed through the work area's `scratch`
/// word: read back, it is a plain number to the verifier, so that the program may add an
/// offset found at run time and hand the result to DIF like any other address. The entry
/// is kernel memory, which the kernel-read helper reads.
fn entry_address_as_number(code: &mut ProgramCode, scratch: u32) {
    code.store_state(scratch, CONTEXT);
    code.load_state(Reg::R0, scratch);
}
