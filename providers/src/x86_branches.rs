//! Where a function's x86-64 code returns: the offsets of its `ret` instructions, when
//! control can leave the function no other way (no jump out of it, no indirect jump),
//! and otherwise every instruction that may leave it, so that a pid return probe's
//! `arg0` can be the offset of the instruction the function left by, as DTrace's is.

use crate::x86_length::instruction_length;

/// How one instruction transfers control, as far as leaving the function goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transfer {
    /// `ret` or `ret imm16`.
    Return,
    /// A jump (conditional or not) to this offset from the instruction's end.
    Relative(i64),
    /// A jump whose target is not in the instruction: `jmp *…`, far jumps and returns.
    Indirect,
    /// Anything else, calls included (they come back).
    Other,
}

/// The transfer of the `length`-byte instruction at the start of `instruction`.
fn transfer(instruction: &[u8], length: usize) -> Transfer {
    let mut position = 0;
    while let Some(&byte) = instruction.get(position) {
        if matches!(byte, 0x26 | 0x2E | 0x36 | 0x3E | 0x64..=0x67 | 0xF0 | 0xF2 | 0xF3 | 0x40..=0x4F)
        {
            position += 1;
        } else {
            break;
        }
    }
    let last = |bytes: usize| -> i64 {
        let tail = &instruction[length - bytes..length];
        match bytes {
            1 => i64::from(tail[0] as i8),
            _ => i64::from(i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]])),
        }
    };
    match (instruction.get(position), instruction.get(position + 1)) {
        (Some(0xC3 | 0xC2), _) => Transfer::Return,
        (Some(0xCA | 0xCB | 0xCF | 0xEA), _) => Transfer::Indirect,
        (Some(0xEB | 0x70..=0x7F | 0xE0..=0xE3), _) => Transfer::Relative(last(1)),
        (Some(0xE9), _) => Transfer::Relative(last(4)),
        (Some(0x0F), Some(0x80..=0x8F)) => Transfer::Relative(last(4)),
        (Some(0xC7), Some(0xF8)) => Transfer::Relative(last(4)),
        (Some(0xFF), Some(modrm)) if matches!((modrm >> 3) & 7, 4 | 5) => Transfer::Indirect,
        _ => Transfer::Other,
    }
}

/// The offsets of the `ret` instructions of a function whose code is `code`, when
/// every way out of it is one of them; None when the code does not decode, has no
/// `ret`, or may leave another way (a tail call's jump out of the function, an
/// indirect jump, which may be one too).
pub fn return_offsets(code: &[u8]) -> Option<Vec<u64>> {
    let mut returns = Vec::new();
    let mut position = 0;
    while position < code.len() {
        let length = instruction_length(&code[position..])?;
        match transfer(&code[position..], length) {
            Transfer::Return => returns.push(position as u64),
            Transfer::Indirect => return None,
            Transfer::Relative(displacement) => {
                let target = (position + length) as i64 + displacement;
                if target < 0 || target >= code.len() as i64 {
                    return None;
                }
            }
            Transfer::Other => {}
        }
        position += length;
    }
    (!returns.is_empty()).then_some(returns)
}

/// The offsets of every instruction by which a function whose code is `code` may leave
/// it: its `ret`s, jumps to outside it (tail calls) and indirect or far jumps (tail
/// calls through pointers, or a switch's jump inside it). None when the code does not
/// decode.
pub fn exit_offsets(code: &[u8]) -> Option<Vec<u64>> {
    let mut exits = Vec::new();
    let mut position = 0;
    while position < code.len() {
        let length = instruction_length(&code[position..])?;
        let leaves = match transfer(&code[position..], length) {
            Transfer::Return | Transfer::Indirect => true,
            Transfer::Relative(displacement) => {
                let target = (position + length) as i64 + displacement;
                target < 0 || target >= code.len() as i64
            }
            Transfer::Other => false,
        };
        if leaves {
            exits.push(position as u64);
        }
        position += length;
    }
    Some(exits)
}

#[cfg(test)]
mod tests {
    use super::{exit_offsets, return_offsets};

    #[test]
    fn returns_of_functions_that_leave_only_by_ret() {
        // push %rbp; mov %rsp,%rbp; test %edi,%edi; je +3; mov $1,%eax; pop %rbp; ret
        // (the je lands on pop, inside the function).
        let code = [
            0x55, 0x48, 0x89, 0xE5, 0x85, 0xFF, 0x74, 0x05, 0xB8, 0x01, 0x00, 0x00, 0x00, 0x5D,
            0xC3,
        ];
        assert_eq!(return_offsets(&code), Some(vec![14]));
        // Two returns, one `repz ret`: test; jne +1; ret; repz ret.
        let code = [0x85, 0xFF, 0x75, 0x01, 0xC3, 0xF3, 0xC3];
        assert_eq!(return_offsets(&code), Some(vec![4, 5]));
        // `ret $8`.
        assert_eq!(return_offsets(&[0xC2, 0x08, 0x00]), Some(vec![0]));
        // A call comes back: call rel32; ret.
        assert_eq!(
            return_offsets(&[0xE8, 0x00, 0x10, 0x00, 0x00, 0xC3]),
            Some(vec![5])
        );
    }

    #[test]
    fn functions_that_may_leave_otherwise_have_none() {
        // A tail call: jmp rel32 out of the function.
        assert_eq!(return_offsets(&[0xE9, 0x00, 0x10, 0x00, 0x00]), None);
        // A conditional tail call: test; jne out; ret.
        assert_eq!(return_offsets(&[0x85, 0xFF, 0x75, 0x40, 0xC3]), None);
        // An indirect jump (a switch's table, or a tail call through a pointer).
        assert_eq!(return_offsets(&[0xFF, 0xE0, 0xC3]), None);
        assert_eq!(return_offsets(&[0x3E, 0xFF, 0xE0, 0xC3]), None);
        // No ret at all (a function that never returns), and undecodable code.
        assert_eq!(return_offsets(&[0x55, 0xE8, 0, 0, 0, 0]), None);
        assert_eq!(return_offsets(&[0x06, 0xC3]), None);
    }

    #[test]
    fn exits_are_rets_jumps_out_and_indirect_jumps() {
        // test; jne +1; ret; repz ret.
        let code = [0x85, 0xFF, 0x75, 0x01, 0xC3, 0xF3, 0xC3];
        assert_eq!(exit_offsets(&code), Some(vec![4, 5]));
        // test; jne out; ret: the conditional tail call and the ret.
        assert_eq!(
            exit_offsets(&[0x85, 0xFF, 0x75, 0x40, 0xC3]),
            Some(vec![2, 4])
        );
        // jmp *%rax; ret, and a tail call jmp rel32 alone.
        assert_eq!(exit_offsets(&[0xFF, 0xE0, 0xC3]), Some(vec![0, 2]));
        assert_eq!(exit_offsets(&[0xE9, 0x00, 0x10, 0x00, 0x00]), Some(vec![0]));
        // A jump inside the function and a call are no exits.
        assert_eq!(
            exit_offsets(&[0xEB, 0x00, 0xE8, 0x00, 0x10, 0x00, 0x00, 0xC3]),
            Some(vec![7])
        );
        assert_eq!(exit_offsets(&[0x06, 0xC3]), None);
    }
}
