//! Golden tests of the D lexer: tokens in each lexer state, literal decoding, the
//! predicate-closing `/` rule, type-name recognition, and every lexical error message
//! with its tag.

use dlang::ast::{IntegerBase, MacroVariable};
use dlang::diagnostics::ErrorTag;
use dlang::lex::{
    tokenize, tokenize_with_type_names, Keyword, LexerMode, Token, TokenKind, BUILT_IN_TYPEDEFS,
};

/// Renders one token as `kind text` (or the decoded value for literals).
fn render(source: &str, token: &Token) -> String {
    let text = &source[token.span.clone()];
    match &token.kind {
        TokenKind::ProbeSpecifier => format!("pspec {text}"),
        TokenKind::ProbeIdentifier => format!("probe-id {text}"),
        TokenKind::Identifier => format!("ident {text}"),
        TokenKind::ScopedIdentifier => format!("scoped {text}"),
        TokenKind::TypeName => format!("type {text}"),
        TokenKind::Keyword(keyword) => format!("keyword {}", keyword.text()),
        TokenKind::Integer(literal) => {
            let base = match literal.base {
                IntegerBase::Decimal => "dec",
                IntegerBase::Octal => "oct",
                IntegerBase::Hexadecimal => "hex",
                IntegerBase::Character => "char",
            };
            let unsigned = if literal.suffix.unsigned { "u" } else { "" };
            let long = ["", "l", "ll"][usize::from(literal.suffix.long)];
            format!("int {} {base}{unsigned}{long}", literal.value)
        }
        TokenKind::String(bytes) => format!("string {:?}", String::from_utf8_lossy(bytes)),
        TokenKind::Macro(variable) => match variable {
            MacroVariable::Argument { index, .. } => format!("macro ${index}"),
            MacroVariable::ArgumentString { index, .. } => format!("macro $${index}"),
            MacroVariable::Named(name) => format!("macro ${name}"),
            MacroVariable::NamedString(name) => format!("macro $${name}"),
        },
        TokenKind::Aggregation => format!("agg {text}"),
        TokenKind::Punctuator(punctuator) => format!("punct {}", punctuator.text()),
        TokenKind::PredicateEnd => format!("end-predicate {text}"),
        TokenKind::EndOfInput => "eof".to_string(),
    }
}

/// Lexes `source` in `mode` and compares the tokens (without the final end of input)
/// with `expected`, which lists them separated by ` | `.
fn check(mode: LexerMode, source: &str, expected: &str) {
    let tokens = tokenize(source, mode).unwrap_or_else(|error| panic!("{source:?}: {error:?}"));
    let (last, tokens) = tokens.split_last().expect("at least the end of input");
    assert_eq!(last.kind, TokenKind::EndOfInput);
    assert_eq!(last.span, source.len()..source.len());
    let rendered: Vec<String> = tokens.iter().map(|token| render(source, token)).collect();
    assert_eq!(rendered.join(" | "), expected, "tokens of {source:?}");
}

fn check_expression(source: &str, expected: &str) {
    check(LexerMode::Expression, source, expected);
}

fn check_outer(source: &str, expected: &str) {
    check(LexerMode::Outer, source, expected);
}

/// Lexes `source` and expects the error `message` with `tag` at byte `offset`.
fn check_error(mode: LexerMode, source: &str, tag: ErrorTag, message: &str, offset: usize) {
    let error = tokenize(source, mode).expect_err(source);
    assert_eq!(
        (error.tag, error.message.as_str()),
        (tag, message),
        "error of {source:?}"
    );
    assert_eq!(
        error.span.map(|span| span.start),
        Some(offset),
        "error offset of {source:?}"
    );
}

fn check_expression_error(source: &str, tag: ErrorTag, message: &str, offset: usize) {
    check_error(LexerMode::Expression, source, tag, message, offset);
}

