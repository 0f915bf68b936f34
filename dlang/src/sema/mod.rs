//! Semantic analysis: resolves names and types over the AST of one or more programs
//! (compiled in order, sharing variables and aggregations), checks every rule D
//! enforces at compile time, and produces the typed clauses code generation consumes.
//!
//! The analyzer walks the program in text order, which is also the order in which
//! variables become known (§5.1): a variable is usable only after the declaration or
//! assignment that introduces it.

mod access;
mod actions;
mod aggregations;
mod assignment;
mod builtins;
mod calls;
mod clauses;
mod constants;
mod declarations;
mod derived_probes;
mod expressions;
mod formatting;
mod forward_reads;
mod functions;
mod inline_definitions;
pub mod ir;
mod kernel_variables;
mod library;
mod lock_subroutines;
mod macros;
mod memory_variables;
mod operators;
mod option_pragmas;
mod parse_checks;
mod pragmas;
mod printed_type;
mod probe_specs;
mod program_scan;
mod speculation;
mod stability;
mod subject_task;
mod translators;
mod user_libraries;
mod variable_declarations;
mod variable_members;
mod variables;

use std::collections::HashMap;
use std::sync::Arc;

use crate::ast::{Expr, InlineDefinition, Item, OptionPragma, Program};
use crate::diagnostics::{Diagnostic, ErrorTag, Region, Span};
use crate::kernel_types::KernelTypes;
use crate::lex::SourceMap;
use crate::options::{CompileOptions, ProgramSource};
use crate::parse::ParsedProgram;
use crate::probes::{ProbeCatalog, ProbeInfo};
use crate::types::{TypeId, TypeTable};
use ir::{AggregationInfo, AnalyzedClause, TypedExpr, VariableId};
pub use variables::{Variable, VariableScope, VariableShape, VariableTable};

/// Shorthand for results carrying a compile diagnostic.
pub type SemaResult<T> = Result<T, Diagnostic>;

/// Compile-time settings that `#pragma D option` may change while compiling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub default_arguments: bool,
    pub argument_references: bool,
    pub zero_matches_allowed: bool,
    pub empty_programs_allowed: bool,
    pub stack_frames: u32,
    pub user_stack_frames: u32,
    pub java_stack_frames: u32,
    pub java_stack_string_size: u32,
    /// `maxframes`: the deepest stack recorded.
    pub max_frames: Option<u32>,
    pub scratch_size: u64,
    /// `printsize`: the most bytes of a struct, union or array `print()` records.
    pub print_size: u64,
    /// `amin`: identifiers with attributes below it are refused (D_ATTR_MIN).
    pub minimum_attributes: Option<difvm::stability::Attribute>,
}

/// An inline definition, kept as written and re-analyzed at each use (with its
/// parameters bound for parameterised inlines).
#[derive(Debug, Clone)]
struct InlineInfo {
    definition: InlineDefinition,
    ty: TypeId,
    parameters: Vec<(TypeId, String)>,
}

/// A translator definition: output type, input type, parameter name, member
/// expressions.
#[derive(Debug, Clone)]
struct TranslatorInfo {
    output: TypeId,
    input: TypeId,
    parameter: String,
    members: Vec<(String, Expr)>,
    /// The system library file that defines the translator, if it is the library's.
    library_file: Option<&'static str>,
}

/// The clause being analyzed.
#[derive(Debug, Clone, Default)]
struct ClauseContext {
    /// The probe descriptions of the clause as written after expansion, with the
    /// probes each matched (for `args[]`).
    probes: Vec<(String, Vec<ProbeInfo>)>,
    /// The derivation of the clause's probes when they are derived (stable providers):
    /// `argN`, `args[]` and the guard come from it.
    derivation: Option<Arc<difvm::probe_derivation::ProbeDerivation>>,
}

/// The analyzer's output.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub types: TypeTable,
    pub variables: VariableTable,
    pub aggregations: Vec<AggregationInfo>,
    pub clauses: Vec<AnalyzedClause>,
    /// `#pragma D option` settings, in program order.
    pub options: Vec<(String, Option<String>)>,
    /// Probes matched by each program (the sum over its clauses' descriptions).
    pub matched_probes: Vec<u32>,
    pub string_size: u32,
    /// Compile-time settings as the program left them.
    pub settings: Settings,
    /// The first kernel type a clause reads kernel memory through.
    pub kernel_type_read: Option<String>,
    /// The `#pragma D attributes ... provider` settings, in program order.
    pub provider_attributes: Vec<difvm::stability::ProviderAttributeSetting>,
}

