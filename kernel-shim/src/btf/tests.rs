//! Tests of the BTF reader on hand-built blobs (every kind, names, enumerators, split
//! BTF, malformed input); `tests/live_btf.rs` reads the running kernel's.

use std::sync::Arc;

use super::builder::BtfBuilder;
use super::format::*;
use super::kinds::{BtfKind, IntegerEncoding};
use super::names::BtfNamespace;
use super::reader::{Btf, BtfError};

/// A blob with `int`, `struct inner { int a; int b:3; }` (anonymous member of)
/// `struct outer { int first; struct inner; }` at bit 32, and a forward `struct outer`.
fn offsets_sample() -> Vec<u8> {
    let mut blob = BtfBuilder::new();
    blob.add_type("int", KIND_INT, false, 0, 4, &[INT_SIGNED << 24 | 32]);
    blob.add_type("outer", KIND_FWD, false, 0, 0, &[]);
    let (a, b) = (blob.string("a"), blob.string("b"));
    blob.add_type("", KIND_STRUCT, true, 2, 8, &[a, 1, 0, b, 1, 3 << 24 | 32]);
    let first = blob.string("first");
    blob.add_type("outer", KIND_STRUCT, false, 2, 12, &[first, 1, 0, 0, 3, 32]);
    blob.finish()
}

/// A blob with one type of every kind (ids in the comments).
fn every_kind_sample() -> Vec<u8> {
    let mut blob = BtfBuilder::new();
    let int = blob.add_type("int", KIND_INT, false, 0, 4, &[INT_SIGNED << 24 | 32]); // 1
    let char_type = blob.add_type(
        "char",
        KIND_INT,
        false,
        0,
        1,
        &[(INT_SIGNED | INT_CHAR) << 24 | 8],
    ); // 2
    let pointer = blob.add_type("", KIND_PTR, false, 0, char_type, &[]); // 3
    let array = blob.add_type("", KIND_ARRAY, false, 0, 0, &[char_type, int, 16]); // 4
    let (pid, comm, flag) = (blob.string("pid"), blob.string("comm"), blob.string("flag"));
    let task = blob.add_type(
        "task",
        KIND_STRUCT,
        true,
        3,
        24,
        &[pid, int, 0, comm, array, 32, flag, int, 1 << 24 | 160],
    ); // 5
    let (x, y) = (blob.string("x"), blob.string("y"));
    blob.add_type(
        "value",
        KIND_UNION,
        false,
        2,
        8,
        &[x, int, 0, y, pointer, 0],
    ); // 6
    let (red, blue) = (blob.string("RED"), blob.string("BLUE"));
    blob.add_type(
        "colour",
        KIND_ENUM,
        true,
        2,
        4,
        &[red, (-1i32) as u32, blue, 2],
    ); // 7
    let huge = blob.string("HUGE");
    blob.add_type("wide", KIND_ENUM64, false, 1, 8, &[huge, 1, 1]); // 8
    blob.add_type("later", KIND_FWD, true, 0, 0, &[]); // 9
    blob.add_type("pid_t", KIND_TYPEDEF, false, 0, int, &[]); // 10
    blob.add_type("", KIND_VOLATILE, false, 0, int, &[]); // 11
    let constant = blob.add_type("", KIND_CONST, false, 0, char_type, &[]); // 12
    blob.add_type("", KIND_RESTRICT, false, 0, pointer, &[]); // 13
    let format = blob.string("format");
    let prototype = blob.add_type("", KIND_FUNC_PROTO, false, 2, int, &[format, pointer, 0, 0]); // 14
    blob.add_type("printk", KIND_FUNC, false, 1, prototype, &[]); // 15
    let variable = blob.add_type("cpu_number", KIND_VAR, false, 0, int, &[1]); // 16
    blob.add_type(
        ".data..percpu",
        KIND_DATASEC,
        false,
        1,
        4,
        &[variable, 0, 4],
    ); // 17
    blob.add_type("double", KIND_FLOAT, false, 0, 8, &[]); // 18
    blob.add_type("user", KIND_DECL_TAG, false, 0, task, &[(-1i32) as u32]); // 19
    blob.add_type("rcu", KIND_TYPE_TAG, false, 0, constant, &[]); // 20
    blob.finish()
}

