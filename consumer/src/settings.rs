//! The one derivation of settings from the options in effect (D-REFERENCE.md §11):
//! every stage of a run takes its part from the typed values made here, and no other
//! module reads the option set's values.
//!
//! The options are final for a stage at two moments, so there are two derivations:
//! [`CompileSettings`] before compilation (the preprocessor and the compiler), and
//! [`TracingSettings`] once the program's `#pragma D option` lines are applied
//! (enabling, the choice of engine, the engines' sizes and the session). A running
//! session follows `setopt()` by deriving its [`SessionSettings`] again, with
//! [`SessionSettings::from_options`], [`aggregation_interval`] and
//! [`per_cpu_aggregations`].

use std::time::Duration;

use difvm::engine::{BufferPolicy, EngineOptions};
use dlang::compile::{CompileOptions, MacroVariables};
use kernel_shim::map_layout::LayoutOptions;
use kernel_shim::runtime::RuntimeOptions;

use crate::command_environment::CommandEnvironment;
use crate::options::{check_pragma_option, DtraceOption, OptionSet};
use crate::preprocess::{Conformance, DataModel, PreprocessorArgument, PreprocessorSettings};
use crate::rate_bounds::{bounded_clean_interval, rate_notices};
use crate::render::aggregation_sorting::AggregationSortOptions;
use crate::render::display_options::AggregationDisplayOptions;
use crate::render::histogram::HistogramStyle;
use crate::render::trace::TraceOutputOptions;
use crate::user_libraries::read_library_directories;

/// What the preprocessor and the compiler take from the options in effect before
/// compilation.
#[derive(Debug, Clone)]
pub struct CompileSettings {
    /// How scripts are run through cpp, when they are (`-C`, `cpp`).
    pub preprocessor: Option<PreprocessorSettings>,
    /// The compile options, without a `$target` (see [`CompileSettings::for_target`]).
    pub compile: CompileOptions,
    /// `errtags`: compile errors show their `D_…` tag.
    pub error_tags: bool,
}

impl CompileSettings {
    /// The settings `options` give a compilation whose `$0`, `$1`, … are
    /// `macro_arguments`. `listing` compiles for `dtrace -l`: descriptions may match no
    /// probe, operands need not be referenced, and no default ERROR statement is added.
    pub fn from_options(
        options: &OptionSet,
        macro_arguments: Vec<String>,
        listing: bool,
    ) -> CompileSettings {
        let mut compile = CompileOptions {
            macro_arguments,
            macro_variables: dtrace_process_macro_variables(),
            ..CompileOptions::default()
        };
        if let Some(scratchsize) = size_or_integer(options, DtraceOption::ScratchSize) {
            compile.scratch_size = scratchsize;
        }
        if let Some(strsize) = size_or_integer(options, DtraceOption::StrSize) {
            compile.string_size = strsize.clamp(1, u32::MAX as u64) as u32;
        }
        if let Some(print_size) = size_or_integer(options, DtraceOption::PrintSize) {
            compile.print_size = print_size;
        }
        compile.default_arguments = options.boolean(DtraceOption::DefaultArgs);
        compile.argument_references = options.boolean(DtraceOption::ArgRef) || listing;
        compile.zero_matches_allowed = options.boolean(DtraceOption::Zdefs) || listing;
        compile.empty_programs_allowed = options.boolean(DtraceOption::Empty);
        compile.system_library = !options.boolean(DtraceOption::NoLibs);
        if compile.system_library {
            compile.user_libraries = read_library_directories(options.texts(DtraceOption::LibDir));
        }
        if let Some(frames) = options.integer(DtraceOption::StackFrames) {
            compile.stack_frames = frames.min(u32::MAX as u64) as u32;
        }
        if let Some(frames) = options.integer(DtraceOption::UstackFrames) {
            compile.user_stack_frames = frames.min(u32::MAX as u64) as u32;
        }
        if let Some(frames) = options.integer(DtraceOption::JstackFrames) {
            compile.java_stack_frames = frames.min(u32::MAX as u64) as u32;
        }
        if let Some(size) = size_or_integer(options, DtraceOption::JstackStrSize) {
            compile.java_stack_string_size = size.min(u32::MAX as u64) as u32;
        }
        compile.max_frames = options
            .integer(DtraceOption::MaxFrames)
            .map(|frames| frames.min(u32::MAX as u64) as u32);
        compile.minimum_attributes = options
            .text(DtraceOption::Amin)
            .and_then(difvm::stability::Attribute::parse);
        compile.default_error_handler = !listing;
        compile.option_check = Some(check_pragma_option);
        CompileSettings {
            preprocessor: options
                .boolean(DtraceOption::Cpp)
                .then(|| PreprocessorSettings::from_options(options)),
            compile,
            error_tags: options.boolean(DtraceOption::ErrTags),
        }
    }

