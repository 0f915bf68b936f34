//! Compile tests: the structure of compiled programs — statements per clause and
//! probe description, record layouts, aggregation descriptions, variables, options,
//! matched-probe counts, if/else splitting and the `-S` listing.

mod compile_support;

use compile_support::{compile_command_line, compile_with, compiled, options};
use difvm::difo::{CtfKind, DifType, DifTypeKind, VariableScope, DIF_TYPE_FLAG_BY_REFERENCE};
use difvm::object::{
    ActionKind, AggregationFunction, RecordSlot, StatementRole, SymbolFormat, ValueLayout,
    VariableStorage,
};
use dlang::compile::{compile, CompileOptions, ProbeSpecifierOption, ProgramSource};
use dlang::format::compile_format;
use dlang::probes::DtraceProviderCatalog;

fn slot(offset: u32, size: u32, alignment: u32, layout: ValueLayout) -> RecordSlot {
    RecordSlot {
        offset,
        size,
        alignment,
        layout,
    }
}

fn integer(signed: bool) -> ValueLayout {
    ValueLayout::Integer { signed }
}

/// The kinds of the first statement's actions, in order.
fn action_kinds(program: &difvm::object::CompiledProgram) -> Vec<ActionKind> {
    program.statements[0]
        .actions
        .iter()
        .map(|action| action.kind.clone())
        .collect()
}

/// The record slots of the first statement, in action order.
fn record_slots(text: &str) -> (Vec<RecordSlot>, u32) {
    let program = compiled(text);
    let statement = &program.statements[0];
    let slots = statement
        .actions
        .iter()
        .flat_map(|action| action.values.iter().filter_map(|value| value.slot.clone()))
        .collect();
    (slots, statement.record_size)
}

#[test]
fn trace_records_values_at_their_size() {
    let (slots, size) = record_slots(
        "BEGIN { trace((char)1); trace(2); trace((short)3); trace(4L); trace(\"s\"); trace(5u); }",
    );
    assert_eq!(
        slots,
        vec![
            slot(0, 1, 1, integer(true)),
            slot(4, 4, 4, integer(true)),
            slot(8, 2, 2, integer(true)),
            slot(16, 8, 8, integer(true)),
            slot(24, 256, 1, ValueLayout::String),
            slot(280, 4, 4, integer(false)),
        ]
    );
    assert_eq!(size, 288);
}

#[test]
fn builtin_variable_types_decide_layouts() {
    let (slots, size) = record_slots("BEGIN { trace(pid); trace(timestamp); trace(execname); trace(curthread); trace(arg0); trace(cpu); }");
    let layouts: Vec<(u32, ValueLayout)> = slots
        .iter()
        .map(|slot| (slot.size, slot.layout.clone()))
        .collect();
    assert_eq!(
        layouts,
        vec![
            (4, integer(true)),
            (8, integer(false)),
            (16, ValueLayout::String),
            (8, ValueLayout::Pointer),
            (8, integer(true)),
            (4, integer(true)),
        ]
    );
    assert_eq!(size % 8, 0);
}

#[test]
fn execname_needs_no_more_than_a_task_comm() {
    let (slots, _) = record_slots("BEGIN { trace(execname); printf(\"%s\", execname); }");
    let sizes: Vec<u32> = slots.iter().map(|slot| slot.size).collect();
    assert_eq!(sizes, [16, 16]);
    let (slots, _) =
        record_slots("#pragma D option strsize=8\nBEGIN { trace(execname); trace(\"x\"); }");
    let sizes: Vec<u32> = slots.iter().map(|slot| slot.size).collect();
    assert_eq!(sizes, [8, 8]);
}

#[test]
fn string_keys_of_an_aggregation_hold_its_longest_use() {
    for text in [
        "BEGIN { @a[execname, 1] = count(); } END { @a[copyinstr(arg0), 2] = count(); }",
        "BEGIN { @a[copyinstr(arg0), 1] = count(); } END { @a[execname, 2] = count(); }",
    ] {
        let program = compiled(text);
        let keys: Vec<(u32, u32)> = program.aggregations[0]
            .keys
            .iter()
            .map(|slot| (slot.offset, slot.size))
            .collect();
        assert_eq!(keys, [(0, 256), (256, 4)], "{text}");
        assert_eq!(program.aggregations[0].key_size, 264, "{text}");
        for statement in &program.statements {
            let slots: Vec<(u32, u32)> = statement.actions[0]
                .values
                .iter()
                .filter_map(|value| value.slot.as_ref())
                .map(|slot| (slot.offset, slot.size))
                .collect();
            assert_eq!(slots, keys, "{text}");
        }
    }
}

