//! One DIFO, instruction by instruction: arithmetic and logic (division by zero faults),
//! comparisons and forward branches, sized loads with sign extension, stores into
//! scratch, `setx`/`sets`, `allocs`/`copys`, the tuple stack, and dispatch to the
//! variable, built-in and subroutine translations. The DIFO's result is left in r8.

use difvm::difo::{Difo, KernelRelocationValue};
use difvm::engine::MAX_OBJECT_SIZE;
use difvm::isa::{builtin_array, Instruction, Opcode, DIF_TYPE_STRING};
use difvm::object::FaultCode;

use super::builtins::{load_argument_by_index, load_register};
use super::code::{FaultSite, FaultValue, ProgramCode};
use super::error::TranslateError;
use super::memory::{
    allocate_scratch, copy_extent_into_scratch, load_memory, read_string, scratch_address,
    writable_store_target, Access, ScratchSize, StringDestination,
};
use super::registers::{CONDITION_LEFT, CONDITION_RIGHT, SAVED_0, SAVED_1, SPILL_0};
use super::strings::compare_strings;
use super::subroutines::call_subroutine;
use super::translation_context::StatementContext;
use super::tuples::{tuple_entry, tuple_shapes, EntryKind, Shape};
use super::variables::{access_associative, load_variable, store_variable};
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::{DifoLocation, TAG_CONSTANTS, TAG_SHIFT};

/// What the translation of one DIFO needs beyond the statement's context.
pub struct DifoTranslation<'d> {
    pub difo: &'d Difo,
    pub location: DifoLocation,
    /// Labels of every instruction (branch targets).
    labels: Vec<Label>,
    /// Tuple-stack shape before every instruction.
    pub shapes: Vec<Shape>,
    /// Where `ret` goes.
    end: Label,
}

impl<'d> DifoTranslation<'d> {
    /// The shape of the tuple stack before instruction `index`, or an error when it
    /// differs between paths.
    pub fn shape(
        &self,
        cx: &StatementContext<'_>,
        index: usize,
    ) -> Result<Vec<EntryKind>, TranslateError> {
        match self.shapes.get(index) {
            Some(Shape::Known(entries)) => Ok(entries.clone()),
            _ => Err(cx.unsupported(format!(
                "a tuple stack whose entries differ between paths (DIF offset {})",
                index * 4
            ))),
        }
    }
}

/// Translates `difo`; on return (through `ret`) its value is in r8.
pub fn translate_difo(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    difo: &Difo,
    location: DifoLocation,
) -> Result<(), TranslateError> {
    let labels = (0..difo.code.len()).map(|_| code.label()).collect();
    let end = code.label();
    let mut translation = DifoTranslation {
        difo,
        location,
        labels,
        shapes: tuple_shapes(difo),
        end,
    };
    code.clear_dif_registers();
    code.emit(Insn::st_mem(MemSize::DW, Reg::FP, CONDITION_LEFT, 0));
    code.emit(Insn::st_mem(MemSize::DW, Reg::FP, CONDITION_RIGHT, 0));
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    for (index, instruction) in difo.code.iter().enumerate() {
        let label = translation.labels[index];
        code.bind(label);
        if translation.shapes[index] == Shape::Unreached {
            // Unreachable code still needs its label bound; nothing jumps into it.
            continue;
        }
        translate_instruction(code, cx, &mut translation, index, *instruction)?;
    }
    code.bind(translation.end);
    Ok(())
}

