//! The profile provider on the live kernel: `ufunc()`, `umod()`, `func()` and `mod()` of
//! the sampled PCs aggregate one entry per function or module, as in DTrace's
//! profile-n tests, a tick probe does not fire on after the `-c` command has ended, and
//! `profile-N` fires on every online CPU; these need root and skip with a reason
//! otherwise.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::live::LiveDtrace;

const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(30));

/// Spins in user code for at most a minute.
const SPINNING_LOAD: &str = "import time\n\
end = time.monotonic() + 60\n\
while time.monotonic() < end:\n    pass\n";

/// The first column of every non-empty output line, and how many lines repeat a first
/// column already seen. Distinct functions may share a name (static functions of
/// different files), so a function's name may show twice; a module's may not.
fn keys_and_repeats(stdout: &str) -> (BTreeSet<String>, usize) {
    let mut keys = BTreeSet::new();
    let mut repeats = 0;
    for line in stdout.lines().filter(|line| !line.trim().is_empty()) {
        let key = line.split_whitespace().next().unwrap_or("").to_string();
        if !keys.insert(key) {
            repeats += 1;
        }
    }
    (keys, repeats)
}

/// Checks that `action`'s keys repeat no more than a function name can: never for
/// modules, at most twice for functions (before symbol keys were made one per
/// function, every sampled instruction made its own row).
fn assert_one_entry_each(action: &str, stdout: &str) -> BTreeSet<String> {
    let (keys, repeats) = keys_and_repeats(stdout);
    let allowed = if action.ends_with("mod") { 0 } else { 2 };
    assert!(
        repeats <= allowed,
        "{action}: {repeats} repeated keys in {stdout:?}"
    );
    keys
}

#[test]
fn user_functions_and_modules_of_sampled_pcs_make_one_entry_each() {
    if DTRACE.must_skip() {
        return;
    }
    for action in ["ufunc", "umod", "usym"] {
        let program = format!(
            "profile-1234hz /pid == $target && arg1 != 0/ {{ @[{action}(arg1)] = count(); }} \
             tick-100ms /i++ == 10/ {{ exit(0); }}"
        );
        let outcome =
            DTRACE.run_with_load("profile-ufunc", SPINNING_LOAD, "", &["-q", "-n", &program]);
        assert_eq!(outcome.status, Some(0), "{action}: {}", outcome.stderr);
        let keys = assert_one_entry_each(action, &outcome.stdout);
        assert!(
            !keys.is_empty(),
            "{action}: no samples: {:?}",
            outcome.stderr
        );
    }
}

#[test]
fn kernel_functions_and_modules_of_sampled_pcs_make_one_entry_each() {
    if DTRACE.must_skip() {
        return;
    }
    for action in ["func", "mod", "sym"] {
        let program = format!(
            "profile-1234hz /arg0 != 0/ {{ @[{action}(arg0)] = count(); }} \
             tick-100ms /i++ == 5/ {{ exit(0); }}"
        );
        let outcome = DTRACE.run(&["-q", "-n", &program]);
        assert_eq!(outcome.status, Some(0), "{action}: {}", outcome.stderr);
        assert_one_entry_each(action, &outcome.stdout);
    }
}

#[test]
fn tracing_ends_with_the_command_before_a_later_tick() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run_with_load(
        "profile-command-end",
        "pass\n",
        "",
        &["-q", "-n", "tick-500ms { printf(\"tick\\n\"); exit(0); }"],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert!(
        !outcome.stdout.contains("tick"),
        "the tick fired after the command ended: {:?}",
        outcome.stdout
    );
}

/// Keeps every CPU it may run on busy for about a second, one pinned child per CPU, so
/// that each CPU has samples to give whatever else the machine runs. (On an idle CPU
/// whose tick is stopped, some kernels deliver no cpu-clock samples at all, to perf and
/// to BPF programs alike: the test checks that dtrace samples every CPU, not that.)
const SPIN_ON_EVERY_CPU: &str = "import os, time\n\
children = []\n\
for cpu in sorted(os.sched_getaffinity(0)):\n\
    child = os.fork()\n\
    if child == 0:\n\
        os.sched_setaffinity(0, {cpu})\n\
        end = time.monotonic() + 1.0\n\
        while time.monotonic() < end:\n\
            pass\n\
        os._exit(0)\n\
    children.append(child)\n\
for child in children:\n\
    os.waitpid(child, 0)\n";

/// The CPUs `/sys/devices/system/cpu/online` lists (`0-3,5`).
fn online_cpus() -> BTreeSet<u32> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    let mut cpus = BTreeSet::new();
    for range in text.trim().split(',').filter(|range| !range.is_empty()) {
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        if let (Ok(first), Ok(last)) = (first.parse::<u32>(), last.parse::<u32>()) {
            cpus.extend(first..=last);
        }
    }
    cpus
}

#[test]
fn profile_probes_fire_on_every_online_cpu() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run_with_load(
        "profile-every-cpu",
        SPIN_ON_EVERY_CPU,
        "",
        &[
            "-q",
            "-n",
            "profile-997 { @[cpu] = count(); } END { printa(\"%d %@d\\n\", @); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let sampled: BTreeSet<u32> = outcome
        .stdout
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let cpu = words.next()?.parse::<u32>().ok()?;
            let count = words.next()?.parse::<u64>().ok()?;
            (count > 0).then_some(cpu)
        })
        .collect();
    let online = online_cpus();
    assert!(!online.is_empty(), "no online CPUs listed");
    assert_eq!(
        sampled, online,
        "CPUs with samples differ from the online CPUs: {:?}",
        outcome.stdout
    );
}
