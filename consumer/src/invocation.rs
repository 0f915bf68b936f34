//! One run of dtrace(1) after its arguments are parsed: options, compilation, probe
//! listing, enabling, the choice of engine and the tracing session, with dtrace(1)'s
//! messages and exit statuses (D-REFERENCE.md §12.2–§12.4).

use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use difvm::engine::is_destructive;
use difvm::object::{CompiledProgram, EnabledProbe};
use difvm::verify::{verify_program, VerifiedProgram};
use dlang::compile::{
    compile_with_kernel_types, dif_listing, Compilation, CompileError, CompileOptions,
    ProbeSpecifierOption, ProgramSource,
};
use dlang::kernel_types::KernelTypes;
use dlang::probes::ProbeCatalog;

use crate::catalog::RegistryCatalog;
use crate::engine::{TracingEngine, VirtualMachineEngine};
use crate::kernel_engine::{check_tracing_privileges, KernelEngine};
use crate::kernel_types::BtfKernelTypes;
use crate::messages::{describe_io_error, MessageSink, StandardStreams};
use crate::options::{DtraceOption, OptionOrigin, OptionSet};
use crate::preprocess::{preprocess, PreprocessorSettings};
use crate::session::Session;
use crate::session_output::{OutputFile, SessionOutput, StandardOutput};
use crate::settings::{command_environment, CompileSettings, EngineChoice, TracingSettings};
use crate::signals::install_interrupt_handlers;
use crate::size_minimums::check_minimum_sizes;
use crate::stability_report::{clause_descriptions, stability_report};
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

/// Runs dtrace as `invocation` asks and returns its exit status; messages go to the
/// standard streams.
pub fn run(invocation: &Invocation) -> i32 {
    run_with_messages(invocation, Rc::new(StandardStreams))
}

