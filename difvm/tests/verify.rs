//! Tests of the DIF verifier: one case per rule of D-REFERENCE.md §15.7 (and our
//! additions), each asserting the exact message, plus the program-level checks.

use difvm::difo::{DifType, DifVariable, Difo, VariableKind, VariableScope};
use difvm::format::{
    Conversion, ConversionBehavior, ConversionFlags, FormatPiece, FormatString, IntegerRadix,
    IntegerSignedness, Precision, PrintfFormat, Width,
};
use difvm::isa::{Instruction, Opcode};
use difvm::object::{
    Action, ActionKind, ActionValue, AggregationDescription, AggregationFunction, CompiledProgram,
    ProbeDescription, RecordSlot, Statement, StatementRole, ValueLayout,
};
use difvm::text::assemble;
use difvm::verify::{verify, verify_program, VerifyError};

/// Assembles hand-written DIF, verifies it and compares the error texts with `expected`
/// (empty: the DIFO must verify).
fn check(text: &str, expected: &[&str]) {
    let difo = assemble(text).unwrap_or_else(|error| panic!("{error}\n{text}"));
    check_difo(&difo, expected);
}

fn check_difo(difo: &Difo, expected: &[&str]) {
    let found: Vec<String> = match verify(difo) {
        Ok(verified) => {
            assert_eq!(verified.difo(), difo);
            Vec::new()
        }
        Err(errors) => errors.iter().map(VerifyError::to_string).collect(),
    };
    assert_eq!(found, expected, "{difo:?}");
}

#[test]
fn a_valid_predicate_verifies() {
    check(
        ".returns D type (integer) (size 4)
         ldgs pid, %r1
         setx 42, %r2
         cmp %r1, %r2
         bne false
         setx 1, %r1
         ba done
     false:
         mov %r0, %r1
     done:
         ret %r1
NAME ID KND SCP FLAG TYPE
pid 278 scl glb r D type (integer) (size 4)",
        &[],
    );
}

#[test]
fn verified_difo_accessors() {
    let difo = assemble("setx 1, %r1\nret %r1").unwrap();
    let verified = verify(&difo).unwrap();
    assert_eq!(verified.difo(), &difo);
    assert!(!verified.is_destructive());
    assert_eq!(verified.into_difo(), difo);
    let copyout = assemble("call copyout, %r1\nret %r1").unwrap();
    assert!(verify(&copyout).unwrap().is_destructive());
    let copyoutstr = assemble("call copyoutstr, %r1\nret %r1").unwrap();
    assert!(verify(&copyoutstr).unwrap().is_destructive());
}

#[test]
fn backward_branch() {
    check(
        "setx 1, %r1\nnop\nnop\nba 1\nret %r1",
        &["DIF offset 3: backward branch to 1 (ba   1)"],
    );
    check(
        "x:\nba x\nret %r1",
        &["DIF offset 0: backward branch to 0 (ba   0)"],
    );
}

#[test]
fn branch_target_out_of_range() {
    check(
        "be 2\nret %r1",
        &["DIF offset 0: invalid branch target 2 (be   2)"],
    );
    check(
        "nop\nbleu 0xffffff\nret %r1",
        &["DIF offset 1: invalid branch target 16777215 (bleu 16777215)"],
    );
}

