//! Instruction lengths of byte sequences whose lengths are known (from `objdump -d`
//! of binaries on a development machine, and from the Intel and AMD manuals).

use super::{instruction_length, instruction_offsets};

/// Parses "48 83 ec 08" into bytes.
fn bytes(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|byte| u8::from_str_radix(byte, 16).expect(byte))
        .collect()
}

/// Asserts that each sequence decodes to exactly its own length, and that a longer
/// buffer (the next instruction's bytes after it) does not change that.
fn assert_lengths(cases: &[(&str, &str)]) {
    for (text, what) in cases {
        let code = bytes(text);
        assert_eq!(
            instruction_length(&code),
            Some(code.len()),
            "{what}: {text}"
        );
        let mut followed = code.clone();
        followed.extend_from_slice(&[0x90; 16]);
        assert_eq!(
            instruction_length(&followed),
            Some(code.len()),
            "{what} followed by nops: {text}"
        );
    }
}

#[test]
fn one_byte_map_instructions() {
    assert_lengths(&[
        ("55", "push %rbp"),
        ("c3", "ret"),
        ("f3 c3", "repz ret"),
        ("cc", "int3"),
        ("90", "nop"),
        ("41 57", "push %r15"),
        ("48 89 e5", "mov %rsp,%rbp"),
        ("48 83 ec 08", "sub $0x8,%rsp"),
        ("48 81 ec 00 01 00 00", "sub $0x100,%rsp"),
        ("48 8b 05 bd 6f 00 00", "mov 0x6fbd(%rip),%rax"),
        ("89 7d fc", "mov %edi,-0x4(%rbp)"),
        ("8b 45 fc", "mov -0x4(%rbp),%eax"),
        ("8b 44 24 08", "mov 0x8(%rsp),%eax"),
        ("8b 84 24 00 01 00 00", "mov 0x100(%rsp),%eax"),
        ("8b 04 25 00 10 00 00", "mov 0x1000,%eax (SIB without base)"),
        ("8b 04 8d 00 10 00 00", "mov 0x1000(,%rcx,4),%eax"),
        ("8b 04 88", "mov (%rax,%rcx,4),%eax"),
        ("8b 44 88 10", "mov 0x10(%rax,%rcx,4),%eax"),
        ("43 8b 44 88 10", "mov 0x10(%r8,%r9,4),%eax"),
        ("b8 00 00 00 00", "mov $0x0,%eax"),
        ("41 b8 01 00 00 00", "mov $0x1,%r8d"),
        (
            "48 b8 88 77 66 55 44 33 22 11",
            "movabs $0x1122334455667788,%rax",
        ),
        ("66 b8 34 12", "mov $0x1234,%ax"),
        ("48 c7 c0 ff ff ff ff", "mov $-1,%rax (imm32 under REX.W)"),
        ("66 c7 45 fe 34 12", "movw $0x1234,-0x2(%rbp)"),
        ("66 48 c7 c0 01 00 00 00", "REX.W overrides 66 for Iz"),
        ("c6 45 ff 01", "movb $0x1,-0x1(%rbp)"),
        ("e8 00 00 00 00", "call rel32"),
        ("e9 e0 ff ff ff", "jmp rel32"),
        ("eb fe", "jmp rel8"),
        ("74 02", "je rel8"),
        ("0f 84 10 00 00 00", "je rel32"),
        ("ff d0", "call *%rax"),
        ("ff 25 ca 6f 00 00", "jmp *0x6fca(%rip)"),
        ("ff 24 c5 00 10 00 00", "jmp *0x1000(,%rax,8)"),
        ("68 00 00 00 00", "push $0x0"),
        ("6a 01", "push $0x1"),
        ("69 c0 e8 03 00 00", "imul $0x3e8,%eax,%eax"),
        ("6b c0 0a", "imul $0xa,%eax,%eax"),
        ("a8 01", "test $0x1,%al"),
        ("a9 00 00 01 00", "test $0x10000,%eax"),
        ("66 a9 01 00", "test $0x1,%ax"),
        ("f6 c1 01", "test $0x1,%cl (group 3 test, byte)"),
        ("f6 45 f0 80", "testb $0x80,-0x10(%rbp)"),
        ("f7 c7 00 01 00 00", "test $0x100,%edi (group 3 test, Iz)"),
        ("66 f7 c7 00 01", "test $0x100,%di (group 3 test under 66)"),
        (
            "48 f7 c7 00 01 00 00",
            "test $0x100,%rdi (group 3 test under REX.W)",
        ),
        ("f7 d8", "neg %eax (group 3, no immediate)"),
        ("48 f7 f1", "div %rcx"),
        ("f6 e1", "mul %cl"),
        ("c1 e0 04", "shl $0x4,%eax"),
        ("d1 e8", "shr %eax"),
        ("c2 08 00", "ret $0x8"),
        ("c8 10 00 00", "enter $0x10,$0x0"),
        ("cd 80", "int $0x80"),
        (
            "a0 88 77 66 55 44 33 22 11",
            "movabs 0x1122334455667788,%al",
        ),
        (
            "48 a1 88 77 66 55 44 33 22 11",
            "movabs 0x1122334455667788,%rax",
        ),
        ("67 a1 44 33 22 11", "mov 0x11223344,%eax (67 moffs)"),
        ("48 63 c7", "movslq %edi,%rax"),
        ("8f 45 f8", "pop -0x8(%rbp) (8F /0, not XOP)"),
        ("d9 ee", "fldz"),
        ("dd 45 f0", "fldl -0x10(%rbp)"),
        ("f0 48 0f b1 0a", "lock cmpxchg %rcx,(%rdx)"),
        ("64 48 8b 04 25 28 00 00 00", "mov %fs:0x28,%rax"),
        ("f3 48 ab", "rep stos %rax,%es:(%rdi)"),
        ("66 2e 0f 1f 84 00 00 00 00 00", "cs nopw 0x0(%rax,%rax,1)"),
        (
            "66 66 2e 0f 1f 84 00 00 00 00 00",
            "data16 cs nopw 0x0(%rax,%rax,1)",
        ),
        ("0f 1f 44 00 00", "nopl 0x0(%rax,%rax,1)"),
        ("0f 1f 40 00", "nopl 0x0(%rax)"),
        ("0f 1f 00", "nopl (%rax)"),
        ("66 90", "xchg %ax,%ax"),
        ("c6 f8 05", "xabort $0x5"),
        ("c7 f8 10 00 00 00", "xbegin rel32"),
    ]);
}

