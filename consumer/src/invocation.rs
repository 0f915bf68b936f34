//! One run of dtrace(1) after its arguments are parsed: options, compilation, probe
//! listing, enabling, the choice of engine and the tracing session, with dtrace(1)'s
//! messages and exit statuses (D-REFERENCE.md §12.2–§12.4).

use std::io::Write;
use std::path::Path;
use std::rc::Rc;

use difvm::engine::{is_destructive, BufferPolicy, EngineOptions};
use difvm::object::{CompiledProgram, EnabledProbe};
use difvm::verify::verify_program;
use dlang::compile::{compile, dif_listing, CompileOptions, ProbeSpecifierOption, ProgramSource};
use dlang::probes::ProbeCatalog;

use crate::catalog::RegistryCatalog;
use crate::engine::{TracingEngine, VirtualMachineEngine};
use crate::kernel_engine::{check_tracing_privileges, KernelEngine};
use crate::messages::describe_io_error;
use crate::options::{DtraceOption, OptionOrigin, OptionSet};
use crate::preprocess::{preprocess, PreprocessorSettings};
use crate::session::{Session, SessionSettings};
use crate::session_output::{OutputFile, SessionOutput, StandardOutput};
use crate::signals::install_interrupt_handlers;
use crate::symbolize::{SystemSymbolOptions, SystemSymbols};
use crate::target_process::{TargetExitReporter, TargetProcesses};

/// Exit status of a fatal error (compile failure, no probes, unreadable file).
pub const EXIT_FATAL: i32 = 1;
/// Exit status of a usage error (bad option, conflicting modes).
pub const EXIT_USAGE: i32 = 2;

/// What kind of program text a command-line argument supplies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramKind {
    /// `-s file`.
    Script,
    /// `-n spec`.
    Name,
    /// `-P spec`.
    Provider,
    /// `-m spec`.
    Module,
    /// `-f spec`.
    Function,
    /// `-i spec`.
    ProbeId,
}

/// One program argument, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramArgument {
    pub kind: ProgramKind,
    /// The script path for `-s`, else the probe specifier text.
    pub text: String,
}

/// One option setting from the command line, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionSetting {
    /// `-x name[=value]`.
    Extended { name: String, value: Option<String> },
    /// A shorthand flag: `-q`, `-b 4m`, `-w`, …
    Shorthand { flag: char, value: Option<String> },
}

/// The mode dtrace runs in (only one of -G -h -l -V).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Execute,
    List,
    Version,
    GenerateElf,
    GenerateHeader,
}

/// A process to trace: `-c command` (created) or `-p pid` (grabbed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetArgument {
    Command(String),
    Pid(String),
}

/// Everything dtrace(1) was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub mode: Mode,
    pub programs: Vec<ProgramArgument>,
    pub options: Vec<OptionSetting>,
    /// Operands after the options: `$1`, `$2`, …
    pub operands: Vec<String>,
    /// `-c` and `-p` processes in command-line order; the first is `$target`.
    pub targets: Vec<TargetArgument>,
    pub output_file: Option<String>,
    pub compile_only: bool,
    pub verbose: bool,
    pub anonymous: bool,
}

/// Prints `dtrace: MESSAGE` on stderr.
fn complain(message: &str) {
    let _ = std::io::stdout().flush();
    eprintln!("dtrace: {message}");
}

/// Runs dtrace as `invocation` asks and returns its exit status.
pub fn run(invocation: &Invocation) -> i32 {
    match invocation.mode {
        Mode::Version => {
            println!("dtrace: Sun D 1.13");
            return 0;
        }
        Mode::GenerateElf | Mode::GenerateHeader => {
            complain("-G and -h (USDT provider generation) are not supported yet");
            return EXIT_USAGE;
        }
        Mode::Execute | Mode::List => {}
    }
    if invocation.anonymous {
        complain("anonymous tracing (-a, -A) is not supported");
        return EXIT_USAGE;
    }
    let options = match collect_options(invocation) {
        Ok(options) => options,
        Err(message) => {
            complain(&message);
            return EXIT_USAGE;
        }
    };
    let sources = match read_programs(invocation, &options) {
        Ok(sources) => sources,
        Err(message) => {
            complain(&message);
            return EXIT_FATAL;
        }
    };
    let catalog = RegistryCatalog::for_this_machine();
    if invocation.mode == Mode::List {
        return list_probes(invocation, &sources, &options, catalog);
    }
    // Target processes exist (held before exec) before compiling, so `$target` and
    // `pid$target` probes resolve against them.
    let mut targets = TargetProcesses::new();
    for target in &invocation.targets {
        let result = match target {
            TargetArgument::Command(command) => targets.create(command),
            TargetArgument::Pid(pid) => targets.grab(pid),
        };
        if let Err(error) = result {
            complain(error.message());
            return EXIT_FATAL;
        }
    }
    execute(invocation, &sources, options, &catalog, &mut targets)
}

