//! Tests of the textual DIF form: golden `-S` listings, the assembler's hand-written form
//! and errors, and the disassemble → assemble round trip over generated DIFOs.

use difvm::difo::{
    CtfKind, DifType, DifTypeKind, DifVariable, Difo, VariableKind, VariableScope,
    DIF_TYPE_FLAG_BY_REFERENCE, DIF_TYPE_FLAG_BY_USER_REFERENCE,
};
use difvm::isa::{builtin_variable, subroutine, Instruction, Opcode};
use difvm::text::{
    assemble, assemble_all, disassemble_difo, instruction_text, type_text, AssembleError,
};

/// The `/pid == 42/` predicate of D-REFERENCE.md §15.6.
fn pid_predicate() -> Difo {
    Difo {
        code: [
            0x29011601, 0x25000002, 0x0f010200, 0x13000006, 0x25000101, 0x11000007, 0x0e000001,
            0x23000001,
        ]
        .into_iter()
        .map(Instruction)
        .collect(),
        integer_table: vec![0x2a, 1],
        string_table: b"pid\0".to_vec(),
        variable_table: vec![DifVariable {
            name_offset: 0,
            id: builtin_variable::PID,
            kind: VariableKind::Scalar,
            scope: VariableScope::Global,
            flags: 1,
            ty: DifType::integer(4),
        }],
        return_type: DifType::integer(4),
        kernel_relocations: Vec::new(),
    }
}

#[test]
fn pid_predicate_listing_is_byte_exact() {
    let expected = "
DIFO 0x8a3c10 returns D type (integer) (size 4)
OFF OPCODE      INSTRUCTION
00: 29011601    ldgs DT_VAR(278), %r1\t\t! DT_VAR(278) = \"pid\"
01: 25000002    setx DT_INTEGER[0], %r2\t\t! 0x2a
02: 0f010200    cmp  %r1, %r2
03: 13000006    bne  6
04: 25000101    setx DT_INTEGER[1], %r1\t\t! 0x1
05: 11000007    ba   7
06: 0e000001    mov  %r0, %r1
07: 23000001    ret  %r1

NAME             ID   KND SCP FLAG TYPE
pid              278  scl glb r    D type (integer) (size 4)
";
    let listing = disassemble_difo(&pid_predicate(), 0x8a3c10);
    assert_eq!(listing, expected);
    assert_eq!(assemble(&listing).unwrap(), pid_predicate());
}

#[test]
fn listing_without_variables_has_no_variable_table() {
    let difo = Difo {
        code: vec![Instruction::registers(Opcode::Ret, 0, 0, 0)],
        integer_table: vec![],
        string_table: vec![],
        variable_table: vec![],
        return_type: DifType::string(256),
        kernel_relocations: Vec::new(),
    };
    assert_eq!(
        disassemble_difo(&difo, 3),
        "\nDIFO 0x3 returns string (array) by ref (size 256)\nOFF OPCODE      INSTRUCTION\n00: 23000000    ret  %r0\n"
    );
}

/// A DIFO with a little of everything, for the per-instruction golden texts.
fn sample_difo() -> Difo {
    Difo {
        code: vec![],
        integer_table: vec![0x2a, u64::MAX],
        string_table: b"hello\0x\0counts\0".to_vec(),
        variable_table: vec![
            variable(6, 0x500, VariableKind::Scalar, VariableScope::Global),
            variable(6, 0x501, VariableKind::Scalar, VariableScope::ThreadLocal),
            variable(6, 0x502, VariableKind::Scalar, VariableScope::ClauseLocal),
            variable(8, 0x503, VariableKind::Array, VariableScope::Global),
            variable(8, 0x504, VariableKind::Array, VariableScope::ThreadLocal),
            variable(8, 0x80, VariableKind::Array, VariableScope::Global),
        ],
        return_type: DifType::integer(8),
        kernel_relocations: Vec::new(),
    }
}

fn variable(name_offset: u32, id: u16, kind: VariableKind, scope: VariableScope) -> DifVariable {
    DifVariable {
        name_offset,
        id,
        kind,
        scope,
        flags: 3,
        ty: DifType::integer(8),
    }
}

