//! Golden tests of instruction encodings (against the bytes clang and the kernel use) and of
//! disassembly text (against the verifier log's syntax).

use super::*;

/// Checks that `instructions` encode to `hex` (slots separated by `|`) and that each
/// instruction (an `ld_imm64` pair counting as one) disassembles to the matching line of
/// `text`; also that decoding the bytes gives the instructions back.
fn check(instructions: &[Insn], hex: &str, text: &str) {
    let bytes = encode_program(instructions);
    let expected_bytes: Vec<u8> = hex
        .split(['|', ' '])
        .filter(|part| !part.is_empty())
        .map(|byte| u8::from_str_radix(byte, 16).expect("test hex"))
        .collect();
    assert_eq!(
        bytes, expected_bytes,
        "encoding of {instructions:?}\n  got {bytes:02x?}"
    );
    assert_eq!(decode_program(&bytes).as_deref(), Some(instructions));
    let mut lines = Vec::new();
    let mut index = 0;
    while index < instructions.len() {
        lines.push(instruction_text(
            &instructions[index],
            instructions.get(index + 1),
        ));
        index += if instructions[index].is_ld_imm64() {
            2
        } else {
            1
        };
    }
    assert_eq!(lines.join("\n"), text);
}

#[test]
fn alu_encodings_and_text() {
    let cases: &[(Insn, &str, &str)] = &[
        (
            Insn::mov64_reg(Reg::R1, Reg::R10),
            "bf a1 00 00 00 00 00 00",
            "r1 = r10",
        ),
        (
            Insn::add64_imm(Reg::R1, -8),
            "07 01 00 00 f8 ff ff ff",
            "r1 += -8",
        ),
        (
            Insn::mov64_imm(Reg::R0, 0),
            "b7 00 00 00 00 00 00 00",
            "r0 = 0",
        ),
        (
            Insn::mov32_imm(Reg::R2, 7),
            "b4 02 00 00 07 00 00 00",
            "w2 = 7",
        ),
        (
            Insn::mov32_reg(Reg::R0, Reg::R1),
            "bc 10 00 00 00 00 00 00",
            "w0 = w1",
        ),
        (
            Insn::alu64_reg(AluOp::Sub, Reg::R3, Reg::R4),
            "1f 43 00 00 00 00 00 00",
            "r3 -= r4",
        ),
        (
            Insn::alu64_imm(AluOp::Mul, Reg::R3, 3),
            "27 03 00 00 03 00 00 00",
            "r3 *= 3",
        ),
        (
            Insn::alu64_reg(AluOp::Div, Reg::R3, Reg::R4),
            "3f 43 00 00 00 00 00 00",
            "r3 /= r4",
        ),
        (
            Insn::alu64_reg(AluOp::SDiv, Reg::R3, Reg::R4),
            "3f 43 01 00 00 00 00 00",
            "r3 s/= r4",
        ),
        (
            Insn::alu64_imm(AluOp::Mod, Reg::R5, 10),
            "97 05 00 00 0a 00 00 00",
            "r5 %= 10",
        ),
        (
            Insn::alu32_imm(AluOp::SMod, Reg::R5, 10),
            "94 05 01 00 0a 00 00 00",
            "w5 s%= 10",
        ),
        (
            Insn::alu64_imm(AluOp::Or, Reg::R1, 1),
            "47 01 00 00 01 00 00 00",
            "r1 |= 1",
        ),
        (
            Insn::alu64_imm(AluOp::And, Reg::R1, 255),
            "57 01 00 00 ff 00 00 00",
            "r1 &= 255",
        ),
        (
            Insn::alu64_imm(AluOp::Lsh, Reg::R1, 32),
            "67 01 00 00 20 00 00 00",
            "r1 <<= 32",
        ),
        (
            Insn::alu64_imm(AluOp::Rsh, Reg::R1, 32),
            "77 01 00 00 20 00 00 00",
            "r1 >>= 32",
        ),
        (
            Insn::alu64_imm(AluOp::Arsh, Reg::R1, 32),
            "c7 01 00 00 20 00 00 00",
            "r1 s>>= 32",
        ),
        (
            Insn::alu32_reg(AluOp::Xor, Reg::R6, Reg::R7),
            "ac 76 00 00 00 00 00 00",
            "w6 ^= w7",
        ),
        (Insn::neg64(Reg::R2), "87 02 00 00 00 00 00 00", "r2 = -r2"),
        (Insn::neg32(Reg::R2), "84 02 00 00 00 00 00 00", "w2 = -w2"),
        (
            Insn::movsx64_reg(Reg::R1, Reg::R2, ExtendFrom::S8),
            "bf 21 08 00 00 00 00 00",
            "r1 = (s8)r2",
        ),
        (
            Insn::movsx64_reg(Reg::R1, Reg::R2, ExtendFrom::S32),
            "bf 21 20 00 00 00 00 00",
            "r1 = (s32)r2",
        ),
        (
            Insn::movsx32_reg(Reg::R1, Reg::R2, ExtendFrom::S16),
            "bc 21 10 00 00 00 00 00",
            "w1 = (s16)w2",
        ),
        (
            Insn::to_be(Reg::R1, SwapWidth::W16),
            "dc 01 00 00 10 00 00 00",
            "r1 = be16 r1",
        ),
        (
            Insn::to_le(Reg::R1, SwapWidth::W64),
            "d4 01 00 00 40 00 00 00",
            "r1 = le64 r1",
        ),
        (
            Insn::bswap(Reg::R1, SwapWidth::W32),
            "d7 01 00 00 20 00 00 00",
            "r1 = bswap32 r1",
        ),
    ];
    for (instruction, hex, text) in cases {
        check(&[*instruction], hex, text);
    }
}

