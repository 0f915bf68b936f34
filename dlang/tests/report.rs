//! Golden tests of compile-error rendering: the `dtrace: failed to compile script` and
//! `dtrace: invalid probe specifier` lines with tags, line numbers, `#line` file tags
//! and regions, and the source excerpt for terminals.

use dlang::diagnostics::{Diagnostic, ErrorTag, Region};
use dlang::lex::SourceMap;
use dlang::parse::{parse_program, ParseContext, ProbeSpecifierOption};
use dlang::report::{
    compile_error_text, compile_failure_message, render_with_source, ProgramSource,
};

/// Parses `source` (a script named `name`, or a command-line argument if `name` is
/// `None`), which must fail, and compares the message line with and without errtags.
fn check(name: Option<&str>, source: &str, expected: &str, expected_with_tags: &str) {
    let (context, program) = match name {
        Some(name) => (ParseContext::script_file(), ProgramSource::Script { name }),
        None => (
            ParseContext::command_line(ProbeSpecifierOption::Name),
            ProgramSource::CommandLine { argument: source },
        ),
    };
    let failure = parse_program(source, context).expect_err(source);
    let line = compile_failure_message(
        "dtrace",
        &failure.diagnostic,
        &failure.source_map,
        &program,
        false,
    );
    assert_eq!(line, expected);
    let line = compile_failure_message(
        "dtrace",
        &failure.diagnostic,
        &failure.source_map,
        &program,
        true,
    );
    assert_eq!(line, expected_with_tags);
}

#[test]
fn script_messages() {
    check(
        Some("x.d"),
        "BEGIN\n{\n  x = 1\n  y = 2;\n}\n",
        "dtrace: failed to compile script x.d: line 4: syntax error near \"y\"",
        "dtrace: failed to compile script x.d: [D_SYNTAX] line 4: syntax error near \"y\"",
    );
    check(
        Some("t.d"),
        "BEGIN\n{\n",
        "dtrace: failed to compile script t.d: line 3: syntax error near end of input",
        "dtrace: failed to compile script t.d: [D_SYNTAX] line 3: syntax error near end of input",
    );
    check(
        Some("t.d"),
        "BEGIN { x = 08; }",
        "dtrace: failed to compile script t.d: line 1: constant 08 contains invalid digit 8",
        "dtrace: failed to compile script t.d: [D_INT_DIGIT] line 1: constant 08 contains invalid digit 8",
    );
    check(
        Some("t.d"),
        "#line 10 \"lib.d\"\nBEGIN\n{\n x = ;\n}",
        "dtrace: failed to compile script t.d: \"lib.d\", line 12: syntax error near \";\"",
        "dtrace: failed to compile script t.d: [D_SYNTAX] \"lib.d\", line 12: syntax error near \";\"",
    );
    check(
        Some("p.d"),
        "#pragma D option\n",
        "dtrace: failed to compile script p.d: line 1: malformed #pragma option <option>=<val>",
        "dtrace: failed to compile script p.d: [D_PRAGMA_MALFORM] line 1: malformed #pragma option <option>=<val>",
    );
}

#[test]
fn command_line_messages() {
    check(
        None,
        "BEGIN { x = ; }",
        "dtrace: invalid probe specifier BEGIN { x = ; }: syntax error near \";\"",
        "dtrace: invalid probe specifier BEGIN { x = ; }: [D_SYNTAX] syntax error near \";\"",
    );
    check(
        None,
        "BEGIN\n/x/",
        "dtrace: invalid probe specifier BEGIN\n/x/: expected actions { } following probe description and predicate",
        "dtrace: invalid probe specifier BEGIN\n/x/: [D_SYNTAX] expected actions { } following probe description and predicate",
    );
}

#[test]
fn regions_and_spanless_diagnostics() {
    let argument = "BEGIN{trace(x)}";
    let map = SourceMap::new(argument);
    let program = ProgramSource::CommandLine { argument };
    let unknown = Diagnostic::new(
        ErrorTag::D_IDENT_UNDEF,
        12..13,
        "failed to resolve x: Unknown variable name",
    );
    assert_eq!(
        compile_failure_message("dtrace", &unknown.clone().in_region(Region::ActionList), &map, &program, false),
        "dtrace: invalid probe specifier BEGIN{trace(x)}: in action list: failed to resolve x: Unknown variable name"
    );
    assert_eq!(
        compile_error_text(
            &unknown.clone().in_region(Region::Predicate),
            &map,
            &program,
            true
        ),
        "[D_IDENT_UNDEF] in predicate: failed to resolve x: Unknown variable name"
    );
    // Scripts give line numbers instead of regions.
    let script = ProgramSource::Script { name: "s.d" };
    assert_eq!(
        compile_error_text(&unknown.in_region(Region::ActionList), &map, &script, false),
        "line 1: failed to resolve x: Unknown variable name"
    );
    let unused = Diagnostic::without_span(
        ErrorTag::D_MACRO_UNUSED,
        "extraneous argument 'a' ($1 is not referenced)",
    );
    assert_eq!(
        compile_failure_message("dtrace", &unused, &map, &script, true),
        "dtrace: failed to compile script s.d: [D_MACRO_UNUSED] extraneous argument 'a' ($1 is not referenced)"
    );
}

#[test]
fn source_excerpt() {
    let source = "BEGIN\n{\n  x = ;\n}\n";
    let failure = parse_program(source, ParseContext::script_file()).expect_err("fails");
    let program = ProgramSource::Script { name: "x.d" };
    let rendered = render_with_source(
        "dtrace",
        &failure.diagnostic,
        source,
        &failure.source_map,
        &program,
        false,
        false,
    );
    let expected = "\
dtrace: failed to compile script x.d: line 3: syntax error near \";\"
   ╭─[ x.d:3:7 ]
   │
 3 │   x = ;
   │       ┬  
   │       ╰── syntax error near \";\"
───╯
";
    assert_eq!(rendered, expected);
    assert!(!rendered.contains('\x1b'), "no colour when colour is off");

    // Errors at the end of the input mark the last character.
    let source = "BEGIN {";
    let failure = parse_program(source, ParseContext::script_file()).expect_err("fails");
    let rendered = render_with_source(
        "dtrace",
        &failure.diagnostic,
        source,
        &failure.source_map,
        &program,
        true,
        false,
    );
    assert!(rendered.starts_with(
        "dtrace: failed to compile script x.d: [D_SYNTAX] line 1: syntax error near end of input\n"
    ));
    assert!(rendered.contains(" 1 │ BEGIN {"));

    let coloured = render_with_source(
        "dtrace",
        &failure.diagnostic,
        source,
        &failure.source_map,
        &program,
        false,
        true,
    );
    assert!(coloured.starts_with("\x1b[31mdtrace\x1b[0m: failed to compile script x.d: line 1:"));

    let unused = Diagnostic::without_span(
        ErrorTag::D_MACRO_UNUSED,
        "extraneous argument 'a' ($1 is not referenced)",
    );
    assert_eq!(
        render_with_source(
            "dtrace",
            &unused,
            source,
            &failure.source_map,
            &program,
            false,
            false
        ),
        "dtrace: failed to compile script x.d: extraneous argument 'a' ($1 is not referenced)\n"
    );
}