/// Checks the listing text of each `(word, text)` against `sample_difo`.
fn check_instruction_texts(cases: &[(u32, &str)]) {
    let difo = sample_difo();
    for &(word, expected) in cases {
        assert_eq!(
            instruction_text(&difo, Instruction(word)),
            expected,
            "word {word:08x}"
        );
    }
}

#[test]
fn instruction_texts_follow_the_classic_formats() {
    use Opcode::*;
    let r = |op, r1, r2, rd| Instruction::registers(op, r1, r2, rd).0;
    let x = |op, index, rd| Instruction::indexed(op, index, rd).0;
    check_instruction_texts(&[
        (r(Add, 1, 2, 3), "add  %r1, %r2, %r3"),
        (r(Sdiv, 7, 6, 5), "sdiv %r7, %r6, %r5"),
        (r(Copys, 1, 2, 3), "copys %r1, %r2, %r3"),
        (r(Sra, 1, 2, 3), "sra  %r1, %r2, %r3"),
        (Instruction::branch(Ba, 7).0, "ba   7"),
        (Instruction::branch(Bgeu, 0xffffff).0, "bgeu 16777215"),
        (r(Ldsb, 1, 0, 2), "ldsb [%r1], %r2"),
        (r(Uldx, 3, 0, 4), "uldx [%r3], %r4"),
        (r(Rlduw, 3, 0, 4), "rlduw [%r3], %r4"),
        (r(Stx, 1, 0, 2), "stx  %r1, [%r2]"),
        (r(Not, 1, 0, 2), "not  %r1, %r2"),
        (r(Mov, 0, 0, 1), "mov  %r0, %r1"),
        (r(Allocs, 1, 0, 2), "allocs %r1, %r2"),
        (r(Cmp, 1, 2, 0), "cmp  %r1, %r2"),
        (r(Scmp, 3, 4, 0), "scmp %r3, %r4"),
        (r(Tst, 5, 0, 0), "tst  %r5"),
        (r(Ret, 0, 0, 1), "ret  %r1"),
        (r(Nop, 0, 0, 0), "nop"),
        (r(Popts, 0, 0, 0), "popts"),
        (r(Flushts, 0, 0, 0), "flushts"),
        (x(Setx, 0, 1), "setx DT_INTEGER[0], %r1\t\t! 0x2a"),
        (
            x(Setx, 1, 1),
            "setx DT_INTEGER[1], %r1\t\t! 0xffffffffffffffff",
        ),
        (x(Setx, 2, 1), "setx DT_INTEGER[2], %r1"),
        (x(Sets, 0, 2), "sets DT_STRING[0], %r2\t\t! \"hello\""),
        (x(Sets, 2, 2), "sets DT_STRING[2], %r2\t\t! \"llo\""),
        (x(Sets, 15, 2), "sets DT_STRING[15], %r2"),
        (
            r(Ldga, 0, 2, 1),
            "ldga DT_VAR(0), %r2, %r1\t\t! DT_VAR(0) = \"args\"",
        ),
        (
            r(Ldga, 0x80, 2, 1),
            "ldga DT_VAR(128), %r2, %r1\t\t! DT_VAR(128) = \"counts\"",
        ),
        (r(Ldga, 9, 2, 1), "ldga DT_VAR(9), %r2, %r1"),
        (r(Ldta, 0, 2, 1), "ldta DT_VAR(0), %r2, %r1"),
        (
            x(Ldgs, 0x116, 1),
            "ldgs DT_VAR(278), %r1\t\t! DT_VAR(278) = \"pid\"",
        ),
        (
            x(Ldgs, 0x200, 1),
            "ldgs DT_VAR(512), %r1\t\t! DT_VAR(512) = \"cpu\"",
        ),
        (
            x(Ldgs, 0x500, 1),
            "ldgs DT_VAR(1280), %r1\t\t! DT_VAR(1280) = \"x\"",
        ),
        (x(Ldgs, 0x599, 1), "ldgs DT_VAR(1433), %r1"),
        (
            x(Ldts, 0x501, 1),
            "ldts DT_VAR(1281), %r1\t\t! DT_VAR(1281) = \"x\"",
        ),
        (x(Ldts, 0x500, 1), "ldts DT_VAR(1280), %r1"),
        (x(Ldts, 0x116, 1), "ldts DT_VAR(278), %r1"),
        (
            x(Ldls, 0x502, 1),
            "ldls DT_VAR(1282), %r1\t\t! DT_VAR(1282) = \"x\"",
        ),
        (
            x(Ldgaa, 0x503, 1),
            "ldgaa DT_VAR(1283), %r1\t\t! DT_VAR(1283) = \"counts\"",
        ),
        (
            x(Ldtaa, 0x504, 1),
            "ldtaa DT_VAR(1284), %r1\t\t! DT_VAR(1284) = \"counts\"",
        ),
        (
            x(Stgs, 0x500, 3),
            "stgs %r3, DT_VAR(1280)\t\t! DT_VAR(1280) = \"x\"",
        ),
        (
            x(Stts, 0x501, 3),
            "stts %r3, DT_VAR(1281)\t\t! DT_VAR(1281) = \"x\"",
        ),
        (
            x(Stls, 0x502, 3),
            "stls %r3, DT_VAR(1282)\t\t! DT_VAR(1282) = \"x\"",
        ),
        (
            x(Stgaa, 0x503, 3),
            "stgaa %r3, DT_VAR(1283)\t\t! DT_VAR(1283) = \"counts\"",
        ),
        (
            x(Sttaa, 0x504, 3),
            "sttaa %r3, DT_VAR(1284)\t\t! DT_VAR(1284) = \"counts\"",
        ),
        (
            x(Call, subroutine::STRLEN, 1),
            "call DIF_SUBR(12), %r1\t\t! strlen",
        ),
        (
            x(Call, subroutine::LINK_NTOP, 1),
            "call DIF_SUBR(55), %r1\t\t! link_ntop",
        ),
        (x(Call, 200, 1), "call DIF_SUBR(200), %r1\t\t! unknown"),
        (
            r(Pushtr, 1, 2, 3),
            "pushtr DT_TYPE(1), %r2, %r3\t! DT_TYPE(1) = string",
        ),
        (
            r(Pushtr, 0, 2, 3),
            "pushtr DT_TYPE(0), %r2, %r3\t! DT_TYPE(0) = D type",
        ),
        (r(Pushtr, 5, 2, 3), "pushtr DT_TYPE(5), %r2, %r3"),
        (
            r(Pushtv, 0, 0, 3),
            "pushtv DT_TYPE(0), %r3\t\t! DT_TYPE(0) = D type",
        ),
        (r(Pushtv, 7, 0, 3), "pushtv DT_TYPE(7), %r3"),
        (x(Xlate, 4, 1), "xlate DT_XLREF[4], %r1"),
        (0x0000_0001, "(illegal opcode)"),
        (0xff01_0203, "(illegal opcode)"),
        // Reserved bits do not show in the text.
        (0x2301_0201, "ret  %r1"),
    ]);
}

