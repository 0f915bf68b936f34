//! Translated programs against the reference engine: arithmetic and branches, faults and
//! the ERROR probe, strings, built-ins, variables of every scope, associative arrays,
//! aggregations and speculations. Each program runs on both engines with the same probe
//! arguments; records must agree byte for byte and aggregations word for word.

mod translate_common;

use difvm::difo::{DifType, DifVariable, Difo, VariableKind, VariableScope};
use difvm::object::{
    Action, ActionKind, ActionValue, AggregationDescription, AggregationFunction, CompiledProgram,
    ProbeDescription, RecordSlot, Statement, StatementRole, ValueLayout,
};
use difvm::text::assemble;
use translate_common::{bpf_available, check};

fn difo(text: &str) -> Difo {
    assemble(text).unwrap_or_else(|error| panic!("{error:?}\n{text}"))
}

fn probe(name: &str) -> ProbeDescription {
    ProbeDescription {
        provider: "test".into(),
        module: "mod".into(),
        function: "func".into(),
        name: name.into(),
    }
}

fn integer_slot(offset: u32) -> RecordSlot {
    RecordSlot {
        offset,
        size: 8,
        alignment: 8,
        layout: ValueLayout::Integer { signed: true },
    }
}

fn string_slot(offset: u32, size: u32) -> RecordSlot {
    RecordSlot {
        offset,
        size,
        alignment: 1,
        layout: ValueLayout::String,
    }
}

/// A statement tracing each DIFO's value as an 8-byte integer.
fn traces(predicate: Option<&str>, values: &[&str]) -> Statement {
    Statement {
        clause: 0,
        role: StatementRole::User,
        probe: probe("fire"),
        predicate: predicate.map(difo),
        actions: values
            .iter()
            .enumerate()
            .map(|(index, text)| Action {
                kind: ActionKind::Trace,
                values: vec![ActionValue {
                    difo: Some(difo(text)),
                    slot: Some(integer_slot(8 * index as u32)),
                }],
            })
            .collect(),
        record_size: 8 * values.len() as u32,
        attributes: difvm::stability::STABLE_COMMON,
    }
}

/// The default ERROR handler: records arg1–arg5.
fn error_handler() -> Statement {
    let values = (1..=5)
        .map(|argument| format!("ldgs arg{argument}, %r1\nret %r1"))
        .collect::<Vec<_>>();
    let mut statement = traces(None, &values.iter().map(String::as_str).collect::<Vec<_>>());
    statement.role = StatementRole::DefaultErrorHandler;
    statement.probe = ProbeDescription {
        provider: "dtrace".into(),
        module: String::new(),
        function: String::new(),
        name: "ERROR".into(),
    };
    statement
}

fn program(statements: Vec<Statement>) -> CompiledProgram {
    CompiledProgram {
        statements,
        ..CompiledProgram::default()
    }
}

fn firings() -> Vec<Vec<u64>> {
    vec![
        vec![7, 3, u64::MAX, 0, 5, 0, 0, 0, 0, 0],
        vec![
            0x8000_0000_0000_0000,
            u64::MAX,
            2,
            0x1234_5678_9abc_def0,
            0,
            0,
            0,
            0,
            0,
            0,
        ],
        vec![100, 0, 1, 2, 3, 4, 5, 6, 7, 8],
    ]
}

#[test]
fn arithmetic_logic_and_shifts() {
    if !bpf_available("arithmetic_logic_and_shifts") {
        return;
    }
    let binary = |op: &str| format!("ldgs arg0, %r1\nldgs arg1, %r2\n{op} %r1, %r2, %r3\nret %r3");
    let ops = ["add", "sub", "mul", "or", "and", "xor", "sll", "srl", "sra"];
    let texts: Vec<String> = ops.iter().map(|op| binary(op)).collect();
    let mut values: Vec<&str> = texts.iter().map(String::as_str).collect();
    values.push("ldgs arg0, %r1\nnot %r1, %r2\nret %r2");
    values.push("ldgs arg3, %r1\nmov %r1, %r2\nret %r2");
    values.push("setx 0x123456789abcdef, %r1\nret %r1");
    values.push("setx -5, %r1\nret %r1");
    let program = program(vec![traces(None, &values)]);
    check(&program, &firings());
}

#[test]
fn division_and_division_by_zero_faults() {
    if !bpf_available("division_and_division_by_zero_faults") {
        return;
    }
    let binary = |op: &str| format!("ldgs arg0, %r1\nldgs arg2, %r2\n{op} %r1, %r2, %r3\nret %r3");
    let texts: Vec<String> = ["sdiv", "udiv", "srem", "urem"]
        .iter()
        .map(|op| binary(op))
        .collect();
    let values: Vec<&str> = texts.iter().map(String::as_str).collect();
    let program = program(vec![traces(None, &values), error_handler()]);
    check(
        &program,
        &[
            vec![7, 0, 2],
            vec![u64::MAX, 0, 0],
            vec![0x8000_0000_0000_0000, 0, u64::MAX],
            vec![100, 0, 7],
        ],
    );
}

