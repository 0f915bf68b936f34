//! What the live kernel-engine test files share: the check that decides whether a test may
//! trace the running machine (printing a one-line skip reason when it may not), running the
//! built `dtrace` with a deadline while collecting its stdout, stderr and exit status,
//! private scratch directories for the Python load scripts, the common load scripts, and
//! the parsing of DTrace's drop messages.
//!
//! The load processes are small Python scripts written to a scratch directory, because
//! `-c` splits its command on blanks and so cannot carry `python -c`.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Makes exactly argv[1] getppid() calls.
pub const GETPPID_LOAD: &str = "import os, sys\n\
n = int(sys.argv[1])\n\
g = os.getppid\n\
for _ in range(n):\n    g()\n";

/// Forks once, so that two processes (one per CPU, given two CPUs) each make argv[1]
/// getppid() calls, then the parent waits for the child.
pub const TWO_PROCESS_GETPPID_LOAD: &str = "import os, sys\n\
n = int(sys.argv[1])\n\
child = os.fork()\n\
g = os.getppid\n\
for _ in range(n):\n    g()\n\
if child != 0:\n    os.waitpid(child, 0)\n";

/// What one live dtrace run did.
pub struct LiveOutcome {
    /// The exit code; `None` when dtrace outlived the deadline and was killed, or died of
    /// a signal.
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Whether the watched file (if any) existed when the first byte of stdout came.
    pub watched_file_existed_at_first_output: Option<bool>,
}

/// The built dtrace as the live tests run it: every run is killed, and reported with no
/// exit status, once it has taken longer than `run_deadline`.
#[derive(Clone, Copy, Debug)]
pub struct LiveDtrace {
    pub run_deadline: Duration,
}

impl LiveDtrace {
    /// Runs with the given deadline for any single dtrace run.
    pub const fn with_deadline(run_deadline: Duration) -> LiveDtrace {
        LiveDtrace { run_deadline }
    }

    /// Decides whether this process may trace (root, a Python for the load processes and
    /// a dtrace that runs `BEGIN { exit(0); }`); returns the reason to skip when it may
    /// not.
    pub fn reason_to_skip(&self) -> Option<String> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Some("not running as root".to_string());
        }
        if python_interpreter().is_none() {
            return Some("no /usr/bin/python3 for the load process".to_string());
        }
        let outcome = self.run(&["-q", "-n", "BEGIN { exit(0); }"]);
        if outcome.status != Some(0) {
            return Some(format!(
                "dtrace cannot trace here (exit {:?}): {}",
                outcome.status,
                outcome.stderr.lines().next().unwrap_or("")
            ));
        }
        None
    }

    /// Prints the line `skipping: <reason>` and returns true when the calling test must
    /// not trace.
    pub fn must_skip(&self) -> bool {
        match self.reason_to_skip() {
            Some(reason) => {
                println!("skipping: {reason}");
                true
            }
            None => false,
        }
    }

    /// `must_skip`, and also true (after printing why) when the kernel has no BTF, which
    /// tests of kernel types need.
    pub fn must_skip_without_kernel_types(&self) -> bool {
        if self.must_skip() {
            return true;
        }
        if !std::path::Path::new("/sys/kernel/btf/vmlinux").is_file() {
            println!("skipping: the kernel has no /sys/kernel/btf/vmlinux");
            return true;
        }
        false
    }

    /// Runs `dtrace ARGUMENTS` to completion or to the deadline.
    pub fn run(&self, arguments: &[&str]) -> LiveOutcome {
        self.run_watching(arguments, None)
    }

    /// Writes the Python `load_source` to a scratch directory named after `test_name` and
    /// runs `dtrace ARGUMENTS -c 'python load.py LOAD_ARGUMENTS'` like [`LiveDtrace::run`].
    pub fn run_with_load(
        &self,
        test_name: &str,
        load_source: &str,
        load_arguments: &str,
        arguments: &[&str],
    ) -> LiveOutcome {
        let scratch = ScratchDirectory::new(test_name);
        let command_line = scratch.load_command(load_source, load_arguments);
        let mut arguments = arguments.to_vec();
        arguments.extend_from_slice(&["-c", &command_line]);
        self.run(&arguments)
    }

    /// Runs `dtrace ARGUMENTS` like [`LiveDtrace::run`], noting whether `watched` existed
    /// when the first byte of stdout arrived.
    pub fn run_watching(&self, arguments: &[&str], watched: Option<PathBuf>) -> LiveOutcome {
        self.collect(dtrace_command(arguments), watched)
    }

    /// Runs `dtrace ARGUMENTS` like [`LiveDtrace::run`], bound to CPU 0, so that the
    /// probes that fire in dtrace itself (BEGIN and END) fire on CPU 0.
    pub fn run_on_first_cpu(&self, arguments: &[&str]) -> LiveOutcome {
        let mut command = dtrace_command(arguments);
        // SAFETY: the hook only makes one async-signal-safe system call.
        unsafe {
            command.pre_exec(super::bind_to_first_cpu);
        }
        self.collect(command, None)
    }

    /// Starts `command` and collects its stdout and stderr on helper threads, so that
    /// neither pipe can fill up and stall dtrace, noting whether `watched` existed when
    /// stdout's first byte arrived; kills dtrace if it outlives the deadline.
    fn collect(&self, mut command: Command, watched: Option<PathBuf>) -> LiveOutcome {
        let mut child = command.spawn().expect("spawn dtrace");
        let mut stdout_pipe = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let stdout_reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let mut first_output = None;
            let mut chunk = [0u8; 4096];
            loop {
                match stdout_pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(length) => {
                        if first_output.is_none() {
                            first_output = watched.as_ref().map(|path| path.exists());
                        }
                        bytes.extend_from_slice(&chunk[..length]);
                    }
                }
            }
            (String::from_utf8_lossy(&bytes).into_owned(), first_output)
        });
        let stderr_reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stderr_pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        });
        let started = Instant::now();
        let status = loop {
            match child.try_wait().expect("wait for dtrace") {
                Some(status) => break status.code(),
                None if started.elapsed() > self.run_deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        let (stdout, watched_file_existed_at_first_output) =
            stdout_reader.join().unwrap_or_default();
        LiveOutcome {
            status,
            stdout,
            stderr: stderr_reader.join().unwrap_or_default(),
            watched_file_existed_at_first_output,
        }
    }
}