#[test]
fn outer_state_probe_descriptions() {
    check_outer(
        "syscall::read:entry, fbt::vfs_*:entry /x/ {",
        "pspec syscall::read:entry | punct , | pspec fbt::vfs_*:entry | punct / | pspec x | punct / | punct {",
    );
    check_outer("pid$target::malloc:entry", "pspec pid$target::malloc:entry");
    check_outer(
        "syscall::$1:entry tick-1s profile-997",
        "pspec syscall::$1:entry | pspec tick-1s | pspec profile-997",
    );
    check_outer(
        "fbt:vmlinux`x:[!a-c]?\\*:",
        "pspec fbt:vmlinux`x:[!a-c]?\\*:",
    );
    check_outer(
        "BEGIN END ERROR entry",
        "pspec BEGIN | pspec END | pspec ERROR | pspec entry",
    );
    check_outer("1234 56,", "probe-id 1234 | probe-id 56 | punct ,");
    check_outer("*:::", "pspec *:::");
    // UTF-8 symbol names (a pid probe on a function named in UTF-8).
    check_outer(
        "pid$target:a.out:ünïcödé:entry, ü*:𝒻:return",
        "pspec pid$target:a.out:ünïcödé:entry | punct , | pspec ü*:𝒻:return",
    );
}

#[test]
fn outer_state_keywords_and_type_names() {
    check_outer(
        "self int x;",
        "keyword self | keyword int | pspec x | punct ;",
    );
    check_outer(
        "inline translator provider typedef",
        "keyword inline | keyword translator | keyword provider | keyword typedef",
    );
    // The part before a `*` is checked as a type.
    check_outer("int*x", "keyword int | pspec *x");
    check_outer("size_t*p", "type size_t | pspec *p");
    check_outer("uint64_t", "type uint64_t");
    // A description marker makes any word a description.
    check_outer(
        "int:x size_t-1 string.x",
        "pspec int:x | pspec size_t-1 | pspec string.x",
    );
    check_outer("while", "keyword while");
}

#[test]
fn probe_description_state_never_yields_keywords() {
    check(
        LexerMode::ProbeDescription,
        "int size_t self",
        "pspec int | pspec size_t | pspec self",
    );
}

#[test]
fn operators() {
    check_expression(
        "+ - * % ++ -- << >> & | ^ ~ ! && || ^^ == != < <= > >= = += -= *= /= %= &= |= ^= <<= >>= ? : , . -> [ ] ( ) { } ; ...",
        "punct + | punct - | punct * | punct % | punct ++ | punct -- | punct << | punct >> | punct & | punct | | \
         punct ^ | punct ~ | punct ! | punct && | punct || | punct ^^ | punct == | punct != | punct < | punct <= | \
         punct > | punct >= | punct = | punct += | punct -= | punct *= | punct /= | punct %= | punct &= | \
         punct |= | punct ^= | punct <<= | punct >>= | punct ? | punct : | punct , | punct . | punct -> | \
         punct [ | punct ] | punct ( | punct ) | punct { | punct } | punct ; | punct ...",
    );
    check_expression("a+++b", "ident a | punct ++ | punct + | ident b");
    check_expression("a->b.c", "ident a | punct -> | ident b | punct . | ident c");
}

#[test]
fn identifiers_keywords_macros_and_aggregations() {
    check_expression(
        "self->x this->y",
        "keyword self | punct -> | ident x | keyword this | punct -> | ident y",
    );
    check_expression(
        "sizeof stringof offsetof xlate",
        "keyword sizeof | keyword stringof | keyword offsetof | keyword xlate",
    );
    check_expression("_abc x1 _Bool", "ident _abc | ident x1 | keyword _Bool");
    check_expression(
        "vmlinux`jiffies `max_pfn 0mod`sym",
        "scoped vmlinux`jiffies | scoped `max_pfn | scoped 0mod`sym",
    );
    check_expression(
        "$1 $$2 $target $$pid $0",
        "macro $1 | macro $$2 | macro $target | macro $$pid | macro $0",
    );
    check_expression(
        "@ @count @a[1]",
        "agg @ | agg @count | agg @a | punct [ | int 1 dec | punct ]",
    );
}