#[test]
fn type_texts() {
    let cases = [
        (DifType::integer(4), "D type (integer) (size 4)"),
        (DifType::string(256), "string (array) by ref (size 256)"),
        (
            DifType {
                kind: DifTypeKind::Ctf,
                ctf_kind: CtfKind::Pointer,
                flags: 0,
                size: 8,
            },
            "D type (pointer) (size 8)",
        ),
        (
            DifType {
                kind: DifTypeKind::Ctf,
                ctf_kind: CtfKind::Struct,
                flags: DIF_TYPE_FLAG_BY_USER_REFERENCE,
                size: 24,
            },
            "D type (struct) by user ref (size 24)",
        ),
        (
            DifType {
                kind: DifTypeKind::Ctf,
                ctf_kind: CtfKind::Union,
                flags: DIF_TYPE_FLAG_BY_REFERENCE | DIF_TYPE_FLAG_BY_USER_REFERENCE,
                size: 0,
            },
            "D type (union) by user ref (size 0)",
        ),
    ];
    for (ty, expected) in cases {
        assert_eq!(type_text(&ty), expected);
    }
}

#[test]
fn variable_table_rows() {
    let mut difo = pid_predicate();
    difo.string_table = b"pid\0a_rather_long_variable_name\0\0".to_vec();
    let string_type = DifType::string(256);
    difo.variable_table = vec![
        DifVariable {
            flags: 0,
            ..difo.variable_table[0].clone()
        },
        DifVariable {
            name_offset: 4,
            id: 0x500,
            kind: VariableKind::Array,
            scope: VariableScope::ThreadLocal,
            flags: 3,
            ty: string_type,
        },
        DifVariable {
            name_offset: 0,
            id: 0x501,
            kind: VariableKind::Scalar,
            scope: VariableScope::ClauseLocal,
            flags: 2,
            ty: string_type,
        },
        DifVariable {
            name_offset: 0,
            id: 0x502,
            kind: VariableKind::Scalar,
            scope: VariableScope::Global,
            flags: 0x85,
            ty: DifType::integer(8),
        },
    ];
    let listing = disassemble_difo(&difo, 0);
    let table = &listing[listing.find("NAME").unwrap()..];
    assert_eq!(
        table,
        "NAME             ID   KND SCP FLAG TYPE
pid              278  scl glb      D type (integer) (size 4)
a_rather_long_variable_name 1280 arr tls r/w  string (array) by ref (size 256)
pid              1281 scl loc w    string (array) by ref (size 256)
pid              1282 scl glb 0x84/r D type (integer) (size 8)
"
    );
    let round_trip = assemble(&listing).unwrap();
    assert_eq!(round_trip.variable_table, difo.variable_table);
}

