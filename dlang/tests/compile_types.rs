//! Tests of the D type system: type names as D prints them, LP64 sizes, the built-in
//! typedefs, DTrace's (libctf's) layout of structs, unions and bit-fields, and C type-name
//! parsing.

use dlang::types::{parse_type_name, MemberLayout, TypeTable};

/// `text` parses and prints back as `expected`, with `size` bytes.
fn check(text: &str, expected: &str, size: u64) {
    let mut types = TypeTable::new(256);
    let ty = parse_type_name(&mut types, text)
        .unwrap_or_else(|error| panic!("{text}: {}", error.message));
    assert_eq!(types.name(ty), expected, "{text}");
    assert_eq!(types.size_of(ty), size, "{text}");
}

#[test]
fn names_and_sizes() {
    check("int", "int", 4);
    check("unsigned", "unsigned int", 4);
    check("signed char", "signed char", 1);
    check("unsigned long long", "unsigned long long", 8);
    check("long int", "long", 8);
    check("long double", "long double", 16);
    check("_Bool", "_Bool", 1);
    check("char *", "char *", 8);
    check("const char *", "const char *", 8);
    check("char *const", "char *const", 8);
    check("int **", "int **", 8);
    check("int [10]", "int [10]", 40);
    check("int *[4]", "int *[4]", 32);
    check("char [4][2]", "char [4][2]", 8);
    check("struct foo *", "struct foo *", 8);
    check("void (*)()", "void (*)()", 8);
    check("string", "string", 256);
    check("uint64_t", "uint64_t", 8);
    check("size_t", "size_t", 8);
    check("pid_t", "pid_t", 4);
    check("vmlinux`uint32_t", "uint32_t", 4);
    check("stack", "stack", 8);
    check("_symaddr", "_symaddr", 8);
}

#[test]
fn builtin_typedefs_follow_lp64() {
    let mut types = TypeTable::new(256);
    for (name, resolved) in [
        ("int8_t", "signed char"),
        ("int16_t", "short"),
        ("int32_t", "int"),
        ("int64_t", "long"),
        ("intptr_t", "long"),
        ("ssize_t", "long"),
        ("ptrdiff_t", "long"),
        ("uint8_t", "unsigned char"),
        ("uint16_t", "unsigned short"),
        ("uint32_t", "unsigned int"),
        ("uint64_t", "unsigned long"),
        ("uintptr_t", "unsigned long"),
        ("size_t", "unsigned long"),
        ("ulong_t", "unsigned long"),
        ("u_longlong_t", "unsigned long long"),
        ("id_t", "int"),
        ("pid_t", "int"),
    ] {
        let ty = parse_type_name(&mut types, name)
            .unwrap_or_else(|error| panic!("{name}: {}", error.message));
        assert_eq!(types.name(types.resolve(ty)), resolved, "{name}");
    }
    assert!(parse_type_name(&mut types, "no_such_t").is_err());
    assert!(parse_type_name(&mut types, "unsigned float").is_err());
}

#[test]
fn struct_and_union_layout() {
    let mut types = TypeTable::new(256);
    let char_type = types.well_known().char;
    let int = types.well_known().int;
    let long = types.well_known().long;
    let member = |name: &str, ty, bit_width| MemberLayout {
        name: name.to_string(),
        ty,
        bit_width,
    };
    let structure = types.declare_struct(Some("s"));
    types.define_aggregate(
        structure,
        vec![
            member("c", char_type, None),
            member("l", long, None),
            member("a", int, Some(3)),
            member("b", int, Some(30)),
            member("d", char_type, None),
        ],
    );
    // DTrace's layout (libctf): no padding after the last member, and a struct is
    // aligned as its first member.
    assert_eq!(types.size_of(structure), 25);
    assert_eq!(types.alignment_of(structure), 1);
    let offsets: Vec<(String, u64)> = types
        .members(structure)
        .iter()
        .map(|member| (member.name.clone(), member.bit_offset))
        .collect();
    assert_eq!(
        offsets,
        vec![
            ("c".into(), 0),
            ("l".into(), 64),
            ("a".into(), 128),
            ("b".into(), 160),
            ("d".into(), 192)
        ]
    );
    let union = types.declare_union(Some("u"));
    types.define_aggregate(
        union,
        vec![member("c", char_type, None), member("l", long, None)],
    );
    assert_eq!(types.size_of(union), 8);
    assert_eq!(types.name(union), "union u");
    let pointer = types.pointer_to(structure);
    assert_eq!(types.name(pointer), "struct s *");
}

#[test]
fn declared_aggregates_follow_libctf_layout() {
    let mut types = TypeTable::new(256);
    let char_type = types.well_known().char;
    let int = types.well_known().int;
    let long = types.well_known().long;
    let member = |name: &str, ty, bit_width| MemberLayout {
        name: name.to_string(),
        ty,
        bit_width,
    };
    let offsets = |types: &TypeTable, ty| -> Vec<u64> {
        types
            .members(ty)
            .iter()
            .map(|member| member.bit_offset / 8)
            .collect()
    };
    // No padding after the last member.
    let padded = types.declare_struct(Some("padded"));
    types.define_aggregate(
        padded,
        vec![
            member("c", char_type, None),
            member("l", long, None),
            member("d", char_type, None),
        ],
    );
    assert_eq!(types.size_of(padded), 17);
    assert_eq!(offsets(&types, padded), vec![0, 8, 16]);
    // A struct is aligned as its first member, so it may follow a char directly.
    let outer = types.declare_struct(Some("outer"));
    types.define_aggregate(
        outer,
        vec![member("c", char_type, None), member("p", padded, None)],
    );
    assert_eq!(offsets(&types, outer), vec![0, 1]);
    assert_eq!(types.size_of(outer), 18);
    // Each bit-field starts on a byte and takes the power-of-two bytes of its width.
    let bits = types.declare_struct(Some("bits"));
    types.define_aggregate(
        bits,
        vec![
            member("a", int, Some(1)),
            member("b", int, Some(15)),
            member("c", int, Some(31)),
            member("d", int, Some(12)),
        ],
    );
    assert_eq!(offsets(&types, bits), vec![0, 2, 4, 8]);
    assert_eq!(types.size_of(bits), 10);
    let sizes: Vec<u64> = types
        .members(bits)
        .iter()
        .map(|member| types.size_of(member.ty))
        .collect();
    assert_eq!(sizes, vec![1, 2, 4, 2]);
    assert_eq!(types.name(types.members(bits)[0].ty), "int");
    // A union is as large as its largest member, unrounded.
    let union = types.declare_union(Some("odd"));
    types.define_aggregate(
        union,
        vec![member("l", long, None), member("s", padded, None)],
    );
    assert_eq!(types.size_of(union), 17);
    assert_eq!(types.alignment_of(union), 8);
}
