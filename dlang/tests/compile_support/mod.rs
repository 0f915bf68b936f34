//! Shared helpers of the compiler's integration tests: compiling D text (checking every
//! compiled program with the DIF verifier), extracting error tags and messages, and
//! running compiled programs on the reference interpreter with decoded records.

#![allow(dead_code)]

use difvm::engine::EngineOptions;
use difvm::interp::{Engine, SimpleFiringContext};
use difvm::object::{CompiledProgram, EnabledProbe, ValueLayout, RECORD_HEADER_SIZE};
use dlang::compile::{
    compile, Compilation, CompileError, CompileOptions, ProbeSpecifierOption, ProgramSource,
};
use dlang::probes::{ListCatalog, ProbeCatalog, ProbeInfo};

/// Options for tests: no default ERROR statement, so statements are only the user's.
pub fn options() -> CompileOptions {
    CompileOptions {
        default_error_handler: false,
        ..CompileOptions::default()
    }
}

/// A catalog with the dtrace provider plus a few syscall probes with typed arguments.
pub fn catalog() -> ListCatalog {
    let probe =
        |id: u32, provider: &str, module: &str, function: &str, name: &str, arguments: &[&str]| {
            ProbeInfo {
                id,
                description: difvm::object::ProbeDescription {
                    provider: provider.to_string(),
                    module: module.to_string(),
                    function: function.to_string(),
                    name: name.to_string(),
                },
                argument_types: arguments
                    .iter()
                    .map(|argument| argument.to_string())
                    .collect(),
                derivation: None,
            }
        };
    ListCatalog::with_dtrace_provider(vec![
        probe(
            4,
            "syscall",
            "vmlinux",
            "read",
            "entry",
            &["int", "char *", "size_t"],
        ),
        probe(5, "syscall", "vmlinux", "read", "return", &["ssize_t"]),
        probe(
            6,
            "syscall",
            "vmlinux",
            "write",
            "entry",
            &["int", "const char *", "size_t"],
        ),
        probe(7, "syscall", "vmlinux", "write", "return", &["ssize_t"]),
        probe(8, "profile", "", "", "tick-1s", &[]),
        probe(
            9,
            "syscall",
            "vmlinux",
            "chmod",
            "entry",
            &["const char *", "umode_t"],
        ),
    ])
}

/// Compiles a script with `options`, verifying the result.
pub fn compile_with(text: &str, options: &CompileOptions) -> Result<Compilation, CompileError> {
    let programs = [ProgramSource::script("test.d", text)];
    let compilation = compile(&programs, options, &catalog())?;
    verify(&compilation.program);
    Ok(compilation)
}

/// Compiles a script, verifying the result.
pub fn compile_script(text: &str) -> Result<Compilation, CompileError> {
    compile_with(text, &options())
}

/// Compiles a command-line program given with `option`.
pub fn compile_command_line(
    option: ProbeSpecifierOption,
    text: &str,
) -> Result<Compilation, CompileError> {
    let programs = [ProgramSource::command_line(option, text)];
    let compilation = compile(&programs, &options(), &catalog())?;
    verify(&compilation.program);
    Ok(compilation)
}

/// Compiles a script that must succeed.
pub fn compiled(text: &str) -> CompiledProgram {
    match compile_script(text) {
        Ok(compilation) => compilation.program,
        Err(error) => panic!(
            "{text:?} failed: [{}] {}",
            error.diagnostic.tag.name(),
            error.diagnostic.message
        ),
    }
}

/// Runs the DIF verifier over a program and panics with its errors.
pub fn verify(program: &CompiledProgram) {
    if let Err(errors) = difvm::verify::verify_program(program) {
        let listing = dlang::compile::dif_listing(program);
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!(
            "verifier rejected the program:\n{}\n{listing}",
            errors.join("\n")
        );
    }
}

/// The tag and message of the error a script produces.
pub fn error_of(text: &str) -> (String, String) {
    error_with(text, &options())
}

/// The tag and message of the error a script produces with `options`.
pub fn error_with(text: &str, options: &CompileOptions) -> (String, String) {
    match compile_with(text, options) {
        Ok(_) => panic!("{text:?} compiled without error"),
        Err(error) => (
            error.diagnostic.tag.name().to_string(),
            error.diagnostic.message,
        ),
    }
}

/// The enabled probes of a program: each statement on every probe its description
/// matches, EPIDs in statement order.
pub fn enable(program: &CompiledProgram, catalog: &dyn ProbeCatalog) -> Vec<EnabledProbe> {
    difvm::engine::enable_statements(program, |description| {
        catalog
            .matching(description)
            .into_iter()
            .map(|probe| (probe.id, probe.description))
            .collect()
    })
}