#[test]
fn register_out_of_range() {
    check(
        "add %r8, %r1, %r9\nret %r1",
        &[
            "DIF offset 0: invalid register 8 (add  %r8, %r1, %r9)",
            "DIF offset 0: invalid register 9 (add  %r8, %r1, %r9)",
        ],
    );
    check(
        "ret %r255",
        &["DIF offset 0: invalid register 255 (ret  %r255)"],
    );
    check(
        "tst %r8\nret %r1",
        &["DIF offset 0: invalid register 8 (tst  %r8)"],
    );
    check(
        "scmp %r1, %r8\nret %r1",
        &["DIF offset 0: invalid register 8 (scmp %r1, %r8)"],
    );
    check(
        "ldx [%r8], %r1\nret %r1",
        &["DIF offset 0: invalid register 8 (ldx  [%r8], %r1)"],
    );
    check(
        "stb %r8, [%r1]\nret %r1",
        &["DIF offset 0: invalid register 8 (stb  %r8, [%r1])"],
    );
    check(
        "pushtr DT_TYPE(1), %r8, %r9\nret %r1",
        &[
            "DIF offset 0: invalid register 8 (pushtr DT_TYPE(1), %r8, %r9\t! DT_TYPE(1) = string)",
            "DIF offset 0: invalid register 9 (pushtr DT_TYPE(1), %r8, %r9\t! DT_TYPE(1) = string)",
        ],
    );
    check(
        "ldga args, %r8, %r1\nret %r1",
        &["DIF offset 0: invalid register 8 (ldga DT_VAR(0), %r8, %r1\t\t! DT_VAR(0) = \"args\")"],
    );
}

#[test]
fn writes_to_r0() {
    check(
        "sub %r1, %r2, %r0\nret %r1",
        &["DIF offset 0: cannot write to %r0 (sub  %r1, %r2, %r0)"],
    );
    check(
        "mov %r1, %r0\nret %r1",
        &["DIF offset 0: cannot write to %r0 (mov  %r1, %r0)"],
    );
    check(
        "uldsw [%r1], %r0\nret %r1",
        &["DIF offset 0: cannot write to %r0 (uldsw [%r1], %r0)"],
    );
    check(
        "setx 5, %r0\nret %r1",
        &["DIF offset 0: cannot write to %r0 (setx DT_INTEGER[0], %r0\t\t! 0x5)"],
    );
    check(
        "sets \"s\", %r0\nret %r1",
        &["DIF offset 0: cannot write to %r0 (sets DT_STRING[0], %r0\t\t! \"s\")"],
    );
    check(
        "ldgs timestamp, %r0\nret %r1",
        &["DIF offset 0: cannot write to %r0 (ldgs DT_VAR(257), %r0\t\t! DT_VAR(257) = \"timestamp\")"],
    );
    check(
        "call rand, %r0\nret %r1",
        &["DIF offset 0: cannot write to %r0 (call DIF_SUBR(0), %r0\t\t! rand)"],
    );
    check(
        "copys %r1, %r2, %r0\nret %r1",
        &["DIF offset 0: cannot write to %r0 (copys %r1, %r2, %r0)"],
    );
}

#[test]
fn stores_through_r0() {
    check(
        "stx %r1, [%r0]\nret %r1",
        &["DIF offset 0: cannot write to 0 address (stx  %r1, [%r0])"],
    );
}

#[test]
fn non_zero_reserved_bits() {
    let cases = [
        (".word 0x0e010201", "mov  %r1, %r1"),
        (".word 0x1c010101", "ldsb [%r1], %r1"),
        (".word 0x3f020102", "stx  %r2, [%r2]"),
        (".word 0x0f010201", "cmp  %r1, %r2"),
        (".word 0x10010001", "tst  %r1"),
        (".word 0x10010100", "tst  %r1"),
        (".word 0x24000001", "nop"),
        (".word 0x32010000", "popts"),
        (".word 0x33000100", "flushts"),
        (
            ".word 0x31000101",
            "pushtv DT_TYPE(0), %r1\t\t! DT_TYPE(0) = D type",
        ),
        (".word 0x3a010201", "allocs %r1, %r1"),
    ];
    for (line, text) in cases {
        check(
            &format!("{line}\nret %r1"),
            &[&format!("DIF offset 0: non-zero reserved bits ({text})")],
        );
    }
    check(
        ".word 0x23010001",
        &["DIF offset 0: non-zero reserved bits (ret  %r1)"],
    );
}

#[test]
fn invalid_opcodes() {
    check(
        ".word 0\nret %r1",
        &["DIF offset 0: invalid opcode 0 ((illegal opcode))"],
    );
    check(
        ".word 0xff123456\nret %r1",
        &["DIF offset 0: invalid opcode 255 ((illegal opcode))"],
    );
    check(
        "xlate DT_XLREF[0], %r1\nret %r1",
        &["DIF offset 0: invalid opcode 78 (xlate DT_XLREF[0], %r1)"],
    );
    check(
        "xlarg DT_XLREF[2], %r1\nret %r1",
        &["DIF offset 0: invalid opcode 79 (xlarg DT_XLREF[2], %r1)"],
    );
}

