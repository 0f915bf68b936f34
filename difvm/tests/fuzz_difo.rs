//! A fixed-seed fuzz test: valid DIFOs mutated 100,000 times (bit flips, random words,
//! inserted and deleted instructions, truncated and rewritten tables, random variable
//! tables and return types) go through the verifier and the interpreter, whether or not
//! they verified, and every tenth one also through a whole engine. Nothing may panic or
//! hang.

use difvm::difo::{
    CtfKind, DifType, DifTypeKind, DifVariable, Difo, VariableKind, VariableScope,
    DIF_TYPE_FLAG_BY_REFERENCE, DIF_TYPE_FLAG_BY_USER_REFERENCE,
};
use difvm::engine::EngineOptions;
use difvm::interp::{
    execute_difo, Engine, MachineOptions, MachineState, ProbeIdentity, SimpleFiringContext,
};
use difvm::isa::{
    builtin_variable, subroutine, Instruction, Opcode, DIF_TYPE_CTF, DIF_TYPE_STRING,
};
use difvm::object::{
    Action, ActionKind, ActionValue, AggregationDescription, AggregationFunction, CompiledProgram,
    EnabledProbe, ProbeDescription, RecordSlot, Statement, StatementRole, ValueLayout,
    PROBE_ID_ERROR,
};

const ITERATIONS: usize = 100_000;

/// xorshift64: small, fast and reproducible.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }
}

/// Values that reach interesting places: the interpreter's scratch, session, firing and
/// clause regions, the context's memory, and integer edge cases.
const INTERESTING: [u64; 14] = [
    0,
    1,
    u64::MAX,
    0x8000_0000_0000_0000,
    256,
    65_536,
    0xd000_0000_0000_0000,
    0xd000_0000_0000_0008,
    0xd100_0000_0000_0000,
    0xd200_0000_0000_0000,
    0xd300_0000_0000_0000,
    0xd300_0001_0000_0002,
    0x1000,
    0x5000,
];

fn registers(op: Opcode, r1: u8, r2: u8, rd: u8) -> Instruction {
    Instruction::registers(op, r1, r2, rd)
}

fn indexed(op: Opcode, index: u16, rd: u8) -> Instruction {
    Instruction::indexed(op, index, rd)
}

fn variable(
    name_offset: u32,
    id: u16,
    kind: VariableKind,
    scope: VariableScope,
    ty: DifType,
) -> DifVariable {
    DifVariable {
        name_offset,
        id,
        kind,
        scope,
        flags: 3,
        ty,
    }
}

fn seed(
    code: Vec<Instruction>,
    integers: Vec<u64>,
    strings: &[u8],
    variables: Vec<DifVariable>,
    return_type: DifType,
) -> Difo {
    Difo {
        code,
        integer_table: integers,
        string_table: strings.to_vec(),
        variable_table: variables,
        return_type,
        kernel_relocations: Vec::new(),
    }
}

