//! The layout contract and translation errors, without the kernel: map specifications
//! derived from a program and its options, aggregation keys, the constants image, the
//! errors translation reports for what the kernel engine does not do, `vtimestamp`'s map,
//! `curcpu`'s `cpuinfo_t` and the search for kernel stacks' artificial frames.

use difvm::difo::{DifType, DifVariable, VariableKind, VariableScope};
use difvm::object::{
    Action, ActionKind, ActionValue, AggregationDescription, AggregationFunction, CompiledProgram,
    EnabledProbe, ProbeDescription, RecordSlot, Statement, StatementRole, ValueLayout,
};
use difvm::text::assemble;
use difvm::verify::{verify_program, VerifiedProgram};
use kernel_shim::ebpf::{Helper, Insn, Reg};
use kernel_shim::map_layout::{
    LayoutOptions, MapFds, ProgramLayout, TaskStructOffsets, VtimestampLayout,
};
use kernel_shim::map_layout::{VTIMESTAMP_THREADS, WORK_AREAS_PER_CPU};
use kernel_shim::sys::MapType;
use kernel_shim::translate::artificial_frames::ARTIFICIAL_FRAME_WINDOW;
use kernel_shim::translate::{
    translate_probe, translate_probe_program, translate_probe_with_artificial_frames,
    vtimestamp_tracker, ArtificialFrames, ContextKind, FunctionKind, KernelTextRange,
    TranslateError, TranslatedProgram,
};

fn statement(text: &str, variables: Vec<DifVariable>, kind: ActionKind) -> Statement {
    let mut difo = assemble(text).expect("assembles");
    if !variables.is_empty() {
        difo.string_table.extend_from_slice(b"v\0");
    }
    let name_offset = (difo.string_table.len() as u32).saturating_sub(2);
    difo.variable_table = variables
        .into_iter()
        .map(|variable| DifVariable {
            name_offset,
            ..variable
        })
        .collect();
    let slot = matches!(kind, ActionKind::Trace).then_some(RecordSlot {
        offset: 0,
        size: 8,
        alignment: 8,
        layout: ValueLayout::Integer { signed: false },
    });
    Statement {
        clause: 0,
        role: StatementRole::User,
        probe: ProbeDescription::default(),
        predicate: None,
        actions: vec![Action {
            kind,
            values: vec![ActionValue {
                difo: Some(difo),
                slot: slot.clone(),
            }],
        }],
        record_size: if slot.is_some() { 8 } else { 0 },
        attributes: difvm::stability::STABLE_COMMON,
    }
}

fn enabled() -> Vec<EnabledProbe> {
    vec![EnabledProbe {
        epid: 1,
        probe_id: 100,
        probe: ProbeDescription::default(),
        statement: 0,
    }]
}

fn fds() -> MapFds {
    MapFds {
        state: 10,
        globals: 11,
        constants: 12,
        counters: 13,
        principal: 14,
        dynamic: Some(15),
        aggregations: Some(16),
        aggregation_generations: Some(18),
        speculations: Some(17),
        vtimestamps: Some(19),
        return_exits: None,
    }
}

/// Translates a one-statement program and returns it.
fn translate(text: &str) -> Result<TranslatedProgram, TranslateError> {
    let program = CompiledProgram {
        statements: vec![statement(text, Vec::new(), ActionKind::Trace)],
        ..CompiledProgram::default()
    };
    let verified = verify_program(&program).expect("verifies");
    let layout = ProgramLayout::for_program(&verified, &LayoutOptions::default()).unwrap();
    translate_probe(
        &layout,
        &fds(),
        100,
        &enabled(),
        &verified,
        &ContextKind::RawTracepoint {
            argument_count: 2,
            subject_task_argument: None,
        },
    )
}

/// The instructions alone, as a caller loading them itself gets them.
fn translate_instructions(text: &str) -> Result<usize, TranslateError> {
    translate_instructions_with(text, &LayoutOptions::default())
}

fn translate_instructions_with(
    text: &str,
    options: &LayoutOptions,
) -> Result<usize, TranslateError> {
    let program = CompiledProgram {
        statements: vec![statement(text, Vec::new(), ActionKind::Trace)],
        ..CompiledProgram::default()
    };
    let verified = verify_program(&program).expect("verifies");
    let layout = ProgramLayout::for_program(&verified, options).unwrap();
    translate_probe_program(
        &layout,
        &fds(),
        100,
        &enabled(),
        &verified,
        &ContextKind::RawTracepoint {
            argument_count: 2,
            subject_task_argument: None,
        },
    )
    .map(|instructions| instructions.len())
}

