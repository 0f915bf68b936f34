//! Assembles one DIFO: the instruction list with forward labels, the integer and
//! string tables (deduplicated), the variable table with read/write flags, and the
//! allocation of registers %r1–%r7.

use std::collections::HashMap;

use difvm::difo::{
    DifType, DifVariable, Difo, KernelRelocation, KernelRelocationValue, VariableKind,
    VariableScope, DIF_VARIABLE_FLAG_READ, DIF_VARIABLE_FLAG_WRITE,
};
use difvm::isa::{Instruction, Opcode, DIF_REGISTER_COUNT};

use crate::diagnostics::{Diagnostic, ErrorTag};

/// A forward branch target, placed later with [`DifoBuilder::place`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Label(usize);

/// Whether a variable reference reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Read,
    Write,
}

/// The builder of one DIFO.
pub(super) struct DifoBuilder {
    code: Vec<Instruction>,
    /// Instructions whose branch target is a label: (instruction index, label).
    fixups: Vec<(usize, Label)>,
    labels: Vec<Option<u32>>,
    integers: Vec<u64>,
    integer_index: HashMap<u64, u16>,
    kernel_relocations: Vec<KernelRelocation>,
    strings: Vec<u8>,
    string_index: HashMap<Vec<u8>, u32>,
    variables: Vec<DifVariable>,
    /// `free[r]` is true when register `r` is available (`%r0` never is).
    free: [bool; DIF_REGISTER_COUNT as usize],
}

/// D_NOREG: no register is left (libdtrace's EDT_NOREG text, capitalised like its other
/// library errors).
pub(super) fn out_of_registers() -> Diagnostic {
    Diagnostic::without_span(ErrorTag::D_NOREG, "Insufficient registers to generate code")
}

impl DifoBuilder {
    pub(super) fn new() -> DifoBuilder {
        let mut free = [true; DIF_REGISTER_COUNT as usize];
        free[0] = false;
        DifoBuilder {
            code: Vec::new(),
            fixups: Vec::new(),
            labels: Vec::new(),
            integers: Vec::new(),
            integer_index: HashMap::new(),
            kernel_relocations: Vec::new(),
            strings: Vec::new(),
            string_index: HashMap::new(),
            variables: Vec::new(),
            free,
        }
    }

    /// Allocates the lowest free register.
    pub(super) fn allocate(&mut self) -> Result<u8, Diagnostic> {
        let register = self
            .free
            .iter()
            .position(|&free| free)
            .ok_or_else(out_of_registers)?;
        self.free[register] = false;
        Ok(register as u8)
    }

    /// Returns a register to the pool.
    pub(super) fn release(&mut self, register: u8) {
        if register != 0 {
            self.free[register as usize] = true;
        }
    }

    /// Number of free registers.
    pub(super) fn free_count(&self) -> usize {
        self.free.iter().filter(|&&free| free).count()
    }

    /// Appends an instruction.
    pub(super) fn emit(&mut self, instruction: Instruction) {
        self.code.push(instruction);
    }

    /// `op r1, r2, rd`.
    pub(super) fn emit_registers(&mut self, op: Opcode, r1: u8, r2: u8, rd: u8) {
        self.emit(Instruction::registers(op, r1, r2, rd));
    }

    /// `op index, rd` (loads, stores, setx, sets, call).
    pub(super) fn emit_indexed(&mut self, op: Opcode, index: u16, rd: u8) {
        self.emit(Instruction::indexed(op, index, rd));
    }

    /// A new, not yet placed label.
    pub(super) fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    /// Places `label` at the next instruction.
    pub(super) fn place(&mut self, label: Label) {
        self.labels[label.0] = Some(self.code.len() as u32);
    }

    /// A branch to `label` (which must be placed later: DIF branches go forward).
    pub(super) fn branch(&mut self, op: Opcode, label: Label) {
        self.fixups.push((self.code.len(), label));
        self.code.push(Instruction::branch(op, 0));
    }