/// Valid DIFOs covering arithmetic, branches, memory, variables, the tuple stack and
/// subroutines.
fn seeds() -> Vec<Difo> {
    use Opcode::*;
    let strings = b"hello/world//./..\0/\0x\0s\0a\0";
    let string_type = DifType::string(256);
    vec![
        seed(
            vec![
                indexed(Setx, 0, 1),
                indexed(Setx, 1, 2),
                registers(Add, 1, 2, 3),
                registers(Cmp, 3, 2, 0),
                Instruction::branch(Bl, 7),
                registers(Sdiv, 3, 1, 3),
                registers(Sra, 3, 2, 3),
                registers(Srem, 3, 2, 4),
                registers(Tst, 4, 0, 0),
                Instruction::branch(Be, 11),
                registers(Mul, 4, 4, 4),
                registers(Ret, 0, 0, 4),
            ],
            vec![7, u64::MAX - 3],
            b"",
            vec![],
            DifType::integer(8),
        ),
        seed(
            vec![
                indexed(Sets, 0, 1),
                indexed(Sets, 18, 2),
                registers(Flushts, 0, 0, 0),
                registers(Pushtr, DIF_TYPE_STRING, 0, 1),
                registers(Pushtr, DIF_TYPE_STRING, 0, 2),
                indexed(Call, subroutine::STRTOK, 3),
                indexed(Call, subroutine::STRJOIN, 4),
                registers(Flushts, 0, 0, 0),
                registers(Pushtr, DIF_TYPE_STRING, 0, 4),
                indexed(Setx, 0, 5),
                registers(Pushtv, DIF_TYPE_CTF, 0, 5),
                indexed(Call, subroutine::SUBSTR, 6),
                registers(Flushts, 0, 0, 0),
                registers(Pushtr, DIF_TYPE_STRING, 0, 4),
                registers(Pushtr, DIF_TYPE_STRING, 0, 6),
                indexed(Call, subroutine::INDEX, 7),
                registers(Scmp, 6, 4, 0),
                Instruction::branch(Be, 19),
                indexed(Call, subroutine::CLEANPATH, 6),
                registers(Ret, 0, 0, 6),
            ],
            vec![3],
            strings,
            vec![],
            string_type,
        ),
        seed(
            vec![
                indexed(Sets, 0, 1),
                indexed(Stgs, 0x501, 1),
                indexed(Ldgs, 0x501, 2),
                indexed(Stts, 0x502, 2),
                indexed(Ldts, 0x502, 3),
                indexed(Setx, 0, 4),
                indexed(Stls, 0x503, 4),
                indexed(Ldls, 0x503, 5),
                registers(Flushts, 0, 0, 0),
                registers(Pushtr, DIF_TYPE_STRING, 0, 3),
                registers(Pushtv, DIF_TYPE_CTF, 0, 5),
                indexed(Stgaa, 0x504, 5),
                indexed(Ldgaa, 0x504, 6),
                indexed(Sttaa, 0x505, 1),
                indexed(Ldtaa, 0x505, 6),
                indexed(Stts, 0x502, 0),
                registers(Ret, 0, 0, 6),
            ],
            vec![42],
            strings,
            vec![
                variable(
                    22,
                    0x501,
                    VariableKind::Scalar,
                    VariableScope::Global,
                    string_type,
                ),
                variable(
                    22,
                    0x502,
                    VariableKind::Scalar,
                    VariableScope::ThreadLocal,
                    string_type,
                ),
                variable(
                    24,
                    0x503,
                    VariableKind::Scalar,
                    VariableScope::ClauseLocal,
                    DifType::integer(8),
                ),
                variable(
                    24,
                    0x504,
                    VariableKind::Array,
                    VariableScope::Global,
                    DifType::integer(8),
                ),
                variable(
                    22,
                    0x505,
                    VariableKind::Array,
                    VariableScope::ThreadLocal,
                    string_type,
                ),
            ],
            string_type,
        ),
        seed(
            vec![
                indexed(Setx, 0, 1),
                registers(Allocs, 1, 0, 2),
                indexed(Setx, 1, 3),
                registers(Stx, 3, 0, 2),
                registers(Ldsw, 2, 0, 4),
                registers(Sth, 4, 0, 2),
                indexed(Sets, 0, 5),
                indexed(Setx, 2, 6),
                registers(Copys, 5, 6, 2),
                registers(Rldsb, 2, 0, 7),
                registers(Ldub, 5, 0, 7),
                indexed(Setx, 3, 6),
                registers(Uldx, 6, 0, 7),
                registers(Ldx, 2, 0, 7),
                registers(Ret, 0, 0, 2),
            ],
            vec![32, 0x8070_6050_4030_2010, 8, 0x5000],
            strings,
            vec![],
            DifType::string(32),
        ),
        seed(
            vec![
                indexed(Setx, 0, 1),
                registers(Pushtv, DIF_TYPE_CTF, 0, 1),
                indexed(Setx, 1, 2),
                registers(Pushtv, DIF_TYPE_CTF, 0, 2),
                indexed(Call, subroutine::LLTOSTR, 3),
                registers(Flushts, 0, 0, 0),
                indexed(Setx, 2, 4),
                registers(Pushtv, DIF_TYPE_CTF, 0, 4),
                indexed(Call, subroutine::INET_NTOA, 5),
                indexed(Call, subroutine::HTONL, 5),
                indexed(Call, subroutine::ALLOCA, 5),
                registers(Flushts, 0, 0, 0),
                indexed(Setx, 3, 6),
                registers(Pushtv, DIF_TYPE_CTF, 0, 6),
                indexed(Setx, 4, 7),
                registers(Pushtv, DIF_TYPE_CTF, 0, 7),
                indexed(Call, subroutine::COPYIN, 6),
                indexed(Call, subroutine::SPECULATION, 7),
                indexed(Call, subroutine::RAND, 7),
                indexed(Ldgs, builtin_variable::EXECNAME, 7),
                indexed(Ldgs, builtin_variable::ARG0, 1),
                registers(Ldga, 0, 0, 1),
                registers(Ret, 0, 0, 3),
            ],
            vec![255, 16, 0x1000, 0x5000, 8],
            b"",
            vec![],
            DifType::string(256),
        ),
    ]
}