#[test]
fn empty_clause_still_has_a_statement() {
    let program = compiled("BEGIN { } END { x = 1; }");
    assert_eq!(program.statements.len(), 2);
    assert_eq!(program.statements[0].record_size, 0);
    assert!(program.statements[0].actions.is_empty());
    assert_eq!(
        program.statements[1].actions[0].kind,
        ActionKind::Expression
    );
    assert_eq!(program.statements[1].record_size, 0);
}

#[test]
fn one_statement_per_probe_description() {
    let program = compiled("BEGIN, END /1/ { trace(1); } syscall::read:entry { }");
    let probes: Vec<String> = program
        .statements
        .iter()
        .map(|statement| format!("{} {}", statement.clause, statement.probe))
        .collect();
    assert_eq!(probes, ["0 :::BEGIN", "0 :::END", "1 syscall::read:entry"]);
    assert!(program.statements[0].predicate.is_some());
}

#[test]
fn printf_records_each_argument() {
    let program = compiled("BEGIN { printf(\"%d %s %c\\n\", 1, \"x\", 'a'); }");
    let action = &program.statements[0].actions[0];
    assert_eq!(
        action.kind,
        ActionKind::Printf {
            format: compile_format("%d %s %c\n")
        }
    );
    let slots: Vec<RecordSlot> = action
        .values
        .iter()
        .filter_map(|value| value.slot.clone())
        .collect();
    assert_eq!(
        slots,
        vec![
            slot(0, 4, 4, integer(true)),
            slot(4, 256, 1, ValueLayout::String),
            slot(260, 4, 4, integer(true))
        ]
    );
    assert_eq!(program.statements[0].record_size, 264);
}

