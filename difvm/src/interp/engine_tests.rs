//! Tests of the engine: whole programs built by hand (records at their slots, predicates,
//! the ERROR probe and its arguments, aggregations, speculations, exit, clause-locals,
//! drops and program checks).

use super::context::SimpleFiringContext;
use super::engine::{Engine, EngineError, SignalRequest};
use crate::aggregation::quantize_bucket;
use crate::difo::{DifType, DifVariable, Difo, VariableKind, VariableScope};
use crate::engine::EngineOptions;
use crate::isa::{builtin_variable, subroutine, Instruction, Opcode};
use crate::object::{
    Action, ActionKind, ActionValue, AggregationDescription, AggregationFunction, CompiledProgram,
    EnabledProbe, FaultCode, ProbeDescription, RecordSlot, Statement, StatementRole, ValueLayout,
    PROBE_ID_BEGIN, PROBE_ID_END, PROBE_ID_ERROR,
};

/// A DIFO under construction; constants go into the tables as they are used.
struct Code(Difo);

fn code() -> Code {
    Code(Difo {
        code: Vec::new(),
        integer_table: Vec::new(),
        string_table: Vec::new(),
        variable_table: Vec::new(),
        return_type: DifType::integer(8),
        kernel_relocations: Vec::new(),
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
    fn variable(mut self, id: u16, scope: VariableScope, ty: DifType) -> Code {
        let name_offset = self.0.string_table.len() as u32;
        self.0
            .string_table
            .extend_from_slice(format!("v{id:x}\0").as_bytes());
        let kind = VariableKind::Scalar;
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

const X: u16 = 0x500;

fn context() -> SimpleFiringContext {
    SimpleFiringContext {
        arguments: vec![10, 20, 30],
        pid: 1234,
        tid: 1235,
        execname: "dtrace-test".to_string(),
        ..SimpleFiringContext::default()
    }
}

fn integer_slot(offset: u32, size: u32) -> RecordSlot {
    RecordSlot {
        offset,
        size,
        alignment: size,
        layout: ValueLayout::Integer { signed: true },
    }
}

fn value(difo: Difo, slot: Option<RecordSlot>) -> ActionValue {
    ActionValue {
        difo: Some(difo),
        slot,
    }
}

fn action(kind: ActionKind, values: Vec<ActionValue>) -> Action {
    Action { kind, values }
}

fn constant(number: u64) -> Difo {
    code().setx(number, 1).ret(1).build()
}

fn statement(predicate: Option<Difo>, actions: Vec<Action>, record_size: u32) -> Statement {
    Statement {
        clause: 0,
        role: StatementRole::User,
        probe: ProbeDescription::default(),
        predicate,
        actions,
        record_size,
        attributes: crate::stability::STABLE_COMMON,
    }
}

/// The default ERROR handler: records arg1..arg5 as five 8-byte integers.
fn error_handler() -> Statement {
    let argument = |index: u16| {
        code()
            .indexed(Opcode::Ldgs, builtin_variable::ARG0 + index, 1)
            .ret(1)
            .build()
    };
    let values = (1..=5)
        .map(|index| {
            value(
                argument(index),
                Some(integer_slot((index as u32 - 1) * 8, 8)),
            )
        })
        .collect();
    Statement {
        role: StatementRole::DefaultErrorHandler,
        ..statement(None, vec![action(ActionKind::Trace, values)], 40)
    }
}

fn probe(name: &str) -> ProbeDescription {
    ProbeDescription {
        provider: "dtrace".into(),
        module: String::new(),
        function: String::new(),
        name: name.into(),
    }
}

/// An engine for `statements`, where `probes[i]` is the probe id of statement i (EPID
/// i + 1); the default ERROR handler is added with the last EPID.
fn engine_with(
    statements: Vec<Statement>,
    probes: &[u32],
    aggregations: Vec<AggregationDescription>,
    options: EngineOptions,
) -> Engine {
    let mut statements = statements;
    let mut enabled: Vec<EnabledProbe> = probes
        .iter()
        .enumerate()
        .map(|(index, &probe_id)| EnabledProbe {
            epid: index as u32 + 1,
            probe_id,
            probe: probe("tick"),
            statement: index,
        })
        .collect();
    statements.push(error_handler());
    enabled.push(EnabledProbe {
        epid: probes.len() as u32 + 1,
        probe_id: PROBE_ID_ERROR,
        probe: probe("ERROR"),
        statement: statements.len() - 1,
    });
    let program = CompiledProgram {
        statements,
        aggregations,
        ..CompiledProgram::default()
    };
    Engine::new(program, enabled, options).unwrap()
}

fn new_engine(statements: Vec<Statement>, probes: &[u32]) -> Engine {
    engine_with(statements, probes, Vec::new(), EngineOptions::default())
}

/// Splits a buffer into (EPID, data) records, given each EPID's record data size.
fn split_records(buffer: &[u8], sizes: &[(u32, usize)]) -> Vec<(u32, Vec<u8>)> {
    let mut records = Vec::new();
    let mut rest = buffer;
    while !rest.is_empty() {
        let epid = u32::from_le_bytes(rest[..4].try_into().unwrap());
        assert_eq!(&rest[4..8], &[0; 4], "reserved header word");
        let size = sizes.iter().find(|(known, _)| *known == epid).unwrap().1;
        records.push((epid, rest[8..8 + size].to_vec()));
        rest = &rest[8 + size..];
    }
    records
}

fn words(data: &[u8]) -> Vec<i64> {
    data.chunks(8)
        .map(|chunk| i64::from_le_bytes(chunk.try_into().unwrap()))
        .collect()
}

#[test]
fn records_hold_values_at_their_slots() {
    let string_slot = RecordSlot {
        offset: 8,
        size: 16,
        alignment: 1,
        layout: ValueLayout::String,
    };
    let trace_int = action(
        ActionKind::Trace,
        vec![value(constant(0x1_0000_0005), Some(integer_slot(0, 4)))],
    );
    let trace_string = action(
        ActionKind::Trace,
        vec![value(
            code().sets(b"hi there", 1).ret(1).returns_string().build(),
            Some(string_slot),
        )],
    );
    let stack = action(
        ActionKind::RecordSymbolic,
        vec![ActionValue {
            difo: None,
            slot: Some(RecordSlot {
                offset: 24,
                size: 24,
                alignment: 8,
                layout: ValueLayout::KernelStack { frames: 3 },
            }),
        }],
    );
    let mut engine = new_engine(
        vec![
            statement(None, vec![trace_int, trace_string, stack], 48),
            statement(None, vec![], 0),
        ],
        &[PROBE_ID_BEGIN, PROBE_ID_BEGIN],
    );
    let context = SimpleFiringContext {
        kernel_stack: vec![0xffff_1000, 0xffff_2000],
        ..context()
    };
    let outcome = engine.fire(PROBE_ID_BEGIN, &context);
    assert_eq!((outcome.clauses_executed, outcome.records_written), (2, 2));
    let buffer = engine.take_buffer(0);
    let mut expected = vec![1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0];
    expected.extend_from_slice(b"hi there\0\0\0\0\0\0\0\0");
    expected.extend_from_slice(&0xffff_1000u64.to_le_bytes());
    expected.extend_from_slice(&0xffff_2000u64.to_le_bytes());
    expected.extend_from_slice(&[0; 8]);
    expected.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(buffer, expected);
    assert!(engine.take_buffer(0).is_empty());
}

#[test]
fn predicates_select_statements() {
    let predicate = |number: u64| {
        code()
            .indexed(Opcode::Ldgs, builtin_variable::ARG0, 1)
            .setx(number, 2)
            .op(Opcode::Cmp, 1, 2, 0)
            .branch(Opcode::Be, 6)
            .setx(0, 3)
            .ret(3)
            .setx(1, 3)
            .ret(3)
            .build()
    };
    let traced = |number: u64| {
        action(
            ActionKind::Trace,
            vec![value(constant(number), Some(integer_slot(0, 8)))],
        )
    };
    let mut engine = new_engine(
        vec![
            statement(Some(predicate(10)), vec![traced(1)], 8),
            statement(Some(predicate(11)), vec![traced(2)], 8),
        ],
        &[50, 50],
    );
    let outcome = engine.fire(50, &context());
    assert_eq!(outcome.clauses_executed, 1);
    assert_eq!(
        split_records(&engine.take_buffer(0), &[(1, 8), (2, 8)]),
        vec![(1, 1u64.to_le_bytes().to_vec())]
    );
    assert_eq!(
        engine.fire(51, &context()),
        Default::default(),
        "no statement on probe 51"
    );
}

#[test]
fn faults_fire_the_error_probe_with_classic_arguments() {
    // Action values: #1 traces 1, #2 divides by zero at instruction 2 (DIF offset 8).
    let statements = vec![statement(
        None,
        vec![
            action(
                ActionKind::Trace,
                vec![value(constant(1), Some(integer_slot(0, 8)))],
            ),
            action(
                ActionKind::Trace,
                vec![value(binary(Opcode::Udiv, 1, 0), Some(integer_slot(8, 8)))],
            ),
        ],
        16,
    )];
    let mut engine = new_engine(statements, &[PROBE_ID_BEGIN]);
    let outcome = engine.fire(PROBE_ID_BEGIN, &context());
    assert_eq!(outcome.faults.len(), 1);
    assert_eq!(outcome.faults[0].action_index, 2);
    assert_eq!(outcome.faults[0].fault.dif_offset(), 8);
    let buffer = engine.take_buffer(0);
    let records = split_records(&buffer, &[(1, 16), (2, 40)]);
    assert_eq!(records.len(), 1, "the faulting record is discarded");
    assert_eq!(records[0].0, 2);
    assert_eq!(
        words(&records[0].1),
        vec![1, 2, 8, FaultCode::DivideByZero as i64, 0]
    );

    // A predicate fault is action 0; a bad address is reported as arg5.
    let load = code()
        .setx(0x9000, 1)
        .op(Opcode::Ldx, 1, 0, 1)
        .ret(1)
        .build();
    let mut engine = new_engine(vec![statement(Some(load), vec![], 0)], &[PROBE_ID_BEGIN]);
    engine.fire(PROBE_ID_BEGIN, &context());
    let records = split_records(&engine.take_buffer(0), &[(2, 40)]);
    assert_eq!(
        words(&records[0].1),
        vec![1, 0, 4, FaultCode::BadAddress as i64, 0x9000]
    );

    // A fault while recording (a bad string pointer) has no DIF offset.
    let bad_string = code().setx(0x9000, 1).ret(1).returns_string().build();
    let slot = RecordSlot {
        offset: 0,
        size: 16,
        alignment: 1,
        layout: ValueLayout::String,
    };
    let mut engine = new_engine(
        vec![statement(
            None,
            vec![action(
                ActionKind::Trace,
                vec![value(bad_string, Some(slot))],
            )],
            16,
        )],
        &[PROBE_ID_BEGIN],
    );
    engine.fire(PROBE_ID_BEGIN, &context());
    let records = split_records(&engine.take_buffer(0), &[(2, 40)]);
    assert_eq!(
        words(&records[0].1),
        vec![1, 1, -1, FaultCode::BadAddress as i64, 0x9000]
    );
}

#[test]
fn a_fault_in_an_error_clause_is_only_counted() {
    let failing = statement(
        None,
        vec![action(
            ActionKind::Trace,
            vec![value(binary(Opcode::Sdiv, 1, 0), Some(integer_slot(0, 8)))],
        )],
        8,
    );
    let mut engine = new_engine(
        vec![failing.clone(), failing],
        &[PROBE_ID_BEGIN, PROBE_ID_ERROR],
    );
    let outcome = engine.fire(PROBE_ID_BEGIN, &context());
    assert_eq!(outcome.faults.len(), 1);
    assert_eq!(engine.drops().error_in_error_probe, 1);
    // The default handler (EPID 3) still recorded the first fault.
    let records = split_records(&engine.take_buffer(0), &[(3, 40)]);
    assert_eq!(records.len(), 1);
}

fn aggregation(
    id: u32,
    function: AggregationFunction,
    keys: Vec<RecordSlot>,
    key_size: u32,
) -> AggregationDescription {
    AggregationDescription {
        id,
        name: format!("a{id}"),
        function,
        keys,
        key_size,
    }
}

#[test]
fn aggregations_update_per_cpu_and_merge() {
    let string_key = RecordSlot {
        offset: 0,
        size: 16,
        alignment: 1,
        layout: ValueLayout::String,
    };
    let key_value = value(
        code()
            .indexed(Opcode::Ldgs, builtin_variable::EXECNAME, 1)
            .ret(1)
            .returns_string()
            .build(),
        Some(string_key.clone()),
    );
    let argument = value(
        code()
            .indexed(Opcode::Ldgs, builtin_variable::ARG0, 1)
            .ret(1)
            .build(),
        None,
    );
    let statements = vec![statement(
        None,
        vec![
            action(ActionKind::Aggregate { aggregation: 1 }, vec![key_value]),
            action(
                ActionKind::Aggregate { aggregation: 2 },
                vec![argument.clone()],
            ),
            action(
                ActionKind::Aggregate { aggregation: 3 },
                vec![argument, value(constant(3), None)],
            ),
        ],
        0,
    )];
    let aggregations = vec![
        aggregation(1, AggregationFunction::Count, vec![string_key], 16),
        aggregation(2, AggregationFunction::Max, vec![], 0),
        aggregation(3, AggregationFunction::Quantize, vec![], 0),
    ];
    let mut engine = engine_with(statements, &[60], aggregations, EngineOptions::default());
    for (cpu, argument) in [(0, 5), (1, 70), (1, 6)] {
        let outcome = engine.fire(
            60,
            &SimpleFiringContext {
                cpu,
                arguments: vec![argument],
                ..context()
            },
        );
        assert_eq!(
            outcome.records_written, 0,
            "aggregation-only clauses record nothing"
        );
    }
    assert!(engine.buffered_cpus().is_empty());
    let snapshot = engine.aggregation_snapshot();
    assert_eq!(snapshot.len(), 3);
    assert_eq!(snapshot[0].aggregation, 1);
    assert_eq!(&snapshot[0].key, b"dtrace-test\0\0\0\0\0");
    assert_eq!(snapshot[0].value, vec![3]);
    assert_eq!(snapshot[1].value, vec![70]);
    let quantize = &snapshot[2].value;
    assert_eq!(quantize[quantize_bucket(5)], 6);
    assert_eq!(quantize[quantize_bucket(70)], 3);
    let per_cpu = engine.aggregation_snapshot_per_cpu();
    assert_eq!(per_cpu[&0][0].value, vec![1]);
    assert_eq!(per_cpu[&1][0].value, vec![2]);
    let drained = engine.drain_aggregations();
    assert_eq!(drained[&1][1].value, vec![70]);
    assert!(engine.aggregation_snapshot().is_empty());
}

#[test]
fn aggregation_space_exhaustion_counts_drops() {
    let key_slot = integer_slot(0, 8);
    let key = value(
        code()
            .indexed(Opcode::Ldgs, builtin_variable::ARG0, 1)
            .ret(1)
            .build(),
        Some(key_slot.clone()),
    );
    let statements = vec![statement(
        None,
        vec![action(ActionKind::Aggregate { aggregation: 1 }, vec![key])],
        0,
    )];
    let options = EngineOptions {
        aggregation_size: 200,
        ..EngineOptions::default()
    };
    let mut engine = engine_with(
        statements,
        &[60],
        vec![aggregation(
            1,
            AggregationFunction::Count,
            vec![key_slot],
            8,
        )],
        options,
    );
    for argument in [1, 2, 3, 1] {
        engine.fire(
            60,
            &SimpleFiringContext {
                arguments: vec![argument],
                ..context()
            },
        );
    }
    assert_eq!(engine.aggregation_snapshot().len(), 2);
    assert_eq!(engine.drops().aggregation[&0], 1);
}

/// speculation() stored in global X.
fn allocate_speculation() -> Statement {
    let store = code()
        .variable(X, VariableScope::Global, DifType::integer(8))
        .call(subroutine::SPECULATION, 1)
        .indexed(Opcode::Stgs, X, 1)
        .ret(0)
        .build();
    statement(
        None,
        vec![action(ActionKind::Expression, vec![value(store, None)])],
        0,
    )
}

fn speculation_id() -> Difo {
    code()
        .variable(X, VariableScope::Global, DifType::integer(8))
        .indexed(Opcode::Ldgs, X, 1)
        .ret(1)
        .build()
}

fn speculating(id: Difo, traced: u64) -> Statement {
    statement(
        None,
        vec![
            action(ActionKind::Speculate, vec![value(id, None)]),
            action(
                ActionKind::Trace,
                vec![value(constant(traced), Some(integer_slot(0, 8)))],
            ),
        ],
        8,
    )
}

#[test]
fn speculations_commit_and_discard() {
    let commit = statement(
        None,
        vec![action(
            ActionKind::Commit,
            vec![value(speculation_id(), Some(integer_slot(0, 8)))],
        )],
        8,
    );
    let discard = statement(
        None,
        vec![action(
            ActionKind::Discard,
            vec![value(speculation_id(), Some(integer_slot(0, 8)))],
        )],
        8,
    );
    // EPIDs: 1 allocate (probe 70), 2 speculate 11 (71), 3 commit (72), 4 discard (73).
    let mut engine = new_engine(
        vec![
            allocate_speculation(),
            speculating(speculation_id(), 11),
            commit,
            discard,
        ],
        &[70, 71, 72, 73],
    );
    let sizes = [(1, 0), (2, 8), (3, 8), (4, 8)];
    engine.fire(70, &context());
    engine.fire(71, &context());
    engine.fire(
        71,
        &SimpleFiringContext {
            cpu: 1,
            ..context()
        },
    );
    // Allocating, committing and discarding store nothing, so their statements
    // write no record.
    assert_eq!(
        split_records(&engine.take_buffer(0), &sizes),
        vec![],
        "speculated data stays out"
    );
    engine.fire(72, &context());
    let committed = split_records(&engine.take_buffer(0), &sizes);
    let epids: Vec<u32> = committed.iter().map(|(epid, _)| *epid).collect();
    assert_eq!(epids, vec![2], "the speculated record");
    assert_eq!(words(&committed[0].1), vec![11]);
    assert_eq!(
        split_records(&engine.take_buffer(1), &sizes).len(),
        1,
        "CPU 1's data goes to CPU 1"
    );
    // CPU 1 held data, so the committed speculation is busy until the cleaner has run
    // (`cleanrate`); then allocate again, speculate, discard.
    engine.fire(70, &context());
    assert_eq!(engine.drops().speculation_busy, 1);
    let cleaned = SimpleFiringContext {
        timestamp: crate::engine::DEFAULT_CLEAN_INTERVAL,
        ..context()
    };
    engine.fire(70, &cleaned);
    assert_eq!(engine.drops().speculation_busy, 1, "free again");
    engine.fire(71, &cleaned);
    engine.fire(73, &cleaned);
    engine.fire(72, &cleaned);
    let epids: Vec<u32> = split_records(&engine.take_buffer(0), &sizes)
        .iter()
        .map(|(epid, _)| *epid)
        .collect();
    assert_eq!(epids, Vec::<u32>::new(), "discarded data never appears");
}

#[test]
fn speculation_limits_and_bad_ids() {
    let options = EngineOptions {
        speculation_size: 20,
        ..EngineOptions::default()
    };
    let allocate_only = code().call(subroutine::SPECULATION, 1).ret(1).build();
    let statements = vec![
        allocate_speculation(),
        speculating(speculation_id(), 1),
        speculating(constant(0), 2),
        speculating(constant(5), 3),
        statement(
            None,
            vec![action(
                ActionKind::Expression,
                vec![value(allocate_only, None)],
            )],
            0,
        ),
        statement(
            None,
            vec![action(
                ActionKind::Commit,
                vec![value(speculation_id(), None)],
            )],
            0,
        ),
    ];
    let mut engine = engine_with(statements, &[70, 71, 72, 73, 74, 75], Vec::new(), options);
    engine.fire(70, &context());
    engine.fire(74, &context());
    assert_eq!(engine.drops().speculation_unavailable, 1, "nspec is 1");
    engine.fire(71, &context());
    engine.fire(71, &context());
    assert_eq!(engine.drops().speculative, 0, "reported at the commit");
    engine.fire(75, &context());
    assert_eq!(
        engine.drops().speculative,
        1,
        "specsize holds one 16-byte record"
    );
    engine.take_buffer(0);
    engine.fire(72, &context());
    assert_eq!(
        split_records(&engine.take_buffer(0), &[(1, 0), (5, 0)]).len(),
        0,
        "speculate(0) drops the data"
    );
    let outcome = engine.fire(73, &context());
    assert_eq!(outcome.faults[0].fault.code, FaultCode::IllegalOperation);
    assert_eq!(outcome.faults[0].fault.value, 5);
    assert_eq!(outcome.faults[0].action_index, 1);
}

#[test]
fn exit_drains_all_but_end_and_error() {
    let exit = statement(
        None,
        vec![action(
            ActionKind::Exit,
            vec![value(constant(3), Some(integer_slot(0, 4)))],
        )],
        8,
    );
    let after = statement(None, vec![], 0);
    let mut engine = new_engine(
        vec![exit, after.clone(), after.clone(), after],
        &[PROBE_ID_BEGIN, PROBE_ID_BEGIN, 80, PROBE_ID_END],
    );
    let outcome = engine.fire(PROBE_ID_BEGIN, &context());
    assert!(outcome.exit_requested);
    assert_eq!(
        outcome.clauses_executed, 1,
        "the second BEGIN clause does not run"
    );
    assert_eq!(engine.exit_status(), Some(3));
    assert!(engine.is_draining());
    assert_eq!(engine.fire(80, &context()).clauses_executed, 0);
    assert_eq!(engine.fire(PROBE_ID_END, &context()).clauses_executed, 1);
    let epids: Vec<u32> = split_records(&engine.take_buffer(0), &[(1, 8), (4, 0)])
        .iter()
        .map(|(epid, _)| *epid)
        .collect();
    assert_eq!(epids, vec![1, 4]);
}

#[test]
fn clause_locals_are_shared_within_a_firing_only() {
    let local = |difo: Code| difo.variable(X, VariableScope::ClauseLocal, DifType::integer(8));
    let increment = local(code())
        .indexed(Opcode::Ldls, X, 1)
        .setx(1, 2)
        .op(Opcode::Add, 1, 2, 1)
        .indexed(Opcode::Stls, X, 1)
        .ret(1)
        .build();
    let traced = statement(
        None,
        vec![action(
            ActionKind::Trace,
            vec![value(increment, Some(integer_slot(0, 8)))],
        )],
        8,
    );
    let mut engine = new_engine(vec![traced.clone(), traced], &[90, 90]);
    engine.fire(90, &context());
    engine.fire(90, &context());
    let values: Vec<i64> = split_records(&engine.take_buffer(0), &[(1, 8), (2, 8)])
        .iter()
        .map(|(_, data)| words(data)[0])
        .collect();
    assert_eq!(values, vec![1, 2, 1, 2]);
}

#[test]
fn a_full_principal_buffer_drops_whole_statements() {
    let traced = statement(
        None,
        vec![action(
            ActionKind::Trace,
            vec![value(constant(1), Some(integer_slot(0, 8)))],
        )],
        8,
    );
    let options = EngineOptions {
        buffer_size: 40,
        ..EngineOptions::default()
    };
    let mut engine = engine_with(vec![traced], &[90], Vec::new(), options);
    for _ in 0..3 {
        engine.fire(90, &context());
    }
    assert_eq!(engine.take_buffer(0).len(), 32);
    assert_eq!(engine.drops().principal[&0], 1);
    engine.fire(90, &context());
    assert_eq!(engine.take_buffer(0).len(), 16);
}

#[test]
fn raise_and_stop_ask_for_signals_and_a_bad_signal_number_faults() {
    let raise = |signal: u64| {
        statement(
            None,
            vec![action(
                ActionKind::Raise,
                vec![value(constant(signal), None)],
            )],
            0,
        )
    };
    let stop = statement(None, vec![action(ActionKind::Stop, vec![])], 0);
    let mut engine = new_engine(
        vec![raise(10), raise(0), stop, raise(65)],
        &[90, 91, 92, 93],
    );
    assert_eq!(
        engine.fire(90, &context()).signals,
        vec![SignalRequest::FiringThread(10)]
    );
    assert!(
        engine.fire(91, &context()).signals.is_empty(),
        "signal 0 sends nothing"
    );
    assert_eq!(
        engine.fire(92, &context()).signals,
        vec![SignalRequest::FiringProcess(19)],
        "stop() is SIGSTOP to the process"
    );
    let outcome = engine.fire(93, &context());
    assert!(outcome.signals.is_empty());
    assert_eq!(outcome.faults[0].fault.code, FaultCode::IllegalOperation);
    assert_eq!(outcome.faults[0].fault.value, 65);
}

#[test]
fn actions_linux_cannot_carry_out_are_refused() {
    for (kind, name) in [
        (ActionKind::Panic, "panic()"),
        (ActionKind::Breakpoint, "breakpoint()"),
        (ActionKind::Chill, "chill()"),
    ] {
        let program = CompiledProgram {
            statements: vec![statement(None, vec![action(kind, vec![])], 0)],
            ..CompiledProgram::default()
        };
        let enabled = vec![EnabledProbe {
            epid: 1,
            probe_id: 1,
            probe: probe("BEGIN"),
            statement: 0,
        }];
        let error = Engine::new(program, enabled, EngineOptions::default())
            .err()
            .expect("refused");
        assert!(
            matches!(error, EngineError::UnsupportedAction { statement: 0, .. }),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("statement 0: {name} (")),
            "{message}"
        );
        assert!(message.ends_with("is not supported on Linux"), "{message}");
    }
}

#[test]
fn engine_rejects_inconsistent_programs() {
    let program =
        |statements: Vec<Statement>, aggregations: Vec<AggregationDescription>| CompiledProgram {
            statements,
            aggregations,
            ..CompiledProgram::default()
        };
    let enabled = |statement: usize| {
        vec![EnabledProbe {
            epid: 1,
            probe_id: 1,
            probe: probe("BEGIN"),
            statement,
        }]
    };
    let slot_outside = statement(
        None,
        vec![action(
            ActionKind::Trace,
            vec![value(constant(1), Some(integer_slot(4, 8)))],
        )],
        8,
    );
    let error = Engine::new(
        program(vec![slot_outside], vec![]),
        enabled(0),
        EngineOptions::default(),
    )
    .err();
    assert_eq!(
        error,
        Some(EngineError::SlotOutOfRange {
            statement: 0,
            action: 0
        })
    );
    let error = Engine::new(
        program(vec![statement(None, vec![], 0)], vec![]),
        enabled(1),
        EngineOptions::default(),
    )
    .err();
    assert_eq!(
        error,
        Some(EngineError::StatementOutOfRange {
            epid: 1,
            statement: 1
        })
    );
    let unknown = statement(
        None,
        vec![action(ActionKind::Aggregate { aggregation: 4 }, vec![])],
        0,
    );
    let error = Engine::new(
        program(vec![unknown], vec![]),
        enabled(0),
        EngineOptions::default(),
    )
    .err();
    assert_eq!(
        error,
        Some(EngineError::UnknownAggregation {
            statement: 0,
            aggregation: 4
        })
    );
    let bad_lquantize = aggregation(
        1,
        AggregationFunction::Lquantize {
            low: 5,
            high: 5,
            step: 1,
        },
        vec![],
        0,
    );
    let error = Engine::new(
        program(vec![], vec![bad_lquantize]),
        vec![],
        EngineOptions::default(),
    )
    .err();
    assert!(matches!(
        error,
        Some(EngineError::InvalidAggregation { aggregation: 1, .. })
    ));
}
