//! The length of x86-64 instructions, decoded from their bytes: what the pid provider
//! needs to place offset probes only at instruction boundaries (a uprobe written into
//! the middle of an instruction would corrupt the traced process).
//!
//! Only 64-bit mode is decoded. The decoder reads legacy prefixes, REX, the VEX (two
//! and three byte), EVEX and XOP escapes, the one-byte map and the 0F, 0F38 and 0F3A
//! maps, the ModRM, SIB and displacement bytes and the immediate, whose size may depend
//! on the operand-size prefix (66), REX.W, the address-size prefix (67) for `moffs`, and
//! ModRM.reg for the group-3 `test` forms of F6 and F7. Opcodes that are invalid in
//! 64-bit mode are not decoded: the caller treats such a function as DTrace does one
//! with a jump table, and places no offset probes in it.

/// How one opcode continues: whether a ModRM byte follows, and the immediate's kind.
/// The low nibble is the immediate kind, the bits above it are flags.
type OpcodeShape = u8;

/// A ModRM byte (with its SIB and displacement) follows the opcode.
const MODRM: OpcodeShape = 0x10;
/// The opcode is invalid (or a prefix or escape handled before the table is read).
const INVALID: OpcodeShape = 0x20;
/// The ModRM byte always names registers: `mov` to and from control and debug
/// registers ignore ModRM.mod, so they never have a displacement.
const REGISTER_MODRM: OpcodeShape = 0x40 | MODRM;

/// No immediate.
const IMM_NONE: u8 = 0;
/// One byte (Ib, Jb).
const IMM_BYTE: u8 = 1;
/// Two bytes (Iw).
const IMM_WORD: u8 = 2;
/// Four bytes, or two under the operand-size prefix without REX.W (Iz).
const IMM_Z: u8 = 3;
/// Eight bytes with REX.W, else like Iz (Iv: `mov r64, imm64`).
const IMM_V: u8 = 4;
/// `enter`: a word and a byte.
const IMM_ENTER: u8 = 5;
/// A memory offset (`mov al, moffs`): eight bytes, or four under the address-size prefix.
const IMM_MOFFS: u8 = 6;
/// A 32-bit relative branch target (Jz): four bytes in 64-bit mode, as Intel processors
/// ignore the operand-size prefix on near branches.
const IMM_REL32: u8 = 7;
/// Group 3 on bytes (F6): `test` (ModRM.reg 0 and 1) has a byte immediate, the others none.
const IMM_GROUP3_BYTE: u8 = 8;
/// Group 3 on words (F7): `test` has an Iz immediate, the others none.
const IMM_GROUP3_Z: u8 = 9;

// Short names for the tables below.
const N: OpcodeShape = IMM_NONE;
const B: OpcodeShape = IMM_BYTE;
const W: OpcodeShape = IMM_WORD;
const Z: OpcodeShape = IMM_Z;
const V: OpcodeShape = IMM_V;
const E: OpcodeShape = IMM_ENTER;
const O: OpcodeShape = IMM_MOFFS;
const J: OpcodeShape = IMM_REL32;
const M: OpcodeShape = MODRM;
const MB: OpcodeShape = MODRM | IMM_BYTE;
const MZ: OpcodeShape = MODRM | IMM_Z;
const G3B: OpcodeShape = MODRM | IMM_GROUP3_BYTE;
const G3Z: OpcodeShape = MODRM | IMM_GROUP3_Z;
const R: OpcodeShape = REGISTER_MODRM;
const X: OpcodeShape = INVALID;

