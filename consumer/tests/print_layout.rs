//! Unit tests of `print()`'s structural layout renderer over hand-built type
//! descriptions: scalars, structs with nested structs, unions, arrays, bit-fields, enums,
//! pointers and char arrays, truncation at the shown bytes, and the print action through
//! the trace renderer (stacks fall back to the trace format; non-quiet line breaks).

use consumer::record::RecordValue;
use consumer::render::print_layout::render_print_layout;
use consumer::render::printf::PrintfContext;
use consumer::render::symbols::NoSymbols;
use consumer::render::trace::{TraceOutputOptions, TraceRenderer};
use difvm::object::{Action, ActionKind, ActionValue};
use difvm::printed_type::{PrintedMember, PrintedShape, PrintedType, PrintedTypeEntry};

fn entry(name: &str, size: u64, shape: PrintedShape) -> PrintedTypeEntry {
    PrintedTypeEntry {
        name: name.to_string(),
        size,
        shape,
    }
}

fn integer(name: &str, size: u64, signed: bool) -> PrintedTypeEntry {
    entry(
        name,
        size,
        PrintedShape::Integer {
            signed,
            character: false,
        },
    )
}

fn member(name: &str, ty: u32, bit_offset: u64, bit_width: Option<u32>) -> PrintedMember {
    PrintedMember {
        name: name.to_string(),
        ty,
        bit_offset,
        bit_width,
    }
}

fn layout(printed_type: &PrintedType, bytes: &[u8], limit: usize) -> String {
    let mut out = String::new();
    render_print_layout(&mut out, printed_type, bytes, limit);
    out
}

/// `struct s { int a; struct in { short s; } in; unsigned flag : 1; int small : 3;
/// enum color c; char name[4]; long *p; }` (32 bytes).
fn sample_struct() -> PrintedType {
    PrintedType {
        types: vec![
            entry(
                "struct s",
                32,
                PrintedShape::Struct {
                    members: vec![
                        member("a", 1, 0, None),
                        member("in", 2, 32, None),
                        member("flag", 4, 64, Some(1)),
                        member("small", 1, 65, Some(3)),
                        member("c", 5, 96, None),
                        member("name", 6, 128, None),
                        member("p", 8, 192, None),
                    ],
                },
            ),
            integer("int", 4, true),
            entry(
                "struct in",
                2,
                PrintedShape::Struct {
                    members: vec![member("s", 3, 0, None)],
                },
            ),
            integer("short", 2, true),
            integer("unsigned int", 4, false),
            entry(
                "enum color",
                4,
                PrintedShape::Enum {
                    enumerators: vec![("RED".into(), 0), ("GREEN".into(), 5)],
                },
            ),
            entry(
                "char [4]",
                4,
                PrintedShape::Array {
                    element: 7,
                    count: 4,
                },
            ),
            entry(
                "char",
                1,
                PrintedShape::Integer {
                    signed: true,
                    character: true,
                },
            ),
            entry("long *", 8, PrintedShape::Pointer),
        ],
    }
}

fn sample_bytes() -> Vec<u8> {
    let mut bytes = vec![0u8; 32];
    bytes[0..4].copy_from_slice(&(-7i32).to_le_bytes());
    bytes[4..6].copy_from_slice(&3i16.to_le_bytes());
    // flag = 1 (bit 64), small = -2 (bits 65..68: 0b110).
    bytes[8] = 0b1101;
    bytes[12..16].copy_from_slice(&5i32.to_le_bytes());
    bytes[16..19].copy_from_slice(b"abc");
    bytes[24..32].copy_from_slice(&0xffff_8000_dead_beefu64.to_le_bytes());
    bytes
}

#[test]
fn a_struct_prints_each_member_as_type_and_value() {
    assert_eq!(
        layout(&sample_struct(), &sample_bytes(), 8192),
        "(struct s) {\n \
         .a = (int)-7,\n \
         .in = (struct in) {\n  \
         .s = (short)3,\n \
         },\n \
         .flag = (unsigned int)1,\n \
         .small = (int)-2,\n \
         .c = (enum color)GREEN,\n \
         .name = (char [4])\"abc\",\n \
         .p = (long *)0xffff8000deadbeef,\n\
         }\n"
    );
}

#[test]
fn members_beyond_the_shown_bytes_print_as_an_ellipsis() {
    // 6 bytes: `a` and `in` fit; `flag` (byte 8) does not.
    assert_eq!(
        layout(&sample_struct(), &sample_bytes(), 6),
        "(struct s) {\n .a = (int)-7,\n .in = (struct in) {\n  .s = (short)3,\n },\n ...\n}\n"
    );
    // 5 bytes: `in` opens, but its `s` is cut.
    assert_eq!(
        layout(&sample_struct(), &sample_bytes(), 5),
        "(struct s) {\n .a = (int)-7,\n .in = (struct in) {\n  ...\n },\n}\n"
    );
    // Fewer recorded bytes than the limit cut the same way.
    assert_eq!(
        layout(&sample_struct(), &sample_bytes()[..4], 8192),
        "(struct s) {\n .a = (int)-7,\n ...\n}\n"
    );
}

