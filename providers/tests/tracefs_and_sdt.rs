//! tracefs `format` parsing and the sdt provider over a fake tracefs.

mod common;

use common::{description, fake_tracefs};
use providers::provider::{ProbeKind, Provider};
use providers::sdt_provider::SdtProvider;
use providers::tracefs::{parse_event_format, EventField, Tracefs};

/// Checks the (type, name, offset, size, signed) of each non-common field of `text`.
fn check(text: &str, expected: &[(&str, &str, u32, u32, bool)]) {
    let format = parse_event_format(text).expect("format parses");
    let fields: Vec<(&str, &str, u32, u32, bool)> = format
        .argument_fields()
        .map(
            |EventField {
                 c_type,
                 name,
                 offset,
                 size,
                 signed,
             }| (c_type.as_str(), name.as_str(), *offset, *size, *signed),
        )
        .collect();
    assert_eq!(fields, expected);
}

#[test]
fn format_files_parse() {
    let openat = "name: sys_enter_openat\nID: 782\nformat:\n\
        \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
        \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
        \tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\
        \tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n\
        \tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n\n\
        print fmt: \"dfd: 0x%08lx\", ((unsigned long)(REC->dfd))\n";
    check(
        openat,
        &[
            ("int", "__syscall_nr", 8, 4, true),
            ("int", "dfd", 16, 8, false),
            ("const char *", "filename", 24, 8, false),
        ],
    );
    let format = parse_event_format(openat).expect("parses");
    assert_eq!(
        (format.name.as_str(), format.id),
        ("sys_enter_openat", Some(782))
    );
    assert_eq!(format.fields.len(), 5);

    check(
        "format:\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\
         \tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n\
         \tfield:unsigned long long value;\toffset:32;\tsize:8;\tsigned:0;\n",
        &[
            ("char [16]", "prev_comm", 8, 16, false),
            ("__data_loc char[]", "name", 24, 4, false),
            ("unsigned long long", "value", 32, 8, false),
        ],
    );
    assert!(parse_event_format("ID: twelve\n").is_err());
    assert!(parse_event_format("\tfield:int;\toffset:0;\tsize:4;\tsigned:1;\n").is_err());
    assert!(parse_event_format("\tfield:int x;\tsize:4;\n").is_err());
    assert_eq!(
        parse_event_format("").expect("empty is empty"),
        Default::default()
    );
}

#[test]
fn sdt_lists_tracepoints_but_not_ftrace_formats() {
    let directory = fake_tracefs();
    let tracefs = Tracefs::at(directory.path());
    assert_eq!(
        tracefs.groups().expect("groups"),
        ["ftrace", "sched", "syscalls"]
    );
    let provider = SdtProvider::new(Some(tracefs));
    let listed: Vec<String> = provider
        .probes(&description("sdt:::"))
        .expect("enumeration")
        .iter()
        .map(|entry| entry.description.to_string())
        .collect();
    assert_eq!(
        &listed[..2],
        ["sdt:sched::sched_switch", "sdt:sched::sched_wakeup"]
    );
    assert!(listed.iter().all(|text| !text.starts_with("sdt:ftrace")));
    assert_eq!(listed.len(), 2 + 8, "sched events and the syscall events");

    let entries = provider
        .probes(&description(":sched::*switch"))
        .expect("enumeration");
    assert_eq!(entries.len(), 1);
    assert_eq!(
        entries[0].kind,
        ProbeKind::Tracepoint {
            group: "sched".to_string(),
            event: "sched_switch".to_string()
        }
    );
    assert_eq!(
        provider.argument_types(&entries[0]).expect("types"),
        ["char [16]", "pid_t", "long"]
    );
    assert!(provider
        .probes(&description("syscall:::"))
        .expect("enumeration")
        .is_empty());
    assert!(provider
        .probes(&description("sdt:sched:x:"))
        .expect("enumeration")
        .is_empty());
}

#[test]
fn the_event_list_file_gives_the_tracepoints_the_directories_give() {
    let directory = fake_tracefs();
    let tracefs = Tracefs::at(directory.path());
    let from_directories = tracefs.tracepoints();
    assert!(!from_directories.is_empty());
    // tracefs lists `group:event` lines in no particular order.
    let mut lines: Vec<String> = from_directories
        .iter()
        .rev()
        .map(|(group, event)| format!("{group}:{event}"))
        .collect();
    lines.push("ftrace:function".to_string());
    directory.write("available_events", &(lines.join("\n") + "\n"));
    assert_eq!(tracefs.tracepoints(), from_directories);
}

#[test]
fn sdt_without_tracefs_has_no_probes() {
    assert!(SdtProvider::new(None)
        .probes(&description(":::"))
        .expect("no error")
        .is_empty());
    let missing = SdtProvider::new(Some(Tracefs::at("/nonexistent/tracefs")));
    assert!(missing
        .probes(&description("sdt:::"))
        .expect("no error")
        .is_empty());
    assert!(Tracefs::at("/nonexistent/tracefs")
        .event_format("sched", "sched_switch")
        .is_err());
}
