//! Code generation tests: D programs compiled, verified and run on the reference
//! interpreter, checking the values they record (precedence, D's promotion rules,
//! strings, division, variables, control flow).

mod compile_support;

use compile_support::run;

/// Runs `BEGIN { trace(EXPR); }` style programs: `body` is the clause body, and the
/// recorded values must be `expected`.
fn check(body: &str, expected: &[&str]) {
    let text = format!("BEGIN {{ {body} }}");
    let result = run(&text);
    assert!(
        result.faults.is_empty(),
        "{text}: faults {:?}",
        result.faults
    );
    assert_eq!(result.values(), expected, "{text}");
}

#[test]
fn precedence_and_arithmetic() {
    check("x = 1 + 2 * 3 << 1; trace(x);", &["14"]);
    check("trace(10 - 4 - 3);", &["3"]);
    check("trace((1 + 2) * 3);", &["9"]);
    check(
        "a = 7; b = 2; trace(a / b); trace(a % b); trace(-a / b); trace(-a % b);",
        &["3", "1", "-3", "-1"],
    );
    check(
        "a = 6; trace(a & 3); trace(a | 1); trace(a ^ 5); trace(~a);",
        &["2", "7", "3", "-7"],
    );
    check(
        "a = 1; trace(a << 40); trace((long)a << 40); trace(-16 >> 2);",
        &["0", "1099511627776", "-4"],
    );
}

#[test]
fn promotion_and_narrowing() {
    // D's rank rule: int + unsigned is unsigned int; char + char stays char.
    check("x = -1; y = 1u; trace(x + y);", &["0"]);
    check("c = (char)100; trace(c + c);", &["-56"]);
    check(
        "trace((char)300); trace((unsigned char)-1); trace((short)70000);",
        &["44", "255", "4464"],
    );
    check("x = (int)0x1ffffffffLL; trace(x);", &["-1"]);
    check(
        "x = (unsigned)-1; trace(x); trace((long)x);",
        &["4294967295", "4294967295"],
    );
    check(
        "x = -5; trace((unsigned long)x);",
        &["18446744073709551611"],
    );
    assert_eq!(
        run("int i; BEGIN { i = 0x100000005LL; trace(i); }").values(),
        ["5"]
    );
    // Integer literal typing: hexadecimal constants that do not fit int are unsigned.
    check(
        "trace(0xffffffff); trace(4294967295);",
        &["4294967295", "4294967295"],
    );
}

#[test]
fn comparisons() {
    check(
        "trace(1 < 2); trace(2 <= 1); trace(3 == 3); trace(3 != 3);",
        &["1", "0", "1", "0"],
    );
    // Signed versus unsigned comparison after promotion.
    check("x = -1; trace(x < 1); y = 1u; trace(x < y);", &["1", "0"]);
    check(
        "a = 5; b = 7; trace(a > b); trace(a >= 5); trace(b > a);",
        &["0", "1", "1"],
    );
}

#[test]
fn strings() {
    check(
        "s = \"abc\"; trace(s); trace(s == \"abc\"); trace(s < \"abd\"); trace(s > \"abd\");",
        &["abc", "1", "1", "0"],
    );
    check(
        "trace(strlen(\"hello\")); trace(strjoin(\"foo\", \"bar\"));",
        &["5", "foobar"],
    );
    check(
        "trace(substr(\"hello\", 1, 3)); trace(index(\"hello\", \"l\"));",
        &["ell", "2"],
    );
    check(
        "trace(execname); trace(execname == \"dtrace\");",
        &["dtrace", "1"],
    );
    check("s = \"abc\"; trace(s + 1);", &["bc"]);
    check("trace(stringof(12345));", &["12345"]);
}

#[test]
fn logical_operators_short_circuit() {
    check(
        "x = 0; y = (1 || (x = 5)); trace(x); trace(y);",
        &["0", "1"],
    );
    check(
        "x = 0; y = (0 && (x = 5)); trace(x); trace(y);",
        &["0", "0"],
    );
    check(
        "x = 0; y = (1 && (x = 5)); trace(x); trace(y);",
        &["5", "1"],
    );
    check(
        "a = 3; trace(a ^^ 0); trace(a ^^ 4); trace(!a); trace(!0);",
        &["1", "0", "0", "1"],
    );
    check(
        "a = 2; trace(a > 1 ? 10 : 20); trace(a > 5 ? 10 : 20);",
        &["10", "20"],
    );
}

