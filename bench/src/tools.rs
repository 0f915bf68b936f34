//! The two tracers the benchmarks compare: where their binaries are, and how one pair of
//! equivalent programs (a D script for dtrace, a bpftrace script) becomes a command line.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Which tracer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Dtrace,
    Bpftrace,
}

impl ToolKind {
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Dtrace => "dtrace",
            ToolKind::Bpftrace => "bpftrace",
        }
    }
}

/// A tracer binary and the options given to every run of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    pub kind: ToolKind,
    pub path: PathBuf,
    /// `-x` options added to every dtrace command (e.g. `engine=vm`); unused for bpftrace.
    pub dtrace_options: Vec<String>,
}

/// A D program as dtrace runs it: one `-n` per clause, `-q` when quiet, and `-x` options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DtraceScript {
    pub quiet: bool,
    pub options: Vec<String>,
    pub clauses: Vec<String>,
}

/// A bpftrace program and the environment it needs (e.g. `BPFTRACE_MAP_KEYS_MAX`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BpftraceScript {
    pub program: String,
    pub environment: Vec<(String, String)>,
}

/// The same measurement written for each tracer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptPair {
    pub dtrace: DtraceScript,
    pub bpftrace: BpftraceScript,
}

/// The argument of the marker syscall: `getpgid(MARKER_PID)` names no process (it is
/// above any pid_max), so it fails at once and only the marker clause reacts to it.
pub const MARKER_PID: i64 = 987_654_321;

/// The word of the line the marker clause prints; seeing it means the tracer's probes are
/// live. The line also carries the probe's CLOCK_MONOTONIC timestamp in nanoseconds
/// (dtrace's `timestamp` and bpftrace's `nsecs` are both `bpf_ktime_get_ns()`), so the
/// moment tracing began is known without the delay of the tracer's output: dtrace
/// drains its buffers only at `switchrate`, once a second by default.
pub const MARKER_WORD: &str = "bench-live";

/// The load program's name as `execname` and `comm` show it.
pub const LOAD_PROGRAM_WORD: &str = "bench-load";

/// The word every per-event record line of the throughput scripts contains.
pub const EVENT_WORD: &str = "getppid";

/// The marker clause in D. It is the last clause of a script, so that when it fires the
/// probes of the clauses before it have been enabled too.
pub fn dtrace_marker_clause() -> String {
    format!(
        "syscall::getpgid:entry /arg0 == {MARKER_PID}/ {{ printf(\"{MARKER_WORD} %d\\n\", timestamp); }}"
    )
}

/// The marker clause for bpftrace, last for the same reason.
pub fn bpftrace_marker_clause() -> String {
    format!(
        "tracepoint:syscalls:sys_enter_getpgid /args->pid == {MARKER_PID}/ {{ printf(\"{MARKER_WORD} %lld\\n\", nsecs); }}"
    )
}

/// The timestamp a marker line carries.
pub fn marker_timestamp(line: &str) -> Option<u64> {
    let (_, rest) = line.split_once(MARKER_WORD)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// Makes the marker syscall once.
pub fn make_marker_call() {
    // SAFETY: getpgid of a process that does not exist fails with ESRCH and has no effect.
    unsafe {
        libc::syscall(libc::SYS_getpgid, MARKER_PID as libc::c_long);
    }
}

impl Tool {
    /// The command that runs `scripts` with this tool.
    pub fn command(&self, scripts: &ScriptPair) -> Command {
        let mut command = Command::new(&self.path);
        command.args(self.arguments(scripts));
        if self.kind == ToolKind::Bpftrace {
            for (name, value) in &scripts.bpftrace.environment {
                command.env(name, value);
            }
        }
        command
    }

    /// The arguments `command` passes.
    pub fn arguments(&self, scripts: &ScriptPair) -> Vec<String> {
        match self.kind {
            ToolKind::Dtrace => {
                let script = &scripts.dtrace;
                let mut arguments = Vec::new();
                if script.quiet {
                    arguments.push("-q".to_string());
                }
                for option in self.dtrace_options.iter().chain(&script.options) {
                    arguments.extend(["-x".to_string(), option.clone()]);
                }
                for clause in &script.clauses {
                    arguments.extend(["-n".to_string(), clause.clone()]);
                }
                arguments
            }
            ToolKind::Bpftrace => vec!["-e".to_string(), scripts.bpftrace.program.clone()],
        }
    }
}

/// The dtrace binary: `explicit` if given, else `dtrace` beside the running benchmark
/// binary (`target/release/dtrace` under `cargo run --release -p bench`).
pub fn find_dtrace(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = explicit {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(format!("{} does not exist", path.display()))
        };
    }
    let beside = beside_this_binary("dtrace")?;
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!(
            "{} does not exist: build it first with `cargo build --release` (or pass --dtrace PATH)",
            beside.display()
        ))
    }
}