fn random_type(random: &mut Random) -> DifType {
    let sizes = [0, 1, 2, 4, 8, 3, 16, 256, 16 * 1024, 70_000, u32::MAX];
    let flags = [
        0,
        DIF_TYPE_FLAG_BY_REFERENCE,
        DIF_TYPE_FLAG_BY_USER_REFERENCE,
        3,
        0xff,
    ];
    DifType {
        kind: if random.chance(2) {
            DifTypeKind::String
        } else {
            DifTypeKind::Ctf
        },
        ctf_kind: [
            CtfKind::Integer,
            CtfKind::Array,
            CtfKind::Struct,
            CtfKind::Pointer,
        ][random.below(4)],
        flags: flags[random.below(flags.len())],
        size: sizes[random.below(sizes.len())],
    }
}

fn random_variable(random: &mut Random) -> DifVariable {
    let ids = [
        0x500,
        0x501,
        0x502,
        0x503,
        0x504,
        0x505,
        0x100,
        0xffff,
        random.next() as u16,
    ];
    DifVariable {
        name_offset: random.next() as u32 % 64,
        id: ids[random.below(ids.len())],
        kind: if random.chance(2) {
            VariableKind::Array
        } else {
            VariableKind::Scalar
        },
        scope: [
            VariableScope::Global,
            VariableScope::ThreadLocal,
            VariableScope::ClauseLocal,
        ][random.below(3)],
        flags: random.next() as u8,
        ty: random_type(random),
    }
}

fn random_instruction(random: &mut Random) -> Instruction {
    if random.chance(4) {
        return Instruction(random.next() as u32);
    }
    let opcode = Opcode::ALL[random.below(Opcode::ALL.len())];
    let register = |random: &mut Random| {
        if random.chance(16) {
            random.next() as u8
        } else {
            random.below(8) as u8
        }
    };
    match random.below(3) {
        0 => registers(opcode, register(random), register(random), register(random)),
        1 => indexed(
            opcode,
            [0, 1, 2, 0x500, 0x501, 0x502, 0x504, random.next() as u16][random.below(8)],
            register(random),
        ),
        _ => Instruction::branch(opcode, random.below(40) as u32),
    }
}

fn mutate(difo: &mut Difo, random: &mut Random) {
    let mutations = 1 + random.below(4);
    for _ in 0..mutations {
        match random.below(12) {
            0 | 1 if !difo.code.is_empty() => {
                let index = random.below(difo.code.len());
                difo.code[index].0 ^= 1 << random.below(32);
            }
            2 if !difo.code.is_empty() => {
                let index = random.below(difo.code.len());
                difo.code[index] = random_instruction(random);
            }
            3 => {
                let index = random.below(difo.code.len() + 1);
                difo.code.insert(index, random_instruction(random));
            }
            4 if !difo.code.is_empty() => {
                let index = random.below(difo.code.len());
                difo.code.remove(index);
            }
            5 => {
                let length = random.below(difo.integer_table.len() + 1);
                difo.integer_table.truncate(length);
            }
            6 => {
                let length = random.below(difo.string_table.len() + 1);
                difo.string_table.truncate(length);
            }
            7 if !difo.integer_table.is_empty() => {
                let index = random.below(difo.integer_table.len());
                difo.integer_table[index] = if random.chance(2) {
                    INTERESTING[random.below(INTERESTING.len())]
                        .wrapping_add(random.below(16) as u64)
                } else {
                    random.next()
                };
            }
            8 => {
                let count = random.below(6);
                difo.variable_table = (0..count).map(|_| random_variable(random)).collect();
            }
            9 => difo.return_type = random_type(random),
            10 if !difo.string_table.is_empty() => {
                let index = random.below(difo.string_table.len());
                difo.string_table[index] = random.next() as u8;
            }
            _ => difo
                .integer_table
                .push(INTERESTING[random.below(INTERESTING.len())]),
        }
    }
}