/// The options in effect before compilation: `DTRACE_OPT_*` variables, then the
/// command line in order.
fn collect_options(invocation: &Invocation) -> Result<OptionSet, String> {
    let mut options = OptionSet::new();
    options
        .apply_environment(std::env::vars())
        .map_err(|failure| failure.message())?;
    for setting in &invocation.options {
        let result = match setting {
            OptionSetting::Extended { name, value } => {
                options.set(name, value.as_deref(), OptionOrigin::CommandLine)
            }
            OptionSetting::Shorthand { flag, value } => {
                options.set_shorthand(*flag, value.as_deref())
            }
        };
        result.map_err(|failure| failure.message())?;
    }
    Ok(options)
}

fn specifier_option(kind: ProgramKind) -> ProbeSpecifierOption {
    match kind {
        ProgramKind::Name | ProgramKind::Script => ProbeSpecifierOption::Name,
        ProgramKind::Provider => ProbeSpecifierOption::Provider,
        ProgramKind::Module => ProbeSpecifierOption::Module,
        ProgramKind::Function => ProbeSpecifierOption::Function,
        ProgramKind::ProbeId => ProbeSpecifierOption::Identifier,
    }
}

/// The program texts: script files read (and run through cpp with `-C`), command-line
/// specifiers as given.
fn read_programs(
    invocation: &Invocation,
    options: &OptionSet,
) -> Result<Vec<ProgramSource>, String> {
    invocation
        .programs
        .iter()
        .map(|program| match program.kind {
            ProgramKind::Script => {
                let bytes = std::fs::read(&program.text).map_err(|error| {
                    format!(
                        "failed to open {}: {}",
                        program.text,
                        describe_io_error(&error)
                    )
                })?;
                let mut text = String::from_utf8_lossy(&bytes).into_owned();
                if options.boolean(DtraceOption::Cpp) {
                    let settings = PreprocessorSettings::from_options(options);
                    text = preprocess(
                        &text,
                        Some(Path::new(&program.text)),
                        &settings,
                        &mut std::io::stderr(),
                    )
                    .map_err(|error| {
                        format!(
                            "failed to compile script {}: {}",
                            program.text,
                            error.message()
                        )
                    })?;
                }
                Ok(ProgramSource::script(&program.text, &text))
            }
            kind => Ok(ProgramSource::command_line(
                specifier_option(kind),
                &program.text,
            )),
        })
        .collect()
}

/// Compile options from the options in effect and the operands.
fn compile_options(
    invocation: &Invocation,
    options: &OptionSet,
    target_pid: Option<u32>,
) -> CompileOptions {
    let mut compile = CompileOptions::default();
    let program_name = invocation
        .programs
        .iter()
        .find(|program| program.kind == ProgramKind::Script)
        .map(|program| program.text.clone())
        .unwrap_or_else(|| "dtrace".to_string());
    compile.macro_arguments = std::iter::once(program_name)
        .chain(invocation.operands.iter().cloned())
        .collect();
    // SAFETY: these calls take no pointers and cannot fail.
    unsafe {
        compile.macro_variables.pid = libc::getpid() as u32;
        compile.macro_variables.ppid = libc::getppid() as u32;
        compile.macro_variables.uid = libc::getuid();
        compile.macro_variables.gid = libc::getgid();
        compile.macro_variables.euid = libc::geteuid();
        compile.macro_variables.egid = libc::getegid();
        compile.macro_variables.pgid = libc::getpgrp() as u32;
        compile.macro_variables.sid = libc::getsid(0) as u32;
    }
    compile.macro_variables.target = target_pid.unwrap_or(0);
    compile.user_process_attached = target_pid.is_some();
    let size = |option| options.size(option).or_else(|| options.integer(option));
    if let Some(strsize) = size(DtraceOption::StrSize) {
        compile.string_size = strsize.clamp(1, u32::MAX as u64) as u32;
    }
    compile.default_arguments = options.boolean(DtraceOption::DefaultArgs);
    compile.argument_references = options.boolean(DtraceOption::ArgRef);
    compile.zero_matches_allowed =
        options.boolean(DtraceOption::Zdefs) || invocation.mode == Mode::List;
    compile.empty_programs_allowed = options.boolean(DtraceOption::Empty);
    compile.system_library = !options.boolean(DtraceOption::NoLibs);
    if let Some(frames) = options.integer(DtraceOption::StackFrames) {
        compile.stack_frames = frames.min(u32::MAX as u64) as u32;
    }
    if let Some(frames) = options.integer(DtraceOption::UstackFrames) {
        compile.user_stack_frames = frames.min(u32::MAX as u64) as u32;
    }
    compile
}

