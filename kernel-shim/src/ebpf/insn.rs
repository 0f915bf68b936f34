//! The eBPF instruction word (`struct bpf_insn`), its 8-byte encoding, and typed constructors.
//!
//! Constructors cover every instruction class a translator needs: 64- and 32-bit arithmetic,
//! jumps of both widths, loads, stores, atomics, the two-slot `ld_imm64` (plain constants,
//! map file descriptors and direct map-value addresses), helper calls and exit. Operands that
//! the encoding restricts (registers, access sizes, widths) are typed so that an invalid
//! instruction cannot be built by accident; the raw fields stay public for decoding.

use super::helpers::Helper;
use super::opcode::*;

/// An eBPF register, r0 to r10 (r10 is the read-only frame pointer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(u8);

impl Reg {
    pub const R0: Reg = Reg(0);
    pub const R1: Reg = Reg(1);
    pub const R2: Reg = Reg(2);
    pub const R3: Reg = Reg(3);
    pub const R4: Reg = Reg(4);
    pub const R5: Reg = Reg(5);
    pub const R6: Reg = Reg(6);
    pub const R7: Reg = Reg(7);
    pub const R8: Reg = Reg(8);
    pub const R9: Reg = Reg(9);
    pub const R10: Reg = Reg(10);
    /// The frame pointer: r10 points just past the 512-byte stack of the program.
    pub const FP: Reg = Reg(10);

    /// The register with this number, if there is one.
    pub const fn new(number: u8) -> Option<Reg> {
        if number <= 10 {
            Some(Reg(number))
        } else {
            None
        }
    }

    /// The register's number, 0 to 10.
    pub const fn number(self) -> u8 {
        self.0
    }
}

/// The access size of a load, store or atomic operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSize {
    /// One byte (`BPF_B`, `u8`).
    B,
    /// Two bytes (`BPF_H`, `u16`).
    H,
    /// Four bytes (`BPF_W`, `u32`).
    W,
    /// Eight bytes (`BPF_DW`, `u64`).
    DW,
}

impl MemSize {
    /// The size bits of the opcode byte.
    pub const fn code(self) -> u8 {
        match self {
            MemSize::B => BPF_B,
            MemSize::H => BPF_H,
            MemSize::W => BPF_W,
            MemSize::DW => BPF_DW,
        }
    }

    /// The number of bytes accessed.
    pub const fn bytes(self) -> usize {
        match self {
            MemSize::B => 1,
            MemSize::H => 2,
            MemSize::W => 4,
            MemSize::DW => 8,
        }
    }

    /// The access size for a byte count of 1, 2, 4 or 8.
    pub const fn from_bytes(bytes: usize) -> Option<MemSize> {
        match bytes {
            1 => Some(MemSize::B),
            2 => Some(MemSize::H),
            4 => Some(MemSize::W),
            8 => Some(MemSize::DW),
            _ => None,
        }
    }
}

/// A two-operand arithmetic operation (`dst = dst OP src`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    Add,
    Sub,
    Mul,
    /// Unsigned division; division by zero yields 0 in eBPF.
    Div,
    /// Signed division (`BPF_DIV` with offset 1; kernel 6.6 and later, so the translator
    /// does not use it: programs must load on older kernels too).
    SDiv,
    Or,
    And,
    Lsh,
    Rsh,
    /// Unsigned modulo; modulo by zero leaves the destination unchanged in eBPF.
    Mod,
    /// Signed modulo (`BPF_MOD` with offset 1; kernel 6.6 and later, so the translator
    /// does not use it either).
    SMod,
    Xor,
    Mov,
    /// Arithmetic (sign-propagating) right shift.
    Arsh,
}

impl AluOp {
    /// The operation bits of the opcode byte and the offset field that goes with them.
    const fn code_and_offset(self) -> (u8, i16) {
        match self {
            AluOp::Add => (BPF_ADD, 0),
            AluOp::Sub => (BPF_SUB, 0),
            AluOp::Mul => (BPF_MUL, 0),
            AluOp::Div => (BPF_DIV, 0),
            AluOp::SDiv => (BPF_DIV, 1),
            AluOp::Or => (BPF_OR, 0),
            AluOp::And => (BPF_AND, 0),
            AluOp::Lsh => (BPF_LSH, 0),
            AluOp::Rsh => (BPF_RSH, 0),
            AluOp::Mod => (BPF_MOD, 0),
            AluOp::SMod => (BPF_MOD, 1),
            AluOp::Xor => (BPF_XOR, 0),
            AluOp::Mov => (BPF_MOV, 0),
            AluOp::Arsh => (BPF_ARSH, 0),
        }
    }
}

