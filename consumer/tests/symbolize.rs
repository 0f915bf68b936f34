//! Tests of symbolization: the kallsyms table (parsing, preferences among names at one
//! address, extents, modules) from text, the mapping snapshots of processes from
//! `/proc/PID/maps` text, and user lookups in this very test process, whose binary is
//! built with symbols.

use std::path::PathBuf;

use consumer::record::StackFrames;
use consumer::render::c_format::CFormatSpec;
use consumer::render::symbols::{
    kernel_address_text, kernel_module_text, kernel_symbol_text, render_user_stack,
    user_address_text, user_module_text, user_symbol_text, SymbolResolver,
};
use consumer::symbolize::kernel::KernelSymbolTable;
use consumer::symbolize::user::{MappingStore, ProcessIdentity, UserSymbols};
use consumer::symbolize::{SystemSymbolOptions, SystemSymbols};

/// A kallsyms listing with the cases that matter: hidden and absolute entries, per-CPU
/// offsets below the text, several names at one address, padding symbols, compiler
/// clones, data, modules, BPF programs, and unsorted order (as the real file has).
const KALLSYMS: &str = "\
0000000000000000 A fixed_percpu_data
0000000000001000 D per_cpu_counter
ffffffff81000000 T _stext
ffffffff81000000 T startup_64
ffffffff81000100 t __pfx_ksys_read
ffffffff81000110 t ksys_read_alias
ffffffff81000110 T ksys_read
ffffffff81000200 t ksys_read.cold
ffffffff81000300 d some_table
ffffffff81000400 W weak_function
ffffffffc0002000 t bpf_prog_6deef7357e7b4530_dtrace_1\t[bpf]
ffffffffc0000000 t ext4_fill_super\t[ext4]
ffffffffc0000100 T ext4_read_inode\t[ext4]
";

/// Writes `text` to a private file and returns a resolver reading its kernel symbols
/// from there.
fn resolver_with_kallsyms(test_name: &str, text: &str) -> SystemSymbols {
    let path = std::env::temp_dir().join(format!(
        "dtrace-symbolize-{test_name}-{}",
        std::process::id()
    ));
    std::fs::write(&path, text).expect("write kallsyms copy");
    let symbols = SystemSymbols::new(SystemSymbolOptions {
        kallsyms_path: path.clone(),
        ..SystemSymbolOptions::new(None)
    });
    // The table is read on the first lookup; make it so before the file goes away.
    symbols.kernel_symbol(0);
    let _ = std::fs::remove_file(path);
    symbols
}

/// Checks `%a`, `sym()` and `mod()` texts of kernel addresses.
fn check_kernel(resolver: &dyn SymbolResolver, cases: &[(u64, &str, &str, &str)]) {
    for &(address, with_offset, symbol, module) in cases {
        assert_eq!(
            kernel_address_text(resolver, address),
            with_offset,
            "%a of {address:#x}"
        );
        assert_eq!(
            kernel_symbol_text(resolver, address),
            symbol,
            "sym() of {address:#x}"
        );
        assert_eq!(
            kernel_module_text(resolver, address),
            module,
            "mod() of {address:#x}"
        );
    }
}

#[test]
fn kernel_addresses_resolve_through_kallsyms() {
    let resolver = resolver_with_kallsyms("kernel", KALLSYMS);
    check_kernel(
        &resolver,
        &[
            // Two global names at one address: the first listed wins.
            (
                0xffffffff81000000,
                "vmlinux`_stext",
                "vmlinux`_stext",
                "vmlinux",
            ),
            (
                0xffffffff810000ff,
                "vmlinux`_stext+0xff",
                "vmlinux`_stext",
                "vmlinux",
            ),
            (
                0xffffffff81000104,
                "vmlinux`__pfx_ksys_read+0x4",
                "vmlinux`__pfx_ksys_read",
                "vmlinux",
            ),
            // A global name beats a local alias listed before it.
            (
                0xffffffff81000110,
                "vmlinux`ksys_read",
                "vmlinux`ksys_read",
                "vmlinux",
            ),
            (
                0xffffffff81000187,
                "vmlinux`ksys_read+0x77",
                "vmlinux`ksys_read",
                "vmlinux",
            ),
            (
                0xffffffff81000234,
                "vmlinux`ksys_read.cold+0x34",
                "vmlinux`ksys_read.cold",
                "vmlinux",
            ),
            (
                0xffffffff81000300,
                "vmlinux`some_table",
                "vmlinux`some_table",
                "vmlinux",
            ),
            (
                0xffffffff81000410,
                "vmlinux`weak_function+0x10",
                "vmlinux`weak_function",
                "vmlinux",
            ),
            // The last kernel-image symbol covers one page, not the gap to the modules.
            (
                0xffffffff81001000 + 0x3ff,
                "vmlinux`weak_function+0xfff",
                "vmlinux`weak_function",
                "vmlinux",
            ),
            (
                0xffffffff81001400,
                "0xffffffff81001400",
                "0xffffffff81001400",
                "0xffffffff81001400",
            ),
            (
                0xffffffffc0000010,
                "ext4`ext4_fill_super+0x10",
                "ext4`ext4_fill_super",
                "ext4",
            ),
            (
                0xffffffffc0000100,
                "ext4`ext4_read_inode",
                "ext4`ext4_read_inode",
                "ext4",
            ),
            (
                0xffffffffc0001100,
                "0xffffffffc0001100",
                "0xffffffffc0001100",
                "0xffffffffc0001100",
            ),
            (
                0xffffffffc000235f,
                "bpf`bpf_prog_6deef7357e7b4530_dtrace_1+0x35f",
                "bpf`bpf_prog_6deef7357e7b4530_dtrace_1",
                "bpf",
            ),
            // Per-CPU offsets and small integers are not symbols.
            (0x1000, "0x1000", "0x1000", "0x1000"),
            (0x1234, "0x1234", "0x1234", "0x1234"),
            (0, "0x0", "0x0", "0x0"),
            (
                0xffffffff80ffffff,
                "0xffffffff80ffffff",
                "0xffffffff80ffffff",
                "0xffffffff80ffffff",
            ),
        ],
    );
}

