//! Tests of `-c`/`-p` target processes: command splitting, pid parsing, holding a child
//! at its entry point until release, exit detection and the classic exit notices, grabbing
//! running and missing processes, and killing created children when dtrace finishes.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use consumer::messages::CapturedMessages;
use consumer::session::TargetWatch;
use consumer::target_process::{
    parse_pid, signal_name, split_command, TargetExit, TargetExitReporter, TargetExitStatus,
    TargetProcesses,
};

/// Forking tests run one at a time: a child held before exec keeps copies of every
/// descriptor open in the test process at fork time, including another test's pipes,
/// which would make that test's release wait for this child's exec.
static FORKING: Mutex<()> = Mutex::new(());

const GENEROUS_WAIT: Duration = Duration::from_secs(10);

fn serialize() -> std::sync::MutexGuard<'static, ()> {
    FORKING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A fresh scratch directory for one test.
fn scratch_directory(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "target-process-test-{}-{}",
        std::process::id(),
        name
    ));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("create scratch directory");
    directory
}

/// Writes a shell script and returns its path.
fn shell_script(directory: &Path, name: &str, body: &str) -> PathBuf {
    let path = directory.join(name);
    std::fs::write(&path, body).expect("write script");
    path
}

fn process_exists(pid: u32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
}

/// Waits until every target has exited and returns all the exits seen.
fn collect_exits(targets: &mut TargetProcesses) -> Vec<TargetExit> {
    let deadline = Instant::now() + GENEROUS_WAIT;
    let mut exits = Vec::new();
    while !targets.all_exited() && Instant::now() < deadline {
        exits.extend(targets.wait_for_exits(Duration::from_millis(500)));
    }
    exits
}

/// Runs `command` as a `-c` process to its end and checks the notice, with `PID`
/// standing for the child's pid.
fn check_command_notice(command: &str, expected_notice: &str) {
    let _guard = serialize();
    let mut targets = TargetProcesses::new();
    let pid = targets
        .create(command)
        .unwrap_or_else(|error| panic!("{command}: {error}"));
    assert_eq!(targets.target_pid(), Some(pid));
    targets.release();
    let exits = collect_exits(&mut targets);
    assert_eq!(exits.len(), 1, "{command}: {exits:?}");
    assert_eq!(exits[0].pid, pid);
    assert_eq!(
        exits[0].notice(),
        expected_notice.replace("PID", &pid.to_string()),
        "{command}"
    );
    assert!(targets.all_exited());
    assert!(targets.poll_exits().is_empty(), "an exit is reported once");
}

/// Checks that creating `command` fails at once with `expected`.
fn check_create_failure(command: &str, expected: &str) {
    let _guard = serialize();
    let mut targets = TargetProcesses::new();
    match targets.create(command) {
        Ok(pid) => panic!("{command}: created pid {pid}, expected failure {expected:?}"),
        Err(error) => assert_eq!(error.message(), expected, "{command}"),
    }
    assert!(targets.is_empty());
}

/// Checks the error of grabbing `pid_text`.
fn check_grab_failure(pid_text: &str, expected: &str) {
    let mut targets = TargetProcesses::new();
    match targets.grab(pid_text) {
        Ok(pid) => panic!("{pid_text}: grabbed pid {pid}, expected failure {expected:?}"),
        Err(error) => assert_eq!(error.message(), expected, "{pid_text:?}"),
    }
}

#[test]
fn commands_split_at_blanks_without_quoting() {
    let cases: &[(&str, &[&str])] = &[
        ("true", &["true"]),
        ("  ls   -l\t/tmp\n", &["ls", "-l", "/tmp"]),
        ("sh -c 'kill -9 $$'", &["sh", "-c", "'kill", "-9", "$$'"]),
        ("a\x0bb\x0cc\rd", &["a", "b", "c", "d"]),
        ("", &[]),
        (" \t ", &[]),
    ];
    for (command, words) in cases {
        assert_eq!(split_command(command), *words, "{command:?}");
    }
}

#[test]
fn pid_arguments_parse_like_strtol() {
    let cases: &[(&str, Result<i64, &str>)] = &[
        ("123", Ok(123)),
        ("  42", Ok(42)),
        ("+7", Ok(7)),
        ("-5", Ok(-5)),
        ("0", Ok(0)),
        ("12x", Err("invalid pid: 12x")),
        ("", Err("invalid pid: ")),
        ("abc", Err("invalid pid: abc")),
        ("12 ", Err("invalid pid: 12 ")),
        ("0x10", Err("invalid pid: 0x10")),
        ("-", Err("invalid pid: -")),
        (
            "99999999999999999999",
            Err("invalid pid: 99999999999999999999"),
        ),
    ];
    for (text, expected) in cases {
        let parsed = parse_pid(text).map_err(|error| error.message().to_string());
        assert_eq!(parsed, expected.map_err(str::to_string), "{text:?}");
    }
}

