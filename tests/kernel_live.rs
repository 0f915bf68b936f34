//! Live end-to-end tests of the dtrace command on the kernel engine: exact counts, drop
//! accounting, runtime faults, cleanup after `kill -9` and per-CPU record integrity.
//!
//! These tests trace the running machine, so each one first checks that it may (root and a
//! working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise prints `skipping: <reason>` and
//! passes. The load processes are small Python scripts written to a private temporary
//! directory, because `-c` splits its command on blanks and so cannot carry `python -c`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long any single dtrace run may take before the test kills it and fails.
const RUN_DEADLINE: Duration = Duration::from_secs(20);

struct Outcome {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Returns the Python interpreter the load scripts run under, if one is installed.
fn python_interpreter() -> Option<&'static str> {
    ["/usr/bin/python3.11", "/usr/bin/python3"]
        .into_iter()
        .find(|path| std::path::Path::new(path).exists())
}

/// Decides whether this process may trace; returns the reason to skip when it may not.
fn reason_to_skip() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not running as root".to_string());
    }
    if python_interpreter().is_none() {
        return Some("no /usr/bin/python3 for the load process".to_string());
    }
    let outcome = run_dtrace(&["-q", "-n", "BEGIN { exit(0); }"]);
    if outcome.status != Some(0) {
        return Some(format!(
            "dtrace cannot trace here (exit {:?}): {}",
            outcome.status,
            outcome.stderr.lines().next().unwrap_or("")
        ));
    }
    None
}

/// Prints the skip line and returns true when the calling test must not trace.
fn must_skip() -> bool {
    match reason_to_skip() {
        Some(reason) => {
            println!("skipping: {reason}");
            true
        }
        None => false,
    }
}

/// Collects a child's stdout and stderr on helper threads, so that neither pipe can fill
/// up and stall the child, and kills the child if it outlives the deadline.
fn collect(mut child: Child, deadline: Duration) -> Outcome {
    let mut stdout_pipe = child.stdout.take().expect("stdout is piped");
    let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
    let stdout_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout_pipe.read_to_string(&mut text);
        text
    });
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait().expect("wait for dtrace") {
            Some(status) => break status.code(),
            None if started.elapsed() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    Outcome {
        status,
        stdout: stdout_reader.join().unwrap_or_default(),
        stderr: stderr_reader.join().unwrap_or_default(),
    }
}

fn run_dtrace(args: &[&str]) -> Outcome {
    let child = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    collect(child, RUN_DEADLINE)
}

/// A private directory holding one load script, removed when the test ends.
struct LoadScript {
    directory: PathBuf,
    script: PathBuf,
}

impl LoadScript {
    fn new(test_name: &str, source: &str) -> LoadScript {
        let directory = std::env::temp_dir().join(format!(
            "dtrace-kernel-live-{}-{}",
            test_name,
            std::process::id()
        ));
        std::fs::create_dir_all(&directory).expect("create load directory");
        let script = directory.join("load.py");
        std::fs::write(&script, source).expect("write load script");
        LoadScript { directory, script }
    }

    /// The `-c` command line that runs the script with the given arguments.
    fn command_line(&self, arguments: &str) -> String {
        format!(
            "{} {} {}",
            python_interpreter().expect("checked by must_skip"),
            self.script.display(),
            arguments
        )
    }
}

impl Drop for LoadScript {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.directory);
    }
}

/// Makes exactly argv[1] getppid() calls.
const GETPPID_LOAD: &str = "import os, sys\n\
n = int(sys.argv[1])\n\
g = os.getppid\n\
for _ in range(n):\n    g()\n";

/// Forks once, so that two processes (one per CPU, given two CPUs) each make argv[1]
/// getppid() calls, then the parent waits for the child.
const TWO_PROCESS_GETPPID_LOAD: &str = "import os, sys\n\
n = int(sys.argv[1])\n\
child = os.fork()\n\
g = os.getppid\n\
for _ in range(n):\n    g()\n\
if child != 0:\n    os.waitpid(child, 0)\n";

/// Sums the `dtrace: N drops on CPU C` messages per CPU.
fn drops_per_cpu(stderr: &str) -> BTreeMap<u32, u64> {
    let mut drops = BTreeMap::new();
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix("dtrace: ") else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        if words.len() == 5
            && (words[1] == "drops" || words[1] == "drop")
            && words[2] == "on"
            && words[3] == "CPU"
        {
            if let (Ok(count), Ok(cpu)) = (words[0].parse::<u64>(), words[4].parse::<u32>()) {
                *drops.entry(cpu).or_insert(0) += count;
            }
        }
    }
    drops
}

