//! The comparison harness of the translation tests: runs one compiled program on the
//! reference engine (`difvm::interp::Engine`) and, translated, in the kernel (a raw
//! tracepoint program run with `BPF_PROG_TEST_RUN` on CPU 0), and returns what each
//! produced: records, aggregation entries, drop counters and the exit flag.

#![allow(dead_code)]

use std::collections::BTreeMap;

use difvm::engine::EngineOptions;
use difvm::interp::{Engine, SimpleFiringContext};
use difvm::object::{
    CompiledProgram, EnabledProbe, ProbeDescription, PROBE_ID_ERROR, RECORD_HEADER_SIZE,
};
use difvm::verify::verify_program;
use dlang::compile::{compile, CompileOptions, ProgramSource};
use dlang::probes::{ListCatalog, ProbeInfo};
use kernel_shim::ebpf::disassemble;
use kernel_shim::map_layout::{LayoutOptions, MapFds, ProgramLayout, TaskStructOffsets};
use kernel_shim::map_layout::{
    AGGREGATION_WORDS_OFFSET, COUNTER_COUNT, COUNTER_ERROR_IN_ERROR_PROBE,
    COUNTER_SPECULATION_UNAVAILABLE,
};
use kernel_shim::runtime::return_exits::ReturnExitRecorder;
use kernel_shim::runtime::{BufferEvent, PerfBufferSet};
use kernel_shim::sys::{
    bpf_map_create, check_bpf_access, possible_cpu_count, MapFd, TestRunRequest, BPF_ANY,
};
use kernel_shim::translate::{translate_probe, ContextKind};

/// The probe id the tests fire.
pub const PROBE: u32 = 100;

/// Whether bpf(2) can be used; prints the one-line reason when it cannot.
pub fn bpf_available(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipping {test}: not running as root");
        return false;
    }
    if let Err(error) = check_bpf_access() {
        eprintln!("skipping {test}: {error}");
        return false;
    }
    true
}

/// Moves the calling thread to CPU 0.
pub fn pin_to_cpu_zero() {
    // SAFETY: the set is initialised before use and describes CPU 0 only.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(0, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// What one engine produced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    /// Every record, in order.
    pub records: Vec<Vec<u8>>,
    /// (aggregation id, key, words) of CPU 0.
    pub aggregations: BTreeMap<(u32, Vec<u8>), Vec<i64>>,
    pub exiting: bool,
    /// Faults inside ERROR clauses.
    pub error_in_error_probe: u64,
    /// `speculation()` calls that found no free speculation.
    pub speculation_unavailable: u64,
}

/// The enabled probes of a test program: statement `i` has EPID `i + 1` and fires on
/// [`PROBE`], except ERROR statements.
pub fn enabled_probes(program: &CompiledProgram) -> Vec<EnabledProbe> {
    program
        .statements
        .iter()
        .enumerate()
        .map(|(index, statement)| {
            let error = statement.probe.name == "ERROR";
            EnabledProbe {
                epid: index as u32 + 1,
                probe_id: if error { PROBE_ID_ERROR } else { PROBE },
                probe: statement.probe.clone(),
                statement: index,
            }
        })
        .collect()
}

fn thread_context(arguments: &[u64], user_memory: &[(u64, Vec<u8>)]) -> SimpleFiringContext {
    let comm = std::fs::read_to_string("/proc/thread-self/comm").unwrap_or_default();
    // SAFETY: these calls have no preconditions.
    let (pid, tid, ppid, uid, gid) = unsafe {
        (
            libc::getpid() as u64,
            libc::gettid() as u64,
            libc::getppid() as u64,
            libc::getuid() as u64,
            libc::getgid() as u64,
        )
    };
    SimpleFiringContext {
        cpu: 0,
        arguments: arguments.to_vec(),
        pid,
        tid,
        ppid,
        uid,
        gid,
        execname: comm.trim_end_matches('\n').to_string(),
        user_memory: user_memory.to_vec(),
        ..SimpleFiringContext::default()
    }
}

/// The options both engines use.
pub fn options() -> LayoutOptions {
    LayoutOptions {
        cpu_count: possible_cpu_count().unwrap_or(1) as u32,
        scratch_size: 4096,
        speculation_count: 2,
        speculation_size: 4096,
        task_offsets: TaskStructOffsets::from_running_kernel().ok(),
        ..LayoutOptions::default()
    }
}