/// Translates one instruction: dispatches to the translation of its family.
fn translate_instruction(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    translation: &mut DifoTranslation<'_>,
    index: usize,
    instruction: Instruction,
) -> Result<(), TranslateError> {
    let site = FaultSite::Instruction(index);
    let Some(opcode) = instruction.opcode() else {
        code.fault(
            cx.fault_exit,
            FaultCode::IllegalOperation,
            FaultValue::Constant(instruction.opcode_byte() as i32),
            site,
        );
        return Ok(());
    };
    let rd = instruction.rd();
    match opcode {
        Opcode::Or
        | Opcode::Xor
        | Opcode::And
        | Opcode::Sll
        | Opcode::Srl
        | Opcode::Sra
        | Opcode::Sub
        | Opcode::Add
        | Opcode::Mul
        | Opcode::Not
        | Opcode::Mov => translate_arithmetic(code, opcode, instruction),
        Opcode::Sdiv | Opcode::Udiv | Opcode::Srem | Opcode::Urem => {
            translate_division(code, cx, opcode, instruction, site)
        }
        Opcode::Cmp | Opcode::Tst | Opcode::Scmp => {
            translate_comparison(code, cx, opcode, instruction, site)
        }
        Opcode::Ba
        | Opcode::Be
        | Opcode::Bne
        | Opcode::Bg
        | Opcode::Bgu
        | Opcode::Bge
        | Opcode::Bgeu
        | Opcode::Bl
        | Opcode::Blu
        | Opcode::Ble
        | Opcode::Bleu => translate_branch(code, translation, opcode, instruction),
        Opcode::Stb | Opcode::Sth | Opcode::Stw | Opcode::Stx => {
            translate_store(code, cx, opcode, instruction, site)
        }
        Opcode::Ret => {
            code.load_dif(SAVED_0, rd);
            code.asm.ja_to(translation.end);
        }
        Opcode::Nop => {}
        Opcode::Setx | Opcode::Sets => {
            translate_constant(code, cx, translation, opcode, instruction)?
        }
        Opcode::Ldga | Opcode::Ldta => translate_array_load(code, cx, opcode, instruction, site)?,
        Opcode::Ldgs | Opcode::Ldts | Opcode::Ldls => {
            load_variable(code, cx, opcode, instruction.index(), rd, site)?;
        }
        Opcode::Stgs | Opcode::Stts | Opcode::Stls => {
            store_variable(code, cx, opcode, instruction.index(), rd, site)?;
        }
        Opcode::Ldgaa | Opcode::Ldtaa | Opcode::Stgaa | Opcode::Sttaa => {
            let shape = translation.shape(cx, index)?;
            access_associative(code, cx, opcode, instruction.index(), rd, &shape, site)?;
        }
        Opcode::Call => {
            let shape = translation.shape(cx, index)?;
            call_subroutine(code, cx, instruction.index(), rd, &shape, site)?;
        }
        Opcode::Pushtv | Opcode::Pushtr => {
            let shape = translation.shape(cx, index)?;
            push_tuple(code, cx, opcode, instruction, &shape, site);
        }
        Opcode::Popts | Opcode::Flushts => {
            // Entries live at fixed places; the static shape tracks the stack's depth.
        }
        Opcode::Allocs => {
            code.load_dif(Reg::R0, instruction.r1());
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
            allocate_scratch(code, cx, ScratchSize::Slot(SPILL_0), site);
            scratch_address(code, Reg::R1, Reg::R0);
            code.store_dif(rd, Reg::R1);
        }
        Opcode::Copys => {
            let (r1, r2) = (instruction.r1(), instruction.r2());
            copy_into_scratch(code, cx, r1, r2, rd, site);
        }
        Opcode::Xlate | Opcode::Xlarg => {
            code.fault(
                cx.fault_exit,
                FaultCode::IllegalOperation,
                FaultValue::Constant(instruction.index() as i32),
                site,
            );
        }
        _ => translate_load(code, cx, opcode, instruction, site),
    }
    Ok(())
}

/// Arithmetic and logic without faults: the binary operations, `not` and `mov`.
fn translate_arithmetic(code: &mut ProgramCode, opcode: Opcode, instruction: Instruction) {
    let (r1, r2, rd) = (instruction.r1(), instruction.r2(), instruction.rd());
    match opcode {
        Opcode::Not => {
            code.load_dif(Reg::R0, r1);
            code.alu_imm(AluOp::Xor, Reg::R0, -1);
            code.store_dif(rd, Reg::R0);
        }
        Opcode::Mov => {
            code.load_dif(Reg::R0, r1);
            code.store_dif(rd, Reg::R0);
        }
        _ => {
            code.load_dif(Reg::R0, r1);
            code.load_dif(Reg::R1, r2);
            let op = match opcode {
                Opcode::Or => AluOp::Or,
                Opcode::Xor => AluOp::Xor,
                Opcode::And => AluOp::And,
                Opcode::Sll => AluOp::Lsh,
                Opcode::Srl => AluOp::Rsh,
                Opcode::Sra => AluOp::Arsh,
                Opcode::Sub => AluOp::Sub,
                Opcode::Add => AluOp::Add,
                _ => AluOp::Mul,
            };
            if matches!(op, AluOp::Lsh | AluOp::Rsh | AluOp::Arsh) {
                // Shift counts wrap at 64, as Rust's wrapping shifts do.
                code.alu_imm(AluOp::And, Reg::R1, 63);
            }
            code.alu_reg(op, Reg::R0, Reg::R1);
            code.store_dif(rd, Reg::R0);
        }
    }
}