    /// The compile options for a run whose first `-c`/`-p` process (`$target`) is
    /// `target_pid`, if it has one.
    pub fn for_target(&self, target_pid: Option<u32>) -> CompileOptions {
        let mut compile = self.compile.clone();
        compile.macro_variables.target = target_pid.unwrap_or(0);
        compile.user_process_attached = target_pid.is_some();
        compile
    }
}

/// The `$pid`, `$ppid`, `$uid`, … macro variables, which describe the dtrace process.
fn dtrace_process_macro_variables() -> MacroVariables {
    // SAFETY: these calls take no pointers and cannot fail.
    unsafe {
        MacroVariables {
            pid: libc::getpid() as u32,
            ppid: libc::getppid() as u32,
            uid: libc::getuid(),
            gid: libc::getgid(),
            euid: libc::geteuid(),
            egid: libc::getegid(),
            pgid: libc::getpgrp() as u32,
            sid: libc::getsid(0) as u32,
            ..MacroVariables::default()
        }
    }
}

/// A size option's value in bytes, or the integer it holds when it was set without a
/// size suffix.
fn size_or_integer(options: &OptionSet, option: DtraceOption) -> Option<u64> {
    options.size(option).or_else(|| options.integer(option))
}

impl PreprocessorSettings {
    /// The settings held by `options`. An option set keeps each list separately, so the
    /// user's arguments come out as all `define`s, then all `undef`s, then all `incdir`s;
    /// a caller that knows the command-line order can rebuild `arguments` with
    /// [`PreprocessorArgument::from_option`].
    pub fn from_options(options: &OptionSet) -> PreprocessorSettings {
        let mut arguments = Vec::new();
        for option in [
            DtraceOption::Define,
            DtraceOption::Undef,
            DtraceOption::IncDir,
        ] {
            for value in options.texts(option) {
                arguments.extend(PreprocessorArgument::from_option(option, value));
            }
        }
        let extra_arguments = options
            .texts(DtraceOption::CppArgs)
            .iter()
            .flat_map(|text| text.split_whitespace().map(str::to_string))
            .collect();
        PreprocessorSettings {
            cpp_path: options.text(DtraceOption::CppPath).map(str::to_string),
            arguments,
            extra_arguments,
            print_included_headers: options.boolean(DtraceOption::CppHdrs),
            conformance: options
                .word(DtraceOption::Stdc)
                .and_then(Conformance::from_word)
                .unwrap_or_default(),
            d_version: options.d_version(),
            data_model: DataModel::Lp64,
        }
    }
}

/// Which engine runs the probes (`engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineChoice {
    /// `auto`: the kernel engine when this process may trace, else the user-space
    /// engine for programs that only use the dtrace provider.
    Automatic,
    /// `kernel`.
    Kernel,
    /// `vm`.
    VirtualMachine,
}

/// What the engines take from the options: sizes and limits, the buffer policy, and
/// whether the kernel verifier's logs are kept.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    pub options: EngineOptions,
    /// `bufpolicy`.
    pub buffer_policy: BufferPolicy,
    /// `debug`: keep the kernel verifier's log of every program.
    pub debug: bool,
}

impl EngineSettings {
    /// The kernel engine's runtime options.
    pub fn runtime_options(&self) -> RuntimeOptions {
        runtime_options(&self.options, self.buffer_policy, self.debug)
    }
}

/// The kernel engine's sizes from the interpreter's options (the same D options), with
/// principal buffers that follow `buffer_policy`.
pub fn runtime_options(
    options: &EngineOptions,
    buffer_policy: BufferPolicy,
    keep_verifier_logs: bool,
) -> RuntimeOptions {
    RuntimeOptions {
        layout: LayoutOptions {
            strsize: options.strsize,
            scratch_size: options.scratch_size,
            alloca_size: options.alloca_size,
            aggregation_size: options.aggregation_size,
            dynamic_variable_size: options.dynamic_variable_size,
            speculation_count: options.speculation_count,
            speculation_size: options.speculation_size.min(u32::MAX as u64) as u32,
            speculation_clean_interval: options.speculation_clean_interval,
            only_cpu: options.only_cpu,
            // The kernel facts from BTF (`task_struct` offsets for `ppid`,
            // `progenyof()` and `vtimestamp`) are read by the kernel engine only for
            // programs that need them (`kernel_offsets_for`).
            ..LayoutOptions::default()
        },
        buffer_size: options.buffer_size,
        buffer_policy,
        keep_verifier_logs,
    }
}

