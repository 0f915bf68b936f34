//! Tests of the printf engine: the C primitives against the C library's own snprintf,
//! and D conversions of recorded values (sizes, signedness, escapes, symbols, stacks,
//! times, dynamic widths, aggregation values).

use std::ffi::CString;

use consumer::record::{RecordValue, StackFrames};
use consumer::render::c_format::{
    format_bytes_as_string, format_float, format_signed, format_unsigned, CFormatSpec, Radix,
};
use consumer::render::histogram::HistogramStyle;
use consumer::render::printf::{
    escape_bytes, format_printa_entry, format_printf, time, AggregationValue, PrintfContext,
};
use consumer::render::symbols::{NoSymbols, SymbolLookup, SymbolName, SymbolResolver};
use difvm::aggregation::AggregationRule;
use difvm::object::{AggregationFunction, SymbolFormat};
use dlang::format::{FormatString, ParseFormat};

/// The C library's output for a format with one argument.
fn c_snprintf(format: &str, argument: CArgument) -> String {
    let format = CString::new(format).unwrap();
    let mut buffer = vec![0u8; 512];
    // SAFETY: the buffer is writable for its length and each call passes exactly the
    // argument type its format's conversion expects.
    let length = unsafe {
        let out = buffer.as_mut_ptr().cast();
        match argument {
            CArgument::Signed(value) => libc::snprintf(out, buffer.len(), format.as_ptr(), value),
            CArgument::Unsigned(value) => libc::snprintf(out, buffer.len(), format.as_ptr(), value),
            CArgument::Double(value) => libc::snprintf(out, buffer.len(), format.as_ptr(), value),
            CArgument::Text(ref text) => {
                libc::snprintf(out, buffer.len(), format.as_ptr(), text.as_ptr())
            }
        }
    };
    buffer.truncate(length as usize);
    String::from_utf8(buffer).unwrap()
}

enum CArgument {
    Signed(i64),
    Unsigned(u64),
    Double(f64),
    Text(CString),
}

/// Every combination of flags, widths and precisions to try, with its C spelling.
fn specs() -> Vec<(String, CFormatSpec)> {
    let mut specs = Vec::new();
    for flags in 0..32u32 {
        for width in [None, Some(1), Some(6), Some(22)] {
            for precision in [None, Some(0), Some(1), Some(4), Some(12)] {
                let spec = CFormatSpec {
                    left_justify: flags & 1 != 0,
                    plus_sign: flags & 2 != 0,
                    space_sign: flags & 4 != 0,
                    alternate: flags & 8 != 0,
                    zero_pad: flags & 16 != 0,
                    width: width.unwrap_or(0),
                    precision,
                };
                let mut text = String::from("%");
                for (set, c) in [(1, '-'), (2, '+'), (4, ' '), (8, '#'), (16, '0')] {
                    if flags & set != 0 {
                        text.push(c);
                    }
                }
                if let Some(width) = width {
                    text.push_str(&width.to_string());
                }
                if let Some(precision) = precision {
                    text.push_str(&format!(".{}", precision));
                }
                specs.push((text, spec));
            }
        }
    }
    specs
}

#[test]
fn integers_match_the_c_library() {
    let values = [
        0i64,
        1,
        -1,
        7,
        42,
        -42,
        65535,
        123456789,
        i64::MIN,
        i64::MAX,
    ];
    for (c_spec, spec) in specs() {
        for value in values {
            let mut ours = String::new();
            format_signed(&mut ours, &spec, value);
            let expected = c_snprintf(&format!("{}lld", c_spec), CArgument::Signed(value));
            assert_eq!(ours, expected, "{}lld of {}", c_spec, value);
            for (radix, conversion) in [
                (Radix::Decimal, 'u'),
                (Radix::Octal, 'o'),
                (Radix::HexLower, 'x'),
                (Radix::HexUpper, 'X'),
            ] {
                let mut ours = String::new();
                format_unsigned(&mut ours, &spec, value as u64, radix);
                let c_format = format!("{}ll{}", c_spec, conversion);
                let expected = c_snprintf(&c_format, CArgument::Unsigned(value as u64));
                assert_eq!(ours, expected, "{} of {}", c_format, value);
            }
        }
    }
}