#[test]
fn aggregations_are_described_in_order_of_appearance() {
    let program = compiled(
        "BEGIN { @counts[execname, pid] = count(); @ = sum(1); @lin = lquantize(1, 0, 100, 10); @log = llquantize(1, 10, 0, 2, 10); @q[stack()] = quantize(2); @s[sym(arg0)] = max(1); }",
    );
    let summary: Vec<(u32, String, AggregationFunction, u32)> = program
        .aggregations
        .iter()
        .map(|aggregation| {
            (
                aggregation.id,
                aggregation.name.clone(),
                aggregation.function,
                aggregation.key_size,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (1, "counts".to_string(), AggregationFunction::Count, 24),
            (2, "_".to_string(), AggregationFunction::Sum, 0),
            (
                3,
                "lin".to_string(),
                AggregationFunction::Lquantize {
                    low: 0,
                    high: 100,
                    step: 10
                },
                0
            ),
            (
                4,
                "log".to_string(),
                AggregationFunction::Llquantize {
                    factor: 10,
                    low: 0,
                    high: 2,
                    steps: 10
                },
                0
            ),
            (5, "q".to_string(), AggregationFunction::Quantize, 160),
            (6, "s".to_string(), AggregationFunction::Max, 8),
        ]
    );
    assert_eq!(
        program.aggregations[0].keys,
        vec![
            slot(0, 16, 1, ValueLayout::String),
            slot(16, 4, 4, integer(true))
        ]
    );
    assert_eq!(
        program.aggregations[4].keys,
        vec![slot(0, 160, 8, ValueLayout::KernelStack { frames: 20 })]
    );
    assert_eq!(
        program.aggregations[5].keys,
        vec![slot(
            0,
            8,
            8,
            ValueLayout::KernelSymbol(SymbolFormat::Symbol)
        )]
    );
    let statement = &program.statements[0];
    assert_eq!(statement.record_size, 0);
    let first = &statement.actions[0];
    assert_eq!(first.kind, ActionKind::Aggregate { aggregation: 1 });
    assert_eq!(first.values.len(), 2);
    let stack_key = &statement.actions[4].values[0];
    assert!(stack_key.difo.is_none());
    // quantize: the key, then the value.
    assert_eq!(statement.actions[4].values.len(), 2);
    // lquantize: the value only (the parameters are in the description).
    assert_eq!(statement.actions[2].values.len(), 1);
}

#[test]
fn variables_are_described() {
    let program = compiled(
        "int g; self string name; int counts[string, int]; int table[8]; BEGIN { g = 1; self->name = execname; counts[\"a\", 1] = 2; this->x = 3; trace(table[1]); }",
    );
    let mut variables: Vec<(String, u16, VariableScope, VariableStorage, DifType)> = program
        .variables
        .iter()
        .map(|variable| {
            (
                variable.name.clone(),
                variable.id,
                variable.scope,
                variable.storage,
                variable.ty,
            )
        })
        .collect();
    variables.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        variables,
        vec![
            (
                "counts".to_string(),
                0x501,
                VariableScope::Global,
                VariableStorage::Associative { key_size: 264 },
                DifType::integer(4)
            ),
            (
                "g".to_string(),
                0x500,
                VariableScope::Global,
                VariableStorage::Scalar,
                DifType::integer(4)
            ),
            (
                "name".to_string(),
                0x500,
                VariableScope::ThreadLocal,
                VariableStorage::Scalar,
                DifType::string(256)
            ),
            // A scalar array of integers is kept in memory: a by-reference global
            // as large as its elements, so that `&table[i]` can point into it.
            (
                "table".to_string(),
                0x502,
                VariableScope::Global,
                VariableStorage::Scalar,
                DifType {
                    kind: DifTypeKind::Ctf,
                    ctf_kind: CtfKind::Array,
                    flags: DIF_TYPE_FLAG_BY_REFERENCE,
                    size: 32,
                }
            ),
            (
                "x".to_string(),
                0x500,
                VariableScope::ClauseLocal,
                VariableStorage::Scalar,
                DifType::integer(4)
            ),
        ]
    );
}

#[test]
fn implicit_variables_take_the_type_of_their_first_assignment() {
    let program = compiled(
        "BEGIN { a = 1; b = timestamp; c = \"s\"; d = (char)1; e = &`x; }"
            .replace("e = &`x; ", "")
            .as_str(),
    );
    let types: Vec<(String, DifType)> = program
        .variables
        .iter()
        .map(|variable| (variable.name.clone(), variable.ty))
        .collect();
    assert_eq!(
        types,
        vec![
            ("a".to_string(), DifType::integer(4)),
            ("b".to_string(), DifType::integer(8)),
            ("c".to_string(), DifType::string(256)),
            ("d".to_string(), DifType::integer(1)),
        ]
    );
}

#[test]
fn struct_layout_and_pointer_types() {
    let program = compiled(
        "struct s { char c; int i; long l; short h; char name[5]; unsigned int bits : 3; unsigned int more : 30; }; \
         BEGIN { this->p = (struct s *)alloca(sizeof (struct s)); trace(sizeof (struct s)); trace(offsetof(struct s, i)); \
         trace(offsetof(struct s, l)); trace(offsetof(struct s, h)); trace(offsetof(struct s, name)); trace(this->p); }",
    );
    let statement = &program.statements[0];
    let last = statement
        .actions
        .last()
        .and_then(|action| action.values[0].slot.clone());
    assert_eq!(last.map(|slot| slot.layout), Some(ValueLayout::Pointer));
    let pointer = program
        .variables
        .iter()
        .find(|variable| variable.name == "p")
        .map(|variable| variable.ty);
    assert_eq!(
        pointer,
        Some(DifType {
            kind: difvm::difo::DifTypeKind::Ctf,
            ctf_kind: CtfKind::Pointer,
            flags: 0,
            size: 8
        })
    );
    let values = compile_support::run_program(program).values();
    assert_eq!(values[..5], ["32", "4", "8", "16", "18"]);
}

