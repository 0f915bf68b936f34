//! Helpers shared by the provider tests: descriptions from `p:m:f:n` text and scratch
//! directories that disappear when dropped.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use difvm::object::ProbeDescription;

/// A description from `provider:module:function:name` (all four fields required).
pub fn description(text: &str) -> ProbeDescription {
    let fields: Vec<&str> = text.split(':').collect();
    assert_eq!(
        fields.len(),
        4,
        "test descriptions have four fields: {text:?}"
    );
    ProbeDescription {
        provider: fields[0].to_string(),
        module: fields[1].to_string(),
        function: fields[2].to_string(),
        name: fields[3].to_string(),
    }
}

/// A scratch directory under the system temporary directory, removed on drop.
pub struct ScratchDirectory {
    path: PathBuf,
}

impl ScratchDirectory {
    /// A new empty directory whose name includes `label`, the pid and a counter.
    pub fn new(label: &str) -> ScratchDirectory {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "providers-test-{label}-{}-{unique}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create scratch directory");
        ScratchDirectory { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `contents` to `relative` (creating parent directories).
    pub fn write(&self, relative: &str, contents: &str) {
        let path = self.path.join(relative);
        std::fs::create_dir_all(path.parent().expect("file has a parent")).expect("create parent");
        std::fs::write(path, contents).expect("write scratch file");
    }
}

impl Drop for ScratchDirectory {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A minimal tracefs `format` file for an event with the given `(declaration, size)`
/// argument fields after the common header.
pub fn format_file(name: &str, id: u32, fields: &[(&str, u32)]) -> String {
    let mut text = format!(
        "name: {name}\nID: {id}\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
         \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
         \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
         \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    );
    let mut offset = 8;
    for (declaration, size) in fields {
        text.push_str(&format!(
            "\tfield:{declaration};\toffset:{offset};\tsize:{size};\tsigned:0;\n"
        ));
        offset += size;
    }
    text.push_str("\nprint fmt: \"\"\n");
    text
}

/// A fake tracefs with a few syscall events (read, newstat, openat and one the
/// built-in table does not know), two sched tracepoints, an ftrace record format and
/// the `enable` file real tracefs has.
pub fn fake_tracefs() -> ScratchDirectory {
    let directory = ScratchDirectory::new("tracefs");
    let syscall_number = ("int __syscall_nr", 4);
    for (function, arguments) in [
        (
            "read",
            vec![
                syscall_number,
                ("unsigned int fd", 8),
                ("char * buf", 8),
                ("size_t count", 8),
            ],
        ),
        (
            "newstat",
            vec![
                syscall_number,
                ("const char * filename", 8),
                ("struct stat * statbuf", 8),
            ],
        ),
        (
            "openat",
            vec![
                syscall_number,
                ("int dfd", 8),
                ("const char * filename", 8),
                ("int flags", 8),
                ("umode_t mode", 8),
            ],
        ),
        ("brand_new_call", vec![syscall_number, ("int flags", 8)]),
    ] {
        let enter = format!("sys_enter_{function}");
        let exit = format!("sys_exit_{function}");
        directory.write(
            &format!("events/syscalls/{enter}/format"),
            &format_file(&enter, 100, &arguments),
        );
        directory.write(
            &format!("events/syscalls/{exit}/format"),
            &format_file(&exit, 101, &[syscall_number, ("long ret", 8)]),
        );
    }
    directory.write(
        "events/sched/sched_switch/format",
        &format_file(
            "sched_switch",
            372,
            &[
                ("char prev_comm[16]", 16),
                ("pid_t prev_pid", 4),
                ("long prev_state", 8),
            ],
        ),
    );
    directory.write(
        "events/sched/sched_wakeup/format",
        &format_file("sched_wakeup", 373, &[("__data_loc char[] comm", 4)]),
    );
    directory.write("events/sched/enable", "0\n");
    directory.write(
        "events/ftrace/function/format",
        &format_file("function", 1, &[("unsigned long ip", 8)]),
    );
    directory.write("events/enable", "0\n");
    directory
}
