//! Tests of the printf format-string parser: piece structure, flags, widths, the
//! conversion table, DTrace's exact parse error messages and the argument rules.

use dlang::format::{
    ArgumentClass, ArgumentRole, ArgumentRule, ConversionBehavior, ConversionRule, FormatArgument,
    FormatPiece, FormatString, IntegerRadix, IntegerSignedness, ParseFormat, Precision,
    SyntaxDiagnostic, Width,
};

/// Parses `format` and renders its pieces compactly: literals as `"text"`, conversions
/// as `[#N name flags width precision]`.
fn describe(format: &str) -> String {
    let parsed = match FormatString::parse(format) {
        Ok(parsed) => parsed,
        Err(error) => return format!("error: {}", error.message),
    };
    let mut parts = Vec::new();
    for piece in &parsed.pieces {
        match piece {
            FormatPiece::Literal(text) => {
                parts.push(format!("{:?}", String::from_utf8_lossy(text)))
            }
            FormatPiece::Conversion(conversion) => {
                let f = conversion.flags;
                let mut flags = String::new();
                for (set, c) in [
                    (f.left_justify, '-'),
                    (f.plus_sign, '+'),
                    (f.space_sign, ' '),
                    (f.alternate, '#'),
                    (f.zero_pad, '0'),
                    (f.group_thousands, '\''),
                    (f.aggregation, '@'),
                ] {
                    if set {
                        flags.push(c);
                    }
                }
                let width = match conversion.width {
                    Width::None => "-".to_string(),
                    Width::Fixed(n) => n.to_string(),
                    Width::Dynamic => "*".to_string(),
                };
                let precision = match conversion.precision {
                    Precision::None => "-".to_string(),
                    Precision::Fixed(n) => n.to_string(),
                    Precision::Dynamic => "*".to_string(),
                };
                parts.push(format!(
                    "[#{} {} {:?} {} {}]",
                    conversion.number, conversion.name, flags, width, precision
                ));
            }
        }
    }
    parts.join(" ")
}

fn check(format: &str, expected: &str) {
    assert_eq!(describe(format), expected, "format {:?}", format);
}

#[test]
fn pieces_and_flags() {
    check("", "");
    check("hello\n", "\"hello\\n\"");
    check("%d", "[#1 d \"\" - -]");
    check(
        "a %d b %s c",
        "\"a \" [#1 d \"\" - -] \" b \" [#2 s \"\" - -] \" c\"",
    );
    check("%%", "[#1 % \"\" - -]");
    check("100%% %d", "\"100\" [#1 % \"\" - -] \" \" [#2 d \"\" - -]");
    check("%-20s", "[#1 s \"-\" 20 -]");
    check("%020d", "[#1 d \"0\" 20 -]");
    check("%-0d", "[#1 d \"0\" - -]");
    check("%0-d", "[#1 d \"-\" - -]");
    check("%+ #'d", "[#1 d \"+ #'\" - -]");
    check("%5.3d", "[#1 d \"\" 5 3]");
    check("%.d", "[#1 d \"\" - 0]");
    check("%.0s", "[#1 s \"\" - 0]");
    check("%*d", "[#1 d \"\" * -]");
    check("%.*s", "[#1 s \"\" - *]");
    check("%*.*f", "[#1 f \"\" * *]");
    check("%*5d", "[#1 d \"\" * -]");
    check("%?p", "[#1 p \"\" 16 -]");
    check("%-?p", "[#1 p \"-\" 16 -]");
    check("%@d", "[#1 d \"@\" - -]");
    check("%@-10u", "[#1 u \"-@\" 10 -]");
    check("%lld %llx %hd %ld %lu %Lf", "[#1 lld \"\" - -] \" \" [#2 llx \"\" - -] \" \" [#3 hd \"\" - -] \" \" [#4 ld \"\" - -] \" \" [#5 lu \"\" - -] \" \" [#6 Lf \"\" - -]");
    check(
        "%ls %ws %lc %wc",
        "[#1 ls \"\" - -] \" \" [#2 ws \"\" - -] \" \" [#3 lc \"\" - -] \" \" [#4 wc \"\" - -]",
    );
    check("%a%A%k%Y%T%S%C%p%I%P", "[#1 a \"\" - -] [#2 A \"\" - -] [#3 k \"\" - -] [#4 Y \"\" - -] [#5 T \"\" - -] [#6 S \"\" - -] [#7 C \"\" - -] [#8 p \"\" - -] [#9 I \"\" - -] [#10 P \"\" - -]");
    check(
        "%e%E%f%g%G",
        "[#1 e \"\" - -] [#2 E \"\" - -] [#3 f \"\" - -] [#4 g \"\" - -] [#5 G \"\" - -]",
    );
}