/// Assembles hand-written text and compares the code words and tables.
fn check_assembles(text: &str, code: &[u32], integers: &[u64], strings: &[u8]) -> Difo {
    let difo = assemble(text).unwrap_or_else(|error| panic!("{error}\n{text}"));
    let words: Vec<u32> = difo.code.iter().map(|instruction| instruction.0).collect();
    assert_eq!(words, code, "{text}");
    assert_eq!(difo.integer_table, integers, "{text}");
    assert_eq!(difo.string_table, strings, "{text}");
    difo
}

#[test]
fn hand_written_pid_predicate() {
    let difo = check_assembles(
        "! the /pid == 42/ predicate
        .returns D type (integer) (size 4)
            ldgs pid, %r1
            setx 42, %r2          ! immediates go in the integer table
            cmp %r1, %r2
            bne false
            setx 1, %r1
            ba done
        false:
            mov %r0, %r1
        done:
            ret %r1

NAME ID KND SCP FLAG TYPE
pid 278 scl glb r D type (integer) (size 4)
",
        &pid_predicate()
            .code
            .iter()
            .map(|instruction| instruction.0)
            .collect::<Vec<_>>(),
        &[0x2a, 1],
        b"pid\0",
    );
    assert_eq!(difo, pid_predicate());
}

#[test]
fn hand_written_operands() {
    check_assembles(
        "setx -1, %r1
         setx 0xffffffffffffffff, %r2
         setx 7, %r3
         sets \"a\\tb\\\"c\\x21\", %r1
         sets \"x\", %r2
         sets \"a\\tb\\\"c!\", %r3
         ldgs x, %r4
         stts %r4, x
         ldga args, %r1, %r2
         ldga table, %r1, %r2
         call strlen, %r1
         call 3, %r1
         pushtr 1, %r1, %r2
         pushtv DT_TYPE(0), %r2
         .word 0xff000000
         ret %r1
NAME ID KND SCP FLAG TYPE
x    1280 scl glb r/w D type (integer) (size 8)
x    1281 scl tls w   D type (integer) (size 8)
table 128 arr glb r   D type (integer) (size 8)
",
        &[
            0x2500_0001,
            0x2500_0002,
            0x2500_0103,
            0x2600_0001,
            0x2600_0702,
            0x2600_0003,
            0x2905_0004,
            0x2d05_0104,
            0x2800_0102,
            0x2880_0102,
            0x2f00_0c01,
            0x2f00_0301,
            0x3001_0102,
            0x3100_0002,
            0xff00_0000,
            0x2300_0001,
        ],
        &[u64::MAX, 7],
        b"a\tb\"c!\0x\0table\0",
    );
}