#[test]
fn map_specifications_follow_the_program_and_options() {
    let variable = |id, scope, kind| DifVariable {
        name_offset: 0,
        id,
        kind,
        scope,
        flags: 3,
        ty: DifType::integer(8),
    };
    let program = CompiledProgram {
        statements: vec![
            statement(
                "ldgs DT_VAR(1280), %r1\nldts DT_VAR(1281), %r2\nret %r1",
                vec![
                    variable(0x500, VariableScope::Global, VariableKind::Scalar),
                    variable(0x501, VariableScope::ThreadLocal, VariableKind::Scalar),
                ],
                ActionKind::Trace,
            ),
            statement(
                "ldgs arg0, %r1\nret %r1",
                Vec::new(),
                ActionKind::Aggregate { aggregation: 1 },
            ),
        ],
        aggregations: vec![AggregationDescription {
            id: 1,
            name: "q".into(),
            function: AggregationFunction::Quantize,
            keys: Vec::new(),
            key_size: 0,
        }],
        ..CompiledProgram::default()
    };
    let verified = verify_program(&program).expect("verifies");
    let options = LayoutOptions {
        cpu_count: 4,
        ..LayoutOptions::default()
    };
    let layout = ProgramLayout::for_program(&verified, &options).unwrap();
    let specs = layout.map_specs();
    let names: Vec<&str> = specs.iter().map(|spec| spec.name).collect();
    assert_eq!(
        names,
        [
            "dtrace_state",
            "dtrace_globals",
            "dtrace_consts",
            "dtrace_counters",
            "dtrace_buffers",
            "dtrace_dynvars",
            "dtrace_aggs",
            "dtrace_agggen"
        ]
    );
    assert_eq!(specs[0].max_entries, 4 * WORK_AREAS_PER_CPU);
    assert_eq!(specs[0].value_size, layout.state.size);
    assert_eq!(specs[4].map_type, MapType::PerfEventArray);
    assert_eq!(specs[6].map_type, MapType::PercpuHash);
    // quantize: the update count, the generation and 127 buckets.
    assert_eq!(specs[6].value_size, 16 + 127 * 8);
    assert_eq!(specs[6].key_size, 8);
    // One generation per aggregation id (id 1 is the largest).
    assert_eq!(specs[7].map_type, MapType::Array);
    assert_eq!((specs[7].key_size, specs[7].value_size), (4, 8));
    assert_eq!(specs[7].max_entries, 2);
    assert_eq!(
        layout.aggregation_key(1, &[]).unwrap(),
        vec![1, 0, 0, 0, 0, 0, 0, 0]
    );
    assert!(layout.globals.variables.contains_key(&0x500));
    assert!(layout.dynamic.is_some());
    assert!(layout.state.scratch + layout.state.scratch_size <= layout.state.zero_guard);
    assert!(layout.state.zero_guard_size >= layout.state.scratch_mask_size);
}

#[test]
fn unsupported_features_are_named() {
    let error = translate("ldgs ppid, %r1\nret %r1").unwrap_err();
    assert!(error.to_string().contains("ppid"), "{error}");
    for (name, arguments) in [("copyout", 3), ("copyoutstr", 3)] {
        let text = format!(
            "setx 0x1, %r1\n{}call {name}, %r2\nret %r2",
            "pushtv DT_TYPE(0), %r1\n".repeat(arguments)
        );
        let error = translate(&text).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(&format!("subroutine {name}()")),
            "{message}"
        );
        assert!(message.contains("bpf_probe_write_user"), "{message}");
    }
    assert!(translate("ldgs arg0, %r1\nldgs arg1, %r2\nadd %r1, %r2, %r3\nret %r3").is_ok());
}