/// The interpreter's sizes and limits from the options in effect.
fn engine_options(options: &OptionSet) -> EngineOptions {
    let mut engine = EngineOptions::default();
    if let Some(strsize) = size_or_integer(options, DtraceOption::StrSize) {
        engine.strsize = strsize.clamp(1, u32::MAX as u64) as u32;
    }
    if let Some(bufsize) = size_or_integer(options, DtraceOption::BufSize) {
        engine.buffer_size = bufsize;
    }
    if let Some(aggsize) = size_or_integer(options, DtraceOption::AggSize) {
        engine.aggregation_size = aggsize;
    }
    if let Some(dynvarsize) = size_or_integer(options, DtraceOption::DynVarSize) {
        engine.dynamic_variable_size = dynvarsize;
    }
    if let Some(scratchsize) = size_or_integer(options, DtraceOption::ScratchSize) {
        engine.alloca_size = scratchsize.saturating_sub(8);
    }
    if let Some(nspec) = options.integer(DtraceOption::Nspec) {
        engine.speculation_count = nspec.min(u32::MAX as u64) as u32;
    }
    if let Some(specsize) = size_or_integer(options, DtraceOption::SpecSize) {
        engine.speculation_size = specsize;
    }
    if let Some(interval) = options.rate_ns(DtraceOption::CleanRate) {
        engine.speculation_clean_interval = bounded_clean_interval(interval);
    }
    engine.only_cpu = options
        .integer(DtraceOption::Cpu)
        .and_then(|cpu| u32::try_from(cpu).ok());
    engine
}

/// What enabling, the choice of engine, the engines and the session take from the
/// options in effect once the program's pragmas are applied.
#[derive(Debug, Clone)]
pub struct TracingSettings {
    /// `-S` (`verbose`): print the compiled program's DIF.
    pub dif_listing: bool,
    /// `-q` (`quiet`): no "matched" and "allowing destructive actions" notices.
    pub quiet: bool,
    /// `-Z` (`zdefs`): a run that matched no probe goes on.
    pub zero_matches_allowed: bool,
    /// `-w` (`destructive`).
    pub destructive_allowed: bool,
    pub engine_choice: EngineChoice,
    pub engine: EngineSettings,
    /// Print the notices about sizes the kernel engine lowered (unless `quietresize`).
    pub resize_notices: bool,
    /// dtrace(1)'s notices about the rates set that DTrace's bounds changed
    /// (`rate_bounds`), printed once tracing is enabled (none under `quietresize`).
    pub rate_notices: Vec<String>,
    /// `bufresize=manual`: a size the kernel engine would have to lower is a failure
    /// to enable tracing instead.
    pub manual_resize: bool,
    /// `noresolve`: addresses are printed without looking up their symbols.
    pub no_symbol_resolution: bool,
    pub session: SessionSettings,
}

impl TracingSettings {
    /// The settings `options` give a run whose `-c`/`-p` process (if any) is
    /// `target_pid`.
    pub fn from_options(options: &OptionSet, target_pid: Option<u64>) -> TracingSettings {
        let engine_choice = match options.word(DtraceOption::Engine) {
            Some("vm") => EngineChoice::VirtualMachine,
            Some("kernel") => EngineChoice::Kernel,
            _ => EngineChoice::Automatic,
        };
        let quiet = options.boolean(DtraceOption::Quiet);
        TracingSettings {
            dif_listing: options.boolean(DtraceOption::Verbose),
            quiet,
            zero_matches_allowed: options.boolean(DtraceOption::Zdefs),
            destructive_allowed: options.boolean(DtraceOption::Destructive),
            engine_choice,
            engine: EngineSettings {
                options: engine_options(options),
                // The option's values are checked when it is set, so the default only
                // covers a word this build does not know.
                buffer_policy: options
                    .word(DtraceOption::BufPolicy)
                    .and_then(BufferPolicy::from_option_word)
                    .unwrap_or_default(),
                debug: options.boolean(DtraceOption::Debug),
            },
            // dtrace(1) prints these as errors, which `quiet` does not silence.
            resize_notices: !options.boolean(DtraceOption::QuietResize),
            rate_notices: if options.boolean(DtraceOption::QuietResize) {
                Vec::new()
            } else {
                rate_notices(options)
            },
            manual_resize: options.word(DtraceOption::BufResize) == Some("manual"),
            no_symbol_resolution: options.boolean(DtraceOption::NoResolve),
            session: SessionSettings::from_options(options, target_pid),
        }
    }
}

