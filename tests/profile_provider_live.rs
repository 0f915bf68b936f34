//! The profile provider on the live kernel: `ufunc()`, `umod()`, `func()` and `mod()` of
//! the sampled PCs aggregate one entry per function or module, as in DTrace's
//! profile-n tests; these need root and skip with a reason otherwise.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::live::LiveDtrace;

const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(30));

/// Spins in user code for at most a minute.
const SPINNING_LOAD: &str = "import time\n\
end = time.monotonic() + 60\n\
while time.monotonic() < end:\n    pass\n";

/// The first column of every non-empty output line, checked to appear once each.
fn distinct_keys(stdout: &str) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for line in stdout.lines().filter(|line| !line.trim().is_empty()) {
        let key = line.split_whitespace().next().unwrap_or("").to_string();
        assert!(
            keys.insert(key.clone()),
            "{key} printed twice in {stdout:?}"
        );
    }
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
        let keys = distinct_keys(&outcome.stdout);
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
        distinct_keys(&outcome.stdout);
    }
}
