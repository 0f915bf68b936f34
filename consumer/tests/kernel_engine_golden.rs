//! Engine agreement on the golden corpus: every `tests/golden/*.d` program whose options
//! are at most `-q` and that compiles runs on the vm engine and on the kernel engine in
//! the consumer's session, and both must print the same output and exit status. Programs
//! the kernel engine cannot run yet are listed, and the test fails only on disagreement.

use std::time::Duration;

use consumer::aggregation_output::AggregationSortOptions;
use consumer::catalog::RegistryCatalog;
use consumer::engine::{TracingEngine, VirtualMachineEngine};
use consumer::invocation::enable_statements;
use consumer::kernel_engine::{check_tracing_privileges, KernelEngine};
use consumer::session::{NoTargets, Session, SessionSettings};
use consumer::trace_output::TraceOutputOptions;
use difvm::interp::engine::EngineOptions;
use difvm::object::{CompiledProgram, EnabledProbe};
use difvm::verify::verify_program;
use dlang::compile::{compile, CompileOptions, ProgramSource};

fn settings(quiet: bool) -> SessionSettings {
    SessionSettings {
        trace: TraceOutputOptions {
            quiet,
            flowindent: false,
            stack_indent: 14,
            raw_bytes: false,
        },
        sort: AggregationSortOptions {
            sort_by_key: false,
            reverse: false,
            key_position: 0,
            aggregation_position: 0,
        },
        droptags: false,
        switch_interval: Duration::from_millis(10),
        target_pid: None,
    }
}

fn run(
    program: &CompiledProgram,
    enabled: &[EnabledProbe],
    engine: &mut dyn TracingEngine,
    quiet: bool,
) -> Result<(String, i32), String> {
    let mut output = Vec::new();
    let status = Session::new(
        program.clone(),
        enabled.to_vec(),
        settings(quiet),
        &mut output,
    )
    .run(engine, &mut NoTargets)?
    .exit_status;
    Ok((String::from_utf8_lossy(&output).into_owned(), status))
}

#[test]
fn golden_programs_print_the_same_on_both_engines() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || check_tracing_privileges().is_err() {
        eprintln!("skipping golden engine agreement: tracing is not permitted here");
        return;
    }
    // BEGIN and END report the CPU they fired on: keep it the same for both engines.
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(0, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let mut paths: Vec<_> = std::fs::read_dir(&directory)
        .expect("golden directory")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "d"))
        .collect();
    paths.sort();
    let mut agreed = 0;
    let mut unsupported = Vec::new();
    let mut disagreements = Vec::new();
    for path in paths {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).expect("program");
        let first = source.lines().next().unwrap_or_default().trim().to_string();
        let quiet = match first.as_str() {
            "/* options: -q */" => true,
            "/* options: */" => false,
            _ if !first.starts_with("/* options:") => false,
            _ => continue,
        };
        let catalog = RegistryCatalog::for_this_machine();
        let options = CompileOptions {
            default_error_handler: true,
            ..CompileOptions::default()
        };
        let Ok(compilation) = compile(&[ProgramSource::script(&name, &source)], &options, &catalog)
        else {
            continue;
        };
        let program = compilation.program;
        let Ok(verified) = verify_program(&program) else {
            continue;
        };
        let enabled = enable_statements(&program, &catalog);
        if enabled.iter().any(|probe| probe.probe.provider != "dtrace") {
            continue;
        }
        let registry = catalog.into_registry();
        let entries: Vec<_> = enabled
            .iter()
            .filter_map(|probe| registry.probe(probe.probe_id).cloned())
            .collect();
        let engine_options = EngineOptions::default();
        let Ok(mut vm) =
            VirtualMachineEngine::new(verified.clone(), enabled.clone(), engine_options)
        else {
            continue;
        };
        let Ok(expected) = run(&program, &enabled, &mut vm, quiet) else {
            continue;
        };
        let mut kernel =
            match KernelEngine::new(&verified, &enabled, &entries, &engine_options, false) {
                Ok(kernel) => kernel,
                Err(error) => {
                    unsupported.push(format!("{name}: {}", error.lines().next().unwrap_or("")));
                    continue;
                }
            };
        match run(&program, &enabled, &mut kernel, quiet) {
            Ok(actual) if actual == expected => agreed += 1,
            Ok(actual) => disagreements.push(format!(
                "{name}:\n--- vm ---\n{}\n(status {})\n--- kernel ---\n{}\n(status {})",
                expected.0, expected.1, actual.0, actual.1
            )),
            Err(error) => disagreements.push(format!("{name}: {error}")),
        }
    }
    eprintln!("{agreed} golden programs agree on both engines");
    assert!(
        unsupported.is_empty(),
        "the kernel engine refused {} programs the vm engine runs:\n{}",
        unsupported.len(),
        unsupported.join("\n")
    );
    assert!(
        disagreements.is_empty(),
        "{} programs disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n\n")
    );
}