/// An error found while analyzing program `program`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysisError {
    pub program: usize,
    pub diagnostic: Diagnostic,
}

/// The semantic analyzer of one compilation.
pub struct Analyzer<'a> {
    types: TypeTable,
    variables: VariableTable,
    aggregations: Vec<AggregationInfo>,
    aggregation_names: HashMap<String, usize>,
    /// The aggregation ids of every `printa()` that joins several aggregations by key:
    /// their key layouts are made identical when the analysis finishes.
    printa_joins: Vec<Vec<u32>>,
    inlines: HashMap<String, InlineInfo>,
    translators: Vec<TranslatorInfo>,
    options: &'a CompileOptions,
    catalog: &'a dyn ProbeCatalog,
    settings: Settings,
    /// Which `$N` operands have been referenced.
    arguments_referenced: Vec<bool>,
    clauses: Vec<AnalyzedClause>,
    pragma_options: Vec<(String, Option<String>)>,
    matched_probes: Vec<u32>,
    /// The program being analyzed and its line map.
    program: usize,
    source_map: Option<SourceMap>,
    clause: Option<ClauseContext>,
    /// Bindings of a parameterised inline's parameters while its body is analyzed.
    inline_parameters: Vec<HashMap<String, TypedExpr>>,
    /// Counter for hidden clause-local variables (if/else conditions).
    hidden_variables: u32,
    /// `#pragma D option errtags[=value]` seen so far.
    errtags: Option<bool>,
    /// The first kernel type a clause reads kernel memory through.
    kernel_type_read: Option<String>,
    /// Kernel variables declared `extern`, with the type the program gave them.
    extern_variables: HashMap<String, TypeId>,
    /// The system library files whose types and translators this compilation has
    /// declared (by index).
    loaded_library_files: Vec<usize>,
    /// The first action or aggregating function called inside an expression of the
    /// clause being analysed (D_CG_EXPR). DTrace's code generator reports it, after the
    /// whole clause has been type-checked, so a type error of the clause comes first.
    deferred_expression_call: Option<Diagnostic>,
    /// The first write of each scalar variable in the program being analysed, which
    /// declares a variable a predicate reads before it (`forward_reads.rs`).
    forward_writes: HashMap<(VariableScope, String), forward_reads::FirstWrite>,
    /// The identifiers the program being analysed applies `&` to
    /// (`memory_variables.rs`).
    address_taken: std::collections::HashSet<String>,
    /// The types defined by struct, union and enum bodies in the clauses' type names,
    /// by the address of their specifier in the program's syntax tree, which lives
    /// for the whole analysis (`declarations.rs`, `type_body`).
    clause_type_bodies: HashMap<usize, TypeId>,
    /// Whether the parse-time checks of a clause are running, which record those.
    recording_clause_type_bodies: bool,
    /// The minimum attributes of the identifiers the clause being analysed uses.
    clause_attributes: difvm::stability::Attribute,
    /// The attributes `#pragma D attributes` gave the program's own identifiers.
    pragma_attributes: HashMap<String, difvm::stability::Attribute>,
    /// The `#pragma D attributes ... provider` settings seen so far.
    provider_attributes: Vec<difvm::stability::ProviderAttributeSetting>,
    /// The attributes of the clause's probe descriptions and of its probes' arguments.
    probe_attributes: (difvm::stability::Attribute, difvm::stability::Attribute),
}