#[test]
fn hand_written_table_comments_define_entries() {
    check_assembles(
        "setx DT_INTEGER[1], %r1 ! 0x10
         setx DT_INTEGER[1], %r2 ! sixteen, not a value
         sets DT_STRING[2], %r1 ! \"yz\"
         sets DT_STRING[0], %r1 ! a comment
         ret %r1",
        &[
            0x2500_0101,
            0x2500_0102,
            0x2600_0201,
            0x2600_0001,
            0x2300_0001,
        ],
        &[0, 0x10],
        b"\0\0yz\0",
    );
}

#[test]
fn listing_keeps_reserved_bits_from_the_raw_column() {
    let text = "00: 23010201    ret  %r1\n";
    assert_eq!(assemble(text).unwrap().code, vec![Instruction(0x2301_0201)]);
}

#[test]
fn listing_with_illegal_opcode_uses_the_raw_word() {
    let text = "00: 00123456    (illegal opcode)\n01: 23000001    ret  %r1\n";
    assert_eq!(
        assemble(text).unwrap().code,
        vec![Instruction(0x0012_3456), Instruction(0x2300_0001)]
    );
}

#[test]
fn multi_line_strings_in_a_listing() {
    let mut difo = pid_predicate();
    difo.code = vec![
        Instruction::indexed(Opcode::Sets, 0, 1),
        Instruction::indexed(Opcode::Sets, 7, 1),
        Instruction::registers(Opcode::Ret, 0, 0, 1),
    ];
    difo.integer_table.clear();
    difo.string_table = b"a\n\"b\"\n\0\ny \" \r\0pid\0".to_vec();
    difo.variable_table[0].name_offset = 14;
    let listing = disassemble_difo(&difo, 1);
    assert!(
        listing.contains("sets DT_STRING[0], %r1\t\t! \"a\n\"b\"\n\"\n01: "),
        "{listing}"
    );
    assert_eq!(assemble(&listing).unwrap(), difo);
}

#[test]
fn several_difos_in_one_listing() {
    let first = pid_predicate();
    let mut second = pid_predicate();
    second.variable_table.clear();
    second.string_table.clear();
    second.return_type = DifType::integer(8);
    let listing = disassemble_difo(&first, 0) + &disassemble_difo(&second, 0x10);
    let difos = assemble_all(&listing).unwrap();
    assert_eq!(difos.len(), 2);
    assert_eq!((difos[0].label, &difos[0].difo), (Some(0), &first));
    assert_eq!((difos[1].label, &difos[1].difo), (Some(0x10), &second));
    let error = assemble(&listing).unwrap_err();
    assert_eq!(error.to_string(), "line 16: expected one DIFO, found 2");
}

/// Checks that assembling `text` fails on `line` with `message`.
fn check_error(text: &str, line: usize, message: &str) {
    match assemble(text) {
        Ok(difo) => panic!("assembled {difo:?} from {text:?}"),
        Err(error) => {
            assert_eq!(
                error,
                AssembleError {
                    line,
                    message: message.to_string()
                },
                "{text:?}"
            )
        }
    }
}