#[test]
fn kallsyms_parsing_keeps_one_located_name_per_address() {
    let cases: &[(&str, usize)] = &[
        (KALLSYMS, 9),
        ("", 0),
        // Addresses hidden from unprivileged readers: nothing to look up.
        ("0000000000000000 T _stext\n0000000000000000 t ksys_read\n", 0),
        // Malformed lines are skipped.
        ("zzzz T broken\nffffffff81000000\nffffffff81000000 T _stext\n", 1),
        // Absolute and undefined entries are values, not locations.
        ("ffffffff81000000 T _stext\nffffffff82000000 A absolute\nffffffff82000000 U undefined\n", 1),
    ];
    for &(text, expected) in cases {
        assert_eq!(KernelSymbolTable::parse(text).len(), expected, "{text:?}");
    }
}

#[test]
fn unreadable_kallsyms_leaves_kernel_addresses_in_hex() {
    let resolver = SystemSymbols::new(SystemSymbolOptions {
        kallsyms_path: PathBuf::from("/nonexistent/kallsyms"),
        ..SystemSymbolOptions::new(None)
    });
    check_kernel(
        &resolver,
        &[(
            0xffffffff81000000,
            "0xffffffff81000000",
            "0xffffffff81000000",
            "0xffffffff81000000",
        )],
    );
}

const MAPS: &str = "\
00400000-00401000 r--p 00000000 fd:01 100 /usr/bin/python3.11
00401000-00500000 r-xp 00001000 fd:01 100 /usr/bin/python3.11
00700000-00800000 rw-p 00000000 00:00 0 [heap]
7f0000000000-7f0000028000 r--p 00000000 fd:01 200 /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000028000-7f00001bd000 r-xp 00028000 fd:01 200 /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000300000-7f0000301000 r-xp 00000000 fd:01 300 /tmp/plugin.so (deleted)
7ffc00000000-7ffc00002000 r-xp 00000000 00:00 0 [vdso]
";

fn identity(start_time: u64, executable: &str) -> ProcessIdentity {
    ProcessIdentity {
        start_time: Some(start_time),
        executable: Some(PathBuf::from(executable)),
    }
}

/// What a mapping lookup should find: module, file offset and the object's load base.
type ExpectedMapping<'m> = Option<(&'m str, u64, u64)>;