/// `dtrace -l`: lists the probes every description matches (all probes without any).
fn list_probes(
    invocation: &Invocation,
    sources: &[ProgramSource],
    options: &OptionSet,
    catalog: RegistryCatalog,
) -> i32 {
    let mut descriptions = Vec::new();
    if !sources.is_empty() {
        let mut settings = compile_options(invocation, options, None);
        settings.default_error_handler = false;
        settings.argument_references = true;
        let compilation = match compile(sources, &settings, &catalog) {
            Ok(compilation) => compilation,
            Err(error) => {
                eprintln!(
                    "{}",
                    error.message("dtrace", sources, options.boolean(DtraceOption::ErrTags))
                );
                return EXIT_FATAL;
            }
        };
        for statement in &compilation.program.statements {
            if catalog.matching(&statement.probe).is_empty() {
                complain(&format!(
                    "failed to match {}: No probe matches description",
                    statement.probe
                ));
            }
            descriptions.push(statement.probe.clone());
        }
        if descriptions.is_empty() {
            return 0;
        }
    }
    let mut registry = catalog.into_registry();
    match registry.list(&descriptions, invocation.verbose) {
        Ok(probes) => {
            print!(
                "{}",
                crate::probe_listing::format_listing(&probes, invocation.verbose)
            );
            0
        }
        Err(error) => {
            complain(&format!("failed to list probes: {error}"));
            EXIT_FATAL
        }
    }
}

/// The enabled probes of a program: every statement on every probe its description
/// matches, EPIDs given in statement order and then probe id order.
pub fn enable_statements(
    program: &CompiledProgram,
    catalog: &dyn ProbeCatalog,
) -> Vec<EnabledProbe> {
    difvm::engine::enable_statements(program, |description| {
        catalog
            .matching(description)
            .into_iter()
            .map(|probe| (probe.id, probe.description))
            .collect()
    })
}

/// The `-v` report for one program: the minimum stability of the probe descriptions
/// enabled (over all programs of the invocation: statements do not record which program
/// they came from) and of the statements. Statements are made of the D language's own
/// constructs, whose attributes are Stable/Stable/Common.
fn stability_report(
    source: &ProgramSource,
    program: &CompiledProgram,
    enabled_probes: &[EnabledProbe],
    catalog: &RegistryCatalog,
) -> String {
    use providers::attributes::{Attribute, DependencyClass, Stability};
    let statement_attributes = Attribute::new(
        Stability::Stable,
        Stability::Stable,
        DependencyClass::Common,
    );
    let probe_attributes = enabled_probes
        .iter()
        .filter(|enabled| {
            program
                .statements
                .get(enabled.statement)
                .is_some_and(|statement| statement.role == difvm::object::StatementRole::User)
        })
        .filter_map(|enabled| catalog.probe_description_attributes(enabled.probe_id))
        .reduce(Attribute::minimum)
        .unwrap_or(statement_attributes);
    let (kind, name) = match &source.origin {
        dlang::compile::ProgramOrigin::Script { name } => ("script", name.clone()),
        dlang::compile::ProgramOrigin::CommandLine(_) => ("description", source.text.clone()),
    };
    let mut report = format!("\nStability attributes for {kind} {name}:\n");
    crate::probe_listing::write_attribute(
        &mut report,
        "Minimum Probe Description Attributes",
        probe_attributes,
    );
    crate::probe_listing::write_attribute(
        &mut report,
        "Minimum Statement Attributes",
        statement_attributes,
    );
    report.push('\n');
    report
}