#[test]
fn parse_errors_use_dtrace_messages() {
    check(
        "%",
        "error: format conversion #1 name expected before end of format string",
    );
    check(
        "%d %",
        "error: format conversion #2 name expected before end of format string",
    );
    check(
        "%-5",
        "error: format conversion #1 name expected before end of format string",
    );
    check("%z", "error: format conversion #1 is undefined: %z");
    check("%% %q", "error: format conversion #2 is undefined: %q");
    check("%hhd", "error: format conversion #1 is undefined: %hhd");
    check("%lq", "error: format conversion #1 is undefined: %lq");
    check("%Ld", "error: format conversion #1 is undefined: %Ld");
    check(
        "%llllllllld",
        "error: format conversion #1 is undefined: %lllllld",
    );
    check("%é", "error: format conversion #1 is undefined: %é");
    check(
        "%1$d",
        "error: format conversion #1 uses unsupported positional format (%n$)",
    );
    check(
        "%-%",
        "error: format conversion #1 cannot be combined with other format flags: %%",
    );
    check(
        "%5%",
        "error: format conversion #1 cannot be combined with other format flags: %%",
    );
    check(
        "%5.3.2d",
        "error: format conversion #1 has more than one '.' specified",
    );
    check(
        "%**d",
        "error: format conversion #1 has more than one '*' specified for the output width",
    );
    check(
        "%.**d",
        "error: format conversion #1 has more than one '*' specified for the output precision",
    );
}

#[test]
fn parse_error_becomes_syntax_diagnostic() {
    let error = FormatString::parse("%z").unwrap_err();
    let diagnostic = error.to_diagnostic(3..7);
    assert_eq!(diagnostic.tag.name(), "D_SYNTAX");
    assert_eq!(diagnostic.message, "format conversion #1 is undefined: %z");
    assert_eq!(diagnostic.span, Some(3..7));
}

#[test]
fn conversion_behaviors() {
    let first = |format: &str| {
        FormatString::parse(format)
            .unwrap()
            .conversions()
            .next()
            .unwrap()
            .clone()
    };
    let integer = |radix, signedness| ConversionBehavior::Integer { radix, signedness };
    assert_eq!(
        first("%d").behavior,
        integer(IntegerRadix::Decimal, IntegerSignedness::FromArgument)
    );
    assert_eq!(
        first("%i").behavior,
        integer(IntegerRadix::Decimal, IntegerSignedness::FromArgument)
    );
    assert_eq!(
        first("%u").behavior,
        integer(IntegerRadix::Decimal, IntegerSignedness::Unsigned)
    );
    assert_eq!(
        first("%p").behavior,
        integer(IntegerRadix::HexLower, IntegerSignedness::Unsigned)
    );
    assert_eq!(
        first("%llX").behavior,
        integer(IntegerRadix::HexUpper, IntegerSignedness::Unsigned)
    );
    assert_eq!(
        first("%ho").behavior,
        integer(IntegerRadix::Octal, IntegerSignedness::Unsigned)
    );
    assert_eq!(
        first("%lld").behavior,
        integer(IntegerRadix::Decimal, IntegerSignedness::Signed)
    );
    assert_eq!(
        first("%LG").behavior,
        ConversionBehavior::FloatingPoint { conversion: 'G' }
    );
    assert_eq!(
        first("%e").behavior,
        ConversionBehavior::FloatingPoint { conversion: 'e' }
    );
    assert_eq!(first("%%").behavior, ConversionBehavior::Percent);
    assert_eq!(first("%k").behavior, ConversionBehavior::Stack);
    assert_eq!(first("%-20s").text, "%-20s");
    assert_eq!(first("%@d").label(), "%@d");
    assert_eq!(first("%llx").label(), "%llx");
}

