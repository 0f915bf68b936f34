//! pid and usdt providers: provider-field parsing, `/proc/PID/maps` handling, ELF
//! reading, and the pid provider against this test process itself.

mod common;

use std::path::{Path, PathBuf};

use common::description;
use providers::elf_object::ElfObject;
use providers::error::{ProviderError, UserProbeErrorTag};
use providers::pid_provider::PidProvider;
use providers::process_maps::{objects_from_maps, parse_maps, MappedObject};
use providers::provider::{ProbeEntry, ProbeKind, Provider, UprobeSite};
use providers::user_objects::{module_matches, parse_pid, split_provider_pid};
use providers::x86_branches::return_offsets;
use providers::x86_length::instruction_offsets;

/// A function of this test binary with a known name and some body, for the pid
/// provider to find in `.symtab`.
#[no_mangle]
#[inline(never)]
pub extern "C" fn providers_test_marker_function(value: u64) -> u64 {
    std::hint::black_box(value.wrapping_mul(31).rotate_left(7) ^ 0x5a5a)
}

#[test]
fn provider_fields_with_pids() {
    assert_eq!(split_provider_pid("pid1234"), Some(("pid", "1234")));
    assert_eq!(split_provider_pid("python1234"), Some(("python", "1234")));
    assert_eq!(split_provider_pid("py*1"), Some(("py*", "1")));
    assert_eq!(split_provider_pid("pid"), None);
    assert_eq!(split_provider_pid("1234"), None);
    assert_eq!(split_provider_pid(""), None);
    assert_eq!(split_provider_pid("pid*"), None);
    assert_eq!(parse_pid("pid1234", "1234"), Ok(1234));
    for (field, digits) in [
        ("pid0", "0"),
        ("pid99999999999", "99999999999"),
        ("pid4294967295", "4294967295"),
    ] {
        let error = parse_pid(field, digits).expect_err(field);
        assert_eq!(error.tag_name(), Some("D_PROC_BADPID"));
        assert_eq!(
            error.to_string(),
            format!("'{field}' does not contain a valid pid")
        );
    }
}

const MAPS: &str = "\
55d0c0a00000-55d0c0a28000 r--p 00000000 fd:01 1311 /usr/bin/python3.11
55d0c0a28000-55d0c0d00000 r-xp 00028000 fd:01 1311 /usr/bin/python3.11
55d0c1f00000-55d0c2000000 rw-p 00000000 00:00 0 [heap]
7f0000000000-7f0000028000 r--p 00000000 fd:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000028000-7f00001bd000 r-xp 00028000 fd:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000200000-7f0000201000 r--p 00000000 fd:01 3333 /tmp/old library.so (deleted)
7f0000300000-7f0000301000 rw-s 00000000 00:05 4444 /dev/zero (deleted)
7f0000400000-7f0000401000 r--p 00000000 fd:01 5555 /usr/lib/locale/C.utf8/LC_CTYPE
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]
not a maps line
";