/// The notice dtrace prints for each enabled program.
fn matched_notice(source: &ProgramSource, matched: u32) -> String {
    let plural = if matched == 1 { "" } else { "s" };
    match &source.origin {
        dlang::compile::ProgramOrigin::Script { name } => {
            format!("script '{name}' matched {matched} probe{plural}")
        }
        dlang::compile::ProgramOrigin::CommandLine(_) => {
            let end = source
                .text
                .find(['{', '/', ';'])
                .unwrap_or(source.text.len());
            format!(
                "description '{}' matched {matched} probe{plural}",
                &source.text[..end]
            )
        }
    }
}

fn execute(
    invocation: &Invocation,
    sources: &[ProgramSource],
    mut options: OptionSet,
    catalog: &RegistryCatalog,
    targets: &mut TargetProcesses,
) -> i32 {
    if sources.is_empty() {
        complain("no probes specified");
        return EXIT_FATAL;
    }
    let errtags = options.boolean(DtraceOption::ErrTags);
    let compile_settings = compile_options(invocation, &options, targets.target_pid());
    let compilation = match compile(sources, &compile_settings, catalog) {
        Ok(compilation) => compilation,
        Err(error) => {
            let _ = std::io::stdout().flush();
            eprintln!("{}", error.message("dtrace", sources, errtags));
            return EXIT_FATAL;
        }
    };
    if let Some(message) = catalog.take_error() {
        complain(&message);
        return EXIT_FATAL;
    }
    for (name, value) in &compilation.program.options {
        if let Err(failure) = options.set(name, value.as_deref(), OptionOrigin::Pragma) {
            complain(&failure.message());
            return EXIT_FATAL;
        }
    }
    if options.boolean(DtraceOption::Verbose) {
        eprint!("{}", dif_listing(&compilation.program));
    }
    let verified = match verify_program(&compilation.program) {
        Ok(verified) => verified,
        Err(errors) => {
            for error in errors {
                complain(&format!(
                    "DIF verification failed (a compiler bug): {error}"
                ));
            }
            return EXIT_FATAL;
        }
    };
    // -e stops after compiling: nothing is enabled, so nothing "matched".
    if invocation.compile_only {
        return 0;
    }
    let quiet = options.boolean(DtraceOption::Quiet);
    let enabled_probes = enable_statements(&compilation.program, catalog);
    if !quiet {
        for (source, matched) in sources.iter().zip(&compilation.matched_probes) {
            complain(&matched_notice(source, *matched));
            if invocation.verbose {
                print!(
                    "{}",
                    stability_report(source, &compilation.program, &enabled_probes, catalog)
                );
            }
        }
    }
    let total_matched: u32 = compilation.matched_probes.iter().sum();
    if total_matched == 0 && !options.boolean(DtraceOption::Zdefs) {
        complain("no probes matched");
        return EXIT_FATAL;
    }
    if is_destructive(&compilation.program) {
        if !options.boolean(DtraceOption::Destructive) {
            complain("could not enable tracing: Destructive actions not allowed");
            return EXIT_FATAL;
        }
        if !quiet {
            complain("allowing destructive actions");
        }
    }
    let user_probes_only = enabled_probes
        .iter()
        .all(|enabled| enabled.probe.provider == "dtrace");
    let engine_options = engine_options(&options);
    // The option's values are checked when it is set, so the default only covers a
    // word this build does not know.
    let buffer_policy = options
        .word(DtraceOption::BufPolicy)
        .and_then(BufferPolicy::from_option_word)
        .unwrap_or_default();
    let program = compilation.program.clone();
    // `auto` runs the kernel engine when this process may trace, and falls back to the
    // user-space engine for programs that only use the dtrace provider, which it runs
    // with the same results.
    let privileges = check_tracing_privileges();
    let use_kernel = match options.word(DtraceOption::Engine).unwrap_or("auto") {
        "vm" => false,
        "kernel" => true,
        _ => privileges.is_ok() || !user_probes_only,
    };
    if !use_kernel {
        if !user_probes_only {
            let probe = enabled_probes
                .iter()
                .find(|enabled| enabled.probe.provider != "dtrace")
                .map(|enabled| enabled.probe.to_string())
                .unwrap_or_default();
            complain(&format!(
                "could not enable tracing: the vm engine runs only the dtrace provider's probes; {probe} needs the kernel engine"
            ));
            return EXIT_FATAL;
        }
        let mut engine = match VirtualMachineEngine::with_buffer_policy(
            verified,
            enabled_probes.clone(),
            engine_options,
            buffer_policy,
        ) {
            Ok(engine) => engine,
            Err(error) => {
                complain(&format!("could not enable tracing: {error}"));
                return EXIT_FATAL;
            }
        };
        return run_session(
            invocation,
            program,
            enabled_probes,
            &options,
            &mut engine,
            targets,
        );
    }
    if let Err(failure) = privileges {
        complain(&failure.message);
        return failure.exit_status;
    }
    let probes = catalog.probe_entries(enabled_probes.iter().map(|enabled| enabled.probe_id));
    let debug = options.boolean(DtraceOption::Debug);
    let mut engine = match KernelEngine::with_buffer_policy(
        &verified,
        &enabled_probes,
        &probes,
        &engine_options,
        debug,
        buffer_policy,
    ) {
        Ok(engine) => engine,
        Err(error) => {
            complain(&format!("could not enable tracing: {error}"));
            return EXIT_FATAL;
        }
    };
    if !options.boolean(DtraceOption::QuietResize) && !options.boolean(DtraceOption::Quiet) {
        for notice in engine.resize_notices() {
            complain(&notice);
        }
    }
    run_session(
        invocation,
        program,
        enabled_probes,
        &options,
        &mut engine,
        targets,
    )
}

