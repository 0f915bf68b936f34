//! Live tests of the stable providers proc and io and of the translators behind
//! `curpsinfo`, `curlwpsinfo` and `fds[]`, on the kernel engine: each traces a child the
//! `-c` command starts (filtered to it, since other tests run at the same time) and
//! checks what DTrace's documentation promises.
//!
//! These tests trace the running machine, so each one first checks that it may (root and
//! a working dtrace) and otherwise prints `skipping: <reason>` and passes.

mod common;

use std::os::unix::fs::MetadataExt;
use std::time::Duration;

use common::live::{LiveDtrace, LiveOutcome, ScratchDirectory};

/// Any single dtrace run may take 30 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(30));

fn succeeded(outcome: &LiveOutcome) {
    assert_eq!(
        outcome.status,
        Some(0),
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
}

fn lines(outcome: &LiveOutcome) -> Vec<&str> {
    outcome
        .stdout
        .lines()
        .filter(|line| !line.is_empty())
        .collect()
}

/// The issue's check: a shell script's `ls /` is seen by `proc:::exec-success` with
/// its arguments in `curpsinfo->pr_psargs` (`-c` splits its command on blanks).
#[test]
fn exec_success_sees_the_child_and_its_arguments() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("exec_success");
    let script = scratch.write("t.sh", "ls /\n");
    let command = format!("sh {}", script.display());
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"proc:::exec-success /ppid == $target/ { printf("%s %s\n", execname, curpsinfo->pr_psargs); }"#,
        "-c",
        &command,
    ]);
    succeeded(&outcome);
    assert!(
        lines(&outcome).contains(&"ls ls /"),
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
}

/// `proc:::exit`'s argument is CLD_EXITED for a normal exit and CLD_KILLED for a
/// process killed by a signal; `proc:::exec` gives the path and `exec-failure` the
/// (negative) error of a failed exec.
#[test]
fn exit_tells_exited_from_killed_and_exec_failure_gives_the_error() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("exit_reasons");
    let script = scratch.write(
        "t.sh",
        "/bin/true\n/nonexistent/command\n/bin/sleep 10 &\n/bin/sleep 0.5\nkill -9 $!\nwait\n",
    );
    let command = format!("sh {}", script.display());
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"proc:::exit /ppid == $target/ {
               printf("exit %s %s\n", execname, args[0] == CLD_EXITED ? "CLD_EXITED" :
                   args[0] == CLD_KILLED ? "CLD_KILLED" : "other");
           }
           proc:::exec /ppid == $target/ { printf("exec %s\n", args[0]); }
           proc:::exec-failure /ppid == $target/ { printf("exec-failure %d\n", args[0]); }"#,
        "-c",
        &command,
    ]);
    succeeded(&outcome);
    let seen = lines(&outcome);
    for expected in [
        "exit true CLD_EXITED",
        "exit sleep CLD_EXITED",
        "exit sleep CLD_KILLED",
        "exec /bin/true",
        "exec /nonexistent/command",
        "exec-failure -2",
    ] {
        assert!(
            seen.contains(&expected),
            "{expected} missing; stdout: {}\nstderr: {}",
            outcome.stdout,
            outcome.stderr
        );
    }
}

/// `proc:::signal-send` sees a `kill` with its signal, the target's psinfo_t and the
/// sender's context; `proc:::create` the new process.
#[test]
fn signal_send_and_create_name_the_target() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("signal_send");
    let script = scratch.write(
        "t.sh",
        "/bin/sleep 10 &\n/bin/sleep 0.5\nkill -TERM $!\nwait\n",
    );
    let command = format!("sh {}", script.display());
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"proc:::signal-send /args[1]->pr_ppid == $target && args[2] == SIGTERM/ {
               printf("signal %d to %s by %s\n", args[2], stringof(args[1]->pr_fname),
                   execname);
           }
           proc:::create /pid == $target/ {
               printf("create %d\n", args[0]->pr_ppid == $target);
           }"#,
        "-c",
        &command,
    ]);
    succeeded(&outcome);
    let seen = lines(&outcome);
    assert!(
        seen.contains(&"signal 15 to sleep by sh"),
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
    assert!(seen.contains(&"create 1"), "stdout: {}", outcome.stdout);
}

/// `curpsinfo` and `curlwpsinfo` agree with the plain built-ins for dtrace itself, in
/// BEGIN; the thread running BEGIN is on a CPU.
#[test]
fn curpsinfo_and_curlwpsinfo_agree_with_the_built_ins() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"BEGIN {
               printf("%d %d %d %d %d %d %d %c %d\n", curpsinfo->pr_pid == pid,
                   curpsinfo->pr_ppid == ppid, curlwpsinfo->pr_lwpid == tid,
                   curpsinfo->pr_uid == uid, curpsinfo->pr_gid == gid,
                   stringof(curpsinfo->pr_fname) == execname,
                   curlwpsinfo->pr_onpro == cpu, curlwpsinfo->pr_sname,
                   curpsinfo->pr_dmodel == PR_MODEL_LP64);
               exit(0);
           }"#,
    ]);
    succeeded(&outcome);
    assert_eq!(lines(&outcome), ["1 1 1 1 1 1 1 O 1"], "{}", outcome.stderr);
}

