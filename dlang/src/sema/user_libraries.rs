//! The user's D libraries (`-L dir`): every `*.d` file of the library directories is
//! declared before the programs, as libdtrace's `dt_load_libs` does, so that their
//! inlines, types and translators are visible to every program.
//!
//! As in libdtrace:
//! * A first pass reads only each file's `#pragma D depends_on library NAME` lines. A
//!   dependency is the file NAME in the same directory as the file that names it (the
//!   system library's files, which are built in, also satisfy it); any other name is
//!   `Invalid library dependency in FILE: DIR/NAME`.
//! * The files are declared in dependency order (a file after those it depends on, and
//!   otherwise in the order given); a cycle is `Cyclic dependency detected: A => B`.
//! * A file whose `depends_on provider` or `depends_on module` names something this
//!   machine lacks is skipped silently, and so is a file depending on a skipped one.
//! * Any other error in a file is fatal, located in the file (`"DIR/x.d", line N:`).
//!
//! Probe clauses, option pragmas and provider definitions in library files are not
//! declarations and are ignored.

use difvm::object::ProbeDescription;

use super::library::is_system_library_file;
use super::Analyzer;
use crate::ast::Item;
use crate::diagnostics::{Diagnostic, ErrorTag};
use crate::lex::SourceMap;
use crate::options::LibraryFileSource;
use crate::parse::{parse_program, ParseContext};

/// Why the user's libraries could not be loaded: the diagnostic, with the line map of
/// the library file it is about (an empty map for the dependency errors, which have no
/// place in a file).
#[derive(Debug, Clone, PartialEq)]
pub struct LibraryLoadFailure {
    pub diagnostic: Diagnostic,
    pub source_map: SourceMap,
}

/// A file's `#pragma D depends_on CLASS NAME` lines, from its text.
fn dependencies_of(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let words: Vec<&str> = line
                .trim_start()
                .strip_prefix('#')?
                .split_whitespace()
                .collect();
            match words.as_slice() {
                ["pragma", "D", "depends_on", class, name, ..] => {
                    Some((class.to_string(), name.to_string()))
                }
                _ => None,
            }
        })
        .collect()
}

/// The directory part of `path`, with its trailing `/` (`dtld_libpath`).
fn directory_of(path: &str) -> &str {
    path.rfind('/').map_or("", |slash| &path[..=slash])
}

fn dependency_error(message: String) -> LibraryLoadFailure {
    LibraryLoadFailure {
        diagnostic: Diagnostic::without_span(ErrorTag::D_PRAGMA_DEPEND, message),
        source_map: SourceMap::new(""),
    }
}

/// For each file, the indexes of the files it depends on.
fn dependency_graph(files: &[LibraryFileSource]) -> Result<Vec<Vec<usize>>, LibraryLoadFailure> {
    let mut graph = Vec::with_capacity(files.len());
    for file in files {
        let mut edges = Vec::new();
        for (class, name) in dependencies_of(&file.text) {
            if class != "library" {
                continue;
            }
            let dependency_path = format!("{}{name}", directory_of(&file.path));
            match files.iter().position(|other| other.path == dependency_path) {
                Some(index) => edges.push(index),
                None if is_system_library_file(&name) => {}
                None => {
                    return Err(dependency_error(format!(
                        "Invalid library dependency in {}: {dependency_path}",
                        file.path
                    )))
                }
            }
        }
        graph.push(edges);
    }
    Ok(graph)
}

/// The files in dependency order (depth first from each file in the order given).
fn load_order(
    files: &[LibraryFileSource],
    graph: &[Vec<usize>],
) -> Result<Vec<usize>, LibraryLoadFailure> {
    #[derive(Clone, Copy, PartialEq)]
    enum Visit {
        NotYet,
        Started,
        Finished,
    }
    fn visit(
        index: usize,
        files: &[LibraryFileSource],
        graph: &[Vec<usize>],
        state: &mut [Visit],
        order: &mut Vec<usize>,
    ) -> Result<(), LibraryLoadFailure> {
        state[index] = Visit::Started;
        for &dependency in &graph[index] {
            match state[dependency] {
                Visit::NotYet => visit(dependency, files, graph, state, order)?,
                Visit::Started => {
                    return Err(dependency_error(format!(
                        "Cyclic dependency detected: {} => {}",
                        files[dependency].path, files[index].path
                    )))
                }
                Visit::Finished => {}
            }
        }
        state[index] = Visit::Finished;
        order.push(index);
        Ok(())
    }
    let mut state = vec![Visit::NotYet; files.len()];
    let mut order = Vec::with_capacity(files.len());
    for index in 0..files.len() {
        if state[index] == Visit::NotYet {
            visit(index, files, graph, &mut state, &mut order)?;
        }
    }
    Ok(order)
}

