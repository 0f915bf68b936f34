//! DTrace's system D library, built in: the inline constants that dtrace(1) loads from
//! `/usr/lib/dtrace` for every program (`errno.d`, `signal.d`, `regs.d`, `unistd.d`,
//! `procfs.d`, `sched.d`, `io.d`, `net.d`, `ip.d`, `tcp.d`, `lockstat.d`), so that
//! programs can say `errno == ENOENT`, `raise(SIGUSR1)`, `uregs[R_PC]` or
//! `args[0]->b_flags & B_READ` without an `#include`. `-x nolibs` leaves them out, but
//! not `null.d`: `NULL` belongs to the language, as in C, so it is always there.
//!
//! A library inline is declared when a program first names it and has no variable,
//! inline or enumerator of that name itself: declaring all ~200 of them up front would
//! cost more than compiling a typical one-liner, and a program's own names win.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Analyzer, SemaResult};
use crate::ast::{InlineDefinition, Item};
use crate::diagnostics::{Diagnostic, ErrorTag};
use crate::lex::SourceMap;
use crate::parse::{parse_program, ParseContext};

/// The file that defines `NULL`, which `-x nolibs` does not leave out.
const LANGUAGE_FILE: &str = "null.d";

/// The library files: (name, D source).
const SYSTEM_LIBRARY: &[(&str, &str)] = &[
    (LANGUAGE_FILE, include_str!("../library/null.d")),
    ("errno.d", include_str!("../library/errno.d")),
    ("signal.d", include_str!("../library/signal.d")),
    ("regs.d", include_str!("../library/regs.d")),
    ("unistd.d", include_str!("../library/unistd.d")),
    ("procfs.d", include_str!("../library/procfs.d")),
    ("sched.d", include_str!("../library/sched.d")),
    ("io.d", include_str!("../library/io.d")),
    ("net.d", include_str!("../library/net.d")),
    ("ip.d", include_str!("../library/ip.d")),
    ("tcp.d", include_str!("../library/tcp.d")),
    ("lockstat.d", include_str!("../library/lockstat.d")),
];

/// One inline of the library, with the file it comes from.
struct LibraryInline {
    file: &'static str,
    source_map: SourceMap,
    definition: InlineDefinition,
}

/// The library parsed once per process, by inline name; or why it does not parse (a bug
/// of ours, reported with the file's name).
fn system_library() -> &'static Result<HashMap<String, LibraryInline>, Diagnostic> {
    static PARSED: OnceLock<Result<HashMap<String, LibraryInline>, Diagnostic>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let mut inlines = HashMap::new();
        for (file, source) in SYSTEM_LIBRARY {
            let parsed = parse_program(source, ParseContext::script_file())
                .map_err(|failure| in_library(file, &failure.diagnostic))?;
            for item in parsed.program.items {
                let Item::Inline(definition) = item else {
                    return Err(Diagnostic::without_span(
                        ErrorTag::D_UNKNOWN,
                        format!("system library {file}: only inline definitions belong there"),
                    ));
                };
                let inline = LibraryInline {
                    file,
                    source_map: parsed.source_map.clone(),
                    definition,
                };
                inlines.insert(inline.definition.name.clone(), inline);
            }
        }
        Ok(inlines)
    })
}

fn in_library(file: &str, diagnostic: &Diagnostic) -> Diagnostic {
    Diagnostic::without_span(
        ErrorTag::D_UNKNOWN,
        format!("system library {file}: {}", diagnostic.message),
    )
}

impl Analyzer<'_> {
    /// Declares the system library's inline `name`, if the library has one and the
    /// compilation loads the library (or the inline is the language's `NULL`); returns
    /// whether it was declared.
    pub(super) fn declare_library_inline(&mut self, name: &str) -> SemaResult<bool> {
        self.declare_library_inline_if(name, |_| true)
    }

    /// Declares the system library's parameterised inline `name` (`tcp_state_string[ ]`),
    /// if there is one, before `name[...]` is looked up; a program's own array of a
    /// library constant's name stays an array.
    pub(super) fn declare_library_parameterised_inline(&mut self, name: &str) -> SemaResult<()> {
        if self.inlines.contains_key(name) || self.variables.global(name).is_some() {
            return Ok(());
        }
        self.declare_library_inline_if(name, |definition| !definition.parameters.is_empty())
            .map(|_| ())
    }

    fn declare_library_inline_if(
        &mut self,
        name: &str,
        wanted: impl Fn(&InlineDefinition) -> bool,
    ) -> SemaResult<bool> {
        let library = system_library().as_ref().map_err(Clone::clone)?;
        let Some(inline) = library
            .get(name)
            .filter(|inline| wanted(&inline.definition))
        else {
            return Ok(false);
        };
        if !self.options.system_library && inline.file != LANGUAGE_FILE {
            return Ok(false);
        }
        // Lines in messages about the definition are the library file's.
        let program_source_map = self.source_map.replace(inline.source_map.clone());
        let declared = self.inline_definition(&inline.definition);
        self.source_map = program_source_map;
        declared
            .map(|()| true)
            .map_err(|diagnostic| in_library(inline.file, &diagnostic))
    }
}

/// Whether the system library defines an inline named `name`.
pub(super) fn is_library_inline(name: &str) -> bool {
    system_library()
        .as_ref()
        .is_ok_and(|library| library.contains_key(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{compile, CompileOptions, ProgramSource};
    use crate::probes::ListCatalog;

    fn compiles(text: &str, options: &CompileOptions) -> bool {
        let programs = [ProgramSource::script("library.d", text)];
        compile(
            &programs,
            options,
            &ListCatalog::with_dtrace_provider(Vec::new()),
        )
        .is_ok()
    }

    /// Every inline of every file parses, type-checks and can be used in a program;
    /// only `NULL` survives `-x nolibs`.
    #[test]
    fn every_library_inline_compiles_and_nolibs_keeps_only_null() {
        let library = system_library().as_ref().expect("the library parses");
        let nolibs = CompileOptions {
            system_library: false,
            ..CompileOptions::default()
        };
        for (name, inline) in library {
            let use_of = if inline.definition.parameters.is_empty() {
                name.clone()
            } else {
                format!("{name}[0]")
            };
            let text = format!("BEGIN {{ trace({use_of}); }}");
            assert!(compiles(&text, &CompileOptions::default()), "{name}");
            assert_eq!(
                compiles(&text, &nolibs),
                name == "NULL",
                "{name} with nolibs"
            );
        }
    }
}
