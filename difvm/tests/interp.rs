//! Tests of the reference interpreter at the DIFO level: DIFOs written by hand with the
//! `Instruction` constructors and run on a machine (ALU, branches, loads and stores, faults
//! with their offsets, the tuple stack, built-ins, string comparison). Subroutines and
//! variables have their own files; whole programs on the engine are tested in
//! `src/interp/engine_tests.rs`.

mod interp_common;

use interp_common::*;

// ---------------------------------------------------------------------------------------
// ALU, branches, loads, stores, faults.

#[test]
fn arithmetic_and_logic() {
    let minus = |value: i64| value as u64;
    let cases = [
        (Opcode::Or, 0b1100, 0b1010, 0b1110),
        (Opcode::Xor, 0b1100, 0b1010, 0b0110),
        (Opcode::And, 0b1100, 0b1010, 0b1000),
        (Opcode::Sll, 1, 63, 1 << 63),
        (Opcode::Sll, 1, 64, 1),
        (Opcode::Srl, minus(-16), 60, 0xf),
        (Opcode::Sra, minus(-16), 2, minus(-4)),
        (Opcode::Sub, 3, 5, minus(-2)),
        (Opcode::Add, u64::MAX, 2, 1),
        (Opcode::Mul, minus(-3), 7, minus(-21)),
        (Opcode::Sdiv, minus(-7), 2, minus(-3)),
        (Opcode::Sdiv, minus(i64::MIN), minus(-1), minus(i64::MIN)),
        (Opcode::Udiv, minus(-8), 2, u64::MAX / 2 - 3),
        (Opcode::Srem, minus(-7), 2, minus(-1)),
        (Opcode::Srem, minus(i64::MIN), minus(-1), 0),
        (Opcode::Urem, 17, 5, 2),
    ];
    for (op, left, right, expected) in cases {
        check(
            &format!("{op:?} {left:#x} {right:#x}"),
            &binary(op, left, right),
            Expect::Value(expected),
        );
    }
    check(
        "not",
        &code().setx(0xf0, 1).op(Opcode::Not, 1, 0, 2).ret(2).build(),
        Expect::Value(!0xf0),
    );
    check(
        "mov",
        &code().setx(5, 1).op(Opcode::Mov, 1, 0, 2).ret(2).build(),
        Expect::Value(5),
    );
    check(
        "%r0 stays 0",
        &code().setx(5, 0).ret(0).build(),
        Expect::Value(0),
    );
}

#[test]
fn division_by_zero_faults_at_its_offset() {
    for op in [Opcode::Sdiv, Opcode::Udiv, Opcode::Srem, Opcode::Urem] {
        check(
            &format!("{op:?}"),
            &binary(op, 7, 0),
            Expect::Fault(FaultCode::DivideByZero, 0, Some(2)),
        );
    }
    let difo = binary(Opcode::Udiv, 7, 0);
    let fault = difvm::interp::evaluate_difo(&difo, &context()).unwrap_err();
    assert_eq!(fault.dif_offset(), 8);
}

#[test]
fn branches_follow_the_condition_codes() {
    let minus = |value: i64| value as u64;
    // (left, right, branch, taken) after `cmp left, right`.
    let cases = [
        (1, 1, Opcode::Be, true),
        (1, 2, Opcode::Be, false),
        (1, 2, Opcode::Bne, true),
        (2, 1, Opcode::Bg, true),
        (1, 1, Opcode::Bg, false),
        (minus(-1), 1, Opcode::Bg, false),
        (minus(-1), 1, Opcode::Bgu, true),
        (1, 1, Opcode::Bge, true),
        (minus(-2), 1, Opcode::Bge, false),
        (minus(-1), 1, Opcode::Bgeu, true),
        (1, 2, Opcode::Bgeu, false),
        (minus(-1), 1, Opcode::Bl, true),
        (minus(-1), 1, Opcode::Blu, false),
        (1, minus(-1), Opcode::Blu, true),
        (1, 1, Opcode::Ble, true),
        (2, 1, Opcode::Ble, false),
        (1, 1, Opcode::Bleu, true),
        (minus(-1), 1, Opcode::Bleu, false),
        (0, 0, Opcode::Ba, true),
        // V is always 0, so a signed comparison that overflows follows the wrapped sign.
        (minus(i64::MIN), 1, Opcode::Bg, true),
    ];
    for (left, right, branch, taken) in cases {
        let difo = code()
            .setx(left, 1)
            .setx(right, 2)
            .op(Opcode::Cmp, 1, 2, 0)
            .branch(branch, 6)
            .setx(0, 3)
            .ret(3)
            .setx(1, 3)
            .ret(3)
            .build();
        check(
            &format!("{branch:?} {left:#x} {right:#x}"),
            &difo,
            Expect::Value(taken as u64),
        );
    }
    let tst = |value: u64| {
        code()
            .setx(value, 1)
            .op(Opcode::Tst, 1, 0, 0)
            .branch(Opcode::Be, 5)
            .setx(0, 2)
            .ret(2)
            .setx(1, 2)
            .ret(2)
            .build()
    };
    check("tst 0", &tst(0), Expect::Value(1));
    check("tst 1", &tst(1), Expect::Value(0));
}

