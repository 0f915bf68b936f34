//! The nesting guard of a probe's program: which of its CPU's work areas it takes, and
//! when one of our programs that interrupted another must not run.
//!
//! Each CPU has [`WORK_AREAS_PER_CPU`] work areas, one per context that can interrupt
//! another (task, softirq, hardirq, NMI). A program takes the first area whose nesting
//! word is 0 and writes its [`NestingFootprint`] there while it runs, so that one of ours
//! interrupting another (a `profile` probe's program in a hard interrupt during a
//! `syscall` probe's) runs in an area of its own instead of being dropped.
//!
//! DTrace runs a clause with interrupts disabled, so no other clause runs between its
//! reads and writes of shared state. An interrupting program would break that for the
//! state both touch (a global read, incremented and stored back by both, an aggregation
//! entry both update), so a program that finds an area in use by a program whose
//! footprint conflicts with its own counts [`COUNTER_NESTING_DROPS`] and does nothing,
//! as it does when every area is in use. Footprints are 31-bit sets of hashed shared
//! objects (global, thread-local and associative variables, aggregations, speculations),
//! so an unlucky hash only costs the drop the guard always made before areas were per
//! level; a program that stores through pointers may write any of them.

use difvm::isa::{builtin_array, builtin_variable, Opcode};
use difvm::object::{ActionKind, CompiledProgram};

use super::code::ProgramCode;
use super::registers::{MAP_KEY, SAVED_0, STATE};
use crate::ebpf::{AluOp, AtomicOp, Helper, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::{
    program_difos, MapFds, ProgramLayout, COUNTER_NESTING_DROPS, WORK_AREAS_PER_CPU,
};

/// Bits of a footprint: object hashes modulo 31, so that a footprint and the busy bit
/// fit the 32-bit halves of the nesting word.
const FOOTPRINT_BITS: u32 = 31;
/// Every object.
const EVERYTHING: u32 = (1 << FOOTPRINT_BITS) - 1;

/// The shared objects a probe's statements touch (`accessed`, writes included) and
/// write, as bit sets of [`object_bit`]s.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NestingFootprint {
    pub accessed: u32,
    pub written: u32,
}

/// The kinds of shared object, for [`object_bit`].
#[derive(Clone, Copy)]
enum SharedObject {
    Global = 0,
    ThreadLocal = 1,
    GlobalAssociative = 2,
    ThreadAssociative = 3,
    Aggregation = 4,
    Speculations = 5,
}

/// The footprint bit of object `id` of `kind`.
fn object_bit(kind: SharedObject, id: u32) -> u32 {
    1 << ((kind as u32 * 7 + id) % FOOTPRINT_BITS)
}

impl NestingFootprint {
    /// The footprint of `statements` of `program`.
    pub fn of_statements(program: &CompiledProgram, statements: &[usize]) -> NestingFootprint {
        let mut footprint = NestingFootprint::default();
        for (location, difo) in program_difos(program) {
            if !statements.contains(&location.statement) {
                continue;
            }
            for instruction in &difo.code {
                let id = u32::from(instruction.index());
                let user_global = id >= u32::from(builtin_variable::FIRST_USER);
                match instruction.opcode() {
                    Some(Opcode::Ldgs) if user_global => footprint.access(SharedObject::Global, id),
                    Some(Opcode::Stgs) => footprint.write(SharedObject::Global, id),
                    Some(Opcode::Ldga) => {
                        let array = u32::from(instruction.r1());
                        if array >= u32::from(builtin_array::FIRST_USER) {
                            footprint.access(SharedObject::Global, array);
                        }
                    }
                    Some(Opcode::Ldts | Opcode::Ldta) => {
                        footprint.access(SharedObject::ThreadLocal, id)
                    }
                    Some(Opcode::Stts) => footprint.write(SharedObject::ThreadLocal, id),
                    Some(Opcode::Ldgaa) => footprint.access(SharedObject::GlobalAssociative, id),
                    Some(Opcode::Stgaa) => footprint.write(SharedObject::GlobalAssociative, id),
                    Some(Opcode::Ldtaa) => footprint.access(SharedObject::ThreadAssociative, id),
                    Some(Opcode::Sttaa) => footprint.write(SharedObject::ThreadAssociative, id),
                    // A store through a pointer may reach any variable by reference.
                    Some(Opcode::Stb | Opcode::Sth | Opcode::Stw | Opcode::Stx | Opcode::Copys) => {
                        footprint.accessed = EVERYTHING;
                        footprint.written = EVERYTHING;
                    }
                    _ => {}
                }
            }
        }
        for &statement in statements {
            for action in &program.statements[statement].actions {
                match action.kind {
                    ActionKind::Aggregate { aggregation } => {
                        footprint.write(SharedObject::Aggregation, aggregation)
                    }
                    ActionKind::Speculate | ActionKind::Commit | ActionKind::Discard => {
                        footprint.write(SharedObject::Speculations, 0)
                    }
                    _ => {}
                }
            }
        }
        footprint
    }