#[test]
fn integer_and_string_table_references() {
    check(
        "setx 1, %r1\nsetx DT_INTEGER[1], %r2\nret %r1",
        &["DIF offset 1: invalid integer ref 1 (setx DT_INTEGER[1], %r2)"],
    );
    check(
        "sets \"ab\", %r1\nsets DT_STRING[2], %r1\nsets DT_STRING[3], %r2\nret %r1",
        &["DIF offset 2: invalid string ref 3 (sets DT_STRING[3], %r2)"],
    );
}

#[test]
fn array_references() {
    check("ldga args, %r1, %r2\nldga uregs, %r1, %r2\nret %r1", &[]);
    check(
        "ldga DT_VAR(3), %r1, %r2\nret %r1",
        &["DIF offset 0: invalid array 3 (ldga DT_VAR(3), %r1, %r2)"],
    );
    check(
        "ldga DT_VAR(128), %r1, %r2\nret %r1",
        &["DIF offset 0: invalid array 128 (ldga DT_VAR(128), %r1, %r2)"],
    );
    check(
        "ldga a, %r1, %r2\nret %r1\nNAME ID KND SCP FLAG TYPE\na 128 arr glb r D type (integer) (size 8)",
        &[],
    );
    check(
        "ldta DT_VAR(0), %r1, %r2\nret %r1",
        &["DIF offset 0: invalid array 0 (ldta DT_VAR(0), %r1, %r2)"],
    );
    // A scalar of the same id is not the array (the listing, like classic DTrace's,
    // names variables by id and scope alone).
    check(
        "ldga DT_VAR(128), %r1, %r2\nret %r1\nNAME ID KND SCP FLAG TYPE\na 128 scl glb r D type (integer) (size 8)",
        &["DIF offset 0: invalid array 128 (ldga DT_VAR(128), %r1, %r2\t\t! DT_VAR(128) = \"a\")"],
    );
}

const USER_VARIABLES: &str = "
NAME ID KND SCP FLAG TYPE
g    1280 scl glb r/w D type (integer) (size 8)
t    1281 scl tls r/w D type (integer) (size 8)
l    1282 scl loc r/w D type (integer) (size 8)
ga   1283 arr glb r/w D type (integer) (size 8)
ta   1284 arr tls r/w D type (integer) (size 8)
";

#[test]
fn declared_variables_verify() {
    check(
        &format!(
            "ldgs g, %r1\nstgs %r1, g\nldts t, %r1\nstts %r1, t\nldls l, %r1\nstls %r1, l
             ldgaa ga, %r1\nstgaa %r1, ga\nldtaa ta, %r1\nsttaa %r1, ta
             ldgs execname, %r1\nldgs arg9, %r1\nldgs cpu, %r1\nldgs curcpu, %r1\nret %r1
             {USER_VARIABLES}"
        ),
        &[],
    );
}

