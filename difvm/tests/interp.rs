//! Tests of the reference interpreter at the DIFO level: DIFOs written by hand with the
//! `Instruction` constructors and run on a machine (ALU, branches, loads and stores, faults
//! with their offsets, the tuple stack, built-ins, variables, subroutines and their §7.3
//! edge cases). Whole programs on the engine are tested in `src/interp/engine_tests.rs`.

use difvm::difo::{DifType, DifVariable, Difo, VariableKind, VariableScope};
use difvm::interp::{
    execute_difo, DifFault, MachineOptions, MachineState, ProbeIdentity, SimpleFiringContext,
};
use difvm::isa::{
    builtin_variable, subroutine, Instruction, Opcode, DIF_TYPE_CTF, DIF_TYPE_STRING,
};
use difvm::object::{FaultCode, ProbeDescription};

// ---------------------------------------------------------------------------------------
// Building DIFOs.

/// A DIFO under construction; constants go into the tables as they are used.
#[derive(Clone)]
struct Code(Difo);

fn code() -> Code {
    Code(Difo {
        code: Vec::new(),
        integer_table: Vec::new(),
        string_table: Vec::new(),
        variable_table: Vec::new(),
        return_type: DifType::integer(8),
    })
}

impl Code {
    fn op(mut self, op: Opcode, r1: u8, r2: u8, rd: u8) -> Code {
        self.0.code.push(Instruction::registers(op, r1, r2, rd));
        self
    }
    fn indexed(mut self, op: Opcode, index: u16, rd: u8) -> Code {
        self.0.code.push(Instruction::indexed(op, index, rd));
        self
    }
    fn branch(mut self, op: Opcode, label: u32) -> Code {
        self.0.code.push(Instruction::branch(op, label));
        self
    }
    fn word(mut self, word: u32) -> Code {
        self.0.code.push(Instruction(word));
        self
    }
    fn setx(mut self, value: u64, rd: u8) -> Code {
        self.0.integer_table.push(value);
        let index = self.0.integer_table.len() as u16 - 1;
        self.indexed(Opcode::Setx, index, rd)
    }
    fn sets(mut self, text: &[u8], rd: u8) -> Code {
        let offset = self.0.string_table.len() as u16;
        self.0.string_table.extend_from_slice(text);
        self.0.string_table.push(0);
        self.indexed(Opcode::Sets, offset, rd)
    }
    fn push_value(self, register: u8) -> Code {
        self.op(Opcode::Pushtv, DIF_TYPE_CTF, 0, register)
    }
    fn push_string(self, register: u8) -> Code {
        self.op(Opcode::Pushtr, DIF_TYPE_STRING, 0, register)
    }
    fn call(self, number: u16, rd: u8) -> Code {
        self.indexed(Opcode::Call, number, rd)
    }
    fn ret(self, register: u8) -> Code {
        self.op(Opcode::Ret, 0, 0, register)
    }
    fn returns_string(mut self) -> Code {
        self.0.return_type = DifType::string(256);
        self
    }
    fn variable(mut self, id: u16, scope: VariableScope, kind: VariableKind, ty: DifType) -> Code {
        let name_offset = self.0.string_table.len() as u32;
        self.0
            .string_table
            .extend_from_slice(format!("v{id:x}\0").as_bytes());
        self.0.variable_table.push(DifVariable {
            name_offset,
            id,
            kind,
            scope,
            flags: 3,
            ty,
        });
        self
    }
    fn build(self) -> Difo {
        self.0
    }
}

/// `%r1 = left; %r2 = right; op %r1, %r2, %r3; ret %r3`.
fn binary(op: Opcode, left: u64, right: u64) -> Difo {
    code()
        .setx(left, 1)
        .setx(right, 2)
        .op(op, 1, 2, 3)
        .ret(3)
        .build()
}

// ---------------------------------------------------------------------------------------
// Running DIFOs.

/// What a DIFO run should give.
#[derive(Debug)]
enum Expect<'a> {
    Value(u64),
    Text(&'a str),
    Fault(FaultCode, u64, Option<u32>),
}

fn context() -> SimpleFiringContext {
    let mut user_string = b"from user space".to_vec();
    user_string.push(0);
    SimpleFiringContext {
        cpu: 0,
        arguments: vec![10, 20, 30],
        pid: 1234,
        tid: 1235,
        execname: "dtrace-test".to_string(),
        timestamp: 777,
        kernel_memory: vec![
            (0x1000, vec![0x7f, 0, 0, 1, 0xfe, 0x80, 0xff, 0xff]),
            (0x2000, [0u8; 16].to_vec()),
        ],
        user_memory: vec![(0x5000, user_string)],
        ..SimpleFiringContext::default()
    }
}