/// The bpftrace binary: `explicit` if given, else the first `bpftrace` on PATH.
pub fn find_bpftrace(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = explicit {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(format!("{} does not exist", path.display()))
        };
    }
    let search_path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&search_path)
        .map(|directory| directory.join("bpftrace"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            "bpftrace is not installed (Debian: `apt-get install -y bpftrace`); its columns are skipped"
                .to_string()
        })
}

/// The load program built with the benchmark (`bench-load` beside it).
pub fn find_load_program() -> Result<PathBuf, String> {
    let beside = beside_this_binary("bench-load")?;
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!(
            "{} does not exist: run the benchmarks with `cargo run --release -p bench`, which builds it",
            beside.display()
        ))
    }
}

fn beside_this_binary(name: &str) -> Result<PathBuf, String> {
    let current = std::env::current_exe()
        .map_err(|error| format!("cannot locate the benchmark binary: {error}"))?;
    let directory = current
        .parent()
        .ok_or_else(|| "the benchmark binary has no directory".to_string())?;
    Ok(directory.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scripts() -> ScriptPair {
        ScriptPair {
            dtrace: DtraceScript {
                quiet: true,
                options: vec!["aggsize=16m".to_string()],
                clauses: vec!["BEGIN { exit(0); }".to_string(), dtrace_marker_clause()],
            },
            bpftrace: BpftraceScript {
                program: "BEGIN { exit(); }".to_string(),
                environment: vec![("BPFTRACE_MAP_KEYS_MAX".to_string(), "10".to_string())],
            },
        }
    }

    #[test]
    fn dtrace_arguments() {
        let tool = Tool {
            kind: ToolKind::Dtrace,
            path: PathBuf::from("dtrace"),
            dtrace_options: vec!["engine=vm".to_string()],
        };
        assert_eq!(
            tool.arguments(&scripts()),
            [
                "-q",
                "-x",
                "engine=vm",
                "-x",
                "aggsize=16m",
                "-n",
                "BEGIN { exit(0); }",
                "-n",
                "syscall::getpgid:entry /arg0 == 987654321/ { printf(\"bench-live %d\\n\", timestamp); }",
            ]
        );
    }

    #[test]
    fn bpftrace_arguments() {
        let tool = Tool {
            kind: ToolKind::Bpftrace,
            path: PathBuf::from("bpftrace"),
            dtrace_options: vec!["engine=vm".to_string()],
        };
        assert_eq!(tool.arguments(&scripts()), ["-e", "BEGIN { exit(); }"]);
        assert_eq!(
            bpftrace_marker_clause(),
            "tracepoint:syscalls:sys_enter_getpgid /args->pid == 987654321/ { printf(\"bench-live %lld\\n\", nsecs); }"
        );
    }

    #[test]
    fn marker_timestamps_parse() {
        assert_eq!(
            marker_timestamp("bench-live 5796661856888"),
            Some(5_796_661_856_888)
        );
        assert_eq!(
            marker_timestamp("  1  224  getpgid:entry bench-live 42"),
            Some(42)
        );
        assert_eq!(marker_timestamp("bench-live"), None);
        assert_eq!(marker_timestamp("other 12"), None);
    }

    #[test]
    fn missing_explicit_paths_are_reported() {
        let missing = Path::new("/nonexistent/dtrace");
        assert_eq!(
            find_dtrace(Some(missing)),
            Err("/nonexistent/dtrace does not exist".to_string())
        );
        assert!(find_bpftrace(Some(missing)).is_err());
    }
}
