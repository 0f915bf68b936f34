//! The operand format of every DIF opcode: which fields of the instruction word it uses,
//! how the listing prints them, and which variable scope and kind it addresses.
//!
//! The disassembler, the assembler and the verifier all classify instructions through
//! this one table, so "what the listing shows" and "what the verifier calls reserved bits"
//! cannot drift apart.

use crate::difo::{VariableKind, VariableScope};
use crate::isa::Opcode;

/// Bits 31–24: the opcode.
pub const OPCODE_BITS: u32 = 0xff00_0000;
/// Bits 23–16: `r1`.
pub const R1_BITS: u32 = 0x00ff_0000;
/// Bits 15–8: `r2`.
pub const R2_BITS: u32 = 0x0000_ff00;
/// Bits 7–0: `rd` (or `rs` for stores and pushes).
pub const RD_BITS: u32 = 0x0000_00ff;
/// Bits 23–0: a branch label.
pub const LABEL_BITS: u32 = 0x00ff_ffff;
/// Bits 23–8: a 16-bit table offset, variable id or subroutine number.
pub const INDEX_BITS: u32 = 0x00ff_ff00;

/// How an opcode's operands are encoded and printed (the classic `dt_dis_*` families).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperandFormat {
    /// `op %r1, %r2, %rd`: arithmetic, logic, shifts and `copys`.
    ThreeRegisters,
    /// `op label`: every branch.
    Branch,
    /// `op [%r1], %rd`: kernel, user and restricted loads.
    Load,
    /// `op %r1, [%rd]`: scratch stores.
    Store,
    /// `op %r1, %rd`: `not`, `mov`, `allocs`.
    RegisterToRegister,
    /// `op %r1, %r2`: `cmp`, `scmp`.
    Compare,
    /// `op %r1`: `tst`.
    Test,
    /// `op %rd`: `ret`.
    Return,
    /// `op` alone: `nop`, `popts`, `flushts`.
    Bare,
    /// `setx DT_INTEGER[index], %rd`.
    SetInteger,
    /// `sets DT_STRING[index], %rd`.
    SetString,
    /// `op DT_VAR(r1), %r2, %rd`: `ldga`, `ldta`.
    LoadArray,
    /// `op DT_VAR(index), %rd`: scalar and associative loads.
    LoadVariable,
    /// `op %rs, DT_VAR(index)`: scalar and associative stores.
    StoreVariable,
    /// `call DIF_SUBR(index), %rd`.
    Call,
    /// `pushtr DT_TYPE(r1), %r2, %rs`.
    PushTupleReference,
    /// `pushtv DT_TYPE(r1), %rs`.
    PushTupleValue,
    /// `op DT_XLREF[index], %rd`: `xlate`, `xlarg`.
    Translator,
}

impl OperandFormat {
    /// The bits of the instruction word this format uses, opcode included. Every other
    /// bit is reserved: the listing does not show it and the verifier requires it to be 0.
    pub fn used_bits(self) -> u32 {
        match self {
            OperandFormat::ThreeRegisters
            | OperandFormat::LoadArray
            | OperandFormat::PushTupleReference => OPCODE_BITS | R1_BITS | R2_BITS | RD_BITS,
            OperandFormat::Branch => OPCODE_BITS | LABEL_BITS,
            OperandFormat::Load
            | OperandFormat::Store
            | OperandFormat::RegisterToRegister
            | OperandFormat::PushTupleValue => OPCODE_BITS | R1_BITS | RD_BITS,
            OperandFormat::Compare => OPCODE_BITS | R1_BITS | R2_BITS,
            OperandFormat::Test => OPCODE_BITS | R1_BITS,
            OperandFormat::Return => OPCODE_BITS | RD_BITS,
            OperandFormat::Bare => OPCODE_BITS,
            OperandFormat::SetInteger
            | OperandFormat::SetString
            | OperandFormat::LoadVariable
            | OperandFormat::StoreVariable
            | OperandFormat::Call
            | OperandFormat::Translator => OPCODE_BITS | INDEX_BITS | RD_BITS,
        }
    }
}

/// The operand format of `opcode`.
pub fn operand_format(opcode: Opcode) -> OperandFormat {
    use Opcode::*;
    match opcode {
        Or | Xor | And | Sll | Srl | Sub | Add | Mul | Sdiv | Udiv | Srem | Urem | Sra | Copys => {
            OperandFormat::ThreeRegisters
        }
        Ba | Be | Bne | Bg | Bgu | Bge | Bgeu | Bl | Blu | Ble | Bleu => OperandFormat::Branch,
        Ldsb | Ldsh | Ldsw | Ldub | Lduh | Lduw | Ldx | Uldsb | Uldsh | Uldsw | Uldub | Ulduh
        | Ulduw | Uldx | Rldsb | Rldsh | Rldsw | Rldub | Rlduh | Rlduw | Rldx => {
            OperandFormat::Load
        }
        Stb | Sth | Stw | Stx => OperandFormat::Store,
        Not | Mov | Allocs => OperandFormat::RegisterToRegister,
        Cmp | Scmp => OperandFormat::Compare,
        Tst => OperandFormat::Test,
        Ret => OperandFormat::Return,
        Nop | Popts | Flushts => OperandFormat::Bare,
        Setx => OperandFormat::SetInteger,
        Sets => OperandFormat::SetString,
        Ldga | Ldta => OperandFormat::LoadArray,
        Ldgs | Ldts | Ldls | Ldgaa | Ldtaa => OperandFormat::LoadVariable,
        Stgs | Stts | Stls | Stgaa | Sttaa => OperandFormat::StoreVariable,
        Call => OperandFormat::Call,
        Pushtr => OperandFormat::PushTupleReference,
        Pushtv => OperandFormat::PushTupleValue,
        Xlate | Xlarg => OperandFormat::Translator,
    }
}

/// The scope and kind of the variable a variable instruction addresses, or `None` for
/// instructions that address no variable.
///
/// Classic DTrace derives the scope from the third letter of the mnemonic (`ldgs`,
/// `ldts`, `ldls`); the kind is array for `ldga`/`ldta` and the associative `*aa`
/// forms, scalar otherwise.
pub fn variable_access(opcode: Opcode) -> Option<(VariableScope, VariableKind)> {
    use Opcode::*;
    use VariableKind::{Array, Scalar};
    use VariableScope::{ClauseLocal, Global, ThreadLocal};
    match opcode {
        Ldga | Ldgaa | Stgaa => Some((Global, Array)),
        Ldta | Ldtaa | Sttaa => Some((ThreadLocal, Array)),
        Ldgs | Stgs => Some((Global, Scalar)),
        Ldts | Stts => Some((ThreadLocal, Scalar)),
        Ldls | Stls => Some((ClauseLocal, Scalar)),
        _ => None,
    }
}