#[test]
fn variables() {
    check("x = 1; x += 4; x *= 3; x -= 1; x <<= 2; trace(x);", &["56"]);
    check(
        "x = 5; trace(x++); trace(x); trace(--x); trace(x--); trace(x);",
        &["5", "6", "5", "5", "4"],
    );
    check("self->t = 10; self->t++; trace(self->t);", &["11"]);
    check(
        "this->v = 3; this->w = this->v * 2; trace(this->w);",
        &["6"],
    );
    check(
        "a[\"x\", 1] = 5; a[\"y\", 2] = 6; trace(a[\"x\", 1] + a[\"y\", 2]); trace(a[\"z\", 3]);",
        &["11", "0"],
    );
    check(
        "a[1] = 5; a[1] = 0; trace(a[1]); a[2]++; a[2]++; trace(a[2]);",
        &["0", "2"],
    );
    check("self->s[\"k\"] = \"v\"; trace(self->s[\"k\"]);", &["v"]);
    check("s = \"first\"; s = \"second\"; trace(s);", &["second"]);
}

#[test]
fn division_by_runtime_zero_faults() {
    let result = run("BEGIN { x = 0; trace(1 / x); }");
    assert_eq!(result.faults.len(), 1, "{:?}", result.faults);
    assert!(
        result.faults[0].contains("DivideByZero") || result.faults[0].contains("divide"),
        "{:?}",
        result.faults
    );
}

#[test]
fn deep_expressions_spill_registers() {
    // Right-nested expressions hold one register per level.
    let mut expression = String::from("x");
    for value in 1..=12 {
        expression = format!("({value} + (x * {expression}))");
    }
    let text = format!("x = 1; trace({expression});");
    check(&text, &["79"]);
    let arguments: Vec<String> = (1..=9)
        .map(|i| format!("(x + {i}) * (x + (x + (x + (x + (x + (x + {i}))))))"))
        .collect();
    check(
        &format!("x = 1; trace({});", arguments.join(" + ")),
        &["654"],
    );
}

#[test]
fn memory_members_and_bit_fields() {
    let text = "struct s { char c; int i; unsigned int low : 4; int high : 5; long l; }; \
        BEGIN { this->p = (struct s *)alloca(sizeof (struct s)); this->p->c = 'a'; this->p->i = -7; \
        this->p->low = 9; this->p->high = -3; this->p->l = 1LL << 40; \
        trace(this->p->c); trace(this->p->i); trace(this->p->low); trace(this->p->high); trace(this->p->l); \
        this->p->low++; trace(this->p->low); trace((*this->p).i); }";
    assert_eq!(
        run(text).values(),
        ["97", "-7", "9", "-3", "1099511627776", "10", "-7"]
    );
}

#[test]
fn pointer_arithmetic_scales() {
    let text =
        "BEGIN { this->p = (int *)alloca(16); this->p[0] = 1; this->p[1] = 2; this->p[3] = 4; \
        trace(*(this->p + 1)); trace(this->p[3]); this->q = this->p + 3; trace(this->q - this->p); \
        this->q--; trace(*this->q); }";
    assert_eq!(run(text).values(), ["2", "4", "3", "0"]);
}

#[test]
fn aggregations_run() {
    let result = run("BEGIN { @c = count(); @c = count(); @s[\"k\"] = sum(5); @s[\"k\"] = sum(6); @m = max(3); @m = max(9); @m = max(4); }");
    let mut values: Vec<(u32, Vec<i64>)> = result
        .aggregations
        .iter()
        .map(|(id, _, value)| (*id, value.clone()))
        .collect();
    values.sort();
    // count and max hold one word; the key of @s is the string "k" padded to strsize.
    assert_eq!(values[0], (1, vec![2]));
    assert_eq!(values[1], (2, vec![11]));
    assert_eq!(values[2], (3, vec![9]));
    let key = &result
        .aggregations
        .iter()
        .find(|(id, _, _)| *id == 2)
        .map(|(_, key, _)| key.clone())
        .unwrap_or_default();
    assert_eq!(key.len(), 256);
    assert_eq!(&key[..2], b"k\0");
}

#[test]
fn printf_and_exit_record_values() {
    let result = run("BEGIN { printf(\"%d %s\", 7, execname); exit(3); }");
    assert_eq!(result.values(), ["7", "dtrace", "3"]);
    assert_eq!(result.exit_status, Some(3));
}

#[test]
fn clause_locals_are_shared_by_the_clauses_of_a_firing() {
    let result = run("BEGIN { this->x = 5; } BEGIN { trace(this->x); } END { x = 1; }");
    assert_eq!(result.values(), ["5"]);
}

