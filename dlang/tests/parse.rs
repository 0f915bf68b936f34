//! Golden tests of the D parser: the AST as an S-expression dump for every construct,
//! operator precedence and associativity, command-line versus script rules, line
//! numbers, and every syntax error message.

use dlang::diagnostics::ErrorTag;
use dlang::parse::dump::{dump_expression, dump_program};
use dlang::parse::{parse_program, ParseContext, ProbeSpecifierOption, ProgramOrigin};

/// Parses `source` in `context` and compares the dump with `expected` (one line per
/// item; leading and trailing blank space of each expected line is ignored).
fn check_in(context: ParseContext, source: &str, expected: &str) {
    let parsed = parse_program(source, context)
        .unwrap_or_else(|failure| panic!("{source:?}: {:?}", failure.diagnostic));
    let expected: Vec<&str> = expected
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let dump = dump_program(&parsed.program);
    let actual: Vec<&str> = dump.lines().collect();
    assert_eq!(actual, expected, "dump of {source:?}");
}

/// A script file.
fn check(source: &str, expected: &str) {
    check_in(ParseContext::script_file(), source, expected);
}

/// The expression of `BEGIN { EXPRESSION; }`.
fn check_expression(expression: &str, expected: &str) {
    let source = format!("BEGIN {{ {expression}; }}");
    check(
        &source,
        &format!("(clause (probes \"BEGIN\") (block {expected}))"),
    );
}

/// Expects the first error of `source` in `context`: its tag, message and line.
fn check_error_in(context: ParseContext, source: &str, tag: ErrorTag, message: &str, line: u32) {
    let failure = parse_program(source, context).expect_err(source);
    let diagnostic = &failure.diagnostic;
    assert_eq!(
        (diagnostic.tag, diagnostic.message.as_str()),
        (tag, message),
        "error of {source:?}"
    );
    let span = diagnostic.span.clone().expect("syntax errors have a span");
    assert!(
        span.start <= span.end && span.end <= source.len(),
        "span {span:?} of {source:?}"
    );
    assert_eq!(
        failure.source_map.line_of(span.start),
        (None, line),
        "line of the error in {source:?}"
    );
}

fn check_error(source: &str, tag: ErrorTag, message: &str, line: u32) {
    check_error_in(ParseContext::script_file(), source, tag, message, line);
}

fn syntax_error(source: &str, message: &str, line: u32) {
    check_error(source, ErrorTag::D_SYNTAX, message, line);
}

