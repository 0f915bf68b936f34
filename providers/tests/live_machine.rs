//! Enumeration against this machine: tracefs syscalls and tracepoints, kallsyms, and
//! USDT probes of python3.11. Each test prints a one-line reason and returns early
//! when the machine lacks what it needs (no tracefs, no permission, no python3.11
//! with notes), so the suite passes anywhere without root.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use common::description;
use providers::elf_object::ElfObject;
use providers::fbt_provider::FbtProvider;
use providers::provider::{ProbeKind, Provider};
use providers::registry::ProbeRegistry;
use providers::sdt_provider::SdtProvider;
use providers::syscall_provider::SyscallProvider;
use providers::tracefs::{mount_tracefs_if_missing, Tracefs};
use providers::usdt_provider::{usdt_probes_in_file, UsdtProvider};

/// The mounted tracefs, if its syscall events can be read.
fn readable_tracefs() -> Option<Tracefs> {
    let Some(tracefs) = Tracefs::find() else {
        println!("skipped: tracefs is not mounted or not accessible");
        return None;
    };
    if let Err(error) = tracefs.events("syscalls") {
        println!("skipped: tracefs is not readable: {error}");
        return None;
    }
    Some(tracefs)
}

#[test]
fn syscalls_from_the_running_kernel() {
    let Some(tracefs) = readable_tracefs() else {
        return;
    };
    let provider = SyscallProvider::new(Some(tracefs));
    assert!(!provider.uses_builtin_table());
    let read = provider
        .probes(&description("syscall::read:entry"))
        .expect("enumeration");
    assert_eq!(read.len(), 1);
    assert_eq!(
        read[0].kind,
        ProbeKind::Syscall {
            number: Some(0),
            event: "read".to_string(),
            is_return: false
        }
    );
    let openat = &provider
        .probes(&description("syscall::openat:entry"))
        .expect("enumeration")[0];
    let types = provider
        .argument_types(openat)
        .expect("openat format readable");
    assert_eq!(
        types.get(1).map(String::as_str),
        Some("const char *"),
        "{types:?}"
    );
    let entries = provider
        .probes(&description("syscall:::entry"))
        .expect("enumeration");
    assert!(entries.len() > 250, "only {} syscalls", entries.len());
    let unknown: Vec<&str> = entries
        .iter()
        .filter(|entry| matches!(entry.kind, ProbeKind::Syscall { number: None, .. }))
        .map(|entry| entry.description.function.as_str())
        .collect();
    assert!(
        unknown.is_empty(),
        "syscalls missing from the built-in table: {unknown:?}"
    );
}

#[test]
fn tracepoints_from_the_running_kernel() {
    let Some(tracefs) = readable_tracefs() else {
        return;
    };
    let provider = SdtProvider::new(Some(tracefs));
    let switch = provider
        .probes(&description("sdt:sched::sched_switch"))
        .expect("enumeration");
    if switch.is_empty() {
        println!("skipped: this kernel has no sched:sched_switch tracepoint");
        return;
    }
    let types = provider
        .argument_types(&switch[0])
        .expect("format readable");
    assert_eq!(
        types.first().map(String::as_str),
        Some("char [16]"),
        "{types:?}"
    );
}

#[test]
fn tracefs_mount_is_left_alone_when_present() {
    // Only exercised where it cannot change the machine: tracefs already mounted, or
    // not root (then it must refuse).
    // SAFETY: geteuid has no preconditions.
    let is_root = unsafe { libc::geteuid() } == 0;
    match Tracefs::find() {
        Some(tracefs) => assert_eq!(
            mount_tracefs_if_missing().expect("already mounted"),
            tracefs
        ),
        None if !is_root => assert!(mount_tracefs_if_missing().is_err()),
        None => println!("skipped: tracefs unmounted and we are root; not mounting it from a test"),
    }
}

#[test]
fn kernel_functions_from_kallsyms() {
    let provider = FbtProvider::for_this_machine();
    let entries = provider
        .probes(&description("fbt:vmlinux:schedule:entry"))
        .expect("enumeration");
    if entries.is_empty() {
        println!("skipped: neither /proc/kallsyms nor kernel BTF lists `schedule`");
        return;
    }
    assert_eq!(
        entries[0].description.to_string(),
        "fbt:vmlinux:schedule:entry"
    );
}