#[test]
fn bad_variable_references() {
    let cases = [
        // Loads below the scalar range.
        (
            "ldgs DT_VAR(255), %r1",
            "invalid variable 255 (ldgs DT_VAR(255), %r1)",
        ),
        // In range, but neither a built-in nor declared.
        (
            "ldgs DT_VAR(1024), %r1",
            "invalid variable 1024 (ldgs DT_VAR(1024), %r1)",
        ),
        (
            "ldgs DT_VAR(1290), %r1",
            "invalid variable 1290 (ldgs DT_VAR(1290), %r1)",
        ),
        // Stores only to user variables.
        (
            "stgs %r1, DT_VAR(278)",
            "invalid variable 278 (stgs %r1, DT_VAR(278)\t\t! DT_VAR(278) = \"pid\")",
        ),
        // Declared, but with another scope or kind.
        (
            "ldts DT_VAR(1280), %r1",
            "invalid variable 1280 (ldts DT_VAR(1280), %r1)",
        ),
        (
            "stls %r1, DT_VAR(1281)",
            "invalid variable 1281 (stls %r1, DT_VAR(1281))",
        ),
        (
            "ldgaa DT_VAR(1280), %r1",
            "invalid variable 1280 (ldgaa DT_VAR(1280), %r1\t\t! DT_VAR(1280) = \"g\")",
        ),
        (
            "stgs %r1, DT_VAR(1283)",
            "invalid variable 1283 (stgs %r1, DT_VAR(1283)\t\t! DT_VAR(1283) = \"ga\")",
        ),
        (
            "ldtaa DT_VAR(278), %r1",
            "invalid variable 278 (ldtaa DT_VAR(278), %r1)",
        ),
    ];
    for (instruction, message) in cases {
        check(
            &format!("{instruction}\nret %r1\n{USER_VARIABLES}"),
            &[&format!("DIF offset 0: {message}")],
        );
    }
}

#[test]
fn subroutine_numbers() {
    check("call link_ntop, %r1\nret %r1", &[]);
    check("call __copyin_arguments, %r1\nret %r1", &[]);
    check(
        "call DIF_SUBR(57), %r1\nret %r1",
        &["DIF offset 0: invalid subr 57 (call DIF_SUBR(57), %r1\t\t! unknown)"],
    );
}

#[test]
fn tuple_types() {
    check(
        "pushtr DT_TYPE(0), %r1, %r2\npushtr DT_TYPE(1), %r0, %r2\npushtv DT_TYPE(0), %r1\nret %r1",
        &[],
    );
    check(
        "pushtr DT_TYPE(2), %r1, %r2\nret %r1",
        &["DIF offset 0: invalid ref type 2 (pushtr DT_TYPE(2), %r1, %r2)"],
    );
    check(
        "pushtv DT_TYPE(1), %r1\nret %r1",
        &["DIF offset 0: invalid val type 1 (pushtv DT_TYPE(1), %r1\t\t! DT_TYPE(1) = string)"],
    );
}

#[test]
fn last_instruction_must_be_ret() {
    check(
        "setx 1, %r1\nnop",
        &["DIF offset 1: expected 'ret' as last DIF instruction (nop)"],
    );
}

#[test]
fn return_sizes() {
    for size in [0, 1, 2, 4, 8] {
        check(
            &format!(".returns D type (integer) (size {size})\nret %r1"),
            &[],
        );
    }
    check(
        ".returns D type (integer) (size 3)\nret %r1",
        &["bad return size"],
    );
    check(
        ".returns D type (struct) (size 16)\nret %r1",
        &["bad return size"],
    );
    check(".returns D type (struct) by ref (size 16)\nret %r1", &[]);
    check(".returns string (array) by ref (size 256)\nret %r1", &[]);
    check(
        ".returns D type (struct) by user ref (size 12)\nret %r1",
        &[],
    );
}

#[test]
fn empty_code() {
    check(
        ".returns D type (integer) (size 8)",
        &["DIFO has no instructions"],
    );
}

#[test]
fn variable_table_sizes() {
    let row = |scope: &str, size: u32| {
        format!("ret %r1\nNAME ID KND SCP FLAG TYPE\ns 1280 scl {scope} r string (array) by ref (size {size})")
    };
    check(
        &row("glb", 0),
        &["zero-sized variable \"s\" (DT_VAR(1280))"],
    );
    check(
        &row("tls", 0),
        &["zero-sized variable \"s\" (DT_VAR(1280))"],
    );
    check(&row("glb", 16384), &[]);
    check(
        &row("glb", 16385),
        &["oversized by-ref static \"s\" (DT_VAR(1280))"],
    );
    check(
        &row("loc", 16385),
        &["oversized by-ref static \"s\" (DT_VAR(1280))"],
    );
    // Thread-locals are dynamic variables, not statics.
    check(&row("tls", 16385), &[]);
    // Built-ins are the engine's business.
    check(
        "ret %r1\nNAME ID KND SCP FLAG TYPE\nexecname 280 scl glb r string (array) by ref (size 0)",
        &[],
    );
}