#[test]
fn two_and_three_byte_map_instructions() {
    assert_lengths(&[
        ("f3 0f 1e fa", "endbr64"),
        ("0f 05", "syscall"),
        ("0f 0b", "ud2"),
        ("0f a2", "cpuid"),
        ("0f 31", "rdtsc"),
        ("0f af c1", "imul %ecx,%eax"),
        ("0f b6 45 ff", "movzbl -0x1(%rbp),%eax"),
        ("48 0f be c0", "movsbq %al,%rax"),
        ("0f 94 c0", "sete %al"),
        ("0f 44 c1", "cmove %ecx,%eax"),
        ("0f a4 c2 04", "shld $0x4,%eax,%edx"),
        ("0f ba e0 03", "bt $0x3,%eax"),
        ("f3 0f b8 c0", "popcnt %eax,%eax"),
        ("48 0f c8", "bswap %rax"),
        ("0f ae e8", "lfence"),
        ("0f ae f0", "mfence"),
        ("0f 01 d0", "xgetbv"),
        ("0f 20 c0", "mov %cr0,%rax"),
        ("0f 22 d8", "mov %rax,%cr3"),
        (
            "0f 20 00",
            "mov %cr0,%rax (ModRM.mod ignored: no displacement)",
        ),
        ("66 0f ef c0", "pxor %xmm0,%xmm0"),
        ("f2 0f 10 45 f0", "movsd -0x10(%rbp),%xmm0"),
        ("f3 0f 7e 05 00 10 00 00", "movq 0x1000(%rip),%xmm0"),
        ("66 0f 70 c0 00", "pshufd $0x0,%xmm0,%xmm0"),
        ("66 0f 73 d8 08", "psrldq $0x8,%xmm0"),
        ("0f c2 c1 01", "cmpltps %xmm1,%xmm0"),
        ("66 0f c4 c0 01", "pinsrw $0x1,%eax,%xmm0"),
        ("66 0f c5 c0 01", "pextrw $0x1,%xmm0,%eax"),
        ("0f c6 c1 1b", "shufps $0x1b,%xmm1,%xmm0"),
        ("0f c7 f0", "rdrand %eax"),
        ("0f 77", "emms"),
        ("66 0f 38 00 c1", "pshufb %xmm1,%xmm0"),
        ("66 0f 38 17 c1", "ptest %xmm1,%xmm0"),
        ("f2 0f 38 f1 c1", "crc32 %ecx,%eax"),
        ("0f 38 f0 07", "movbe (%rdi),%eax"),
        ("66 0f 3a 0f c1 08", "palignr $0x8,%xmm1,%xmm0"),
        (
            "66 0f 3a 63 0c 07 1a",
            "pcmpistri $0x1a,(%rdi,%rax,1),%xmm1",
        ),
        ("66 0f 3a 16 c0 01", "pextrd $0x1,%xmm0,%eax"),
        ("0f 0f c1 b4", "pfmul %mm1,%mm0 (3DNow!)"),
        ("0f 78 c0", "vmread %rax,%rax"),
        ("66 0f 78 c0 04 08", "extrq $0x8,$0x4,%xmm0 (SSE4a)"),
        ("f2 0f 78 c1 04 08", "insertq $0x8,$0x4,%xmm1,%xmm0 (SSE4a)"),
    ]);
}