#[test]
fn clauses() {
    check(
        "syscall::read:entry, syscall::write:entry /pid == 1/ { trace(arg0); }",
        r#"(clause (probes "syscall::read:entry" "syscall::write:entry") (predicate (== pid 1)) (block (call trace arg0)))"#,
    );
    check(
        "BEGIN {} END { exit(0) }",
        r#"
        (clause (probes "BEGIN") (block))
        (clause (probes "END") (block (call exit (int 0 octal))))"#,
    );
    check(
        "tick-1s /x/ {}",
        r#"(clause (probes "tick-1s") (predicate x) (block))"#,
    );
    check("1234 { }", r#"(clause (probes "1234") (block))"#);
    check(
        "BEGIN /x/ /* c */ {}",
        r#"(clause (probes "BEGIN") (predicate x) (block))"#,
    );
    check(
        "BEGIN\n/a / 2 > 1/\n{}",
        r#"(clause (probes "BEGIN") (predicate (> (/ a 2) 1)) (block))"#,
    );
    check(
        "BEGIN /a, b/ {}",
        r#"(clause (probes "BEGIN") (predicate (, a b)) (block))"#,
    );
    check("", "");
}

#[test]
fn statements() {
    check(
        "BEGIN { ; ; x = 1;; y = 2 }",
        r#"(clause (probes "BEGIN") (block (empty) (empty) (= x 1) (empty) (= y 2)))"#,
    );
    check(
        "BEGIN { x = 1; }",
        r#"(clause (probes "BEGIN") (block (= x 1)))"#,
    );
    check(
        "BEGIN { if (x) trace(1); else { trace(2); trace(3) } trace(4); }",
        r#"(clause (probes "BEGIN") (block (if x (call trace 1) (else (block (call trace 2) (call trace 3)))) (call trace 4)))"#,
    );
    check(
        "BEGIN { if (a) if (b) x = 1; else y = 2; }",
        r#"(clause (probes "BEGIN") (block (if a (if b (= x 1) (else (= y 2))))))"#,
    );
    check(
        "BEGIN { if (a) ; else if (b) {} }",
        r#"(clause (probes "BEGIN") (block (if a (empty) (else (if b (block))))))"#,
    );
}

#[test]
fn precedence_and_associativity() {
    check_expression("1 + 2 * 3 << 1", "(<< (+ 1 (* 2 3)) 1)");
    check_expression("a ^^ b || c && d", "(|| (^^ a b) (&& c d))");
    check_expression("a || b ^^ c && d", "(|| a (^^ b (&& c d)))");
    check_expression("a | b ^ c & d", "(| a (^ b (& c d)))");
    check_expression("a & b == c", "(& a (== b c))");
    check_expression("a == b < c", "(== a (< b c))");
    check_expression("a < b << c", "(< a (<< b c))");
    check_expression("a - b - c", "(- (- a b) c)");
    check_expression("a / b % c * d", "(* (% (/ a b) c) d)");
    check_expression("a ? b : c ? d : e", "(? a b (? c d e))");
    check_expression("a ? b, c : d", "(? a (, b c) d)");
    check_expression("a || b ? c : d", "(? (|| a b) c d)");
    check_expression("a = b += c", "(= a (+= b c))");
    check_expression("a = b ? c : d", "(= a (? b c d))");
    check_expression("a, b = c, d", "(, (, a (= b c)) d)");
    check_expression(
        "a -= 1, a *= 2, a /= 3, a %= 4, a &= 5, a ^= 6, a |= 7, a <<= 8, a >>= 9",
        "(, (, (, (, (, (, (, (, (-= a 1) (*= a 2)) (/= a 3)) (%= a 4)) (&= a 5)) (^= a 6)) (|= a 7)) (<<= a 8)) (>>= a 9))",
    );
    check_expression("(a + b) * c", "(* (+ a b) c)");
}

#[test]
fn unary_and_casts() {
    check_expression("-!~*&x", "(- (! (~ (* (& x)))))");
    check_expression("+x", "(+ x)");
    check_expression("++x--", "(pre++ (post-- x))");
    check_expression("--x", "(pre-- x)");
    check_expression("*p++", "(* (post++ p))");
    check_expression("-a * b", "(* (- a) b)");
    check_expression("(int)x", "(cast (type (int)) x)");
    check_expression("(int)-x", "(cast (type (int)) (- x))");
    check_expression("(char *)p + 1", "(+ (cast (type (char) (pointer)) p) 1)");
    check_expression("(int)(long)x", "(cast (type (int)) (cast (type (long)) x))");
    check_expression("-(int)x", "(- (cast (type (int)) x))");
    check_expression(
        "(unsigned long long)x",
        "(cast (type (unsigned long long)) x)",
    );
    check_expression(
        "(struct foo *)p",
        "(cast (type ((struct foo)) (pointer)) p)",
    );
    check_expression(
        "(const char * const *)p",
        "(cast (type (const char) (pointer) (pointer const)) p)",
    );
    check_expression(
        "(void (*)(int))f",
        "(cast (type (void) (pointer) (function (type (int)))) f)",
    );
    check_expression("(uint64_t)x", "(cast (type (uint64_t)) x)");
    check_expression("(x)(y)", "(call x y)");
    check_expression("(x)[1]", "(index x 1)");
    check_expression("sizeof x + 1", "(+ (sizeof x) 1)");
    check_expression("sizeof (x)[1]", "(sizeof (index x 1))");
    check_expression("sizeof(int) * 2", "(* (sizeof (type (int))) 2)");
    check_expression("sizeof(struct foo)", "(sizeof (type ((struct foo))))");
    check_expression("sizeof -x", "(sizeof (- x))");
    check_expression("stringof x", "(stringof x)");
    check_expression("stringof(x) == \"a\"", "(== (stringof x) \"a\")");
}

#[test]
fn postfix_and_primary_expressions() {
    check_expression(
        "x->y.z[1](2)++",
        "(post++ (call (index (. (-> x y) z) 1) 2))",
    );
    check_expression("a[x, y]", "(index a x y)");
    check_expression("f()", "(call f)");
    check_expression("f(a, (b, c))", "(call f a (, b c))");
    check_expression("self->x[1] = this->y", "(= (index self->x 1) this->y)");
    check_expression("self->p->q", "(-> self->p q)");
    check_expression(
        "@a[execname, pid] = count()",
        "(= (index @a execname pid) (call count))",
    );
    check_expression("@ = quantize(x)", "(= @_ (call quantize x))");
    check_expression(
        "offsetof(struct foo, bar)",
        "(offsetof (type ((struct foo))) bar)",
    );
    check_expression(
        "xlate <psinfo_t *>(curthread)->pr_pid",
        "(-> (xlate (type (psinfo_t) (pointer)) curthread) pr_pid)",
    );
    check_expression("vmlinux`jiffies + `max_pfn", "(+ vmlinux`jiffies `max_pfn)");
    check_expression(
        "$1 + $$2 + $target + $$pid",
        "(+ (+ (+ $1 $$2) $target) $$pid)",
    );
    check_expression("x.string + y->self", "(+ (. x string) (-> y self))");
    check_expression(
        "0x10 + 010 + 'a' + 1ul",
        "(+ (+ (+ (int 16 hex) (int 8 octal)) (int 97 char)) (int 1 u l))",
    );
    check_expression("\"a\\tb\\x01\"", "\"a\\tb\\x01\"");
    check_expression(
        "9223372036854775807 + 18446744073709551615u",
        "(+ 9223372036854775807 (int 18446744073709551615 u))",
    );
}

#[test]
fn declarations() {
    check(
        "int x; self int y; this char c; extern int z;",
        "
        (declaration (int) (declarator x))
        (declaration (self int) (declarator y))
        (declaration (this char) (declarator c))
        (declaration (extern int) (declarator z))",
    );
    // Storage classes D rejects are kept for semantic analysis to report.
    check(
        "static int a; auto int b; register int c;",
        "
        (declaration (static int) (declarator a))
        (declaration (auto int) (declarator b))
        (declaration (register int) (declarator c))",
    );
    check("int *a[4], (*b)[4], **c; char * const * p;", "
        (declaration (int) (declarator a (array 4) (pointer)) (declarator b (pointer) (array 4)) (declarator c (pointer) (pointer)))
        (declaration (char) (declarator p (pointer) (pointer const)))");
    check("int a[string, int]; int b[]; int (*fp)(int, char *, ...); int f(void);", "
        (declaration (int) (declarator a (keys (type (string)) (type (int)))))
        (declaration (int) (declarator b (array)))
        (declaration (int) (declarator fp (pointer) (function (type (int)) (type (char) (pointer)) ...)))
        (declaration (int) (declarator f (function (type (void)))))");
    check("int*x;", "(declaration (int) (declarator x (pointer)))");
    check(
        "unsigned long long x; const volatile int y; _Bool b;",
        "
        (declaration (unsigned long long) (declarator x))
        (declaration (const volatile int) (declarator y))
        (declaration (_Bool) (declarator b))",
    );
    check(
        "uint64_t t; size_t *s;",
        "
        (declaration (uint64_t) (declarator t))
        (declaration (size_t) (declarator s (pointer)))",
    );
}

#[test]
fn structs_unions_enums_and_typedefs() {
    check("struct s { int a : 3, : 2; char *p[4]; struct s *next; };", "
        (declaration ((struct s (members ((int) (declarator a) (bits 3) (declarator _) (bits 2)) ((char) (declarator p (array 4) (pointer))) (((struct s)) (declarator next (pointer)))))))");
    check("union u { int i; long l; } v;", "
        (declaration ((union u (members ((int) (declarator i)) ((long) (declarator l))))) (declarator v))");
    check(
        "enum e { A, B = 5, C, }; enum e x; enum { D } y;",
        "
        (declaration ((enum e (enumerators A (B 5) C))))
        (declaration ((enum e)) (declarator x))
        (declaration ((enum (enumerators D))) (declarator y))",
    );
    check(
        "struct vmlinux`task_struct *t;",
        "(declaration ((struct vmlinux`task_struct)) (declarator t (pointer)))",
    );
    // A typedef name is a type name from the next declaration on, in every lexer state.
    check(
        "typedef struct foo foo_t; foo_t *p; foo_t*q; BEGIN { x = (foo_t *)p; y = sizeof(foo_t); }",
        r#"
        (declaration (typedef (struct foo)) (declarator foo_t))
        (declaration (foo_t) (declarator p (pointer)))
        (declaration (foo_t) (declarator q (pointer)))
        (clause (probes "BEGIN") (block (= x (cast (type (foo_t) (pointer)) p)) (= y (sizeof (type (foo_t))))))"#,
    );
    // A declared variable is not a type name even if a typedef had that name.
    check(
        "typedef int t; int t; BEGIN { x = (t) + 1; }",
        r#"
        (declaration (typedef int) (declarator t))
        (declaration (int) (declarator t))
        (clause (probes "BEGIN") (block (= x (+ t 1))))"#,
    );
}

#[test]
fn inlines_translators_and_providers() {
    check(
        "inline int MAX = 256; inline string f[int a, string b] = b; inline foo_t *p = 0;",
        r#"
        (inline (type (int)) MAX 256)
        (inline (type (string)) f (parameters ((type (int)) a) ((type (string)) b)) b)
        (inline (type (foo_t) (pointer)) p (int 0 octal))"#,
    );
    check(
        "translator psinfo_t < struct task_struct *T > { pr_pid = T->tgid; pr_ppid = T->real_parent->tgid; };",
        "(translator (type (psinfo_t)) (type ((struct task_struct)) (pointer)) T (pr_pid (-> T tgid)) (pr_ppid (-> (-> T real_parent) tgid)))",
    );
    check(
        "translator a_t < int x > { };",
        "(translator (type (a_t)) (type (int)) x)",
    );
    check(
        "provider foo { probe bar(int, char *) : (int); probe baz(); probe q(void); };",
        "(provider foo (probe bar (arguments (type (int)) (type (char) (pointer))) (translated (type (int)))) (probe baz (arguments)) (probe q (arguments (type (void)))))",
    );
}

#[test]
fn pragmas() {
    check(
        "#pragma D option quiet\n#pragma D option bufsize=4m\nBEGIN {}\n#pragma D option x=\n",
        r#"
        (option quiet)
        (option bufsize "4m")
        (clause (probes "BEGIN") (block))
        (option x "")"#,
    );
    check(
        "#pragma D attributes Evolving/Evolving/Common provider foo\n#pragma D binding \"1.0\" x\n#pragma D depends_on module vmlinux\n",
        r#"
        (pragma "attributes" "Evolving/Evolving/Common" "provider" "foo")
        (pragma "binding" "1.0" "x")
        (pragma "depends_on" "module" "vmlinux")"#,
    );
    // A pragma inside a clause follows the clause.
    check(
        "BEGIN {\n#pragma D option quiet\n}",
        r#"
        (clause (probes "BEGIN") (block))
        (option quiet)"#,
    );
}

#[test]
fn command_line_programs() {
    let name = ParseContext::command_line(ProbeSpecifierOption::Name);
    check_in(
        name,
        "BEGIN",
        r#"(clause (probes "BEGIN") (default-action))"#,
    );
    check_in(
        name,
        "BEGIN, END",
        r#"(clause (probes "BEGIN" "END") (default-action))"#,
    );
    check_in(
        name,
        "BEGIN END {}",
        r#"
        (clause (probes "BEGIN") (default-action))
        (clause (probes "END") (block))"#,
    );
    check_in(
        name,
        "syscall::read:entry { @[probefunc] = count(); }",
        r#"(clause (probes "syscall::read:entry") (block (= (index @_ probefunc) (call count))))"#,
    );
    // -P/-m/-f/-i take the leading word as a description whatever it looks like.
    check_in(
        ParseContext::command_line(ProbeSpecifierOption::Provider),
        "int",
        r#"(clause (probes "int") (default-action))"#,
    );
    check_in(
        ParseContext::command_line(ProbeSpecifierOption::Module),
        "vmlinux",
        r#"(clause (probes "vmlinux") (default-action))"#,
    );
    check_in(
        ParseContext::command_line(ProbeSpecifierOption::Function),
        "sys_read { }",
        r#"(clause (probes "sys_read") (block))"#,
    );
    check_in(
        ParseContext::command_line(ProbeSpecifierOption::Identifier),
        "123",
        r#"(clause (probes "123") (default-action))"#,
    );
    check_in(
        name.with_probe_descriptions_only(),
        "self, int",
        r#"(clause (probes "self" "int") (default-action))"#,
    );
    let parsed = parse_program("BEGIN", name).expect("parses");
    assert_eq!(
        parsed.origin,
        ProgramOrigin::CommandLine(ProbeSpecifierOption::Name)
    );
}

#[test]
fn type_names_from_the_caller() {
    let known = |name: &str| matches!(name, "uid_t" | "vmlinux`pid_t");
    let context = ParseContext::script_file().with_type_names(&known);
    check_in(
        context,
        "uid_t u; BEGIN { x = (uid_t)1; y = (vmlinux`pid_t)2; }",
        r#"
        (declaration (uid_t) (declarator u))
        (clause (probes "BEGIN") (block (= x (cast (type (uid_t)) 1)) (= y (cast (type (vmlinux`pid_t)) 2))))"#,
    );
    // Without them the same text is a parenthesised expression.
    check_error(
        "BEGIN { x = (uid_t)1; }",
        ErrorTag::D_SYNTAX,
        "syntax error near \"1\"",
        1,
    );
}

#[test]
fn script_and_command_line_rules() {
    syntax_error(
        "BEGIN",
        "expected predicate and/or actions following probe description",
        1,
    );
    syntax_error(
        "BEGIN END {}",
        "expected predicate and/or actions following probe description",
        1,
    );
    syntax_error(
        "\nBEGIN, END\n",
        "expected predicate and/or actions following probe description",
        2,
    );
    syntax_error(
        "BEGIN\n/x/",
        "expected actions { } following probe description and predicate",
        2,
    );
    check_error_in(
        ParseContext::command_line(ProbeSpecifierOption::Name),
        "BEGIN /x/",
        ErrorTag::D_SYNTAX,
        "expected actions { } following probe description and predicate",
        1,
    );
    check_error_in(
        ParseContext::command_line(ProbeSpecifierOption::Name),
        "BEGIN }",
        ErrorTag::D_SYNTAX,
        "extra } in input stream",
        1,
    );
}

#[test]
fn syntax_errors() {
    syntax_error(
        "BEGIN { trace(1) trace(2) }",
        "syntax error near \"trace\"",
        1,
    );
    syntax_error("BEGIN\n{\n  x = ;\n}", "syntax error near \";\"", 3);
    syntax_error("BEGIN {", "syntax error near end of input", 1);
    syntax_error("BEGIN {\n", "syntax error near end of input", 2);
    syntax_error("BEGIN { while (1) {} }", "syntax error near \"while\"", 1);
    syntax_error("BEGIN { return; }", "syntax error near \"return\"", 1);
    // DTrace's lexer counts braces, parentheses and brackets and refuses a closing
    // one that closes nothing before the parser sees it.
    syntax_error("}", "extra } in input stream", 1);
    syntax_error("BEGIN { trace(1)); }", "extra ) in input stream", 1);
    syntax_error("BEGIN { x[1]] = 1; }", "extra ] in input stream", 1);
    syntax_error("BEGIN\n/1)/\n{ }", "extra ) in input stream", 2);
    syntax_error("BEGIN {};", "syntax error near \";\"", 1);
    syntax_error("BEGIN { {} }", "syntax error near \"{\"", 1);
    syntax_error("BEGIN { x = 1 + }", "syntax error near \"}\"", 1);
    syntax_error("BEGIN { a[] = 1; }", "syntax error near \"]\"", 1);
    syntax_error("BEGIN { self; }", "syntax error near \";\"", 1);
    syntax_error("BEGIN { a + b = c; }", "syntax error near \"=\"", 1);
    syntax_error("BEGIN { (int)x = c; }", "syntax error near \"=\"", 1);
    syntax_error("BEGIN { a ? b : c = d; }", "syntax error near \"=\"", 1);
    syntax_error("BEGIN { if (x) trace(1) }", "syntax error near \"}\"", 1);
    syntax_error("BEGIN { stringof (int)x; }", "syntax error near \"int\"", 1);
    syntax_error("BEGIN { x = y / ; }", "syntax error near \"/\"", 1);
    syntax_error("BEGIN { x->; }", "syntax error near \";\"", 1);
    syntax_error("BEGIN , { }", "syntax error near \"{\"", 1);
    syntax_error("int x = 5;", "syntax error near \"=\"", 1);
    syntax_error("int x", "syntax error near end of input", 1);
    syntax_error("struct;", "syntax error near \";\"", 1);
    syntax_error("enum e { };", "syntax error near \"}\"", 1);
    syntax_error("inline int = 5;", "syntax error near \"=\"", 1);
    syntax_error("provider p { int x; };", "syntax error near \"int\"", 1);
    syntax_error(
        "provider p { probe x(...); };",
        "syntax error near \"...\"",
        1,
    );
    syntax_error("translator a < int > { };", "syntax error near \">\"", 1);
    syntax_error("while", "syntax error near \"while\"", 1);
    syntax_error("@a", "syntax error near \"@a\"", 1);
    syntax_error(
        "BEGIN { x = \"a\" \"b\"; }",
        "syntax error near \"\"b\"\"",
        1,
    );
}

#[test]
fn predicate_errors() {
    syntax_error(
        "BEGIN /(x/ {}",
        "closing ) expected in predicate before /",
        1,
    );
    syntax_error(
        "BEGIN /a[1/ {}",
        "closing ] expected in predicate before /",
        1,
    );
    syntax_error(
        "BEGIN /x/;",
        "expected actions { } following probe description and predicate",
        1,
    );
    // A `/` followed by anything else is a division, so the predicate goes on.
    syntax_error("BEGIN /x/ y {}", "syntax error near \"{\"", 1);
}

#[test]
fn lexical_errors_through_the_parser() {
    check_error(
        "BEGIN { x = 09; }",
        ErrorTag::D_INT_DIGIT,
        "constant 09 contains invalid digit 9",
        1,
    );
    check_error(
        "\n\nBEGIN { x = 18446744073709551615; }",
        ErrorTag::D_INT_OFLOW,
        "integer constant 0xffffffffffffffff cannot be represented in any built-in integral type",
        3,
    );
    check_error(
        "BEGIN { x = 9223372036854775808ll; }",
        ErrorTag::D_INT_OFLOW,
        "integer constant 0x8000000000000000 cannot be represented in any built-in integral type",
        1,
    );
    check_error(
        "BEGIN { x = 1.0; }",
        ErrorTag::D_SYNTAX,
        "floating-point constants are not permitted",
        1,
    );
    check_error(
        "BEGIN\n{ x = \"abc\n\"; }",
        ErrorTag::D_STR_NL,
        "newline encountered in string literal",
        2,
    );
    check_error(
        "BEGIN { x = ''; }",
        ErrorTag::D_CHR_NULL,
        "empty character constant",
        1,
    );
    check_error(
        "#include <x.h>\nBEGIN {}",
        ErrorTag::D_PRAGCTL_INVAL,
        "invalid control directive: #include",
        1,
    );
    check_error(
        "BEGIN {}\n#pragma D nonsense",
        ErrorTag::D_PRAGMA_INVAL,
        "invalid D pragma: nonsense",
        2,
    );
    check_error(
        "#error stop here\nBEGIN {}",
        ErrorTag::D_PRAGERR,
        "#error: stop here ",
        1,
    );
}

#[test]
fn line_directives() {
    let failure = parse_program(
        "#line 10 \"foo.d\"\nBEGIN {\n x = ; }",
        ParseContext::script_file(),
    )
    .expect_err("fails");
    let span = failure.diagnostic.span.expect("span");
    assert_eq!(failure.source_map.line_of(span.start), (Some("foo.d"), 11));
    let failure = parse_program(
        "# 20 \"/dev/fd/3\"\n\nBEGIN { x = ; }",
        ParseContext::script_file(),
    )
    .expect_err("fails");
    let span = failure.diagnostic.span.expect("span");
    assert_eq!(failure.source_map.line_of(span.start), (None, 21));
    let failure = parse_program(
        "#line 5 \"a.d\"\n#pragma line 100\nBEGIN { x = ; }",
        ParseContext::script_file(),
    )
    .expect_err("fails");
    let span = failure.diagnostic.span.expect("span");
    assert_eq!(failure.source_map.line_of(span.start), (Some("a.d"), 100));
    let parsed = parse_program(
        "BEGIN {}\n#line 7 \"b.d\"\nEND {}\n",
        ParseContext::script_file(),
    )
    .expect("parses");
    assert_eq!(parsed.source_map.line_of(0), (None, 1));
    let source = "BEGIN {}\n#line 7 \"b.d\"\nEND {}\n";
    let parsed = parse_program(source, ParseContext::script_file()).expect("parses");
    let end = source.find("END").expect("END");
    assert_eq!(parsed.source_map.line_of(end), (Some("b.d"), 7));
    assert_eq!(parsed.source_map.line_of(source.len()), (Some("b.d"), 8));
}

#[test]
fn nesting_limits() {
    let deep_parentheses = format!("BEGIN {{ x = {}1{}; }}", "(".repeat(1000), ")".repeat(1000));
    syntax_error(&deep_parentheses, "expression nested too deeply", 1);
    let long_chain = format!("BEGIN {{ x = 1{}; }}", " + 1".repeat(2000));
    syntax_error(&long_chain, "expression nested too deeply", 1);
    let many_negations = format!("BEGIN {{ x = {}1; }}", "-".repeat(1000));
    syntax_error(&many_negations, "expression nested too deeply", 1);
    let deep_declarator = format!("int {}x{};", "(".repeat(1000), ")".repeat(1000));
    syntax_error(&deep_declarator, "expression nested too deeply", 1);
    let many_ifs = format!("BEGIN {{ {} x = 1; }}", "if (1) ".repeat(1000));
    syntax_error(&many_ifs, "expression nested too deeply", 1);
    // Reasonable programs stay well inside the limits.
    let moderate = format!(
        "BEGIN {{ x = {}1{}{}; }}",
        "(".repeat(50),
        ")".repeat(50),
        " || y".repeat(300)
    );
    assert!(parse_program(&moderate, ParseContext::script_file()).is_ok());
}

#[test]
fn expression_dump_is_reusable() {
    let parsed = parse_program("BEGIN { a = b; }", ParseContext::script_file()).expect("parses");
    let dlang::ast::Item::Clause(clause) = &parsed.program.items[0] else {
        panic!("a clause")
    };
    let body = clause.body.as_ref().expect("a body");
    let dlang::ast::Statement::Expression(expression) = &body.statements[0] else {
        panic!("an expression")
    };
    assert_eq!(dump_expression(expression), "(= a b)");
    assert_eq!(expression.span, 8..13);
}