#[test]
fn assembly_errors_name_the_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 1, "no DIFO in the text"),
        ("ret %r1\nfrob %r1", 2, "unknown mnemonic `frob`"),
        ("add %r1, %r2", 1, "`add` takes 3 operands, found 2"),
        ("ret", 1, "`ret` takes 1 operand, found 0"),
        ("nop %r1", 1, "`nop` takes 0 operands, found 1"),
        ("ret %r256", 1, "register 256 is above 255"),
        ("ret %rx", 1, "invalid register `%rx`"),
        (
            "ret [%r1]",
            1,
            "expected a register, found an address operand",
        ),
        (
            "ldx %r1, %r2",
            1,
            "expected an address operand [%rN], found a register",
        ),
        ("ba -1", 1, "branch target -1 is negative"),
        (
            "ba 0x1000000",
            1,
            "branch target 16777216 is above 16777215",
        ),
        ("\n\nba nowhere\nret %r0", 3, "undefined label `nowhere`"),
        ("a:\na:\nret %r0", 2, "label `a` defined twice"),
        ("ldgs nosuch, %r1", 1, "unknown variable `nosuch`"),
        ("ldts pid, %r1", 1, "unknown variable `pid`"),
        ("ldga nosuch, %r1, %r2", 1, "unknown array `nosuch`"),
        (
            "ldgs DT_VAR(65536), %r1",
            1,
            "variable id 65536 is above 65535",
        ),
        ("ldga DT_VAR(256), %r1, %r2", 1, "array id 256 is above 255"),
        ("call nosuch, %r1", 1, "unknown subroutine `nosuch`"),
        (
            "setx DT_STRING[0], %r1",
            1,
            "expected DT_INTEGER[n] or an integer, found a string table reference",
        ),
        (
            "setx 0x10000000000000000, %r1",
            1,
            "invalid number `0x10000000000000000`",
        ),
        ("sets \"abc, %r1", 1, "unterminated string \"abc, %r1"),
        ("sets \"a\\q\", %r1", 1, "unknown escape `\\q` in \"a\\q\""),
        (
            "setx DT_INTEGER[0], %r1 ! 0x1\nsetx DT_INTEGER[0], %r1 ! 0x2",
            2,
            "DT_INTEGER[0] is 0x1 on line 1 but 0x2 here",
        ),
        (
            "sets DT_STRING[0], %r1 ! \"ab\"\nsets DT_STRING[1], %r1 ! \"c\"",
            2,
            "DT_STRING[1] contradicts a string placed before it",
        ),
        (
            ".returns D type (integer)",
            1,
            "invalid type `D type (integer)`",
        ),
        (
            ".word 0x100000000",
            1,
            "invalid instruction word `0x100000000`",
        ),
        (".frob", 1, "unknown directive `.frob`"),
        (
            "(illegal opcode)",
            1,
            "an illegal opcode needs the raw word column (or use `.word`)",
        ),
        (
            "00: 23000001    (illegal opcode)",
            1,
            "raw word 23000001 has a valid opcode",
        ),
        (
            "00: 23000002    ret  %r1",
            1,
            "raw word 23000002 does not match the instruction text (23000001)",
        ),
        (
            "01: 23000001    ret  %r1",
            1,
            "offset 01 does not follow the 0 instructions before it",
        ),
        (
            "00: 2300001     ret  %r1",
            1,
            "invalid listing line `00: 2300001     ret  %r1`",
        ),
        (
            "DIFO 0x1 returns\nret %r1",
            1,
            "invalid DIFO header `DIFO 0x1 returns`",
        ),
        (
            "DIFO 12 returns D type (integer) (size 4)",
            1,
            "invalid DIFO label `12`",
        ),
        (
            "ret %r1\nNAME ID KND SCP FLAG TYPE\nx 1280 scl glb r",
            3,
            "invalid type ``",
        ),
        (
            "ret %r1\nNAME ID KND SCP FLAG TYPE\nx 1280 xxx glb r D type (integer) (size 8)",
            3,
            "invalid variable table row (bad kind): `x 1280 xxx glb r D type (integer) (size 8)`",
        ),
        (
            "ret %r1\nNAME ID KND SCP FLAG TYPE\nx 70000 scl glb r D type (integer) (size 8)",
            3,
            "invalid variable table row (bad id): `x 70000 scl glb r D type (integer) (size 8)`",
        ),
        (
            "00: 26000001    sets DT_STRING[0], %r1\t\t! \"abc",
            1,
            "unterminated string in `sets` comment",
        ),
    ];
    for &(text, line, message) in cases {
        check_error(text, line, message);
    }
}