#[test]
fn load_store_and_atomic_encodings_and_text() {
    let cases: &[(Insn, &str, &str)] = &[
        (
            Insn::stx_mem(MemSize::DW, Reg::R10, Reg::R1, -8),
            "7b 1a f8 ff 00 00 00 00",
            "*(u64 *)(r10 -8) = r1",
        ),
        (
            Insn::stx_mem(MemSize::B, Reg::R2, Reg::R3, 0),
            "73 32 00 00 00 00 00 00",
            "*(u8 *)(r2 +0) = r3",
        ),
        (
            Insn::st_mem(MemSize::W, Reg::R10, -4, 0),
            "62 0a fc ff 00 00 00 00",
            "*(u32 *)(r10 -4) = 0",
        ),
        (
            Insn::st_mem(MemSize::H, Reg::R1, 2, -1),
            "6a 01 02 00 ff ff ff ff",
            "*(u16 *)(r1 +2) = -1",
        ),
        (
            Insn::ldx_mem(MemSize::W, Reg::R0, Reg::R1, 4),
            "61 10 04 00 00 00 00 00",
            "r0 = *(u32 *)(r1 +4)",
        ),
        (
            Insn::ldx_mem(MemSize::DW, Reg::R6, Reg::R1, 8),
            "79 16 08 00 00 00 00 00",
            "r6 = *(u64 *)(r1 +8)",
        ),
        (
            Insn::ldx_memsx(MemSize::B, Reg::R2, Reg::R10, -1),
            "91 a2 ff ff 00 00 00 00",
            "r2 = *(s8 *)(r10 -1)",
        ),
        (
            Insn::atomic(MemSize::DW, AtomicOp::Add, Reg::R0, Reg::R1, 0),
            "db 10 00 00 00 00 00 00",
            "lock *(u64 *)(r0 +0) += r1",
        ),
        (
            Insn::atomic(MemSize::W, AtomicOp::Or, Reg::R0, Reg::R1, 4),
            "c3 10 04 00 40 00 00 00",
            "lock *(u32 *)(r0 +4) |= r1",
        ),
        (
            Insn::atomic(MemSize::DW, AtomicOp::FetchAdd, Reg::R0, Reg::R1, 0),
            "db 10 00 00 01 00 00 00",
            "r1 = atomic64_fetch_add((u64 *)(r0 +0), r1)",
        ),
        (
            Insn::atomic(MemSize::W, AtomicOp::FetchXor, Reg::R0, Reg::R1, 0),
            "c3 10 00 00 a1 00 00 00",
            "r1 = atomic_fetch_xor((u32 *)(r0 +0), r1)",
        ),
        (
            Insn::atomic(MemSize::DW, AtomicOp::Xchg, Reg::R3, Reg::R4, -16),
            "db 43 f0 ff e1 00 00 00",
            "r4 = atomic64_xchg((u64 *)(r3 -16), r4)",
        ),
        (
            Insn::atomic(MemSize::DW, AtomicOp::CmpXchg, Reg::R1, Reg::R2, 0),
            "db 21 00 00 f1 00 00 00",
            "r0 = atomic64_cmpxchg((u64 *)(r1 +0), r0, r2)",
        ),
    ];
    for (instruction, hex, text) in cases {
        check(&[*instruction], hex, text);
    }
}

