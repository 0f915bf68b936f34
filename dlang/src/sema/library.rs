//! DTrace's system D library, built in: the inline constants that dtrace(1) loads from
//! `/usr/lib/dtrace` for every program (`errno.d`, `signal.d`, `regs.d`, `unistd.d`,
//! `procfs.d`, `sched.d`, `io.d`, `net.d`, `ip.d`, `tcp.d`, `udp.d`, `lockstat.d`), so that
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
use crate::ast::{Declaration, InlineDefinition, Item, StorageClass};
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
    ("udp.d", include_str!("../library/udp.d")),
    ("lockstat.d", include_str!("../library/lockstat.d")),
];

/// One inline of the library, with the file it comes from.
struct LibraryInline {
    file: usize,
    definition: InlineDefinition,
}

/// One file of the library: its types and translators, declared together the first
/// time a program needs one of them, after the files it depends on.
struct LibraryFile {
    name: &'static str,
    source_map: SourceMap,
    /// `#pragma D depends_on library FILE`.
    depends_on: Vec<String>,
    /// The file's declarations and translators, in file order.
    items: Vec<Item>,
}

/// The library parsed: its files, its inlines by name, and the file defining each
/// typedef name.
struct SystemLibrary {
    files: Vec<LibraryFile>,
    inlines: HashMap<String, LibraryInline>,
    typedef_files: HashMap<String, usize>,
}

/// The library parsed once per process; or why it does not parse (a bug of ours,
/// reported with the file's name).
fn system_library() -> &'static Result<SystemLibrary, Diagnostic> {
    static PARSED: OnceLock<Result<SystemLibrary, Diagnostic>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let mut library = SystemLibrary {
            files: Vec::new(),
            inlines: HashMap::new(),
            typedef_files: HashMap::new(),
        };
        for (index, (name, source)) in SYSTEM_LIBRARY.iter().enumerate() {
            // Earlier files' typedefs are type names here (`depends_on` follows the
            // order of SYSTEM_LIBRARY); a file's own are known to the parser.
            let typedef_names = |candidate: &str| library.typedef_files.contains_key(candidate);
            let parsed = parse_program(
                source,
                ParseContext::script_file().with_type_names(&typedef_names),
            )
            .map_err(|failure| in_library(name, &failure.diagnostic))?;
            let mut file = LibraryFile {
                name,
                source_map: parsed.source_map.clone(),
                depends_on: Vec::new(),
                items: Vec::new(),
            };
            for item in parsed.program.items {
                match item {
                    Item::Inline(definition) => {
                        let inline = LibraryInline {
                            file: index,
                            definition,
                        };
                        library
                            .inlines
                            .insert(inline.definition.name.clone(), inline);
                    }
                    Item::Declaration(declaration) => {
                        for typedef in typedef_names_of(&declaration) {
                            library.typedef_files.insert(typedef, index);
                        }
                        file.items.push(Item::Declaration(declaration));
                    }
                    Item::Translator(translator) => file.items.push(Item::Translator(translator)),
                    Item::Pragma(pragma) => {
                        if let [directive, kind, dependency] = pragma.words.as_slice() {
                            if directive == "depends_on" && kind == "library" {
                                file.depends_on.push(dependency.clone());
                            }
                        }
                    }
                    _ => {
                        return Err(Diagnostic::without_span(
                            ErrorTag::D_UNKNOWN,
                            format!(
                                "system library {name}: only declarations, translators and inlines belong there"
                            ),
                        ))
                    }
                }
            }
            library.files.push(file);
        }
        Ok(library)
    })
}

