//! Golden tests of the default per-firing output: header, record prefix, trace() formats,
//! strings, hex dumps, stacks, symbols, printf, quiet mode and flowindent.

use consumer::record::{RecordValue, StackFrames};
use consumer::render::bytes::{render_bytes, render_hex_dump};
use consumer::render::printf::PrintfContext;
use consumer::render::symbols::{NoSymbols, SymbolLookup, SymbolName, SymbolResolver};
use consumer::render::trace::{RecordContext, TraceOutputOptions, TraceRenderer};
use difvm::object::{Action, ActionKind, ActionValue, ProbeDescription, SymbolFormat};
use dlang::format::compile_format;

fn probe(provider: &str, function: &str, name: &str) -> ProbeDescription {
    ProbeDescription {
        provider: provider.into(),
        module: String::new(),
        function: function.into(),
        name: name.into(),
    }
}

fn action(kind: ActionKind) -> Action {
    Action {
        kind,
        values: vec![ActionValue {
            difo: None,
            slot: None,
        }],
    }
}

fn int(bits: u64, size: u32, signed: bool) -> RecordValue<'static> {
    RecordValue::Integer { bits, size, signed }
}

/// Renders one record of `values` traced one per action.
fn render_traces(options: TraceOutputOptions, values: &[RecordValue<'_>]) -> String {
    let mut renderer = TraceRenderer::new(options);
    let mut out = String::new();
    let begin = probe("dtrace", "", "BEGIN");
    let context = PrintfContext {
        resolver: &NoSymbols,
        target_pid: None,
    };
    renderer.begin_record(
        &mut out,
        &RecordContext {
            cpu: 0,
            epid: 1,
            probe_id: 1,
            probe: &begin,
            next_record: None,
        },
    );
    for value in values {
        renderer
            .render_action(
                &mut out,
                &action(ActionKind::Trace),
                std::slice::from_ref(value),
                &context,
            )
            .unwrap();
    }
    renderer.end_record(&mut out);
    out
}

const HEADER: &str = "CPU     ID                    FUNCTION:NAME\n";
const BEGIN_PREFIX: &str = "  0      1                           :BEGIN ";

fn check(values: &[RecordValue<'_>], expected_data: &str) {
    let out = render_traces(TraceOutputOptions::default(), values);
    assert_eq!(
        out,
        format!("{}{}{}\n", HEADER, BEGIN_PREFIX, expected_data),
        "values {:?}",
        values
    );
}

fn check_quiet(values: &[RecordValue<'_>], expected: &str) {
    let options = TraceOutputOptions {
        quiet: true,
        ..TraceOutputOptions::default()
    };
    assert_eq!(
        render_traces(options, values),
        expected,
        "values {:?}",
        values
    );
}

#[test]
fn trace_integers_use_linux_widths_and_signedness() {
    check(&[int(-1i64 as u64, 8, true)], &format!(" {:>19}", -1));
    check(&[int(u64::MAX, 8, false)], " 18446744073709551615");
    check(&[int(0xffff_fffe, 4, true)], &format!(" {:>10}", -2));
    check(&[int(0xffff_fffe, 4, false)], " 4294967294");
    check(&[int(0xfffe, 2, true)], "    -2");
    check(&[int(0xfffe, 2, false)], " 65534");
    check(&[int(0xfe, 1, true)], "  -2");
    check(&[int(0xfe, 1, false)], " 254");
    check(&[RecordValue::Pointer(0x10)], &format!(" {:>20}", 16));
    check(
        &[int(1, 4, true), int(2, 8, true)],
        &format!(" {:>10} {:>19}", 1, 2),
    );
    check_quiet(
        &[
            int(0xffff_fffe, 4, true),
            int(7, 8, false),
            int(0xfe, 1, false),
        ],
        "-27254",
    );
}

#[test]
fn trace_strings() {
    check(
        &[RecordValue::String(b"hello")],
        "  hello                            ",
    );
    check(
        &[RecordValue::String(b"")],
        "                                   ",
    );
    check_quiet(
        &[
            RecordValue::String(b"hello"),
            RecordValue::String(b" world"),
        ],
        "hello world",
    );
    // Printable bytes followed by NULs print as a string, quiet or not.
    check(
        &[RecordValue::Bytes(b"abc\0\0\0")],
        "  abc                              ",
    );
    check_quiet(&[RecordValue::Bytes(b"abc\0\0\0")], "abc");
    // Printable bytes without a NUL print padded even when quiet (as DTrace does).
    check_quiet(
        &[RecordValue::Bytes(b"abc")],
        "  abc                              ",
    );
}

#[test]
fn hex_dumps_are_byte_exact() {
    let expected = "\n\
\x20            0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n\
\x20        0: 4c 69 6e 75 78 20 76 65 72 73 69 6f 6e 20        Linux version \n";
    let mut out = String::new();
    render_hex_dump(&mut out, b"Linux version ");
    assert_eq!(out, expected);

    let mut out = String::new();
    render_hex_dump(&mut out, &(0u8..=20).collect::<Vec<_>>());
    assert_eq!(
        out,
        "\n\
\x20            0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n\
\x20        0: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  ................\n\
\x20       10: 10 11 12 13 14                                   .....\n"
    );

    // Non-printable data, data with bytes after the NUL, and data starting with NUL dump.
    for data in [&b"\x01\x02"[..], b"ab\0c", b"\0abc"] {
        let mut dumped = String::new();
        render_bytes(&mut dumped, data, 33, false, false);
        let mut raw = String::new();
        render_hex_dump(&mut raw, data);
        assert_eq!(dumped, raw, "data {:?}", data);
    }
    let mut forced = String::new();
    render_bytes(&mut forced, b"abc\0", 33, false, true);
    assert!(forced.starts_with("\n           "));
    let mut empty = String::new();
    render_bytes(&mut empty, b"", 33, false, false);
    assert_eq!(empty, "");
}

#[test]
fn tracemem_always_dumps_and_honours_the_dynamic_size() {
    let renderer = TraceRenderer::new(TraceOutputOptions {
        quiet: true,
        ..Default::default()
    });
    let context = PrintfContext {
        resolver: &NoSymbols,
        target_pid: None,
    };
    let tracemem = action(ActionKind::TraceMemory);
    let mut out = String::new();
    renderer
        .render_action(
            &mut out,
            &tracemem,
            &[RecordValue::Bytes(b"hello"), int(2, 8, false)],
            &context,
        )
        .unwrap();
    let mut expected = String::new();
    render_hex_dump(&mut expected, b"he");
    assert_eq!(out, expected);
    let mut out = String::new();
    renderer
        .render_action(
            &mut out,
            &tracemem,
            &[RecordValue::Bytes(b"hello"), int(0, 8, false)],
            &context,
        )
        .unwrap();
    let mut expected = String::new();
    render_hex_dump(&mut expected, b"hello");
    assert_eq!(out, expected);
}

struct Kernel;

impl SymbolResolver for Kernel {
    fn kernel_symbol(&self, address: u64) -> Option<SymbolLookup> {
        let name = match address & !0xff {
            0x1000 => "__vfs_write",
            0x1100 => "ksys_write",
            0x1200 => "do_syscall_64",
            _ => return None,
        };
        Some(SymbolLookup {
            module: "vmlinux".into(),
            symbol: Some(SymbolName {
                name: name.into(),
                address: address & !0xff,
            }),
        })
    }

    fn user_symbol(&self, _pid: u64, address: u64) -> Option<SymbolLookup> {
        (address >> 12 == 0x400).then(|| SymbolLookup {
            module: "bash".into(),
            symbol: Some(SymbolName {
                name: "main".into(),
                address: 0x400000,
            }),
        })
    }
}

#[test]
fn stacks_and_symbols() {
    let mut words = Vec::new();
    for pc in [0x1000u64, 0x1167, 0x125b, 0] {
        words.extend_from_slice(&pc.to_le_bytes());
    }
    let mut renderer = TraceRenderer::new(TraceOutputOptions::default());
    let context = PrintfContext {
        resolver: &Kernel,
        target_pid: None,
    };
    let entry = probe("fbt", "__vfs_write", "entry");
    let mut out = String::new();
    renderer.begin_record(
        &mut out,
        &RecordContext {
            cpu: 0,
            epid: 1,
            probe_id: 4123,
            probe: &entry,
            next_record: None,
        },
    );
    let stack = RecordValue::KernelStack(StackFrames::new(&words));
    renderer
        .render_action(
            &mut out,
            &action(ActionKind::RecordSymbolic),
            &[stack],
            &context,
        )
        .unwrap();
    renderer.end_record(&mut out);
    assert_eq!(
        out,
        format!("{}  0   4123 {:>32} ", HEADER, "__vfs_write:entry")
            + "\n\
\x20             vmlinux`__vfs_write\n\
\x20             vmlinux`ksys_write+0x67\n\
\x20             vmlinux`do_syscall_64+0x5b\n\n"
    );

    let symbols = |value: RecordValue<'_>| {
        let renderer = TraceRenderer::new(TraceOutputOptions {
            quiet: true,
            ..Default::default()
        });
        let mut out = String::new();
        renderer.render_trace_value(&mut out, &value, &context);
        out
    };
    let padded = |text: &str| format!("  {:<50}", text);
    assert_eq!(
        symbols(RecordValue::KernelSymbol {
            address: 0x1167,
            format: SymbolFormat::Symbol
        }),
        padded("vmlinux`ksys_write")
    );
    assert_eq!(
        symbols(RecordValue::KernelSymbol {
            address: 0x1167,
            format: SymbolFormat::Module
        }),
        padded("vmlinux")
    );
    assert_eq!(
        symbols(RecordValue::KernelSymbol {
            address: 0x9999,
            format: SymbolFormat::Symbol
        }),
        padded("0x9999")
    );
    assert_eq!(
        symbols(RecordValue::UserSymbol {
            pid: 9,
            address: 0x400010,
            format: SymbolFormat::Symbol
        }),
        padded("bash`main")
    );
    assert_eq!(
        symbols(RecordValue::UserSymbol {
            pid: 9,
            address: 0x400010,
            format: SymbolFormat::SymbolWithOffset
        }),
        padded("bash`main+0x10")
    );
    assert_eq!(
        symbols(RecordValue::UserSymbol {
            pid: 9,
            address: 0x400010,
            format: SymbolFormat::Module
        }),
        padded("bash")
    );
    let user_words = [
        9u64.to_le_bytes(),
        0x400004u64.to_le_bytes(),
        0x7u64.to_le_bytes(),
    ]
    .concat();
    assert_eq!(
        symbols(RecordValue::UserStack {
            pid: 9,
            frames: StackFrames::new(&user_words[8..])
        }),
        "\n              bash`main+0x4\n              0x7\n"
    );
}

#[test]
fn printf_in_non_quiet_and_quiet_mode() {
    let context = PrintfContext {
        resolver: &NoSymbols,
        target_pid: None,
    };
    let begin = probe("dtrace", "", "BEGIN");
    let printf = action(ActionKind::Printf {
        format: compile_format("x %s\n"),
    });
    let record = RecordContext {
        cpu: 0,
        epid: 1,
        probe_id: 1,
        probe: &begin,
        next_record: None,
    };
    let mut renderer = TraceRenderer::new(TraceOutputOptions::default());
    let mut out = String::new();
    renderer.begin_record(&mut out, &record);
    renderer
        .render_action(&mut out, &printf, &[RecordValue::String(b"y")], &context)
        .unwrap();
    renderer.end_record(&mut out);
    // A second record: no second header.
    renderer.begin_record(&mut out, &record);
    renderer
        .render_action(
            &mut out,
            &action(ActionKind::Exit),
            &[int(0, 4, true)],
            &context,
        )
        .unwrap();
    renderer.end_record(&mut out);
    assert_eq!(
        out,
        format!("{}{}x y\n\n{}\n", HEADER, BEGIN_PREFIX, BEGIN_PREFIX)
    );

    let mut quiet = TraceRenderer::new(TraceOutputOptions {
        quiet: true,
        ..Default::default()
    });
    let mut out = String::new();
    quiet.begin_record(&mut out, &record);
    quiet
        .render_action(&mut out, &printf, &[RecordValue::String(b"y")], &context)
        .unwrap();
    quiet.end_record(&mut out);
    assert_eq!(out, "x y\n");

    let system = action(ActionKind::System {
        format: compile_format("echo %d"),
    });
    assert_eq!(
        quiet
            .format_action_string(&system, &[int(5, 4, true)], &context)
            .unwrap(),
        Some("echo 5".to_string())
    );
    assert_eq!(
        quiet.format_action_string(&printf, &[], &context).unwrap(),
        None
    );
    let broken = action(ActionKind::Printf {
        format: compile_format("%z"),
    });
    assert!(quiet
        .render_action(&mut out, &broken, &[], &context)
        .is_err());
    assert!(quiet
        .render_action(&mut out, &printf, &[], &context)
        .is_err());
}

#[test]
fn flowindent() {
    let context = PrintfContext {
        resolver: &NoSymbols,
        target_pid: None,
    };
    let syscall_entry = probe("syscall", "read", "entry");
    let fbt_entry = probe("fbt", "__x64_sys_read", "entry");
    let fbt_return = probe("fbt", "__x64_sys_read", "return");
    let syscall_return = probe("syscall", "read", "return");
    let tick = probe("profile", "", "tick-1s");
    let printf = action(ActionKind::Printf {
        format: compile_format("%s: %d\n"),
    });
    let mut renderer = TraceRenderer::new(TraceOutputOptions {
        flowindent: true,
        ..Default::default()
    });
    let mut out = String::new();
    let firings: [(u32, u32, &ProbeDescription, &[u8], u64); 5] = [
        (1, 10, &syscall_entry, b"syscall", 40),
        (2, 20, &fbt_entry, b"fbt", 40),
        (3, 21, &fbt_return, b"fbt", 41),
        (4, 11, &syscall_return, b"syscall", 41),
        (5, 30, &tick, b"tick", 1),
    ];
    for (index, (epid, probe_id, probe, name, value)) in firings.iter().enumerate() {
        let next_record = firings.get(index + 1).map(|next| (next.0, next.1));
        renderer.begin_record(
            &mut out,
            &RecordContext {
                cpu: 0,
                epid: *epid,
                probe_id: *probe_id,
                probe,
                next_record,
            },
        );
        renderer
            .render_action(
                &mut out,
                &printf,
                &[RecordValue::String(name), int(*value, 4, true)],
                &context,
            )
            .unwrap();
        renderer.end_record(&mut out);
    }
    // The first line as D-REFERENCE.md §12.7 shows it.
    assert!(out.contains("\n  0  => read                                  syscall: 40\n\n"));
    let line = |text: &str, data: &str| format!("  0 {:<41} {}\n\n", text, data);
    assert_eq!(
        out,
        format!(
            "CPU FUNCTION                                 \n{}{}{}{}{}",
            line(" => read", "syscall: 40"),
            line("   -> __x64_sys_read", "fbt: 40"),
            line("   <- __x64_sys_read", "fbt: 41"),
            line(" <= read", "syscall: 41"),
            line("| :tick-1s", "tick: 1"),
        )
    );
}

#[test]
fn flowindent_does_not_indent_the_same_probe_twice() {
    let context = PrintfContext {
        resolver: &NoSymbols,
        target_pid: None,
    };
    let entry = probe("fbt", "f", "entry");
    let ret = probe("fbt", "f", "return");
    let mut renderer = TraceRenderer::new(TraceOutputOptions {
        flowindent: true,
        quiet: true,
        ..Default::default()
    });
    let mut out = String::new();
    // Two clauses (EPIDs 1 and 2) on the entry probe 7, then two on the return probe 8.
    let records = [(1, 7, &entry), (2, 7, &entry), (3, 8, &ret), (4, 8, &ret)];
    for (index, (epid, probe_id, probe)) in records.iter().enumerate() {
        let next_record = records.get(index + 1).map(|next| (next.0, next.1));
        renderer.begin_record(
            &mut out,
            &RecordContext {
                cpu: 1,
                epid: *epid,
                probe_id: *probe_id,
                probe,
                next_record,
            },
        );
        renderer
            .render_action(&mut out, &action(ActionKind::Expression), &[], &context)
            .unwrap();
        renderer.end_record(&mut out);
        out.push('\n');
    }
    let line = |text: &str| format!("  1 {:<41} \n", text);
    assert_eq!(
        out,
        format!(
            "CPU FUNCTION                                 \n{}{}{}{}",
            line(" -> f"),
            line("  | f:entry"),
            line("  | f:return"),
            line(" <- f")
        )
    );
    assert_eq!(renderer.flow.indent, 0);
}
