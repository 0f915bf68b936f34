//! A deterministic fuzz test of the D front end: a fixed-seed xorshift generator mutates
//! a corpus of valid programs at the token and byte level, and every mutant goes
//! through [`run_front_end`]. Nothing may panic, overflow the stack or hang.

use dlang::parse::{parse_program, ParseContext, ProbeSpecifierOption};
use dlang::report::{compile_failure_message, render_with_source, ProgramSource};

/// Runs one program text through every front-end pass that exists. Extend this as
/// passes are added (semantic analysis, code generation): the mutation loop calls only
/// this function.
fn run_front_end(source: &str, context: ParseContext, render_excerpt: bool) {
    let program = match context.origin {
        dlang::parse::ProgramOrigin::ScriptFile => ProgramSource::Script { name: "fuzz.d" },
        dlang::parse::ProgramOrigin::CommandLine(_) => {
            ProgramSource::CommandLine { argument: source }
        }
    };
    match parse_program(source, context) {
        Ok(parsed) => {
            let _ = dlang::parse::dump::dump_program(&parsed.program);
        }
        Err(failure) => {
            let diagnostic = &failure.diagnostic;
            if let Some(span) = &diagnostic.span {
                assert!(
                    span.start <= span.end && span.end <= source.len(),
                    "span {span:?} out of {source:?}"
                );
                assert!(
                    source.is_char_boundary(span.start) && source.is_char_boundary(span.end),
                    "span {span:?} of {source:?}"
                );
            }
            let _ =
                compile_failure_message("dtrace", diagnostic, &failure.source_map, &program, true);
            if render_excerpt {
                let _ = render_with_source(
                    "dtrace",
                    diagnostic,
                    source,
                    &failure.source_map,
                    &program,
                    true,
                    false,
                );
            }
        }
    }
}

/// Valid programs covering the grammar.
const CORPUS: &[&str] = &[
    "BEGIN { printf(\"hello %s\\n\", execname); exit(0); }",
    "syscall::read:entry, syscall::write:entry /pid == $target && arg2 > 0/ { @bytes[probefunc] = sum(arg2); }",
    "syscall:::entry { self->ts = timestamp; } syscall:::return /self->ts/ { @t[probefunc] = quantize(timestamp - self->ts); self->ts = 0; }",
    "#pragma D option quiet\n#pragma D option bufsize=4m\ntick-1s { printa(\"%s %@d\\n\", @c); trunc(@c); }",
    "int x; self int y; this char c; int a[string, int]; BEGIN { a[\"x\", 1] = 2; x = a[\"x\", 1] << 3; }",
    "typedef struct foo { int a : 3; char *p[4]; union { long l; } u; } foo_t; foo_t *p; BEGIN { trace(sizeof(foo_t)); }",
    "enum color { RED, GREEN = 5, BLUE }; inline int MAX = 256; inline string s[int i] = \"x\";",
    "translator psinfo_t < struct task_struct *T > { pr_pid = T->tgid; pr_fname = stringof(T->comm); };",
    "provider app { probe start(int, char *); probe done() : (int); };",
    "pid$target::malloc:entry /arg0 > 1024/ { ustack(); this->p = (char *)copyin(arg1, 16); }",
    "profile-997 /cpu == 0/ { @[stack()] = count(); } END { printa(@); }",
    "BEGIN { x = 1 ? 2 : 3, y = -!~*&z; if (x) { trace(x); } else trace(y); z = offsetof(struct foo, a); }",
    "fbt::vfs_*:entry { @[probefunc, xlate <psinfo_t *>(curthread)->pr_pid] = count(); }",
    "#line 10 \"lib.d\"\nBEGIN { s = 'ab' + 0x1Ful + 017 + vmlinux`jiffies + `max_pfn + $1 + $$2; }",
    "dtrace:::ERROR { printf(\"%d %d\", arg1, arg4); } END { normalize(@a, 10); }",
];

