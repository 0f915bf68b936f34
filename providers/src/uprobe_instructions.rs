//! Which x86-64 instructions Linux refuses to place a uprobe on (the kernel's
//! `arch/x86/kernel/uprobes.c`: `good_insns_64` and `is_prefix_bad`), so that the pid provider leaves them out of globbed offset probes
//! and refuses them by name at compile time instead of failing the whole enabling with
//! the kernel's ENOTSUPP.

/// The one-byte opcodes the kernel refuses: those invalid in 64-bit mode, EVEX (62),
/// the port I/O instructions, the software interrupts (`int3`, `int1`, `int`, `into`),
/// `iret`, `hlt`, `cli` and `sti`. (Checked against Linux 6.18: every opcode of the
/// two-byte maps that `x86_length` decodes is accepted.)
const REFUSED_ONE_BYTE: &[u8] = &[
    0x06, 0x07, 0x0E, 0x16, 0x17, 0x1E, 0x1F, 0x27, 0x2F, 0x37, 0x3F, 0x60, 0x61, 0x62, 0x6C, 0x6D,
    0x6E, 0x6F, 0x82, 0x9A, 0xCC, 0xCD, 0xCE, 0xCF, 0xD4, 0xD5, 0xD6, 0xE4, 0xE5, 0xE6, 0xE7, 0xEA,
    0xEC, 0xED, 0xEE, 0xEF, 0xF1, 0xF4, 0xFA, 0xFB,
];

/// Whether the kernel refuses a uprobe on the instruction at the start of
/// `instruction`: one with a `lock` prefix or an ES, CS, SS or DS segment prefix (the
/// kernel cannot single-step those out of line), or one of the refused one-byte
/// opcodes.
pub fn uprobe_refuses(instruction: &[u8]) -> bool {
    let mut position = 0;
    while let Some(&byte) = instruction.get(position) {
        match byte {
            0xF0 | 0x26 | 0x2E | 0x36 | 0x3E => return true,
            0x64 | 0x65 | 0x66 | 0x67 | 0xF2 | 0xF3 | 0x40..=0x4F => position += 1,
            0x0F => return false,
            opcode => return REFUSED_ONE_BYTE.contains(&opcode),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::uprobe_refuses;

    #[test]
    fn refused_instructions() {
        for refused in [
            &[0xF0, 0x48, 0x0F, 0xB1, 0x0A][..],
            &[0x66, 0x2E, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
            &[0xCC],
            &[0xF4],
            &[0xE4, 0x10],
            &[0xFA],
            &[0x3E, 0x90],
            &[0x62, 0xF1, 0xFE, 0x28, 0x6F, 0x0E],
        ] {
            assert!(uprobe_refuses(refused), "{refused:02x?}");
        }
        for accepted in [
            &[0x55][..],
            &[0xF3, 0x0F, 0x1E, 0xFA],
            &[0x64, 0x48, 0x8B, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00],
            &[0x0F, 0x1F, 0x44, 0x00, 0x00],
            &[0x66, 0x0F, 0x38, 0x00, 0xC1],
            &[0xC5, 0xF8, 0x77],
            &[0xE8, 0x00, 0x00, 0x00, 0x00],
            &[0xC3],
            &[0x0F, 0x05],
            &[0x0F, 0x0B],
            &[0x65, 0x90],
        ] {
            assert!(!uprobe_refuses(accepted), "{accepted:02x?}");
        }
    }
}
