//! One DIFO, instruction by instruction: arithmetic and logic (division by zero faults),
//! comparisons and forward branches, sized loads with sign extension, stores into
//! scratch, `setx`/`sets`, `allocs`/`copys`, the tuple stack, and dispatch to the
//! variable, built-in and subroutine translations. The DIFO's result is left in r8.

use difvm::difo::Difo;
use difvm::engine::MAX_OBJECT_SIZE;
use difvm::isa::{builtin_array, Instruction, Opcode, DIF_TYPE_STRING};
use difvm::object::FaultCode;

use super::emitter::{Emitter, FaultSite, FaultValue};
use super::layout::{DifoLocation, TAG_CONSTANTS, TAG_SHIFT};
use super::memory::{Access, ScratchSize, StringDestination, WriteSize};
use super::registers::{CONDITION_LEFT, CONDITION_RIGHT, SAVED_0, SAVED_1, SPILL_0};
use super::tuples::{tuple_shapes, EntryKind, Shape};
use super::TranslateError;
use crate::ebpf::{AluOp, Insn, JmpOp, Label, MemSize, Reg};

/// What a DIFO translation needs beyond the emitter.
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
        emitter: &Emitter<'_>,
        index: usize,
    ) -> Result<Vec<EntryKind>, TranslateError> {
        match self.shapes.get(index) {
            Some(Shape::Known(entries)) => Ok(entries.clone()),
            _ => Err(emitter.unsupported(format!(
                "a tuple stack whose entries differ between paths (DIF offset {})",
                index * 4
            ))),
        }
    }
}

/// Translates `difo`; on return (through `ret`) its value is in r8.
pub fn translate_difo(
    emitter: &mut Emitter<'_>,
    difo: &Difo,
    location: DifoLocation,
) -> Result<(), TranslateError> {
    let labels = (0..difo.code.len()).map(|_| emitter.label()).collect();
    let end = emitter.label();
    let mut translation = DifoTranslation {
        difo,
        location,
        labels,
        shapes: tuple_shapes(difo),
        end,
    };
    emitter.clear_dif_registers();
    emitter.emit(Insn::st_mem(MemSize::DW, Reg::FP, CONDITION_LEFT, 0));
    emitter.emit(Insn::st_mem(MemSize::DW, Reg::FP, CONDITION_RIGHT, 0));
    emitter.emit(Insn::mov64_imm(SAVED_0, 0));
    for (index, instruction) in difo.code.iter().enumerate() {
        let label = translation.labels[index];
        emitter.bind(label);
        if translation.shapes[index] == Shape::Unreached {
            // Unreachable code still needs its label bound; nothing jumps into it.
            continue;
        }
        translate_instruction(emitter, &mut translation, index, *instruction)?;
    }
    emitter.bind(translation.end);
    Ok(())
}

