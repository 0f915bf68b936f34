//! The types every D program starts with: the LP64 (x86_64) intrinsic C types, D's
//! `string` and internal types, the built-in D typedefs of §3.1, and the few kernel
//! types the built-in variables need (`cpuinfo_t`, `struct task_struct`).

use std::collections::{HashMap, HashSet};

use super::layout::MemberLayout;
use super::table::{Qualifiers, TypeId, TypeKind, TypeTable, WellKnownTypes};

impl TypeTable {
    /// A table holding the LP64 intrinsic types and the built-in D typedefs, with a
    /// `string` of `string_size` bytes.
    pub fn new(string_size: u32) -> TypeTable {
        build(string_size)
    }
}

/// Builds the initial type table.
pub(super) fn build(string_size: u32) -> TypeTable {
    let placeholder = TypeId(0);
    let mut table = TypeTable {
        entries: Vec::new(),
        string_size,
        typedefs: HashMap::new(),
        struct_tags: HashMap::new(),
        union_tags: HashMap::new(),
        enum_tags: HashMap::new(),
        pointers: HashMap::new(),
        arrays: HashMap::new(),
        qualified: HashMap::new(),
        intrinsic_names: HashMap::new(),
        kernel: None,
        being_defined: HashSet::new(),
        well_known: WellKnownTypes {
            void: placeholder,
            char: placeholder,
            signed_char: placeholder,
            unsigned_char: placeholder,
            short: placeholder,
            unsigned_short: placeholder,
            int: placeholder,
            unsigned_int: placeholder,
            long: placeholder,
            unsigned_long: placeholder,
            long_long: placeholder,
            unsigned_long_long: placeholder,
            bool: placeholder,
            float: placeholder,
            double: placeholder,
            long_double: placeholder,
            string: placeholder,
            stack: placeholder,
            symbol_address: placeholder,
            user_symbol_address: placeholder,
            dynamic: placeholder,
            void_pointer: placeholder,
            char_pointer: placeholder,
            const_char_pointer: placeholder,
            size_t: placeholder,
            ptrdiff_t: placeholder,
            int64_t: placeholder,
            uint64_t: placeholder,
        },
    };

    let void = intrinsic(&mut table, "void", TypeKind::Void);
    let integer =
        |table: &mut TypeTable, name: &'static str, size: u32, signed: bool, character: bool| {
            intrinsic(
                table,
                name,
                TypeKind::Integer {
                    name: name.to_string(),
                    size,
                    signed,
                    character,
                },
            )
        };
    let char = integer(&mut table, "char", 1, true, true);
    let signed_char = integer(&mut table, "signed char", 1, true, true);
    let unsigned_char = integer(&mut table, "unsigned char", 1, false, true);
    let short = integer(&mut table, "short", 2, true, false);
    let unsigned_short = integer(&mut table, "unsigned short", 2, false, false);
    let int = integer(&mut table, "int", 4, true, false);
    let unsigned_int = integer(&mut table, "unsigned int", 4, false, false);
    let long = integer(&mut table, "long", 8, true, false);
    let unsigned_long = integer(&mut table, "unsigned long", 8, false, false);
    let long_long = integer(&mut table, "long long", 8, true, false);
    let unsigned_long_long = integer(&mut table, "unsigned long long", 8, false, false);
    let bool = integer(&mut table, "_Bool", 1, false, false);
    let float = intrinsic(
        &mut table,
        "float",
        TypeKind::Float {
            name: "float".to_string(),
            size: 4,
        },
    );
    let double = intrinsic(
        &mut table,
        "double",
        TypeKind::Float {
            name: "double".to_string(),
            size: 8,
        },
    );
    let long_double = intrinsic(
        &mut table,
        "long double",
        TypeKind::Float {
            name: "long double".to_string(),
            size: 16,
        },
    );
    let string = intrinsic(&mut table, "string", TypeKind::String);
    let stack = intrinsic(&mut table, "stack", TypeKind::Stack);
    let symbol_address = intrinsic(&mut table, "_symaddr", TypeKind::SymbolAddress);
    let user_symbol_address = intrinsic(&mut table, "_usymaddr", TypeKind::UserSymbolAddress);
    let dynamic = table.add(TypeKind::Dynamic);

    let typedefs: [(&str, TypeId); 32] = [
        ("int8_t", signed_char),
        ("int16_t", short),
        ("int32_t", int),
        ("int64_t", long),
        ("intptr_t", long),
        ("ssize_t", long),
        ("uint8_t", unsigned_char),
        ("uint16_t", unsigned_short),
        ("uint32_t", unsigned_int),
        ("uint64_t", unsigned_long),
        ("uchar_t", unsigned_char),
        ("ushort_t", unsigned_short),
        ("uint_t", unsigned_int),
        ("ulong_t", unsigned_long),
        ("u_longlong_t", unsigned_long_long),
        ("longlong_t", long_long),
        // The Solaris types DTrace's own headers and tests use; `boolean_t` is an enum
        // there, an int here so that its B_FALSE and B_TRUE never clash with a
        // program's own enumerators.
        ("hrtime_t", long_long),
        ("boolean_t", int),
        ("ptrdiff_t", long),
        ("uintptr_t", unsigned_long),
        ("size_t", unsigned_long),
        ("id_t", int),
        ("pid_t", int),
        // Linux kernel types that built-in variables and subroutine prototypes use.
        ("uid_t", unsigned_int),
        ("gid_t", unsigned_int),
        ("dev_t", unsigned_int),
        ("processorid_t", int),
        ("psetid_t", int),
        ("chipid_t", int),
        ("lgrp_id_t", int),
        ("ipaddr_t", unsigned_int),
        ("in_port_t", unsigned_short),
    ];
    let mut typedef_ids = HashMap::new();
    for (name, target) in typedefs {
        let id = table.define_typedef(name, target).unwrap_or(target);
        typedef_ids.insert(name, id);
    }

    let void_pointer = table.pointer_to(void);
    let char_pointer = table.pointer_to(char);
    let const_char = table.qualified(
        char,
        Qualifiers {
            constant: true,
            ..Qualifiers::default()
        },
    );
    let const_char_pointer = table.pointer_to(const_char);

    // `cpuinfo_t` as Linux DTrace defines it for `curcpu`.
    let cpuinfo = table.declare_struct(Some("cpuinfo"));
    let member = |name: &str, ty: TypeId| MemberLayout {
        name: name.to_string(),
        ty,
        bit_width: None,
    };
    let processor = typedef_ids["processorid_t"];
    let members = vec![
        member("cpu_id", processor),
        member("cpu_pset", typedef_ids["psetid_t"]),
        member("cpu_chip", typedef_ids["chipid_t"]),
        member("cpu_lgrp", typedef_ids["lgrp_id_t"]),
        member("cpu_info", void_pointer),
    ];
    table.define_aggregate(cpuinfo, members);
    let _ = table.define_typedef("cpuinfo_t", cpuinfo);
    // The kernel's task and path structures: known by name only until kernel type
    // data (BTF) is available, so pointers to them exist but cannot be dereferenced.
    table.declare_struct(Some("task_struct"));
    table.declare_struct(Some("path"));
    let in6_addr = table.declare_struct(Some("in6_addr"));
    let _ = table.define_typedef("in6_addr_t", in6_addr);

    table.well_known = WellKnownTypes {
        void,
        char,
        signed_char,
        unsigned_char,
        short,
        unsigned_short,
        int,
        unsigned_int,
        long,
        unsigned_long,
        long_long,
        unsigned_long_long,
        bool,
        float,
        double,
        long_double,
        string,
        stack,
        symbol_address,
        user_symbol_address,
        dynamic,
        void_pointer,
        char_pointer,
        const_char_pointer,
        size_t: typedef_ids["size_t"],
        ptrdiff_t: typedef_ids["ptrdiff_t"],
        int64_t: typedef_ids["int64_t"],
        uint64_t: typedef_ids["uint64_t"],
    };
    table
}

fn intrinsic(table: &mut TypeTable, name: &'static str, kind: TypeKind) -> TypeId {
    let id = table.add(kind);
    table.intrinsic_names.insert(name, id);
    id
}