#[test]
fn jump_call_and_exit_encodings_and_text() {
    let cases: &[(Insn, &str, &str)] = &[
        (
            Insn::jmp_imm(JmpOp::Gt, Reg::R1, 5, 3),
            "25 01 03 00 05 00 00 00",
            "if r1 > 0x5 goto pc+3",
        ),
        (
            Insn::jmp_imm(JmpOp::Eq, Reg::R0, 0, 7),
            "15 00 07 00 00 00 00 00",
            "if r0 == 0x0 goto pc+7",
        ),
        (
            Insn::jmp_imm(JmpOp::Sgt, Reg::R1, -1, 1),
            "65 01 01 00 ff ff ff ff",
            "if r1 s> 0xffffffff goto pc+1",
        ),
        (
            Insn::jmp_reg(JmpOp::Ne, Reg::R1, Reg::R2, -4),
            "5d 21 fc ff 00 00 00 00",
            "if r1 != r2 goto pc-4",
        ),
        (
            Insn::jmp32_imm(JmpOp::Ne, Reg::R0, 7, 2),
            "56 00 02 00 07 00 00 00",
            "if w0 != 0x7 goto pc+2",
        ),
        (
            Insn::jmp32_reg(JmpOp::Sle, Reg::R3, Reg::R4, 1),
            "de 43 01 00 00 00 00 00",
            "if w3 s<= w4 goto pc+1",
        ),
        (
            Insn::jmp_imm(JmpOp::Set, Reg::R1, 8, 1),
            "45 01 01 00 08 00 00 00",
            "if r1 & 0x8 goto pc+1",
        ),
        (Insn::ja(-1), "05 00 ff ff 00 00 00 00", "goto pc-1"),
        (
            Insn::call(Helper::MapLookupElem),
            "85 00 00 00 01 00 00 00",
            "call bpf_map_lookup_elem#1",
        ),
        (
            Insn::call(Helper::ProbeReadUserStr),
            "85 00 00 00 72 00 00 00",
            "call bpf_probe_read_user_str#114",
        ),
        (
            Insn::call_helper_number(100000),
            "85 00 00 00 a0 86 01 00",
            "call unknown#100000",
        ),
        (Insn::call_local(5), "85 10 00 00 05 00 00 00", "call pc+5"),
        (Insn::exit(), "95 00 00 00 00 00 00 00", "exit"),
    ];
    for (instruction, hex, text) in cases {
        check(&[*instruction], hex, text);
    }
}