/// What a run produced: each record's values rendered as text, the aggregation
/// snapshot, and the exit status.
#[derive(Debug, Default)]
pub struct RunResult {
    pub records: Vec<Vec<String>>,
    pub aggregations: Vec<(u32, Vec<u8>, Vec<i64>)>,
    pub faults: Vec<String>,
    pub exit_status: Option<i64>,
}

impl RunResult {
    /// All recorded values, in order, flattened.
    pub fn values(&self) -> Vec<String> {
        self.records.iter().flatten().cloned().collect()
    }
}

/// Compiles and runs a script: BEGIN fires, then END.
pub fn run(text: &str) -> RunResult {
    run_program(compiled(text))
}

/// Runs a compiled program: BEGIN fires, then END.
pub fn run_program(program: CompiledProgram) -> RunResult {
    let firings = [
        (difvm::object::PROBE_ID_BEGIN, Vec::new()),
        (difvm::object::PROBE_ID_END, Vec::new()),
    ];
    run_firings(program, &firings)
}

/// Compiles a script and fires `probe` (from [`catalog`]) once with `arguments`.
pub fn run_probe(text: &str, probe: u32, arguments: &[u64]) -> RunResult {
    run_firings(compiled(text), &[(probe, arguments.to_vec())])
}

/// Runs a compiled program, firing each probe of `firings` with its arguments.
pub fn run_firings(program: CompiledProgram, firings: &[(u32, Vec<u64>)]) -> RunResult {
    run_firings_in(program, &catalog(), firings)
}

/// Runs a program compiled against `catalog`, firing each probe of `firings` with its
/// arguments.
pub fn run_firings_in(
    program: CompiledProgram,
    catalog: &dyn ProbeCatalog,
    firings: &[(u32, Vec<u64>)],
) -> RunResult {
    let enabled = enable(&program, catalog);
    let mut engine = Engine::new(program.clone(), enabled.clone(), EngineOptions::default())
        .expect("engine accepts program");
    let mut result = RunResult::default();
    for (probe, arguments) in firings {
        let context = SimpleFiringContext {
            pid: 42,
            execname: "dtrace".to_string(),
            arguments: arguments.clone(),
            ..SimpleFiringContext::default()
        };
        let outcome = engine.fire(*probe, &context);
        for fault in outcome.faults {
            result.faults.push(format!("{:?}", fault.fault));
        }
    }
    let buffer = engine.take_buffer(0);
    let mut offset = 0usize;
    while offset + RECORD_HEADER_SIZE as usize <= buffer.len() {
        let epid = u32::from_le_bytes(buffer[offset..offset + 4].try_into().unwrap_or([0; 4]));
        let Some(probe) = enabled.iter().find(|probe| probe.epid == epid) else {
            break;
        };
        let statement = &program.statements[probe.statement];
        let data = &buffer[offset + RECORD_HEADER_SIZE as usize..];
        let mut values = Vec::new();
        for action in &statement.actions {
            if matches!(action.kind, difvm::object::ActionKind::Aggregate { .. }) {
                continue;
            }
            for value in &action.values {
                if let Some(slot) = &value.slot {
                    let bytes = &data[slot.offset as usize..(slot.offset + slot.size) as usize];
                    values.push(render(&slot.layout, bytes));
                }
            }
        }
        result.records.push(values);
        offset += RECORD_HEADER_SIZE as usize + statement.record_size as usize;
    }
    for entry in engine.aggregation_snapshot() {
        result
            .aggregations
            .push((entry.aggregation, entry.key, entry.value));
    }
    result.exit_status = engine.exit_status();
    result
}

/// Renders a recorded value: integers in decimal, strings up to the NUL, other bytes in
/// hex.
pub fn render(layout: &ValueLayout, bytes: &[u8]) -> String {
    match layout {
        ValueLayout::Integer { signed } => {
            let mut word = [0u8; 8];
            word[..bytes.len()].copy_from_slice(bytes);
            let raw = u64::from_le_bytes(word);
            let bits = bytes.len() * 8;
            if *signed && bits < 64 {
                let shift = 64 - bits;
                (((raw << shift) as i64) >> shift).to_string()
            } else if *signed {
                (raw as i64).to_string()
            } else {
                raw.to_string()
            }
        }
        ValueLayout::Pointer => format!(
            "0x{:x}",
            u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
        ),
        ValueLayout::String => {
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            String::from_utf8_lossy(&bytes[..end]).into_owned()
        }
        _ => bytes
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(""),
    }
}
