//! Tests of what the compiler records for `print()`: the description of the argument's
//! type carried by the action (names as D prints them, sizes, members with bit offsets
//! and widths, enumerators, array element counts, pointer names), the record slot
//! bounded by `printsize` (option or pragma), and D_PRINT_SIZE.

mod compile_support;

use compile_support::{compile_with, compiled, error_of, options, verify};
use difvm::object::{ActionKind, CompiledProgram, ValueLayout};
use difvm::printed_type::{PrintedShape, PrintedType};

const DECLARATIONS: &str = "
enum color { RED, GREEN = 5 };
typedef unsigned long long counter_t;
struct inner { short s; counter_t total; };
struct foo {
	int a;
	unsigned int flag : 1;
	int small : 3;
	struct inner in;
	char name[8];
	enum color c;
	struct foo *next;
};
";

/// The printed type, slot size and layout of the first statement's `print()`.
fn printed(program: &CompiledProgram) -> (PrintedType, u32, ValueLayout) {
    let (action, printed_type) = program.statements[0]
        .actions
        .iter()
        .find_map(|action| match &action.kind {
            ActionKind::Print { printed_type } => Some((action, printed_type)),
            _ => None,
        })
        .expect("a print() action");
    let slot = action.values[0]
        .slot
        .clone()
        .expect("print() records its value");
    (printed_type.clone(), slot.size, slot.layout)
}

fn index_of(printed_type: &PrintedType, name: &str) -> u32 {
    printed_type
        .types
        .iter()
        .position(|entry| entry.name == name)
        .unwrap_or_else(|| panic!("no entry {name} in {printed_type:?}")) as u32
}

#[test]
fn print_of_a_struct_carries_its_members_types_and_layout() {
    let program = compiled(&format!(
        "{DECLARATIONS} BEGIN {{ this->f = (struct foo *)alloca(sizeof (struct foo)); print(*this->f); }}"
    ));
    verify(&program);
    let (printed_type, size, layout) = printed(&program);
    assert_eq!(layout, ValueLayout::Bytes);
    let root = printed_type.root().unwrap();
    assert_eq!(root.name, "struct foo");
    assert_eq!(size as u64, root.size);
    let PrintedShape::Struct { members } = &root.shape else {
        panic!("{root:?}");
    };
    let described: Vec<(&str, &str, u64, Option<u32>)> = members
        .iter()
        .map(|member| {
            let entry = printed_type.entry(member.ty).unwrap();
            (
                member.name.as_str(),
                entry.name.as_str(),
                member.bit_offset,
                member.bit_width,
            )
        })
        .collect();
    // DTrace's layout: each bit-field starts on a byte, a struct is aligned as its first
    // member (`struct inner` starts with a short).
    assert_eq!(
        described,
        vec![
            ("a", "int", 0, None),
            ("flag", "unsigned int", 32, Some(1)),
            ("small", "int", 40, Some(3)),
            ("in", "struct inner", 48, None),
            ("name", "char [8]", 176, None),
            ("c", "enum color", 256, None),
            ("next", "struct foo *", 320, None),
        ]
    );
    // The typedef's name is kept, its shape is the integer's.
    let inner = printed_type
        .entry(index_of(&printed_type, "struct inner"))
        .unwrap();
    let PrintedShape::Struct { members } = &inner.shape else {
        panic!("{inner:?}");
    };
    let total = printed_type.entry(members[1].ty).unwrap();
    assert_eq!(total.name, "counter_t");
    assert_eq!(
        total.shape,
        PrintedShape::Integer {
            signed: false,
            character: false
        }
    );
    let name = printed_type
        .entry(index_of(&printed_type, "char [8]"))
        .unwrap();
    let PrintedShape::Array { element, count } = name.shape else {
        panic!("{name:?}");
    };
    assert_eq!(count, 8);
    assert_eq!(
        printed_type.entry(element).unwrap().shape,
        PrintedShape::Integer {
            signed: true,
            character: true
        }
    );
    assert_eq!(
        printed_type
            .entry(index_of(&printed_type, "enum color"))
            .unwrap()
            .shape,
        PrintedShape::Enum {
            enumerators: vec![("RED".to_string(), 0), ("GREEN".to_string(), 5)]
        }
    );
    // A pointer member is described by its name only: `struct foo` appears once.
    assert_eq!(
        printed_type
            .types
            .iter()
            .filter(|entry| entry.name == "struct foo")
            .count(),
        1
    );
}

#[test]
fn printsize_bounds_the_recorded_bytes_of_structs_only() {
    let text = format!(
        "{DECLARATIONS} BEGIN {{ this->f = (struct foo *)alloca(sizeof (struct foo)); print(*this->f); }}"
    );
    let bounded = compile_with(
        &text,
        &dlang::compile::CompileOptions {
            print_size: 10,
            ..options()
        },
    )
    .unwrap()
    .program;
    assert_eq!(printed(&bounded).1, 10);
    let pragma = compiled(&format!("#pragma D option printsize=12\n{text}"));
    assert_eq!(printed(&pragma).1, 12);
    let scalar = compile_with(
        "BEGIN { print(1234567890123); }",
        &dlang::compile::CompileOptions {
            print_size: 2,
            ..options()
        },
    )
    .unwrap()
    .program;
    let (printed_type, size, layout) = printed(&scalar);
    assert_eq!(size, 8);
    assert_eq!(layout, ValueLayout::Integer { signed: true });
    assert_eq!(printed_type.root().unwrap().name, "long");
}

#[test]
fn print_of_a_zero_sized_type_is_d_print_size() {
    let (tag, message) = error_of("struct empty { }; BEGIN { print(*(struct empty *)alloca(8)); }");
    assert_eq!(tag, "D_PRINT_SIZE");
    assert!(
        message.contains("print( ) argument #1 reference has type 'struct empty' with size 0"),
        "{message}"
    );
}