#[test]
fn comparisons_and_branches() {
    if !bpf_available("comparisons_and_branches") {
        return;
    }
    let branch = |op: &str| {
        format!(
            "ldgs arg0, %r1\nldgs arg1, %r2\ncmp %r1, %r2\n{op} yes\nsetx 0, %r3\nret %r3\nyes:\nsetx 1, %r3\nret %r3"
        )
    };
    let ops = [
        "be", "bne", "bg", "bgu", "bge", "bgeu", "bl", "blu", "ble", "bleu", "ba",
    ];
    let texts: Vec<String> = ops.iter().map(|op| branch(op)).collect();
    let mut values: Vec<&str> = texts.iter().map(String::as_str).collect();
    values.push("ldgs arg1, %r1\ntst %r1\nbe zero\nsetx 2, %r1\nzero:\nret %r1");
    let predicate = "ldgs arg0, %r1\nsetx 50, %r2\ncmp %r1, %r2\nbl yes\nsetx 0, %r1\nret %r1\nyes:\nsetx 1, %r1\nret %r1";
    let mut firings = firings();
    firings.push(vec![3, 3]);
    firings.push(vec![5, (-7i64) as u64]);
    firings.push(vec![(-1i64) as u64, 1]);
    let program = program(vec![
        traces(Some(predicate), &values),
        traces(None, &values),
    ]);
    check(&program, &firings);
}

#[test]
fn builtins_and_arguments() {
    if !bpf_available("builtins_and_arguments") {
        return;
    }
    let values = [
        "ldgs epid, %r1\nret %r1",
        "ldgs id, %r1\nret %r1",
        "ldgs pid, %r1\nret %r1",
        "ldgs tid, %r1\nret %r1",
        "ldgs uid, %r1\nret %r1",
        "ldgs gid, %r1\nret %r1",
        "ldgs arg9, %r1\nret %r1",
        "setx 3, %r1\nldga args, %r1, %r2\nret %r2",
        "ldgs errno, %r1\nret %r1",
    ];
    let program = program(vec![traces(None, &values)]);
    check(&program, &firings());
}

#[test]
fn args_past_the_last_argument_fault() {
    if !bpf_available("args_past_the_last_argument_fault") {
        return;
    }
    let values = ["setx 10, %r1\nldga args, %r1, %r2\nret %r2"];
    let program = program(vec![traces(None, &values), error_handler()]);
    check(&program, &firings());
}

fn string_statement(values: &[(&str, u32)]) -> Statement {
    let mut offset = 0;
    let actions = values
        .iter()
        .map(|(text, size)| {
            let mut code = difo(text);
            code.return_type = DifType::string(256);
            let action = Action {
                kind: ActionKind::Trace,
                values: vec![ActionValue {
                    difo: Some(code),
                    slot: Some(string_slot(offset, *size)),
                }],
            };
            offset += size;
            action
        })
        .collect();
    Statement {
        clause: 0,
        role: StatementRole::User,
        probe: probe("fire"),
        predicate: None,
        actions,
        record_size: offset.next_multiple_of(8),
        attributes: difvm::stability::STABLE_COMMON,
    }
}

#[test]
fn strings_and_builtin_strings() {
    if !bpf_available("strings_and_builtin_strings") {
        return;
    }
    let program = program(vec![
        string_statement(&[
            ("sets \"hello world\", %r1\nret %r1", 256),
            ("sets \"truncated string\", %r1\nret %r1", 8),
            ("ldgs probeprov, %r1\nret %r1", 32),
            ("ldgs probemod, %r1\nret %r1", 32),
            ("ldgs probefunc, %r1\nret %r1", 32),
            ("ldgs probename, %r1\nret %r1", 32),
            ("ldgs execname, %r1\nret %r1", 32),
            ("setx 0, %r1\nret %r1", 16),
            (
                "sets \"abc\", %r1\npushtr DT_TYPE(1), %r0, %r1\nsets \"defgh\", %r2\npushtr DT_TYPE(1), %r0, %r2\ncall strjoin, %r3\nret %r3",
                64,
            ),
        ]),
        traces(
            None,
            &[
                "sets \"hello\", %r1\npushtr DT_TYPE(1), %r0, %r1\ncall strlen, %r2\nret %r2",
                "sets \"abc\", %r1\nsets \"abd\", %r2\nscmp %r1, %r2\nbl less\nsetx 0, %r3\nret %r3\nless:\nsetx 1, %r3\nret %r3",
                "sets \"abc\", %r1\nsets \"abc\", %r2\nscmp %r1, %r2\nbe same\nsetx 0, %r3\nret %r3\nsame:\nsetx 1, %r3\nret %r3",
                "sets \"b\", %r1\nsets \"abc\", %r2\nscmp %r1, %r2\nbg more\nsetx 0, %r3\nret %r3\nmore:\nsetx 1, %r3\nret %r3",
                "sets \"\", %r1\nscmp %r1, %r0\nbe same\nsetx 0, %r3\nret %r3\nsame:\nsetx 1, %r3\nret %r3",
                "setx 1, %r1\nsetx 2, %r2\npushtv DT_TYPE(0), %r1\npushtv DT_TYPE(0), %r2\ncall htons, %r3\nret %r3",
            ],
        ),
    ]);
    check(&program, &firings());
}

