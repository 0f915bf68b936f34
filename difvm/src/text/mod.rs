//! Textual DIF: the classic `-S` listing (disassembler) and an assembler that reads the
//! listing, or a hand-written form of it, back into DIFOs.

mod assemble;
mod disassemble;
pub mod format;
pub mod names;
mod operands;
mod string_table;

pub use assemble::{assemble, assemble_all, AssembleError, AssembledDifo};
pub use disassemble::{
    disassemble_difo, instruction_text, type_text, variable_flags_text, variable_kind_text,
    variable_scope_text, ILLEGAL_OPCODE_TEXT,
};