#[test]
fn signal_names_follow_proc_signame() {
    let minimum = libc::SIGRTMIN();
    let maximum = libc::SIGRTMAX();
    let cases = [
        (libc::SIGKILL, "SIGKILL".to_string()),
        (libc::SIGTERM, "SIGTERM".to_string()),
        (libc::SIGSEGV, "SIGSEGV".to_string()),
        (libc::SIGHUP, "SIGHUP".to_string()),
        (minimum, "SIGRTMIN".to_string()),
        (minimum + 3, "SIGRTMIN+3".to_string()),
        (maximum, "SIGRTMAX".to_string()),
        (maximum - 2, "SIGRTMAX-2".to_string()),
        (0, "SIG#0".to_string()),
        (200, "SIG#200".to_string()),
    ];
    for (signal, name) in cases {
        assert_eq!(signal_name(signal), name, "signal {signal}");
    }
}

#[test]
fn exit_notices_are_the_classic_ones() {
    let cases = [
        (TargetExitStatus::Exited(0), "pid 42 has exited"),
        (TargetExitStatus::Unknown, "pid 42 has exited"),
        (TargetExitStatus::Exited(1), "pid 42 exited with status 1"),
        (
            TargetExitStatus::Exited(255),
            "pid 42 exited with status 255",
        ),
        (
            TargetExitStatus::Signaled(libc::SIGKILL),
            "pid 42 terminated by SIGKILL",
        ),
        (
            TargetExitStatus::Signaled(libc::SIGINT),
            "pid 42 terminated by SIGINT",
        ),
    ];
    for (status, notice) in cases {
        assert_eq!(
            TargetExit { pid: 42, status }.notice(),
            notice,
            "{status:?}"
        );
    }
}