#[test]
fn integer_constants() {
    check_expression(
        "0 7 07 0x1F 0XfF 10",
        "int 0 oct | int 7 dec | int 7 oct | int 31 hex | int 255 hex | int 10 dec",
    );
    check_expression(
        "10u 10U 10l 10L 10ul 10UL 10ll 10lL 10ull 10ULL 0x10ul",
        "int 10 decu | int 10 decu | int 10 decl | int 10 decl | int 10 decul | int 10 decul | int 10 decll | \
         int 10 decll | int 10 decull | int 10 decull | int 16 hexul",
    );
    // DTrace's lexer matches a constant as digits then `[uU]?[lL]?[lL]?`: what follows
    // starts the next token.
    check_expression(
        "12a 0x 10lu 0b1",
        "int 12 dec | ident a | int 0 oct | ident x | int 10 decl | ident u | int 0 oct | ident b1",
    );
    check_expression(
        "18446744073709551615 0xffffffffffffffff",
        "int 18446744073709551615 dec | int 18446744073709551615 hex",
    );
}

#[test]
fn integer_errors() {
    check_expression_error(
        "x = 09",
        ErrorTag::D_INT_DIGIT,
        "constant 09 contains invalid digit 9",
        4,
    );
    check_expression_error(
        "0128u",
        ErrorTag::D_INT_DIGIT,
        "constant 0128u contains invalid digit 8",
        0,
    );
    check_expression_error(
        "18446744073709551616",
        ErrorTag::D_INT_OFLOW,
        "constant 18446744073709551616 results in integer overflow",
        0,
    );
    check_expression_error(
        "0x10000000000000000",
        ErrorTag::D_INT_OFLOW,
        "constant 0x10000000000000000 results in integer overflow",
        0,
    );
    for float in ["1.5", "1.", ".5", "1e5", "1E+5", "2.5e-3f"] {
        check_expression_error(
            float,
            ErrorTag::D_SYNTAX,
            "floating-point constants are not permitted",
            0,
        );
    }
}

#[test]
fn character_constants() {
    check_expression(
        "'a' 'ab' '\\n' '\\0' '\\377' '\\x41'",
        "int 97 char | int 24930 char | int 10 char | int 0 char | int 255 char | int 65 char",
    );
    check_expression("'abcdefgh'", "int 7017280452245743464 char");
    // `\'` stays as two characters, so this constant is `\` `'` packed.
    check_expression("'\\''", "int 23591 char");
    check_expression_error("''", ErrorTag::D_CHR_NULL, "empty character constant", 0);
    check_expression_error(
        "x 'abcdefghi'",
        ErrorTag::D_CHR_OFLOW,
        "character constant is too long",
        2,
    );
    check_expression_error(
        "'ab\ncd'",
        ErrorTag::D_CHR_NL,
        "newline encountered in character constant",
        0,
    );
    check_expression_error("'ab", ErrorTag::D_SYNTAX, "syntax error near \"'\"", 0);
}

#[test]
fn string_literals() {
    check_expression("\"hello\"", "string \"hello\"");
    check_expression(
        "\"\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\"",
        "string \"\\u{7}\\u{8}\\u{c}\\n\\r\\t\\u{b}\\\\\\\"\"",
    );
    // Octal takes 1-3 digits; hex takes any number, truncated to a byte.
    check_expression("\"\\101\\1012\\7x\"", "string \"AA2\\u{7}x\"");
    check_expression("\"\\x41\\x4142\\xz\"", "string \"AB\\0z\"");
    // Unknown escapes (including \' and \?) stay as backslash and character.
    check_expression("\"\\q\\'\\?\"", "string \"\\\\q\\\\'\\\\?\"");
    check_expression("\"a\" \"b\"", "string \"a\" | string \"b\"");
    check_expression_error(
        "x = \"abc\ndef\"",
        ErrorTag::D_STR_NL,
        "newline encountered in string literal",
        4,
    );
    check_expression_error(
        "\"abc\\\ndef\"",
        ErrorTag::D_STR_NL,
        "newline encountered in string literal",
        0,
    );
    check_expression_error("\"abc", ErrorTag::D_SYNTAX, "syntax error near \"\"\"", 0);
}

