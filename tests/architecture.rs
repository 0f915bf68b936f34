//! Architecture invariants checked over the source tree (ARCHITECTURE.md lists them):
//! no import cycle among the modules of a crate, and no library code that writes to
//! stdout or stderr outside the places whose job that is.
//!
//! Module edges are counted from `use` declarations (paths starting with `crate`,
//! `super`, `self` or a child module's name) and from inline `crate::`, `super::` and
//! `self::` paths. A path names the deepest module file it reaches; a child that imports
//! an item from its parent's `mod.rs` depends on the parent. Inline test modules (after
//! `#[cfg(test)]`) are left out: they are not part of what the crate is built from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Crate source directories, relative to the workspace root.
const CRATE_SOURCES: &[&str] = &[
    "dlang/src",
    "difvm/src",
    "kernel-shim/src",
    "providers/src",
    "consumer/src",
    "src",
    "bench/src",
];

/// Cycles that are the natural shape of the code, as (crate source, modules).
const ALLOWED_CYCLES: &[(&str, &[&str])] = &[
    // The code generator's expressions contain lvalues (assignments, `++`) and lvalues
    // contain expressions (array subscripts, pointer arithmetic).
    ("dlang/src", &["cg::expressions", "cg::lvalues"]),
];

/// Sources that may write to stdout or stderr: the binary, the benchmark harness, the
/// render layer (which writes to the session's output), the session output itself and
/// the message sink (through which every diagnostic and notice passes).
const MAY_WRITE_OUTPUT: &[&str] = &[
    "src/",
    "bench/",
    "consumer/src/render/",
    "consumer/src/session_output.rs",
    "consumer/src/messages.rs",
];

/// What writing to stdout or stderr looks like in Rust source.
const OUTPUT_WRITES: &[&str] = &[
    "print!(",
    "println!(",
    "eprint!(",
    "eprintln!(",
    "io::stderr()",
    "io::stdout()",
];

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(directory: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
}

/// The module path of a source file relative to its crate's source directory:
/// `lib.rs` is the root (empty path), `a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut segments: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let file = segments.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    let names_its_directory =
        stem == "mod" || segments.is_empty() && matches!(stem, "lib" | "main");
    if !names_its_directory {
        segments.push(stem.to_string());
    }
    segments
}

/// The code of a file that the crate is built from: line comments removed, a
/// `#[cfg(test)] mod name;` declaration left out, and nothing from any other
/// `#[cfg(test)]` item on (inline test modules end the files of this tree).
fn production_code(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            let declares_a_test_file = lines.peek().is_some_and(|next| {
                let next = next.trim();
                next.starts_with("mod ") && next.ends_with(';')
            });
            if declares_a_test_file {
                lines.next();
                continue;
            }
            break;
        }
        let without_comment = match line.find("//") {
            // `//` inside a string literal (a URL) is rare enough in this tree to ignore.
            Some(at) => &line[..at],
            None => line,
        };
        code.push_str(without_comment);
        code.push('\n');
    }
    code
}

/// Whether `file` is a module that its parent declares `#[cfg(test)] mod name;`: test
/// code, which may say why it skips.
fn is_test_module_file(file: &Path) -> bool {
    let (Some(stem), Some(directory)) = (file.file_stem(), file.parent()) else {
        return false;
    };
    let declaration = format!("mod {};", stem.to_string_lossy());
    ["mod.rs", "lib.rs"].iter().any(|parent| {
        let Ok(text) = std::fs::read_to_string(directory.join(parent)) else {
            return false;
        };
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        lines
            .windows(2)
            .any(|pair| pair[0] == "#[cfg(test)]" && pair[1] == declaration)
    })
}

/// Expands a `use` tree (`a::{b::C, d::{E, F}}`) into its paths' segments.
fn expand_use_tree(tree: &str) -> Vec<Vec<String>> {
    // One space between words (`Name as Alias`), none around punctuation.
    let mut tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    for punctuation in ["::", "{", "}", ","] {
        tree = tree
            .replace(&format!(" {punctuation}"), punctuation)
            .replace(&format!("{punctuation} "), punctuation);
    }
    let mut paths = Vec::new();
    expand_into(&tree, &mut Vec::new(), &mut paths);
    paths
}

fn expand_into(tree: &str, prefix: &mut Vec<String>, paths: &mut Vec<Vec<String>>) {
    let Some(open) = tree.find('{') else {
        let mut path = prefix.clone();
        path.extend(
            tree.split("::")
                .filter(|segment| !segment.is_empty())
                .map(|segment| segment.split(" as ").next().unwrap_or(segment).to_string()),
        );
        paths.push(path);
        return;
    };
    let depth_before = prefix.len();
    prefix.extend(
        tree[..open]
            .split("::")
            .filter(|segment| !segment.is_empty())
            .map(str::to_string),
    );
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut depth = 0;
    let mut start = 0;
    for (index, character) in inner.char_indices() {
        match character {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand_into(&inner[start..index], prefix, paths);
                start = index + 1;
            }
            _ => {}
        }
    }
    if start < inner.len() {
        expand_into(&inner[start..], prefix, paths);
    }
    prefix.truncate(depth_before);
}

/// Every path of a file that may name a module of its own crate.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    // `use` declarations, whole trees.
    for (at, _) in code.match_indices("use ") {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = code[at..].find(';') else {
            continue;
        };
        let tree = &code[at + 4..at + end];
        if tree.contains('(') || tree.contains('=') {
            continue; // Not a use declaration (e.g. text in a string).
        }
        paths.extend(expand_use_tree(tree));
    }
    // Inline paths.
    for prefix in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(
                path.split("::")
                    .filter(|segment| !segment.is_empty())
                    .map(str::to_string)
                    .collect(),
            );
        }
    }
    paths
}