#[test]
fn programs_with_loop_callbacks_carry_their_functions() {
    let search = "sets \"abc\", %r1\npushtr DT_TYPE(1), %r0, %r1\npushtr DT_TYPE(1), %r0, %r1\ncall index, %r2\nret %r2";
    let translated = translate(search).expect("index() translates");
    assert!(translated.needs_function_info());
    assert_eq!(translated.functions[0].kind, FunctionKind::Probe);
    assert_eq!(translated.functions[0].start, 0);
    assert!(translated
        .functions
        .iter()
        .any(|function| function.kind == FunctionKind::LoopCallback));
    let names: Vec<String> = translated
        .function_types()
        .into_iter()
        .map(|function| function.name)
        .collect();
    assert_eq!(names[0], "dtrace_probe");
    // The loop's callback, the global function that calls bpf_loop with it, the
    // address decoder the string reads call, and the subprograms of map lookups.
    for (function, name) in translated.functions.iter().zip(&names).skip(1) {
        let prefix = match function.kind {
            FunctionKind::LoopCallback => "dtrace_loop_",
            FunctionKind::LoopCaller => "dtrace_loop_caller_",
            FunctionKind::AddressDecoder => "dtrace_decode_address",
            _ => "dtrace_function_",
        };
        assert!(name.starts_with(prefix), "{name}");
    }
    let kinds = |kind| {
        translated
            .functions
            .iter()
            .filter(|function| function.kind == kind)
            .count()
    };
    assert_eq!(kinds(FunctionKind::LoopCallback), 1, "{names:?}");
    assert_eq!(kinds(FunctionKind::LoopCaller), 1, "{names:?}");
    assert_eq!(kinds(FunctionKind::AddressDecoder), 1, "{names:?}");
    let types = translated.function_types();
    let caller = types
        .iter()
        .find(|function| function.name.starts_with("dtrace_loop_caller_"))
        .unwrap();
    assert!(caller.global);
    // Callers loading instructions themselves are told why they cannot have these.
    let error = translate_instructions(search).unwrap_err();
    assert!(error.to_string().contains("BTF"), "{error}");
    assert!(translate_instructions("ldgs arg0, %r1\nret %r1").is_ok());
    assert!(!translate("ldgs arg0, %r1\nret %r1")
        .unwrap()
        .needs_function_info());
}

/// A one-statement program, verified, with its layout for `options`.
fn laid_out(text: &str, options: &LayoutOptions) -> (VerifiedProgram, ProgramLayout) {
    let program = CompiledProgram {
        statements: vec![statement(text, Vec::new(), ActionKind::Trace)],
        ..CompiledProgram::default()
    };
    let verified = verify_program(&program).expect("verifies");
    let layout = ProgramLayout::for_program(&verified, options).unwrap();
    (verified, layout)
}

#[test]
fn vtimestamp_needs_its_map_and_the_task_offsets() {
    let read = "ldgs vtimestamp, %r1\nret %r1";
    let (_, layout) = laid_out("ldgs timestamp, %r1\nret %r1", &LayoutOptions::default());
    assert!(!layout.tracks_vtimestamps);
    assert!(layout
        .map_specs()
        .iter()
        .all(|spec| spec.name != "dtrace_vtimes"));

    let (_, layout) = laid_out(read, &LayoutOptions::default());
    assert!(layout.tracks_vtimestamps);
    let spec = layout
        .map_specs()
        .into_iter()
        .find(|spec| spec.name == "dtrace_vtimes")
        .expect("the vtimestamps map");
    assert_eq!(spec.map_type, MapType::LruHash);
    assert_eq!(
        (spec.key_size, spec.value_size),
        (8, VtimestampLayout::SIZE)
    );
    assert_eq!(spec.max_entries, VTIMESTAMP_THREADS);
    // Without task_struct offsets neither the probe nor the tracker can be translated.
    let error = translate(read).unwrap_err();
    assert!(error.to_string().contains("vtimestamp"), "{error}");
    assert!(vtimestamp_tracker(&layout, &fds()).is_err());

    let options = LayoutOptions {
        task_offsets: Some(TaskStructOffsets {
            real_parent: 2000,
            tgid: 2100,
            sum_exec_runtime: 300,
            start_time: 2400,
            pid: 2096,
            comm: 3000,
            cred: 2900,
            cred_uid: 4,
            cred_gid: 8,
            run_queue_current: None,
        }),
        ..LayoutOptions::default()
    };
    let (verified, layout) = laid_out(read, &options);
    let context = ContextKind::RawTracepoint {
        argument_count: 2,
        subject_task_argument: None,
    };
    assert!(translate_probe(&layout, &fds(), 100, &enabled(), &verified, &context).is_ok());
    assert!(vtimestamp_tracker(&layout, &fds()).is_ok());
    let without_map = MapFds {
        vtimestamps: None,
        ..fds()
    };
    let error =
        translate_probe(&layout, &without_map, 100, &enabled(), &verified, &context).unwrap_err();
    assert_eq!(error, TranslateError::MissingMap { map: "vtimestamps" });
    assert_eq!(
        vtimestamp_tracker(&layout, &without_map).unwrap_err(),
        TranslateError::MissingMap { map: "vtimestamps" }
    );
}