#[test]
fn malformed_code_faults_instead_of_misbehaving() {
    use Opcode::*;
    let pid = builtin_variable::PID;
    #[rustfmt::skip]
    let cases: [(&str, Difo, u64, Option<u32>); 13] = [
        ("unknown opcode", code().word(0xff00_0000).build(), 0xff, Some(0)),
        ("register 8", code().op(Mov, 8, 0, 1).ret(1).build(), 8, Some(0)),
        ("writing register 9", code().op(Mov, 1, 0, 9).ret(1).build(), 9, Some(0)),
        ("backward branch", code().op(Nop, 0, 0, 0).branch(Ba, 0).build(), 0, Some(1)),
        ("branch to itself", code().branch(Ba, 0).build(), 0, Some(0)),
        ("branch past the end", code().branch(Ba, 9).ret(0).build(), 9, Some(0)),
        ("no ret", code().setx(1, 1).build(), 0, None),
        ("empty code", code().build(), 0, None),
        ("integer table index", code().indexed(Setx, 3, 1).ret(1).build(), 3, Some(0)),
        ("string table index", code().indexed(Sets, 3, 1).ret(1).build(), 3, Some(0)),
        ("xlate", code().indexed(Xlate, 1, 1).ret(1).build(), 1, Some(0)),
        ("builtin store", code().indexed(Stgs, pid, 1).ret(1).build(), pid as u64, Some(0)),
        ("unknown builtin", code().indexed(Ldgs, 0x300, 1).ret(1).build(), 0x300, Some(0)),
    ];
    for (name, difo, value, at) in cases {
        check(
            name,
            &difo,
            Expect::Fault(FaultCode::IllegalOperation, value, at),
        );
    }
}

#[test]
fn loads_check_alignment_and_addresses() {
    use FaultCode::{BadAddress, BadAlignment};
    use Opcode::*;
    #[rustfmt::skip]
    let cases = [
        ("ldub", Ldub, 0x1006, Expect::Value(0xff)),
        ("ldsb", Ldsb, 0x1006, Expect::Value(u64::MAX)),
        ("lduh", Lduh, 0x1004, Expect::Value(0x80fe)),
        ("ldsh", Ldsh, 0x1006, Expect::Value(u64::MAX)),
        ("lduw", Lduw, 0x1000, Expect::Value(0x0100_007f)),
        ("ldsw", Ldsw, 0x1004, Expect::Value(0xffff_ffff_ffff_80fe)),
        ("ldx", Ldx, 0x1000, Expect::Value(0xffff_80fe_0100_007f)),
        ("misaligned", Lduw, 0x1002, Expect::Fault(BadAlignment, 0x1002, Some(1))),
        ("NULL", Ldx, 0, Expect::Fault(BadAddress, 0, Some(1))),
        ("unmapped", Ldub, 0x9000, Expect::Fault(BadAddress, 0x9000, Some(1))),
        ("restricted", Rldub, 0x1000, Expect::Fault(BadAddress, 0x1000, Some(1))),
        ("user load", Uldub, 0x5001, Expect::Value(b'r' as u64)),
        ("user kernel", Uldub, 0x1000, Expect::Fault(BadAddress, 0x1000, Some(1))),
    ];
    for (name, op, address, expected) in cases {
        check(
            name,
            &code().setx(address, 1).op(op, 1, 0, 2).ret(2).build(),
            expected,
        );
    }
    let from_string_table = code().sets(b"\x80bc", 1).op(Rldsb, 1, 0, 2).ret(2).build();
    check(
        "rldsb of the string table",
        &from_string_table,
        Expect::Value(u64::MAX - 0x7f),
    );
}