/// The built dtrace with `arguments`, no stdin, and both outputs piped.
fn dtrace_command(arguments: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dtrace"));
    command
        .args(arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Returns the Python interpreter the load scripts run under, if one is installed.
pub fn python_interpreter() -> Option<&'static str> {
    ["/usr/bin/python3.11", "/usr/bin/python3"]
        .into_iter()
        .find(|path| Path::new(path).exists())
}

/// A private directory for one test's load script and other files, removed when the test
/// ends. Its name holds the test binary's name, the test's and the process id, so that
/// tests running at the same time never share one.
pub struct ScratchDirectory {
    directory: PathBuf,
}

impl ScratchDirectory {
    pub fn new(test_name: &str) -> ScratchDirectory {
        let directory = std::env::temp_dir().join(format!(
            "dtrace-{}-{}-{}",
            env!("CARGO_CRATE_NAME"),
            test_name,
            std::process::id()
        ));
        std::fs::create_dir_all(&directory).expect("create scratch directory");
        ScratchDirectory { directory }
    }

    /// The path of `name` inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.directory.join(name)
    }

    /// Writes `contents` to the file `name` inside the directory and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, contents).expect("write scratch file");
        path
    }

    /// Writes the Python `source` as `load.py` and returns the `-c` command line that runs
    /// it with `arguments`.
    pub fn load_command(&self, source: &str, arguments: &str) -> String {
        let script = self.write("load.py", source);
        format!(
            "{} {} {}",
            python_interpreter().expect("checked by must_skip"),
            script.display(),
            arguments
        )
    }
}

impl Drop for ScratchDirectory {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.directory);
    }
}

/// The count and the CPU word of every `dtrace: N KIND drop[s] on CPU C` message whose
/// KIND (the words between the count and `drop` or `drops`) is `kind`.
fn drop_messages<'a>(
    stderr: &'a str,
    kind: &'a [&'a str],
) -> impl Iterator<Item = (u64, &'a str)> + 'a {
    stderr.lines().filter_map(move |line| {
        let words: Vec<&str> = line.strip_prefix("dtrace: ")?.split_whitespace().collect();
        let (count, rest) = words.split_first()?;
        match rest.strip_prefix(kind)? {
            [drops, "on", "CPU", cpu] if *drops == "drops" || *drops == "drop" => {
                Some((count.parse::<u64>().ok()?, *cpu))
            }
            _ => None,
        }
    })
}

/// Sums the `dtrace: N drops on CPU C` messages per CPU.
pub fn drops_per_cpu(stderr: &str) -> BTreeMap<u32, u64> {
    let mut drops = BTreeMap::new();
    for (count, cpu) in drop_messages(stderr, &[]) {
        if let Ok(cpu) = cpu.parse::<u32>() {
            *drops.entry(cpu).or_insert(0) += count;
        }
    }
    drops
}

/// The count of each `dtrace: N aggregation drop[s] on CPU C` message, summed.
pub fn aggregation_drops(stderr: &str) -> u64 {
    drop_messages(stderr, &["aggregation"])
        .map(|(count, _)| count)
        .sum()
}