/// `fds[]` describes the current process's open files: stdin redirected from a file
/// names that file; a descriptor that is not open is the none file.
#[test]
fn fds_describe_the_open_files() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("fds");
    let file = scratch.write("input.txt", "hello\n");
    // stdin comes from the file through the shell, as a user would redirect it;
    // timeout(1) stands for the deadline the other runs have.
    let shell = format!(
        "exec timeout 30 {} -q -n 'BEGIN {{ printf(\"%s|%s|%s|%d|%s\\n\", fds[0].fi_name, fds[0].fi_pathname, fds[0].fi_dirname, fds[0].fi_oflags & O_ACCMODE, fds[1000].fi_name); exit(0); }}' < {}",
        env!("CARGO_BIN_EXE_dtrace"),
        file.display()
    );
    let output = std::process::Command::new("/bin/sh")
        .args(["-c", &shell])
        .output()
        .expect("run dtrace through sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let directory = scratch.path("").display().to_string();
    assert_eq!(
        stdout.trim_end(),
        format!(
            "input.txt|{}|{}|0|<none>",
            file.display(),
            directory.trim_end_matches('/')
        )
    );
}

/// The block device a file lives on: its kernel name (`/proc/diskstats`'s) from
/// `/sys/dev/block/MAJOR:MINOR/uevent`.
fn device_name_of(path: &std::path::Path) -> Option<String> {
    let device = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(device), libc::minor(device));
    let uevent = std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/uevent")).ok()?;
    uevent
        .lines()
        .find_map(|line| line.strip_prefix("DEVNAME="))
        .map(str::to_string)
}

/// `io:::start` and `io:::done` see a direct write of 4 MiB to a file on the root
/// file system's block device, with its byte count and the device's name.
#[test]
fn io_start_and_done_see_a_direct_write_with_its_device() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("io_direct_write");
    let file = scratch.path("direct.bin");
    std::fs::write(&file, b"").expect("create the file");
    let Some(device) = device_name_of(&file) else {
        println!("skipping: the scratch directory is not on a block device");
        return;
    };
    let command = format!(
        "/bin/dd if=/dev/zero of={} bs=1M count=4 oflag=direct conv=fsync",
        file.display()
    );
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        &format!(
            r#"io:::start /pid == $target && args[0]->b_flags & B_WRITE/ {{
                   @start[args[1]->dev_statname] = sum(args[0]->b_bcount);
               }}
               io:::done /args[1]->dev_statname == "{device}" && args[0]->b_flags & B_WRITE/ {{
                   @done[args[1]->dev_statname] = sum(args[0]->b_bcount);
               }}
               END {{ printa("start %s %@d\n", @start); printa("done %s %@d\n", @done); }}"#
        ),
        "-c",
        &command,
    ]);
    succeeded(&outcome);
    let bytes_of = |kind: &str| -> u64 {
        lines(&outcome)
            .iter()
            .filter_map(|line| line.strip_prefix(&format!("{kind} {device} ")))
            .filter_map(|bytes| bytes.trim().parse::<u64>().ok())
            .sum()
    };
    let written = 4 << 20;
    assert!(
        bytes_of("start") >= written,
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
    assert!(bytes_of("done") >= written, "stdout: {}", outcome.stdout);
}

/// The classic disk-latency one-liner keys `io:::start` by `arg0` and looks the key up
/// in `io:::done`: `arg0` is the same buffer (the request's first bio) in both, so the
/// completions of a direct write are found.
#[test]
fn io_done_arg0_is_the_key_io_start_gave() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("io_arg0_key");
    let file = scratch.path("direct.bin");
    std::fs::write(&file, b"").expect("create the file");
    if device_name_of(&file).is_none() {
        println!("skipping: the scratch directory is not on a block device");
        return;
    }
    let command = format!(
        "/bin/dd if=/dev/zero of={} bs=1M count=4 oflag=direct conv=fsync",
        file.display()
    );
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"io:::start /pid == $target/ { start[arg0] = timestamp; }
           io:::done /start[arg0]/ {
               @found = count();
               @latency = quantize(timestamp - start[arg0]);
               start[arg0] = 0;
           }
           END { printa("found %@d\n", @found); }"#,
        "-c",
        &command,
    ]);
    succeeded(&outcome);
    let found: u64 = lines(&outcome)
        .iter()
        .filter_map(|line| line.strip_prefix("found "))
        .filter_map(|count| count.trim().parse::<u64>().ok())
        .sum();
    assert!(
        found >= 4,
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
}