/// `sdiv`, `udiv`, `srem`, `urem`: a zero divisor faults.
fn translate_division(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    instruction: Instruction,
    site: FaultSite,
) {
    let (r1, r2, rd) = (instruction.r1(), instruction.r2(), instruction.rd());
    code.load_dif(Reg::R0, r1);
    code.load_dif(Reg::R1, r2);
    let nonzero = code.label();
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, nonzero);
    // The interpreter clears the destination before faulting.
    code.emit(Insn::mov64_imm(Reg::R2, 0));
    code.store_dif(rd, Reg::R2);
    code.fault(
        cx.fault_exit,
        FaultCode::DivideByZero,
        FaultValue::Constant(0),
        site,
    );
    code.bind(nonzero);
    match opcode {
        Opcode::Sdiv => signed_division(code, SignedDivision::Quotient),
        Opcode::Srem => signed_division(code, SignedDivision::Remainder),
        Opcode::Udiv => code.alu_reg(AluOp::Div, Reg::R0, Reg::R1),
        _ => code.alu_reg(AluOp::Mod, Reg::R0, Reg::R1),
    }
    code.store_dif(rd, Reg::R0);
}

/// `cmp`, `tst`, `scmp`: the condition-code operands (see `registers`).
fn translate_comparison(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    instruction: Instruction,
    site: FaultSite,
) {
    let (r1, r2) = (instruction.r1(), instruction.r2());
    match opcode {
        Opcode::Cmp => {
            code.load_dif(Reg::R0, r1);
            code.load_dif(Reg::R1, r2);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, CONDITION_LEFT));
            code.emit(Insn::stx_mem(
                MemSize::DW,
                Reg::FP,
                Reg::R1,
                CONDITION_RIGHT,
            ));
        }
        Opcode::Tst => {
            let zero = code.label();
            code.load_dif(Reg::R0, r1);
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, zero);
            code.emit(Insn::mov64_imm(Reg::R0, 1));
            code.bind(zero);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, CONDITION_LEFT));
            code.emit(Insn::st_mem(MemSize::DW, Reg::FP, CONDITION_RIGHT, 0));
        }
        _ => {
            compare_strings(code, cx, r1, r2, site);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, CONDITION_LEFT));
            code.emit(Insn::st_mem(MemSize::DW, Reg::FP, CONDITION_RIGHT, 0));
        }
    }
}

/// `ba` and the conditional branches, which compare the condition-code operands.
fn translate_branch(
    code: &mut ProgramCode,
    translation: &DifoTranslation<'_>,
    opcode: Opcode,
    instruction: Instruction,
) {
    let target = translation.labels[instruction.label() as usize];
    if opcode == Opcode::Ba {
        code.asm.ja_to(target);
        return;
    }
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::FP, CONDITION_LEFT));
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R1,
        Reg::FP,
        CONDITION_RIGHT,
    ));
    let unsigned = match opcode {
        Opcode::Be => Some(JmpOp::Eq),
        Opcode::Bne => Some(JmpOp::Ne),
        Opcode::Bgu => Some(JmpOp::Gt),
        Opcode::Bgeu => Some(JmpOp::Ge),
        Opcode::Blu => Some(JmpOp::Lt),
        Opcode::Bleu => Some(JmpOp::Le),
        _ => None,
    };
    match unsigned {
        Some(op) => code.asm.jmp_reg_to(op, Reg::R0, Reg::R1, target),
        None => {
            // Signed branches test the sign of the difference (overflow is clear).
            code.alu_reg(AluOp::Sub, Reg::R0, Reg::R1);
            let op = match opcode {
                Opcode::Bg => JmpOp::Sgt,
                Opcode::Bge => JmpOp::Sge,
                Opcode::Bl => JmpOp::Slt,
                _ => JmpOp::Sle,
            };
            code.asm.jmp_imm_to(op, Reg::R0, 0, target);
        }
    }
}