#[test]
fn members_are_found_through_anonymous_structs() {
    let btf = Btf::parse(offsets_sample()).expect("parses");
    assert_eq!(btf.type_count(), 4);
    assert_eq!(btf.struct_id("outer"), Some(4));
    assert_eq!(btf.member_offset("outer", "first"), Ok(0));
    assert_eq!(btf.member_offset("outer", "a"), Ok(4));
    assert!(matches!(
        btf.member_offset("outer", "b"),
        Err(BtfError::BitfieldMember { .. })
    ));
    assert!(matches!(
        btf.member_offset("outer", "c"),
        Err(BtfError::MissingMember { .. })
    ));
    assert!(matches!(
        btf.member_offset("nothing", "a"),
        Err(BtfError::MissingStruct(_))
    ));
}

#[test]
fn every_kind_is_decoded() {
    let btf = Btf::parse(every_kind_sample()).expect("parses");
    assert_eq!(btf.type_count(), 20);
    assert_eq!(btf.type_id_limit(), 21);
    assert!(btf.type_by_id(0).is_none() && btf.type_by_id(21).is_none());
    let kind = |id| btf.type_by_id(id).expect("a type").kind;
    assert!(matches!(
        kind(2),
        BtfKind::Integer {
            size: 1,
            bits: 8,
            bit_offset: 0,
            encoding: IntegerEncoding {
                signed: true,
                character: true,
                boolean: false
            }
        }
    ));
    assert!(matches!(kind(3), BtfKind::Pointer { target: 2 }));
    assert!(matches!(
        kind(4),
        BtfKind::Array {
            element: 2,
            index: 1,
            count: 16
        }
    ));
    let BtfKind::Struct(members) = kind(5) else {
        panic!("a struct")
    };
    assert_eq!(members.size, 24);
    let members: Vec<_> = members.iter().collect();
    assert_eq!(
        (members[1].name, members[1].ty, members[1].bit_offset),
        ("comm", 4, 32)
    );
    assert_eq!(
        (members[2].bit_offset, members[2].bit_width),
        (160, Some(1))
    );
    let BtfKind::Union(members) = kind(6) else {
        panic!("a union")
    };
    assert_eq!(members.len(), 2);
    let BtfKind::Enum(colours) = kind(7) else {
        panic!("an enum")
    };
    assert_eq!(
        colours.iter().collect::<Vec<_>>(),
        [("RED", -1), ("BLUE", 2)]
    );
    let BtfKind::Enum(wide) = kind(8) else {
        panic!("an enum64")
    };
    assert!(wide.wide && !wide.signed && wide.size == 8);
    assert_eq!(wide.get(0), Some(("HUGE", 1 << 32 | 1)));
    assert!(matches!(kind(9), BtfKind::Forward { union: true }));
    assert_eq!(btf.type_by_id(10).expect("typedef").name, "pid_t");
    assert!(matches!(kind(11), BtfKind::Volatile { target: 1 }));
    assert!(matches!(kind(12), BtfKind::Const { target: 2 }));
    assert!(matches!(kind(13), BtfKind::Restrict { target: 3 }));
    let BtfKind::FunctionPrototype(parameters) = kind(14) else {
        panic!("a prototype")
    };
    assert_eq!(parameters.return_type, 1);
    assert_eq!(
        parameters.iter().collect::<Vec<_>>(),
        [("format", 3), ("", 0)]
    );
    assert!(parameters.varargs());
    assert!(matches!(
        kind(15),
        BtfKind::Function {
            prototype: 14,
            linkage: 1
        }
    ));
    assert!(matches!(kind(16), BtfKind::Variable { ty: 1, linkage: 1 }));
    let BtfKind::DataSection(section) = kind(17) else {
        panic!("a data section")
    };
    assert_eq!(
        section.iter().map(|entry| entry.ty).collect::<Vec<_>>(),
        [16]
    );
    assert!(matches!(kind(18), BtfKind::Float { size: 8 }));
    assert!(matches!(
        kind(19),
        BtfKind::DeclarationTag {
            target: 5,
            component_index: -1
        }
    ));
    assert!(matches!(kind(20), BtfKind::TypeTag { target: 12 }));
    assert_eq!(btf.resolve_alias(20), Some(2));
}