/// A conditional jump comparison (`if dst OP src goto +off`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JmpOp {
    Eq,
    Ne,
    /// Unsigned greater than.
    Gt,
    /// Unsigned greater or equal.
    Ge,
    /// Unsigned less than.
    Lt,
    /// Unsigned less or equal.
    Le,
    /// Signed greater than.
    Sgt,
    /// Signed greater or equal.
    Sge,
    /// Signed less than.
    Slt,
    /// Signed less or equal.
    Sle,
    /// Jump if `dst & src` is not zero.
    Set,
}

impl JmpOp {
    /// The operation bits of the opcode byte.
    pub const fn code(self) -> u8 {
        match self {
            JmpOp::Eq => BPF_JEQ,
            JmpOp::Ne => BPF_JNE,
            JmpOp::Gt => BPF_JGT,
            JmpOp::Ge => BPF_JGE,
            JmpOp::Lt => BPF_JLT,
            JmpOp::Le => BPF_JLE,
            JmpOp::Sgt => BPF_JSGT,
            JmpOp::Sge => BPF_JSGE,
            JmpOp::Slt => BPF_JSLT,
            JmpOp::Sle => BPF_JSLE,
            JmpOp::Set => BPF_JSET,
        }
    }
}

/// An atomic read-modify-write operation on memory (`BPF_STX | BPF_ATOMIC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `lock *(size *)(dst + off) += src`
    Add,
    Or,
    And,
    Xor,
    /// As `Add`, and `src` receives the old value.
    FetchAdd,
    FetchOr,
    FetchAnd,
    FetchXor,
    /// `src` and memory exchange values.
    Xchg,
    /// If memory equals r0 it becomes `src`; r0 receives the old value either way.
    CmpXchg,
}

impl AtomicOp {
    /// The immediate that selects this operation.
    pub const fn imm(self) -> i32 {
        match self {
            AtomicOp::Add => BPF_ADD as i32,
            AtomicOp::Or => BPF_OR as i32,
            AtomicOp::And => BPF_AND as i32,
            AtomicOp::Xor => BPF_XOR as i32,
            AtomicOp::FetchAdd => BPF_ADD as i32 | BPF_FETCH,
            AtomicOp::FetchOr => BPF_OR as i32 | BPF_FETCH,
            AtomicOp::FetchAnd => BPF_AND as i32 | BPF_FETCH,
            AtomicOp::FetchXor => BPF_XOR as i32 | BPF_FETCH,
            AtomicOp::Xchg => BPF_XCHG,
            AtomicOp::CmpXchg => BPF_CMPXCHG,
        }
    }
}

/// The operand width of a byte-order conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwapWidth {
    W16,
    W32,
    W64,
}

impl SwapWidth {
    const fn bits(self) -> i32 {
        match self {
            SwapWidth::W16 => 16,
            SwapWidth::W32 => 32,
            SwapWidth::W64 => 64,
        }
    }
}

/// The width a sign-extending move (`movsx`) extends from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExtendFrom {
    S8,
    S16,
    S32,
}

impl ExtendFrom {
    const fn bits(self) -> i16 {
        match self {
            ExtendFrom::S8 => 8,
            ExtendFrom::S16 => 16,
            ExtendFrom::S32 => 32,
        }
    }
}

/// One eBPF instruction slot. `ld_imm64` occupies two consecutive slots.
///
/// The fields are the kernel's: an opcode byte, destination and source register numbers (four
/// bits each in the encoding), a signed 16-bit offset and a signed 32-bit immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Insn {
    pub code: u8,
    pub dst: u8,
    pub src: u8,
    pub off: i16,
    pub imm: i32,
}

/// The length of one encoded instruction slot in bytes.
pub const INSN_SIZE: usize = 8;