/// The one-byte opcode map in 64-bit mode. Prefixes (26, 2E, 36, 3E, 40-4F, 64-67, F0,
/// F2, F3) and escapes (0F, 62, C4, C5, 8F's XOP form) are handled before the table is
/// read; the opcodes 64-bit mode removed (06, 07, 27, 60, 61, 9A, CE, D4, D5, EA, …)
/// are invalid.
#[rustfmt::skip]
const ONE_BYTE_MAP: [OpcodeShape; 256] = [
    // 0   1   2   3   4   5   6   7   8   9   A   B   C   D   E   F
       M,  M,  M,  M,  B,  Z,  X,  X,  M,  M,  M,  M,  B,  Z,  X,  X, // 0x00
       M,  M,  M,  M,  B,  Z,  X,  X,  M,  M,  M,  M,  B,  Z,  X,  X, // 0x10
       M,  M,  M,  M,  B,  Z,  X,  X,  M,  M,  M,  M,  B,  Z,  X,  X, // 0x20
       M,  M,  M,  M,  B,  Z,  X,  X,  M,  M,  M,  M,  B,  Z,  X,  X, // 0x30
       X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X, // 0x40 REX
       N,  N,  N,  N,  N,  N,  N,  N,  N,  N,  N,  N,  N,  N,  N,  N, // 0x50
       X,  X,  X,  M,  X,  X,  X,  X,  Z, MZ,  B, MB,  N,  N,  N,  N, // 0x60
       B,  B,  B,  B,  B,  B,  B,  B,  B,  B,  B,  B,  B,  B,  B,  B, // 0x70
      MB, MZ,  X, MB,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0x80
       N,  N,  N,  N,  N,  N,  N,  N,  N,  N,  X,  N,  N,  N,  N,  N, // 0x90
       O,  O,  O,  O,  N,  N,  N,  N,  B,  Z,  N,  N,  N,  N,  N,  N, // 0xA0
       B,  B,  B,  B,  B,  B,  B,  B,  V,  V,  V,  V,  V,  V,  V,  V, // 0xB0
      MB, MB,  W,  N,  X,  X, MB, MZ,  E,  N,  W,  N,  N,  B,  X,  N, // 0xC0
       M,  M,  M,  M,  X,  X,  X,  N,  M,  M,  M,  M,  M,  M,  M,  M, // 0xD0
       B,  B,  B,  B,  B,  B,  B,  B,  J,  J,  X,  B,  N,  N,  N,  N, // 0xE0
       X,  N,  X,  X,  N,  N,G3B,G3Z,  N,  N,  N,  N,  N,  N,  M,  M, // 0xF0
];

/// The two-byte map (after 0F). 0F 38 and 0F 3A escape to the three-byte maps and
/// 0F 0F to 3DNow!, whose opcode is a trailing byte after the ModRM operand.
#[rustfmt::skip]
const TWO_BYTE_MAP: [OpcodeShape; 256] = [
    // 0   1   2   3   4   5   6   7   8   9   A   B   C   D   E   F
       M,  M,  M,  M,  X,  N,  N,  N,  N,  N,  X,  N,  X,  M,  N, MB, // 0x00
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0x10
       R,  R,  R,  R,  X,  X,  X,  X,  M,  M,  M,  M,  M,  M,  M,  M, // 0x20
       N,  N,  N,  N,  N,  N,  X,  N,  X,  X,  X,  X,  X,  X,  X,  X, // 0x30
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0x40
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0x50
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0x60
      MB, MB, MB, MB,  M,  M,  M,  N,  M,  M,  X,  X,  M,  M,  M,  M, // 0x70
       J,  J,  J,  J,  J,  J,  J,  J,  J,  J,  J,  J,  J,  J,  J,  J, // 0x80
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0x90
       N,  N,  N,  M, MB,  M,  X,  X,  N,  N,  N,  M, MB,  M,  M,  M, // 0xA0
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M, MB,  M,  M,  M,  M,  M, // 0xB0
       M,  M, MB,  M, MB, MB, MB,  M,  N,  N,  N,  N,  N,  N,  N,  N, // 0xC0
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0xD0
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0xE0
       M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M,  M, // 0xF0
];

/// The longest instruction the processor accepts.
const MAXIMUM_LENGTH: usize = 15;

/// The operand-size state the immediate's size depends on.
#[derive(Debug, Clone, Copy, Default)]
struct Prefixes {
    /// The operand-size prefix (66).
    operand_size: bool,
    /// The address-size prefix (67).
    address_size: bool,
    /// REX.W, from a REX prefix directly before the opcode.
    rex_w: bool,
    /// The REPNE prefix (F2), which with 66 selects AMD's SSE4a forms of 0F 78.
    repne: bool,
}

/// The opcode map an opcode byte is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpcodeMap {
    TwoByte,
    /// 0F 38: every opcode has a ModRM byte and no immediate.
    ThreeByte38,
    /// 0F 3A: every opcode has a ModRM byte and a byte immediate.
    ThreeByte3A,
}