#[test]
fn stores_only_reach_scratch() {
    let round_trip = code()
        .setx(16, 1)
        .op(Opcode::Allocs, 1, 0, 2)
        .setx(0x1122_3344_5566_7788, 3)
        .op(Opcode::Stx, 3, 0, 2)
        .setx(4, 4)
        .op(Opcode::Add, 2, 4, 4)
        .op(Opcode::Stb, 3, 0, 4)
        .op(Opcode::Ldx, 2, 0, 5)
        .ret(5)
        .build();
    check(
        "stx, stb, ldx",
        &round_trip,
        Expect::Value(0x1122_3388_5566_7788),
    );
    let into_string_table = code()
        .sets(b"abcdefgh", 1)
        .op(Opcode::Stb, 0, 0, 1)
        .ret(0)
        .build();
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    state.begin_clause();
    let (result, _) = run_in(&mut state, &into_string_table, &context());
    let fault = result.unwrap_err();
    assert_eq!(
        (fault.code, fault.instruction),
        (FaultCode::BadAddress, Some(1))
    );
    let misaligned = code()
        .setx(16, 1)
        .op(Opcode::Allocs, 1, 0, 2)
        .setx(1, 3)
        .op(Opcode::Add, 2, 3, 2)
        .op(Opcode::Stw, 0, 0, 2)
        .ret(0)
        .build();
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    state.begin_clause();
    let (result, _) = run_in(&mut state, &misaligned, &context());
    let fault = result.unwrap_err();
    assert_eq!(
        (fault.code, fault.instruction),
        (FaultCode::BadAlignment, Some(4))
    );
    let beyond_allocation = code()
        .setx(8, 1)
        .op(Opcode::Allocs, 1, 0, 2)
        .op(Opcode::Add, 2, 1, 2)
        .op(Opcode::Stb, 0, 0, 2)
        .ret(0)
        .build();
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    state.begin_clause();
    assert_eq!(
        run_in(&mut state, &beyond_allocation, &context())
            .0
            .unwrap_err()
            .code,
        FaultCode::BadAddress
    );
    let copies = code()
        .sets(b"copied", 1)
        .setx(8, 2)
        .op(Opcode::Allocs, 2, 0, 3)
        .setx(7, 4)
        .op(Opcode::Copys, 1, 4, 3)
        .ret(3)
        .returns_string()
        .build();
    check("copys", &copies, Expect::Text("copied"));
    let copy_out_of_scratch = code()
        .sets(b"x", 1)
        .setx(2, 2)
        .op(Opcode::Copys, 1, 2, 1)
        .ret(0)
        .build();
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    state.begin_clause();
    assert_eq!(
        run_in(&mut state, &copy_out_of_scratch, &context())
            .0
            .unwrap_err()
            .code,
        FaultCode::BadAddress
    );
}

#[test]
fn scratch_exhaustion_and_tuple_overflow() {
    let huge = code()
        .setx(1 << 40, 1)
        .op(Opcode::Allocs, 1, 0, 2)
        .ret(2)
        .build();
    check(
        "allocs",
        &huge,
        Expect::Fault(FaultCode::NoScratch, 0, Some(1)),
    );
    let alloca = code()
        .setx(1 << 40, 1)
        .push_value(1)
        .call(subroutine::ALLOCA, 2)
        .ret(2)
        .build();
    check(
        "alloca",
        &alloca,
        Expect::Fault(FaultCode::NoScratch, 0, Some(2)),
    );
    let mut pushes = code().setx(1, 1);
    for _ in 0..9 {
        pushes = pushes.push_value(1);
    }
    check(
        "ninth push",
        &pushes.ret(1).build(),
        Expect::Fault(FaultCode::TupleOverflow, 0, Some(9)),
    );
    let popped = code()
        .setx(1, 1)
        .push_value(1)
        .op(Opcode::Popts, 0, 0, 0)
        .op(Opcode::Flushts, 0, 0, 0)
        .call(subroutine::STRLEN, 2)
        .ret(2)
        .build();
    check(
        "popped arguments are gone",
        &popped,
        Expect::Fault(
            FaultCode::IllegalOperation,
            subroutine::STRLEN as u64,
            Some(4),
        ),
    );
}