/// The sized loads (`ld*`, `uld*`, `rld*`), with alignment checks and sign extension.
fn translate_load(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    instruction: Instruction,
    site: FaultSite,
) {
    let (r1, rd) = (instruction.r1(), instruction.rd());
    let (size, signed, access) = load_kind(opcode);
    code.load_dif(SAVED_1, r1);
    if access != Access::User && size > 1 {
        code.emit(Insn::mov64_reg(Reg::R0, SAVED_1));
        code.alu_imm(AluOp::And, Reg::R0, size as i32 - 1);
        code.fault_if_imm(
            cx.fault_exit,
            JmpOp::Ne,
            Reg::R0,
            0,
            FaultCode::BadAlignment,
            FaultValue::Register(SAVED_1),
            site,
        );
    }
    load_memory(code, cx, SAVED_1, size, access, site);
    if signed && size < 8 {
        let shift = 64 - 8 * size as i32;
        code.alu_imm(AluOp::Lsh, Reg::R0, shift);
        code.alu_imm(AluOp::Arsh, Reg::R0, shift);
    }
    code.store_dif(rd, Reg::R0);
}

/// `stb`, `sth`, `stw`, `stx`: stores into scratch, aligned.
fn translate_store(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    instruction: Instruction,
    site: FaultSite,
) {
    let (r1, rd) = (instruction.r1(), instruction.rd());
    let size = match opcode {
        Opcode::Stb => 1,
        Opcode::Sth => 2,
        Opcode::Stw => 4,
        _ => 8,
    };
    code.load_dif(SAVED_1, rd);
    if size > 1 {
        code.emit(Insn::mov64_reg(Reg::R0, SAVED_1));
        code.alu_imm(AluOp::And, Reg::R0, size as i32 - 1);
        code.fault_if_imm(
            cx.fault_exit,
            JmpOp::Ne,
            Reg::R0,
            0,
            FaultCode::BadAlignment,
            FaultValue::Register(SAVED_1),
            site,
        );
    }
    writable_store_target(code, cx, SAVED_1, size, SAVED_0, site);
    code.load_dif(Reg::R0, r1);
    let memory_size = MemSize::from_bytes(size as usize).unwrap_or(MemSize::DW);
    code.emit(Insn::stx_mem(memory_size, SAVED_0, Reg::R0, 0));
    code.emit(Insn::mov64_imm(SAVED_0, 0));
}

/// `setx` (from the integer table) and `sets` (an address in the string table).
/// `r0 = ` the value of a kernel relocation: for a per-CPU variable, this CPU's
/// per-CPU area (found as [`crate::map_layout::PerCpuBaseOffsets`] says) plus the variable's offset in it;
/// 0 when a read on the way fails, so that the variable's read faults.
fn load_kernel_relocation(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    value: KernelRelocationValue,
) -> Result<(), TranslateError> {
    match value {
        KernelRelocationValue::PerCpuVariableAddress {
            variable_id: _,
            section_offset,
        } => {
            let base = cx.layout().options.per_cpu_base.ok_or_else(|| {
                cx.unsupported(
                    "per-CPU kernel variables on a kernel whose BTF does not say how to find \
                     this CPU's per-CPU area (task_struct.se.cfs_rq->rq and runqueues)",
                )
            })?;
            let temporary = cx.layout().state.temporary;
            let failed = code.label();
            let done = code.label();
            code.call(Helper::GetCurrentTask);
            for offset in [base.task_cfs_rq, base.cfs_rq_rq] {
                code.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
                code.alu_imm(AluOp::Add, Reg::R3, offset as i32);
                code.state_pointer(Reg::R1, temporary);
                code.emit(Insn::mov64_imm(Reg::R2, 8));
                code.call(Helper::ProbeReadKernel);
                code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, failed);
                code.load_state(Reg::R0, temporary);
            }
            let displacement = i64::from(section_offset) - i64::from(base.runqueues);
            code.load_constant(Reg::R1, displacement as u64);
            code.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
            code.asm.ja_to(done);
            code.bind(failed);
            code.emit(Insn::mov64_imm(Reg::R0, 0));
            code.bind(done);
        }
    }
    Ok(())
}