fn translate_instruction(
    emitter: &mut Emitter<'_>,
    translation: &mut DifoTranslation<'_>,
    index: usize,
    instruction: Instruction,
) -> Result<(), TranslateError> {
    let site = FaultSite::Instruction(index);
    let Some(opcode) = instruction.opcode() else {
        emitter.fault(
            FaultCode::IllegalOperation,
            FaultValue::Constant(instruction.opcode_byte() as i32),
            site,
        );
        return Ok(());
    };
    let (r1, r2, rd) = (instruction.r1(), instruction.r2(), instruction.rd());
    match opcode {
        Opcode::Or
        | Opcode::Xor
        | Opcode::And
        | Opcode::Sll
        | Opcode::Srl
        | Opcode::Sra
        | Opcode::Sub
        | Opcode::Add
        | Opcode::Mul => {
            emitter.load_dif(Reg::R0, r1);
            emitter.load_dif(Reg::R1, r2);
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
                emitter.alu_imm(AluOp::And, Reg::R1, 63);
            }
            emitter.alu_reg(op, Reg::R0, Reg::R1);
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Sdiv | Opcode::Udiv | Opcode::Srem | Opcode::Urem => {
            emitter.load_dif(Reg::R0, r1);
            emitter.load_dif(Reg::R1, r2);
            let nonzero = emitter.label();
            emitter.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, nonzero);
            // The interpreter clears the destination before faulting.
            emitter.emit(Insn::mov64_imm(Reg::R2, 0));
            emitter.store_dif(rd, Reg::R2);
            emitter.fault(FaultCode::DivideByZero, FaultValue::Constant(0), site);
            emitter.bind(nonzero);
            match opcode {
                Opcode::Sdiv => signed_division(emitter, SignedDivision::Quotient),
                Opcode::Srem => signed_division(emitter, SignedDivision::Remainder),
                Opcode::Udiv => emitter.alu_reg(AluOp::Div, Reg::R0, Reg::R1),
                _ => emitter.alu_reg(AluOp::Mod, Reg::R0, Reg::R1),
            }
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Not => {
            emitter.load_dif(Reg::R0, r1);
            emitter.alu_imm(AluOp::Xor, Reg::R0, -1);
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Mov => {
            emitter.load_dif(Reg::R0, r1);
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Cmp => {
            emitter.load_dif(Reg::R0, r1);
            emitter.load_dif(Reg::R1, r2);
            emitter.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, CONDITION_LEFT));
            emitter.emit(Insn::stx_mem(
                MemSize::DW,
                Reg::FP,
                Reg::R1,
                CONDITION_RIGHT,
            ));
        }
        Opcode::Tst => {
            let zero = emitter.label();
            emitter.load_dif(Reg::R0, r1);
            emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, zero);
            emitter.emit(Insn::mov64_imm(Reg::R0, 1));
            emitter.bind(zero);
            emitter.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, CONDITION_LEFT));
            emitter.emit(Insn::st_mem(MemSize::DW, Reg::FP, CONDITION_RIGHT, 0));
        }
        Opcode::Scmp => {
            emitter.compare_strings(r1, r2, site);
            emitter.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, CONDITION_LEFT));
            emitter.emit(Insn::st_mem(MemSize::DW, Reg::FP, CONDITION_RIGHT, 0));
        }
        Opcode::Ba => {
            let target = translation.labels[instruction.label() as usize];
            emitter.asm.ja_to(target);
        }
        Opcode::Be
        | Opcode::Bne
        | Opcode::Bg
        | Opcode::Bgu
        | Opcode::Bge
        | Opcode::Bgeu
        | Opcode::Bl
        | Opcode::Blu
        | Opcode::Ble
        | Opcode::Bleu => {
            let target = translation.labels[instruction.label() as usize];
            emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::FP, CONDITION_LEFT));
            emitter.emit(Insn::ldx_mem(
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
                Some(op) => emitter.asm.jmp_reg_to(op, Reg::R0, Reg::R1, target),
                None => {
                    // Signed branches test the sign of the difference (overflow is clear).
                    emitter.alu_reg(AluOp::Sub, Reg::R0, Reg::R1);
                    let op = match opcode {
                        Opcode::Bg => JmpOp::Sgt,
                        Opcode::Bge => JmpOp::Sge,
                        Opcode::Bl => JmpOp::Slt,
                        _ => JmpOp::Sle,
                    };
                    emitter.asm.jmp_imm_to(op, Reg::R0, 0, target);
                }
            }
        }
        Opcode::Ldsb
        | Opcode::Ldsh
        | Opcode::Ldsw
        | Opcode::Ldub
        | Opcode::Lduh
        | Opcode::Lduw
        | Opcode::Ldx
        | Opcode::Uldsb
        | Opcode::Uldsh
        | Opcode::Uldsw
        | Opcode::Uldub
        | Opcode::Ulduh
        | Opcode::Ulduw
        | Opcode::Uldx
        | Opcode::Rldsb
        | Opcode::Rldsh
        | Opcode::Rldsw
        | Opcode::Rldub
        | Opcode::Rlduh
        | Opcode::Rlduw
        | Opcode::Rldx => {
            let (size, signed, access) = load_kind(opcode);
            emitter.load_dif(SAVED_1, r1);
            if access != Access::User && size > 1 {
                emitter.emit(Insn::mov64_reg(Reg::R0, SAVED_1));
                emitter.alu_imm(AluOp::And, Reg::R0, size as i32 - 1);
                emitter.fault_if_imm(
                    JmpOp::Ne,
                    Reg::R0,
                    0,
                    FaultCode::BadAlignment,
                    FaultValue::Register(SAVED_1),
                    site,
                );
            }
            emitter.load_memory(SAVED_1, size, access, site);
            if signed && size < 8 {
                let shift = 64 - 8 * size as i32;
                emitter.alu_imm(AluOp::Lsh, Reg::R0, shift);
                emitter.alu_imm(AluOp::Arsh, Reg::R0, shift);
            }
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Stb | Opcode::Sth | Opcode::Stw | Opcode::Stx => {
            let size = match opcode {
                Opcode::Stb => 1,
                Opcode::Sth => 2,
                Opcode::Stw => 4,
                _ => 8,
            };
            emitter.load_dif(SAVED_1, rd);
            if size > 1 {
                emitter.emit(Insn::mov64_reg(Reg::R0, SAVED_1));
                emitter.alu_imm(AluOp::And, Reg::R0, size as i32 - 1);
                emitter.fault_if_imm(
                    JmpOp::Ne,
                    Reg::R0,
                    0,
                    FaultCode::BadAlignment,
                    FaultValue::Register(SAVED_1),
                    site,
                );
            }
            emitter.writable_scratch(SAVED_1, WriteSize::Constant(size), SAVED_0, site);
            emitter.load_dif(Reg::R0, r1);
            let memory_size = MemSize::from_bytes(size as usize).unwrap_or(MemSize::DW);
            emitter.emit(Insn::stx_mem(memory_size, SAVED_0, Reg::R0, 0));
            emitter.emit(Insn::mov64_imm(SAVED_0, 0));
        }
        Opcode::Ret => {
            emitter.load_dif(SAVED_0, rd);
            emitter.asm.ja_to(translation.end);
        }
        Opcode::Nop => {}
        Opcode::Setx => {
            let value = translation
                .difo
                .integer_table
                .get(instruction.index() as usize)
                .copied()
                .unwrap_or(0);
            emitter.load_constant(Reg::R0, value);
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Sets => {
            let base = emitter
                .layout
                .string_tables
                .get(&translation.location)
                .copied()
                .unwrap_or(0);
            let address = TAG_CONSTANTS << TAG_SHIFT | (base as u64 + instruction.index() as u64);
            emitter.load_constant(Reg::R0, address);
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Ldga => {
            emitter.load_dif(Reg::R1, r2);
            if r1 as u16 == builtin_array::ARGS {
                emitter.load_argument_by_index(Reg::R1, site);
            } else if r1 as u16 == builtin_array::REGS || r1 as u16 == builtin_array::UREGS {
                emitter.load_register(r1 as u16 == builtin_array::UREGS, site);
            } else {
                // User scalar arrays are not stored by the engines; the interpreter faults.
                emitter.fault(
                    FaultCode::IllegalOperation,
                    FaultValue::Register(Reg::R1),
                    site,
                );
                return Ok(());
            }
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Ldta => {
            emitter.emit(Insn::mov64_imm(Reg::R0, 0));
            emitter.store_dif(rd, Reg::R0);
        }
        Opcode::Ldgs | Opcode::Ldts | Opcode::Ldls => {
            emitter.load_variable(opcode, instruction.index(), rd, site)?;
        }
        Opcode::Stgs | Opcode::Stts | Opcode::Stls => {
            emitter.store_variable(opcode, instruction.index(), rd, site)?;
        }
        Opcode::Ldgaa | Opcode::Ldtaa | Opcode::Stgaa | Opcode::Sttaa => {
            let shape = translation.shape(emitter, index)?;
            emitter.access_associative(opcode, instruction.index(), rd, &shape, site)?;
        }
        Opcode::Call => {
            let shape = translation.shape(emitter, index)?;
            emitter.call_subroutine(instruction.index(), rd, &shape, site)?;
        }
        Opcode::Pushtv | Opcode::Pushtr => {
            let shape = translation.shape(emitter, index)?;
            push_tuple(emitter, opcode, instruction, &shape, site);
        }
        Opcode::Popts | Opcode::Flushts => {
            // Entries live at fixed places; the static shape tracks the stack's depth.
        }
        Opcode::Allocs => {
            emitter.load_dif(Reg::R0, r1);
            emitter.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
            emitter.allocate_scratch(ScratchSize::Slot(SPILL_0), site);
            emitter.scratch_address(Reg::R1, Reg::R0);
            emitter.store_dif(rd, Reg::R1);
        }
        Opcode::Copys => {
            copy_into_scratch(emitter, r1, r2, rd, site);
        }
        Opcode::Xlate | Opcode::Xlarg => {
            emitter.fault(
                FaultCode::IllegalOperation,
                FaultValue::Constant(instruction.index() as i32),
                site,
            );
        }
    }
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

/// Work-area offset of tuple entry `position`'s (value, size) words.
pub fn tuple_entry(emitter: &Emitter<'_>, position: usize) -> u32 {
    emitter.layout.state.tuples + 24 * position as u32
}

/// `pushtv` and `pushtr`: the entry goes at the next fixed place; a full stack faults.
fn push_tuple(
    emitter: &mut Emitter<'_>,
    opcode: Opcode,
    instruction: Instruction,
    shape: &[EntryKind],
    site: FaultSite,
) {
    if shape.len() >= difvm::isa::DIF_TUPLE_STACK_DEPTH {
        emitter.fault(FaultCode::TupleOverflow, FaultValue::Constant(0), site);
        return;
    }
    let entry = tuple_entry(emitter, shape.len());
    let (r2, rd) = (instruction.r2(), instruction.rd());
    if opcode == Opcode::Pushtv {
        emitter.load_dif(Reg::R0, rd);
        emitter.store_state(entry, Reg::R0);
        emitter.store_state_imm(entry + 8, 0);
        return;
    }
    emitter.load_dif(SAVED_1, rd);
    emitter.store_state(entry, SAVED_1);
    emitter.load_dif(Reg::R0, r2);
    if instruction.r1() == DIF_TYPE_STRING {
        // The entry's size is the string's length plus the NUL, read with the pushed size
        // (0 or more than strsize meaning strsize) as the bound.
        let strsize = emitter.layout.options.strsize;
        let bounded = emitter.label();
        let whole = emitter.label();
        emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, whole);
        emitter
            .asm
            .jmp_imm_to(JmpOp::Gt, Reg::R0, strsize as i32, whole);
        emitter.asm.ja_to(bounded);
        emitter.bind(whole);
        emitter.emit(Insn::mov64_imm(Reg::R0, strsize as i32));
        emitter.bind(bounded);
        emitter.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
        let buffer = emitter.layout.state.string_buffers;
        emitter.read_string(
            SAVED_1,
            strsize,
            Some(SPILL_0),
            StringDestination::State(buffer),
            Access::Kernel,
            site,
        );
        emitter.alu_imm(AluOp::Add, Reg::R0, 1);
        emitter.store_state(entry + 8, Reg::R0);
    } else {
        emitter.fault_if_imm(
            JmpOp::Gt,
            Reg::R0,
            MAX_OBJECT_SIZE as i32,
            FaultCode::BadSize,
            FaultValue::Register(Reg::R0),
            site,
        );
        emitter.store_state(entry + 8, Reg::R0);
    }
}

/// `copys r1, r2, rd`: copies `r2` bytes from `r1` into scratch at `rd`.
fn copy_into_scratch(emitter: &mut Emitter<'_>, r1: u8, r2: u8, rd: u8, site: FaultSite) {
    emitter.load_dif(SAVED_1, rd);
    emitter.load_dif(Reg::R4, r2);
    emitter.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R4, SPILL_0));
    emitter.writable_scratch(SAVED_1, WriteSize::Register(Reg::R4), SAVED_0, site);
    let done = emitter.label();
    emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_0));
    emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, done);
    emitter.load_dif(SAVED_1, r1);
    emitter.resolve_address_extent(SAVED_1, SPILL_0, Reg::R3, Access::Kernel, site);
    emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_0));
    let scratch_size = emitter.layout.state.scratch_size;
    emitter.fault_if_imm(
        JmpOp::Gt,
        Reg::R2,
        scratch_size as i32,
        FaultCode::BadAddress,
        FaultValue::Register(SAVED_1),
        site,
    );
    emitter.mov(Reg::R1, SAVED_0);
    emitter.call(crate::ebpf::Helper::ProbeReadKernel);
    emitter.fault_if_imm(
        JmpOp::Ne,
        Reg::R0,
        0,
        FaultCode::BadAddress,
        FaultValue::Register(SAVED_1),
        site,
    );
    emitter.bind(done);
    emitter.emit(Insn::mov64_imm(SAVED_0, 0));
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
fn signed_division(emitter: &mut Emitter<'_>, wanted: SignedDivision) {
    let negate = |emitter: &mut Emitter<'_>, register: Reg| {
        emitter.alu_imm(AluOp::Xor, register, -1);
        emitter.alu_imm(AluOp::Add, register, 1);
    };
    // r2 says whether the result is negative.
    emitter.emit(Insn::mov64_imm(Reg::R2, 0));
    let dividend_positive = emitter.label();
    emitter
        .asm
        .jmp_imm_to(JmpOp::Sge, Reg::R0, 0, dividend_positive);
    negate(emitter, Reg::R0);
    emitter.alu_imm(AluOp::Xor, Reg::R2, 1);
    emitter.bind(dividend_positive);
    let divisor_positive = emitter.label();
    emitter
        .asm
        .jmp_imm_to(JmpOp::Sge, Reg::R1, 0, divisor_positive);
    negate(emitter, Reg::R1);
    if wanted == SignedDivision::Quotient {
        emitter.alu_imm(AluOp::Xor, Reg::R2, 1);
    }
    emitter.bind(divisor_positive);
    let operation = match wanted {
        SignedDivision::Quotient => AluOp::Div,
        SignedDivision::Remainder => AluOp::Mod,
    };
    emitter.alu_reg(operation, Reg::R0, Reg::R1);
    let done = emitter.label();
    emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, done);
    negate(emitter, Reg::R0);
    emitter.bind(done);
}