#[test]
fn variable_redefinitions() {
    let table = |second: &str| {
        format!("ret %r1\nNAME ID KND SCP FLAG TYPE\nx 1280 scl glb r D type (integer) (size 8)\n{second}")
    };
    check(
        &table("x 1280 arr glb r D type (integer) (size 8)"),
        &["variable \"x\" (DT_VAR(1280)) changed variable kind"],
    );
    check(
        &table("x 1280 scl glb r D type (integer) by ref (size 8)"),
        &["variable \"x\" (DT_VAR(1280)) changed variable type flags"],
    );
    check(
        &table("x 1280 scl glb r D type (integer) (size 4)"),
        &["variable \"x\" (DT_VAR(1280)) changed variable type size"],
    );
    // Size 0 matches any size; another scope is another variable.
    check(&table("x 1280 scl glb w D type (integer) (size 0)"), &[]);
    check(&table("x 1280 arr tls r D type (integer) (size 4)"), &[]);
}

#[test]
fn string_table_and_name_offsets() {
    let mut difo = assemble("sets \"ab\", %r1\nret %r1").unwrap();
    difo.string_table.pop();
    check_difo(&difo, &["string table is not NUL-terminated"]);
    let mut difo =
        assemble("ret %r1\nNAME ID KND SCP FLAG TYPE\nx 1280 scl glb r D type (integer) (size 8)")
            .unwrap();
    difo.variable_table[0].name_offset = 2;
    check_difo(
        &difo,
        &["invalid variable name offset 2 of variable table entry 0"],
    );
}

#[test]
fn every_error_is_reported() {
    check(
        ".returns D type (integer) (size 5)
         add %r1, %r9, %r0
         ba 0
         setx DT_INTEGER[4], %r1
         call DIF_SUBR(99), %r1
         nop
NAME ID KND SCP FLAG TYPE
y 1280 scl glb r string (array) by ref (size 0)",
        &[
            "DIF offset 0: invalid register 9 (add  %r1, %r9, %r0)",
            "DIF offset 0: cannot write to %r0 (add  %r1, %r9, %r0)",
            "DIF offset 1: backward branch to 0 (ba   0)",
            "DIF offset 2: invalid integer ref 4 (setx DT_INTEGER[4], %r1)",
            "DIF offset 3: invalid subr 99 (call DIF_SUBR(99), %r1\t\t! unknown)",
            "DIF offset 4: expected 'ret' as last DIF instruction (nop)",
            "bad return size",
            "zero-sized variable \"y\" (DT_VAR(1280))",
        ],
    );
}

#[test]
fn verify_error_fields() {
    let difo = assemble("nop\nba 0\nret %r1").unwrap();
    let errors = verify(&difo).unwrap_err();
    assert_eq!(
        errors,
        vec![VerifyError {
            location: None,
            offset: Some(1),
            instruction: Some("ba   0".to_string()),
            message: "backward branch to 0".to_string(),
        }]
    );
}

// Program-level checks.

fn ret_difo() -> Difo {
    Difo {
        code: vec![Instruction::registers(Opcode::Ret, 0, 0, 1)],
        integer_table: vec![],
        string_table: vec![],
        variable_table: vec![],
        return_type: DifType::integer(8),
        kernel_relocations: Vec::new(),
    }
}

fn slot(offset: u32, size: u32, alignment: u32) -> RecordSlot {
    RecordSlot {
        offset,
        size,
        alignment,
        layout: ValueLayout::Integer { signed: true },
    }
}

fn value(slot: Option<RecordSlot>) -> ActionValue {
    ActionValue {
        difo: Some(ret_difo()),
        slot,
    }
}

fn action(kind: ActionKind, values: Vec<ActionValue>) -> Action {
    Action { kind, values }
}