#[test]
fn ld_imm64_forms() {
    check(
        &Insn::ld_imm64(Reg::R1, 0x1122_3344_5566_7788),
        "18 01 00 00 88 77 66 55 | 00 00 00 00 44 33 22 11",
        "r1 = 0x1122334455667788",
    );
    check(
        &Insn::ld_imm64(Reg::R2, u64::MAX),
        "18 02 00 00 ff ff ff ff | 00 00 00 00 ff ff ff ff",
        "r2 = 0xffffffffffffffff",
    );
    check(
        &Insn::ld_map_fd(Reg::R1, 3),
        "18 11 00 00 03 00 00 00 | 00 00 00 00 00 00 00 00",
        "r1 = map[fd:3]",
    );
    check(
        &Insn::ld_map_value(Reg::R6, 4, 16),
        "18 26 00 00 04 00 00 00 | 00 00 00 00 10 00 00 00",
        "r6 = map[fd:4][0]+16",
    );
}

#[test]
fn listing_numbers_slots_like_the_verifier() {
    let mut program = vec![Insn::mov64_reg(Reg::R2, Reg::R10)];
    program.extend(Insn::ld_map_fd(Reg::R1, 5));
    program.push(Insn::call(Helper::MapLookupElem));
    program.push(Insn::exit());
    assert_eq!(
        disassemble(&program),
        "0: (bf) r2 = r10\n1: (18) r1 = map[fd:5]\n3: (85) call bpf_map_lookup_elem#1\n4: (95) exit\n"
    );
    assert_eq!(
        disassemble_with(&program[1..3], &|fd| format!("map[id:{}]", fd + 100)),
        "0: (18) r1 = map[id:105]\n"
    );
}

#[test]
fn malformed_instructions_do_not_panic() {
    let cases: &[(Insn, &str)] = &[
        (Insn::new(0xf5, 1, 2, 0, 0), "BUG_f5"),
        (Insn::new(0xff, 1, 2, 0, 0), "BUG_alu_ff"),
        (Insn::new(0x93, 1, 2, 0, 0), "BUG_93"),
        (Insn::new(0xe7, 1, 2, 0, 0), "BUG_alu_e7"),
        (Insn::new(0x18, 1, 0, 0, 0), "BUG_ld_18"),
        (Insn::new(0x21, 1, 0, 0, 0), "BUG_ldx_21"),
    ];
    for (instruction, text) in cases {
        assert_eq!(instruction_text(instruction, None), *text);
    }
    assert_eq!(decode_program(&[0u8; 7]), None);
}

#[test]
fn assembler_resolves_forward_and_backward_labels() {
    let mut assembler = Assembler::new();
    let out = assembler.new_label();
    let top = assembler.new_label();
    let callback = assembler.new_label();
    assembler.bind(top);
    assembler.emit(Insn::mov64_imm(Reg::R0, 0));
    assembler.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, out);
    assembler.jmp32_reg_to(JmpOp::Lt, Reg::R1, Reg::R2, top);
    assembler.ld_function_address(Reg::R2, callback);
    assembler.call_to(callback);
    assembler.ja_to(out);
    assembler.bind(out);
    assembler.emit(Insn::exit());
    assembler.bind(callback);
    assembler.emit(Insn::mov64_imm(Reg::R0, 1));
    assembler.emit(Insn::exit());
    let program = assembler.finish().expect("assembles");
    assert_eq!(
        disassemble(&program),
        "0: (b7) r0 = 0\n\
         1: (15) if r1 == 0x0 goto pc+5\n\
         2: (ae) if w1 < w2 goto pc-3\n\
         3: (18) r2 = subprog[+4]\n\
         5: (85) call pc+2\n\
         6: (05) goto pc+0\n\
         7: (95) exit\n\
         8: (b7) r0 = 1\n\
         9: (95) exit\n"
    );
}

#[test]
fn assembler_reports_label_errors() {
    let mut assembler = Assembler::new();
    let never = assembler.new_label();
    assembler.ja_to(never);
    assert_eq!(
        assembler.finish(),
        Err(AssembleError::UnboundLabel {
            label: 0,
            referenced_at: 0
        })
    );

    let mut assembler = Assembler::new();
    let twice = assembler.new_label();
    assembler.bind(twice);
    assembler.bind(twice);
    assert_eq!(
        assembler.finish(),
        Err(AssembleError::LabelBoundTwice { label: 0 })
    );
}

