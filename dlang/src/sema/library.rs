//! DTrace's system D library, built in: the inline constants that dtrace(1) loads from
//! `/usr/lib/dtrace` for every program (`errno.d`, `signal.d`, `regs.d`), so that
//! programs can say `errno == ENOENT`, `raise(SIGUSR1)` or `uregs[R_PC]`. `-x nolibs`
//! leaves them out.
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

/// The library files: (name, D source).
const SYSTEM_LIBRARY: &[(&str, &str)] = &[
    ("errno.d", include_str!("../library/errno.d")),
    ("signal.d", include_str!("../library/signal.d")),
    ("regs.d", include_str!("../library/regs.d")),
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
    /// compilation loads the library; returns whether it was declared.
    pub(super) fn declare_library_inline(&mut self, name: &str) -> SemaResult<bool> {
        if !self.options.system_library {
            return Ok(false);
        }
        let library = system_library().as_ref().map_err(Clone::clone)?;
        let Some(inline) = library.get(name) else {
            return Ok(false);
        };
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