#[test]
fn pragma_options_are_kept_and_strsize_applies() {
    let program =
        compiled("#pragma D option quiet\n#pragma D option strsize=32\nBEGIN { trace(\"x\"); }");
    assert_eq!(
        program.options,
        vec![
            ("quiet".to_string(), None),
            ("strsize".to_string(), Some("32".to_string()))
        ]
    );
    assert_eq!(
        program.statements[0].actions[0].values[0]
            .slot
            .as_ref()
            .map(|slot| slot.size),
        Some(32)
    );
}

#[test]
fn if_else_splits_the_clause() {
    let program = compiled(
        "BEGIN /1 + 1 == 2/ { trace(1); if (pid > 0) { trace(2); } else { trace(3); } trace(4); }",
    );
    // The part before the if (whose predicate stores the clause predicate's truth and
    // whose actions store the if's condition), then, else, and the part after.
    assert_eq!(program.statements.len(), 4);
    assert!(program
        .statements
        .iter()
        .all(|statement| statement.clause == 0));
    assert!(program
        .statements
        .iter()
        .all(|statement| statement.predicate.is_some()));
    let values = compile_support::run_program(program).values();
    assert_eq!(values, ["1", "2", "4"]);
    let values = compile_support::run(
        "BEGIN { if (pid < 0) trace(2); else if (pid == 42) trace(3); else trace(4); }",
    )
    .values();
    assert_eq!(values, ["3"]);
    let values = compile_support::run("BEGIN /0/ { if (1) trace(2); }").values();
    assert!(values.is_empty());
    // A segment that only evaluates a condition writes no record.
    let result = compile_support::run("BEGIN { if (pid == 42) { if (1) trace(5); } }");
    assert_eq!(result.records, vec![vec!["5".to_string()]]);
    let program =
        compiled("BEGIN { x = 0; if (x++ == 0) trace(x); if (x == 1) trace(10); else trace(20); }");
    assert_eq!(compile_support::run_program(program).values(), ["1", "10"]);
}

#[test]
fn a_fault_in_one_segment_ends_the_whole_clause() {
    // The then-branch faults: the part after the if must not run, the next clause must.
    let result = compile_support::run(
        "BEGIN { trace(1); if (pid == 42) { trace(*(int *)0); } trace(2); } BEGIN { trace(3); }",
    );
    assert_eq!(result.faults.len(), 1, "{:?}", result.faults);
    assert_eq!(result.values(), ["1", "3"]);
    // A faulting condition selects neither branch, and ends the clause too.
    let result = compile_support::run(
        "BEGIN { if (*(int *)0) { trace(1); } else { trace(2); } trace(3); } BEGIN { trace(4); }",
    );
    assert_eq!(result.faults.len(), 1, "{:?}", result.faults);
    assert_eq!(result.values(), ["4"]);
    // Without faults every segment runs as before, whichever branch is taken.
    let result = compile_support::run(
        "BEGIN { if (pid != 42) { trace(1); } else { trace(2); } if (pid == 42) trace(3); trace(4); }",
    );
    assert!(result.faults.is_empty(), "{:?}", result.faults);
    assert_eq!(result.values(), ["2", "3", "4"]);
}

#[test]
fn exit_stops_the_later_segments_of_its_clause() {
    // The if/else segments after exit() are statements of their own, and the engine runs
    // no statement after exit() except END and ERROR ones: like illumos, which splits
    // such clauses into separate enablings, the rest of the clause does not run.
    let result = compile_support::run(
        "BEGIN { exit(7); if (pid == 42) { trace(1); } trace(2); } BEGIN { trace(3); }",
    );
    assert_eq!(result.exit_status, Some(7));
    // Only the exit status is recorded.
    assert_eq!(result.values(), ["7"]);
}

#[test]
fn default_error_handler_records_five_arguments() {
    let options = CompileOptions {
        default_error_handler: true,
        ..options()
    };
    let program = compile_with("BEGIN { }", &options)
        .map(|compilation| compilation.program)
        .unwrap_or_default();
    let handler = program.statements.last().cloned();
    let handler = handler.expect("a default error handler statement");
    assert_eq!(handler.role, StatementRole::DefaultErrorHandler);
    assert_eq!(handler.probe.to_string(), "dtrace:::ERROR");
    assert_eq!(handler.record_size, 40);
    let offsets: Vec<u32> = handler
        .actions
        .iter()
        .filter_map(|action| action.values[0].slot.as_ref().map(|slot| slot.offset))
        .collect();
    assert_eq!(offsets, [0, 8, 16, 24, 32]);
}