#[test]
fn names_and_enumerators_are_looked_up() {
    let btf = Btf::parse(every_kind_sample()).expect("parses");
    assert_eq!(btf.named(BtfNamespace::Struct, "task"), Some(5));
    assert_eq!(btf.named(BtfNamespace::Union, "value"), Some(6));
    assert_eq!(btf.named(BtfNamespace::Union, "later"), Some(9));
    assert_eq!(btf.named(BtfNamespace::Struct, "later"), None);
    assert_eq!(btf.named(BtfNamespace::Enum, "wide"), Some(8));
    assert_eq!(btf.named(BtfNamespace::Typedef, "pid_t"), Some(10));
    assert_eq!(btf.named(BtfNamespace::Function, "printk"), Some(15));
    assert_eq!(btf.named(BtfNamespace::Variable, "cpu_number"), Some(16));
    assert_eq!(btf.named(BtfNamespace::Struct, "pid_t"), None);
    assert_eq!(btf.enumerator("BLUE"), Some((7, 2)));
    assert_eq!(btf.enumerator("HUGE"), Some((8, 1 << 32 | 1)));
    assert_eq!(btf.enumerator("GREEN"), None);
    // The definition with members wins over the forward declaration before it.
    let offsets = Btf::parse(offsets_sample()).expect("parses");
    assert_eq!(offsets.named(BtfNamespace::Struct, "outer"), Some(4));
}

#[test]
fn split_btf_continues_the_base_ids_and_strings() {
    let base_blob = every_kind_sample();
    let string_length =
        u32::from_le_bytes([base_blob[20], base_blob[21], base_blob[22], base_blob[23]]);
    let base = Arc::new(Btf::parse(base_blob).expect("base parses"));
    let mut module = BtfBuilder::split(base.type_id_limit() - 1, string_length);
    let (state, owner) = (module.string("state"), module.string("owner"));
    // [21] struct module_state { int state; struct task *owner; }, [22] struct task *
    let pointer_id = module.next_id() + 1;
    module.add_type(
        "module_state",
        KIND_STRUCT,
        false,
        2,
        16,
        &[state, 1, 0, owner, pointer_id, 64],
    );
    module.add_type("", KIND_PTR, false, 0, 5, &[]);
    let split = Btf::parse_split(module.finish(), base.clone()).expect("split parses");
    assert_eq!(split.first_type_id(), 21);
    assert_eq!(split.type_id_limit(), 23);
    assert_eq!(split.type_name(21), "module_state");
    assert_eq!(split.type_name(5), "task");
    assert_eq!(split.named(BtfNamespace::Struct, "module_state"), Some(21));
    assert_eq!(split.named(BtfNamespace::Struct, "task"), None);
    assert_eq!(split.base().map(|base| base.type_id_limit()), Some(21));
    let BtfKind::Struct(members) = split.type_by_id(21).expect("struct").kind else {
        panic!("a struct")
    };
    let owner = members.get(1).expect("owner");
    assert_eq!((owner.name, owner.ty, owner.bit_offset), ("owner", 22, 64));
    assert!(matches!(
        split.type_by_id(22).expect("pointer").kind,
        BtfKind::Pointer { target: 5 }
    ));
    assert_eq!(split.member_offset("module_state", "owner"), Ok(8));
}