#[test]
fn memory_faults_and_scratch() {
    if !bpf_available("memory_faults_and_scratch") {
        return;
    }
    let program = program(vec![
        traces(None, &["setx 0, %r1\nldx [%r1], %r2\nret %r2"]),
        traces(None, &["setx 0x1003, %r1\nldsw [%r1], %r2\nret %r2"]),
        traces(None, &["setx 0x10, %r1\nldub [%r1], %r2\nret %r2"]),
        traces(
            None,
            &[
                "setx 16, %r1\nallocs %r1, %r2\nsetx 0xfffe, %r3\nsth %r3, [%r2]\nldsh [%r2], %r4\nret %r4",
                "setx 16, %r1\nallocs %r1, %r2\nsetx 0xff, %r3\nstb %r3, [%r2]\nldsb [%r2], %r4\nret %r4",
                "setx 8, %r1\nallocs %r1, %r2\nsetx 16, %r3\nadd %r2, %r3, %r2\nldx [%r2], %r4\nret %r4",
            ],
        ),
        traces(None, &["setx 0x100000, %r1\nallocs %r1, %r2\nret %r2"]),
        traces(None, &["sets \"abcdefgh\", %r1\nldx [%r1], %r2\nret %r2"]),
        traces(None, &["sets \"abcdefgh\", %r1\nldub [%r1], %r2\nsetx 0x1000, %r1\nsetx 1, %r3\nstb %r3, [%r1]\nret %r2"]),
        error_handler(),
    ]);
    check(&program, &firings());
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

/// A DIFO from `text` with the variables declared in its table.
fn with_variables(text: &str, variables: &[(u16, VariableKind, VariableScope, DifType)]) -> Difo {
    let mut text = text.to_string();
    for (id, ..) in variables {
        text = text.replace(&format!("v{id:x}"), &format!("DT_VAR({id})"));
    }
    let mut code = difo(&text);
    for (id, kind, scope, ty) in variables {
        let name_offset = code.string_table.len() as u32;
        code.string_table
            .extend_from_slice(format!("v{id:x}\0").as_bytes());
        code.variable_table
            .push(variable(name_offset, *id, *kind, *scope, *ty));
    }
    code
}

#[test]
fn variables_of_every_scope() {
    if !bpf_available("variables_of_every_scope") {
        return;
    }
    use VariableKind::{Array, Scalar};
    use VariableScope::{ClauseLocal, Global, ThreadLocal};
    let int = DifType::integer(8);
    let string = DifType::string(256);
    let declarations = [
        (0x500, Scalar, Global, int),
        (0x501, Scalar, ThreadLocal, int),
        (0x502, Scalar, ClauseLocal, int),
        (0x503, Array, Global, int),
        (0x504, Scalar, Global, string),
        (0x505, Array, ThreadLocal, int),
    ];
    let value = |text: &str| ActionValue {
        difo: Some(with_variables(text, &declarations)),
        slot: None,
    };
    let expression = |text: &str| Action {
        kind: ActionKind::Expression,
        values: vec![value(text)],
    };
    let traced = |text: &str, offset: u32| Action {
        kind: ActionKind::Trace,
        values: vec![ActionValue {
            difo: Some(with_variables(text, &declarations)),
            slot: Some(integer_slot(offset)),
        }],
    };
    let mut string_value = with_variables("ldgs v504, %r1\nret %r1", &declarations);
    string_value.return_type = string;
    let statement = Statement {
        clause: 0,
        role: StatementRole::User,
        probe: probe("fire"),
        predicate: None,
        actions: vec![
            traced("ldgs v500, %r1\nret %r1", 0),
            traced("ldts v501, %r1\nret %r1", 8),
            traced("ldls v502, %r1\nret %r1", 16),
            expression("ldgs v500, %r1\nldgs arg0, %r2\nadd %r1, %r2, %r1\nstgs %r1, v500\nret %r1"),
            expression("ldts v501, %r1\nsetx 1, %r2\nadd %r1, %r2, %r1\nstts %r1, v501\nret %r1"),
            expression("ldgs arg1, %r1\nstls %r1, v502\nret %r1"),
            traced("ldls v502, %r1\nret %r1", 24),
            expression("ldgs arg0, %r1\npushtv DT_TYPE(0), %r1\nldgaa v503, %r2\nsetx 1, %r3\nadd %r2, %r3, %r2\npushtv DT_TYPE(0), %r1\nstgaa %r2, v503\nret %r2"),
            traced("ldgs arg0, %r1\npushtv DT_TYPE(0), %r1\nldgaa v503, %r2\nret %r2", 32),
            expression("sets \"key\", %r1\npushtr DT_TYPE(1), %r0, %r1\nldgs arg2, %r2\nsttaa %r2, v505\nret %r2"),
            traced("sets \"key\", %r1\npushtr DT_TYPE(1), %r0, %r1\nldtaa v505, %r2\nret %r2", 40),
            expression("sets \"stored string\", %r1\nstgs %r1, v504\nret %r1"),
            Action {
                kind: ActionKind::Trace,
                values: vec![ActionValue {
                    difo: Some(string_value),
                    slot: Some(string_slot(48, 32)),
                }],
            },
            expression("setx 0, %r1\nstts %r1, v501\nret %r1"),
            traced("ldts v501, %r1\nret %r1", 80),
        ],
        record_size: 88,
        attributes: difvm::stability::STABLE_COMMON,
    };
    let program = program(vec![statement.clone(), statement]);
    check(&program, &firings());
}

fn aggregation(id: u32, function: AggregationFunction, keyed: bool) -> AggregationDescription {
    AggregationDescription {
        id,
        name: format!("a{id}"),
        function,
        keys: if keyed {
            vec![integer_slot(0)]
        } else {
            Vec::new()
        },
        key_size: if keyed { 8 } else { 0 },
    }
}

#[test]
fn aggregations_of_every_function() {
    if !bpf_available("aggregations_of_every_function") {
        return;
    }
    let functions = [
        AggregationFunction::Count,
        AggregationFunction::Sum,
        AggregationFunction::Avg,
        AggregationFunction::Min,
        AggregationFunction::Max,
        AggregationFunction::Stddev,
        AggregationFunction::Quantize,
        AggregationFunction::Lquantize {
            low: -10,
            high: 100,
            step: 10,
        },
        AggregationFunction::Llquantize {
            factor: 10,
            low: 0,
            high: 3,
            steps: 10,
        },
    ];
    let mut aggregations = Vec::new();
    let mut actions = Vec::new();
    for (index, function) in functions.iter().enumerate() {
        let id = index as u32 + 1;
        let keyed = index % 2 == 0;
        aggregations.push(aggregation(id, *function, keyed));
        let mut values = Vec::new();
        if keyed {
            values.push(ActionValue {
                difo: Some(difo("ldgs arg3, %r1\nret %r1")),
                slot: Some(integer_slot(0)),
            });
        }
        if *function != AggregationFunction::Count {
            values.push(ActionValue {
                difo: Some(difo("ldgs arg0, %r1\nret %r1")),
                slot: None,
            });
        }
        actions.push(Action {
            kind: ActionKind::Aggregate { aggregation: id },
            values,
        });
    }
    let statement = Statement {
        clause: 0,
        role: StatementRole::User,
        probe: probe("fire"),
        predicate: None,
        actions,
        record_size: 0,
        attributes: difvm::stability::STABLE_COMMON,
    };
    let program = CompiledProgram {
        statements: vec![statement],
        aggregations,
        ..CompiledProgram::default()
    };
    let mut firings = firings();
    for value in [
        0i64,
        1,
        -1,
        5,
        99,
        1000,
        -1000,
        i64::MIN,
        i64::MAX,
        12345,
        -3,
    ] {
        firings.push(vec![value as u64, 0, 0, (value % 3) as u64]);
    }
    check(&program, &firings);
}

#[test]
fn exit_sets_the_flag_and_stops_later_clauses() {
    if !bpf_available("exit_sets_the_flag_and_stops_later_clauses") {
        return;
    }
    let mut exit = traces(None, &["setx 3, %r1\nret %r1"]);
    exit.actions[0].kind = ActionKind::Exit;
    let program = program(vec![
        traces(None, &["ldgs arg0, %r1\nret %r1"]),
        exit,
        traces(None, &["setx 9, %r1\nret %r1"]),
    ]);
    check(&program, &firings());
}