#[test]
fn created_commands_report_how_they_ended() {
    let directory = scratch_directory("ended");
    let killer = shell_script(&directory, "kill-self.sh", "kill -9 $$\n");
    let failer = shell_script(&directory, "exit-3.sh", "exit 3\n");
    check_command_notice("true", "pid PID has exited");
    check_command_notice("false", "pid PID exited with status 1");
    check_command_notice("/bin/true ignored arguments", "pid PID has exited");
    check_command_notice(
        &format!("sh {}", killer.display()),
        "pid PID terminated by SIGKILL",
    );
    check_command_notice(
        &format!("sh {}", failer.display()),
        "pid PID exited with status 3",
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn missing_or_unrunnable_commands_fail_at_creation() {
    let directory = scratch_directory("unrunnable");
    let not_executable = shell_script(&directory, "plain-file", "true\n");
    check_create_failure(
        "no-such-command-for-dtrace-tests --flag",
        "failed to execute no-such-command-for-dtrace-tests: No such file or directory",
    );
    check_create_failure(
        "/no/such/dir/program",
        "failed to execute /no/such/dir/program: No such file or directory",
    );
    check_create_failure(
        &not_executable.display().to_string(),
        &format!(
            "failed to execute {}: Permission denied",
            not_executable.display()
        ),
    );
    check_create_failure(
        &directory.display().to_string(),
        &format!(
            "failed to execute {}: Permission denied",
            directory.display()
        ),
    );
    check_create_failure("", "failed to execute : No such file or directory");
    check_create_failure("   ", "failed to execute : No such file or directory");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn exec_failures_are_reported_at_creation() {
    use std::os::unix::fs::PermissionsExt;
    let directory = scratch_directory("exec-failure");
    // The file exists and is executable, but its interpreter does not exist, so only
    // execve itself can tell.
    let script = shell_script(&directory, "bad-interpreter", "#!/no/such/interpreter\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    check_create_failure(
        &script.display().to_string(),
        &format!(
            "failed to execute {}: No such file or directory",
            script.display()
        ),
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn created_commands_are_held_at_their_entry_point_with_their_libraries_mapped() {
    let _guard = serialize();
    let mut targets = TargetProcesses::new();
    let pid = targets.create("sleep 0").expect("create");
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("maps");
    let executable = std::fs::read_link(format!("/proc/{pid}/exe")).expect("exe");
    assert!(
        executable.ends_with("sleep"),
        "the child has exec'ed: {executable:?}"
    );
    assert!(
        maps.contains("libc.so") || !maps.contains("ld-linux"),
        "a dynamically linked child is held after its libraries are mapped:\n{maps}"
    );
    targets.release();
    let exits = collect_exits(&mut targets);
    assert_eq!(
        exits,
        vec![TargetExit {
            pid,
            status: TargetExitStatus::Exited(0)
        }]
    );
}

#[test]
fn created_commands_are_held_until_release() {
    let _guard = serialize();
    let directory = scratch_directory("held");
    let marker = directory.join("marker");
    let script = shell_script(
        &directory,
        "write-marker.sh",
        &format!("echo $$ > {}\n", marker.display()),
    );
    let mut targets = TargetProcesses::new();
    let pid = targets
        .create(&format!("sh {}", script.display()))
        .expect("create");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!marker.exists(), "the command ran before release");
    assert!(process_exists(pid), "the held child is alive");
    assert!(targets.poll_exits().is_empty());
    assert!(!targets.all_exited());
    targets.release();
    let exits = collect_exits(&mut targets);
    assert_eq!(
        exits,
        vec![TargetExit {
            pid,
            status: TargetExitStatus::Exited(0)
        }]
    );
    let written = std::fs::read_to_string(&marker).expect("the command ran after release");
    assert_eq!(
        written.trim(),
        pid.to_string(),
        "$target is the pid of the command itself"
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn several_targets_end_together_and_target_is_the_first() {
    let _guard = serialize();
    let mut targets = TargetProcesses::new();
    assert!(targets.is_empty());
    assert!(
        !targets.all_exited(),
        "no targets never counts as all exited"
    );
    assert_eq!(targets.target_pid(), None);
    let first = targets.create("true").expect("create true");
    let second = targets.create("false").expect("create false");
    assert_eq!(targets.pids(), vec![first, second]);
    assert_eq!(targets.target_pid(), Some(first));
    targets.release();
    let mut notices: Vec<String> = collect_exits(&mut targets)
        .iter()
        .map(TargetExit::notice)
        .collect();
    notices.sort();
    let mut expected = vec![
        format!("pid {first} has exited"),
        format!("pid {second} exited with status 1"),
    ];
    expected.sort();
    assert_eq!(notices, expected);
}

#[test]
fn created_commands_are_killed_when_dtrace_finishes_first() {
    let _guard = serialize();
    let mut released = TargetProcesses::new();
    let released_pid = released.create("sleep 100").expect("create released");
    released.release();
    assert!(released.poll_exits().is_empty(), "sleep is still running");
    let mut held = TargetProcesses::new();
    let held_pid = held.create("sleep 100").expect("create held");
    drop(released);
    drop(held);
    assert!(
        !process_exists(released_pid),
        "the running command was killed and reaped"
    );
    assert!(
        !process_exists(held_pid),
        "the held command was killed and reaped"
    );
}

#[test]
fn unreleased_commands_are_killed_explicitly() {
    let _guard = serialize();
    let mut targets = TargetProcesses::new();
    let pid = targets.create("sleep 100").expect("create");
    targets.kill_created();
    assert!(targets.all_exited());
    assert!(
        targets.poll_exits().is_empty(),
        "a killed command gives no notice"
    );
    assert!(!process_exists(pid));
}

#[test]
fn grabbed_processes_are_watched_until_they_exit() {
    let _guard = serialize();
    let mut sleeper = std::process::Command::new("sleep")
        .arg("100")
        .spawn()
        .expect("spawn sleep");
    let mut targets = TargetProcesses::new();
    let pid = targets.grab(&sleeper.id().to_string()).expect("grab");
    assert_eq!(pid, sleeper.id());
    assert_eq!(targets.target_pid(), Some(pid));
    assert!(
        targets
            .wait_for_exits(Duration::from_millis(100))
            .is_empty(),
        "sleep is still running"
    );
    assert!(!targets.all_exited());
    sleeper.kill().expect("kill sleep");
    let exits = collect_exits(&mut targets);
    assert_eq!(
        exits,
        vec![TargetExit {
            pid,
            status: TargetExitStatus::Unknown
        }]
    );
    assert_eq!(exits[0].notice(), format!("pid {pid} has exited"));
    sleeper.wait().expect("reap sleep");
    drop(targets);
}

#[test]
fn grabbed_processes_are_not_killed_when_dtrace_finishes() {
    let _guard = serialize();
    let mut sleeper = std::process::Command::new("sleep")
        .arg("100")
        .spawn()
        .expect("spawn sleep");
    let mut targets = TargetProcesses::new();
    targets.grab(&format!(" {}", sleeper.id())).expect("grab");
    drop(targets);
    assert!(
        sleeper.try_wait().expect("try_wait").is_none(),
        "a grabbed process survives dtrace"
    );
    sleeper.kill().expect("kill sleep");
    sleeper.wait().expect("reap sleep");
}

#[test]
fn bogus_pids_cannot_be_grabbed() {
    check_grab_failure("12x", "invalid pid: 12x");
    check_grab_failure("", "invalid pid: ");
    check_grab_failure("0", "failed to grab pid 0: No such process");
    check_grab_failure("-5", "failed to grab pid -5: No such process");
    check_grab_failure("99999999", "failed to grab pid 99999999: No such process");
    check_grab_failure(
        "4294967297",
        "failed to grab pid 4294967297: No such process",
    );
}

#[test]
fn the_session_watch_reports_when_all_targets_are_gone() {
    let _guard = serialize();
    let mut targets = TargetProcesses::new();
    targets.create("true").expect("create");
    targets.release();
    let deadline = Instant::now() + GENEROUS_WAIT;
    let mut reporter = TargetExitReporter {
        targets: &mut targets,
        quiet: true,
    };
    while !reporter.report_exits(&CapturedMessages::default()) {
        assert!(Instant::now() < deadline, "true did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(targets.all_exited());
}