/// Fragments inserted by token-level mutations.
const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "/",
    ";",
    ",",
    ":",
    "::",
    "?",
    "->",
    ".",
    "*",
    "&",
    "=",
    "==",
    "++",
    "--",
    "<<",
    ">>=",
    "^^",
    "...",
    "@",
    "@a",
    "$1",
    "$$target",
    "self",
    "this",
    "int",
    "struct",
    "enum",
    "typedef",
    "inline",
    "translator",
    "provider",
    "probe",
    "sizeof",
    "stringof",
    "offsetof",
    "xlate",
    "if",
    "else",
    "while",
    "BEGIN",
    "syscall::read:entry",
    "tick-1s",
    "\"str\"",
    "\"\\x41\\101\"",
    "'c'",
    "''",
    "0x",
    "09",
    "1.5",
    "123",
    "/*",
    "*/",
    "\n#pragma D option quiet\n",
    "\n#line 5 \"f.d\"\n",
    "\n#error x\n",
    "\n#include <a>\n",
    "\\\n",
    "`",
    "x`y",
    "#",
    "\"",
    "'",
    "é",
    "\n",
    "size_t",
    "pid_t",
    "(int)",
    "<",
    ">",
];

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            0
        } else {
            (self.next() % bound as u64) as usize
        }
    }
}

/// Splits a program into rough tokens: runs of word characters, runs of blanks, and
/// single other characters.
fn rough_tokens(source: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut previous_class = None;
    for character in source.chars() {
        let class = if character.is_alphanumeric() || character == '_' {
            Some(0)
        } else if character.is_whitespace() {
            Some(1)
        } else {
            None
        };
        match (class, previous_class, tokens.last_mut()) {
            (Some(class), Some(previous), Some(last)) if class == previous => last.push(character),
            _ => tokens.push(character.to_string()),
        }
        previous_class = class;
    }
    tokens
}

fn mutate_tokens(random: &mut XorShift, source: &str) -> String {
    let mut tokens = rough_tokens(source);
    let position = random.below(tokens.len() + 1);
    match random.below(6) {
        0 if position < tokens.len() => {
            tokens.remove(position);
        }
        1 if position < tokens.len() => {
            let copy = tokens[position].clone();
            tokens.insert(position, copy);
        }
        2 if !tokens.is_empty() => {
            let other = random.below(tokens.len());
            let position = position.min(tokens.len() - 1);
            tokens.swap(position, other);
        }
        3 if position < tokens.len() => {
            tokens[position] = FRAGMENTS[random.below(FRAGMENTS.len())].to_string()
        }
        4 => {
            // Long repetitions probe the nesting limits.
            let fragment = FRAGMENTS[random.below(FRAGMENTS.len())];
            let limit = if random.below(8) == 0 { 3000 } else { 8 };
            let count = 1 + random.below(limit);
            tokens.insert(position, fragment.repeat(count));
        }
        _ => tokens.insert(
            position,
            FRAGMENTS[random.below(FRAGMENTS.len())].to_string(),
        ),
    }
    tokens.concat()
}