/// The interpreter's sizes and limits from the options in effect.
fn engine_options(options: &OptionSet) -> EngineOptions {
    let mut engine = EngineOptions::default();
    let size = |option| options.size(option).or_else(|| options.integer(option));
    if let Some(strsize) = size(DtraceOption::StrSize) {
        engine.strsize = strsize.clamp(1, u32::MAX as u64) as u32;
    }
    if let Some(bufsize) = size(DtraceOption::BufSize) {
        engine.buffer_size = bufsize;
    }
    if let Some(aggsize) = size(DtraceOption::AggSize) {
        engine.aggregation_size = aggsize;
    }
    if let Some(dynvarsize) = size(DtraceOption::DynVarSize) {
        engine.dynamic_variable_size = dynvarsize;
    }
    if let Some(nspec) = options.integer(DtraceOption::Nspec) {
        engine.speculation_count = nspec.min(u32::MAX as u64) as u32;
    }
    if let Some(specsize) = size(DtraceOption::SpecSize) {
        engine.speculation_size = specsize;
    }
    engine
}

fn run_session(
    invocation: &Invocation,
    program: CompiledProgram,
    enabled_probes: Vec<EnabledProbe>,
    options: &OptionSet,
    engine: &mut dyn TracingEngine,
    targets: &mut TargetProcesses,
) -> i32 {
    let mut output: Box<dyn SessionOutput> = match &invocation.output_file {
        Some(path) => match OutputFile::open_for_appending(path) {
            Ok(file) => Box::new(file),
            Err(error) => {
                complain(&format!(
                    "failed to open output file '{path}': {}",
                    describe_io_error(&error)
                ));
                return EXIT_FATAL;
            }
        },
        None => Box::new(StandardOutput::new()),
    };
    let settings = SessionSettings::from_options(options, targets.target_pid().map(u64::from));
    install_interrupt_handlers();
    let symbols = SystemSymbols::new(SystemSymbolOptions {
        noresolve: options.boolean(DtraceOption::NoResolve),
        ..SystemSymbolOptions::new(settings.target_pid)
    });
    let mut session = Session::with_symbol_resolver(
        program,
        enabled_probes,
        settings,
        &mut *output,
        Rc::new(symbols),
    );
    session.set_options(options.clone());
    let quiet = options.boolean(DtraceOption::Quiet);
    let mut watch = TargetExitReporter { targets, quiet };
    match session.run(engine, &mut watch) {
        Ok(outcome) => outcome.exit_status,
        Err(message) => {
            complain(&message);
            EXIT_FATAL
        }
    }
}
