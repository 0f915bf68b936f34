//! eBPF instruction encoding, helper numbers, a label assembler and a verifier-log-style
//! disassembler: everything about eBPF code that needs no kernel.

pub mod assembler;
pub mod disasm;
pub mod helpers;
pub mod insn;
pub mod opcode;

#[cfg(test)]
mod tests;

pub use assembler::{AssembleError, Assembler, Label};
pub use disasm::{disassemble, disassemble_with, instruction_text, instruction_text_with};
pub use helpers::Helper;
pub use insn::{
    decode_program, encode_program, AluOp, AtomicOp, ExtendFrom, Insn, JmpOp, MemSize, Reg,
    SwapWidth, INSN_SIZE,
};