/// The module a path names, seen from `from`: the deepest known module its leading
/// segments reach; None for paths into other crates.
fn resolve(
    from: &[String],
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = from.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        Some(first) => {
            // A uniform path: a child module of this one, or another crate.
            let mut child = base.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    for segment in rest {
        let mut deeper = base.clone();
        deeper.push(segment.clone());
        if !modules.contains(&deeper) {
            break;
        }
        base = deeper;
    }
    Some(base)
}

/// The module dependency graph of one crate: module → modules it uses.
fn module_graph(source_directory: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut files = Vec::new();
    rust_files(source_directory, &mut files);
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|file| module_path(file.strip_prefix(source_directory).unwrap()))
        .collect();
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for file in &files {
        let from = module_path(file.strip_prefix(source_directory).unwrap());
        let code = production_code(&std::fs::read_to_string(file).unwrap());
        let targets = graph.entry(from.clone()).or_default();
        for path in crate_paths(&code) {
            if let Some(target) = resolve(&from, &path, &modules) {
                if target != from {
                    targets.insert(target);
                }
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    struct Search<'g> {
        graph: &'g BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'g Vec<String>, usize>,
        low: BTreeMap<&'g Vec<String>, usize>,
        stack: Vec<&'g Vec<String>>,
        on_stack: BTreeSet<&'g Vec<String>>,
        components: Vec<Vec<String>>,
    }
    impl<'g> Search<'g> {
        fn visit(&mut self, module: &'g Vec<String>) {
            let number = self.index.len();
            self.index.insert(module, number);
            self.low.insert(module, number);
            self.stack.push(module);
            self.on_stack.insert(module);
            for target in self.graph.get(module).into_iter().flatten() {
                if !self.index.contains_key(target) {
                    self.visit(target);
                    let low = self.low[module].min(self.low[target]);
                    self.low.insert(module, low);
                } else if self.on_stack.contains(target) {
                    let low = self.low[module].min(self.index[target]);
                    self.low.insert(module, low);
                }
            }
            if self.low[module] == self.index[module] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(member);
                    component.push(display(member));
                    if member == module {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.components.push(component);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for module in graph.keys() {
        if !search.index.contains_key(module) {
            search.visit(module);
        }
    }
    search.components
}

fn display(module: &[String]) -> String {
    if module.is_empty() {
        "(crate root)".to_string()
    } else {
        module.join("::")
    }
}

#[test]
fn no_import_cycle_among_the_modules_of_a_crate() {
    let root = workspace_root();
    let mut found = Vec::new();
    for source in CRATE_SOURCES {
        for component in cycles(&module_graph(&root.join(source))) {
            let allowed = ALLOWED_CYCLES.iter().any(|(crate_source, modules)| {
                crate_source == source
                    && component
                        .iter()
                        .map(String::as_str)
                        .eq(modules.iter().copied())
            });
            if !allowed {
                found.push(format!("{source}: {}", component.join(" <-> ")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "modules that import each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn library_code_does_not_write_to_stdout_or_stderr() {
    let root = workspace_root();
    let mut found = Vec::new();
    for source in CRATE_SOURCES {
        let mut files = Vec::new();
        rust_files(&root.join(source), &mut files);
        for file in files {
            let relative = file
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if MAY_WRITE_OUTPUT
                .iter()
                .any(|allowed| relative.starts_with(allowed))
            {
                continue;
            }
            if is_test_module_file(&file) {
                continue;
            }
            let code = production_code(&std::fs::read_to_string(&file).unwrap());
            for (number, line) in code.lines().enumerate() {
                if OUTPUT_WRITES.iter().any(|write| line.contains(write)) {
                    found.push(format!("{relative}:{}: {}", number + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "library code writing to stdout or stderr (pass data or use the message sink):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checker_sees_edges_and_cycles() {
    // The checker itself: a use tree expands to its paths, and a two-module cycle is found.
    let paths = expand_use_tree("crate::{a::B, c::{d::E, F}}");
    let expected: Vec<Vec<String>> = [
        &["crate", "a", "B"][..],
        &["crate", "c", "d", "E"],
        &["crate", "c", "F"],
    ]
    .iter()
    .map(|path| path.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(paths, expected);
    let module = |name: &str| vec![name.to_string()];
    let modules: BTreeSet<Vec<String>> = [module("a"), module("c"), vec!["c".into(), "d".into()]]
        .into_iter()
        .collect();
    let from_d = vec!["c".to_string(), "d".to_string()];
    assert_eq!(
        resolve(&from_d, &["super".into(), "G".into()], &modules),
        Some(module("c"))
    );
    assert_eq!(
        resolve(&from_d, &["std".into(), "fmt".into()], &modules),
        None
    );
    let mut graph = BTreeMap::new();
    graph.insert(module("a"), [module("c")].into_iter().collect());
    graph.insert(module("c"), [module("a")].into_iter().collect());
    assert_eq!(cycles(&graph), vec![vec!["a".to_string(), "c".to_string()]]);
    // A test file's declaration is skipped, and the code after it still counts.
    let code = production_code("#[cfg(test)]\nmod engine_tests;\npub use engine::Engine; // x\n");
    assert_eq!(code, "pub use engine::Engine; \n");
}