    /// `rd = value`, through the integer table (`mov %r0` for zero).
    pub(super) fn set_integer(&mut self, value: u64, rd: u8) -> Result<(), Diagnostic> {
        if value == 0 {
            self.emit_registers(Opcode::Mov, 0, 0, rd);
            return Ok(());
        }
        let index = match self.integer_index.get(&value) {
            Some(&index) => index,
            None => {
                let index =
                    u16::try_from(self.integers.len()).map_err(|_| table_overflow("integer"))?;
                self.integers.push(value);
                self.integer_index.insert(value, index);
                index
            }
        };
        self.emit_indexed(Opcode::Setx, index, rd);
        Ok(())
    }

    /// `rd = value`, a constant only the engine knows: an integer-table entry of its own
    /// (0 in the table) with a kernel relocation saying what the engine supplies.
    pub(super) fn set_kernel_relocation(
        &mut self,
        value: KernelRelocationValue,
        rd: u8,
    ) -> Result<(), Diagnostic> {
        let integer_index =
            u16::try_from(self.integers.len()).map_err(|_| table_overflow("integer"))?;
        self.integers.push(0);
        self.kernel_relocations.push(KernelRelocation {
            integer_index,
            value,
        });
        self.emit_indexed(Opcode::Setx, integer_index, rd);
        Ok(())
    }

    /// The offset of `bytes` (NUL-terminated) in the string table.
    pub(super) fn string_offset(&mut self, bytes: &[u8]) -> Result<u32, Diagnostic> {
        if let Some(&offset) = self.string_index.get(bytes) {
            return Ok(offset);
        }
        let offset = self.strings.len() as u32;
        self.strings.extend_from_slice(bytes);
        self.strings.push(0);
        self.string_index.insert(bytes.to_vec(), offset);
        Ok(offset)
    }

    /// `rd = address of the string constant`.
    pub(super) fn set_string(&mut self, bytes: &[u8], rd: u8) -> Result<(), Diagnostic> {
        let offset = self.string_offset(bytes)?;
        let index = u16::try_from(offset).map_err(|_| table_overflow("string"))?;
        self.emit_indexed(Opcode::Sets, index, rd);
        Ok(())
    }

    /// Records that this DIFO reads or writes a user variable.
    pub(super) fn reference_variable(
        &mut self,
        name: &str,
        id: u16,
        kind: VariableKind,
        scope: VariableScope,
        ty: DifType,
        access: Access,
    ) -> Result<(), Diagnostic> {
        let flag = match access {
            Access::Read => DIF_VARIABLE_FLAG_READ,
            Access::Write => DIF_VARIABLE_FLAG_WRITE,
        };
        if let Some(existing) = self
            .variables
            .iter_mut()
            .find(|variable| variable.id == id && variable.scope == scope)
        {
            existing.flags |= flag;
            return Ok(());
        }
        let name_offset = self.string_offset(name.as_bytes())?;
        self.variables.push(DifVariable {
            name_offset,
            id,
            kind,
            scope,
            flags: flag,
            ty,
        });
        Ok(())
    }

    /// Finishes the DIFO with `ret result`, resolving labels.
    pub(super) fn finish(mut self, result: u8, return_type: DifType) -> Result<Difo, Diagnostic> {
        self.emit_registers(Opcode::Ret, 0, 0, result);
        for (position, label) in &self.fixups {
            let target = self.labels[label.0].unwrap_or(self.code.len() as u32 - 1);
            let op = self.code[*position].opcode().unwrap_or(Opcode::Ba);
            self.code[*position] = Instruction::branch(op, target);
        }
        Ok(Difo {
            code: self.code,
            integer_table: self.integers,
            string_table: self.strings,
            variable_table: self.variables,
            return_type,
            kernel_relocations: self.kernel_relocations,
        })
    }
}

fn table_overflow(table: &str) -> Diagnostic {
    Diagnostic::without_span(
        ErrorTag::D_UNKNOWN,
        format!("too many constants: the {table} table of a DIFO is full"),
    )
}