fn run_in(
    state: &mut MachineState,
    difo: &Difo,
    context: &SimpleFiringContext,
) -> (Result<u64, DifFault>, Option<String>) {
    let probe = ProbeDescription {
        provider: "test".into(),
        module: "mod".into(),
        function: "func".into(),
        name: "entry".into(),
    };
    let identity = ProbeIdentity {
        epid: 7,
        probe_id: 99,
        probe: &probe,
    };
    let result = execute_difo(difo, state, &identity, context);
    let text = match result {
        Ok(address) if difo.return_type.is_by_reference() && address != 0 => state
            .memory
            .read_string(
                context,
                address,
                4096,
                difvm::interp::memory::Access::Kernel,
            )
            .ok()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        _ => None,
    };
    (result, text)
}

fn check(name: &str, difo: &Difo, expected: Expect) {
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    check_in(&mut state, name, difo, expected);
}

fn check_in(state: &mut MachineState, name: &str, difo: &Difo, expected: Expect) {
    state.begin_clause();
    let (result, text) = run_in(state, difo, &context());
    match expected {
        Expect::Value(value) => assert_eq!(result, Ok(value), "{name}"),
        Expect::Text(expected) => {
            assert!(result.is_ok(), "{name}: {result:?}");
            assert_eq!(text.as_deref(), Some(expected), "{name}");
        }
        Expect::Fault(code, value, instruction) => {
            assert_eq!(
                result,
                Err(DifFault {
                    code,
                    value,
                    instruction
                }),
                "{name}"
            )
        }
    }
}

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

// ---------------------------------------------------------------------------------------
// Subroutines.

#[derive(Clone, Copy)]
enum Arg<'a> {
    Str(&'a str),
    Int(i64),
}

/// Pushes the arguments, calls `number`, returns its result.
fn subroutine_call(number: u16, args: &[Arg], returns_string: bool) -> Difo {
    let mut difo = code();
    for arg in args {
        difo = match arg {
            Arg::Str(text) => difo.sets(text.as_bytes(), 1).push_string(1),
            Arg::Int(value) => difo.setx(*value as u64, 1).push_value(1),
        };
    }
    difo = difo.call(number, 1).ret(1);
    if returns_string {
        difo = difo.returns_string();
    }
    difo.build()
}

fn check_text(number: u16, args: &[Arg], expected: &str) {
    let name = subroutine::name(number).unwrap();
    check(
        name,
        &subroutine_call(number, args, true),
        Expect::Text(expected),
    );
}

fn check_value(number: u16, args: &[Arg], expected: i64) {
    let name = subroutine::name(number).unwrap();
    check(
        name,
        &subroutine_call(number, args, false),
        Expect::Value(expected as u64),
    );
}