#[test]
fn argument_positions() {
    let roles = |format: &str| -> Vec<Vec<ArgumentRole>> {
        FormatString::parse(format)
            .unwrap()
            .conversions()
            .map(|c| c.arguments())
            .collect()
    };
    use ArgumentRole::*;
    assert_eq!(roles("%d %% %s"), vec![vec![Value], vec![], vec![Value]]);
    assert_eq!(
        roles("%*.*d"),
        vec![vec![DynamicWidth, DynamicPrecision, Value]]
    );
    assert_eq!(roles("%@d %*@d"), vec![vec![], vec![DynamicWidth]]);
    assert!(FormatString::parse("%@d")
        .unwrap()
        .has_aggregation_conversion());
    assert!(!FormatString::parse("%d")
        .unwrap()
        .has_aggregation_conversion());
    assert!(FormatString::parse("").unwrap().is_empty());
}

fn rule(format: &str) -> ArgumentRule {
    FormatString::parse(format)
        .unwrap()
        .conversions()
        .next()
        .unwrap()
        .rule()
}

fn argument<'a>(
    class: ArgumentClass,
    name: &'a str,
    typedefs: &'a [&'a str],
) -> FormatArgument<'a> {
    FormatArgument {
        class,
        resolved_name: name,
        typedef_names: typedefs,
    }
}

#[test]
fn prototypes() {
    let cases = [
        ("%d", "char, short, int, long, or long long"),
        ("%x", "char, short, int, long, or long long"),
        ("%c", "char, short, or int"),
        ("%C", "char, short, or int"),
        ("%f", "float, double, or long double"),
        ("%p", "pointer or integer"),
        ("%a", "pointer or integer"),
        (
            "%A",
            "pointer or integer (with -p/-c) or _usymaddr (without -p/-c)",
        ),
        ("%s", "char [] or string (or use stringof)"),
        ("%S", "char [] or string (or use stringof)"),
        ("%ls", "wchar_t []"),
        ("%k", "stack"),
        ("%Y", "int64_t"),
        ("%T", "int64_t"),
        ("%hd", "short"),
        ("%hu", "unsigned short"),
        ("%hx", "short"),
        ("%ld", "long"),
        ("%lu", "unsigned long"),
        ("%lx", "long"),
        ("%lld", "long long"),
        ("%llu", "unsigned long long"),
        ("%llx", "long long"),
        ("%Lf", "long double"),
        ("%lc", "int"),
        ("%P", "uint16_t"),
    ];
    for (format, prototype) in cases {
        assert_eq!(rule(format).prototype(), prototype, "format {}", format);
    }
}