#[test]
fn count_of_getppid_calls_is_exact() {
    if must_skip() {
        return;
    }
    const CALLS: u64 = 1_000_000;
    let load = LoadScript::new("exact", GETPPID_LOAD);
    let command_line = load.command_line(&CALLS.to_string());
    let outcome = run_dtrace(&[
        "-q",
        "-n",
        "syscall::getppid:entry /pid == $target/ { @ = count(); }",
        "-c",
        &command_line,
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let printed: Vec<&str> = outcome.stdout.split_whitespace().collect();
    assert_eq!(
        printed,
        vec![CALLS.to_string().as_str()],
        "expected exactly {CALLS} getppid calls; stdout {:?}, stderr {:?}",
        outcome.stdout,
        outcome.stderr
    );
}

#[test]
fn printed_records_plus_drops_equal_firings() {
    if must_skip() {
        return;
    }
    const CALLS: u64 = 1_000_000;
    let load = LoadScript::new("drops", GETPPID_LOAD);
    let command_line = load.command_line(&CALLS.to_string());
    let outcome = run_dtrace(&[
        "-q",
        "-b",
        "16k",
        "-n",
        "syscall::getppid:entry /pid == $target/ { trace(1); }",
        "-c",
        &command_line,
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    // Quiet trace(1) prints a bare `1` per record with no separator, so every `1` on
    // stdout is one record and nothing else may appear there.
    let unexpected: String = outcome
        .stdout
        .chars()
        .filter(|character| *character != '1' && !character.is_whitespace())
        .collect();
    assert!(unexpected.is_empty(), "unexpected output {unexpected:?}");
    let records = outcome.stdout.chars().filter(|c| *c == '1').count() as u64;
    let drops: u64 = drops_per_cpu(&outcome.stderr).values().sum();
    assert_eq!(
        records + drops,
        CALLS,
        "{records} printed records + {drops} reported drops != {CALLS} firings"
    );
}

#[test]
fn invalid_address_is_reported_and_error_clause_fires() {
    if must_skip() {
        return;
    }
    let outcome = run_dtrace(&[
        "-n",
        "BEGIN { x = *(int *)0; } ERROR { printf(\"error fired\\n\"); } tick-200ms { exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let fault_line = outcome
        .stderr
        .lines()
        .find(|line| line.contains("invalid address (0x0)"));
    let Some(fault_line) = fault_line else {
        panic!("no invalid address message; stderr {:?}", outcome.stderr);
    };
    assert!(
        fault_line.starts_with("dtrace: error on enabled probe ID ")
            && fault_line.contains(": invalid address (0x0) in action #1 at DIF offset "),
        "fault message not in DTrace's words: {fault_line:?}"
    );
    assert!(
        outcome.stdout.contains("error fired"),
        "ERROR clause did not fire; stdout {:?}",
        outcome.stdout
    );
    assert!(
        outcome.stdout.contains(":tick-200ms"),
        "tracing did not continue to tick-200ms; stdout {:?}",
        outcome.stdout
    );
}

/// The bpf(2) commands that walk the kernel's table of loaded programs and links.
const BPF_PROG_GET_NEXT_ID: libc::c_long = 11;
const BPF_LINK_GET_NEXT_ID: libc::c_long = 31;

/// Lists every id the kernel currently knows for the given `*_GET_NEXT_ID` command. This
/// asks the kernel itself, so an object held only by a kernel reference (not by any file
/// descriptor) is still seen, which a scan of /proc/*/fdinfo would miss.
fn kernel_object_ids(command: libc::c_long) -> BTreeSet<u32> {
    let mut ids = BTreeSet::new();
    let mut start_id: u32 = 0;
    loop {
        // The attribute union starts with start_id and next_id for these commands; the
        // rest stays zero, as the kernel requires.
        let mut attribute = [0u32; 16];
        attribute[0] = start_id;
        // SAFETY: the attribute is a live, zero-filled buffer of the size passed, and the
        // kernel writes only next_id inside it.
        let result = unsafe {
            libc::syscall(
                libc::SYS_bpf,
                command,
                attribute.as_mut_ptr(),
                std::mem::size_of_val(&attribute),
            )
        };
        if result != 0 {
            break;
        }
        start_id = attribute[1];
        ids.insert(start_id);
    }
    ids
}

/// Reads the `prog_id:` and `link_id:` lines of every descriptor the process holds.
fn owned_program_and_link_ids(pid: u32) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let mut programs = BTreeSet::new();
    let mut links = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) else {
        return (programs, links);
    };
    for entry in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        for line in text.lines() {
            let mut parts = line.split(':');
            let (Some(key), Some(value)) = (parts.next(), parts.next()) else {
                continue;
            };
            let Ok(id) = value.trim().parse::<u32>() else {
                continue;
            };
            match key {
                "prog_id" => {
                    programs.insert(id);
                }
                "link_id" => {
                    links.insert(id);
                }
                _ => {}
            }
        }
    }
    (programs, links)
}

#[test]
fn kill_dash_nine_leaves_no_program_or_link() {
    if must_skip() {
        return;
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(["-n", "syscall::getppid:entry { @ = count(); }"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let pid = child.id();
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut first_line = String::new();
    let _ = stderr.read_line(&mut first_line);
    // Keep draining stderr so that dtrace never blocks on a full pipe.
    let drainer = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
    });
    // The `matched` message comes before the programs are attached, so wait until the
    // process holds programs and its set of programs and links has stopped changing.
    let started = Instant::now();
    let (mut programs, mut links) = owned_program_and_link_ids(pid);
    while started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(200));
        let now = owned_program_and_link_ids(pid);
        if !programs.is_empty() && now == (programs.clone(), links.clone()) {
            break;
        }
        (programs, links) = now;
    }
    // SAFETY: pid names our own child, which has not been reaped yet.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
    let _ = child.wait();
    let _ = drainer.join();
    assert!(
        first_line.contains("matched 1 probe"),
        "dtrace did not start: {first_line:?}"
    );
    assert!(
        !programs.is_empty(),
        "dtrace held no BPF program while tracing"
    );
    // Programs and links are freed after an RCU grace period, so allow a short while.
    let started = Instant::now();
    let (mut remaining_programs, mut remaining_links);
    loop {
        let loaded = kernel_object_ids(BPF_PROG_GET_NEXT_ID);
        let attached = kernel_object_ids(BPF_LINK_GET_NEXT_ID);
        remaining_programs = programs.intersection(&loaded).copied().collect::<Vec<_>>();
        remaining_links = links.intersection(&attached).copied().collect::<Vec<_>>();
        if (remaining_programs.is_empty() && remaining_links.is_empty())
            || started.elapsed() > Duration::from_secs(5)
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        remaining_programs.is_empty() && remaining_links.is_empty(),
        "after kill -9: programs {remaining_programs:?} and links {remaining_links:?} remain"
    );
}

#[test]
fn per_cpu_sequence_numbers_have_no_duplicates_and_no_uncounted_gaps() {
    if must_skip() {
        return;
    }
    let load = LoadScript::new("integrity", TWO_PROCESS_GETPPID_LOAD);
    let command_line = load.command_line("150000");
    let outcome = run_dtrace(&[
        "-q",
        "-n",
        "profile-4999, syscall::getppid:entry { seq[cpu]++; printf(\"%d %d\\n\", cpu, seq[cpu]); }",
        "-c",
        &command_line,
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let mut last_sequence: BTreeMap<u32, u64> = BTreeMap::new();
    let mut gaps: BTreeMap<u32, u64> = BTreeMap::new();
    let mut problems = Vec::new();
    for (index, line) in outcome.stdout.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let parsed = match fields.as_slice() {
            [cpu, sequence] => cpu.parse::<u32>().ok().zip(sequence.parse::<u64>().ok()),
            _ => None,
        };
        let Some((cpu, sequence)) = parsed else {
            problems.push(format!("line {}: torn record {line:?}", index + 1));
            continue;
        };
        let previous = last_sequence.get(&cpu).copied().unwrap_or(0);
        if sequence <= previous {
            problems.push(format!(
                "line {}: CPU {cpu} sequence {sequence} after {previous}",
                index + 1
            ));
            continue;
        }
        *gaps.entry(cpu).or_insert(0) += sequence - previous - 1;
        last_sequence.insert(cpu, sequence);
    }
    let drops = drops_per_cpu(&outcome.stderr);
    for (cpu, gap) in &gaps {
        let dropped = drops.get(cpu).copied().unwrap_or(0);
        if *gap > dropped {
            problems.push(format!(
                "CPU {cpu}: {gap} missing sequence numbers but only {dropped} drops reported"
            ));
        }
    }
    assert!(
        !last_sequence.is_empty(),
        "no records; stderr {:?}",
        outcome.stderr
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