#[test]
fn strings_match_the_c_library() {
    for (c_spec, spec) in specs() {
        for text in ["", "a", "hello", "a somewhat longer string"] {
            let mut ours = String::new();
            format_bytes_as_string(&mut ours, &spec, text.as_bytes());
            let c_format = format!("{}s", c_spec);
            let expected = c_snprintf(&c_format, CArgument::Text(CString::new(text).unwrap()));
            assert_eq!(ours, expected, "{} of {:?}", c_format, text);
        }
    }
}

#[test]
fn floats_match_the_c_library() {
    let values = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        0.125,
        0.1,
        123.456,
        -123.456,
        1e-5,
        0.0001,
        0.00001234,
        99999.5,
        999999.5,
        1e10,
        1e100,
        1.7976931348623157e308,
        5e-324,
        123456789.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let mut failures = Vec::new();
    for (c_spec, spec) in specs() {
        for value in values {
            for conversion in ['e', 'E', 'f', 'g', 'G'] {
                let mut ours = String::new();
                format_float(&mut ours, &spec, value, conversion);
                let c_format = format!("{}{}", c_spec, conversion);
                let expected = c_snprintf(&c_format, CArgument::Double(value));
                // glibc drops the trailing zeros of `%#g` when rounding carries into a
                // new power of ten (999999.5 → "1.e+06"); C requires "1.00000e+06".
                let glibc_carry_bug =
                    spec.alternate && matches!(conversion, 'g' | 'G') && value == 999999.5;
                if ours != expected && !glibc_carry_bug {
                    failures.push(format!(
                        "{} of {}: ours {:?}, C {:?}",
                        c_format, value, ours, expected
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A resolver with one kernel module and one user object.
struct TestSymbols;

impl SymbolResolver for TestSymbols {
    fn kernel_symbol(&self, address: u64) -> Option<SymbolLookup> {
        let symbol = |name: &str, start: u64| {
            Some(SymbolName {
                name: name.to_string(),
                address: start,
            })
        };
        match address {
            0x1000..=0x10ff => Some(SymbolLookup {
                module: "vmlinux".into(),
                symbol: symbol("ksys_read", 0x1000),
            }),
            0x1100..=0x11ff => Some(SymbolLookup {
                module: "vmlinux".into(),
                symbol: symbol("do_syscall_64", 0x1100),
            }),
            0x2000..=0x2fff => Some(SymbolLookup {
                module: "ext4".into(),
                symbol: None,
            }),
            _ => None,
        }
    }

    fn user_symbol(&self, pid: u64, address: u64) -> Option<SymbolLookup> {
        match (pid, address) {
            (42, 0x400000..=0x4000ff) => Some(SymbolLookup {
                module: "libc.so.6".into(),
                symbol: Some(SymbolName {
                    name: "read".into(),
                    address: 0x400000,
                }),
            }),
            _ => None,
        }
    }
}

fn int(value: i64, size: u32, signed: bool) -> RecordValue<'static> {
    let bits = if size == 8 {
        value as u64
    } else {
        (value as u64) & ((1u64 << (size * 8)) - 1)
    };
    RecordValue::Integer { bits, size, signed }
}

fn render(format: &str, values: &[RecordValue<'_>]) -> String {
    render_with(format, values, &TestSymbols, None)
}

fn render_with(
    format: &str,
    values: &[RecordValue<'_>],
    resolver: &dyn SymbolResolver,
    target_pid: Option<u64>,
) -> String {
    let parsed = FormatString::parse(format).unwrap();
    let mut out = String::new();
    format_printf(
        &mut out,
        &parsed,
        values,
        &PrintfContext {
            resolver,
            target_pid,
        },
    )
    .unwrap();
    out
}

fn check(format: &str, values: &[RecordValue<'_>], expected: &str) {
    assert_eq!(render(format, values), expected, "format {:?}", format);
}

#[test]
fn integer_conversions_follow_the_recorded_size_and_sign() {
    check("%d", &[int(-1, 4, true)], "-1");
    check("%d", &[int(-1, 4, false)], "4294967295");
    check("%i", &[int(-1, 8, false)], "18446744073709551615");
    check("%d", &[int(-5, 1, true)], "-5");
    check("%u", &[int(-1, 4, true)], "4294967295");
    check("%x", &[int(-1, 1, true)], "ff");
    check("%x", &[int(-1, 2, true)], "ffff");
    check("%X", &[int(-1, 4, true)], "FFFFFFFF");
    check("%llx", &[int(-1, 8, true)], "ffffffffffffffff");
    check("%o", &[int(8, 4, true)], "10");
    check("%#o %#x", &[int(8, 4, true), int(255, 4, true)], "010 0xff");
    check(
        "%lld %llu",
        &[int(-2, 8, true), int(-2, 8, true)],
        "-2 18446744073709551614",
    );
    check("%hd", &[int(-3, 2, true)], "-3");
    check(
        "[%5d] [%-5d] [%05d] [%+d] [% d]",
        &[int(42, 4, true); 5],
        "[   42] [42   ] [00042] [+42] [ 42]",
    );
    check(
        "%p",
        &[RecordValue::Pointer(0xffff8000dead)],
        "ffff8000dead",
    );
    check("%#p", &[RecordValue::Pointer(0x10)], "0x10");
    check("%?p|", &[RecordValue::Pointer(0x10)], "              10|");
    check(
        "%c%c%c",
        &[int(104, 1, true), int(105, 4, true), int(33, 2, true)],
        "hi!",
    );
    check("100%%", &[], "100%");
    check("%d%%", &[int(5, 4, true)], "5%");
}

#[test]
fn precision_zero_is_ignored_like_dtrace() {
    check("[%.0d]", &[int(0, 4, true)], "[0]");
    check("[%.0s]", &[RecordValue::String(b"abc")], "[abc]");
    check("[%.2s]", &[RecordValue::String(b"abc")], "[ab]");
    check("[%.3d]", &[int(7, 4, true)], "[007]");
}

#[test]
fn dynamic_width_and_precision() {
    check("[%*d]", &[int(6, 4, true), int(42, 4, true)], "[    42]");
    check("[%*d]", &[int(-6, 4, true), int(42, 4, true)], "[42    ]");
    check(
        "[%.*s]",
        &[int(2, 4, true), RecordValue::String(b"hello")],
        "[he]",
    );
    check(
        "[%*.*s]",
        &[
            int(4, 8, true),
            int(1, 8, true),
            RecordValue::String(b"hello"),
        ],
        "[   h]",
    );
    check(
        "[%.*s]",
        &[int(-1, 4, true), RecordValue::String(b"hello")],
        "[hello]",
    );
}

#[test]
fn strings_and_escapes() {
    check("%s|", &[RecordValue::String(b"hello")], "hello|");
    check("%-10s|", &[RecordValue::String(b"hello")], "hello     |");
    check("%10s|", &[RecordValue::String(b"hello")], "     hello|");
    check("%s|", &[RecordValue::Bytes(b"ab\0cd")], "ab|");
    check(
        "%S",
        &[RecordValue::String(b"a\tb\nc\"d\\e f\x01\x7f\xff")],
        "a\\tb\\nc\\\"d\\\\e f\\001\\177\\377",
    );
    check(
        "%S",
        &[RecordValue::String(b"\x07\x08\x0b\x0c\r")],
        "\\a\\b\\v\\f\\r",
    );
    check(
        "[%C][%C][%C]",
        &[int(65, 1, true), int(10, 4, true), int(0, 1, true)],
        "[A][\\n][\\0]",
    );
    check(
        "%ls",
        &[RecordValue::Bytes(&[
            104, 0, 0, 0, 105, 0, 0, 0, 0, 0, 0, 0,
        ])],
        "hi",
    );
    check("%I", &[RecordValue::String(b"10.0.0.1")], "10.0.0.1");
    check("%P", &[int(80, 2, false)], "80");
    assert_eq!(escape_bytes(b"ok\0ignored", false), "ok");
    assert_eq!(escape_bytes(b"\0", true), "\\0");
}

#[test]
fn floating_point_from_recorded_bytes() {
    check(
        "%f",
        &[RecordValue::Bytes(&1.5f64.to_le_bytes())],
        "1.500000",
    );
    check(
        "%.2f",
        &[RecordValue::Bytes(&2.25f32.to_le_bytes())],
        "2.25",
    );
    check(
        "%g",
        &[int(f64::to_bits(0.0001) as i64, 8, false)],
        "0.0001",
    );
    // x87 extended precision: 3.0 = mantissa 0xC000000000000000, exponent 16384.
    let mut extended = [0u8; 16];
    extended[..8].copy_from_slice(&0xC000_0000_0000_0000u64.to_le_bytes());
    extended[8..10].copy_from_slice(&16384u16.to_le_bytes());
    check("%Lf", &[RecordValue::Bytes(&extended)], "3.000000");
    extended[9] |= 0x80;
    check("%Le", &[RecordValue::Bytes(&extended)], "-3.000000e+00");
}

#[test]
fn symbols_and_addresses() {
    check(
        "%a",
        &[RecordValue::Pointer(0x1010)],
        "vmlinux`ksys_read+0x10",
    );
    check("%a", &[RecordValue::Pointer(0x1000)], "vmlinux`ksys_read");
    check("%a", &[int(0x2004, 8, false)], "ext4`0x2004");
    check("%a", &[RecordValue::Pointer(0x9000)], "0x9000");
    check(
        "[%-30a]",
        &[RecordValue::Pointer(0x1100)],
        "[vmlinux`do_syscall_64         ]",
    );
    check(
        "%a",
        &[RecordValue::KernelSymbol {
            address: 0x1000,
            format: SymbolFormat::Symbol,
        }],
        "vmlinux`ksys_read",
    );
    check(
        "[%a]",
        &[RecordValue::KernelSymbol {
            address: 0x1010,
            format: SymbolFormat::Module,
        }],
        "[vmlinux]",
    );
    check(
        "%A",
        &[RecordValue::UserSymbol {
            pid: 42,
            address: 0x400010,
            format: SymbolFormat::SymbolWithOffset,
        }],
        "libc.so.6`read+0x10",
    );
    check("%A", &[RecordValue::Pointer(0x400004)], "0x400004");
    assert_eq!(
        render_with(
            "%A",
            &[RecordValue::Pointer(0x400004)],
            &TestSymbols,
            Some(42)
        ),
        "libc.so.6`read+0x4"
    );
    assert_eq!(
        render_with("%a", &[RecordValue::Pointer(0x1010)], &NoSymbols, None),
        "0x1010"
    );
}

#[test]
fn stacks() {
    let mut words = Vec::new();
    for pc in [0x1010u64, 0x1100, 0x9000, 0, 0x1234] {
        words.extend_from_slice(&pc.to_le_bytes());
    }
    let stack = RecordValue::KernelStack(StackFrames::new(&words));
    check(
        "%k|",
        &[stack],
        "\nvmlinux`ksys_read+0x10\nvmlinux`do_syscall_64\n0x9000\n|",
    );
    check(
        "%-4k|",
        &[stack],
        "\n    vmlinux`ksys_read+0x10\n    vmlinux`do_syscall_64\n    0x9000\n|",
    );
    check(
        "%*k|",
        &[int(-2, 4, true), stack],
        "\n  vmlinux`ksys_read+0x10\n  vmlinux`do_syscall_64\n  0x9000\n|",
    );
    check(
        "%25k|",
        &[stack],
        "\n   vmlinux`ksys_read+0x10\n    vmlinux`do_syscall_64\n                   0x9000\n|",
    );
    let user = [0x400008u64.to_le_bytes(), 0u64.to_le_bytes()].concat();
    check(
        "%k",
        &[RecordValue::UserStack {
            pid: 42,
            frames: StackFrames::new(&user),
        }],
        "\nlibc.so.6`read+0x8\n",
    );
    check(
        "[%k]",
        &[RecordValue::UserStack {
            pid: 42,
            frames: StackFrames::new(&[]),
        }],
        "[]",
    );
}

#[test]
fn times() {
    // The layout does not depend on the zone: `YYYY Mon DD HH:MM:SS`, day space-padded.
    let text = render("%Y", &[int(1_704_302_400_000_000_000, 8, true)]);
    assert_eq!(text.len(), 20, "{:?}", text);
    let bytes = text.as_bytes();
    assert!(text[..4].chars().all(|c| c.is_ascii_digit()), "{:?}", text);
    assert_eq!(&text[4..5], " ");
    assert!(["Jan", "Dec"].contains(&&text[5..8]), "{:?}", text);
    assert_eq!(bytes[8], b' ');
    assert_eq!((bytes[14], bytes[17]), (b':', b':'));
    assert_eq!(
        render("%Y", &[int(1_704_302_400_000_000_000, 8, true)]),
        time::ctime_style(1_704_302_400)
    );
    let rfc = render("%T", &[int(1_704_302_400_000_000_000, 8, true)]);
    assert_eq!(&rfc[3..5], ", ", "{:?}", rfc);
    assert_eq!(rfc, time::rfc822_style(1_704_302_400));
    assert_eq!(render("[%22Y]", &[int(0, 8, true)]).len(), 24);
}

#[test]
fn aggregation_values_in_printa_formats() {
    let format = FormatString::parse("%s %@d %@u|").unwrap();
    let count = AggregationRule::new(&AggregationFunction::Count).unwrap();
    let sum = AggregationRule::new(&AggregationFunction::Sum).unwrap();
    let avg = AggregationRule::new(&AggregationFunction::Avg).unwrap();
    let context = PrintfContext {
        resolver: &NoSymbols,
        target_pid: None,
    };
    let mut out = String::new();
    format_printa_entry(
        &mut out,
        &format,
        &[RecordValue::String(b"bash")],
        &[
            AggregationValue {
                rule: &count,
                words: &[7],
                normalization: 1,
                histogram_style: HistogramStyle::default(),
            },
            AggregationValue {
                rule: &sum,
                words: &[-9],
                normalization: 1,
                histogram_style: HistogramStyle::default(),
            },
        ],
        &context,
    )
    .unwrap();
    assert_eq!(out, "bash 7 18446744073709551607|");

    // Extra @ conversions reuse the last aggregation; normalization divides.
    let format = FormatString::parse("%@d %@d %@d\n").unwrap();
    let mut out = String::new();
    format_printa_entry(
        &mut out,
        &format,
        &[],
        &[
            AggregationValue {
                rule: &sum,
                words: &[-9],
                normalization: 3,
                histogram_style: HistogramStyle::default(),
            },
            AggregationValue {
                rule: &avg,
                words: &[4, 10],
                normalization: 1,
                histogram_style: HistogramStyle::default(),
            },
        ],
        &context,
    )
    .unwrap();
    assert_eq!(out, "-3 2 2\n");

    // Fewer conversions than keys is fine; a histogram prints in full.
    let quantize = AggregationRule::new(&AggregationFunction::Quantize).unwrap();
    let mut buckets = vec![0i64; 127];
    buckets[64] = 2;
    let format = FormatString::parse("%d:%@d").unwrap();
    let mut out = String::new();
    format_printa_entry(
        &mut out,
        &format,
        &[int(5, 4, true), int(6, 4, true)],
        &[AggregationValue {
            rule: &quantize,
            words: &buckets,
            normalization: 1,
            histogram_style: HistogramStyle::default(),
        }],
        &context,
    )
    .unwrap();
    assert_eq!(
        out,
        "5:\n           value  ------------- Distribution ------------- count    \n\
         \x20              0 |                                         0        \n\
         \x20              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 2        \n\
         \x20              2 |                                         0        \n"
    );
}

#[test]
fn mismatches_are_errors_not_panics() {
    let context = PrintfContext {
        resolver: &NoSymbols,
        target_pid: None,
    };
    let attempt = |format: &str, values: &[RecordValue<'_>]| {
        let parsed = FormatString::parse(format).unwrap();
        format_printf(&mut String::new(), &parsed, values, &context).map_err(|e| e.to_string())
    };
    assert_eq!(
        attempt("%d %d", &[int(1, 4, true)]),
        Err("conversion #2 has no corresponding argument".into())
    );
    assert_eq!(
        attempt("%s", &[int(1, 4, true)]),
        Err("argument of conversion #1 (%s) does not match its data".into())
    );
    assert_eq!(
        attempt("%@d", &[]),
        Err("conversion #1 requires an aggregation".into())
    );
    assert!(attempt("%f", &[RecordValue::String(b"x")]).is_err());
    assert!(attempt("%k", &[int(1, 8, true)]).is_err());
    assert!(attempt("%*d", &[RecordValue::String(b"x"), int(1, 4, true)]).is_err());
}