#[test]
fn clause_locals_may_change_type_in_another_clause() {
    let result =
        run("BEGIN { this->x = \"text\"; trace(this->x); } END { this->x = 7; trace(this->x); }");
    assert_eq!(result.values(), ["text", "7"]);
    let (tag, _) = compile_support::error_of("BEGIN { this->x = \"text\"; this->x = 7; }");
    assert_eq!(tag, "D_OP_INCOMPAT");
}

#[test]
fn predicates_select_clauses() {
    let result = run("BEGIN { x = 1; } BEGIN /execname == \"dtrace\"/ { trace(1); } BEGIN /pid != 42/ { trace(2); } END /x == 0/ { trace(3); }");
    // The first clause stores nothing, so, as in DTrace, it writes no record at all.
    assert_eq!(result.records, vec![vec!["1".to_string()]]);
}

/// Like [`check`], with top-level declarations before the BEGIN clause.
fn check_declared(declarations: &str, body: &str, expected: &[&str]) {
    let text = format!("{declarations} BEGIN {{ {body} }}");
    let result = run(&text);
    assert!(
        result.faults.is_empty(),
        "{text}: faults {:?}",
        result.faults
    );
    assert_eq!(result.values(), expected, "{text}");
}

#[test]
fn static_arrays_are_kept_in_memory() {
    check_declared(
        "int a[4];",
        "a[0] = 10; a[3] = 40; a[1]++; a[1] += 5; trace(a[0]); trace(a[1]); trace(a[2]); trace(a[3]);",
        &["10", "6", "0", "40"],
    );
    // Elements are converted to the element type on store.
    check_declared(
        "char c[3];",
        "c[1] = 300; trace(c[1]); trace(sizeof (c));",
        &["44", "3"],
    );
    // An index outside the array (computed at run time) reads 0 and stores nothing:
    // DIF cannot raise `index out of bounds` by itself.
    check_declared(
        "int a[4];",
        "i = 4; j = -1; a[i] = 7; a[j] = 8; a[i - 1] = 9; trace(a[i]); trace(a[j]); trace(a[3]);",
        &["0", "0", "9"],
    );
    // Assigning 0 deletes the element, which then reads 0 like one never assigned.
    check_declared("int a[4];", "a[2] = 5; a[2] = 0; trace(a[2]);", &["0"]);
    let program = compile_support::compiled("int a[4]; BEGIN { i = 3; a[i] = 1; trace(a[i]); }");
    let listing = dlang::compile::dif_listing(&program);
    assert!(listing.contains("bgeu"), "{listing}");
    assert!(listing.contains("ldgs DT_VAR(1280)"), "{listing}");
    assert!(listing.contains("stw"), "{listing}");
    assert!(listing.contains("ldsw"), "{listing}");
}

#[test]
fn speculation_commits() {
    let result = run("BEGIN { self->spec = speculation(); } BEGIN { speculate(self->spec); trace(7); } BEGIN { commit(self->spec); }");
    assert!(result.faults.is_empty(), "{:?}", result.faults);
    assert!(
        result.values().contains(&"7".to_string()),
        "{:?}",
        result.values()
    );
}

#[test]
fn casts_and_conditional_strings() {
    check(
        "x = 3; trace(x > 2 ? \"big\" : \"small\"); trace((x > 5) ? \"big\" : \"small\");",
        &["big", "small"],
    );
    check(
        "trace(sizeof (int)); trace(sizeof (string)); s = \"abc\"; trace(sizeof (s));",
        &["4", "256", "256"],
    );
    check(
        "trace(htons(0x1234)); trace(lltostr(-42));",
        &["13330", "-42"],
    );
}

#[test]
fn deeply_nested_expressions_compile() {
    // The parser bounds expression depth; every depth it accepts must compile within a
    // test thread's stack.
    let right_nested = format!("x = 1; y = {}x{};", "(1 + ".repeat(200), ")".repeat(200));
    let left_chain = format!("x = 1; y = x{};", " + 1".repeat(500));
    let unary = format!("x = 1; y = {}x;", "- ".repeat(500));
    for body in [right_nested, left_chain, unary] {
        let text = format!("BEGIN {{ {body} trace(y); }}");
        match compile_support::compile_script(&text) {
            Ok(compilation) => {
                let result = compile_support::run_program(compilation.program);
                assert!(result.faults.is_empty(), "{:?}", result.faults);
            }
            Err(error) => assert_eq!(
                error.diagnostic.tag.name(),
                "D_SYNTAX",
                "{}",
                error.diagnostic.message
            ),
        }
    }
}

