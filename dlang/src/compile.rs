//! The public entry point of the D compiler.
//!
//! ```text
//! compile(programs: &[ProgramSource], options: &CompileOptions, catalog: &dyn ProbeCatalog)
//!     -> Result<Compilation, CompileError>
//! ```
//!
//! [`compile_with_kernel_types`] also gives the compiler the kernel's types and variables
//! (`dlang::kernel_types`), which it asks for only when a program names one.
//!
//! Programs (one per `-s` script or `-n/-P/-m/-f/-i` argument) are compiled in order
//! into one [`CompiledProgram`]: they share variables, aggregations and types, and a
//! later program sees what earlier ones declared. Each is parsed right before it is
//! analyzed, so type names declared by earlier programs are recognised. Probe
//! descriptions are matched against `catalog`; [`Compilation::matched_probes`] gives,
//! per program, the number of probes its descriptions matched (the CLI prints
//! `dtrace: description 'X' matched N probes`). `#pragma D option` settings are passed
//! through in [`CompiledProgram::options`].
//!
//! On failure, [`CompileError`] says which program failed, with its diagnostic and line
//! map, so the CLI can print `failed to compile script X: …` or `invalid probe
//! specifier Y: …` ([`CompileError::message`]).
//!
//! [`dif_listing`] gives the `-S` listing of a compiled program.

use std::sync::Arc;

use difvm::object::CompiledProgram;

use crate::cg::{self, GenerationOptions};
use crate::diagnostics::Diagnostic;
use crate::kernel_types::KernelTypes;
use crate::lex::SourceMap;
use crate::parse::{self, ParseContext};
use crate::probes::ProbeCatalog;
use crate::report;
use crate::sema::Analyzer;

pub use crate::options::{
    CompileOptions, LibraryFileSource, MacroVariables, OptionCheck, ProbeSpecifierOption,
    ProgramOrigin, ProgramSource,
};

/// A successful compilation.
#[derive(Debug, Clone, PartialEq)]
pub struct Compilation {
    pub program: CompiledProgram,
    /// For each program, in the order given: the number of probes its clauses'
    /// descriptions matched (a probe matched by two descriptions counts twice).
    pub matched_probes: Vec<u32>,
}

/// A compile error in program `program` (an index into the programs given).
#[derive(Debug, Clone, PartialEq)]
pub struct CompileError {
    pub program: usize,
    pub diagnostic: Diagnostic,
    /// The failing program's line map (line numbers and `#line` file tags).
    pub source_map: SourceMap,
    /// What the option pragmas analyzed before the error set `errtags` to; it overrides
    /// the command line's setting.
    pub errtags_option: Option<bool>,
}

impl CompileError {
    /// The message dtrace prints: `COMMAND: failed to compile script NAME: …` or
    /// `COMMAND: invalid probe specifier TEXT: …`.
    pub fn message(&self, command: &str, programs: &[ProgramSource], errtags: bool) -> String {
        let Some(source) = programs.get(self.program) else {
            // Without programs (`dtrace -L dir -e`) only a library can fail, and its
            // errors are located in its file.
            let text = report::compile_error_text(
                &self.diagnostic,
                &self.source_map,
                &report::ProgramSource::Script { name: "" },
                self.errtags_option.unwrap_or(errtags),
            );
            return format!("{command}: {text}");
        };
        let program = match &source.origin {
            ProgramOrigin::Script { name } => report::ProgramSource::Script { name },
            ProgramOrigin::CommandLine(_) => report::ProgramSource::CommandLine {
                argument: &source.text,
            },
        };
        report::compile_failure_message(
            command,
            &self.diagnostic,
            &self.source_map,
            &program,
            self.errtags_option.unwrap_or(errtags),
        )
    }
}

/// Compiles `programs` in order into one program, without the kernel's types.
pub fn compile(
    programs: &[ProgramSource],
    options: &CompileOptions,
    catalog: &dyn ProbeCatalog,
) -> Result<Compilation, CompileError> {
    compile_with_kernel_types(programs, options, catalog, None)
}

/// Compiles `programs` in order into one program; kernel type and variable names the
/// programs use are asked of `kernel_types`.
pub fn compile_with_kernel_types(
    programs: &[ProgramSource],
    options: &CompileOptions,
    catalog: &dyn ProbeCatalog,
    kernel_types: Option<Arc<dyn KernelTypes>>,
) -> Result<Compilation, CompileError> {
    let mut analyzer = Analyzer::new(options, catalog);
    if let Some(kernel_types) = kernel_types {
        analyzer.set_kernel_types(kernel_types);
    }
    // The user's libraries come before every program, as libdtrace loads them at the
    // first compilation; their errors are reported against the first program.
    if options.system_library {
        analyzer
            .load_user_libraries(&options.user_libraries)
            .map_err(|failure| CompileError {
                program: 0,
                diagnostic: failure.diagnostic,
                source_map: failure.source_map,
                errtags_option: None,
            })?;
    }
    let mut source_maps = Vec::with_capacity(programs.len());
    for (index, source) in programs.iter().enumerate() {
        let origin = match &source.origin {
            ProgramOrigin::Script { .. } => parse::ProgramOrigin::ScriptFile,
            ProgramOrigin::CommandLine(option) => parse::ProgramOrigin::CommandLine(*option),
        };
        let parsed = {
            let knows_type = |name: &str| analyzer.knows_type_name(name);
            let mut context = ParseContext {
                origin,
                probe_descriptions_only: false,
                type_names: None,
            }
            .with_type_names(&knows_type);
            if options.probe_descriptions_only {
                context = context.with_probe_descriptions_only();
            }
            parse::parse_program(&source.text, context)
        };
        let parsed = parsed.map_err(|failure| CompileError {
            program: index,
            diagnostic: failure.diagnostic,
            source_map: failure.source_map,
            errtags_option: analyzer.errtags_option(),
        })?;
        source_maps.push(parsed.source_map.clone());
        if let Err(failure) = analyzer.analyze(index, source, &parsed) {
            return Err(CompileError {
                program: failure.program,
                diagnostic: failure.diagnostic,
                source_map: parsed.source_map.clone(),
                errtags_option: analyzer.errtags_option(),
            });
        }
    }
    let errtags_option = analyzer.errtags_option();
    let last = programs.len().saturating_sub(1);
    let map_of = |program: usize| {
        source_maps
            .get(program)
            .cloned()
            .unwrap_or_else(|| SourceMap::new(""))
    };
    let analysis = analyzer.finish();
    let generation = GenerationOptions {
        default_error_handler: options.default_error_handler,
    };
    let program = cg::generate(&analysis, generation).map_err(|failure| {
        let program = failure
            .clause
            .and_then(|clause| analysis.clauses.get(clause))
            .map_or(last, |clause| clause.program);
        CompileError {
            program,
            diagnostic: failure.diagnostic,
            source_map: map_of(program),
            errtags_option,
        }
    })?;
    Ok(Compilation {
        program,
        matched_probes: analysis.matched_probes,
    })
}

/// The `-S` listing: every DIFO of the program in statement order (each statement's
/// predicate, then each action value), as classic `dtrace -S` prints DIFOs.
pub fn dif_listing(program: &CompiledProgram) -> String {
    let mut listing = String::new();
    let mut label = 0u64;
    for statement in &program.statements {
        let difos = statement.predicate.iter().chain(
            statement
                .actions
                .iter()
                .flat_map(|action| action.values.iter().filter_map(|value| value.difo.as_ref())),
        );
        for difo in difos {
            listing.push_str(&difvm::text::disassemble_difo(difo, label));
            label += 1;
        }
    }
    listing
}