/// The typedef names a declaration introduces.
fn typedef_names_of(declaration: &Declaration) -> Vec<String> {
    if !declaration
        .specifiers
        .storage
        .iter()
        .any(|(class, _)| *class == StorageClass::Typedef)
    {
        return Vec::new();
    }
    declaration
        .declarators
        .iter()
        .filter_map(|declarator| declarator.name.as_ref().map(|(name, _)| name.clone()))
        .collect()
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

    /// Declares the types and translators of the library file that defines the typedef
    /// `name` (`psinfo_t`), if the library has one and the compilation loads it.
    pub(super) fn load_library_defining_type(&mut self, name: &str) -> SemaResult<()> {
        let library = system_library().as_ref().map_err(Clone::clone)?;
        match library.typedef_files.get(name) {
            Some(&file) if self.options.system_library => self.load_library_file(file),
            _ => Ok(()),
        }
    }

    fn declare_library_inline_if(
        &mut self,
        name: &str,
        wanted: impl Fn(&InlineDefinition) -> bool,
    ) -> SemaResult<bool> {
        let library = system_library().as_ref().map_err(Clone::clone)?;
        let Some(inline) = library
            .inlines
            .get(name)
            .filter(|inline| wanted(&inline.definition))
        else {
            return Ok(false);
        };
        let file = &library.files[inline.file];
        if !self.options.system_library && file.name != LANGUAGE_FILE {
            return Ok(false);
        }
        // An inline may use its file's types and translators (`curpsinfo`).
        self.load_library_file(inline.file)?;
        // Lines in messages about the definition are the library file's.
        let program_source_map = self.source_map.replace(file.source_map.clone());
        // What the library's definitions use is not the program's: it counts neither
        // for the clause's attributes nor against `amin`.
        let declared =
            self.without_attributes(|analyzer| analyzer.inline_definition(&inline.definition));
        self.source_map = program_source_map;
        declared
            .map(|()| true)
            .map_err(|diagnostic| in_library(file.name, &diagnostic))
    }

    /// Declares library file `index`'s types and translators, after the files it
    /// depends on, unless this compilation already has.
    fn load_library_file(&mut self, index: usize) -> SemaResult<()> {
        if self.loaded_library_files.contains(&index) {
            return Ok(());
        }
        self.loaded_library_files.push(index);
        let library = system_library().as_ref().map_err(Clone::clone)?;
        let file = &library.files[index];
        for dependency in &file.depends_on {
            let Some(dependency) = library
                .files
                .iter()
                .position(|file| file.name == dependency)
            else {
                return Err(in_library(
                    file.name,
                    &Diagnostic::without_span(
                        ErrorTag::D_UNKNOWN,
                        format!("depends on {dependency}, which the library does not have"),
                    ),
                ));
            };
            self.load_library_file(dependency)?;
        }
        let program_source_map = self.source_map.replace(file.source_map.clone());
        let mut declared = Ok(());
        for item in &file.items {
            declared = match item {
                Item::Declaration(declaration) => self.declaration(declaration),
                Item::Translator(translator) => {
                    self.translator_definition(translator, Some(file.name))
                }
                _ => Ok(()),
            };
            if declared.is_err() {
                break;
            }
        }
        self.source_map = program_source_map;
        declared.map_err(|diagnostic| in_library(file.name, &diagnostic))
    }
}

/// Whether `name` is a file of the system library (`procfs.d`), which a user library
/// may depend on.
pub(super) fn is_system_library_file(name: &str) -> bool {
    SYSTEM_LIBRARY.iter().any(|(file, _)| *file == name)
}

/// Whether the system library defines an inline named `name`: from a scan of the
/// library's text, as for typedefs (see [`is_library_typedef`]).
pub(super) fn is_library_inline(name: &str) -> bool {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            SYSTEM_LIBRARY
                .iter()
                .flat_map(|(_, source)| scanned_inline_names(source))
                .collect()
        })
        .iter()
        .any(|known| known == name)
}