    fn access(&mut self, kind: SharedObject, id: u32) {
        self.accessed |= object_bit(kind, id);
    }

    fn write(&mut self, kind: SharedObject, id: u32) {
        self.access(kind, id);
        self.written |= object_bit(kind, id);
    }

    /// The nesting word of an area in use by a program of this footprint: the busy bit
    /// (63), the written set in bits 32–62, the accessed set in bits 0–30. Never 0.
    pub fn nesting_word(&self) -> u64 {
        1 << 63 | u64::from(self.written) << 32 | u64::from(self.accessed)
    }
}

/// r7 = the first of this CPU's work areas that no program uses, marked in use by a
/// program of `footprint`; counts a nesting drop and jumps to `leave` when every area is
/// in use, when one is in use by a program whose footprint conflicts, or when a lookup
/// fails. Clobbers r0–r5 and r8.
///
/// Our programs on one CPU nest strictly: one that interrupts another (in a softirq, a
/// hard interrupt, an NMI) finishes before the interrupted one resumes, and leaves the
/// area it took free again. So the areas in use are always a prefix of the CPU's, one
/// per interrupted program, and a plain check-and-set taken in order would already be
/// enough: a program interrupted between its check and its set still finds the area free
/// when it resumes. The compare-and-exchange costs a few cycles more and keeps two
/// programs out of one area even on a kernel that lets a program be preempted (migration
/// stays disabled, so the CPU, and with it the key, stays right), where nesting is no
/// longer last in, first out.
pub fn emit_work_area_claim(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    maps: &MapFds,
    footprint: NestingFootprint,
    leave: Label,
) {
    let claimed = code.label();
    let refused = code.label();
    code.call(Helper::GetSmpProcessorId);
    code.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
    code.alu_imm(AluOp::Mul, SAVED_0, WORK_AREAS_PER_CPU as i32);
    for level in 0..WORK_AREAS_PER_CPU {
        if level > 0 {
            code.alu_imm(AluOp::Add, SAVED_0, 1);
        }
        code.emit(Insn::stx_mem(MemSize::W, Reg::FP, SAVED_0, MAP_KEY));
        code.emit_all(&Insn::ld_map_fd(Reg::R1, maps.state));
        code.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
        code.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
        code.call(Helper::MapLookupElem);
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, leave);
        code.emit(Insn::mov64_reg(STATE, Reg::R0));
        code.emit(Insn::mov64_imm(Reg::R0, 0));
        code.emit_all(&Insn::ld_imm64(Reg::R1, footprint.nesting_word()));
        code.emit(Insn::atomic(
            MemSize::DW,
            AtomicOp::CmpXchg,
            STATE,
            Reg::R1,
            layout.state.nesting as i16,
        ));
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, claimed);
        // r0: the nesting word of the program using this area.
        if footprint.accessed != 0 {
            code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
            code.alu_imm(AluOp::Rsh, Reg::R1, 32);
            code.alu_imm(AluOp::And, Reg::R1, footprint.accessed as i32);
            code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, refused);
        }
        if footprint.written != 0 {
            code.alu_imm(AluOp::And, Reg::R0, footprint.written as i32);
            code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, refused);
        }
    }
    code.bind(refused);
    code.count(COUNTER_NESTING_DROPS);
    code.asm.ja_to(leave);
    code.bind(claimed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_words_are_never_zero_and_keep_the_sets_apart() {
        let footprint = NestingFootprint {
            accessed: EVERYTHING,
            written: 1,
        };
        assert_eq!(footprint.nesting_word(), 1 << 63 | 1 << 32 | 0x7fff_ffff);
        assert_ne!(NestingFootprint::default().nesting_word(), 0);
        let aggregations: Vec<u32> = (1..=8)
            .map(|id| object_bit(SharedObject::Aggregation, id))
            .collect();
        assert!(aggregations.iter().all(|bit| bit.count_ones() == 1));
        assert_eq!(
            aggregations
                .iter()
                .fold(0, |all, bit| all | bit)
                .count_ones(),
            8
        );
    }
}