fn context() -> SimpleFiringContext {
    SimpleFiringContext {
        cpu: 1,
        arguments: vec![0x1000, 0xd300_0000_0000_0000, 3],
        pid: 10,
        tid: 11,
        execname: "fuzz".into(),
        kernel_memory: vec![(0x1000, (0..64).collect())],
        user_memory: vec![(0x5000, b"user\0memory".to_vec())],
        kernel_stack: vec![1, 2, 3],
        ..SimpleFiringContext::default()
    }
}

/// A program running `difo` as a predicate-free clause's traced values (as a string, as
/// raw bytes and as an aggregation key), as a predicate, and as an ERROR clause.
fn engine_for(difo: &Difo) -> Engine {
    let string = RecordSlot {
        offset: 0,
        size: 32,
        alignment: 1,
        layout: ValueLayout::String,
    };
    let bytes = RecordSlot {
        offset: 32,
        size: 16,
        alignment: 1,
        layout: ValueLayout::Bytes,
    };
    let value = |slot: Option<RecordSlot>| ActionValue {
        difo: Some(difo.clone()),
        slot,
    };
    let statement = |predicate: Option<Difo>, actions: Vec<Action>| Statement {
        clause: 0,
        role: StatementRole::User,
        probe: ProbeDescription::default(),
        predicate,
        actions,
        record_size: 48,
        attributes: difvm::stability::STABLE_COMMON,
    };
    let actions = vec![
        Action {
            kind: ActionKind::Trace,
            values: vec![value(Some(string.clone()))],
        },
        Action {
            kind: ActionKind::Trace,
            values: vec![value(Some(bytes))],
        },
        Action {
            kind: ActionKind::Aggregate { aggregation: 1 },
            values: vec![value(Some(string.clone())), value(None)],
        },
        Action {
            kind: ActionKind::Speculate,
            values: vec![value(None)],
        },
    ];
    let program = CompiledProgram {
        statements: vec![
            statement(None, actions.clone()),
            statement(Some(difo.clone()), actions.clone()),
            statement(None, actions),
        ],
        aggregations: vec![AggregationDescription {
            id: 1,
            name: "a".into(),
            function: AggregationFunction::Llquantize {
                factor: 10,
                low: 0,
                high: 3,
                steps: 10,
            },
            keys: vec![string],
            key_size: 32,
        }],
        ..CompiledProgram::default()
    };
    let enabled = |epid: u32, probe_id: u32, statement: usize| EnabledProbe {
        epid,
        probe_id,
        probe: ProbeDescription::default(),
        statement,
    };
    let options = EngineOptions {
        buffer_size: 4096,
        aggregation_size: 4096,
        ..EngineOptions::default()
    };
    Engine::new(
        program,
        vec![
            enabled(1, 50, 0),
            enabled(2, 50, 1),
            enabled(3, PROBE_ID_ERROR, 2),
        ],
        options,
    )
    .unwrap()
}

#[test]
fn mutated_difos_never_panic_or_hang() {
    let seeds = seeds();
    for seed in &seeds {
        assert!(
            difvm::verify::verify(seed).is_ok(),
            "seed must verify: {:?}",
            difvm::verify::verify(seed).err()
        );
    }
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let context = context();
    let probe = ProbeDescription::default();
    let identity = ProbeIdentity {
        epid: 1,
        probe_id: 50,
        probe: &probe,
    };
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    let (mut verified, mut completed) = (0, 0);
    for iteration in 0..ITERATIONS {
        let mut difo = seeds[random.below(seeds.len())].clone();
        mutate(&mut difo, &mut random);
        if difvm::verify::verify(&difo).is_ok() {
            verified += 1;
        }
        if iteration % 128 == 0 {
            // Fresh state now and then bounds what stale variables can accumulate.
            state = MachineState::new(&MachineOptions::default(), Default::default());
        }
        if iteration % 8 == 0 {
            state.begin_firing();
        }
        state.begin_clause();
        if execute_difo(&difo, &mut state, &identity, &context).is_ok() {
            completed += 1;
        }
        if iteration % 10 == 0 {
            let mut engine = engine_for(&difo);
            engine.fire(50, &context);
            engine.fire(50, &context);
            let _ = engine.take_buffer(1);
            let _ = engine.aggregation_snapshot();
        }
    }
    // The mutations must leave a useful share of runnable and verifiable programs.
    assert!(
        verified > ITERATIONS / 50,
        "only {verified} mutants verified"
    );
    assert!(
        completed > ITERATIONS / 20,
        "only {completed} mutants ran to completion"
    );
}