#[test]
fn registry_of_this_machine() {
    let mut registry = ProbeRegistry::for_this_machine();
    assert_eq!(
        registry
            .matching(&description(":::BEGIN"))
            .expect("matching"),
        [1]
    );
    assert_eq!(
        registry
            .matching(&description("dtrace:::ERROR"))
            .expect("matching"),
        [3]
    );
    assert_eq!(
        registry
            .matching(&description("syscall::read:entry"))
            .expect("matching"),
        [4],
        "syscall read follows dtrace"
    );
    let pid = std::process::id();
    let own = registry
        .matching(&description(&format!("pid{pid}:libc.so.6:malloc:entry")))
        .expect("matching");
    assert_eq!(own.len(), 1);
    assert_eq!(
        registry
            .matching(&description(&format!("pid{pid}:libc.so.6:malloc:entry")))
            .expect("matching"),
        own
    );
}

/// A python3.11 whose executable carries USDT notes, if the machine has one.
fn python_with_notes() -> Option<PathBuf> {
    let mut candidates = vec![PathBuf::from("/usr/bin/python3.11")];
    if let Some(path) = std::env::var_os("PATH") {
        candidates
            .extend(std::env::split_paths(&path).map(|directory| directory.join("python3.11")));
    }
    let found = candidates.into_iter().find(|candidate| {
        ElfObject::open(candidate)
            .is_ok_and(|elf| elf.usdt_notes.iter().any(|note| note.provider == "python"))
    });
    if found.is_none() {
        println!("skipped: no python3.11 with USDT notes on this machine");
    }
    found
}

#[test]
fn usdt_probes_of_a_file() {
    let Some(python) = python_with_notes() else {
        return;
    };
    let entries = usdt_probes_in_file(&python, &description("python:::gc__start")).expect("notes");
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    assert_eq!(entry.description.provider, "python");
    assert_eq!(entry.description.module, "python3.11");
    // Debian's python3.11 is stripped, so the function may be empty; when the object
    // has a symbol around the site, it is that symbol.
    let elf = ElfObject::open(&python).expect("ELF");
    let note = elf
        .usdt_notes
        .iter()
        .find(|note| note.name == "gc__start")
        .expect("note");
    let function = elf
        .function_containing(note.address)
        .map(|function| function.name.as_str())
        .unwrap_or("");
    assert_eq!(entry.description.function, function);
    assert_eq!(entry.argument_types, ["int32_t"]);
    let ProbeKind::Uprobe {
        pid: None,
        is_return: false,
        sites,
    } = &entry.kind
    else {
        panic!("{:?}", entry.kind)
    };
    assert!(sites
        .iter()
        .all(|site| site.semaphore_file_offset.is_some() && site.usdt_arguments.is_some()));
    // DTrace's spelling with `-` for `__` matches too.
    assert_eq!(
        usdt_probes_in_file(&python, &description("python:::gc-start")).expect("notes"),
        entries
    );
    assert!(usdt_probes_in_file(&python, &description("perl:::"))
        .expect("notes")
        .is_empty());
}

/// Kills and reaps the child when dropped, even when an assertion fails.
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn usdt_probes_of_a_python_process() {
    let Some(python) = python_with_notes() else {
        return;
    };
    let child = Command::new(&python)
        .args([
            "-c",
            "print('ready', flush=True); import time; time.sleep(30)",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn python");
    let mut child = ChildGuard(child);
    let pid = child.0.id();
    // The first line of output means python runs in user space with every object
    // mapped (the exec is complete).
    let mut ready = String::new();
    let stdout = child.0.stdout.take().expect("piped stdout");
    BufReader::new(stdout)
        .read_line(&mut ready)
        .expect("read from python");
    assert_eq!(ready, "ready\n");

    let provider = UsdtProvider::new();
    let entries = provider
        .probes(&description(&format!("python{pid}:::function__entry")))
        .expect("usdt probes");
    assert!(!entries.is_empty());
    for entry in &entries {
        assert_eq!(entry.description.provider, format!("python{pid}"));
        let ProbeKind::Uprobe {
            pid: Some(owner),
            sites,
            ..
        } = &entry.kind
        else {
            panic!("{:?}", entry.kind)
        };
        assert_eq!(*owner, pid);
        assert!(!sites.is_empty());
    }
    let all = provider
        .probes(&description(&format!("python{pid}:::")))
        .expect("usdt probes");
    let names: Vec<&str> = all
        .iter()
        .map(|entry| entry.description.name.as_str())
        .collect();
    for expected in [
        "gc__start",
        "gc__done",
        "function__entry",
        "function__return",
        "line",
        "import__find__load__start",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(provider
        .probes(&description(&format!("pid{pid}:::")))
        .expect("pid is not usdt")
        .is_empty());
    assert!(provider
        .probes(&description("python:::"))
        .expect("no pid")
        .is_empty());
}
