//! Live end-to-end tests of aggregations on the kernel engine: a per-process syscall
//! count printed with `printa()` and truncated, histograms of real system call latencies
//! whose buckets add up to the calls made, `min()`/`max()`/`count()` after `clear()`
//! agreeing with the reference interpreter, and a million distinct keys that are either
//! all printed or accounted for by aggregation drops, and `execname` keys and records that
//! hold the longest task name whole in their 16 bytes, and `lquantize()` histograms too
//! large for one kernel map value (kept in parts) that count every value, and a printa()
//! after a trunc() that prints only the entries kept.
//!
//! These tests trace the running machine, so each one first checks that it may (root and a
//! working `dtrace -n 'BEGIN { exit(0); }'`) and otherwise prints `skipping: <reason>` and
//! passes. The load processes are small Python scripts written to a private temporary
//! directory, because `-c` splits its command on blanks and so cannot carry `python -c`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use common::live::{aggregation_drops, LiveDtrace, GETPPID_LOAD, TWO_PROCESS_GETPPID_LOAD};

/// Any single dtrace run may take 60 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(60));

/// Makes argv[1] getppid(), argv[1]/2 getuid() and argv[1]/4 getgid() calls, then sleeps
/// past the tracing program's `tick-2s`.
const MIXED_LOAD_THEN_SLEEP: &str = "import os, sys, time\n\
n = int(sys.argv[1])\n\
for _ in range(n):\n    os.getppid()\n\
for _ in range(n // 2):\n    os.getuid()\n\
for _ in range(n // 4):\n    os.getgid()\n\
time.sleep(6)\n";

/// Makes argv[1] getppid() calls, marks the middle with getpgid(424242) (which fails),
/// waits for the consumer to see the mark, then makes argv[1] more getppid() calls.
const GETPPID_MARK_GETPPID: &str = "import os, sys, time\n\
n = int(sys.argv[1])\n\
g = os.getppid\n\
for _ in range(n):\n    g()\n\
try:\n    os.getpgid(424242)\nexcept OSError:\n    pass\n\
time.sleep(1)\n\
for _ in range(n):\n    g()\n";

/// One line of `printa("%-16s %-20s %@8d\n", @)`: (execname, probefunc, count). Checks the
/// columns exactly when both names fit their widths.
fn parse_count_line(line: &str) -> (String, String, u64) {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert!(words.len() >= 3, "malformed printa line {line:?}");
    let count: u64 = words[words.len() - 1]
        .parse()
        .unwrap_or_else(|_| panic!("no count at the end of {line:?}"));
    let function = words[words.len() - 2].to_string();
    let name = words[..words.len() - 2].join(" ");
    if name.len() <= 16 && function.len() <= 20 && count < 100_000_000 {
        assert_eq!(
            line,
            format!("{name:<16} {function:<20} {count:>8}"),
            "printa() columns"
        );
    }
    (name, function, count)
}

