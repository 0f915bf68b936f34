//! The x86_64 syscall table and the syscall provider, from a fake tracefs and from the
//! built-in table.

mod common;

use common::{description, fake_tracefs};
use providers::provider::{ProbeKind, Provider};
use providers::syscall_provider::SyscallProvider;
use providers::syscall_table::{syscall_by_number, syscall_by_probe_function, X86_64_SYSCALLS};
use providers::tracefs::Tracefs;

#[test]
fn table_is_sane() {
    assert!(
        X86_64_SYSCALLS.len() > 370,
        "table has {} rows",
        X86_64_SYSCALLS.len()
    );
    for pair in X86_64_SYSCALLS.windows(2) {
        assert!(
            pair[0].number < pair[1].number,
            "{:?} before {:?}",
            pair[0],
            pair[1]
        );
    }
    let mut names: Vec<&str> = X86_64_SYSCALLS.iter().map(|entry| entry.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), X86_64_SYSCALLS.len(), "names are unique");
    for (number, name, function) in [
        (0, "read", Some("read")),
        (1, "write", Some("write")),
        (4, "stat", Some("newstat")),
        (40, "sendfile", Some("sendfile64")),
        (59, "execve", Some("execve")),
        (63, "uname", Some("newuname")),
        (156, "_sysctl", None),
        (166, "umount2", Some("umount")),
        (257, "openat", Some("openat")),
        (321, "bpf", Some("bpf")),
        (424, "pidfd_send_signal", Some("pidfd_send_signal")),
        (435, "clone3", Some("clone3")),
        (449, "futex_waitv", Some("futex_waitv")),
    ] {
        let entry = syscall_by_number(number).unwrap_or_else(|| panic!("syscall {number} missing"));
        assert_eq!(
            (entry.name, entry.probe_function()),
            (name, function),
            "syscall {number}"
        );
    }
    assert_eq!(
        syscall_by_probe_function("newstat").map(|entry| entry.number),
        Some(4)
    );
    assert_eq!(syscall_by_probe_function("stat"), None);
    assert!(
        syscall_by_number(400).is_none(),
        "387..423 are unused on x86_64"
    );
}

/// (function, name, number) of every probe matching `text`.
fn probes(provider: &SyscallProvider, text: &str) -> Vec<(String, String, Option<u32>)> {
    provider
        .probes(&description(text))
        .expect("syscall enumeration does not fail")
        .into_iter()
        .map(|entry| {
            let ProbeKind::Syscall {
                number,
                event,
                is_return,
            } = entry.kind
            else {
                panic!("not a syscall probe")
            };
            assert_eq!(event, entry.description.function);
            assert_eq!(is_return, entry.description.name == "return");
            assert_eq!(entry.description.module, "vmlinux");
            (entry.description.function, entry.description.name, number)
        })
        .collect()
}

fn owned(rows: &[(&str, &str, Option<u32>)]) -> Vec<(String, String, Option<u32>)> {
    rows.iter()
        .map(|(function, name, number)| (function.to_string(), name.to_string(), *number))
        .collect()
}

#[test]
fn tracefs_syscalls_in_number_order() {
    let directory = fake_tracefs();
    let provider = SyscallProvider::new(Some(Tracefs::at(directory.path())));
    assert_eq!(
        probes(&provider, "syscall:::entry"),
        owned(&[
            ("read", "entry", Some(0)),
            ("newstat", "entry", Some(4)),
            ("openat", "entry", Some(257)),
            ("brand_new_call", "entry", None),
        ])
    );
    assert!(!provider.uses_builtin_table());
    assert_eq!(
        probes(&provider, ":vmlinux:new*:"),
        owned(&[
            ("newstat", "entry", Some(4)),
            ("newstat", "return", Some(4))
        ])
    );
    assert_eq!(probes(&provider, "syscall:::nonesuch"), owned(&[]));
    assert_eq!(probes(&provider, "sdt:::entry"), owned(&[]));
    assert_eq!(probes(&provider, "syscall:kernel::entry"), owned(&[]));
}

#[test]
fn argument_types_from_format_files() {
    let directory = fake_tracefs();
    let provider = SyscallProvider::new(Some(Tracefs::at(directory.path())));
    let check = |text: &str, expected: &[&str]| {
        let entries = provider.probes(&description(text)).expect("enumeration");
        assert_eq!(entries.len(), 1, "{text}");
        assert_eq!(
            provider
                .argument_types(&entries[0])
                .expect("argument types"),
            expected,
            "{text}"
        );
    };
    check("syscall::read:entry", &["unsigned int", "char *", "size_t"]);
    check("syscall::read:return", &["long"]);
    check(
        "syscall::openat:entry",
        &["int", "const char *", "int", "umode_t"],
    );

    // A format file that disappeared is an error, not a panic.
    let entries = provider
        .probes(&description("syscall::newstat:entry"))
        .expect("enumeration");
    std::fs::remove_file(
        directory
            .path()
            .join("events/syscalls/sys_enter_newstat/format"),
    )
    .expect("remove");
    assert!(provider.argument_types(&entries[0]).is_err());
}

#[test]
fn builtin_table_without_tracefs() {
    for provider in [
        SyscallProvider::new(None),
        SyscallProvider::new(Some(Tracefs::at("/nonexistent/tracefs"))),
    ] {
        assert_eq!(
            probes(&provider, "syscall::read:"),
            owned(&[("read", "entry", Some(0)), ("read", "return", Some(0))])
        );
        assert!(provider.uses_builtin_table());
        assert_eq!(
            probes(&provider, "::newstat:entry"),
            owned(&[("newstat", "entry", Some(4))])
        );
        // Reserved numbers without an implementation are not probes.
        assert_eq!(probes(&provider, "::_sysctl:"), owned(&[]));
        assert_eq!(
            probes(&provider, ":::entry").len(),
            X86_64_SYSCALLS
                .iter()
                .filter(|entry| entry.entry_point.is_some())
                .count()
        );
        let entry = &provider
            .probes(&description("::read:entry"))
            .expect("enumeration")[0];
        assert_eq!(
            provider.argument_types(entry).expect("no types, no error"),
            Vec::<String>::new()
        );
    }
}
