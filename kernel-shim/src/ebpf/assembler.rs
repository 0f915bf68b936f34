//! A label-and-fixup assembler, so that a translator can emit jumps to code it has not
//! emitted yet.
//!
//! Jumps, BPF-to-BPF calls and function-address loads name a `Label`; `bind` fixes the label
//! to the next instruction slot; `finish` patches every reference with the slot distance the
//! encoding wants (`target - (slot + 1)`) and fails, without panicking, on a label never
//! bound or a distance that does not fit the field.

use std::fmt;

use super::insn::{Insn, JmpOp, Reg};
use super::opcode::BPF_PSEUDO_FUNC;

/// A position in the program, known now or bound later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label(usize);

/// Which field of an instruction receives a label's distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FixupField {
    /// The 16-bit offset of a jump.
    Offset,
    /// The 32-bit immediate of a BPF-to-BPF call or of a `BPF_PSEUDO_FUNC` `ld_imm64`.
    Immediate,
}

#[derive(Clone, Copy, Debug)]
struct Fixup {
    slot: usize,
    label: Label,
    field: FixupField,
}

/// Why a program could not be assembled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssembleError {
    /// A label was referenced but never bound.
    UnboundLabel { label: usize, referenced_at: usize },
    /// A label was bound twice.
    LabelBoundTwice { label: usize },
    /// A jump distance does not fit the signed 16-bit offset field.
    JumpOutOfRange { slot: usize, distance: i64 },
}

impl fmt::Display for AssembleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssembleError::UnboundLabel {
                label,
                referenced_at,
            } => write!(
                f,
                "eBPF label {label} referenced at instruction {referenced_at} was never bound"
            ),
            AssembleError::LabelBoundTwice { label } => {
                write!(f, "eBPF label {label} was bound twice")
            }
            AssembleError::JumpOutOfRange { slot, distance } => write!(
                f,
                "eBPF jump at instruction {slot} spans {distance} instructions, more than an offset can hold"
            ),
        }
    }
}

impl std::error::Error for AssembleError {}

/// Collects instructions and resolves label references when finished.
#[derive(Debug, Default)]
pub struct Assembler {
    instructions: Vec<Insn>,
    label_positions: Vec<Option<usize>>,
    fixups: Vec<Fixup>,
    first_error: Option<AssembleError>,
}

impl Assembler {
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// A fresh, unbound label.
    pub fn new_label(&mut self) -> Label {
        self.label_positions.push(None);
        Label(self.label_positions.len() - 1)
    }

    /// Binds `label` to the next slot to be emitted. Binding twice is reported by `finish`.
    pub fn bind(&mut self, label: Label) {
        let position = self.instructions.len();
        match self.label_positions.get_mut(label.0) {
            Some(slot @ None) => *slot = Some(position),
            _ => self.record_error(AssembleError::LabelBoundTwice { label: label.0 }),
        }
    }

    /// The index of the next slot to be emitted.
    pub fn position(&self) -> usize {
        self.instructions.len()
    }

    /// Appends one instruction slot.
    pub fn emit(&mut self, instruction: Insn) {
        self.instructions.push(instruction);
    }

    /// Appends several slots, e.g. the two of an `ld_imm64`.
    pub fn emit_all(&mut self, instructions: &[Insn]) {
        self.instructions.extend_from_slice(instructions);
    }

    /// `if dst OP imm goto label` (64-bit comparison).
    pub fn jmp_imm_to(&mut self, op: JmpOp, dst: Reg, imm: i32, label: Label) {
        self.emit_with_fixup(Insn::jmp_imm(op, dst, imm, 0), label, FixupField::Offset);
    }

    /// `if dst OP src goto label` (64-bit comparison).
    pub fn jmp_reg_to(&mut self, op: JmpOp, dst: Reg, src: Reg, label: Label) {
        self.emit_with_fixup(Insn::jmp_reg(op, dst, src, 0), label, FixupField::Offset);
    }

    /// `if wdst OP imm goto label` (32-bit comparison).
    pub fn jmp32_imm_to(&mut self, op: JmpOp, dst: Reg, imm: i32, label: Label) {
        self.emit_with_fixup(Insn::jmp32_imm(op, dst, imm, 0), label, FixupField::Offset);
    }

    /// `if wdst OP wsrc goto label` (32-bit comparison).
    pub fn jmp32_reg_to(&mut self, op: JmpOp, dst: Reg, src: Reg, label: Label) {
        self.emit_with_fixup(Insn::jmp32_reg(op, dst, src, 0), label, FixupField::Offset);
    }

    /// `goto label`.
    pub fn ja_to(&mut self, label: Label) {
        self.emit_with_fixup(Insn::ja(0), label, FixupField::Offset);
    }

    /// A BPF-to-BPF call of the subprogram starting at `label`.
    pub fn call_to(&mut self, label: Label) {
        self.emit_with_fixup(Insn::call_local(0), label, FixupField::Immediate);
    }

    /// `dst = &subprogram at label` (`BPF_PSEUDO_FUNC`), the callback argument of helpers
    /// such as `bpf_loop`.
    pub fn ld_function_address(&mut self, dst: Reg, label: Label) {
        let [first, second] = Insn::ld_imm64_raw(dst, BPF_PSEUDO_FUNC, 0, 0);
        self.emit_with_fixup(first, label, FixupField::Immediate);
        self.emit(second);
    }

    /// Resolves every label reference and returns the program.
    pub fn finish(self) -> Result<Vec<Insn>, AssembleError> {
        if let Some(error) = self.first_error {
            return Err(error);
        }
        let mut instructions = self.instructions;
        for fixup in &self.fixups {
            let target = self
                .label_positions
                .get(fixup.label.0)
                .copied()
                .flatten()
                .ok_or(AssembleError::UnboundLabel {
                    label: fixup.label.0,
                    referenced_at: fixup.slot,
                })?;
            let distance = target as i64 - (fixup.slot as i64 + 1);
            let instruction = &mut instructions[fixup.slot];
            match fixup.field {
                FixupField::Offset => {
                    instruction.off =
                        i16::try_from(distance).map_err(|_| AssembleError::JumpOutOfRange {
                            slot: fixup.slot,
                            distance,
                        })?;
                }
                FixupField::Immediate => {
                    instruction.imm =
                        i32::try_from(distance).map_err(|_| AssembleError::JumpOutOfRange {
                            slot: fixup.slot,
                            distance,
                        })?;
                }
            }
        }
        Ok(instructions)
    }

    fn emit_with_fixup(&mut self, instruction: Insn, label: Label, field: FixupField) {
        self.fixups.push(Fixup {
            slot: self.instructions.len(),
            label,
            field,
        });
        self.instructions.push(instruction);
    }

    fn record_error(&mut self, error: AssembleError) {
        if self.first_error.is_none() {
            self.first_error = Some(error);
        }
    }
}
