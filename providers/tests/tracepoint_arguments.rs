//! The arguments of sdt probes from real tracepoint `format` texts (copied from a 6.18
//! kernel): the D type of each `args[N]` and what the probe program loads into `argN`.

use kernel_shim::translate::{TracepointField, TracepointValue};
use providers::attachment::tracepoint_fields;
use providers::tracefs::parse_event_format;
use providers::tracepoint_arguments::tracepoint_arguments;

const HEADER: &str = "format:\n\
    \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
    \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
    \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
    \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

/// A format text: name, id, the common header, then `fields` (each `TYPE NAME;` with
/// offset, size and signedness).
fn format_text(name: &str, fields: &[(&str, u32, u32, bool)]) -> String {
    let mut text = format!("name: {name}\nID: 1\n{HEADER}");
    for (declaration, offset, size, signed) in fields {
        text.push_str(&format!(
            "\tfield:{declaration};\toffset:{offset};\tsize:{size};\tsigned:{};\n",
            u8::from(*signed)
        ));
    }
    text.push_str("\nprint fmt: \"\"\n");
    text
}

/// (D type, offset, value) of every argument of `text`.
fn arguments(text: &str) -> Vec<(String, u16, TracepointValue)> {
    let format = parse_event_format(text).expect("format parses");
    tracepoint_arguments(&format)
        .into_iter()
        .map(|argument| (argument.d_type, argument.field.offset, argument.field.value))
        .collect()
}

fn integer(size: u8, signed: bool) -> TracepointValue {
    TracepointValue::Integer { size, signed }
}

fn expect(text: &str, expected: &[(&str, u16, TracepointValue)]) {
    let found = arguments(text);
    let found: Vec<(&str, u16, TracepointValue)> = found
        .iter()
        .map(|(d_type, offset, value)| (d_type.as_str(), *offset, *value))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn sched_switch_has_char_arrays_and_signed_integers() {
    let text = format_text(
        "sched_switch",
        &[
            ("char prev_comm[16]", 8, 16, false),
            ("pid_t prev_pid", 24, 4, true),
            ("int prev_prio", 28, 4, true),
            ("long prev_state", 32, 8, true),
            ("char next_comm[16]", 40, 16, false),
            ("pid_t next_pid", 56, 4, true),
            ("int next_prio", 60, 4, true),
        ],
    );
    expect(
        &text,
        &[
            ("char [16]", 8, TracepointValue::Address),
            ("pid_t", 24, integer(4, true)),
            ("int", 28, integer(4, true)),
            ("long", 32, integer(8, true)),
            ("char [16]", 40, TracepointValue::Address),
            ("pid_t", 56, integer(4, true)),
            ("int", 60, integer(4, true)),
        ],
    );
}

#[test]
fn block_rq_issue_has_a_data_loc_string_after_its_arrays() {
    let text = format_text(
        "block_rq_issue",
        &[
            ("dev_t dev", 8, 4, false),
            ("sector_t sector", 16, 8, false),
            ("unsigned int nr_sector", 24, 4, false),
            ("unsigned int bytes", 28, 4, false),
            ("unsigned short ioprio", 32, 2, false),
            ("char rwbs[10]", 34, 10, false),
            ("char comm[16]", 44, 16, false),
            ("__data_loc char[] cmd", 60, 4, false),
        ],
    );
    expect(
        &text,
        &[
            ("dev_t", 8, integer(4, false)),
            ("uint64_t", 16, integer(8, false)),
            ("unsigned int", 24, integer(4, false)),
            ("unsigned int", 28, integer(4, false)),
            ("unsigned short", 32, integer(2, false)),
            ("char [10]", 34, TracepointValue::Address),
            ("char [16]", 44, TracepointValue::Address),
            ("string", 60, TracepointValue::DataLocation),
        ],
    );
    // Every field is an argument, not only those before the first array.
    let fields = tracepoint_fields(&parse_event_format(&text).expect("parses"));
    assert_eq!(fields.len(), 8);
    assert_eq!(
        fields[7],
        TracepointField {
            offset: 60,
            value: TracepointValue::DataLocation
        }
    );
}

#[test]
fn signal_generate_keeps_signedness() {
    let text = format_text(
        "signal_generate",
        &[
            ("int sig", 8, 4, true),
            ("int errno", 12, 4, true),
            ("int code", 16, 4, true),
            ("char comm[16]", 20, 16, false),
            ("pid_t pid", 36, 4, true),
            ("int group", 40, 4, true),
            ("int result", 44, 4, true),
        ],
    );
    let found = arguments(&text);
    assert_eq!(found.len(), 7);
    assert_eq!(found[0], ("int".to_string(), 8, integer(4, true)));
    assert_eq!(
        found[3],
        ("char [16]".to_string(), 20, TracepointValue::Address)
    );
    assert_eq!(found[4], ("pid_t".to_string(), 36, integer(4, true)));
}

#[test]
fn syscall_events_keep_pointers_and_widen_their_words() {
    // The syscalls group stores every argument in a long: `int dfd` is 8 bytes,
    // unsigned, so D sees the 8-byte unsigned integer the entry holds.
    let text = format_text(
        "sys_enter_openat",
        &[
            ("int __syscall_nr", 8, 4, true),
            ("int dfd", 16, 8, false),
            ("const char * filename", 24, 8, false),
            ("int flags", 32, 8, false),
            ("umode_t mode", 40, 8, false),
        ],
    );
    expect(
        &text,
        &[
            ("int", 8, integer(4, true)),
            ("uint64_t", 16, integer(8, false)),
            ("char *", 24, integer(8, false)),
            ("uint64_t", 32, integer(8, false)),
            ("uint64_t", 40, integer(8, false)),
        ],
    );
}

#[test]
fn byte_arrays_data_loc_arrays_and_cpumasks() {
    let text = format_text(
        "mixed",
        &[
            ("__u8 daddr_v6[16]", 8, 16, false),
            ("__data_loc u64[] phys_addrs", 24, 4, false),
            ("__data_loc unsigned int[] lengths", 28, 4, false),
            ("__data_loc cpumask_t cpumask", 32, 4, false),
            ("enum dma_data_direction dir", 36, 4, false),
            ("bool truncated", 40, 1, false),
            ("long values[3]", 48, 24, true),
            ("void * callsite", 72, 8, false),
            ("struct file * file", 80, 8, false),
            ("sigset_t * set", 88, 8, false),
            ("const void *const * pointers", 96, 8, false),
            ("unsigned long bits[]", 104, 0, false),
        ],
    );
    expect(
        &text,
        &[
            ("uint8_t [16]", 8, TracepointValue::Address),
            ("uint64_t *", 24, TracepointValue::DataLocation),
            ("unsigned int *", 28, TracepointValue::DataLocation),
            ("unsigned long *", 32, TracepointValue::DataLocation),
            ("uint32_t", 36, integer(4, false)),
            ("uint8_t", 40, integer(1, false)),
            ("long [3]", 48, TracepointValue::Address),
            ("void *", 72, integer(8, false)),
            ("struct file *", 80, integer(8, false)),
            ("void *", 88, integer(8, false)),
            ("void **", 96, integer(8, false)),
            ("unsigned long *", 104, TracepointValue::Address),
        ],
    );
}