/// A small deterministic pseudo-random generator (xorshift64*), so the generated cases
/// are the same on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

fn random_type(random: &mut Random) -> DifType {
    use CtfKind::*;
    DifType {
        kind: *random.pick(&[DifTypeKind::Ctf, DifTypeKind::String]),
        ctf_kind: *random.pick(&[
            Unknown, Integer, Float, Pointer, Array, Function, Struct, Union, Enum,
        ]),
        flags: *random.pick(&[
            0,
            DIF_TYPE_FLAG_BY_REFERENCE,
            DIF_TYPE_FLAG_BY_USER_REFERENCE,
        ]),
        size: *random.pick(&[0, 1, 2, 4, 8, 3, 256, 16384, u32::MAX]),
    }
}

/// A random string the listing can carry: UTF-8, no NUL, and no `"` directly before a
/// newline (the listing prints strings raw, so that pair would be ambiguous).
fn random_string(random: &mut Random) -> Vec<u8> {
    let pieces = [
        "a", "b", "z", " ", "!", "\"", "\t", "\n", "%", ",", "[", ")", "é", "✓", "\r", "0x1",
    ];
    let mut text = String::new();
    for _ in 0..random.below(9) {
        let piece = *random.pick(&pieces);
        if piece == "\n" && text.ends_with('"') {
            continue;
        }
        text.push_str(piece);
    }
    text.into_bytes()
}

fn random_name(random: &mut Random) -> String {
    let letters = b"abcdefghijklmnopqrstuvwxyz_0123456789";
    let mut name = String::from(*random.pick(&["x", "count", "_", "self_thing"]));
    for _ in 0..random.below(20) {
        name.push(*random.pick(letters) as char);
    }
    name
}

/// A random DIFO whose tables hold nothing its listing does not show (see the assembler's
/// module documentation), with arbitrary, often invalid, instructions.
fn random_difo(random: &mut Random) -> Difo {
    let integer_table: Vec<u64> = (0..random.below(6))
        .map(|_| {
            let any = random.next();
            *random.pick(&[0, 1, 0x2a, u64::MAX, any])
        })
        .collect();
    let mut strings: Vec<Vec<u8>> = Vec::new();
    for _ in 0..random.below(5) {
        let string = random_string(random);
        if !strings.contains(&string) {
            strings.push(string);
        }
    }
    let mut variables = Vec::new();
    for _ in 0..random.below(5) {
        let name = random_name(random);
        // Sometimes a `sets` string equals a variable name, which then shares its entry.
        if random.chance(20) && !strings.contains(&name.clone().into_bytes()) {
            strings.push(name.clone().into_bytes());
        }
        let any = random.below(0x10000) as u16;
        let id = *random.pick(&[0x116, 0x500, 0x501, 0x80, any]);
        let kind = *random.pick(&[VariableKind::Array, VariableKind::Scalar]);
        let scope = *random.pick(&[
            VariableScope::Global,
            VariableScope::ThreadLocal,
            VariableScope::ClauseLocal,
        ]);
        variables.push((
            name,
            id,
            kind,
            scope,
            random.below(256) as u8,
            random_type(random),
        ));
    }

    // Lay the string table out as a compiler does: distinct whole strings, variable names
    // in variable-table order, either after the `sets` strings or before them.
    let mut names: Vec<Vec<u8>> = Vec::new();
    for (name, ..) in &variables {
        let name = name.clone().into_bytes();
        if !names.contains(&name) && !strings.contains(&name) {
            names.push(name);
        }
    }
    let order: Vec<&Vec<u8>> = if random.chance(50) {
        strings.iter().chain(&names).collect()
    } else {
        names.iter().chain(&strings).collect()
    };
    let mut string_table = Vec::new();
    let mut offsets = std::collections::HashMap::new();
    for string in order {
        offsets.insert(string.clone(), string_table.len() as u32);
        string_table.extend_from_slice(string);
        string_table.push(0);
    }
    let variable_table = variables
        .into_iter()
        .map(|(name, id, kind, scope, flags, ty)| DifVariable {
            name_offset: offsets[name.as_bytes()],
            id,
            kind,
            scope,
            flags,
            ty,
        })
        .collect();

    let mut code = Vec::new();
    for position in 0..integer_table.len() {
        code.push(Instruction::indexed(
            Opcode::Setx,
            position as u16,
            random.below(8) as u8,
        ));
    }
    for string in &strings {
        code.push(Instruction::indexed(
            Opcode::Sets,
            offsets[string] as u16,
            1,
        ));
    }
    for _ in 0..random.below(30) {
        let word = match random.below(6) {
            0 => random.next() as u32,
            1 => (random.next() as u32 & 0x00ff_ffff) | (random.below(80) as u32) << 24,
            2 => {
                Instruction::registers(
                    *random.pick(Opcode::ALL),
                    random.below(9) as u8,
                    random.below(9) as u8,
                    random.below(9) as u8,
                )
                .0
            }
            3 => {
                Instruction::indexed(
                    *random.pick(&[Opcode::Setx, Opcode::Sets]),
                    random.below(0x10000) as u16,
                    1,
                )
                .0
            }
            4 => {
                Instruction::indexed(
                    *random.pick(&[Opcode::Ldgs, Opcode::Stts, Opcode::Ldgaa, Opcode::Ldls]),
                    *random.pick(&[0x116, 0x500, 0x501]),
                    2,
                )
                .0
            }
            _ => {
                Instruction::branch(
                    *random.pick(&[Opcode::Ba, Opcode::Bne]),
                    random.below(40) as u32,
                )
                .0
            }
        };
        code.push(Instruction(word));
    }
    // A `sets` into the middle of a multi-byte character would show a string that is not
    // UTF-8, which a listing cannot carry; point such instructions past the table.
    for instruction in &mut code {
        if instruction.opcode() == Some(Opcode::Sets) {
            let tail = string_table
                .get(instruction.index() as usize..)
                .unwrap_or_default();
            if std::str::from_utf8(tail).is_err() {
                *instruction = Instruction(instruction.0 | 0x00ff_ff00);
            }
        }
    }
    for position in (1..code.len()).rev() {
        code.swap(position, random.below(position as u64 + 1) as usize);
    }
    Difo {
        code,
        integer_table,
        string_table,
        variable_table,
        return_type: random_type(random),
        kernel_relocations: Vec::new(),
    }
}

