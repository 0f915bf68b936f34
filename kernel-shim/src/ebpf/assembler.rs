//! A label-and-fixup assembler, so that a translator can emit jumps to code it has not
//! emitted yet.
//!
//! Jumps, BPF-to-BPF calls and function-address loads name a `Label`; `bind` fixes the label
//! to the next instruction slot; `finish` patches every reference with the slot distance the
//! encoding wants (`target - (slot + 1)`), relaxing jumps too long for the kernel's 16-bit
//! offset into `gotol` sequences, and fails, without panicking, on a label never bound.

use std::fmt;

use super::insn::{Insn, JmpOp, Reg};
use super::opcode::{BPF_JA, BPF_JMP, BPF_PSEUDO_FUNC};

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

/// The longest distance left in a jump's 16-bit offset; longer jumps are relaxed. It is
/// a quarter of what the offset holds because the kernel's verifier rewrites the program
/// after checking it (inlined helpers and map lookups, zero extensions, context accesses)
/// and refuses it ("insn N cannot be patched due to 16-bit range") when the rewriting
/// pushes a jump's distance past the offset.
const LONGEST_OFFSET_JUMP: i64 = i16::MAX as i64 / 4;

/// Whether `instruction` is `goto` (which relaxes to `gotol` in place).
fn is_unconditional_jump(instruction: Insn) -> bool {
    instruction.code == BPF_JMP | BPF_JA
}

/// Whether the running kernel takes `gotol` (`BPF_JMP32 | BPF_JA`, Linux 6.4 and later),
/// read once from uname(2)'s release. An older kernel (the 6.1 the guest test boots)
/// refuses the instruction as an unknown opcode, so there jumps stay in their 16-bit
/// offsets and a program whose jumps do not fit is refused by `finish` with its own
/// message, as before long jumps existed.
fn kernel_takes_long_jumps() -> bool {
    static TAKES_LONG_JUMPS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TAKES_LONG_JUMPS.get_or_init(|| {
        let mut name: libc::utsname = unsafe { std::mem::zeroed() };
        // SAFETY: uname fills the structure it is given.
        if unsafe { libc::uname(&mut name) } != 0 {
            return false;
        }
        // SAFETY: the release is a NUL-terminated string inside the structure.
        let release = unsafe { std::ffi::CStr::from_ptr(name.release.as_ptr()) };
        release_takes_long_jumps(&release.to_string_lossy())
    })
}

/// Whether a kernel release string (`6.18.44-…`, `6.1.0-56-cloud-amd64`) is 6.4 or later.
pub(super) fn release_takes_long_jumps(release: &str) -> bool {
    let mut numbers = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|part| part.parse::<u32>().unwrap_or(0));
    let major = numbers.next().unwrap_or(0);
    let minor = numbers.next().unwrap_or(0);
    (major, minor) >= (6, 4)
}

/// Collects instructions and resolves label references when finished.
#[derive(Debug)]
pub struct Assembler {
    instructions: Vec<Insn>,
    label_positions: Vec<Option<usize>>,
    fixups: Vec<Fixup>,
    first_error: Option<AssembleError>,
    /// Whether jumps too long for their offset may be relaxed into `gotol`.
    long_jumps: bool,
}

impl Default for Assembler {
    fn default() -> Assembler {
        Assembler::with_long_jumps(kernel_takes_long_jumps())
    }
}