#[test]
fn syscall_counts_are_printed_with_printa_and_truncated() {
    if DTRACE.must_skip() {
        return;
    }
    // The program, verbatim: every process's system calls for two seconds.
    let outcome = DTRACE.run(&[
        "-n",
        "syscall:::entry { @[execname, probefunc] = count(); } \
         tick-2s { printa(\"%-16s %-20s %@8d\\n\", @); trunc(@, 5); exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let lines: Vec<&str> = outcome
        .stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    // Not quiet: the column header, then the tick-2s firing's header, which the first
    // printa() line follows on the same line (a formatted printa() starts no line).
    assert!(lines.len() > 2, "{:?}", outcome.stdout);
    assert!(lines[0].contains("FUNCTION:NAME"), "{:?}", lines[0]);
    let (_, first) = lines[1]
        .split_once(":tick-2s ")
        .unwrap_or_else(|| panic!("no tick-2s header in {:?}", lines[1]));
    let counts: Vec<(String, String, u64)> = std::iter::once(first)
        .chain(lines[2..].iter().copied())
        .map(parse_count_line)
        .collect();
    // dtrace itself makes system calls while it waits for the tick.
    assert!(
        counts.iter().any(|(name, _, _)| name == "dtrace"),
        "{counts:?}"
    );
    // Sorted by count, ascending.
    assert!(
        counts.windows(2).all(|pair| pair[0].2 <= pair[1].2),
        "{counts:?}"
    );

    // The same with the target's system calls only (so nothing new appears after the
    // truncation) and a report from END: the five largest counts are left.
    let outcome = DTRACE.run_with_load(
        "trunc",
        MIXED_LOAD_THEN_SLEEP,
        "1000",
        &[
            "-q",
            "-n",
            "syscall:::entry /pid == $target/ { @[execname, probefunc] = count(); } \
         tick-2s { printa(\"%-16s %-20s %@8d\\n\", @); trunc(@, 5); exit(0); } \
         END { printf(\"after trunc\\n\"); printa(\"%-16s %-20s %@8d\\n\", @); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let (before, after) = outcome
        .stdout
        .split_once("after trunc\n")
        .unwrap_or_else(|| panic!("no END report: {:?}", outcome.stdout));
    let parse = |text: &str| -> Vec<(String, String, u64)> {
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(parse_count_line)
            .collect()
    };
    let (before, after) = (parse(before), parse(after));
    assert!(before.len() > 5, "{before:?}");
    assert_eq!(after.len(), 5, "{after:?}");
    let calls: BTreeMap<&str, u64> = before
        .iter()
        .map(|(_, function, count)| (function.as_str(), *count))
        .collect();
    assert_eq!(calls.get("getppid"), Some(&1000), "{before:?}");
    assert!(calls.get("getuid").is_some_and(|count| *count >= 500));
    // The kept entries are the five largest, unchanged.
    let mut largest = before.clone();
    largest.sort_by_key(|(_, _, count)| std::cmp::Reverse(*count));
    let smallest_kept = largest[4].2;
    for entry in &after {
        assert!(before.contains(entry), "{entry:?} was not printed before");
        assert!(
            entry.2 >= smallest_kept,
            "{entry:?} is not among the five largest"
        );
    }
    assert!(
        after.windows(2).all(|pair| pair[0].2 <= pair[1].2),
        "{after:?}"
    );
}

/// The bucket counts of every histogram in default-format output, in order.
fn histogram_bucket_counts(text: &str) -> Vec<Vec<u64>> {
    let mut histograms = Vec::new();
    let mut current: Option<Vec<u64>> = None;
    for line in text.lines() {
        if line.contains("Distribution") {
            histograms.extend(current.take());
            current = Some(Vec::new());
            continue;
        }
        let Some(buckets) = current.as_mut() else {
            continue;
        };
        match line.split_once('|') {
            Some((_, bar)) => buckets.push(
                bar.split_whitespace()
                    .last()
                    .and_then(|count| count.parse().ok())
                    .unwrap_or_else(|| panic!("no bucket count in {line:?}")),
            ),
            None => histograms.extend(current.take()),
        }
    }
    histograms.extend(current);
    histograms
}

#[test]
fn latency_histograms_add_up_to_the_calls() {
    if DTRACE.must_skip() {
        return;
    }
    const CALLS: u64 = 20_000;
    let outcome = DTRACE.run_with_load(
        "latency",
        GETPPID_LOAD,
        &CALLS.to_string(),
        &[
            "-q",
            "-n",
            "syscall::getppid:entry /pid == $target/ { self->ts = timestamp; } \
         syscall::getppid:return /self->ts/ { \
             this->latency = timestamp - self->ts; \
             @power = quantize(this->latency); \
             @linear = lquantize(this->latency, 0, 5000, 250); \
             @logarithmic = llquantize(this->latency, 10, 0, 6, 10); \
             @calls = count(); \
             self->ts = 0; }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let histograms = histogram_bucket_counts(&outcome.stdout);
    assert_eq!(histograms.len(), 3, "{}", outcome.stdout);
    for buckets in &histograms {
        assert_eq!(buckets.iter().sum::<u64>(), CALLS, "{}", outcome.stdout);
    }
    let last_number = outcome
        .stdout
        .lines()
        .rev()
        .find_map(|line| line.trim().parse::<u64>().ok());
    assert_eq!(last_number, Some(CALLS), "{}", outcome.stdout);
}

/// Renames its thread to the longest name a task can have (15 characters), then makes
/// argv[1] getppid() calls.
const LONGEST_NAME_GETPPID_LOAD: &str = "import os, sys\n\
open('/proc/self/comm', 'w').write('fifteen-chars-x')\n\
g = os.getppid\n\
for _ in range(int(sys.argv[1])):\n    g()\n";

/// `execname` is recorded and keyed in 16 bytes, not `strsize`: a name of the longest
/// length a task can have arrives whole as a key, a trace() record and a printf()
/// argument, and keys of a string that may be longer widen the slot for every use.
#[test]
fn execname_keys_and_records_keep_the_longest_task_name() {
    if DTRACE.must_skip() {
        return;
    }
    const CALLS: u64 = 1_000;
    let outcome = DTRACE.run_with_load(
        "longest_name",
        LONGEST_NAME_GETPPID_LOAD,
        &CALLS.to_string(),
        &[
            "-q",
            "-n",
            "BEGIN { done = 0; } syscall::getppid:entry /pid == $target/ { @names[execname] = count(); \
             @mixed[execname, 1] = count(); } \
             syscall::getppid:entry /pid == $target && !done/ { done = 1; trace(execname); \
             printf(\"<%s>\\n\", execname); } \
             END { @mixed[\"a string literal longer than sixteen bytes\", 2] = count(); \
             printa(\"names %s %@d\\n\", @names); printa(\"mixed %s %d %@d\\n\", @mixed); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let lines: Vec<&str> = outcome.stdout.lines().collect();
    for expected in [
        "fifteen-chars-x<fifteen-chars-x>".to_string(),
        format!("names fifteen-chars-x {CALLS}"),
        format!("mixed fifteen-chars-x 1 {CALLS}"),
        "mixed a string literal longer than sixteen bytes 2 1".to_string(),
    ] {
        assert!(
            lines.contains(&expected.as_str()),
            "no {expected:?} in {:?}",
            outcome.stdout
        );
    }
}

/// The D program of the clear() tests: values before and after `clear()`.
const CLEAR_PROGRAM: &str = "BEGIN { @low = min(50); @high = max(50); @calls = count(); \
     @total = sum(5); @distribution = quantize(50); @kept[1] = min(5); @kept[2] = min(9); } \
     BEGIN { clear(@low); clear(@high); clear(@calls); clear(@total); \
     clear(@distribution); trunc(@kept, 1); exit(0); } \
     END { @low = min(70); @high = max(20); @calls = count(); @distribution = quantize(3); \
     @kept[1] = min(7); @kept[2] = min(100); }";

/// What the reference interpreter says `CLEAR_PROGRAM` prints: only what follows the
/// clear (70, 20, 1), a zero sum, a histogram of the 3 alone; `@kept[1]`, removed by
/// `trunc()`, restarts at 7, while the kept `@kept[2]` keeps its 9.
const CLEAR_PROGRAM_OUTPUT: &str = "\n               70\n               20\n                1\n\
     \x20               0\n\n\
     \x20          value  ------------- Distribution ------------- count    \n\
     \x20              1 |                                         0        \n\
     \x20              2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n\
     \x20              4 |                                         0        \n\n\
     \x20       1                7\n        2                9\n";

/// Needs no privileges: the reference interpreter runs BEGIN and END in the process.
#[test]
fn clear_and_trunc_restart_values_on_the_interpreter() {
    let vm = DTRACE.run(&["-q", "-x", "engine=vm", "-n", CLEAR_PROGRAM]);
    assert_eq!(vm.status, Some(0), "stderr: {}", vm.stderr);
    assert_eq!(vm.stdout, CLEAR_PROGRAM_OUTPUT);
}

#[test]
fn min_max_and_count_after_clear_agree_with_the_interpreter() {
    if DTRACE.must_skip() {
        return;
    }
    let kernel = DTRACE.run(&["-q", "-x", "engine=kernel", "-n", CLEAR_PROGRAM]);
    assert_eq!(kernel.status, Some(0), "stderr: {}", kernel.stderr);
    assert_eq!(kernel.stdout, CLEAR_PROGRAM_OUTPUT);

    // Live: N calls see i = 0..N-1, the mark clears, N more calls see i = N..2N-1.
    const CALLS: u64 = 5_000;
    let outcome = DTRACE.run_with_load(
        "clear",
        GETPPID_MARK_GETPPID,
        &CALLS.to_string(),
        &[
            "-q",
            "-x",
            "switchrate=50hz",
            "-n",
            "BEGIN { i = 0; } \
         syscall::getppid:entry /pid == $target/ { \
             @calls = count(); @low = min(i); @high = max(i); i++; } \
         syscall::getpgid:entry /pid == $target && arg0 == 424242/ { \
             printa(\"before %@d %@d %@d\\n\", @calls, @low, @high); \
             clear(@calls); clear(@low); clear(@high); } \
         END { printa(\"after %@d %@d %@d\\n\", @calls, @low, @high); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stdout,
        format!(
            "before {CALLS} 0 {}\nafter {CALLS} {CALLS} {}\n\n",
            CALLS - 1,
            2 * CALLS - 1
        )
    );
}

/// The CPUs online, from sysfs (`0-3,5` style lists).
fn online_cpus() -> Vec<u32> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").expect("online CPUs");
    let mut cpus = Vec::new();
    for range in text.trim().split(',') {
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        let (first, last): (u32, u32) = (first.parse().unwrap(), last.parse().unwrap());
        cpus.extend(first..=last);
    }
    cpus
}

/// Needs no privileges: `-x aggpercpu` on the interpreter, which fires BEGIN and END on
/// the CPU dtrace runs on (CPU 0 here); every online CPU is listed.
#[test]
fn aggpercpu_prints_every_cpu_after_each_value_on_the_interpreter() {
    let outcome = DTRACE.run_on_first_cpu(&[
        "-q",
        "-x",
        "engine=vm",
        "-x",
        "aggpercpu",
        "-n",
        "BEGIN { @calls[\"a\"] = count(); @calls[\"b\"] = count(); @calls[\"b\"] = count(); \
         @total = sum(7); @distribution = lquantize(2, 0, 4, 1); exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let per_cpu = |value: &str| -> String {
        online_cpus()
            .iter()
            .map(|cpu| {
                let value = if *cpu == 0 { value } else { "0" };
                format!("\n    [CPU {cpu}] {value:>16}")
            })
            .collect()
    };
    let histogram = |count: u32| {
        let (bar, count) = if count == 0 {
            (" ".repeat(40), 0)
        } else {
            ("@".repeat(40), count)
        };
        let empty = " ".repeat(40);
        format!(
            "\n           value  ------------- Distribution ------------- count    \n\
             \x20              1 |{empty} 0        \n\
             \x20              2 |{bar} {count:<9}\n\
             \x20              3 |{empty} 0        \n"
        )
    };
    let empty_histogram =
        "\n           value  ------------- Distribution ------------- count    \n\
         \x20            < 0 |                                         0        \n\
         \x20              0 |                                         0        \n\
         \x20              1 |                                         0        \n";
    let histograms: String = online_cpus()
        .iter()
        .map(|cpu| {
            let body = if *cpu == 0 {
                histogram(1)
            } else {
                empty_histogram.to_string()
            };
            format!("\n    [CPU {cpu}]{body}")
        })
        .collect();
    let expected = format!(
        "\n  {:<50} {:>16}{}\n  {:<50} {:>16}{}\n {:>16}{}\n{}{histograms}\n",
        "a",
        1,
        per_cpu("1"),
        "b",
        2,
        per_cpu("2"),
        7,
        per_cpu("7"),
        histogram(1),
    );
    assert_eq!(outcome.stdout, expected);
}

/// `(merged value, [(CPU, value)])` of every scalar entry of `-x aggpercpu` output.
fn per_cpu_entries(text: &str) -> Vec<(i64, Vec<(u32, i64)>)> {
    let mut entries: Vec<(i64, Vec<(u32, i64)>)> = Vec::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let value: i64 = line
            .split_whitespace()
            .last()
            .and_then(|word| word.parse().ok())
            .unwrap_or_else(|| panic!("no value in {line:?}"));
        match line.trim_start().strip_prefix("[CPU ") {
            Some(rest) => {
                let cpu = rest.split(']').next().unwrap().parse().unwrap();
                entries.last_mut().expect("an entry").1.push((cpu, value));
            }
            None => entries.push((value, Vec::new())),
        }
    }
    entries
}

#[test]
fn aggpercpu_parts_add_up_on_the_kernel_engine() {
    if DTRACE.must_skip() {
        return;
    }
    const CALLS: i64 = 50_000;
    let outcome = DTRACE.run_with_load(
        "percpu",
        TWO_PROCESS_GETPPID_LOAD,
        &CALLS.to_string(),
        &[
            "-q",
            "-x",
            "aggpercpu",
            "-n",
            "syscall::getppid:entry /progenyof($target)/ { \
             @calls = count(); @low = min(pid); @high = max(pid); @pids[pid] = count(); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let entries = per_cpu_entries(&outcome.stdout);
    let cpus = online_cpus().len();
    // @calls, @low, @high, then the two @pids entries.
    assert_eq!(entries.len(), 5, "{}", outcome.stdout);
    for (_, parts) in &entries {
        assert_eq!(parts.len(), cpus, "{}", outcome.stdout);
    }
    let (calls, parts) = &entries[0];
    assert_eq!(*calls, 2 * CALLS);
    assert_eq!(parts.iter().map(|(_, value)| value).sum::<i64>(), 2 * CALLS);
    // The @pids keys are printed after their values: take them from the key column.
    let pids: Vec<i64> = outcome
        .stdout
        .lines()
        .filter(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            words.len() == 2 && !line.trim_start().starts_with('[')
        })
        .map(|line| line.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{}", outcome.stdout);
    let (low, high) = (*pids.iter().min().unwrap(), *pids.iter().max().unwrap());
    // A CPU that never saw a process's calls must not make min() 0.
    assert_eq!(entries[1].0, low, "{}", outcome.stdout);
    assert_eq!(entries[2].0, high, "{}", outcome.stdout);
    for (count, parts) in &entries[3..] {
        assert_eq!(*count, CALLS);
        assert_eq!(parts.iter().map(|(_, value)| value).sum::<i64>(), CALLS);
    }
}

/// Runs `@[i++] = count()` over a million getppid() calls with `aggsize` and checks
/// that every key is printed once with the value 1 or counted as an aggregation drop;
/// returns the keys printed and the drops reported.
fn million_distinct_keys(aggsize: &str) -> (BTreeSet<u64>, u64) {
    const KEYS: u64 = 1_000_000;
    let started = Instant::now();
    let outcome = DTRACE.run_with_load(
        &format!("million-{aggsize}"),
        GETPPID_LOAD,
        &KEYS.to_string(),
        &[
            "-q",
            "-x",
            &format!("aggsize={aggsize}"),
            "-n",
            "syscall::getppid:entry /pid == $target/ { @[i++] = count(); }",
        ],
    );
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    let mut keys = BTreeSet::new();
    for line in outcome.stdout.lines().filter(|line| !line.is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.len(), 2, "{line:?}");
        let key: u64 = words[0].parse().expect("integer key");
        assert_eq!(words[1], "1", "key {key} counted more than once");
        assert!(key < KEYS, "key {key}");
        assert!(keys.insert(key), "key {key} printed twice");
    }
    let drops = aggregation_drops(&outcome.stderr);
    assert_eq!(
        keys.len() as u64 + drops,
        KEYS,
        "aggsize={aggsize}: {} keys printed + {drops} drops; stderr {:?}",
        keys.len(),
        outcome.stderr
    );
    println!("aggsize={aggsize}: {:?}", started.elapsed());
    (keys, drops)
}

// An entry of `@[i] = count()` costs 64 + 16 + 24 bytes: 100m holds 1,008,246 of them
// and 10m 100,824.

#[test]
fn a_million_distinct_keys_fit_in_a_large_aggsize() {
    if DTRACE.must_skip() {
        return;
    }
    let (keys, drops) = million_distinct_keys("100m");
    assert_eq!((keys.len(), drops), (1_000_000, 0));
}

#[test]
fn a_million_distinct_keys_beyond_aggsize_are_reported_as_drops() {
    if DTRACE.must_skip() {
        return;
    }
    let (keys, drops) = million_distinct_keys("10m");
    // A full map takes no new entries: the first keys are the ones kept.
    assert_eq!((keys.len(), drops), (100_824, 1_000_000 - 100_824));
    assert_eq!(keys.last(), Some(&(100_824 - 1)));
}

/// The non-zero rows of every `lquantize` histogram in `text`, as (bucket value, count),
/// one map per histogram in order.
fn histogram_rows(text: &str) -> Vec<BTreeMap<i64, u64>> {
    let mut histograms: Vec<BTreeMap<i64, u64>> = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("value") {
            histograms.push(BTreeMap::new());
            continue;
        }
        let Some((value, rest)) = line.split_once('|') else {
            continue;
        };
        let (Ok(value), Some(Ok(count))) = (
            value.trim().parse::<i64>(),
            rest.split_whitespace().last().map(str::parse::<u64>),
        ) else {
            continue;
        };
        if count > 0 {
            if let Some(histogram) = histograms.last_mut() {
                histogram.insert(value, count);
            }
        }
    }
    histograms
}

#[test]
fn lquantize_with_ten_thousand_levels_counts_every_value() {
    if DTRACE.must_skip() {
        return;
    }
    // 10,002 buckets need 80k per CPU and key, more than a kernel per-CPU value holds:
    // the histogram is kept in parts. tick-1ms fires on one CPU, so the values are
    // i * 7919 % 100000 for i from 0 to CALLS - 1 exactly; the run spans several
    // aggregation snapshots.
    const CALLS: i64 = 1500;
    let program = format!(
        "int i; tick-1ms {{ @h[i % 2] = lquantize(i * 7919 % 100000, 0, 100000, 10); i++; }}
         tick-1ms /i == {CALLS}/ {{ exit(0); }}"
    );
    let scratch = common::live::ScratchDirectory::new("lquantize-parts");
    let script = scratch.write("histogram.d", &program);
    let outcome = DTRACE.run(&["-q", "-s", &script.to_string_lossy()]);
    assert_eq!(outcome.status, Some(0), "stderr {:?}", outcome.stderr);
    let mut expected = vec![BTreeMap::new(), BTreeMap::new()];
    for i in 0..CALLS {
        let value = i * 7919 % 100_000;
        *expected[(i % 2) as usize]
            .entry(value / 10 * 10)
            .or_insert(0u64) += 1;
    }
    assert_eq!(histogram_rows(&outcome.stdout), expected);
}

/// `trunc(@, 2); printa(@);` prints the two entries kept, even though dtrace's own
/// system calls (made while it truncates) aggregate a third key before the printa(): as
/// dtrace(1) takes one snapshot per pass over the buffers, the printa() sees the data
/// the trunc() left. Three ticks, as the third key does not come back at every one.
#[test]
fn printa_after_trunc_prints_only_the_entries_kept() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "BEGIN { @[1] = sum(100000000); @[2] = sum(50000000); }
         syscall:::entry /pid == $pid/ { @[0] = sum(1); }
         tick-1s { printf(\"tick\\n\"); trunc(@, 2); printa(\"key %d\\n\", @); }
         tick-1s /++ticks == 3/ { exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(0), "{}", outcome.stderr);
    let keys: Vec<&str> = outcome
        .stdout
        .lines()
        .filter(|line| !line.is_empty())
        .collect();
    assert_eq!(
        keys,
        ["tick", "key 2", "key 1", "tick", "key 2", "key 1", "tick", "key 2", "key 1"],
        "stdout: {}",
        outcome.stdout
    );
}