#[test]
fn several_programs_share_variables_and_count_matches() {
    let programs = [
        ProgramSource::command_line(ProbeSpecifierOption::Name, "BEGIN { x = 1; @a = count(); }"),
        ProgramSource::script("two.d", "BEGIN, END { trace(x); @a = count(); }"),
        ProgramSource::command_line(ProbeSpecifierOption::Provider, "dtrace"),
    ];
    let compilation = compile(&programs, &options(), &DtraceProviderCatalog)
        .unwrap_or_else(|error| panic!("{:?}", error.diagnostic));
    assert_eq!(compilation.matched_probes, [1, 2, 3]);
    assert_eq!(compilation.program.aggregations.len(), 1);
    assert_eq!(compilation.program.statements.len(), 4);
    let error = compile(
        &[
            programs[0].clone(),
            ProgramSource::script("bad.d", "BEGIN {\n trace(y); }"),
        ],
        &options(),
        &DtraceProviderCatalog,
    )
    .unwrap_err();
    assert_eq!(error.program, 1);
    assert_eq!(
        error.message("dtrace", &[programs[0].clone(), ProgramSource::script("bad.d", "")], false),
        "dtrace: failed to compile script bad.d: line 2: failed to resolve y: Unknown variable name"
    );
}

#[test]
fn probe_descriptions_fill_from_the_right() {
    let compilation = compile_command_line(ProbeSpecifierOption::Function, "read")
        .map(|compilation| compilation.program);
    let program = compilation.unwrap_or_default();
    assert_eq!(program.statements[0].probe.to_string(), "::read:");
    let program = compile_command_line(ProbeSpecifierOption::Module, "syscall:vmlinux")
        .map(|c| c.program)
        .unwrap_or_default();
    assert_eq!(program.statements[0].probe.to_string(), "syscall:vmlinux::");
    let program = compiled("read:entry { }");
    assert_eq!(program.statements[0].probe.to_string(), "::read:entry");
    let program = compiled("1 { }");
    assert_eq!(program.statements[0].probe.to_string(), "dtrace:::BEGIN");
    let zero = CompileOptions {
        zero_matches_allowed: true,
        ..options()
    };
    assert!(compile_with("nothing:matches:this:probe { }", &zero).is_ok());
}

#[test]
fn macro_variables_expand() {
    let options = CompileOptions {
        macro_arguments: vec![
            "dtrace".into(),
            "42".into(),
            "read".into(),
            "hello world".into(),
            "-3".into(),
        ],
        macro_variables: dlang::compile::MacroVariables {
            target: 1234,
            ..Default::default()
        },
        ..options()
    };
    let compilation = compile_with("syscall::$2:entry { trace($1); trace($$1); trace($3); trace($4); trace($target); trace($$target); }", &options);
    let program = compilation
        .map(|compilation| compilation.program)
        .unwrap_or_else(|error| panic!("{:?}", error.diagnostic));
    assert_eq!(
        program.statements[0].probe.to_string(),
        "syscall::read:entry"
    );
    let slots: Vec<ValueLayout> = program.statements[0]
        .actions
        .iter()
        .filter_map(|action| {
            action.values[0]
                .slot
                .as_ref()
                .map(|slot| slot.layout.clone())
        })
        .collect();
    assert_eq!(
        slots,
        [
            integer(true),
            ValueLayout::String,
            ValueLayout::String,
            integer(true),
            integer(true),
            ValueLayout::String
        ]
    );
    let defaults = CompileOptions {
        default_arguments: true,
        ..compile_support::options()
    };
    assert!(compile_with("BEGIN { trace($1); trace($$2); }", &defaults).is_ok());
}