impl Analyzer<'_> {
    /// Declares the user's library files (see the module documentation).
    pub fn load_user_libraries(
        &mut self,
        files: &[LibraryFileSource],
    ) -> Result<(), LibraryLoadFailure> {
        if files.is_empty() {
            return Ok(());
        }
        let graph = dependency_graph(files)?;
        let mut loaded = vec![false; files.len()];
        for index in load_order(files, &graph)? {
            let dependencies_met = graph[index].iter().all(|&dependency| loaded[dependency])
                && self.has_dependencies_of(&files[index]);
            if dependencies_met {
                self.declare_user_library(&files[index])?;
                loaded[index] = true;
            }
        }
        Ok(())
    }

    /// Whether the providers and modules `file` depends on exist on this machine.
    fn has_dependencies_of(&self, file: &LibraryFileSource) -> bool {
        dependencies_of(&file.text)
            .into_iter()
            .all(|(class, name)| match class.as_str() {
                "provider" => self.has_probes(ProbeDescription {
                    provider: name,
                    ..ProbeDescription::default()
                }),
                "module" => self.has_probes(ProbeDescription {
                    module: name,
                    ..ProbeDescription::default()
                }),
                _ => true,
            })
    }

    /// Parses and declares one library file; its messages carry its path as the file.
    fn declare_user_library(&mut self, file: &LibraryFileSource) -> Result<(), LibraryLoadFailure> {
        // The directive names the file for messages and keeps its line numbers.
        let text = format!("#line 1 \"{}\"\n{}", file.path, file.text);
        let parsed = {
            let knows_type = |name: &str| self.knows_type_name(name);
            parse_program(
                &text,
                ParseContext::script_file().with_type_names(&knows_type),
            )
        };
        let parsed = parsed.map_err(|failure| LibraryLoadFailure {
            diagnostic: failure.diagnostic,
            source_map: failure.source_map,
        })?;
        let program_source_map = self.source_map.replace(parsed.source_map.clone());
        let mut declared = Ok(());
        for item in &parsed.program.items {
            declared = match item {
                Item::Declaration(declaration) => self.declaration(declaration),
                Item::Inline(inline) => self.inline_definition(inline),
                Item::Translator(translator) => self.translator_definition(translator, None),
                Item::Pragma(pragma) => self.apply_identifier_pragma(pragma),
                Item::Clause(_) | Item::Provider(_) | Item::Option(_) => Ok(()),
            };
            if declared.is_err() {
                break;
            }
        }
        self.source_map = program_source_map;
        declared.map_err(|diagnostic| LibraryLoadFailure {
            diagnostic,
            source_map: parsed.source_map,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> LibraryFileSource {
        LibraryFileSource {
            path: path.to_string(),
            text: text.to_string(),
        }
    }

    #[test]
    fn files_load_after_their_dependencies() {
        let files = [
            file("/l/a.d", "#pragma D depends_on library b.d\n"),
            file("/l/b.d", "#pragma D depends_on library c.d\n"),
            file("/l/c.d", ""),
        ];
        let graph = dependency_graph(&files).unwrap();
        assert_eq!(load_order(&files, &graph).unwrap(), [2, 1, 0]);
    }

    #[test]
    fn missing_dependencies_and_cycles_are_errors() {
        let missing = [file("/l/a.d", "#pragma D depends_on library z.d\n")];
        assert_eq!(
            dependency_graph(&missing).unwrap_err().diagnostic.message,
            "Invalid library dependency in /l/a.d: /l/z.d"
        );
        // A dependency is looked for in the depending file's own directory only.
        let elsewhere = [
            file("/l/a.d", "#pragma D depends_on library b.d\n"),
            file("/m/b.d", ""),
        ];
        assert!(dependency_graph(&elsewhere).is_err());
        let cycle = [
            file("/l/a.d", "#pragma D depends_on library b.d\n"),
            file("/l/b.d", "#pragma D depends_on library a.d\n"),
        ];
        let graph = dependency_graph(&cycle).unwrap();
        assert_eq!(
            load_order(&cycle, &graph).unwrap_err().diagnostic.message,
            "Cyclic dependency detected: /l/a.d => /l/b.d"
        );
    }
}