/// Runs dtrace as `invocation` asks, with every diagnostic, notice and report written
/// to `messages`, and returns its exit status. (The trace output goes to standard
/// output or the `-o` file.)
pub fn run_with_messages(invocation: &Invocation, messages: Rc<dyn MessageSink>) -> i32 {
    match invocation.mode {
        Mode::Version => {
            messages.report("dtrace: Sun D 1.13\n");
            return 0;
        }
        Mode::GenerateElf | Mode::GenerateHeader => {
            messages.message("-G and -h (USDT provider generation) are not supported yet");
            return EXIT_USAGE;
        }
        Mode::Execute | Mode::List => {}
    }
    if invocation.anonymous {
        messages.message("anonymous tracing (-a, -A) is not supported");
        return EXIT_USAGE;
    }
    let options = match collect_options(invocation) {
        Ok(options) => options,
        // dtrace(1) reports a failed option through its fatal path (dfatal), whose
        // status is 1; only usage errors exit with 2 (D-REFERENCE.md §12.3).
        Err(message) => {
            messages.message(&message);
            return EXIT_FATAL;
        }
    };
    let settings = CompileSettings::from_options(
        &options,
        macro_arguments(invocation),
        invocation.mode == Mode::List,
    );
    let sources = match read_programs(invocation, settings.preprocessor.as_ref(), &*messages) {
        Ok(sources) => sources,
        Err(message) => {
            messages.message(&message);
            return EXIT_FATAL;
        }
    };
    // Under -Z, a pid description naming a library the process has not loaded yet
    // takes its probes from the library's file, to fire once it is loaded (not when
    // listing: -l lists the probes that exist).
    let catalog = RegistryCatalog::for_this_machine().deferring_unloaded_objects(
        options.boolean(DtraceOption::Zdefs) && invocation.mode != Mode::List,
    );
    // Target processes exist (held at their entry point) before compiling or listing,
    // so `$target` and `pid$target` probes resolve against them.
    let mut targets = TargetProcesses::with_environment(command_environment(&options));
    for target in &invocation.targets {
        let result = match target {
            TargetArgument::Command(command) => targets.create(command),
            TargetArgument::Pid(pid) => targets.grab(pid),
        };
        if let Err(error) = result {
            messages.message(error.message());
            return EXIT_FATAL;
        }
    }
    if invocation.mode == Mode::List {
        return list_probes(
            invocation,
            &sources,
            &settings,
            targets.target_pid(),
            catalog,
            &*messages,
        );
    }
    let run = TracingRun {
        invocation,
        sources: &sources,
        catalog: &catalog,
        messages,
    };
    match run.execute(options, &settings, &mut targets) {
        Ok(status) | Err(status) => status,
    }
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

/// `$0`, `$1`, …: the first script's path (`dtrace` without one), then the operands.
fn macro_arguments(invocation: &Invocation) -> Vec<String> {
    let program_name = invocation
        .programs
        .iter()
        .find(|program| program.kind == ProgramKind::Script)
        .map(|program| program.text.clone())
        .unwrap_or_else(|| "dtrace".to_string());
    std::iter::once(program_name)
        .chain(invocation.operands.iter().cloned())
        .collect()
}

/// The program texts: script files read (and run through cpp as `preprocessor` says,
/// with `-C`), command-line specifiers as given. cpp's own messages go to `messages`.
fn read_programs(
    invocation: &Invocation,
    preprocessor: Option<&PreprocessorSettings>,
    messages: &dyn MessageSink,
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
                if let Some(settings) = preprocessor {
                    let mut diagnostics = Vec::new();
                    let preprocessed = preprocess(
                        &text,
                        Some(Path::new(&program.text)),
                        settings,
                        &mut diagnostics,
                    );
                    if !diagnostics.is_empty() {
                        messages.diagnostic_text(&String::from_utf8_lossy(&diagnostics));
                    }
                    text = preprocessed.map_err(|error| {
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

/// Compiles `sources` with this machine's probes and kernel types (the kernel's BTF is
/// read only if a program names a kernel type).
fn compile_programs(
    sources: &[ProgramSource],
    options: &CompileOptions,
    catalog: &RegistryCatalog,
) -> Result<Compilation, CompileError> {
    let kernel_types: Arc<dyn KernelTypes> = Arc::new(BtfKernelTypes::default());
    compile_with_kernel_types(sources, options, catalog, Some(kernel_types))
}

/// `dtrace -l`: lists the probes every description matches (all probes without any);
/// `target_pid` is `$target` when there is a `-c`/`-p` process.
fn list_probes(
    invocation: &Invocation,
    sources: &[ProgramSource],
    settings: &CompileSettings,
    target_pid: Option<u32>,
    catalog: RegistryCatalog,
    messages: &dyn MessageSink,
) -> i32 {
    let mut descriptions = Vec::new();
    if !sources.is_empty() {
        let compilation =
            match compile_programs(sources, &settings.for_target(target_pid), &catalog) {
                Ok(compilation) => compilation,
                Err(error) => {
                    messages.diagnostic_text(&format!(
                        "{}\n",
                        error.message("dtrace", sources, settings.error_tags)
                    ));
                    return EXIT_FATAL;
                }
            };
        for statement in &compilation.program.statements {
            if catalog.matching(&statement.probe).is_empty() {
                messages.message(&format!(
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
            messages.report(&crate::probe_listing::format_listing(
                &probes,
                invocation.verbose,
            ));
            0
        }
        Err(error) => {
            messages.message(&format!("failed to list probes: {error}"));
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

/// The result of a stage of a tracing run: its output, or the exit status to leave
/// with, the reason already reported.
type Stage<T> = Result<T, i32>;

/// A compiled program, verified, with the options in effect after its pragmas and the
/// settings derived from them.
struct CompiledRun {
    program: CompiledProgram,
    /// For each program argument: how many probes its descriptions matched.
    matched_probes: Vec<u32>,
    verified: VerifiedProgram,
    options: OptionSet,
    settings: TracingSettings,
}

/// What every stage of a tracing run reads: the invocation, its programs, the probes
/// of this machine and where messages go.
struct TracingRun<'r> {
    invocation: &'r Invocation,
    sources: &'r [ProgramSource],
    catalog: &'r RegistryCatalog,
    messages: Rc<dyn MessageSink>,
}

impl TracingRun<'_> {
    /// Compiles, enables, chooses the engine and runs the session (D-REFERENCE.md
    /// §12.4); `Ok` holds the session's exit status.
    fn execute(
        &self,
        options: OptionSet,
        settings: &CompileSettings,
        targets: &mut TargetProcesses,
    ) -> Stage<i32> {
        if self.sources.is_empty() && self.invocation.compile_only {
            // `dtrace -e` without programs exits once libdtrace is open, which loads
            // the `-L` libraries: only their errors can stop it.
            self.compile(options, settings, targets.target_pid())?;
            return Ok(0);
        }
        if self.sources.is_empty() {
            self.messages.message("no probes specified");
            return Err(EXIT_FATAL);
        }
        let compiled = self.compile(options, settings, targets.target_pid())?;
        // -e stops after compiling: nothing is enabled, so nothing "matched"; -v
        // reports each program and then each clause's probe description.
        if self.invocation.compile_only {
            if self.invocation.verbose {
                let program = &compiled.program;
                let matched = enable_statements(program, self.catalog);
                for source in self.sources {
                    self.messages.report(&stability_report(
                        source,
                        program,
                        &matched,
                        self.catalog,
                    ));
                }
                self.messages
                    .report(&clause_descriptions(program, &matched, self.catalog));
            }
            return Ok(0);
        }
        let enabled_probes = self.enable(&compiled)?;
        let CompiledRun {
            program,
            verified,
            options,
            settings,
            ..
        } = compiled;
        let mut engine = self.choose_engine(verified, &enabled_probes, &settings)?;
        for notice in &settings.rate_notices {
            self.messages.message(notice);
        }
        self.run_session(
            program,
            enabled_probes,
            options,
            &settings,
            &mut *engine,
            targets,
        )
    }

    /// Compiles the programs for the `$target` `target_pid`, applies their pragmas to
    /// `options`, derives the tracing settings, prints the `-S` listing and verifies
    /// the DIF.
    fn compile(
        &self,
        mut options: OptionSet,
        settings: &CompileSettings,
        target_pid: Option<u32>,
    ) -> Stage<CompiledRun> {
        let messages = &*self.messages;
        let compilation =
            compile_programs(self.sources, &settings.for_target(target_pid), self.catalog)
                .map_err(|error| {
                    // Why a provider could not give a probe the program names (a probe
                    // this kernel cannot back) explains the compile error that follows.
                    if let Some(message) = self.catalog.take_error() {
                        messages.message(&message);
                    }
                    messages.diagnostic_text(&format!(
                        "{}\n",
                        error.message("dtrace", self.sources, settings.error_tags)
                    ));
                    EXIT_FATAL
                })?;
        if let Some(message) = self.catalog.take_error() {
            messages.message(&message);
            return Err(EXIT_FATAL);
        }
        for (name, value) in &compilation.program.options {
            options
                .set(name, value.as_deref(), OptionOrigin::Pragma)
                .map_err(|failure| {
                    messages.message(&failure.message());
                    EXIT_FATAL
                })?;
        }
        let tracing_settings = TracingSettings::from_options(&options, target_pid.map(u64::from));
        if tracing_settings.dif_listing {
            messages.diagnostic_text(&dif_listing(&compilation.program));
        }
        let verified = verify_program(&compilation.program).map_err(|errors| {
            for error in errors {
                messages.message(&format!(
                    "DIF verification failed (a compiler bug): {error}"
                ));
            }
            EXIT_FATAL
        })?;
        Ok(CompiledRun {
            program: compilation.program,
            matched_probes: compilation.matched_probes,
            verified,
            options,
            settings: tracing_settings,
        })
    }

    /// Enables every statement on the probes it matched, with the "matched" notices
    /// (and `-v` stability reports), and refuses a run that matched nothing (without
    /// `-Z`) or is destructive (without `-w`).
    fn enable(&self, compiled: &CompiledRun) -> Stage<Vec<EnabledProbe>> {
        let messages = &*self.messages;
        let settings = &compiled.settings;
        let program = &compiled.program;
        let enabled_probes = enable_statements(program, self.catalog);
        // The "matched" notices are notice()s, which quiet suppresses; the -v report
        // is written to standard output whatever quiet says, as dtrace(1) does.
        for (source, matched) in self.sources.iter().zip(&compiled.matched_probes) {
            if !settings.quiet {
                messages.message(&matched_notice(source, *matched));
            }
            if self.invocation.verbose {
                let mut report = stability_report(source, program, &enabled_probes, self.catalog);
                // dtrace(1) ends the report of an enabled program with an empty line.
                report.push('\n');
                messages.report(&report);
            }
        }
        let total_matched: u32 = compiled.matched_probes.iter().sum();
        if total_matched == 0 && !settings.zero_matches_allowed {
            messages.message("no probes matched");
            return Err(EXIT_FATAL);
        }
        if is_destructive(program) {
            if !settings.destructive_allowed {
                messages.message("could not enable tracing: Destructive actions not allowed");
                return Err(EXIT_FATAL);
            }
            if !settings.quiet {
                messages.message("allowing destructive actions");
            }
        }
        if let Err(reason) = check_minimum_sizes(
            program,
            &enabled_probes,
            &settings.engine.options,
            settings.engine.buffer_policy,
        ) {
            messages.message(&format!("could not enable tracing: {reason}"));
            return Err(EXIT_FATAL);
        }
        Ok(enabled_probes)
    }

    /// The engine that runs the enabled probes. `auto` runs the kernel engine when this
    /// process may trace, and falls back to the user-space engine for programs that
    /// only use the dtrace provider and read no kernel memory through kernel types,
    /// which it runs with the same results.
    fn choose_engine(
        &self,
        verified: VerifiedProgram,
        enabled_probes: &[EnabledProbe],
        settings: &TracingSettings,
    ) -> Stage<Box<dyn TracingEngine>> {
        let user_probes_only = enabled_probes
            .iter()
            .all(|enabled| enabled.probe.provider == "dtrace");
        let privileges = check_tracing_privileges();
        let use_kernel = match settings.engine_choice {
            EngineChoice::VirtualMachine => false,
            EngineChoice::Kernel => true,
            EngineChoice::Automatic => {
                privileges.is_ok()
                    || !user_probes_only
                    || verified.program().kernel_type_read.is_some()
            }
        };
        if !use_kernel {
            return self.virtual_machine_engine(verified, enabled_probes, settings);
        }
        if let Err(failure) = privileges {
            self.messages.message(&failure.message);
            return Err(failure.exit_status);
        }
        self.kernel_engine(&verified, enabled_probes, settings)
    }

    /// The user-space engine, which runs only the dtrace provider's probes.
    fn virtual_machine_engine(
        &self,
        verified: VerifiedProgram,
        enabled_probes: &[EnabledProbe],
        settings: &TracingSettings,
    ) -> Stage<Box<dyn TracingEngine>> {
        if let Some(enabled) = enabled_probes
            .iter()
            .find(|enabled| enabled.probe.provider != "dtrace")
        {
            self.messages.message(&format!(
                "could not enable tracing: the vm engine runs only the dtrace provider's probes; {} needs the kernel engine",
                enabled.probe
            ));
            return Err(EXIT_FATAL);
        }
        if let Some(kernel_type) = &verified.program().kernel_type_read {
            self.messages.message(&format!(
                "could not enable tracing: the vm engine cannot read kernel memory; reading {kernel_type} needs the kernel engine"
            ));
            return Err(EXIT_FATAL);
        }
        let engine = VirtualMachineEngine::with_buffer_policy(
            verified,
            enabled_probes.to_vec(),
            settings.engine.options,
            settings.engine.buffer_policy,
        )
        .map_err(|error| {
            self.messages
                .message(&format!("could not enable tracing: {error}"));
            EXIT_FATAL
        })?;
        Ok(Box::new(engine))
    }

    /// The kernel engine, with its resize notices printed unless they are quieted.
    fn kernel_engine(
        &self,
        verified: &VerifiedProgram,
        enabled_probes: &[EnabledProbe],
        settings: &TracingSettings,
    ) -> Stage<Box<dyn TracingEngine>> {
        let probes = self
            .catalog
            .probe_entries(enabled_probes.iter().map(|enabled| enabled.probe_id));
        let mut engine = KernelEngine::with_runtime_options(
            verified,
            enabled_probes,
            &probes,
            &settings.engine.runtime_options(),
        )
        .map_err(|error| {
            self.messages
                .message(&format!("could not enable tracing: {error}"));
            EXIT_FATAL
        })?;
        engine.set_message_sink(Rc::clone(&self.messages));
        if settings.manual_resize && !engine.resize_notices().is_empty() {
            // DTrace's kernel refuses the buffers it cannot allocate whole under
            // `bufresize=manual` (ENOMEM) rather than halving them.
            self.messages
                .message("could not enable tracing: Cannot allocate memory");
            return Err(EXIT_FATAL);
        }
        if settings.resize_notices {
            for notice in engine.resize_notices() {
                self.messages.message(&notice);
            }
        }
        Ok(Box::new(engine))
    }

    /// Runs the tracing session on `engine`, printing to standard output or the `-o`
    /// file, and returns its exit status.
    fn run_session(
        &self,
        program: CompiledProgram,
        enabled_probes: Vec<EnabledProbe>,
        options: OptionSet,
        settings: &TracingSettings,
        engine: &mut dyn TracingEngine,
        targets: &mut TargetProcesses,
    ) -> Stage<i32> {
        let mut output: Box<dyn SessionOutput> = match &self.invocation.output_file {
            Some(path) => match OutputFile::open_for_appending(path) {
                Ok(file) => Box::new(file),
                Err(error) => {
                    self.messages.message(&format!(
                        "failed to open output file '{path}': {}",
                        describe_io_error(&error)
                    ));
                    return Err(EXIT_FATAL);
                }
            },
            None => Box::new(StandardOutput::new()),
        };
        install_interrupt_handlers();
        let symbols = SystemSymbols::new(SystemSymbolOptions {
            noresolve: settings.no_symbol_resolution,
            ..SystemSymbolOptions::new(settings.session.target_pid)
        });
        let mut session = Session::with_symbol_resolver(
            program,
            enabled_probes,
            settings.session.clone(),
            &mut *output,
            Rc::new(symbols),
        );
        session.set_message_sink(Rc::clone(&self.messages));
        session.set_options(options);
        let mut watch = TargetExitReporter {
            targets,
            quiet: settings.quiet,
        };
        session
            .run(engine, &mut watch)
            .map(|outcome| outcome.exit_status)
            .map_err(|message| {
                self.messages.message(&message);
                EXIT_FATAL
            })
    }
}