impl Insn {
    /// An instruction from raw fields.
    pub const fn new(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
        Insn {
            code,
            dst,
            src,
            off,
            imm,
        }
    }

    /// The little-endian encoding the kernel expects on x86_64: opcode, `src << 4 | dst`,
    /// offset, immediate.
    pub const fn to_bytes(self) -> [u8; INSN_SIZE] {
        let off = self.off.to_le_bytes();
        let imm = self.imm.to_le_bytes();
        [
            self.code,
            (self.src << 4) | (self.dst & 0x0f),
            off[0],
            off[1],
            imm[0],
            imm[1],
            imm[2],
            imm[3],
        ]
    }

    /// Decodes one little-endian instruction slot.
    pub const fn from_bytes(bytes: [u8; INSN_SIZE]) -> Insn {
        Insn {
            code: bytes[0],
            dst: bytes[1] & 0x0f,
            src: bytes[1] >> 4,
            off: i16::from_le_bytes([bytes[2], bytes[3]]),
            imm: i32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]),
        }
    }

    // ----- arithmetic -----

    /// `dst OP= imm` on 64 bits.
    pub const fn alu64_imm(op: AluOp, dst: Reg, imm: i32) -> Insn {
        let (code, off) = op.code_and_offset();
        Insn::new(BPF_ALU64 | BPF_K | code, dst.0, 0, off, imm)
    }

    /// `dst OP= src` on 64 bits.
    pub const fn alu64_reg(op: AluOp, dst: Reg, src: Reg) -> Insn {
        let (code, off) = op.code_and_offset();
        Insn::new(BPF_ALU64 | BPF_X | code, dst.0, src.0, off, 0)
    }

    /// `wdst OP= imm` on 32 bits; the upper half of `dst` becomes zero.
    pub const fn alu32_imm(op: AluOp, dst: Reg, imm: i32) -> Insn {
        let (code, off) = op.code_and_offset();
        Insn::new(BPF_ALU | BPF_K | code, dst.0, 0, off, imm)
    }

    /// `wdst OP= wsrc` on 32 bits; the upper half of `dst` becomes zero.
    pub const fn alu32_reg(op: AluOp, dst: Reg, src: Reg) -> Insn {
        let (code, off) = op.code_and_offset();
        Insn::new(BPF_ALU | BPF_X | code, dst.0, src.0, off, 0)
    }

    /// `dst = imm`, the immediate sign-extended to 64 bits.
    pub const fn mov64_imm(dst: Reg, imm: i32) -> Insn {
        Insn::alu64_imm(AluOp::Mov, dst, imm)
    }

    /// `dst = src`.
    pub const fn mov64_reg(dst: Reg, src: Reg) -> Insn {
        Insn::alu64_reg(AluOp::Mov, dst, src)
    }

    /// `wdst = imm`, zero-extended to 64 bits.
    pub const fn mov32_imm(dst: Reg, imm: i32) -> Insn {
        Insn::alu32_imm(AluOp::Mov, dst, imm)
    }

    /// `wdst = wsrc`, zero-extended to 64 bits.
    pub const fn mov32_reg(dst: Reg, src: Reg) -> Insn {
        Insn::alu32_reg(AluOp::Mov, dst, src)
    }

    /// `dst += imm` on 64 bits (the commonest pointer adjustment).
    pub const fn add64_imm(dst: Reg, imm: i32) -> Insn {
        Insn::alu64_imm(AluOp::Add, dst, imm)
    }

    /// `dst = (sN)src`: sign-extends the low bits of `src` to 64 bits (kernel 6.6 and later).
    pub const fn movsx64_reg(dst: Reg, src: Reg, from: ExtendFrom) -> Insn {
        Insn::new(BPF_ALU64 | BPF_X | BPF_MOV, dst.0, src.0, from.bits(), 0)
    }

    /// `wdst = (sN)wsrc`: sign-extends 8 or 16 bits to 32 (kernel 6.6 and later). The
    /// encoding has no 32-from-32 form, so `ExtendFrom::S32` gives a plain 32-bit move.
    pub const fn movsx32_reg(dst: Reg, src: Reg, from: ExtendFrom) -> Insn {
        match from {
            ExtendFrom::S32 => Insn::mov32_reg(dst, src),
            _ => Insn::new(BPF_ALU | BPF_X | BPF_MOV, dst.0, src.0, from.bits(), 0),
        }
    }

    /// `dst = -dst` on 64 bits.
    pub const fn neg64(dst: Reg) -> Insn {
        Insn::new(BPF_ALU64 | BPF_K | BPF_NEG, dst.0, 0, 0, 0)
    }

    /// `wdst = -wdst` on 32 bits.
    pub const fn neg32(dst: Reg) -> Insn {
        Insn::new(BPF_ALU | BPF_K | BPF_NEG, dst.0, 0, 0, 0)
    }

    /// `dst = be16/be32/be64 dst`: converts from host to big-endian byte order (a swap on
    /// x86_64), truncating to the width.
    pub const fn to_be(dst: Reg, width: SwapWidth) -> Insn {
        Insn::new(BPF_ALU | BPF_TO_BE | BPF_END, dst.0, 0, 0, width.bits())
    }

    /// `dst = le16/le32/le64 dst`: converts from host to little-endian byte order (only a
    /// truncation on x86_64).
    pub const fn to_le(dst: Reg, width: SwapWidth) -> Insn {
        Insn::new(BPF_ALU | BPF_TO_LE | BPF_END, dst.0, 0, 0, width.bits())
    }

    /// `dst = bswapN dst`: an unconditional byte swap (kernel 6.6 and later).
    pub const fn bswap(dst: Reg, width: SwapWidth) -> Insn {
        Insn::new(BPF_ALU64 | BPF_TO_LE | BPF_END, dst.0, 0, 0, width.bits())
    }

    // ----- 64-bit immediate loads (two slots) -----

    /// `dst = value` for any 64-bit constant.
    pub const fn ld_imm64(dst: Reg, value: u64) -> [Insn; 2] {
        Insn::ld_imm64_raw(dst, 0, value as u32 as i32, (value >> 32) as u32 as i32)
    }

    /// `dst = &kernel variable`: the kernel replaces the BTF id of a `VAR` of vmlinux
    /// with the variable's address (for a per-CPU variable, the per-CPU pointer that
    /// `bpf_this_cpu_ptr` takes).
    pub const fn ld_btf_variable(dst: Reg, variable_id: u32) -> [Insn; 2] {
        Insn::ld_imm64_raw(dst, BPF_PSEUDO_BTF_ID, variable_id as i32, 0)
    }

    /// `dst = map`: the kernel replaces the file descriptor with the map's address.
    pub const fn ld_map_fd(dst: Reg, map_fd: i32) -> [Insn; 2] {
        Insn::ld_imm64_raw(dst, BPF_PSEUDO_MAP_FD, map_fd, 0)
    }

    /// `dst = &map value[0] + offset`: direct access to the value of a single-entry array
    /// map, no lookup call needed.
    pub const fn ld_map_value(dst: Reg, map_fd: i32, offset: u32) -> [Insn; 2] {
        Insn::ld_imm64_raw(dst, BPF_PSEUDO_MAP_VALUE, map_fd, offset as i32)
    }

    /// A two-slot `ld_imm64` with an explicit pseudo source (`BPF_PSEUDO_*`) and the two
    /// immediate halves.
    pub const fn ld_imm64_raw(dst: Reg, pseudo: u8, low: i32, high: i32) -> [Insn; 2] {
        [
            Insn::new(BPF_LD | BPF_DW | BPF_IMM, dst.0, pseudo, 0, low),
            Insn::new(0, 0, 0, 0, high),
        ]
    }

    /// Whether this slot starts a two-slot `ld_imm64`.
    pub const fn is_ld_imm64(&self) -> bool {
        self.code == BPF_LD | BPF_DW | BPF_IMM
    }

    // ----- loads and stores -----

    /// `dst = *(size *)(src + off)`, zero-extended.
    pub const fn ldx_mem(size: MemSize, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_LDX | BPF_MEM | size.code(), dst.0, src.0, off, 0)
    }

    /// `dst = *(sN *)(src + off)`, sign-extended (kernel 6.6 and later). Eight-byte
    /// loads need no extension, so `MemSize::DW` gives a plain load.
    pub const fn ldx_memsx(size: MemSize, dst: Reg, src: Reg, off: i16) -> Insn {
        match size {
            MemSize::DW => Insn::ldx_mem(size, dst, src, off),
            _ => Insn::new(BPF_LDX | BPF_MEMSX | size.code(), dst.0, src.0, off, 0),
        }
    }

    /// `*(size *)(dst + off) = imm`.
    pub const fn st_mem(size: MemSize, dst: Reg, off: i16, imm: i32) -> Insn {
        Insn::new(BPF_ST | BPF_MEM | size.code(), dst.0, 0, off, imm)
    }

    /// `*(size *)(dst + off) = src`.
    pub const fn stx_mem(size: MemSize, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_STX | BPF_MEM | size.code(), dst.0, src.0, off, 0)
    }

    /// An atomic operation on `*(size *)(dst + off)` with operand `src`. The kernel accepts
    /// only `MemSize::W` and `MemSize::DW` for these.
    pub const fn atomic(size: MemSize, op: AtomicOp, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(
            BPF_STX | BPF_ATOMIC | size.code(),
            dst.0,
            src.0,
            off,
            op.imm(),
        )
    }

    // ----- jumps, calls, exit -----

    /// `if dst OP imm goto pc+off` comparing 64 bits.
    pub const fn jmp_imm(op: JmpOp, dst: Reg, imm: i32, off: i16) -> Insn {
        Insn::new(BPF_JMP | BPF_K | op.code(), dst.0, 0, off, imm)
    }

    /// `if dst OP src goto pc+off` comparing 64 bits.
    pub const fn jmp_reg(op: JmpOp, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_JMP | BPF_X | op.code(), dst.0, src.0, off, 0)
    }

    /// `if wdst OP imm goto pc+off` comparing the low 32 bits.
    pub const fn jmp32_imm(op: JmpOp, dst: Reg, imm: i32, off: i16) -> Insn {
        Insn::new(BPF_JMP32 | BPF_K | op.code(), dst.0, 0, off, imm)
    }

    /// `if wdst OP wsrc goto pc+off` comparing the low 32 bits.
    pub const fn jmp32_reg(op: JmpOp, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_JMP32 | BPF_X | op.code(), dst.0, src.0, off, 0)
    }

    /// `goto pc+off`.
    pub const fn ja(off: i16) -> Insn {
        Insn::new(BPF_JMP | BPF_JA, 0, 0, off, 0)
    }

    /// `gotol pc+imm`: the unconditional jump whose distance is a 32-bit immediate
    /// (`BPF_JMP32 | BPF_JA`, Linux 6.4 and later), for distances a 16-bit offset cannot
    /// hold.
    pub const fn gotol(imm: i32) -> Insn {
        Insn::new(BPF_JMP32 | BPF_JA, 0, 0, 0, imm)
    }

    /// `call helper`: arguments in r1–r5, result in r0; r1–r5 are clobbered.
    pub const fn call(helper: Helper) -> Insn {
        Insn::call_helper_number(helper.number())
    }

    /// `call N` for a helper known only by number (one newer than this table, say).
    pub const fn call_helper_number(number: u32) -> Insn {
        Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, number as i32)
    }

    /// A call of a BPF subprogram `offset + 1` slots after this one (`call pc+offset`).
    pub const fn call_local(offset: i32) -> Insn {
        Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, offset)
    }

    /// `exit`: return r0.
    pub const fn exit() -> Insn {
        Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
    }
}

/// Encodes a program as the byte string the kernel reads (eight bytes per slot).
pub fn encode_program(instructions: &[Insn]) -> Vec<u8> {
    instructions
        .iter()
        .flat_map(|insn| insn.to_bytes())
        .collect()
}

/// Decodes a byte string of whole eight-byte slots; `None` if the length is not a multiple of
/// eight.
pub fn decode_program(bytes: &[u8]) -> Option<Vec<Insn>> {
    if !bytes.len().is_multiple_of(INSN_SIZE) {
        return None;
    }
    let mut instructions = Vec::with_capacity(bytes.len() / INSN_SIZE);
    for chunk in bytes.chunks_exact(INSN_SIZE) {
        let mut slot = [0u8; INSN_SIZE];
        slot.copy_from_slice(chunk);
        instructions.push(Insn::from_bytes(slot));
    }
    Some(instructions)
}