#[test]
fn maps_lines_and_mapped_objects() {
    let lines = parse_maps(MAPS);
    assert_eq!(lines.len(), 9);
    assert_eq!(
        (lines[1].start, lines[1].end, lines[1].file_offset),
        (0x55d0c0a28000, 0x55d0c0d00000, 0x28000)
    );
    assert_eq!(
        (
            lines[1].permissions.as_str(),
            lines[1].device.as_str(),
            lines[1].inode
        ),
        ("r-xp", "fd:01", 1311)
    );
    assert_eq!(lines[5].path, "/tmp/old library.so (deleted)");
    assert_eq!(lines[2].path, "[heap]");

    let objects = objects_from_maps(
        &lines,
        Path::new("/nonexistent-root"),
        Some(Path::new("/usr/bin/python3.11")),
    );
    let shown: Vec<(&str, &str, bool)> = objects
        .iter()
        .map(|object| {
            (
                object.module.as_str(),
                object.path.as_str(),
                object.is_main_executable,
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("python3.11", "/usr/bin/python3.11", true),
            ("libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", false),
            ("LC_CTYPE", "/usr/lib/locale/C.utf8/LC_CTYPE", false),
        ]
    );
    assert_eq!(
        objects[0].open_path,
        PathBuf::from("/usr/bin/python3.11"),
        "falls back to the path when the root is unreachable"
    );
}

#[test]
fn module_fields() {
    let object = |path: &str, is_main_executable: bool| MappedObject {
        path: path.to_string(),
        open_path: PathBuf::from(path),
        device: "fd:01".to_string(),
        inode: 1,
        module: path.rsplit('/').next().unwrap_or(path).to_string(),
        is_main_executable,
    };
    let executable = object("/usr/bin/python3.11", true);
    let libc = object("/usr/lib/x86_64-linux-gnu/libc.so.6", false);
    for (pattern, matches_executable, matches_libc) in [
        ("", true, true),
        ("python3.11", true, false),
        ("a.out", true, false),
        ("a.*", true, false),
        ("libc.so.6", false, true),
        ("libc", false, true),
        ("libc.so", false, true),
        ("lib", false, false),
        ("libc.so.*", false, true),
        ("*", true, true),
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", false, true),
        ("python", false, false),
    ] {
        assert_eq!(
            module_matches(pattern, &executable),
            matches_executable,
            "{pattern:?} vs executable"
        );
        assert_eq!(
            module_matches(pattern, &libc),
            matches_libc,
            "{pattern:?} vs libc"
        );
    }
}

#[test]
fn elf_objects_read_symbols_and_offsets() {
    let executable = std::env::current_exe().expect("test executable");
    let elf = ElfObject::open(&executable).expect("test executable is ELF");
    let marker = elf
        .functions
        .iter()
        .find(|function| function.name == "providers_test_marker_function")
        .expect("marker symbol");
    assert!(marker.size > 0);
    let offset = elf
        .file_offset(marker.address)
        .expect("marker is in a PT_LOAD segment");
    assert_eq!(
        elf.function_containing(marker.address + marker.size - 1)
            .map(|f| f.name.as_str()),
        Some("providers_test_marker_function")
    );
    // The bytes at the file offset are the function's code as mapped in memory.
    let file = std::fs::read(&executable).expect("read executable");
    let in_memory = providers_test_marker_function as *const u8;
    let length = marker.size.min(16) as usize;
    // SAFETY: the function's code is mapped readable and executable and at least
    // `marker.size` bytes long.
    let code = unsafe { std::slice::from_raw_parts(in_memory, length) };
    assert_eq!(&file[offset as usize..offset as usize + length], code);
    assert_eq!(
        providers_test_marker_function(1),
        providers_test_marker_function(1)
    );

    // Garbage and truncated files are errors, never panics.
    assert!(matches!(
        ElfObject::parse(Path::new("garbage"), &b"garbage, not ELF at all"[..]),
        Err(ProviderError::Malformed { .. })
    ));
    for length in [0, 16, 64, 100, 4096] {
        let _ = ElfObject::parse(Path::new("truncated"), &file[..length.min(file.len())]);
    }
    assert!(matches!(
        ElfObject::open(Path::new("/nonexistent/object")),
        Err(ProviderError::Io { .. })
    ));
}

/// The probes the pid provider gives this process for `text` (`$pid` stands for our
/// pid), or the error.
fn own_probes(text: &str) -> Result<Vec<ProbeEntry>, ProviderError> {
    PidProvider::new().probes(&description(
        &text.replace("$pid", &std::process::id().to_string()),
    ))
}

/// The single site of a pid probe.
fn only_site(entry: &ProbeEntry) -> (&UprobeSite, bool) {
    let ProbeKind::Uprobe {
        pid,
        is_return,
        sites,
    } = &entry.kind
    else {
        panic!("not a uprobe: {entry:?}")
    };
    assert_eq!(*pid, Some(std::process::id()));
    assert_eq!(sites.len(), 1);
    (&sites[0], *is_return)
}

#[test]
fn pid_provider_on_this_process() {
    let pid = std::process::id();
    let executable = std::env::current_exe().expect("test executable");
    let module = executable
        .file_name()
        .expect("basename")
        .to_string_lossy()
        .into_owned();

    let elf = ElfObject::open(&executable).expect("ELF");
    let marker = elf
        .functions
        .iter()
        .find(|function| function.name == "providers_test_marker_function")
        .expect("marker");
    let code = elf
        .read_bytes(marker.address, marker.size)
        .expect("marker code");
    let boundaries = instruction_offsets(&code).expect("the marker decodes");
    assert!(boundaries.len() > 1, "{code:02x?}");

    // An empty name is `*`: entry, return and a probe per instruction, named by its
    // hex offset.
    let entries = own_probes("pid$pid::providers_test_marker_function:").expect("probes");
    let shown: Vec<String> = entries
        .iter()
        .map(|entry| entry.description.to_string())
        .collect();
    let prefix = format!("pid{pid}:{module}:providers_test_marker_function:");
    let mut expected = vec![format!("{prefix}entry"), format!("{prefix}return")];
    expected.extend(
        boundaries
            .iter()
            .map(|offset| format!("{prefix}{offset:x}")),
    );
    assert_eq!(shown, expected);
    let (entry_site, entry_is_return) = only_site(&entries[0]);
    let (return_site, return_is_return) = only_site(&entries[1]);
    assert!(!entry_is_return && return_is_return);
    assert_eq!(entry_site.return_offset, None);
    // The return probe is a uretprobe at the function's start; the marker leaves only
    // through its `ret`, whose offset (arg0) is the site's return offset.
    let returns = return_offsets(&code).expect("the marker returns only by ret");
    assert_eq!(returns.len(), 1);
    assert_eq!(return_site.return_offset, Some(returns[0]));
    assert_eq!(return_site.file_offset, entry_site.file_offset);
    assert_eq!(
        Some(entry_site.file_offset),
        elf.file_offset(marker.address)
    );
    assert_eq!(
        std::fs::canonicalize(&entry_site.path).ok(),
        std::fs::canonicalize(&executable).ok()
    );
    for (entry, offset) in entries[2..].iter().zip(&boundaries) {
        let (site, is_return) = only_site(entry);
        assert!(!is_return);
        assert_eq!(site.file_offset, entry_site.file_offset + offset);
    }

    // A glob name matches hex offsets as well as entry and return; `e*` takes entry and
    // the offsets starting with e.
    let globbed = own_probes("pid$pid::providers_test_marker_function:e*").expect("glob");
    let mut expected = vec!["entry".to_string()];
    expected.extend(
        boundaries
            .iter()
            .map(|offset| format!("{offset:x}"))
            .filter(|name| name.starts_with('e')),
    );
    let names: Vec<&str> = globbed
        .iter()
        .map(|entry| entry.description.name.as_str())
        .collect();
    assert_eq!(names, expected);

    // The executable is also module a.out; an instruction offset is a probe of its own.
    let second = boundaries[1];
    let offset = own_probes(&format!(
        "pid$pid:a.out:providers_test_marker_function:{second:x}"
    ))
    .expect("offset probe");
    assert_eq!(offset.len(), 1);
    assert_eq!(offset[0].description.name, format!("{second:x}"));
    assert_eq!(
        only_site(&offset[0]).0.file_offset,
        entry_site.file_offset + second
    );
    let hex = own_probes(&format!(
        "pid$pid:a.out:providers_test_marker_function:0x{second:x}"
    ))
    .expect("offset probe");
    assert_eq!(hex[0].description.name, format!("{second:x}"));

    // libc is mapped into every Rust test process.
    let malloc = own_probes("pid$pid:libc.so.6:malloc:entry").expect("malloc");
    assert_eq!(malloc.len(), 1);
    assert_eq!(malloc[0].description.module, "libc.so.6");
    assert_eq!(
        own_probes("pid$pid:libc:malloc:return")
            .expect("malloc")
            .len(),
        1
    );
    assert!(own_probes("pid$pid::mall?c:en*")
        .expect("glob")
        .iter()
        .all(|entry| entry.description.name == "entry"));
    assert!(own_probes("pid$pid::no_such_function_anywhere:entry")
        .expect("no match, no error")
        .is_empty());
}

#[test]
fn pid_provider_errors() {
    let pid = std::process::id();
    let size = {
        let elf = ElfObject::open(&std::env::current_exe().expect("exe")).expect("ELF");
        elf.functions
            .iter()
            .find(|function| function.name == "providers_test_marker_function")
            .expect("marker")
            .size
    };
    let check = |text: &str, tag: UserProbeErrorTag, message: &str| {
        let error = own_probes(text).expect_err(text);
        assert_eq!(
            error,
            ProviderError::UserProbe {
                tag,
                message: message.to_string()
            },
            "{text}"
        );
    };
    check(
        &format!("pid$pid::providers_test_marker_function:{size:x}"),
        UserProbeErrorTag::Offset,
        &format!("offset 0x{size:x} outside of function 'providers_test_marker_function'"),
    );
    // An offset inside an instruction is refused: a uprobe there would corrupt it.
    let misaligned = {
        let elf = ElfObject::open(&std::env::current_exe().expect("exe")).expect("ELF");
        let marker = elf
            .functions
            .iter()
            .find(|function| function.name == "providers_test_marker_function")
            .expect("marker");
        let code = elf.read_bytes(marker.address, marker.size).expect("code");
        let boundaries = instruction_offsets(&code).expect("decodes");
        (0..marker.size)
            .find(|offset| !boundaries.contains(offset))
            .expect("an instruction longer than a byte")
    };
    check(
        &format!("pid$pid::providers_test_marker_function:{misaligned:x}"),
        UserProbeErrorTag::Align,
        &format!("offset 0x{misaligned:x} is not aligned on an instruction"),
    );
    // A globbed function skips the functions where the offset is not a boundary.
    assert!(own_probes(&format!(
        "pid$pid::providers_test_marker_functio?:{misaligned:x}"
    ))
    .expect("glob")
    .is_empty());
    // Offsets are read as strtoull reads them: a negative one wraps around, a too
    // large one saturates; both are beyond the function.
    for name in ["-1", "fffffffffffffffff", "0xffffffffffffffff"] {
        check(
            &format!("pid$pid::providers_test_marker_function:{name}"),
            UserProbeErrorTag::Offset,
            "offset 0xffffffffffffffff outside of function 'providers_test_marker_function'",
        );
    }
    check(
        "pid$pid::providers_test_marker_function:0x",
        UserProbeErrorTag::Name,
        "'0x' is an invalid probe name",
    );
    check(
        "pid$pid::providers_test_marker_function:bogus",
        UserProbeErrorTag::Name,
        "'bogus' is an invalid probe name",
    );
    check(
        "pid0:::entry",
        UserProbeErrorTag::BadPid,
        "'pid0' does not contain a valid pid",
    );
    // Globbed functions skip those too short for the offset instead of failing.
    assert!(
        own_probes("pid$pid::providers_test_marker_functio?:fffffff")
            .expect("glob")
            .is_empty()
    );
    // A pid that cannot exist (above the kernel's pid limit).
    let error = PidProvider::new()
        .probes(&description("pid2147483647:::entry"))
        .expect_err("no such process");
    assert_eq!(error.tag_name(), Some("D_PROC_GRAB"));
    assert_eq!(error.to_string(), "failed to grab process 2147483647");
    // Other providers' descriptions and pid globs create nothing.
    assert!(PidProvider::new()
        .probes(&description(&format!("python{pid}:::entry")))
        .expect("not pid")
        .is_empty());
    assert!(PidProvider::new()
        .probes(&description("pid*:::entry"))
        .expect("glob")
        .is_empty());
}

// A function whose first instruction has a `lock` prefix, which the kernel's uprobes
// refuse, followed by instructions they accept: `lock incl (%rdi)` (3 bytes), `push
// %rbp`, `pop %rbp`, `ret`.
std::arch::global_asm!(
    ".pushsection .text.providers_test_refused_function,\"ax\",@progbits",
    ".globl providers_test_refused_function",
    ".type providers_test_refused_function,@function",
    "providers_test_refused_function:",
    "lock incl (%rdi)",
    "push %rbp",
    "pop %rbp",
    "ret",
    ".size providers_test_refused_function, .-providers_test_refused_function",
    ".popsection",
    options(att_syntax)
);

extern "C" {
    fn providers_test_refused_function();
}

#[test]
fn instructions_uprobes_refuse_are_left_out_or_refused_by_name() {
    // Referenced so that the linker keeps the function.
    std::hint::black_box(providers_test_refused_function as unsafe extern "C" fn());
    let names = |text: &str| -> Vec<String> {
        own_probes(text)
            .expect(text)
            .iter()
            .map(|entry| entry.description.name.clone())
            .collect()
    };
    // Globbed names leave out entry, return and the offset of the refused instruction.
    assert_eq!(
        names("pid$pid::providers_test_refused_function:"),
        ["3", "4", "5"]
    );
    assert!(names("pid$pid::providers_test_refused_functio?:entry").is_empty());
    // Named exactly, they are D_PROC_CREATEFAIL compile errors.
    for (text, message) in [
        (
            "pid$pid::providers_test_refused_function:entry",
            "failed to create entry probe for 'providers_test_refused_function': the kernel cannot place a uprobe on the instruction at offset 0x0",
        ),
        (
            "pid$pid::providers_test_refused_function:return",
            "failed to create return probe for 'providers_test_refused_function': the kernel cannot place a uprobe on the instruction at offset 0x0",
        ),
        (
            "pid$pid::providers_test_refused_function:0",
            "failed to create probe at 'providers_test_refused_function+0x0': the kernel cannot place a uprobe on the instruction at offset 0x0",
        ),
    ] {
        assert_eq!(
            own_probes(text),
            Err(ProviderError::UserProbe {
                tag: UserProbeErrorTag::CreateFail,
                message: message.to_string()
            }),
            "{text}"
        );
    }
}

#[test]
fn an_exact_module_without_the_exact_function_is_d_proc_func() {
    let error =
        own_probes("pid$pid:a.out:no_such_function_anywhere:entry").expect_err("D_PROC_FUNC");
    assert_eq!(
        error,
        ProviderError::UserProbe {
            tag: UserProbeErrorTag::Function,
            message: "failed to lookup 'no_such_function_anywhere' in module 'a.out'".to_string()
        }
    );
    // The function is looked up before the name is checked, as DTrace does.
    assert_eq!(
        own_probes("pid$pid:libc.so.6:no_such_function_anywhere:bogus")
            .expect_err("D_PROC_FUNC")
            .tag_name(),
        Some("D_PROC_FUNC")
    );
    // A globbed or empty module, or a module the process does not map, matches nothing.
    assert!(own_probes("pid$pid::no_such_function_anywhere:entry")
        .expect("no error")
        .is_empty());
    assert!(own_probes("pid$pid:libc*:no_such_function_anywhere:entry")
        .expect("no error")
        .is_empty());
    assert!(own_probes("pid$pid:no_such_module:malloc:entry")
        .expect("no error")
        .is_empty());
}