impl Assembler {
    /// An assembler for the running kernel (long jumps where it takes them).
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// An assembler that relaxes long jumps into `gotol` or, without `long_jumps`, keeps
    /// every jump in its 16-bit offset.
    pub fn with_long_jumps(long_jumps: bool) -> Assembler {
        Assembler {
            instructions: Vec::new(),
            label_positions: Vec::new(),
            fixups: Vec::new(),
            first_error: None,
            long_jumps,
        }
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
    ///
    /// A jump whose distance is longer than [`LONGEST_OFFSET_JUMP`] is relaxed: an unconditional
    /// one becomes a `gotol` (32-bit distance in the immediate), a conditional one
    /// `if cond goto +1; goto +1; gotol label`, which keeps the condition as it is (no
    /// inverse is needed, so `JSET` relaxes too). Relaxing a jump lengthens the code it
    /// spans, so the long jumps are found again until none is added.
    pub fn finish(self) -> Result<Vec<Insn>, AssembleError> {
        self.finish_moving(&mut [])
    }

    /// [`Self::finish`], turning the slots in `slots` (positions taken while emitting)
    /// into where their instructions end up once long jumps are relaxed.
    pub fn finish_moving(self, slots: &mut [usize]) -> Result<Vec<Insn>, AssembleError> {
        if let Some(error) = self.first_error {
            return Err(error);
        }
        let mut targets = Vec::with_capacity(self.fixups.len());
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
            targets.push(target);
        }
        let mut long = vec![false; self.fixups.len()];
        let positions = loop {
            let positions = self.relaxed_positions(&long);
            let mut added = false;
            for (index, fixup) in self.fixups.iter().enumerate() {
                if fixup.field != FixupField::Offset || long[index] || !self.long_jumps {
                    continue;
                }
                let distance =
                    positions[targets[index]] as i64 - (positions[fixup.slot] as i64 + 1);
                if distance.abs() > LONGEST_OFFSET_JUMP {
                    long[index] = true;
                    added = true;
                }
            }
            if !added {
                break positions;
            }
        };
        for slot in slots.iter_mut() {
            *slot = positions[(*slot).min(self.instructions.len())];
        }
        let mut fixup_at = vec![None; self.instructions.len()];
        for (index, fixup) in self.fixups.iter().enumerate() {
            fixup_at[fixup.slot] = Some(index);
        }
        let mut instructions = Vec::with_capacity(positions[self.instructions.len()]);
        for (slot, &instruction) in self.instructions.iter().enumerate() {
            let Some(index) = fixup_at[slot] else {
                instructions.push(instruction);
                continue;
            };
            let fixup = self.fixups[index];
            let target = positions[targets[index]] as i64;
            let here = positions[slot] as i64;
            let mut instruction = instruction;
            let out_of_range = |distance: i64| AssembleError::JumpOutOfRange { slot, distance };
            match fixup.field {
                FixupField::Immediate => {
                    let distance = target - (here + 1);
                    instruction.imm =
                        i32::try_from(distance).map_err(|_| out_of_range(distance))?;
                    instructions.push(instruction);
                }
                FixupField::Offset if !long[index] => {
                    let distance = target - (here + 1);
                    instruction.off =
                        i16::try_from(distance).map_err(|_| out_of_range(distance))?;
                    instructions.push(instruction);
                }
                FixupField::Offset if is_unconditional_jump(instruction) => {
                    let distance = target - (here + 1);
                    let imm = i32::try_from(distance).map_err(|_| out_of_range(distance))?;
                    instructions.push(Insn::gotol(imm));
                }
                FixupField::Offset => {
                    let distance = target - (here + 3);
                    let imm = i32::try_from(distance).map_err(|_| out_of_range(distance))?;
                    instruction.off = 1;
                    instructions.push(instruction);
                    instructions.push(Insn::ja(1));
                    instructions.push(Insn::gotol(imm));
                }
            }
        }
        Ok(instructions)
    }

    /// The slot every original slot (and the end, at index `len`) moves to when the
    /// conditional jumps marked in `long` take three slots.
    fn relaxed_positions(&self, long: &[bool]) -> Vec<usize> {
        let mut growth = vec![0usize; self.instructions.len()];
        for (index, fixup) in self.fixups.iter().enumerate() {
            if long[index] && !is_unconditional_jump(self.instructions[fixup.slot]) {
                growth[fixup.slot] = 2;
            }
        }
        let mut positions = Vec::with_capacity(self.instructions.len() + 1);
        let mut position = 0;
        for extra in growth {
            positions.push(position);
            position += 1 + extra;
        }
        positions.push(position);
        positions
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