#[test]
fn kernel_stacks_search_the_machinery_ranges_they_are_given() {
    let (verified, layout) = laid_out("ldgs stackdepth, %r1\nret %r1", &LayoutOptions::default());
    let context = ContextKind::SyscallEntry { syscall: Some(110) };
    let translated = |frames: &ArtificialFrames| {
        translate_probe_with_artificial_frames(
            &layout,
            &fds(),
            100,
            &enabled(),
            &verified,
            &context,
            frames,
        )
        .expect("translates")
        .instructions
    };
    let captures = |instructions: &[Insn]| {
        instructions
            .iter()
            .filter(|instruction| **instruction == Insn::call(Helper::GetStack))
            .count()
    };
    let loads_of = |instructions: &[Insn], address: u64| {
        instructions
            .windows(2)
            .filter(|pair| *pair == Insn::ld_imm64(Reg::R2, address).as_slice())
            .count()
    };
    // Without ranges, one capture skipping the fixed count.
    let structural = ArtificialFrames::structural(&context);
    assert_eq!(structural.fixed, 3);
    assert!(structural.starts_in_program);
    assert_eq!(captures(&translated(&structural)), 1);
    // With them, a first capture finds the artificial frames among the top ones.
    let range = KernelTextRange {
        start: 0xffff_ffff_8141_52e0,
        end: 0xffff_ffff_8141_5340,
    };
    let searched = ArtificialFrames {
        ranges: vec![range],
        ..structural
    };
    let instructions = translated(&searched);
    assert_eq!(captures(&instructions), 2);
    let window = ARTIFICIAL_FRAME_WINDOW as usize;
    assert_eq!(loads_of(&instructions, range.start), window);
    assert_eq!(loads_of(&instructions, range.end), window);
    // Probes whose stacks start at the probe site skip nothing.
    assert_eq!(
        ArtificialFrames::structural(&ContextKind::PerfEvent),
        ArtificialFrames::default()
    );
}

/// `curcpu` points to a `cpuinfo_t` in the work area, which only programs that read it
/// lay out; the physical package costs one range test per run of CPUs off package 0.
#[test]
fn curcpu_has_a_work_area_cpuinfo_and_tests_only_packages_other_than_0() {
    let layout_of = |text: &str| {
        let program = CompiledProgram {
            statements: vec![statement(text, Vec::new(), ActionKind::Trace)],
            ..CompiledProgram::default()
        };
        let verified = verify_program(&program).expect("verifies");
        ProgramLayout::for_program(&verified, &LayoutOptions::default()).unwrap()
    };
    let reads = layout_of("ldgs curcpu, %r1\nret %r1");
    let ignores = layout_of("ldgs cpu, %r1\nret %r1");
    assert!(ignores.state.cpuinfo.is_none());
    let area = reads.state.cpuinfo.expect("a cpuinfo_t area");
    assert!(area + 24 <= reads.state.size && area % 8 == 0);
    assert_eq!(reads.state.scratch, ignores.state.scratch + 24);

    let text = "ldgs curcpu, %r1\nret %r1";
    let one_package = translate_instructions(text).expect("curcpu translates");
    let options = |cpu_chips: Vec<u32>| LayoutOptions {
        cpu_chips,
        ..LayoutOptions::default()
    };
    let same = translate_instructions_with(text, &options(vec![0, 0, 0, 0])).unwrap();
    let two = translate_instructions_with(text, &options(vec![0, 0, 1, 1])).unwrap();
    let interleaved = translate_instructions_with(text, &options(vec![0, 1, 0, 1])).unwrap();
    assert_eq!(same, one_package);
    assert_eq!(two, one_package + 3);
    assert_eq!(interleaved, one_package + 6);
}