fn translate_constant(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    translation: &DifoTranslation<'_>,
    opcode: Opcode,
    instruction: Instruction,
) -> Result<(), TranslateError> {
    let rd = instruction.rd();
    match opcode {
        Opcode::Setx => {
            let index = instruction.index();
            let relocation = translation
                .difo
                .kernel_relocations
                .iter()
                .find(|relocation| relocation.integer_index == index);
            if let Some(relocation) = relocation {
                load_kernel_relocation(code, cx, relocation.value)?;
            } else {
                let value = translation
                    .difo
                    .integer_table
                    .get(index as usize)
                    .copied()
                    .unwrap_or(0);
                code.load_constant(Reg::R0, value);
            }
            code.store_dif(rd, Reg::R0);
        }
        _ => {
            let base = cx
                .layout()
                .string_tables
                .get(&translation.location)
                .copied()
                .unwrap_or(0);
            let address = TAG_CONSTANTS << TAG_SHIFT | (base as u64 + instruction.index() as u64);
            code.load_constant(Reg::R0, address);
            code.store_dif(rd, Reg::R0);
        }
    }
    Ok(())
}

/// `ldga` (`args[]`, `regs[]`, `uregs[]`) and `ldta`.
fn translate_array_load(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    instruction: Instruction,
    site: FaultSite,
) -> Result<(), TranslateError> {
    let (r1, r2, rd) = (instruction.r1(), instruction.r2(), instruction.rd());
    if opcode == Opcode::Ldta {
        code.emit(Insn::mov64_imm(Reg::R0, 0));
        code.store_dif(rd, Reg::R0);
        return Ok(());
    }
    code.load_dif(Reg::R1, r2);
    if r1 as u16 == builtin_array::ARGS {
        load_argument_by_index(code, cx, Reg::R1, site)?;
    } else if r1 as u16 == builtin_array::REGS || r1 as u16 == builtin_array::UREGS {
        load_register(code, cx, r1 as u16 == builtin_array::UREGS, site);
    } else {
        // User scalar arrays are not stored by the engines; the interpreter faults.
        code.fault(
            cx.fault_exit,
            FaultCode::IllegalOperation,
            FaultValue::Register(Reg::R1),
            site,
        );
        return Ok(());
    }
    code.store_dif(rd, Reg::R0);
    Ok(())
}

fn load_kind(opcode: Opcode) -> (u32, bool, Access) {
    match opcode {
        Opcode::Ldsb => (1, true, Access::Kernel),
        Opcode::Ldsh => (2, true, Access::Kernel),
        Opcode::Ldsw => (4, true, Access::Kernel),
        Opcode::Ldub => (1, false, Access::Kernel),
        Opcode::Lduh => (2, false, Access::Kernel),
        Opcode::Lduw => (4, false, Access::Kernel),
        Opcode::Ldx => (8, false, Access::Kernel),
        Opcode::Uldsb => (1, true, Access::User),
        Opcode::Uldsh => (2, true, Access::User),
        Opcode::Uldsw => (4, true, Access::User),
        Opcode::Uldub => (1, false, Access::User),
        Opcode::Ulduh => (2, false, Access::User),
        Opcode::Ulduw => (4, false, Access::User),
        Opcode::Uldx => (8, false, Access::User),
        Opcode::Rldsb => (1, true, Access::Restricted),
        Opcode::Rldsh => (2, true, Access::Restricted),
        Opcode::Rldsw => (4, true, Access::Restricted),
        Opcode::Rldub => (1, false, Access::Restricted),
        Opcode::Rlduh => (2, false, Access::Restricted),
        Opcode::Rlduw => (4, false, Access::Restricted),
        _ => (8, false, Access::Restricted),
    }
}