#[test]
fn an_enum_without_a_matching_enumerator_prints_its_number() {
    let mut bytes = sample_bytes();
    bytes[12..16].copy_from_slice(&(-9i32).to_le_bytes());
    assert!(layout(&sample_struct(), &bytes, 8192).contains(" .c = (enum color)-9,\n"));
}

#[test]
fn char_arrays_without_text_and_other_arrays_print_element_by_element() {
    let mut bytes = sample_bytes();
    bytes[16] = 1;
    let text = layout(&sample_struct(), &bytes, 8192);
    assert!(
        text.contains(
            " .name = (char [4]) [\n  (char)1,\n  (char)98,\n  (char)99,\n  (char)0,\n ],\n"
        ),
        "{text}"
    );
    let array = PrintedType {
        types: vec![
            entry(
                "int [2]",
                8,
                PrintedShape::Array {
                    element: 1,
                    count: 2,
                },
            ),
            integer("int", 4, true),
        ],
    };
    let mut bytes = 1i32.to_le_bytes().to_vec();
    bytes.extend((-1i32).to_le_bytes());
    assert_eq!(
        layout(&array, &bytes, 8192),
        "(int [2]) [\n (int)1,\n (int)-1,\n]\n"
    );
}

#[test]
fn a_union_prints_every_member_from_the_same_bytes() {
    let union = PrintedType {
        types: vec![
            entry(
                "union u",
                4,
                PrintedShape::Union {
                    members: vec![member("i", 1, 0, None), member("", 2, 0, None)],
                },
            ),
            integer("unsigned int", 4, false),
            entry(
                "struct (anon)",
                4,
                PrintedShape::Struct {
                    members: vec![member("low", 3, 0, None), member("high", 3, 16, None)],
                },
            ),
            integer("unsigned short", 2, false),
        ],
    };
    assert_eq!(
        layout(&union, &0x0002_0001u32.to_le_bytes(), 8192),
        "(union u) {\n .i = (unsigned int)131073,\n (struct (anon)) {\n  \
         .low = (unsigned short)1,\n  .high = (unsigned short)2,\n },\n}\n"
    );
}

#[test]
fn scalars_print_as_type_and_value() {
    let unsigned = PrintedType {
        types: vec![integer("uint64_t", 8, false)],
    };
    assert_eq!(
        layout(&unsigned, &u64::MAX.to_le_bytes(), 8192),
        "(uint64_t)18446744073709551615\n"
    );
    let string = PrintedType {
        types: vec![entry("string", 256, PrintedShape::String)],
    };
    assert_eq!(layout(&string, b"hello", 8192), "(string)\"hello\"\n");
    let double = PrintedType {
        types: vec![entry("double", 8, PrintedShape::Float)],
    };
    assert_eq!(
        layout(&double, &1.5f64.to_le_bytes(), 8192),
        "(double)1.5\n"
    );
}

fn print_action(printed_type: PrintedType) -> Action {
    Action {
        kind: ActionKind::Print { printed_type },
        values: vec![ActionValue {
            difo: None,
            slot: None,
        }],
    }
}

#[test]
fn the_trace_renderer_prints_the_layout_and_bounds_bytes_by_printsize() {
    let context = PrintfContext {
        resolver: &NoSymbols,
        target_pid: None,
    };
    let renderer = TraceRenderer::new(TraceOutputOptions {
        quiet: true,
        print_size: 4,
        ..TraceOutputOptions::default()
    });
    let bytes = sample_bytes();
    let mut out = String::new();
    renderer
        .render_action(
            &mut out,
            &print_action(sample_struct()),
            &[RecordValue::Bytes(&bytes)],
            &context,
        )
        .unwrap();
    assert_eq!(out, "(struct s) {\n .a = (int)-7,\n ...\n}\n");

    // A recorded integer is laid out from its bytes; in non-quiet mode the layout
    // starts on a line of its own.
    let renderer = TraceRenderer::new(TraceOutputOptions::default());
    let mut out = String::from("  0      1                           :BEGIN ");
    let int = PrintedType {
        types: vec![integer("int", 4, true)],
    };
    renderer
        .render_action(
            &mut out,
            &print_action(int),
            &[RecordValue::Integer {
                bits: 0xffff_fffe,
                size: 4,
                signed: true,
            }],
            &context,
        )
        .unwrap();
    assert_eq!(
        out,
        "  0      1                           :BEGIN \n(int)-2\n"
    );
}