impl<'a> Analyzer<'a> {
    /// An analyzer for one compilation.
    pub fn new(options: &'a CompileOptions, catalog: &'a dyn ProbeCatalog) -> Analyzer<'a> {
        let mut types = TypeTable::new(options.string_size);
        let mut variables = VariableTable::default();
        builtins::register_builtins(&mut types, &mut variables);
        Analyzer {
            types,
            variables,
            aggregations: Vec::new(),
            aggregation_names: HashMap::new(),
            printa_joins: Vec::new(),
            inlines: HashMap::new(),
            translators: Vec::new(),
            options,
            catalog,
            settings: Settings {
                default_arguments: options.default_arguments,
                argument_references: options.argument_references,
                zero_matches_allowed: options.zero_matches_allowed,
                empty_programs_allowed: options.empty_programs_allowed,
                stack_frames: options.stack_frames,
                user_stack_frames: options.user_stack_frames,
                java_stack_frames: options.java_stack_frames,
                java_stack_string_size: options.java_stack_string_size,
                max_frames: options.max_frames,
                scratch_size: options.scratch_size,
                print_size: options.print_size,
                minimum_attributes: options.minimum_attributes,
            },
            arguments_referenced: vec![false; options.macro_arguments.len()],
            clauses: Vec::new(),
            pragma_options: Vec::new(),
            matched_probes: Vec::new(),
            program: 0,
            source_map: None,
            clause: None,
            inline_parameters: Vec::new(),
            hidden_variables: 0,
            errtags: None,
            kernel_type_read: None,
            extern_variables: HashMap::new(),
            loaded_library_files: Vec::new(),
            deferred_expression_call: None,
            forward_writes: HashMap::new(),
            address_taken: std::collections::HashSet::new(),
            clause_type_bodies: HashMap::new(),
            recording_clause_type_bodies: false,
            clause_attributes: difvm::stability::STABLE_COMMON,
            pragma_attributes: HashMap::new(),
            provider_attributes: Vec::new(),
            probe_attributes: (
                difvm::stability::STABLE_COMMON,
                difvm::stability::STABLE_COMMON,
            ),
        }
    }

    /// The `errtags` setting of the option pragmas analyzed so far (`None` when no
    /// pragma set it): compile errors are reported with tags when it is on.
    pub fn errtags_option(&self) -> Option<bool> {
        self.errtags
    }

    /// Whether `name` names a type at this point of the compilation (for the
    /// parser's type-name recognition).
    pub fn knows_type_name(&self, name: &str) -> bool {
        let plain = name.rsplit('`').next().unwrap_or(name);
        if self.types.typedef_named(plain).is_some() {
            return true;
        }
        if self.options.system_library && library::is_library_typedef(plain) {
            return true;
        }
        // The kernel's typedefs are asked for only for names D knows nothing else
        // about, so that a program naming no kernel type never loads them.
        if self.types.kernel_module().is_none() || self.knows_identifier(plain) {
            return false;
        }
        self.types.type_named(name).is_some()
    }

    /// Lets the program use the kernel's types and variables, asked of `kernel_types`
    /// only when the program names one.
    pub fn set_kernel_types(&mut self, kernel_types: Arc<dyn KernelTypes>) {
        self.types.set_kernel_types(kernel_types);
    }

    /// Whether `name` is a variable, inline, enumerator, function or action D knows.
    fn knows_identifier(&self, name: &str) -> bool {
        self.variables.global(name).is_some()
            || self.inlines.contains_key(name)
            || self.types.find_enumerator(name).is_some()
            || functions::lookup_function(name).is_some()
            || library::is_library_inline(name)
    }

    /// Analyzes program `index` (already parsed); programs must be given in order.
    pub fn analyze(
        &mut self,
        index: usize,
        source: &ProgramSource,
        parsed: &ParsedProgram,
    ) -> Result<(), AnalysisError> {
        self.program = index;
        self.source_map = Some(parsed.source_map.clone());
        // Each program is a compilation of its own in DTrace, which checks that it
        // references the last macro argument.
        self.arguments_referenced.fill(false);
        while self.matched_probes.len() <= index {
            self.matched_probes.push(0);
        }
        self.analyze_program(source, &parsed.program)
            .map_err(|diagnostic| AnalysisError {
                program: index,
                diagnostic,
            })
    }

    /// Finishes the compilation and returns the analysis.
    pub fn finish(mut self) -> Analysis {
        self.unify_joined_key_layouts();
        self.mark_memory_variables();
        Analysis {
            string_size: self.types.string_size(),
            settings: self.settings.clone(),
            types: self.types,
            variables: self.variables,
            aggregations: self.aggregations,
            clauses: self.clauses,
            options: self.pragma_options,
            matched_probes: self.matched_probes,
            kernel_type_read: self.kernel_type_read,
            provider_attributes: self.provider_attributes,
        }
    }

    fn analyze_program(&mut self, source: &ProgramSource, program: &Program) -> SemaResult<()> {
        // Option pragmas take effect for the whole program, wherever they appear, and
        // like dependencies they are checked before any clause, as DTrace does both
        // while it parses.
        for item in &program.items {
            match item {
                Item::Option(pragma) => {
                    self.check_option(pragma)?;
                    self.apply_option(pragma)?;
                }
                Item::Pragma(pragma) => self.apply_dependency_pragma(pragma)?,
                _ => {}
            }
        }
        let has_content = program.items.iter().any(|item| {
            matches!(
                item,
                Item::Clause(_)
                    | Item::Declaration(_)
                    | Item::Inline(_)
                    | Item::Translator(_)
                    | Item::Provider(_)
            )
        });
        if !has_content && !self.settings.empty_programs_allowed {
            return Err(Diagnostic::without_span(
                ErrorTag::D_EMPTY,
                "empty D program translation unit",
            ));
        }
        self.forward_writes = forward_reads::first_writes(program);
        self.address_taken
            .extend(memory_variables::address_taken(program));
        // DTrace handles declarations, inlines, translators and the parser's own checks
        // of each clause while it parses the whole program, and cooks the clauses
        // only afterwards (parse_checks.rs).
        for item in &program.items {
            match item {
                Item::Clause(clause) => self.check_clause_while_parsing(clause)?,
                Item::Declaration(declaration) => self.declaration(declaration)?,
                Item::Inline(inline) => self.inline_definition(inline)?,
                Item::Translator(translator) => self.translator_definition(translator, None)?,
                Item::Provider(provider) => self.provider_definition(provider)?,
                Item::Pragma(pragma) => self.apply_identifier_pragma(pragma)?,
                Item::Option(_) => {}
            }
        }
        self.check_last_argument_referenced()?;
        for item in &program.items {
            if let Item::Clause(clause) = item {
                self.analyze_clause(source, clause)?;
            }
        }
        Ok(())
    }

    /// Asks the caller's option table whether a `#pragma D option` may be set, as
    /// libdtrace's dtrace_setopt() decides, and reports a refusal the way dt_pragma.c
    /// does (D_PRAGMA_OPTSET, naming the value when one was given).
    fn check_option(&self, pragma: &OptionPragma) -> SemaResult<()> {
        let Some(check) = self.options.option_check else {
            return Ok(());
        };
        check(&pragma.name, pragma.value.as_deref()).map_err(|reason| {
            let message = match &pragma.value {
                Some(value) => format!(
                    "failed to set option '{}' to '{value}': {reason}",
                    pragma.name
                ),
                None => format!("failed to set option '{}': {reason}", pragma.name),
            };
            Diagnostic::new(ErrorTag::D_PRAGMA_OPTSET, pragma.span.clone(), message)
        })
    }

    /// The line of byte `offset` in the current program, as messages number it.
    fn line_of(&self, offset: usize) -> u32 {
        self.source_map
            .as_ref()
            .map_or(1, |map| map.line_of(offset).1)
    }

    /// The printed name of a type.
    fn type_name(&self, ty: TypeId) -> String {
        self.types.name(ty)
    }

    /// Gives a hidden clause-local variable for compiler-made state (if/else).
    fn hidden_clause_local(&mut self, purpose: &str) -> SemaResult<VariableId> {
        let name = format!("%{purpose}_{}", self.hidden_variables);
        self.hidden_variables += 1;
        let int = self.types.well_known().int;
        self.variables.create(
            &name,
            VariableScope::ClauseLocal,
            VariableShape::Scalar,
            Some(int),
            true,
        )
    }
}

/// A diagnostic at `span`.
fn error(tag: ErrorTag, span: &Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(tag, span.clone(), message)
}

/// Marks a diagnostic as one DTrace reports while parsing (no region), unless it
/// already names a region.
fn found_while_parsing(diagnostic: Diagnostic) -> Diagnostic {
    in_region(diagnostic, Region::Parsing)
}

/// Marks a diagnostic as found in `region` unless it already names one.
fn in_region(diagnostic: Diagnostic, region: Region) -> Diagnostic {
    if diagnostic.region == Region::Program {
        diagnostic.in_region(region)
    } else {
        diagnostic
    }
}
