//! What the CLI-level test files share: running the built `dtrace` bound to CPU 0 with a
//! deadline, the outcome of a run, and a readable line diff of two outputs; `live` holds
//! what the tests that trace the running machine share.

#![allow(dead_code)] // Each test file uses the part it needs.

pub mod live;

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one program is expected to do, or did.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: i32,
}

/// The outcome of a run and the pid the dtrace process had (it shows in output that
/// prints `pid` in BEGIN or END, which fire in dtrace itself).
#[derive(Debug)]
pub struct Run {
    pub outcome: Outcome,
    pub pid: u32,
}

/// The options on a program's first line: `/* options: -q -x strsize=16 */`.
pub fn options_of(source: &str) -> Vec<String> {
    source
        .lines()
        .next()
        .and_then(|line| line.trim().strip_prefix("/* options:"))
        .and_then(|rest| rest.strip_suffix("*/"))
        .map(|options| options.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The `.d` files of `directory`, by file stem, sorted.
pub fn programs_in(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .unwrap_or_else(|error| panic!("{}: {error}", directory.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "d"))
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_string()))
        .collect();
    names.sort();
    names
}

/// Binds the calling process to CPU 0, so that the BEGIN and END probes (which fire in
/// the dtrace process) report the same CPU in the `CPU` column on every machine.
fn bind_to_first_cpu() -> std::io::Result<()> {
    // SAFETY: the set is a plain bit mask initialised by CPU_ZERO before use, and
    // sched_setaffinity only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_ZERO(&mut set);
        libc::CPU_SET(0, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Runs `dtrace ARGUMENTS` in `directory`, bound to CPU 0, killing it after
/// `time_limit`; the error explains why it could not run to completion.
pub fn run_dtrace(
    directory: &Path,
    arguments: &[String],
    time_limit: Duration,
) -> Result<Run, String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dtrace"));
    // SAFETY: the hook only makes one async-signal-safe system call.
    unsafe {
        command.pre_exec(bind_to_first_cpu);
    }
    let mut child = command
        .current_dir(directory)
        .args(arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot run dtrace: {error}"))?;
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = read_all(Box::new(child.stderr.take().expect("piped stderr")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|error| error.to_string())? {
            break status;
        }
        if started.elapsed() > time_limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {time_limit:?}; killed"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ok(Run {
        pid: child.id(),
        outcome: Outcome {
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
            status: status.code().unwrap_or(-1),
        },
    })
}

/// A line-by-line diff of `expected` and `actual` (longest common subsequence), with
/// lines quoted so that trailing blanks and missing newlines show.
pub fn diff(expected: &[u8], actual: &[u8]) -> String {
    let split = |bytes: &[u8]| -> Vec<String> {
        bytes
            .split_inclusive(|&byte| byte == b'\n')
            .map(|line| format!("{:?}", String::from_utf8_lossy(line)))
            .collect()
    };
    let (old, new) = (split(expected), split(actual));
    let mut common = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let mut text = String::from("--- expected\n+++ actual\n");
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            text.push_str(&format!("  {}\n", old[i]));
            i += 1;
            j += 1;
        } else if i < old.len() && (j == new.len() || common[i + 1][j] >= common[i][j + 1]) {
            text.push_str(&format!("- {}\n", old[i]));
            i += 1;
        } else {
            text.push_str(&format!("+ {}\n", new[j]));
            j += 1;
        }
    }
    text
}

/// The differences between what `name` should do and what it did, if any.
pub fn compare(name: &str, expected: &Outcome, actual: &Outcome) -> Option<String> {
    let mut report = String::new();
    if expected.stdout != actual.stdout {
        report.push_str(&format!(
            "stdout differs:\n{}",
            diff(&expected.stdout, &actual.stdout)
        ));
    }
    if expected.stderr != actual.stderr {
        report.push_str(&format!(
            "stderr differs:\n{}",
            diff(&expected.stderr, &actual.stderr)
        ));
    }
    if expected.status != actual.status {
        report.push_str(&format!(
            "exit status: expected {}, got {}\n",
            expected.status, actual.status
        ));
    }
    (!report.is_empty()).then(|| format!("==== {name}\n{report}"))
}