#[test]
fn unknown_characters() {
    check_expression_error("a # b", ErrorTag::D_SYNTAX, "syntax error near \"#\"", 2);
    check_expression_error("$", ErrorTag::D_SYNTAX, "syntax error near \"$\"", 0);
    check_expression_error("x é", ErrorTag::D_SYNTAX, "syntax error near \"é\"", 2);
    check_expression_error("a`", ErrorTag::D_SYNTAX, "syntax error near \"a`\"", 0);
    check_outer("BEGIN \\", "pspec BEGIN | pspec \\");
}

#[test]
fn comments_and_blanks() {
    check_expression("/* a */ x /* b\n c */ y", "ident x | ident y");
    check_expression("a\t\r\x0b\x0c\nb", "ident a | ident b");
    check_expression("a \\\n b", "ident a | ident b");
    check_outer("BEGIN\\\n{", "pspec BEGIN | punct {");
    check_expression("// x", "end-predicate / | punct / | ident x");
    check_expression_error(
        "/* a /* b */",
        ErrorTag::D_SYNTAX,
        "/* encountered inside a comment",
        5,
    );
    check_expression_error(
        "x /* a",
        ErrorTag::D_SYNTAX,
        "end-of-file encountered before matching */",
        6,
    );
}

#[test]
fn predicate_slash_rule() {
    check_expression("x / 2 /", "ident x | punct / | int 2 dec | end-predicate /");
    check_expression("a /;", "ident a | end-predicate / | punct ;");
    check_expression("a / {", "ident a | end-predicate / | punct {");
    check_expression("a / /* c */", "ident a | end-predicate /");
    check_expression("a /\n\n", "ident a | end-predicate /");
    check_expression("a /= 2", "ident a | punct /= | int 2 dec");
    check_expression(
        "(a / b) /",
        "punct ( | ident a | punct / | ident b | punct ) | end-predicate /",
    );
    check_expression_error(
        "(a / ",
        ErrorTag::D_SYNTAX,
        "closing ) expected in predicate before /",
        3,
    );
    check_expression_error(
        "a[1 /;",
        ErrorTag::D_SYNTAX,
        "closing ] expected in predicate before /",
        4,
    );
    // In the outer state a `/` opens a predicate.
    check_outer("BEGIN /", "pspec BEGIN | punct /");
}

/// Lexes `source` as an expression with `kt_t` a kernel type name.
fn kernel_type_tokens(source: &str) -> String {
    let oracle = |name: &str| name == "kt_t";
    let tokens = tokenize_with_type_names(source, LexerMode::Expression, Some(&oracle))
        .unwrap_or_else(|error| panic!("{source:?}: {error:?}"));
    let (_, tokens) = tokens.split_last().expect("at least the end of input");
    let rendered: Vec<String> = tokens.iter().map(|token| render(source, token)).collect();
    rendered.join(" | ")
}

#[test]
fn identifier_or_type_name() {
    // D's own typedefs are type names wherever they appear, as in DTrace.
    check_expression("(size_t)x", "punct ( | type size_t | punct ) | ident x");
    check_expression("size_t = 1", "type size_t | punct = | int 1 dec");
    check_expression("size_t == 1", "type size_t | punct == | int 1 dec");
    // A kernel type name is a variable when what follows shows it is used as one.
    let cases = [
        ("kt_t = 1", "ident kt_t | punct = | int 1 dec"),
        ("kt_t == 1", "type kt_t | punct == | int 1 dec"),
        ("kt_t[1]", "ident kt_t | punct [ | int 1 dec | punct ]"),
        (
            "kt_t++ kt_t--",
            "ident kt_t | punct ++ | ident kt_t | punct --",
        ),
        ("kt_t;", "ident kt_t | punct ;"),
        ("kt_t, x", "ident kt_t | punct , | ident x"),
        (
            "f(kt_t, x)",
            "ident f | punct ( | type kt_t | punct , | ident x | punct )",
        ),
        (
            "a[kt_t, int]",
            "ident a | punct [ | type kt_t | punct , | keyword int | punct ]",
        ),
        ("kt_t x", "type kt_t | ident x"),
    ];
    for (source, expected) in cases {
        assert_eq!(kernel_type_tokens(source), expected, "tokens of {source:?}");
    }
}