/// Checks what `store` finds for each address of `pid`.
fn check_mappings(store: &MappingStore, pid: u64, cases: &[(u64, ExpectedMapping<'_>)]) {
    for &(address, expected) in cases {
        let found = store.mapping(pid, address).map(|mapping| {
            (
                mapping.object.module.as_str(),
                mapping.file_offset_of(address),
                store
                    .load_base(pid, &mapping.object)
                    .expect("mapped object has a base"),
            )
        });
        assert_eq!(found, expected, "address {address:#x} of pid {pid}");
    }
}

#[test]
fn mapping_snapshots_find_objects_and_offsets() {
    let mut store = MappingStore::new();
    store.record(7, identity(1, "/usr/bin/python3.11"), MAPS, &|_| None);
    check_mappings(
        &store,
        7,
        &[
            (0x400000, Some(("python3.11", 0, 0x400000))),
            (0x4010a0, Some(("python3.11", 0x10a0, 0x400000))),
            (0x4fffff, Some(("python3.11", 0xfffff, 0x400000))),
            (0x500000, None),
            (0x700010, None),
            (0x7f0000028123, Some(("libc.so.6", 0x28123, 0x7f0000000000))),
            (0x7f0000300010, Some(("plugin.so", 0x10, 0x7f0000300000))),
            (0x7ffc00000010, None),
            (0x10, None),
        ],
    );
    check_mappings(&store, 8, &[(0x4010a0, None)]);
}

#[test]
fn mapping_snapshots_keep_unmapped_objects_until_the_program_changes() {
    let mut store = MappingStore::new();
    store.record(7, identity(1, "/usr/bin/python3.11"), MAPS, &|_| None);
    // The plugin is unloaded and another library is mapped over part of libc's range.
    let later = "\
00400000-00401000 r--p 00000000 fd:01 100 /usr/bin/python3.11
00401000-00500000 r-xp 00001000 fd:01 100 /usr/bin/python3.11
7f0000000000-7f0000010000 r-xp 00000000 fd:01 400 /usr/lib/libz.so.1
";
    store.record(7, identity(1, "/usr/bin/python3.11"), later, &|_| None);
    check_mappings(
        &store,
        7,
        &[
            (0x7f0000300010, Some(("plugin.so", 0x10, 0x7f0000300000))),
            (0x7f0000000010, Some(("libz.so.1", 0x10, 0x7f0000000000))),
            // libc's first mapping overlapped libz's and is gone; its second stays.
            (0x7f0000028123, Some(("libc.so.6", 0x28123, 0x7f0000000000))),
        ],
    );
    // After an exec (another executable) only the new mappings count.
    store.record(7, identity(1, "/usr/bin/true"), later, &|_| None);
    check_mappings(
        &store,
        7,
        &[
            (0x7f0000300010, None),
            (0x7f0000028123, None),
            (0x7f0000000010, Some(("libz.so.1", 0x10, 0x7f0000000000))),
        ],
    );
}

/// A function of this test binary whose address the lookups below resolve.
#[inline(never)]
fn symbolization_marker_function(value: u64) -> u64 {
    std::hint::black_box(value.wrapping_mul(3))
}

/// The basename of this test binary, the module its functions belong to.
fn own_module() -> String {
    std::env::current_exe()
        .expect("test binary path")
        .file_name()
        .expect("test binary name")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn user_addresses_of_this_process_resolve() {
    let resolver = SystemSymbols::new(SystemSymbolOptions::new(None));
    let pid = u64::from(std::process::id());
    let function = symbolization_marker_function as *const () as u64;
    assert_eq!(symbolization_marker_function(2), 6);
    let module = own_module();
    let expected_symbol = format!("{module}`symbolize::symbolization_marker_function");
    let cases: &[(u64, String, String)] = &[
        (function, expected_symbol.clone(), expected_symbol.clone()),
        (
            function + 3,
            format!("{expected_symbol}+0x3"),
            expected_symbol.clone(),
        ),
    ];
    for (address, with_offset, symbol) in cases {
        assert_eq!(&user_address_text(&resolver, pid, *address), with_offset);
        assert_eq!(&user_symbol_text(&resolver, pid, *address), symbol);
        assert_eq!(user_module_text(&resolver, pid, *address), module);
    }
    // A C library function, found through the library's own symbol table.
    let getppid = libc::getppid as *const () as u64;
    assert_eq!(
        user_symbol_text(&resolver, pid, getppid),
        "libc.so.6`getppid"
    );
    // Anonymous memory (the heap) has no module; pid 0 is no process.
    let heap = Box::new(0u64);
    let heap_address = &*heap as *const u64 as u64;
    assert_eq!(
        user_address_text(&resolver, pid, heap_address),
        format!("0x{heap_address:x}")
    );
    assert_eq!(
        user_address_text(&resolver, 0, function),
        format!("0x{function:x}")
    );
}

#[test]
fn user_lookups_of_a_process_never_seen_print_hex() {
    let symbols = UserSymbols::new();
    // Pids are at most 2^22; this one cannot exist.
    assert_eq!(symbols.lookup(1 << 40, 0x401000), None);
}

#[test]
fn noresolve_prints_user_frames_as_object_offsets() {
    let resolver = SystemSymbols::new(SystemSymbolOptions {
        noresolve: true,
        ..SystemSymbolOptions::new(None)
    });
    let pid = u64::from(std::process::id());
    let function = symbolization_marker_function as *const () as u64;
    let mut store = MappingStore::new();
    store.record_live(
        pid,
        &std::fs::read_to_string("/proc/self/maps").expect("own maps"),
    );
    let mapping = store
        .mapping(pid, function)
        .expect("own code is mapped")
        .clone();
    let base = store.load_base(pid, &mapping.object).expect("base");
    let module = own_module();
    let heap = Box::new(0u64);
    let heap_address = &*heap as *const u64 as u64;
    let words: Vec<u8> = [function, heap_address, 0]
        .iter()
        .flat_map(|word| word.to_le_bytes())
        .collect();
    let mut out = String::new();
    render_user_stack(
        &mut out,
        &resolver,
        pid,
        &StackFrames::new(&words),
        2,
        &CFormatSpec::default(),
    );
    assert_eq!(
        out,
        format!(
            "\n  {module}:0x{:x}\n  0x{heap_address:x}\n",
            function - base
        )
    );
    // Only stack frames are affected: uaddr() still resolves.
    assert_eq!(
        user_symbol_text(&resolver, pid, function),
        format!("{module}`symbolize::symbolization_marker_function")
    );
}