#[test]
fn big_endian_btf_is_read() {
    let mut blob = offsets_sample();
    let strings_start = HEADER_SIZE as usize
        + u32::from_le_bytes([blob[16], blob[17], blob[18], blob[19]]) as usize;
    blob.swap(0, 1);
    for at in (4..strings_start).step_by(4) {
        blob[at..at + 4].reverse();
    }
    let btf = Btf::parse(blob).expect("parses");
    assert_eq!(btf.member_offset("outer", "a"), Ok(4));
}

#[test]
fn malformed_blobs_are_refused() {
    assert!(Btf::parse(Vec::new()).is_err());
    let mut wrong_magic = offsets_sample();
    wrong_magic[0] = 0;
    assert!(Btf::parse(wrong_magic).is_err());
    let mut truncated = offsets_sample();
    truncated.truncate(40);
    assert!(Btf::parse(truncated).is_err());
    let mut unknown_kind = offsets_sample();
    unknown_kind[HEADER_SIZE as usize + 7] = 0x1f;
    assert!(Btf::parse(unknown_kind).is_err());
}

/// Every question the reader answers, asked of every id, so that a malformed blob that
/// parses is also walked.
fn ask_everything(btf: &Btf) {
    for id in 0..btf.type_id_limit() + 2 {
        if let Some(ty) = btf.type_by_id(id) {
            match ty.kind {
                BtfKind::Struct(members) | BtfKind::Union(members) => members.iter().for_each(drop),
                BtfKind::Enum(enumerators) => enumerators.iter().for_each(drop),
                BtfKind::FunctionPrototype(parameters) => {
                    parameters.iter().for_each(drop);
                    parameters.varargs();
                }
                BtfKind::DataSection(section) => section.iter().for_each(drop),
                _ => {}
            }
        }
        btf.resolve_alias(id);
        btf.type_name(id);
    }
    for name in [
        "task",
        "outer",
        "value",
        "pid_t",
        "printk",
        "cpu_number",
        "a",
    ] {
        for namespace in [
            BtfNamespace::Struct,
            BtfNamespace::Union,
            BtfNamespace::Enum,
            BtfNamespace::Typedef,
            BtfNamespace::Function,
            BtfNamespace::Variable,
        ] {
            btf.named(namespace, name);
        }
        btf.enumerator(name);
        let _ = btf.member_offset("outer", name);
        let _ = btf.member_offset("task", name);
    }
}

#[test]
fn truncated_and_flipped_blobs_never_panic() {
    for sample in [offsets_sample(), every_kind_sample()] {
        for length in 0..sample.len() {
            if let Ok(btf) = Btf::parse(sample[..length].to_vec()) {
                ask_everything(&btf);
            }
        }
        for byte in 0..sample.len() {
            for bit in 0..8 {
                let mut flipped = sample.clone();
                flipped[byte] ^= 1 << bit;
                if let Ok(btf) = Btf::parse(flipped) {
                    ask_everything(&btf);
                }
            }
        }
    }
}

#[test]
fn cycles_of_typedefs_and_qualifiers_end() {
    let mut blob = BtfBuilder::new();
    blob.add_type("loop", KIND_TYPEDEF, false, 0, 2, &[]); // 1 -> 2
    blob.add_type("", KIND_CONST, false, 0, 3, &[]); // 2 -> 3
    blob.add_type("", KIND_TYPE_TAG, false, 0, 1, &[]); // 3 -> 1
    let member = blob.string("inner");
    blob.add_type("outer", KIND_STRUCT, false, 1, 4, &[0, 4, 0]); // 4 contains itself
    blob.add_type("named", KIND_STRUCT, false, 1, 4, &[member, 1, 0]); // 5
    let btf = Btf::parse(blob.finish()).expect("parses");
    assert_eq!(btf.resolve_alias(1), None);
    assert!(btf.member_offset("outer", "inner").is_err());
    assert_eq!(btf.member_offset("named", "inner"), Ok(0));
    ask_everything(&btf);
}