/// How the session prints and paces itself (from the options in effect).
#[derive(Debug, Clone)]
pub struct SessionSettings {
    pub trace: TraceOutputOptions,
    pub sort: AggregationSortOptions,
    /// `aggzoom`, `agghist`, `aggpack` and the `utf8` encoding.
    pub aggregation_display: AggregationDisplayOptions,
    /// Prefix drop messages with `[DTRACEDROP_*]`.
    pub droptags: bool,
    /// How long to wait between buffer reads (`switchrate`).
    pub switch_interval: Duration,
    /// The `-c`/`-p` process, for `%A` and user symbols.
    pub target_pid: Option<u64>,
}

impl SessionSettings {
    /// The settings the options in effect give, for a session whose `-c`/`-p` process
    /// (if any) is `target_pid`.
    pub fn from_options(options: &OptionSet, target_pid: Option<u64>) -> SessionSettings {
        SessionSettings {
            trace: TraceOutputOptions {
                quiet: options.boolean(DtraceOption::Quiet),
                flowindent: options.boolean(DtraceOption::FlowIndent),
                stack_indent: options.integer(DtraceOption::StackIndent).unwrap_or(14) as usize,
                raw_bytes: options.boolean(DtraceOption::RawBytes),
                print_size: size_or_integer(options, DtraceOption::PrintSize).unwrap_or(8192),
            },
            sort: AggregationSortOptions {
                sort_by_key: options.boolean(DtraceOption::AggSortKey),
                reverse: options.boolean(DtraceOption::AggSortRev),
                key_position: options.integer(DtraceOption::AggSortKeyPos).unwrap_or(0) as usize,
                aggregation_position: options.integer(DtraceOption::AggSortPos).unwrap_or(0)
                    as usize,
            },
            aggregation_display: AggregationDisplayOptions::from_options(options),
            droptags: options.boolean(DtraceOption::DropTags),
            switch_interval: Duration::from_nanos(
                options
                    .rate_ns(DtraceOption::SwitchRate)
                    .unwrap_or(1_000_000_000)
                    .clamp(1_000_000, 1_000_000_000),
            ),
            target_pid,
        }
    }
}

impl AggregationDisplayOptions {
    /// The display options an option set selects, read the way DTrace's consumer reads
    /// `DTRACEOPT_AGGZOOM`, `DTRACEOPT_AGGHIST`, `DTRACEOPT_AGGPACK` and `dt_encoding`.
    pub fn from_options(options: &OptionSet) -> AggregationDisplayOptions {
        AggregationDisplayOptions {
            histogram_style: HistogramStyle {
                zoom: options.boolean(DtraceOption::AggZoom),
                utf8: options.word(DtraceOption::Encoding) == Some("utf8"),
            },
            value_histograms: options.boolean(DtraceOption::AggHist),
            packed_histograms: options.boolean(DtraceOption::AggPack),
        }
    }
}

/// How often a session snapshots the aggregations while tracing (`aggrate`, 1hz by
/// default).
pub fn aggregation_interval(options: &OptionSet) -> Duration {
    Duration::from_nanos(
        options
            .rate_ns(DtraceOption::AggRate)
            .unwrap_or(1_000_000_000),
    )
}

/// Whether a session keeps and prints each CPU's part of every aggregation entry
/// (`aggpercpu`).
pub fn per_cpu_aggregations(options: &OptionSet) -> bool {
    options.boolean(DtraceOption::AggPerCpu)
}

/// The environment `-c` commands run in: dtrace's, changed by `setenv` and `unsetenv`.
pub fn command_environment(options: &OptionSet) -> CommandEnvironment {
    CommandEnvironment {
        set: options.texts(DtraceOption::SetEnv).to_vec(),
        unset: options.texts(DtraceOption::UnsetEnv).to_vec(),
    }
}