#[test]
fn builtin_variables_and_arguments() {
    let ldgs = |id: u16| code().indexed(Opcode::Ldgs, id, 1).ret(1).build();
    check("pid", &ldgs(builtin_variable::PID), Expect::Value(1234));
    check("tid", &ldgs(builtin_variable::TID), Expect::Value(1235));
    check("epid", &ldgs(builtin_variable::EPID), Expect::Value(7));
    check("id", &ldgs(builtin_variable::ID), Expect::Value(99));
    check("arg1", &ldgs(builtin_variable::ARG0 + 1), Expect::Value(20));
    check(
        "arg9 is missing, reads 0",
        &ldgs(builtin_variable::ARG0 + 9),
        Expect::Value(0),
    );
    check(
        "timestamp",
        &ldgs(builtin_variable::TIMESTAMP),
        Expect::Value(777),
    );
    check(
        "ipl is not on Linux",
        &ldgs(builtin_variable::IPL),
        Expect::Fault(
            FaultCode::IllegalOperation,
            builtin_variable::IPL as u64,
            Some(0),
        ),
    );
    let string = |id: u16| {
        code()
            .indexed(Opcode::Ldgs, id, 1)
            .ret(1)
            .returns_string()
            .build()
    };
    check(
        "execname",
        &string(builtin_variable::EXECNAME),
        Expect::Text("dtrace-test"),
    );
    check(
        "probeprov",
        &string(builtin_variable::PROBEPROV),
        Expect::Text("test"),
    );
    check(
        "probefunc",
        &string(builtin_variable::PROBEFUNC),
        Expect::Text("func"),
    );
    let args = |index: u64| {
        code()
            .setx(index, 1)
            .op(Opcode::Ldga, 0, 1, 2)
            .ret(2)
            .build()
    };
    check("args[2]", &args(2), Expect::Value(30));
    check(
        "args[3]",
        &args(3),
        Expect::Fault(FaultCode::IllegalOperation, 3, Some(1)),
    );
}

#[test]
fn string_comparison() {
    // scmp: NULL compares as the empty string; bytes compare unsigned.
    let compare = |left: Option<&[u8]>, right: Option<&[u8]>| {
        let mut difo = code();
        difo = match left {
            Some(text) => difo.sets(text, 1),
            None => difo.setx(0, 1),
        };
        difo = match right {
            Some(text) => difo.sets(text, 2),
            None => difo.setx(0, 2),
        };
        difo.op(Opcode::Scmp, 1, 2, 0)
            .branch(Opcode::Bl, 7)
            .branch(Opcode::Be, 9)
            .setx(1, 3)
            .ret(3)
            .setx(u64::MAX, 3)
            .ret(3)
            .ret(0)
            .build()
    };
    check(
        "equal",
        &compare(Some(b"abc"), Some(b"abc")),
        Expect::Value(0),
    );
    check(
        "less",
        &compare(Some(b"abc"), Some(b"abd")),
        Expect::Value(u64::MAX),
    );
    check(
        "prefix is less",
        &compare(Some(b"ab"), Some(b"abc")),
        Expect::Value(u64::MAX),
    );
    check(
        "unsigned bytes",
        &compare(Some(b"\xff"), Some(b"a")),
        Expect::Value(1),
    );
    check(
        "NULL equals empty",
        &compare(None, Some(b"")),
        Expect::Value(0),
    );
    check(
        "NULL is less",
        &compare(None, Some(b"a")),
        Expect::Value(u64::MAX),
    );
}