fn statement(actions: Vec<Action>, record_size: u32) -> Statement {
    Statement {
        clause: 0,
        role: StatementRole::User,
        probe: ProbeDescription {
            provider: "dtrace".to_string(),
            module: String::new(),
            function: String::new(),
            name: "BEGIN".to_string(),
        },
        predicate: None,
        actions,
        record_size,
        attributes: difvm::stability::STABLE_COMMON,
    }
}

fn aggregation(id: u32, key_size: u32, keys: Vec<RecordSlot>) -> AggregationDescription {
    AggregationDescription {
        id,
        name: format!("a{id}"),
        function: AggregationFunction::Count,
        keys,
        key_size,
    }
}

/// `"%d %d\n"` parsed, as the compiler stores it.
fn two_integers_format() -> PrintfFormat {
    let integer = |number| {
        FormatPiece::Conversion(Conversion {
            number,
            flags: ConversionFlags::default(),
            width: Width::None,
            precision: Precision::None,
            name: "d".to_string(),
            text: "%d".to_string(),
            behavior: ConversionBehavior::Integer {
                radix: IntegerRadix::Decimal,
                signedness: IntegerSignedness::FromArgument,
            },
        })
    };
    PrintfFormat {
        text: "%d %d\n".to_string(),
        parsed: Ok(FormatString {
            pieces: vec![
                integer(1),
                FormatPiece::Literal(b" ".to_vec()),
                integer(2),
                FormatPiece::Literal(b"\n".to_vec()),
            ],
        }),
    }
}

/// A program with a `trace()`, a `printf()` of two values, an aggregation keyed by one
/// value and a `printa()`.
fn valid_program() -> CompiledProgram {
    CompiledProgram {
        statements: vec![statement(
            vec![
                action(ActionKind::Trace, vec![value(Some(slot(0, 8, 8)))]),
                action(
                    ActionKind::Printf {
                        format: two_integers_format(),
                    },
                    vec![value(Some(slot(8, 4, 4))), value(Some(slot(12, 4, 4)))],
                ),
                action(
                    ActionKind::Aggregate { aggregation: 1 },
                    vec![value(Some(slot(0, 8, 8))), value(None)],
                ),
                action(
                    ActionKind::Printa {
                        format: None,
                        aggregations: vec![1],
                    },
                    vec![],
                ),
            ],
            16,
        )],
        aggregations: vec![aggregation(1, 8, vec![slot(0, 8, 8)])],
        variables: vec![],
        options: vec![],
        kernel_type_read: None,
        provider_attributes: Vec::new(),
    }
}

/// Verifies `program` and compares the error texts with `expected`.
fn check_program(program: &CompiledProgram, expected: &[&str]) {
    let found: Vec<String> = match verify_program(program) {
        Ok(verified) => {
            assert_eq!(verified.program(), program);
            Vec::new()
        }
        Err(errors) => errors.iter().map(VerifyError::to_string).collect(),
    };
    assert_eq!(found, expected);
}

const BEGIN: &str = "statement 0 (clause 0, dtrace:::BEGIN)";

#[test]
fn a_valid_program_verifies() {
    let program = valid_program();
    check_program(&program, &[]);
    assert_eq!(verify_program(&program).unwrap().into_program(), program);
}

#[test]
fn difo_errors_say_where_they_are() {
    let mut program = valid_program();
    program.statements[0].predicate = Some(assemble("ba 0\nret %r1").unwrap());
    program.statements[0].actions[1].values[1].difo = Some(assemble("ret %r9").unwrap());
    check_program(
        &program,
        &[
            &format!("{BEGIN}, predicate: DIF offset 0: backward branch to 0 (ba   0)"),
            &format!(
                "{BEGIN}, action 1 (printf), value 1: DIF offset 0: invalid register 9 (ret  %r9)"
            ),
        ],
    );
}

#[test]
fn record_size_must_be_a_multiple_of_8() {
    let mut program = valid_program();
    program.statements[0].record_size = 20;
    check_program(
        &program,
        &[&format!("{BEGIN}: record size 20 is not a multiple of 8")],
    );
}