/// `pushtv` and `pushtr`: the entry goes at the next fixed place; a full stack faults.
fn push_tuple(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    opcode: Opcode,
    instruction: Instruction,
    shape: &[EntryKind],
    site: FaultSite,
) {
    if shape.len() >= difvm::isa::DIF_TUPLE_STACK_DEPTH {
        code.fault(
            cx.fault_exit,
            FaultCode::TupleOverflow,
            FaultValue::Constant(0),
            site,
        );
        return;
    }
    let entry = tuple_entry(cx.layout(), shape.len());
    let (r2, rd) = (instruction.r2(), instruction.rd());
    if opcode == Opcode::Pushtv {
        code.load_dif(Reg::R0, rd);
        code.store_state(entry, Reg::R0);
        code.store_state_imm(entry + 8, 0);
        return;
    }
    code.load_dif(SAVED_1, rd);
    code.store_state(entry, SAVED_1);
    code.load_dif(Reg::R0, r2);
    if instruction.r1() == DIF_TYPE_STRING {
        // The entry's size is the string's length plus the NUL, read with the pushed size
        // (0 or more than strsize meaning strsize) as the bound. The compiler pushes
        // `%r0`, whose size is strsize: a run-time bound would then be one the kernel's
        // verifier knows, and the clamp to it code that it finds dead and removes with a
        // pass over the whole program, at every key.
        let strsize = cx.layout().options.strsize;
        if r2 == 0 {
            let buffer = cx.layout().state.string_buffers;
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
            code.alu_imm(AluOp::Add, Reg::R0, 1);
            code.store_state(entry + 8, Reg::R0);
            return;
        }
        let bounded = code.label();
        let whole = code.label();
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, whole);
        code.asm
            .jmp_imm_to(JmpOp::Gt, Reg::R0, strsize as i32, whole);
        code.asm.ja_to(bounded);
        code.bind(whole);
        code.emit(Insn::mov64_imm(Reg::R0, strsize as i32));
        code.bind(bounded);
        code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
        let buffer = cx.layout().state.string_buffers;
        read_string(
            code,
            cx,
            SAVED_1,
            strsize,
            Some(SPILL_0),
            StringDestination::State(buffer),
            Access::Kernel,
            site,
        );
        code.alu_imm(AluOp::Add, Reg::R0, 1);
        code.store_state(entry + 8, Reg::R0);
    } else {
        code.fault_if_imm(
            cx.fault_exit,
            JmpOp::Gt,
            Reg::R0,
            MAX_OBJECT_SIZE as i32,
            FaultCode::BadSize,
            FaultValue::Register(Reg::R0),
            site,
        );
        code.store_state(entry + 8, Reg::R0);
    }
}

/// `copys r1, r2, rd`: copies `r2` bytes from `r1` into scratch at `rd`.
fn copy_into_scratch(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    r1: u8,
    r2: u8,
    rd: u8,
    site: FaultSite,
) {
    code.load_dif(SAVED_1, rd);
    code.load_dif(Reg::R4, r2);
    copy_extent_into_scratch(
        code,
        cx,
        |code| code.load_dif(SAVED_1, r1),
        Access::Kernel,
        site,
    );
}

/// Which result of a signed division is wanted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SignedDivision {
    Quotient,
    Remainder,
}

/// `r0 = r0 / r1` or `r0 % r1`, signed, truncating toward zero (the remainder takes the
/// dividend's sign), with `r1` known to be non-zero; clobbers r1 and r2. eBPF's signed
/// division and modulo only exist from Linux 6.6 on (cpu v4), and a kernel before that
/// refuses the whole program, so the magnitudes are divided unsigned and the sign put
/// back. `i64::MIN / -1` gives `i64::MIN` and `i64::MIN % -1` gives 0, the wrapping
/// results the interpreter gives.
fn signed_division(code: &mut ProgramCode, wanted: SignedDivision) {
    let negate = |code: &mut ProgramCode, register: Reg| {
        code.alu_imm(AluOp::Xor, register, -1);
        code.alu_imm(AluOp::Add, register, 1);
    };
    // r2 says whether the result is negative.
    code.emit(Insn::mov64_imm(Reg::R2, 0));
    let dividend_positive = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Sge, Reg::R0, 0, dividend_positive);
    negate(code, Reg::R0);
    code.alu_imm(AluOp::Xor, Reg::R2, 1);
    code.bind(dividend_positive);
    let divisor_positive = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Sge, Reg::R1, 0, divisor_positive);
    negate(code, Reg::R1);
    if wanted == SignedDivision::Quotient {
        code.alu_imm(AluOp::Xor, Reg::R2, 1);
    }
    code.bind(divisor_positive);
    let operation = match wanted {
        SignedDivision::Quotient => AluOp::Div,
        SignedDivision::Remainder => AluOp::Mod,
    };
    code.alu_reg(operation, Reg::R0, Reg::R1);
    let done = code.label();
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, done);
    negate(code, Reg::R0);
    code.bind(done);
}