/// The names the library file `source` defines with `inline`: the last word before
/// the `=` (or a parameterised inline's `[`) of each definition.
fn scanned_inline_names(source: &str) -> Vec<String> {
    let text = without_comments(source);
    let mut names = Vec::new();
    for (at, _) in text.match_indices("inline ") {
        let starts_word =
            at == 0 || !text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if !starts_word {
            continue;
        }
        let definition = &text[at..];
        let head = &definition[..definition.find(['=', '[']).unwrap_or(definition.len())];
        if let Some(name) = head
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|word| !word.is_empty())
        {
            names.push(name.to_string());
        }
    }
    names
}

/// `source` without its `/* … */` comments.
fn without_comments(source: &str) -> String {
    let mut text = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(start) = rest.find("/*") {
        text.push_str(&rest[..start]);
        rest = rest[start..]
            .find("*/")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    text.push_str(rest);
    text
}

/// Whether the system library defines a typedef named `name`. The parser asks this of
/// words that may start a declaration, in nearly every program, so it is answered from
/// a scan of the library's text for its typedefs rather than by parsing the library
/// (which only a program that uses the library pays for); a test holds the scan to
/// what parsing finds.
pub(super) fn is_library_typedef(name: &str) -> bool {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            SYSTEM_LIBRARY
                .iter()
                .flat_map(|(_, source)| scanned_typedef_names(source))
                .collect()
        })
        .iter()
        .any(|known| known == name)
}

/// The names the library file `source` declares with `typedef`: the last word before
/// the `;` that ends each `typedef` at brace depth 0 (the library's typedefs declare
/// one plain name each). Comments are skipped.
fn scanned_typedef_names(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let text = without_comments(source);
    let mut search = text.as_str();
    while let Some(start) = search.find("typedef ") {
        let declaration = &search[start..];
        let mut depth = 0i32;
        let end = declaration
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                c == ';' && depth == 0
            })
            .map_or(declaration.len(), |(at, _)| at);
        if let Some(name) = declaration[..end]
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|word| !word.is_empty())
        {
            names.push(name.to_string());
        }
        search = &declaration[end..];
    }
    names
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

    /// The scans the parser's questions use find the typedefs and inlines parsing the
    /// library does.
    #[test]
    fn the_scans_find_every_library_typedef_and_inline() {
        let library = system_library().as_ref().expect("the library parses");
        let mut scanned: Vec<String> = SYSTEM_LIBRARY
            .iter()
            .flat_map(|(_, source)| scanned_typedef_names(source))
            .collect();
        let mut parsed: Vec<String> = library.typedef_files.keys().cloned().collect();
        scanned.sort();
        parsed.sort();
        assert_eq!(scanned, parsed);
        assert!(is_library_typedef("psinfo_t") && !is_library_typedef("exit"));
        let mut scanned: Vec<String> = SYSTEM_LIBRARY
            .iter()
            .flat_map(|(_, source)| scanned_inline_names(source))
            .collect();
        let mut parsed: Vec<String> = library.inlines.keys().cloned().collect();
        scanned.sort();
        parsed.sort();
        assert_eq!(scanned, parsed);
    }

    /// The inlines that read the kernel's structures, which need its types (the
    /// tests of `tests/stable_library.rs` compile them against this machine's BTF, and
    /// `tests/network_providers_live.rs` the tcp.d ones through tcpsinfo_t's members).
    const KERNEL_INLINES: &[&str] = &[
        "curpsinfo",
        "curlwpsinfo",
        "cwd",
        "root",
        "fds",
        "__dtrace_tcp_socket_has_ends",
        "__dtrace_tcp_ipv6",
        "__dtrace_tcp_full_socket",
    ];

    /// Every other inline of every file parses, type-checks and can be used in a
    /// program; only `NULL` survives `-x nolibs`.
    #[test]
    fn every_library_inline_compiles_and_nolibs_keeps_only_null() {
        let library = &system_library()
            .as_ref()
            .expect("the library parses")
            .inlines;
        let nolibs = CompileOptions {
            system_library: false,
            ..CompileOptions::default()
        };
        for (name, inline) in library {
            if KERNEL_INLINES.contains(&name.as_str()) {
                continue;
            }
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