#[test]
fn string_subroutines() {
    use Arg::{Int, Str};
    check_value(subroutine::STRLEN, &[Str("hello")], 5);
    check_value(subroutine::STRLEN, &[Str("")], 0);
    check_text(subroutine::STRJOIN, &[Str("foo"), Str("bar")], "foobar");
    check_text(subroutine::SUBSTR, &[Str("hello world"), Int(6)], "world");
    check_text(
        subroutine::SUBSTR,
        &[Str("hello world"), Int(-5), Int(2)],
        "wo",
    );
    check_text(
        subroutine::SUBSTR,
        &[Str("hello world"), Int(3), Int(-3)],
        "lo wo",
    );
    check_text(subroutine::SUBSTR, &[Str("hello"), Int(5)], "");
    check_value(subroutine::INDEX, &[Str("hello hello"), Str("llo")], 2);
    check_value(
        subroutine::INDEX,
        &[Str("hello hello"), Str("llo"), Int(3)],
        8,
    );
    check_value(subroutine::INDEX, &[Str(""), Str("")], 0);
    check_value(subroutine::INDEX, &[Str("abc"), Str(""), Int(7)], 3);
    check_value(subroutine::RINDEX, &[Str("hello hello"), Str("llo")], 8);
    check_value(subroutine::RINDEX, &[Str("hello"), Str(""), Int(-1)], 0);
    check_value(subroutine::RINDEX, &[Str("hello"), Str("l"), Int(-1)], -1);
    check_text(subroutine::STRCHR, &[Str("a/b/c"), Int('/' as i64)], "/b/c");
    check_text(subroutine::STRRCHR, &[Str("a/b/c"), Int('/' as i64)], "/c");
    check_value(subroutine::STRCHR, &[Str("abc"), Int('z' as i64)], 0);
    check_text(subroutine::STRSTR, &[Str("haystack"), Str("st")], "stack");
    check_value(subroutine::STRSTR, &[Str("haystack"), Str("needle")], 0);
    check_text(subroutine::LLTOSTR, &[Int(-42)], "-42");
    check_text(subroutine::LLTOSTR, &[Int(255), Int(16)], "0xff");
    check_text(subroutine::LLTOSTR, &[Int(0), Int(16)], "0x0");
    check_text(subroutine::LLTOSTR, &[Int(8), Int(8)], "010");
    check_value(subroutine::STRTOLL, &[Str("  -123abc")], -123);
    check_value(subroutine::STRTOLL, &[Str("0x1F"), Int(16)], 31);
    check_text(subroutine::TOUPPER, &[Str("MiXed 1")], "MIXED 1");
    check_text(subroutine::TOLOWER, &[Str("MiXed 1")], "mixed 1");
    check_text(subroutine::BASENAME, &[Str("/usr/lib/")], "lib");
    check_text(subroutine::BASENAME, &[Str("")], ".");
    check_text(subroutine::DIRNAME, &[Str("/usr/lib/")], "/usr");
    check_text(subroutine::DIRNAME, &[Str("file")], ".");
    check_text(subroutine::DIRNAME, &[Str("/")], "/");
    check_text(subroutine::CLEANPATH, &[Str("/a//b/./c/../d")], "/a/b/d");
}

#[test]
fn subroutine_faults() {
    use Arg::{Int, Str};
    let fault = |number: u16, args: &[Arg], code: FaultCode, value: u64| {
        let at = Some(args.len() as u32 * 2);
        check(
            subroutine::name(number).unwrap(),
            &subroutine_call(number, args, false),
            Expect::Fault(code, value, at),
        );
    };
    fault(
        subroutine::LLTOSTR,
        &[Int(1), Int(1)],
        FaultCode::IllegalOperation,
        1,
    );
    fault(
        subroutine::LLTOSTR,
        &[Int(1), Int(37)],
        FaultCode::IllegalOperation,
        37,
    );
    fault(
        subroutine::INET_NTOP,
        &[Int(99), Int(0x1000)],
        FaultCode::IllegalOperation,
        99,
    );
    fault(
        subroutine::MUTEX_OWNED,
        &[Int(0x1000)],
        FaultCode::IllegalOperation,
        subroutine::MUTEX_OWNED as u64,
    );
    fault(
        subroutine::D_PATH,
        &[Int(0x1000)],
        FaultCode::IllegalOperation,
        subroutine::D_PATH as u64,
    );
    fault(subroutine::STRLEN, &[Int(0)], FaultCode::BadAddress, 0);
    fault(
        subroutine::COPYIN,
        &[Int(0x1000), Int(4)],
        FaultCode::BadAddress,
        0x1000,
    );
    fault(
        subroutine::BCOPY,
        &[Int(0x1000), Int(0x2000), Int(4)],
        FaultCode::BadAddress,
        0x2000,
    );
    let long = "x".repeat(200);
    fault(
        subroutine::STRJOIN,
        &[Str(&long), Str(&long)],
        FaultCode::NoScratch,
        0,
    );
    // A string pushed with pushtr is measured at push time: NULL faults there.
    let null_string = code().setx(0, 1).push_string(1).ret(0).build();
    check(
        "pushtr NULL",
        &null_string,
        Expect::Fault(FaultCode::BadAddress, 0, Some(1)),
    );
}