#[test]
fn assembler_relaxes_jumps_too_long_for_an_offset() {
    // An unconditional jump becomes gotol in place; a conditional one keeps its
    // condition and jumps over a `goto +1` onto a gotol; a short jump spanning the
    // added slots is lengthened by them.
    let mut assembler = Assembler::with_long_jumps(true);
    let far = assembler.new_label();
    let near = assembler.new_label();
    assembler.jmp_imm_to(JmpOp::Set, Reg::R1, 8, near);
    assembler.ja_to(far);
    assembler.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, far);
    assembler.bind(near);
    for _ in 0..40_000 {
        assembler.emit(Insn::mov64_imm(Reg::R0, 0));
    }
    assembler.bind(far);
    let exit_slot = assembler.position();
    assembler.emit(Insn::exit());
    // The slots the caller keeps move with the relaxation.
    let mut slots = [exit_slot, 3];
    let instructions = assembler.finish_moving(&mut slots).expect("relaxed");
    assert_eq!(slots, [40_005, 5]);
    assert_eq!(instructions.len(), 40_006);
    assert_eq!(instructions[0], Insn::jmp_imm(JmpOp::Set, Reg::R1, 8, 4));
    assert_eq!(instructions[1], Insn::gotol(40_003));
    assert_eq!(instructions[2], Insn::jmp_imm(JmpOp::Eq, Reg::R1, 0, 1));
    assert_eq!(instructions[3], Insn::ja(1));
    assert_eq!(instructions[4], Insn::gotol(40_000));
    assert_eq!(instructions[40_005], Insn::exit());
}

#[test]
fn assembler_for_a_kernel_without_gotol_keeps_offsets_and_refuses_what_they_cannot_hold() {
    // Before Linux 6.4 a jump of 10,000 stays in its offset, and one of 40,000 is the
    // assembler's own error rather than an opcode the kernel does not know.
    let mut assembler = Assembler::with_long_jumps(false);
    let far = assembler.new_label();
    assembler.ja_to(far);
    for _ in 0..10_000 {
        assembler.emit(Insn::mov64_imm(Reg::R0, 0));
    }
    assembler.bind(far);
    assembler.emit(Insn::exit());
    let instructions = assembler.finish().expect("fits its offset");
    assert_eq!(instructions[0], Insn::ja(10_000));

    let mut assembler = Assembler::with_long_jumps(false);
    let far = assembler.new_label();
    assembler.ja_to(far);
    for _ in 0..40_000 {
        assembler.emit(Insn::mov64_imm(Reg::R0, 0));
    }
    assembler.bind(far);
    assembler.emit(Insn::exit());
    assert!(matches!(
        assembler.finish(),
        Err(AssembleError::JumpOutOfRange {
            slot: 0,
            distance: 40_000
        })
    ));
}

#[test]
fn kernel_releases_from_6_4_on_take_long_jumps() {
    assert!(!assembler::release_takes_long_jumps("6.1.0-56-cloud-amd64"));
    assert!(!assembler::release_takes_long_jumps("5.15.0"));
    assert!(assembler::release_takes_long_jumps("6.4.0"));
    assert!(assembler::release_takes_long_jumps("6.18.44-fc-v657"));
    assert!(assembler::release_takes_long_jumps("7.0"));
    assert!(!assembler::release_takes_long_jumps("garbage"));
}

#[test]
fn registers_and_sizes() {
    assert_eq!(Reg::new(10), Some(Reg::FP));
    assert_eq!(Reg::new(11), None);
    assert_eq!(MemSize::from_bytes(4), Some(MemSize::W));
    assert_eq!(MemSize::from_bytes(3), None);
    assert_eq!(MemSize::DW.bytes(), 8);
}