#[test]
fn random_difos_survive_the_round_trip() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for case in 0..2000 {
        let difo = random_difo(&mut random);
        let label = random.next();
        let listing = disassemble_difo(&difo, label);
        let assembled = assemble_all(&listing)
            .unwrap_or_else(|error| panic!("case {case}: {error}\n{listing}"));
        assert_eq!(assembled.len(), 1, "case {case}");
        assert_eq!(assembled[0].label, Some(label), "case {case}");
        assert_eq!(assembled[0].difo, difo, "case {case}\n{listing}");
    }
}

#[test]
fn the_assembler_never_panics_on_damaged_listings() {
    let mut random = Random(0x1234_5678_9abc_def1);
    let debris = [
        "!",
        "\"",
        ":",
        "\n",
        " ",
        "\t",
        "%r",
        "[",
        "]",
        "(",
        ")",
        "0x",
        "9",
        "é",
        "DIFO ",
        ".",
        ",",
        "NAME ID KND SCP FLAG TYPE\n",
    ];
    for _ in 0..3000 {
        let difo = random_difo(&mut random);
        let mut listing: Vec<char> = disassemble_difo(&difo, 7).chars().collect();
        for _ in 0..1 + random.below(4) {
            let position = random.below(listing.len() as u64 + 1) as usize;
            match random.below(3) {
                0 if position < listing.len() => {
                    listing.remove(position);
                }
                1 if position < listing.len() => {
                    listing.truncate(position);
                }
                _ => {
                    for (offset, character) in random.pick(&debris).chars().enumerate() {
                        listing.insert(position + offset, character);
                    }
                }
            }
        }
        let text: String = listing.into_iter().collect();
        let _ = assemble_all(&text);
        let _ = assemble(&text);
    }
}