/// The length in bytes of the instruction at the start of `code`, or None when the
/// bytes are not a valid 64-bit instruction or the instruction runs past the end of
/// `code`.
pub fn instruction_length(code: &[u8]) -> Option<usize> {
    let mut prefixes = Prefixes::default();
    let mut position = 0;
    loop {
        let byte = *code.get(position)?;
        match byte {
            0x26 | 0x2E | 0x36 | 0x3E | 0x64 | 0x65 | 0xF0 | 0xF3 => {}
            0xF2 => prefixes.repne = true,
            0x66 => prefixes.operand_size = true,
            0x67 => prefixes.address_size = true,
            0x40..=0x4F => {
                // A REX prefix counts only directly before the opcode; the check
                // below clears it again when a legacy prefix follows.
                position += 1;
                if position >= MAXIMUM_LENGTH {
                    return None;
                }
                prefixes.rex_w = byte & 0x08 != 0;
                continue;
            }
            _ => break,
        }
        prefixes.rex_w = false;
        position += 1;
        if position >= MAXIMUM_LENGTH {
            return None;
        }
    }
    let length = match code[position] {
        0x0F => escaped_length(code, position + 1, prefixes)?,
        0xC5 => vex_length(code, position + 2, 1)?,
        0xC4 => vex_length(code, position + 3, code.get(position + 1)? & 0x1F)?,
        0x62 => evex_length(code, position)?,
        0x8F if code.get(position + 1)? & 0x1F >= 8 => xop_length(code, position)?,
        opcode => shaped_length(
            code,
            position + 1,
            ONE_BYTE_MAP[usize::from(opcode)],
            prefixes,
        )?,
    };
    (length <= MAXIMUM_LENGTH && length <= code.len()).then_some(length)
}

/// The offsets of the instructions of a function, decoded one after another from its
/// first byte; None when some instruction cannot be decoded or the last one runs past
/// the end of `code`.
pub fn instruction_offsets(code: &[u8]) -> Option<Vec<u64>> {
    let mut offsets = Vec::new();
    let mut position = 0;
    while position < code.len() {
        offsets.push(position as u64);
        position += instruction_length(&code[position..])?;
    }
    Some(offsets)
}

/// The length of an instruction whose 0F escape ends before `position`.
fn escaped_length(code: &[u8], position: usize, prefixes: Prefixes) -> Option<usize> {
    let (map, opcode_position) = match *code.get(position)? {
        0x38 => (OpcodeMap::ThreeByte38, position + 1),
        0x3A => (OpcodeMap::ThreeByte3A, position + 1),
        _ => (OpcodeMap::TwoByte, position),
    };
    let opcode = *code.get(opcode_position)?;
    let shape = match map {
        OpcodeMap::ThreeByte38 => M,
        OpcodeMap::ThreeByte3A => MB,
        OpcodeMap::TwoByte => TWO_BYTE_MAP[usize::from(opcode)],
    };
    let length = shaped_length(code, opcode_position + 1, shape, prefixes)?;
    // AMD's `extrq` (66 0F 78 /0) and `insertq` (F2 0F 78) take two byte immediates
    // where Intel's `vmread` (0F 78) has none.
    if map == OpcodeMap::TwoByte && opcode == 0x78 && (prefixes.operand_size || prefixes.repne) {
        return Some(length + 2);
    }
    Some(length)
}

/// The length of a VEX instruction whose prefix ends before `opcode_position`, in
/// opcode map `map` (1 = 0F, 2 = 0F38, 3 = 0F3A).
fn vex_length(code: &[u8], opcode_position: usize, map: u8) -> Option<usize> {
    let opcode = *code.get(opcode_position)?;
    // vzeroupper and vzeroall (VEX 0F 77) are the only VEX instructions without ModRM.
    if map == 1 && opcode == 0x77 {
        return Some(opcode_position + 1);
    }
    let immediate = vector_immediate(map, opcode)?;
    let shape = MODRM | if immediate { IMM_BYTE } else { IMM_NONE };
    shaped_length(code, opcode_position + 1, shape, Prefixes::default())
}