#[test]
fn listing_shows_every_difo() {
    let program = compiled("BEGIN /pid == 42/ { trace(1); }");
    let listing = dlang::compile::dif_listing(&program);
    assert!(
        listing.contains("DIFO 0x0 returns D type (integer) (size 4)"),
        "{listing}"
    );
    assert!(listing.contains("ldgs DT_VAR(278), %r1"), "{listing}");
    assert!(listing.contains("DIFO 0x1 returns"), "{listing}");
    assert!(!difvm::engine::is_destructive(&program));
    let destructive = compiled("BEGIN { system(\"ls\"); }");
    assert!(difvm::engine::is_destructive(&destructive));
}

#[test]
fn printa_takes_several_aggregations_with_or_without_a_format() {
    let program = compiled("BEGIN { @a[1] = count(); @b[2] = sum(3); printa(@a, @b); printa(\"%d %@d %@d\\n\", @a, @b); printa(@a); }");
    let kinds = &action_kinds(&program)[2..];
    assert_eq!(
        kinds,
        vec![
            ActionKind::Printa {
                format: None,
                aggregations: vec![1, 2]
            },
            ActionKind::Printa {
                format: Some(compile_format("%d %@d %@d\n")),
                aggregations: vec![1, 2]
            },
            ActionKind::Printa {
                format: None,
                aggregations: vec![1]
            },
        ]
    );
}

#[test]
fn freopen_with_an_empty_format_restores_the_original_output() {
    // `freopen("")` is not an empty format to refuse but the request to restore the
    // original output: it compiles to the restore sentinel, records nothing, and the
    // program stays destructive and listable.
    let program = compiled("BEGIN { freopen(\"\"); freopen(\"/tmp/%s\", \"x\"); ftruncate(); }");
    let kinds = action_kinds(&program);
    assert_eq!(
        kinds,
        vec![
            ActionKind::Freopen {
                format: compile_format(difvm::object::FREOPEN_RESTORE_TOKEN)
            },
            ActionKind::Freopen {
                format: compile_format("/tmp/%s")
            },
            ActionKind::Ftruncate,
        ]
    );
    assert!(program.statements[0].actions[0].values.is_empty());
    assert_eq!(program.statements[0].actions[1].values.len(), 1);
    assert!(difvm::engine::is_destructive(&program));
    let listing = dlang::compile::dif_listing(&program);
    assert!(listing.contains("DIFO 0x0 returns"), "{listing}");
}

/// The `inline int NAME = VALUE;` lines of a system library file.
fn library_inlines(file: &str) -> Vec<(String, u64)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/library")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("library file");
    text.lines()
        .filter_map(|line| line.strip_prefix("inline int "))
        .map(|rest| {
            let (name, value) = rest
                .trim_end_matches(';')
                .split_once(" = ")
                .expect("NAME = VALUE");
            (name.to_string(), value.parse().expect("a number"))
        })
        .collect()
}

#[test]
fn every_system_library_inline_is_a_constant_of_its_value() {
    for file in ["errno.d", "signal.d"] {
        let inlines = library_inlines(file);
        assert!(inlines.len() > 30, "{file} holds {} inlines", inlines.len());
        for (name, value) in inlines {
            // The inline and the number compile to the same DIFO exactly when the inline
            // is that number.
            let program = compiled(&format!("BEGIN {{ trace({name}); trace({value}); }}"));
            let difos: Vec<_> = program.statements[0]
                .actions
                .iter()
                .map(|action| action.values[0].difo.clone().expect("a value"))
                .collect();
            assert_eq!(difos[0], difos[1], "{file}: {name} is not {value}");
        }
    }
}

#[test]
fn nolibs_leaves_the_system_library_out_and_programs_may_reuse_its_names() {
    let without = CompileOptions {
        system_library: false,
        ..options()
    };
    let error = compile_with("BEGIN { trace(ENOENT); }", &without).expect_err("unknown");
    assert_eq!(
        error.diagnostic.message,
        "failed to resolve ENOENT: Unknown variable name"
    );
    // A program's own names win over the library's.
    let program = compiled("inline int ENOENT = 7; BEGIN { trace(ENOENT); trace(7); }");
    let actions = &program.statements[0].actions;
    assert_eq!(actions[0].values[0].difo, actions[1].values[0].difo);
}