#[test]
fn vex_evex_and_xop_instructions() {
    assert_lengths(&[
        ("c5 f8 77", "vzeroupper"),
        ("c5 fc 77", "vzeroall"),
        ("c5 f9 ef c0", "vpxor %xmm0,%xmm0,%xmm0"),
        ("c5 fe 6f 0e", "vmovdqu (%rsi),%ymm1"),
        ("c5 fe 6f 4e 20", "vmovdqu 0x20(%rsi),%ymm1"),
        ("c5 fd 74 0f", "vpcmpeqb (%rdi),%ymm0,%ymm1"),
        ("c5 fd d7 c1", "vpmovmskb %ymm1,%eax"),
        ("c5 f9 70 c0 00", "vpshufd $0x0,%xmm0,%xmm0"),
        ("c5 f8 c2 c1 01", "vcmpltps %xmm1,%xmm0,%xmm0"),
        ("c4 e2 7d 78 c0", "vpbroadcastb %xmm0,%ymm0"),
        ("c4 e2 79 00 c1", "vpshufb %xmm1,%xmm0,%xmm0"),
        ("c4 e3 7d 39 c1 01", "vextracti128 $0x1,%ymm0,%xmm1"),
        ("c4 c1 7e 6f 04 24", "vmovdqu (%r12),%ymm0"),
        ("c4 e2 f9 f7 c0", "shlx %rax,%rax,%rax (BMI2)"),
        ("c4 e3 fb f0 c0 05", "rorx $0x5,%rax,%rax"),
        ("62 e1 fe 28 6f 0e", "vmovdqu64 (%rsi),%ymm17"),
        (
            "62 b1 fe 28 6f 4e 01",
            "vmovdqu64 0x20(%rsi),%ymm17 (disp8*N)",
        ),
        ("62 f2 7d 48 78 c0", "vpbroadcastb %xmm0,%zmm0"),
        ("62 f3 7d 48 3f c9 00", "vpcmpeqb %zmm1,%zmm0,%k1"),
        ("62 f1 7d 48 70 c0 00", "vpshufd $0x0,%zmm0,%zmm0"),
        ("62 f1 fd 48 d7 c1", "EVEX map 1 without immediate"),
        (
            "62 f5 7c 48 58 c1",
            "vaddph %zmm1,%zmm0,%zmm0 (AVX512-FP16 map 5)",
        ),
        ("8f e8 78 c0 c1 02", "vprotb $0x2,%xmm1,%xmm0 (XOP map 8)"),
        ("8f e9 78 90 c1", "vprotb %xmm0,%xmm1,%xmm0 (XOP map 9)"),
        (
            "8f ea 78 10 c0 01 02 00 00",
            "bextr $0x201,%eax,%eax (XOP map 10)",
        ),
    ]);
}

#[test]
fn invalid_and_truncated_instructions_have_no_length() {
    for text in [
        "",
        "48",
        "66 66",
        "0f",
        "06",
        "27",
        "60",
        "9a 00 00 00 00 00 00",
        "ea 00 00 00 00 00 00",
        "d4 0a",
        "0f 04",
        "0f 38",
        "c5",
        "c5 f8",
        "c4 e0 7d 78 c0",
        "62 f7 7d 48 78 c0",
        "e8 00 00 00",
        "48 b8 00 00 00 00",
        "8b 04",
        "8b 84 24 00",
        "66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 90",
        "66 66 66 66 66 66 66 66 66 66 66 2e 0f 1f 84 00 00 00 00 00",
    ] {
        let code = bytes(text);
        assert_eq!(instruction_length(&code), None, "{text}");
    }
    assert_eq!(
        instruction_length(&bytes("66 66 66 66 66 66 66 66 66 66 66 66 66 66 90")),
        Some(15),
        "fourteen prefixes and an opcode are fifteen bytes, the most there may be"
    );
}

#[test]
fn instruction_offsets_walk_a_function_from_its_start() {
    // A gcc -O0 function: endbr64; push %rbp; mov %rsp,%rbp; mov %edi,-0x4(%rbp);
    // mov -0x4(%rbp),%eax; add $0x1,%eax; pop %rbp; ret.
    let function = bytes("f3 0f 1e fa 55 48 89 e5 89 7d fc 8b 45 fc 83 c0 01 5d c3");
    assert_eq!(
        instruction_offsets(&function),
        Some(vec![0, 4, 5, 8, 11, 14, 17, 18])
    );
    assert_eq!(instruction_offsets(&function[..function.len() - 3]), None);
    assert_eq!(instruction_offsets(&[]), Some(vec![]));
}