#[test]
fn record_slots_must_fit_and_not_overlap() {
    let mut program = valid_program();
    program.statements[0].actions[1].values[1].slot = Some(slot(12, 8, 4));
    check_program(
        &program,
        &[&format!(
            "{BEGIN}, action 1 (printf), value 1: record slot at offset 12 (size 8) runs past the record size 16"
        )],
    );
    let mut program = valid_program();
    program.statements[0].actions[1].values[0].slot = Some(slot(4, 4, 4));
    check_program(
        &program,
        &[&format!(
            "{BEGIN}, action 1 (printf), value 0: record slot at offset 4 (size 4) overlaps the record slot of {BEGIN}, action 0 (trace), value 0 at offset 0 (size 8)"
        )],
    );
}

#[test]
fn record_slots_must_be_aligned() {
    let mut program = valid_program();
    program.statements[0].actions[1].values[0].slot = Some(slot(10, 2, 4));
    check_program(
        &program,
        &[&format!(
            "{BEGIN}, action 1 (printf), value 0: record slot at offset 10 is not aligned to 4"
        )],
    );
    program.statements[0].actions[1].values[0].slot = Some(slot(8, 4, 3));
    check_program(
        &program,
        &[&format!(
            "{BEGIN}, action 1 (printf), value 0: record slot at offset 8 has invalid alignment 3"
        )],
    );
}

#[test]
fn aggregation_references() {
    let mut program = valid_program();
    program.statements[0].actions[3].kind = ActionKind::Printa {
        format: None,
        aggregations: vec![1, 2],
    };
    program.statements[0]
        .actions
        .push(action(ActionKind::Clear { aggregation: 7 }, vec![]));
    program.statements[0].actions[2].kind = ActionKind::Aggregate { aggregation: 3 };
    check_program(
        &program,
        &[
            &format!("{BEGIN}, action 2 (aggregation): unknown aggregation 3"),
            &format!("{BEGIN}, action 3 (printa): unknown aggregation 2"),
            &format!("{BEGIN}, action 4 (clear): unknown aggregation 7"),
        ],
    );
}

#[test]
fn aggregation_descriptions_and_keys() {
    let mut program = valid_program();
    program.aggregations.push(aggregation(1, 8, vec![]));
    program
        .aggregations
        .push(aggregation(2, 4, vec![slot(0, 8, 8)]));
    program.statements[0].actions[2].values[0].slot = Some(slot(4, 8, 4));
    check_program(
        &program,
        &[
            "aggregation 1 (@a1): duplicate aggregation id 1",
            "aggregation 2 (@a2), key 0: key slot at offset 0 (size 8) runs past the key size 4",
            &format!("{BEGIN}, action 2 (aggregation), value 0: key slot at offset 4 (size 8) runs past the key size 8"),
        ],
    );
}

#[test]
fn variables_must_agree_across_difos() {
    let declares = |size: u32| {
        assemble(&format!(
            "ldgs x, %r1\nret %r1\nNAME ID KND SCP FLAG TYPE\nx 1280 scl glb r D type (integer) (size {size})"
        ))
        .unwrap()
    };
    let mut program = valid_program();
    program.statements[0].predicate = Some(declares(8));
    program.statements[0].actions[0].values[0].difo = Some(declares(8));
    check_program(&program, &[]);
    program.statements[0].actions[1].values[0].difo = Some(declares(4));
    check_program(
        &program,
        &[&format!(
            "{BEGIN}, action 1 (printf), value 0: variable \"x\" (DT_VAR(1280)) changed variable type size (declared differently in {BEGIN}, predicate)"
        )],
    );
}

#[test]
fn a_variable_table_entry_may_describe_a_static_array() {
    let difo = Difo {
        variable_table: vec![DifVariable {
            name_offset: 0,
            id: 0x80,
            kind: VariableKind::Array,
            scope: VariableScope::Global,
            flags: 1,
            ty: DifType::integer(4),
        }],
        string_table: b"a\0".to_vec(),
        code: vec![
            Instruction::registers(Opcode::Ldga, 0x80, 1, 2),
            Instruction::registers(Opcode::Ret, 0, 0, 2),
        ],
        ..ret_difo()
    };
    check_difo(&difo, &[]);
}