#[test]
fn number_and_network_subroutines() {
    use Arg::Int;
    check_value(subroutine::HTONS, &[Int(0x1234)], 0x3412);
    check_value(subroutine::NTOHL, &[Int(0x1234_5678)], 0x7856_3412);
    check_value(
        subroutine::HTONLL,
        &[Int(0x0102_0304_0506_0708)],
        0x0807_0605_0403_0201,
    );
    check_value(subroutine::GETMAJOR, &[Int((8 << 20) | 3)], 8);
    check_value(subroutine::GETMINOR, &[Int((8 << 20) | 3)], 3);
    check_value(subroutine::PROGENYOF, &[Int(1234)], 1);
    check_value(subroutine::PROGENYOF, &[Int(1)], 0);
    check_text(subroutine::INET_NTOA, &[Int(0x1000)], "127.0.0.1");
    check_text(subroutine::INET_NTOP, &[Int(2), Int(0x1000)], "127.0.0.1");
    check_text(subroutine::INET_NTOA6, &[Int(0x2000)], "::");
    check_text(subroutine::INET_NTOP, &[Int(10), Int(0x2000)], "::");
    check_text(subroutine::COPYINSTR, &[Int(0x5000)], "from user space");
    check_text(subroutine::COPYINSTR, &[Int(0x5000), Int(4)], "from");
    let rand = subroutine_call(subroutine::RAND, &[], false);
    let value = difvm::interp::evaluate_difo(&rand, &context()).unwrap();
    assert!(value <= i32::MAX as u64);
    let copied = code()
        .setx(0x5005, 1)
        .push_value(1)
        .setx(4, 1)
        .push_value(1)
        .call(subroutine::COPYIN, 2)
        .op(Opcode::Lduw, 2, 0, 3)
        .ret(3)
        .build();
    check(
        "copyin",
        &copied,
        Expect::Value(u32::from_le_bytes(*b"user") as u64),
    );
}

#[test]
fn strtok_continues_within_a_firing() {
    use Arg::{Int, Str};
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    state.begin_firing();
    check_in(
        &mut state,
        "first token",
        &subroutine_call(subroutine::STRTOK, &[Str(",,a,bc,"), Str(",")], true),
        Expect::Text("a"),
    );
    let next = subroutine_call(subroutine::STRTOK, &[Int(0), Str(",")], true);
    check_in(&mut state, "second token", &next, Expect::Text("bc"));
    check_in(&mut state, "end", &next, Expect::Value(0));
    check_in(
        &mut state,
        "after the end",
        &next,
        Expect::Fault(FaultCode::BadAddress, 0, Some(4)),
    );
    state.begin_firing();
    check_in(
        &mut state,
        "new firing",
        &next,
        Expect::Fault(FaultCode::BadAddress, 0, Some(4)),
    );
}

// ---------------------------------------------------------------------------------------
// Variables.

const X: u16 = 0x500;
const S: u16 = 0x501;
const A: u16 = 0x502;

fn global_string(difo: Code) -> Code {
    difo.variable(
        S,
        VariableScope::Global,
        VariableKind::Scalar,
        DifType::string(256),
    )
}

#[test]
fn variables_store_load_and_delete() {
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    let scalar = |scope: VariableScope, load: Opcode, store: Opcode, value: u64| {
        let stored = code()
            .variable(X, scope, VariableKind::Scalar, DifType::integer(8))
            .setx(value, 1)
            .indexed(store, X, 1)
            .ret(0)
            .build();
        let loaded = code()
            .variable(X, scope, VariableKind::Scalar, DifType::integer(8))
            .indexed(load, X, 1)
            .ret(1)
            .build();
        (stored, loaded)
    };
    let (store, load) = scalar(VariableScope::Global, Opcode::Ldgs, Opcode::Stgs, 42);
    check_in(&mut state, "global unset", &load, Expect::Value(0));
    check_in(&mut state, "store global", &store, Expect::Value(0));
    check_in(&mut state, "load global", &load, Expect::Value(42));
    let (store, load) = scalar(VariableScope::ThreadLocal, Opcode::Ldts, Opcode::Stts, 9);
    check_in(&mut state, "store self->", &store, Expect::Value(0));
    check_in(&mut state, "load self->", &load, Expect::Value(9));
    assert!(state.variables.dynamic_bytes_used() > 0);
    let (delete, _) = scalar(VariableScope::ThreadLocal, Opcode::Ldts, Opcode::Stts, 0);
    check_in(&mut state, "delete self->", &delete, Expect::Value(0));
    check_in(&mut state, "self-> deleted", &load, Expect::Value(0));
    assert_eq!(state.variables.dynamic_bytes_used(), 0);

    // A by-reference global starts empty, takes a copy of the string stored into it, and
    // is not changed by later changes of the source.
    let load_string = global_string(code())
        .indexed(Opcode::Ldgs, S, 1)
        .ret(1)
        .returns_string()
        .build();
    check_in(&mut state, "string unset", &load_string, Expect::Text(""));
    let store_string = global_string(code())
        .sets(b"copied text", 1)
        .indexed(Opcode::Stgs, S, 1)
        .ret(0)
        .build();
    check_in(&mut state, "store string", &store_string, Expect::Value(0));
    check_in(
        &mut state,
        "load string",
        &load_string,
        Expect::Text("copied text"),
    );
    let store_null = global_string(code())
        .indexed(Opcode::Stgs, S, 0)
        .ret(0)
        .build();
    check_in(&mut state, "store NULL", &store_null, Expect::Value(0));
    check_in(&mut state, "NULL string", &load_string, Expect::Value(0));
}