/// Runs `program` on the reference engine, firing [`PROBE`] once per argument list.
pub fn run_reference(
    program: &CompiledProgram,
    firings: &[Vec<u64>],
    layout: &LayoutOptions,
    user_memory: &[(u64, Vec<u8>)],
) -> Outcome {
    let engine_options = EngineOptions {
        strsize: layout.strsize,
        scratch_size: layout.scratch_size,
        speculation_count: layout.speculation_count,
        speculation_size: layout.speculation_size as u64,
        ..EngineOptions::default()
    };
    let mut engine = Engine::new(program.clone(), enabled_probes(program), engine_options)
        .expect("engine accepts the program");
    for arguments in firings {
        engine.fire(PROBE, &thread_context(arguments, user_memory));
    }
    let buffer = engine.take_buffer(0);
    let drops = engine.drops();
    let mut outcome = Outcome {
        records: split_records(program, &[buffer]),
        exiting: engine.is_draining(),
        error_in_error_probe: drops.error_in_error_probe,
        speculation_unavailable: drops.speculation_unavailable,
        ..Outcome::default()
    };
    for entry in engine
        .aggregation_snapshot_per_cpu()
        .remove(&0)
        .unwrap_or_default()
    {
        outcome
            .aggregations
            .insert((entry.aggregation, entry.key), entry.value);
    }
    outcome
}

/// Splits buffers (or perf samples) into records using the statements' record sizes.
pub fn split_records(program: &CompiledProgram, chunks: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let enabled = enabled_probes(program);
    let mut records = Vec::new();
    for chunk in chunks {
        let mut at = 0usize;
        while at + RECORD_HEADER_SIZE as usize <= chunk.len() {
            let epid = u32::from_le_bytes(chunk[at..at + 4].try_into().unwrap());
            let Some(probe) = enabled.iter().find(|probe| probe.epid == epid) else {
                break;
            };
            let length = RECORD_HEADER_SIZE as usize
                + program.statements[probe.statement].record_size as usize;
            if at + length > chunk.len() {
                break;
            }
            records.push(chunk[at..at + length].to_vec());
            at += length;
        }
    }
    records
}

/// The kernel side of a test: maps, program, buffers.
pub struct KernelRun {
    pub layout: ProgramLayout,
    pub maps: Vec<MapFd>,
    pub buffers: PerfBufferSet,
    pub program: kernel_shim::sys::ProgFd,
    pub instructions: Vec<kernel_shim::ebpf::Insn>,
}

/// Translates and loads `program` (panicking with the verifier log on failure).
pub fn load_kernel(program: &CompiledProgram, options: &LayoutOptions) -> KernelRun {
    load_kernel_with(
        program,
        options,
        &ContextKind::RawTracepoint {
            argument_count: 10,
            subject_task_argument: None,
        },
    )
}

/// [`load_kernel`] for a probe of another kind.
pub fn load_kernel_with(
    program: &CompiledProgram,
    options: &LayoutOptions,
    context: &ContextKind,
) -> KernelRun {
    load_kernel_logged(program, options, context, 0)
}