#[test]
fn argument_rules() {
    let int = argument(
        ArgumentClass::Integer {
            size: 4,
            signed: true,
        },
        "int",
        &[],
    );
    let uint = argument(
        ArgumentClass::Integer {
            size: 4,
            signed: false,
        },
        "unsigned int",
        &[],
    );
    let char_ = argument(
        ArgumentClass::Integer {
            size: 1,
            signed: true,
        },
        "char",
        &[],
    );
    let short = argument(
        ArgumentClass::Integer {
            size: 2,
            signed: true,
        },
        "short",
        &[],
    );
    let ushort = argument(
        ArgumentClass::Integer {
            size: 2,
            signed: false,
        },
        "unsigned short",
        &["uint16_t"],
    );
    let long = argument(
        ArgumentClass::Integer {
            size: 8,
            signed: true,
        },
        "long",
        &[],
    );
    let ulong_u64 = argument(
        ArgumentClass::Integer {
            size: 8,
            signed: false,
        },
        "unsigned long",
        &["uint64_t"],
    );
    let longlong = argument(
        ArgumentClass::Integer {
            size: 8,
            signed: true,
        },
        "long long",
        &[],
    );
    let string = argument(ArgumentClass::String, "string", &[]);
    let chars = argument(ArgumentClass::CharArray, "char [16]", &[]);
    let pointer = argument(ArgumentClass::Pointer, "void *", &[]);
    let double = argument(ArgumentClass::Float { size: 8 }, "double", &[]);
    let long_double = argument(ArgumentClass::Float { size: 16 }, "long double", &[]);
    let stack = argument(ArgumentClass::Stack, "stack", &[]);
    let symaddr = argument(ArgumentClass::SymbolAddress, "_symaddr", &[]);
    let usymaddr = argument(ArgumentClass::UserSymbolAddress, "_usymaddr", &[]);
    let enumeration = argument(ArgumentClass::Enum { size: 4 }, "enum e", &[]);
    let structure = argument(ArgumentClass::Other, "struct foo", &[]);

    let accepts =
        |format: &str, arg: &FormatArgument, traced: bool| rule(format).accepts(arg, traced);

    assert!(accepts("%d", &int, false));
    assert!(accepts("%d", &enumeration, false));
    assert!(accepts("%d", &char_, false));
    assert!(!accepts("%d", &string, false));
    assert!(!accepts("%d", &pointer, false));
    assert!(!accepts("%d", &structure, false));
    assert!(accepts("%c", &int, false));
    assert!(!accepts("%c", &long, false));
    assert!(accepts("%s", &string, false));
    assert!(accepts("%s", &chars, false));
    assert!(!accepts("%s", &int, false));
    assert!(accepts("%p", &pointer, false));
    assert!(accepts("%p", &int, false));
    assert!(accepts("%a", &symaddr, false));
    assert!(accepts("%a", &pointer, false));
    assert!(accepts("%A", &usymaddr, false));
    assert!(!accepts("%A", &pointer, false));
    assert!(accepts("%A", &pointer, true));
    assert!(accepts("%k", &stack, false));
    assert!(!accepts("%k", &long, false));
    assert!(accepts("%Y", &long, false));
    assert!(accepts("%Y", &ulong_u64, false));
    assert!(!accepts("%Y", &int, false));
    assert!(accepts("%f", &double, false));
    assert!(!accepts("%f", &int, false));
    assert!(accepts("%Lf", &long_double, false));
    assert!(!accepts("%Lf", &double, false));
    assert!(accepts("%hd", &short, false));
    assert!(!accepts("%hd", &ushort, false));
    assert!(accepts("%hu", &ushort, false));
    assert!(accepts("%hx", &ushort, false));
    assert!(accepts("%hx", &short, false));
    assert!(!accepts("%hx", &int, false));
    assert!(accepts("%ld", &long, false));
    assert!(accepts("%ld", &longlong, false));
    assert!(!accepts("%ld", &uint, false));
    assert!(accepts("%lx", &ulong_u64, false));
    assert!(!accepts("%lx", &longlong, false));
    assert!(accepts("%llx", &longlong, false));
    assert!(accepts("%llx", &ulong_u64, false));
    assert!(!accepts("%llx", &long, false));
    assert!(accepts("%lld", &long, false));
    assert!(accepts("%llu", &ulong_u64, false));
    assert!(accepts("%lc", &int, false));
    assert!(!accepts("%%", &int, false));
}