/// The length of an EVEX (AVX-512) instruction whose 62 byte is at `position`: three
/// payload bytes, the opcode, always a ModRM byte, and a byte immediate for the
/// opcodes that have one in the VEX maps. Maps 5 and 6 are AVX512-FP16's.
fn evex_length(code: &[u8], position: usize) -> Option<usize> {
    let map = code.get(position + 1)? & 0x07;
    let opcode_position = position + 4;
    let opcode = *code.get(opcode_position)?;
    let immediate = match map {
        5 | 6 => false,
        _ => vector_immediate(map, opcode)?,
    };
    let shape = MODRM | if immediate { IMM_BYTE } else { IMM_NONE };
    shaped_length(code, opcode_position + 1, shape, Prefixes::default())
}

/// Whether the VEX or EVEX instruction `opcode` of `map` has a byte immediate; None
/// for maps that do not exist.
fn vector_immediate(map: u8, opcode: u8) -> Option<bool> {
    match map {
        1 => Some(matches!(opcode, 0x70..=0x73 | 0xC2 | 0xC4..=0xC6)),
        2 => Some(false),
        3 => Some(true),
        _ => None,
    }
}

/// The length of an AMD XOP instruction whose 8F byte is at `position`: like a
/// three-byte VEX, with a byte immediate in map 8 and a four-byte one in map 10.
fn xop_length(code: &[u8], position: usize) -> Option<usize> {
    let immediate = match code.get(position + 1)? & 0x1F {
        8 => IMM_BYTE,
        9 => IMM_NONE,
        10 => IMM_Z,
        _ => return None,
    };
    shaped_length(code, position + 4, MODRM | immediate, Prefixes::default())
}

/// The length of an instruction whose opcode ends before `position`, given its shape.
fn shaped_length(
    code: &[u8],
    position: usize,
    shape: OpcodeShape,
    prefixes: Prefixes,
) -> Option<usize> {
    if shape & INVALID != 0 {
        return None;
    }
    let mut length = position;
    let mut modrm_reg = 0;
    if shape & MODRM != 0 {
        let modrm = *code.get(position)?;
        modrm_reg = (modrm >> 3) & 7;
        length += 1;
        if shape & REGISTER_MODRM != REGISTER_MODRM {
            length += operand_bytes(code, position, modrm)?;
        }
    }
    let immediate = match shape & 0x0F {
        IMM_NONE => 0,
        IMM_BYTE => 1,
        IMM_WORD => 2,
        IMM_Z => sized_immediate(prefixes),
        IMM_V if prefixes.rex_w => 8,
        IMM_V => sized_immediate(prefixes),
        IMM_ENTER => 3,
        IMM_MOFFS if prefixes.address_size => 4,
        IMM_MOFFS => 8,
        IMM_REL32 => 4,
        IMM_GROUP3_BYTE if modrm_reg < 2 => 1,
        IMM_GROUP3_Z if modrm_reg < 2 => sized_immediate(prefixes),
        _ => 0,
    };
    Some(length + immediate)
}

/// An Iz immediate's size: four bytes, two under the operand-size prefix unless REX.W
/// overrides it.
fn sized_immediate(prefixes: Prefixes) -> usize {
    if prefixes.operand_size && !prefixes.rex_w {
        2
    } else {
        4
    }
}

/// The SIB and displacement bytes after the ModRM byte at `modrm_position`. 64-bit
/// mode's 32-bit addressing (under 67) has the same layout as its 64-bit addressing:
/// ModRM.rm 4 brings a SIB byte, mod 0 with rm 5 is RIP-relative with four bytes, and
/// a SIB base of 5 with mod 0 has four bytes of displacement and no base.
fn operand_bytes(code: &[u8], modrm_position: usize, modrm: u8) -> Option<usize> {
    let (mode, rm) = (modrm >> 6, modrm & 7);
    if mode == 3 {
        return Some(0);
    }
    let mut bytes = 0;
    let mut displacement = match mode {
        1 => 1,
        2 => 4,
        _ if rm == 5 => 4,
        _ => 0,
    };
    if rm == 4 {
        bytes += 1;
        let sib = *code.get(modrm_position + 1)?;
        if mode == 0 && sib & 7 == 5 {
            displacement = 4;
        }
    }
    Some(bytes + displacement)
}

#[cfg(test)]
#[path = "x86_length_tests.rs"]
mod tests;