/// [`load_kernel_with`], asking the kernel for its verifier log at `log_level` (the
/// loaded program keeps it).
pub fn load_kernel_logged(
    program: &CompiledProgram,
    options: &LayoutOptions,
    context: &ContextKind,
    log_level: u32,
) -> KernelRun {
    let verified = verify_program(program).expect("the verifier accepts the program");
    let layout = ProgramLayout::for_program(&verified, options).expect("layout");
    let mut maps = Vec::new();
    let mut buffers = None;
    for spec in layout.map_specs() {
        let map = bpf_map_create(
            spec.map_type,
            spec.key_size,
            spec.value_size,
            spec.max_entries,
            spec.flags,
            spec.name,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        if spec.name == "dtrace_buffers" {
            let fd = map.raw_fd();
            buffers = Some((fd, map));
            continue;
        }
        if spec.name == "dtrace_consts" {
            map.update(&0u32.to_ne_bytes(), layout.constants_image(), BPF_ANY)
                .expect("constants");
        }
        maps.push(map);
    }
    let fd_of = |name: &str| {
        maps.iter()
            .find(|map| map.definition().name == name)
            .map(|map| map.raw_fd())
    };
    let (principal_fd, principal) = buffers.expect("principal map");
    // The map of where functions were left, as the runtime makes it for return probes
    // that record their exits (the loaded program keeps it).
    let exit_recorder = ReturnExitRecorder::new().expect("the return exit recorder");
    let fds = MapFds {
        state: fd_of("dtrace_state").unwrap(),
        globals: fd_of("dtrace_globals").unwrap(),
        constants: fd_of("dtrace_consts").unwrap(),
        counters: fd_of("dtrace_counters").unwrap(),
        principal: principal_fd,
        dynamic: fd_of("dtrace_dynvars"),
        aggregations: fd_of("dtrace_aggs"),
        aggregation_generations: fd_of("dtrace_agggen"),
        speculations: fd_of("dtrace_specs"),
        vtimestamps: fd_of("dtrace_vtimes"),
        return_exits: Some(exit_recorder.map_fd()),
    };
    let translated = translate_probe(
        &layout,
        &fds,
        PROBE,
        &enabled_probes(program),
        &verified,
        context,
    )
    .unwrap_or_else(|error| panic!("translation failed: {error}"));
    let instructions = translated.instructions.clone();
    let loaded = translated
        .load(context.program_type(), "dtrace_test", log_level)
        .unwrap_or_else(|error| {
            let _ = std::fs::write("/tmp/dtrace-translate-verifier.log", &error.log);
            let log: Vec<&str> = error.log.lines().collect();
            let tail = log[log.len().saturating_sub(40)..].join("\n");
            panic!(
                "the kernel refused the program: {}\n{tail}\n{}",
                error.error,
                disassemble(&instructions)
            )
        });
    let buffers = PerfBufferSet::open(principal, 1 << 20).expect("perf buffers");
    KernelRun {
        layout,
        maps,
        buffers,
        program: loaded,
        instructions,
    }
}

impl KernelRun {
    fn map(&self, name: &str) -> Option<&MapFd> {
        self.maps.iter().find(|map| map.definition().name == name)
    }

    /// Fires the probe once with `arguments` (up to ten) on CPU 0, from this thread (which
    /// is moved to CPU 0 so that the kernel runs the program in its context).
    pub fn fire(&self, arguments: &[u64]) {
        pin_to_cpu_zero();
        let mut context = [0u8; 80];
        for (index, argument) in arguments.iter().take(10).enumerate() {
            context[index * 8..index * 8 + 8].copy_from_slice(&argument.to_ne_bytes());
        }
        self.program
            .test_run(&TestRunRequest {
                context: &context,
                cpu: Some(0),
                ..TestRunRequest::default()
            })
            .expect("test run");
    }

    /// The per-CPU counters summed.
    pub fn counters(&self) -> [u64; COUNTER_COUNT] {
        let mut totals = [0u64; COUNTER_COUNT];
        let map = self.map("dtrace_counters").unwrap();
        if let Some(values) = map.lookup_per_cpu(&0u32.to_ne_bytes()).unwrap() {
            for value in values {
                for (index, total) in totals.iter_mut().enumerate() {
                    *total +=
                        u64::from_ne_bytes(value[index * 8..index * 8 + 8].try_into().unwrap());
                }
            }
        }
        totals
    }

    /// Attaches the program to raw tracepoint `name` for as long as the link lives.
    pub fn attach_raw_tracepoint(&self, name: &str) -> kernel_shim::sys::LinkFd {
        kernel_shim::sys::bpf_raw_tracepoint_open(name, &self.program)
            .unwrap_or_else(|error| panic!("{error}"))
    }

    /// Everything the kernel produced so far.
    pub fn outcome(&mut self, program: &CompiledProgram) -> Outcome {
        let mut samples = Vec::new();
        self.buffers.drain(&mut |_, event| {
            if let BufferEvent::Sample(bytes) = event {
                samples.push(bytes.to_vec());
            }
        });
        let counters = self.counters();
        let mut outcome = Outcome {
            records: split_records(program, &samples),
            error_in_error_probe: counters[COUNTER_ERROR_IN_ERROR_PROBE],
            speculation_unavailable: counters[COUNTER_SPECULATION_UNAVAILABLE],
            ..Outcome::default()
        };
        if let Some(map) = self.map("dtrace_aggs") {
            let aggregation = self.layout.aggregation.unwrap();
            for key in map.keys().unwrap() {
                let id = u32::from_le_bytes(key[..4].try_into().unwrap());
                let description = program.aggregations.iter().find(|a| a.id == id).unwrap();
                let rule = &self.layout.aggregation_rules[&id];
                let values = map.lookup_per_cpu(&key).unwrap().unwrap();
                let cpu0 = &values[0];
                let hits = u64::from_le_bytes(cpu0[..8].try_into().unwrap());
                if hits == 0 {
                    continue;
                }
                let words = (0..rule.word_count())
                    .map(|index| {
                        let at = AGGREGATION_WORDS_OFFSET as usize + index * 8;
                        i64::from_le_bytes(cpu0[at..at + 8].try_into().unwrap())
                    })
                    .collect();
                let key_bytes = key[8..8 + description.key_size as usize].to_vec();
                let _ = aggregation;
                outcome.aggregations.insert((id, key_bytes), words);
            }
        }
        let globals = self.map("dtrace_globals").unwrap();
        let value = globals.lookup(&0u32.to_ne_bytes()).unwrap().unwrap();
        outcome.exiting = value[..8] != [0; 8];
        outcome
    }
}

/// Runs `program` on both engines with the same firings and asserts they agree; returns
/// the kernel's outcome.
pub fn check(program: &CompiledProgram, firings: &[Vec<u64>]) -> Outcome {
    check_with(program, firings, &options())
}

/// [`check`] with other options.
pub fn check_with(
    program: &CompiledProgram,
    firings: &[Vec<u64>],
    options: &LayoutOptions,
) -> Outcome {
    check_with_user_memory(program, firings, options, &[])
}

/// [`check_with`] where the reference engine's user memory holds `user_memory` (the
/// kernel reads the same bytes from this process).
pub fn check_with_user_memory(
    program: &CompiledProgram,
    firings: &[Vec<u64>],
    options: &LayoutOptions,
    user_memory: &[(u64, Vec<u8>)],
) -> Outcome {
    let reference = run_reference(program, firings, options, user_memory);
    assert!(
        !reference.records.is_empty() || !reference.aggregations.is_empty(),
        "the test program produced nothing to compare"
    );
    if std::env::var_os("DTRACE_TRANSLATE_DEBUG").is_some() {
        eprintln!("reference: {reference:02x?}");
    }
    let mut kernel = load_kernel(program, options);
    for arguments in firings {
        kernel.fire(arguments);
    }
    let outcome = kernel.outcome(program);
    assert_eq!(
        outcome.records.len(),
        reference.records.len(),
        "record count: kernel {:02x?}\nreference {:02x?}",
        outcome.records,
        reference.records
    );
    for (index, (kernel_record, reference_record)) in
        outcome.records.iter().zip(&reference.records).enumerate()
    {
        assert_eq!(kernel_record, reference_record, "record {index}");
    }
    assert_eq!(outcome.aggregations, reference.aggregations, "aggregations");
    assert_eq!(outcome.exiting, reference.exiting, "exit flag");
    assert_eq!(
        outcome.error_in_error_probe, reference.error_in_error_probe,
        "faults in ERROR clauses"
    );
    assert_eq!(
        outcome.speculation_unavailable, reference.speculation_unavailable,
        "failed speculation() calls"
    );
    outcome
}

/// Compiles a D program whose clauses name the test probe `test:mod:func:fire` (id
/// [`PROBE`]), with a default ERROR handler as `dtrace` has.
pub fn compile_d(text: &str) -> CompiledProgram {
    let catalog = ListCatalog::with_dtrace_provider(vec![ProbeInfo {
        id: PROBE,
        description: ProbeDescription {
            provider: "test".into(),
            module: "mod".into(),
            function: "func".into(),
            name: "fire".into(),
        },
        argument_types: Vec::new(),
        derivation: None,
    }]);
    let options = CompileOptions {
        default_error_handler: true,
        ..CompileOptions::default()
    };
    compile(&[ProgramSource::script("test.d", text)], &options, &catalog)
        .unwrap_or_else(|error| panic!("{:?}\n{text}", error.diagnostic))
        .program
}
