//! The arguments of a USDT probe (a `stapsdt` note's `8@%rbp -4@%eax 8@-16(%rbp)`):
//! where each lives when the probe fires — a register, a constant, or memory at a
//! register plus a displacement — read from the uprobe's `pt_regs`, so that `argN` is
//! what the program passed to the probe rather than the calling convention's registers,
//! which a probe site in the middle of a function does not follow.

use super::code::ProgramCode;
use crate::ebpf::{AluOp, Helper, Insn, MemSize, Reg};

use super::registers::CONTEXT;

/// One argument of a USDT probe: its size in bytes (1, 2, 4 or 8), signed when the note
/// says so (`-4@…`), and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsdtArgument {
    pub size: u8,
    pub signed: bool,
    pub location: UsdtLocation,
}

/// Where a USDT argument is when its probe fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsdtLocation {
    /// A register, by its offset in x86_64 `struct pt_regs`.
    Register(i16),
    /// A constant (`$5`).
    Constant(i64),
    /// User memory at a register (its `pt_regs` offset) plus a displacement (`-16(%rbp)`).
    Memory { base: i16, displacement: i32 },
}

/// The arguments a `stapsdt` note's argument string describes, or None when one of them
/// is a form this reader does not know (a symbol relative to `%rip`, an index register).
pub fn parse_usdt_arguments(specification: &str) -> Option<Vec<UsdtArgument>> {
    specification
        .split_whitespace()
        .map(parse_argument)
        .collect()
}

fn parse_argument(text: &str) -> Option<UsdtArgument> {
    let (size, operand) = text.split_once('@')?;
    let size: i8 = size.parse().ok()?;
    let signed = size < 0;
    let size = size.unsigned_abs();
    if ![1, 2, 4, 8].contains(&size) {
        return None;
    }
    let location = if let Some(register) = operand.strip_prefix('%') {
        UsdtLocation::Register(register_offset(register)?)
    } else if let Some(constant) = operand.strip_prefix('$') {
        UsdtLocation::Constant(parse_integer(constant)?)
    } else {
        let (displacement, base) = operand.strip_suffix(')')?.split_once("(%")?;
        let displacement = if displacement.is_empty() {
            0
        } else {
            i32::try_from(parse_integer(displacement)?).ok()?
        };
        UsdtLocation::Memory {
            base: register_offset(base)?,
            displacement,
        }
    };
    Some(UsdtArgument {
        size,
        signed,
        location,
    })
}

/// A decimal or `0x` hexadecimal integer, possibly negative.
fn parse_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The `pt_regs` offset of an x86_64 register by any of its names (`rax`, `eax`, `ax`,
/// `al`, `r8`, `r8d`, …): a narrower name reads the register's low bytes, which the
/// argument's size then keeps.
fn register_offset(name: &str) -> Option<i16> {
    // `%rip` is left out: a displacement from it counts from the instruction after the
    // probe's, not from the address the uprobe reports.
    const LEGACY: [(&str, [&str; 3], i16); 8] = [
        ("rax", ["eax", "ax", "al"], 80),
        ("rbx", ["ebx", "bx", "bl"], 40),
        ("rcx", ["ecx", "cx", "cl"], 88),
        ("rdx", ["edx", "dx", "dl"], 96),
        ("rsi", ["esi", "si", "sil"], 104),
        ("rdi", ["edi", "di", "dil"], 112),
        ("rbp", ["ebp", "bp", "bpl"], 32),
        ("rsp", ["esp", "sp", "spl"], 152),
    ];
    const NUMBERED: [(&str, i16); 8] = [
        ("r8", 72),
        ("r9", 64),
        ("r10", 56),
        ("r11", 48),
        ("r12", 24),
        ("r13", 16),
        ("r14", 8),
        ("r15", 0),
    ];
    if let Some((_, _, offset)) = LEGACY
        .iter()
        .find(|(full, narrower, _)| *full == name || narrower.contains(&name))
    {
        return Some(*offset);
    }
    let base = name.trim_end_matches(['d', 'w', 'b']);
    NUMBERED
        .iter()
        .find(|(register, _)| *register == base)
        .map(|(_, offset)| *offset)
}

/// Fills the work area's argument words named in `used` from the probe's `pt_regs`
/// (`ctx`) as `arguments` say; a memory argument that cannot be read stays 0.
pub fn load_usdt_arguments(
    code: &mut ProgramCode,
    arguments: &[UsdtArgument],
    used: u16,
    word_of: impl Fn(u32) -> u32,
) {
    for (index, argument) in arguments.iter().enumerate().take(10) {
        let index = index as u32;
        if used & (1 << index) == 0 {
            continue;
        }
        let word = word_of(index);
        match argument.location {
            UsdtLocation::Register(offset) => {
                code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, CONTEXT, offset));
            }
            UsdtLocation::Constant(value) => {
                code.emit_all(&Insn::ld_imm64(Reg::R0, value as u64));
            }
            UsdtLocation::Memory { base, displacement } => {
                code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, CONTEXT, base));
                code.emit(Insn::add64_imm(Reg::R3, displacement));
                code.state_pointer(Reg::R1, word);
                code.emit(Insn::mov64_imm(Reg::R2, i32::from(argument.size)));
                code.call(Helper::ProbeReadUser);
                code.load_state(Reg::R0, word);
            }
        }
        if argument.size < 8 {
            let unused_bits = 64 - 8 * i32::from(argument.size);
            code.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R0, unused_bits));
            let shift = if argument.signed {
                AluOp::Arsh
            } else {
                AluOp::Rsh
            };
            code.emit(Insn::alu64_imm(shift, Reg::R0, unused_bits));
        }
        code.store_state(word, Reg::R0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_function_entry_arguments() {
        assert_eq!(
            parse_usdt_arguments("8@%rbp 8@%r12 -4@%eax"),
            Some(vec![
                UsdtArgument {
                    size: 8,
                    signed: false,
                    location: UsdtLocation::Register(32)
                },
                UsdtArgument {
                    size: 8,
                    signed: false,
                    location: UsdtLocation::Register(24)
                },
                UsdtArgument {
                    size: 4,
                    signed: true,
                    location: UsdtLocation::Register(80)
                },
            ])
        );
    }

    #[test]
    fn memory_constant_and_narrow_register_arguments() {
        let parsed = parse_usdt_arguments("-4@-20(%rbp) 8@$0x10 1@%r9b 2@(%rsp)").unwrap();
        assert_eq!(
            parsed
                .iter()
                .map(|argument| argument.location)
                .collect::<Vec<_>>(),
            [
                UsdtLocation::Memory {
                    base: 32,
                    displacement: -20
                },
                UsdtLocation::Constant(16),
                UsdtLocation::Register(64),
                UsdtLocation::Memory {
                    base: 152,
                    displacement: 0
                },
            ]
        );
        assert_eq!(parsed[2].size, 1);
    }

    #[test]
    fn unknown_forms_are_refused() {
        assert_eq!(parse_usdt_arguments("8@counter(%rip)"), None);
        assert_eq!(parse_usdt_arguments("8@(%rax,%rbx,8)"), None);
        assert_eq!(parse_usdt_arguments("8@8(%rip)"), None);
        assert_eq!(parse_usdt_arguments("3@%rax"), None);
        assert_eq!(parse_usdt_arguments(""), Some(Vec::new()));
    }
}