#[test]
fn inlines_enums_and_translators() {
    let text = "inline int MAX = 256; inline int twice[int v] = v * 2; enum color { RED, GREEN = 5, BLUE }; \
        struct out { int a; }; translator struct out < int x > { a = x * 2; }; \
        BEGIN { trace(MAX); trace(twice[21]); trace(BLUE); c = GREEN; trace(c == GREEN); trace(xlate <struct out> (21).a); }";
    assert_eq!(run(text).values(), ["256", "42", "6", "1", "42"]);
}

#[test]
fn by_reference_variables() {
    let text = "struct pair { int a; int b; }; \
        BEGIN { this->p = (struct pair *)alloca(sizeof (struct pair)); this->p->a = 1; this->p->b = 2; \
        s = *this->p; this->p->a = 9; trace(s.a); trace(s.b); \
        names[\"k\"] = \"value\"; trace(names[\"k\"]); names[\"k\"] = 0; trace(names[\"k\"] == \"\"); }";
    assert_eq!(run(text).values(), ["1", "2", "value", "1"]);
}

#[test]
fn quantize_buckets() {
    let result = run("BEGIN { @q = quantize(0); @q = quantize(5); @q = quantize(5); @l = lquantize(15, 0, 100, 10); }");
    let quantize = result
        .aggregations
        .iter()
        .find(|(id, _, _)| *id == 1)
        .map(|(_, _, value)| value.clone())
        .unwrap_or_default();
    assert_eq!(quantize.iter().sum::<i64>(), 3);
    let linear = result
        .aggregations
        .iter()
        .find(|(id, _, _)| *id == 2)
        .map(|(_, _, value)| value.clone())
        .unwrap_or_default();
    // Bucket 0 is the underflow; 15 lands in [10, 20), bucket 2.
    assert_eq!(linear.get(2), Some(&1));
}

#[test]
fn nested_calls_keep_the_tuple_stack_straight() {
    check(
        "a[\"x\"] = \"left\"; b[\"y\"] = \"right\"; trace(strjoin(strjoin(a[\"x\"], \"-\"), b[\"y\"]));",
        &["left-right"],
    );
    check(
        "k[strjoin(\"a\", \"b\"), strlen(\"xyz\")] = 5; trace(k[\"ab\", 3]);",
        &["5"],
    );
    check("trace(substr(strjoin(\"hello\", \" world\"), strlen(\"ab\") + 4, index(\"abc\", \"c\") + 3));", &["world"]);
}

#[test]
fn typed_probe_arguments() {
    let result = compile_support::run_probe(
        "syscall::read:entry { trace(args[0]); trace(args[2]); trace(arg0); }",
        4,
        &[0xffff_ffff, 0x1000, 7],
    );
    assert!(result.faults.is_empty(), "{:?}", result.faults);
    assert_eq!(result.values(), ["-1", "7", "4294967295"]);
}

#[test]
fn struct_members_of_variables_are_stored_in_every_variable_class() {
    let declarations = "struct pt { int x; int y; unsigned f:3; }; struct pt g; \
                        self struct pt t; struct pt a[int];";
    let program = format!(
        "{declarations} BEGIN {{ g.x = 1; g.y = g.x + 1; g.f = 13; trace(g.x); trace(g.y); \
         trace(g.f); self->t.y = 4; self->t.y++; trace(self->t.x); trace(self->t.y); \
         a[3].x = 6; a[3].x *= 7; trace(a[3].x); trace(a[4].y); this->p = g; \
         this->p.x = -2; trace(this->p.x); trace(g.x); }}"
    );
    let result = run(&program);
    assert!(result.faults.is_empty(), "faults {:?}", result.faults);
    assert_eq!(
        result.values(),
        ["1", "2", "5", "0", "5", "42", "0", "-2", "1"]
    );
}

#[test]
fn struct_member_stores_survive_register_pressure() {
    // The whole-variable rewrite holds the scratch copy while the member's offset and the
    // stored value are computed; deep expressions on both sides force spills.
    let program = "struct big { long v[8]; }; struct big g; self struct big t; \
                   BEGIN { i = 2; j = 3; \
                   g.v[i + (j * (i + (j * (i + j))))  % 8] = ((i + 1) * (j + (i * (j + (i * j))))); \
                   self->t.v[(i * (j + (i * (j + 1)))) % 8] = (i * (j + (i * (j + (i * (j + 1)))))); \
                   trace(g.v[(2 + 3 * (2 + 3 * 5)) % 8]); trace(self->t.v[(2 * (3 + 2 * 4)) % 8]); }";
    let result = run(program);
    assert!(result.faults.is_empty(), "faults {:?}", result.faults);
    assert_eq!(result.values(), ["63", "50"]);
}