#[test]
fn associative_arrays_are_keyed_by_the_tuple() {
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    let array = |difo: Code| {
        difo.variable(
            A,
            VariableScope::Global,
            VariableKind::Array,
            DifType::integer(8),
        )
    };
    let keyed = |difo: Code, name: &[u8], number: u64| {
        array(difo)
            .op(Opcode::Flushts, 0, 0, 0)
            .sets(name, 1)
            .push_string(1)
            .setx(number, 1)
            .push_value(1)
    };
    let store = |name: &[u8], number: u64, value: u64| {
        keyed(code(), name, number)
            .setx(value, 2)
            .indexed(Opcode::Stgaa, A, 2)
            .ret(0)
            .build()
    };
    let load = |name: &[u8], number: u64| {
        keyed(code(), name, number)
            .indexed(Opcode::Ldgaa, A, 2)
            .ret(2)
            .build()
    };
    check_in(
        &mut state,
        "store a[\"x\", 1]",
        &store(b"x", 1, 100),
        Expect::Value(0),
    );
    check_in(
        &mut state,
        "store a[\"x\", 2]",
        &store(b"x", 2, 200),
        Expect::Value(0),
    );
    check_in(
        &mut state,
        "store a[\"y\", 1]",
        &store(b"y", 1, 300),
        Expect::Value(0),
    );
    check_in(
        &mut state,
        "a[\"x\", 1]",
        &load(b"x", 1),
        Expect::Value(100),
    );
    check_in(
        &mut state,
        "a[\"x\", 2]",
        &load(b"x", 2),
        Expect::Value(200),
    );
    check_in(
        &mut state,
        "a[\"y\", 1]",
        &load(b"y", 1),
        Expect::Value(300),
    );
    check_in(&mut state, "a[\"z\", 1]", &load(b"z", 1), Expect::Value(0));
    check_in(
        &mut state,
        "delete a[\"x\", 1]",
        &store(b"x", 1, 0),
        Expect::Value(0),
    );
    check_in(&mut state, "deleted", &load(b"x", 1), Expect::Value(0));
    // Thread-local associative arrays are per thread and separate from globals.
    let thread_store = keyed(code(), b"x", 2)
        .variable(
            A,
            VariableScope::ThreadLocal,
            VariableKind::Array,
            DifType::integer(8),
        )
        .setx(5, 2)
        .indexed(Opcode::Sttaa, A, 2)
        .ret(0)
        .build();
    let thread_load = keyed(code(), b"x", 2)
        .variable(
            A,
            VariableScope::ThreadLocal,
            VariableKind::Array,
            DifType::integer(8),
        )
        .indexed(Opcode::Ldtaa, A, 2)
        .ret(2)
        .build();
    check_in(&mut state, "self->a store", &thread_store, Expect::Value(0));
    check_in(&mut state, "self->a load", &thread_load, Expect::Value(5));
    check_in(
        &mut state,
        "a unchanged",
        &load(b"x", 2),
        Expect::Value(200),
    );
}

#[test]
fn dynamic_variable_space_exhaustion_drops_silently() {
    let options = MachineOptions {
        dynamic_variable_size: 100,
        ..MachineOptions::default()
    };
    let mut state = MachineState::new(&options, Default::default());
    let store = |id: u16| {
        code()
            .variable(
                id,
                VariableScope::ThreadLocal,
                VariableKind::Scalar,
                DifType::integer(8),
            )
            .setx(1, 1)
            .indexed(Opcode::Stts, id, 1)
            .ret(0)
            .build()
    };
    let load = code()
        .variable(
            0x501,
            VariableScope::ThreadLocal,
            VariableKind::Scalar,
            DifType::integer(8),
        )
        .indexed(Opcode::Ldts, 0x501, 1)
        .ret(1)
        .build();
    check_in(&mut state, "first fits", &store(0x500), Expect::Value(0));
    check_in(
        &mut state,
        "second is dropped",
        &store(0x501),
        Expect::Value(0),
    );
    check_in(&mut state, "dropped reads 0", &load, Expect::Value(0));
    assert_eq!(state.variables.dynamic_drops(), 1);
}