/// The stable-provider scripts of `examples/` run on a workload the `-c` command
/// makes and print what they are for.
#[test]
fn stable_provider_examples_run() {
    if DTRACE.must_skip() {
        return;
    }
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let scratch = ScratchDirectory::new("stable_examples");
    let script = scratch.write(
        "t.sh",
        "ls / > /dev/null\n/bin/sleep 10 &\n/bin/sleep 0.5\nkill -9 $!\nwait\n",
    );
    let shell = format!("sh {}", script.display());
    let file = scratch.path("direct.bin");
    let direct_write = format!(
        "/bin/dd if=/dev/zero of={} bs=64k count=16 oflag=direct",
        file.display()
    );
    let connection = scratch.write(
        "connect.py",
        "import socket\nserver = socket.socket()\nserver.bind(('127.0.0.1', 0))\n\
         server.listen()\nclient = socket.create_connection(server.getsockname())\n\
         accepted, _ = server.accept()\nclient.close()\naccepted.close()\nserver.close()\n",
    );
    let python = common::live::python_interpreter().expect("checked by must_skip");
    let connect = format!("{python} {}", connection.display());
    let burn = scratch.write(
        "burn.py",
        "import time\nfor _ in range(5):\n    start = time.thread_time_ns()\n    \
         while time.thread_time_ns() - start < 20000000:\n        pass\n    time.sleep(0.02)\n",
    );
    let burn = format!("{python} {}", burn.display());
    for (example, command, expected) in [
        ("execsnoop_arguments.d", shell.as_str(), " ls /"),
        ("process_lifetime.d", shell.as_str(), "killed"),
        ("iosnoop.d", direct_write.as_str(), "65536"),
        ("tcp_connections.d", connect.as_str(), "127.0.0.1:"),
        ("run_queue_latency.d", burn.as_str(), "(us)"),
    ] {
        let path = examples.join(example).display().to_string();
        let outcome = DTRACE.run(&["-s", &path, "-c", command]);
        succeeded(&outcome);
        assert!(
            outcome.stdout.lines().any(|line| line.contains(expected)),
            "{example}: no line with {expected:?}\nstdout: {}\nstderr: {}",
            outcome.stdout,
            outcome.stderr
        );
    }
}

/// `d_path()` walks a path up to the root, across mounts: dtrace's own working
/// directory (`cwd`, procfs.d's inline) in a directory on the root file system and in
/// /proc and /sys, and its executable's path.
#[test]
fn d_path_names_directories_across_mounts() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("d_path");
    let nested = scratch.path("one/two/three");
    std::fs::create_dir_all(&nested).expect("create nested directories");
    for directory in [
        nested.as_path(),
        std::path::Path::new("/proc/sys/kernel"),
        std::path::Path::new("/sys/kernel"),
    ] {
        let output = std::process::Command::new("timeout")
            .arg("30")
            .arg(env!("CARGO_BIN_EXE_dtrace"))
            .args([
                "-q",
                "-n",
                r#"BEGIN { printf("%s|%s|%s\n", cwd, root, d_path(&curthread->mm->exe_file->f_path)); exit(0); }"#,
            ])
            .current_dir(directory)
            .output()
            .expect("run dtrace");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let executable = std::fs::canonicalize(env!("CARGO_BIN_EXE_dtrace")).unwrap();
        assert_eq!(
            stdout.trim_end(),
            format!(
                "{}|/|{}",
                std::fs::canonicalize(directory).unwrap().display(),
                executable.display()
            ),
            "stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// `examples/offcpu_stacks.d` sums off-CPU time by the stack `sched:::on-cpu` takes of
/// the switched-in thread: kernels from 6.12 on give a raw tracepoint no pointer to that
/// thread `bpf_get_task_stack` accepts, and there enabling it says so.
#[test]
fn offcpu_stacks_example_runs_or_says_why_not() {
    if DTRACE.must_skip() {
        return;
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut version = release.trim().split(|c: char| !c.is_ascii_digit());
    let major: u32 = version.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let minor: u32 = version.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/offcpu_stacks.d");
    let outcome = DTRACE.run(&["-s", &path.display().to_string(), "-c", "/bin/sleep 0.2"]);
    if (major, minor) >= (6, 12) {
        assert_eq!(outcome.status, Some(1), "{}", outcome.stderr);
        assert!(
            outcome.stderr.contains(
                "the kernel stack (stack(), stackdepth, caller) of the thread a probe is about"
            ),
            "{}",
            outcome.stderr
        );
    } else {
        succeeded(&outcome);
        assert!(outcome.stdout.contains(" us"), "{}", outcome.stdout);
    }
}