#[test]
fn control_lines_are_consumed() {
    check_outer("#!/usr/sbin/dtrace -s\nBEGIN", "pspec BEGIN");
    check_outer("  #pragma D option quiet\nBEGIN", "pspec BEGIN");
    check_outer(
        "#pragma ident \"x\"\n#ident x\n#pragma foo bar\n#\n# 12 \"a.d\" 1\n#line 3\nBEGIN",
        "pspec BEGIN",
    );
    check_expression("a\n#pragma D option quiet\nb", "ident a | ident b");
}

#[test]
fn control_line_errors() {
    let outer = LexerMode::Outer;
    check_error(
        outer,
        "BEGIN\n#include <stdio.h>\n",
        ErrorTag::D_PRAGCTL_INVAL,
        "invalid control directive: #include",
        6,
    );
    check_error(
        outer,
        "#define X 1",
        ErrorTag::D_PRAGCTL_INVAL,
        "invalid control directive: #define",
        0,
    );
    check_error(
        outer,
        "#option quiet",
        ErrorTag::D_PRAGCTL_INVAL,
        "invalid control directive: #option",
        0,
    );
    check_error(
        outer,
        "#\"x\"",
        ErrorTag::D_PRAGCTL_INVAL,
        "invalid control directive",
        0,
    );
    check_error(
        outer,
        "#pragma D foo",
        ErrorTag::D_PRAGMA_INVAL,
        "invalid D pragma: foo",
        0,
    );
    check_error(
        outer,
        "#pragma D option",
        ErrorTag::D_PRAGMA_MALFORM,
        "malformed #pragma option <option>=<val>",
        0,
    );
    check_error(
        outer,
        "#pragma D option \"q\"",
        ErrorTag::D_PRAGMA_MALFORM,
        "malformed #pragma option <option>=<val>",
        0,
    );
    check_error(
        outer,
        "#pragma D option quiet flowindent",
        ErrorTag::D_PRAGMA_MALFORM,
        "superfluous arguments specified for #pragma option",
        0,
    );
    check_error(
        outer,
        "#error this is \"bad\" 3 x",
        ErrorTag::D_PRAGERR,
        "#error: this is bad x ",
        0,
    );
    check_error(
        outer,
        "#pragma error stop",
        ErrorTag::D_PRAGERR,
        "#error: stop ",
        0,
    );
    check_error(outer, "#error", ErrorTag::D_PRAGERR, "#error: ", 0);
    check_error(
        outer,
        "#line x",
        ErrorTag::D_PRAGMA_MALFORM,
        "malformed #line <val> [ [\"file\"] state ]",
        0,
    );
    check_error(
        outer,
        "# 5 6",
        ErrorTag::D_PRAGMA_MALFORM,
        "malformed #line <val> [ [\"file\"] state ]",
        0,
    );
    check_error(
        outer,
        "#line 5 \"f\" x",
        ErrorTag::D_PRAGMA_MALFORM,
        "malformed #line <val> [ [\"file\"] state ]",
        0,
    );
    check_error(
        outer,
        "#line 09",
        ErrorTag::D_INT_DIGIT,
        "constant 09 contains invalid digit 9",
        6,
    );
    // A `#` after other text on the line is not a control line.
    check_error(
        outer,
        "BEGIN #pragma",
        ErrorTag::D_SYNTAX,
        "syntax error near \"#\"",
        6,
    );
}

#[test]
fn every_keyword_and_built_in_typedef() {
    for keyword in Keyword::ALL {
        check_expression(keyword.text(), &format!("keyword {}", keyword.text()));
        check_outer(keyword.text(), &format!("keyword {}", keyword.text()));
    }
    for typedef in BUILT_IN_TYPEDEFS {
        check_expression(
            &format!("({typedef})"),
            &format!("punct ( | type {typedef} | punct )"),
        );
        check_outer(typedef, &format!("type {typedef}"));
    }
}