fn mutate_bytes(random: &mut XorShift, source: &str) -> String {
    let mut bytes = source.as_bytes().to_vec();
    let position = random.below(bytes.len() + 1);
    // Only ASCII bytes are written, and removals keep whole characters, so the text
    // stays valid UTF-8.
    let ascii = (random.below(0x7f - 0x09) + 0x09) as u8;
    match random.below(4) {
        0 if position < bytes.len() && bytes[position].is_ascii() => bytes[position] = ascii,
        1 if position < bytes.len() && bytes[position].is_ascii() => {
            bytes.remove(position);
        }
        2 => bytes.truncate(position),
        _ => bytes.insert(position, ascii),
    }
    String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

#[test]
fn mutated_programs_never_panic() {
    for source in CORPUS {
        assert!(
            parse_program(source, ParseContext::script_file()).is_ok(),
            "corpus program fails: {source}"
        );
    }
    let contexts = [
        ParseContext::script_file(),
        ParseContext::command_line(ProbeSpecifierOption::Name),
        ParseContext::command_line(ProbeSpecifierOption::Function),
        ParseContext::command_line(ProbeSpecifierOption::Identifier),
    ];
    let mut random = XorShift(0x9e37_79b9_7f4a_7c15);
    for iteration in 0..100_000 {
        let mut program = CORPUS[random.below(CORPUS.len())].to_string();
        for _ in 0..1 + random.below(4) {
            program = if random.below(2) == 0 {
                mutate_tokens(&mut random, &program)
            } else {
                mutate_bytes(&mut random, &program)
            };
        }
        // The source excerpt is slow to draw, so only some failures get one.
        run_front_end(
            &program,
            contexts[random.below(contexts.len())],
            iteration % 16 == 0,
        );
    }
}

/// The probes the semantic pass matches mutated descriptions against: the dtrace
/// provider and a few syscall and profile probes with typed arguments.
fn fuzz_catalog() -> dlang::probes::ListCatalog {
    let probe = |id: u32, provider: &str, function: &str, name: &str, arguments: &[&str]| {
        dlang::probes::ProbeInfo {
            id,
            description: difvm::object::ProbeDescription {
                provider: provider.to_string(),
                module: "vmlinux".to_string(),
                function: function.to_string(),
                name: name.to_string(),
            },
            argument_types: arguments
                .iter()
                .map(|argument| argument.to_string())
                .collect(),
            derivation: None,
        }
    };
    dlang::probes::ListCatalog::with_dtrace_provider(vec![
        probe(4, "syscall", "read", "entry", &["int", "char *", "size_t"]),
        probe(5, "syscall", "read", "return", &["ssize_t"]),
        probe(
            6,
            "syscall",
            "write",
            "entry",
            &["int", "const char *", "size_t"],
        ),
        probe(7, "profile", "", "tick-1s", &[]),
        probe(8, "profile", "", "profile-997", &[]),
        probe(9, "fbt", "vfs_read", "entry", &[]),
        probe(10, "pid1234", "malloc", "entry", &[]),
    ])
}

/// The same mutated programs as [`mutated_programs_never_panic`], through the whole
/// compiler (parse, semantic analysis, code generation): nothing may panic, every
/// error must point inside its program, and every program that compiles must pass the
/// DIF verifier.
#[test]
fn mutated_programs_compile_or_fail_cleanly() {
    use dlang::compile::{compile, CompileOptions, ProgramSource};
    let catalog = fuzz_catalog();
    let options = CompileOptions {
        macro_arguments: vec!["dtrace".to_string(), "1".to_string(), "read".to_string()],
        argument_references: true,
        macro_variables: dlang::compile::MacroVariables {
            target: 1234,
            ..Default::default()
        },
        ..CompileOptions::default()
    };
    let origins = [
        None,
        Some(ProbeSpecifierOption::Name),
        Some(ProbeSpecifierOption::Function),
        Some(ProbeSpecifierOption::Identifier),
    ];
    let mut random = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut compiled = 0;
    for _ in 0..100_000 {
        let mut text = CORPUS[random.below(CORPUS.len())].to_string();
        for _ in 0..1 + random.below(4) {
            text = if random.below(2) == 0 {
                mutate_tokens(&mut random, &text)
            } else {
                mutate_bytes(&mut random, &text)
            };
        }
        let source = match origins[random.below(origins.len())] {
            None => ProgramSource::script("fuzz.d", &text),
            Some(option) => ProgramSource::command_line(option, &text),
        };
        match compile(std::slice::from_ref(&source), &options, &catalog) {
            Ok(compilation) => {
                compiled += 1;
                if let Err(errors) = difvm::verify::verify_program(&compilation.program) {
                    panic!("verifier rejected the compiled program {text:?}: {errors:?}");
                }
                let _ = dlang::compile::dif_listing(&compilation.program);
            }
            Err(error) => {
                if let Some(span) = &error.diagnostic.span {
                    assert!(
                        span.start <= span.end && span.end <= text.len(),
                        "span {span:?} out of {text:?}"
                    );
                }
                let _ = error.message("dtrace", std::slice::from_ref(&source), true);
            }
        }
    }
    assert!(compiled > 1000, "only {compiled} mutated programs compiled");
}
