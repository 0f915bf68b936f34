//! The syscall load the benchmarks trace: exactly N `getppid()` calls (or N keyed
//! `close()` calls) on one or more threads, optionally paced to a rate, timed per call.
//!
//! The calls go through `libc::syscall` so that no C library can answer them from a cache;
//! every call enters the kernel and passes the syscall entry tracepoints.

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// The first file descriptor number of keyed calls. Keyed calls are `close(KEY_BASE + i)`:
/// no process has a descriptor table this large, so each call fails at once with EBADF
/// and closes nothing, while the tracers see `i` as a distinct syscall argument.
pub const KEY_BASE: u64 = 1 << 30;

/// Calls made between two looks at the clock when the load is paced.
const PACING_BATCH: u64 = 32;

/// What one load run does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadRequest {
    /// Syscalls in total, over all threads.
    pub calls: u64,
    /// Threads making them; the calls are split evenly.
    pub threads: u32,
    /// Calls per second over all threads; `None` runs as fast as possible (a storm).
    pub rate_per_second: Option<u64>,
    /// `close(KEY_BASE + i)` with a distinct `i` per call instead of `getppid()`.
    pub keyed: bool,
    /// Pin thread `t` to CPU `(first_cpu + t) % cpus`; `None` leaves placement to the
    /// scheduler.
    pub first_cpu: Option<usize>,
}

impl Default for LoadRequest {
    fn default() -> Self {
        LoadRequest {
            calls: 1_000_000,
            threads: 1,
            rate_per_second: None,
            keyed: false,
            first_cpu: None,
        }
    }
}

/// What one load run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadResult {
    /// Syscalls made, over all threads.
    pub calls: u64,
    /// Threads that made them.
    pub threads: u32,
    /// Wall time from the common start of the threads to the end of the last one.
    pub elapsed_ns: u64,
    /// Mean over the threads of each thread's time per call.
    pub ns_per_call: f64,
}

impl LoadRequest {
    /// Parses the load generator's arguments (`--calls N --threads T --rate R --keyed
    /// --cpu K`); returns the request and whether `--serve` was given.
    pub fn parse_arguments<S: AsRef<str>>(arguments: &[S]) -> Result<(LoadRequest, bool), String> {
        let mut request = LoadRequest::default();
        let mut serve = false;
        let mut index = 0;
        while index < arguments.len() {
            let argument = arguments[index].as_ref();
            let mut value = |name: &str| -> Result<u64, String> {
                index += 1;
                let text = arguments
                    .get(index)
                    .map(|text| text.as_ref())
                    .ok_or_else(|| format!("{name} needs a value"))?;
                parse_count(text).ok_or_else(|| format!("{name}: not a number: {text}"))
            };
            match argument {
                "--calls" => request.calls = value("--calls")?,
                "--threads" => {
                    let threads = value("--threads")?;
                    if threads == 0 || threads > 1024 {
                        return Err(format!("--threads must be 1 to 1024, not {threads}"));
                    }
                    request.threads = threads as u32;
                }
                "--rate" => {
                    let rate = value("--rate")?;
                    request.rate_per_second = if rate == 0 { None } else { Some(rate) };
                }
                "--cpu" => request.first_cpu = Some(value("--cpu")? as usize),
                "--keyed" => request.keyed = true,
                "--serve" => serve = true,
                other => return Err(format!("unknown argument: {other}")),
            }
            index += 1;
        }
        Ok((request, serve))
    }

    /// The arguments that `parse_arguments` turns back into this request.
    pub fn to_arguments(&self) -> Vec<String> {
        let mut arguments = vec![
            "--calls".to_string(),
            self.calls.to_string(),
            "--threads".to_string(),
            self.threads.to_string(),
        ];
        if let Some(rate) = self.rate_per_second {
            arguments.extend(["--rate".to_string(), rate.to_string()]);
        }
        if let Some(cpu) = self.first_cpu {
            arguments.extend(["--cpu".to_string(), cpu.to_string()]);
        }
        if self.keyed {
            arguments.push("--keyed".to_string());
        }
        arguments
    }
}

/// Parses a count, allowing `_` separators and the suffixes `k` and `m` (1,000 and
/// 1,000,000), so that `1m` and `1_000_000` both work on the command line.
pub fn parse_count(text: &str) -> Option<u64> {
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    let lower = cleaned.to_ascii_lowercase();
    let (digits, multiplier) = if let Some(digits) = lower.strip_suffix('m') {
        (digits, 1_000_000)
    } else if let Some(digits) = lower.strip_suffix('k') {
        (digits, 1_000)
    } else {
        (lower.as_str(), 1)
    };
    digits.parse::<u64>().ok()?.checked_mul(multiplier)
}

impl LoadResult {
    /// The one line the load generator prints per run, e.g.
    /// `calls=1000000 threads=1 elapsed_ns=81234567 ns_per_call=81.23`.
    pub fn to_line(&self) -> String {
        format!(
            "calls={} threads={} elapsed_ns={} ns_per_call={:.2}",
            self.calls, self.threads, self.elapsed_ns, self.ns_per_call
        )
    }

    /// Parses a line made by `to_line`.
    pub fn parse_line(line: &str) -> Result<LoadResult, String> {
        let mut calls = None;
        let mut threads = None;
        let mut elapsed_ns = None;
        let mut ns_per_call = None;
        for field in line.split_whitespace() {
            let (name, value) = field
                .split_once('=')
                .ok_or_else(|| format!("malformed load result field '{field}'"))?;
            let bad = || format!("malformed load result value '{field}'");
            match name {
                "calls" => calls = Some(value.parse::<u64>().map_err(|_| bad())?),
                "threads" => threads = Some(value.parse::<u32>().map_err(|_| bad())?),
                "elapsed_ns" => elapsed_ns = Some(value.parse::<u64>().map_err(|_| bad())?),
                "ns_per_call" => ns_per_call = Some(value.parse::<f64>().map_err(|_| bad())?),
                _ => return Err(format!("unknown load result field '{name}'")),
            }
        }
        match (calls, threads, elapsed_ns, ns_per_call) {
            (Some(calls), Some(threads), Some(elapsed_ns), Some(ns_per_call)) => Ok(LoadResult {
                calls,
                threads,
                elapsed_ns,
                ns_per_call,
            }),
            _ => Err(format!("incomplete load result line '{line}'")),
        }
    }

    /// Calls per second over the whole run.
    pub fn calls_per_second(&self) -> f64 {
        if self.elapsed_ns == 0 {
            return 0.0;
        }
        self.calls as f64 * 1e9 / self.elapsed_ns as f64
    }
}

/// The calls thread `thread` of `threads` makes out of `calls`: an even split, with the
/// remainder going to the first threads.
pub fn calls_of_thread(calls: u64, threads: u32, thread: u32) -> u64 {
    let threads = threads.max(1) as u64;
    let thread = thread as u64;
    calls / threads + u64::from(thread < calls % threads)
}

/// Runs the load and measures it.
pub fn run_load(request: &LoadRequest) -> Result<LoadResult, String> {
    let threads = request.threads.max(1);
    let cpus = online_cpus();
    let start_line = Arc::new(Barrier::new(threads as usize));
    let mut handles = Vec::with_capacity(threads as usize);
    for thread in 0..threads {
        let calls = calls_of_thread(request.calls, threads, thread);
        let per_thread_rate = request
            .rate_per_second
            .map(|rate| (rate / threads as u64).max(1));
        let cpu = request
            .first_cpu
            .map(|first| (first + thread as usize) % cpus);
        let keyed = request.keyed;
        let start_line = Arc::clone(&start_line);
        // The threads are left unnamed so that they keep the program's name, which the
        // tracers show as `execname` and `comm`.
        let handle = std::thread::Builder::new()
            .spawn(move || {
                if let Some(cpu) = cpu {
                    pin_current_thread(cpu)?;
                }
                start_line.wait();
                let started = Instant::now();
                let plan = ThreadPlan {
                    calls,
                    first_key: thread as u64,
                    key_stride: threads as u64,
                    keyed,
                    rate_per_second: per_thread_rate,
                };
                plan.run(started);
                Ok::<(Instant, Instant, u64), String>((started, Instant::now(), calls))
            })
            .map_err(|error| format!("cannot start a load thread: {error}"))?;
        handles.push(handle);
    }
    let mut earliest_start: Option<Instant> = None;
    let mut latest_end: Option<Instant> = None;
    let mut per_call_sum = 0.0;
    for handle in handles {
        let (started, ended, calls) = handle
            .join()
            .map_err(|_| "a load thread panicked".to_string())??;
        earliest_start = Some(earliest_start.map_or(started, |earliest| earliest.min(started)));
        latest_end = Some(latest_end.map_or(ended, |latest| latest.max(ended)));
        if calls > 0 {
            per_call_sum += (ended - started).as_nanos() as f64 / calls as f64;
        }
    }
    let elapsed = match (earliest_start, latest_end) {
        (Some(start), Some(end)) => end.saturating_duration_since(start),
        _ => Duration::ZERO,
    };
    Ok(LoadResult {
        calls: request.calls,
        threads,
        elapsed_ns: elapsed.as_nanos().min(u64::MAX as u128) as u64,
        ns_per_call: per_call_sum / threads as f64,
    })
}

/// The calls one thread makes.
struct ThreadPlan {
    calls: u64,
    first_key: u64,
    key_stride: u64,
    keyed: bool,
    rate_per_second: Option<u64>,
}

impl ThreadPlan {
    fn run(&self, started: Instant) {
        let mut done = 0u64;
        while done < self.calls {
            let batch = match self.rate_per_second {
                Some(_) => PACING_BATCH.min(self.calls - done),
                None => self.calls - done,
            };
            for call in done..done + batch {
                if self.keyed {
                    keyed_call(KEY_BASE + self.first_key + call * self.key_stride);
                } else {
                    plain_call();
                }
            }
            done += batch;
            if let Some(rate) = self.rate_per_second {
                wait_for_schedule(started, done, rate);
            }
        }
    }
}

/// Waits until `done` calls are due at `rate` calls per second since `started`. Sleeps
/// when far ahead (so a paced load leaves the CPU to the tracer) and spins when close.
fn wait_for_schedule(started: Instant, done: u64, rate: u64) {
    let due = Duration::from_nanos(((done as u128 * 1_000_000_000) / rate as u128) as u64);
    loop {
        let now = started.elapsed();
        if now >= due {
            return;
        }
        let ahead = due - now;
        if ahead > Duration::from_micros(200) {
            std::thread::sleep(ahead - Duration::from_micros(100));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// One `getppid()`; the argument is passed as 0 so the register the tracers could read
/// as `arg0` holds a known value.
fn plain_call() {
    // SAFETY: getppid takes no arguments, cannot fail and touches no memory of ours.
    unsafe {
        libc::syscall(libc::SYS_getppid, 0 as libc::c_long);
    }
}

/// One `close(key)` on a descriptor number no process has: it fails with EBADF.
fn keyed_call(key: u64) {
    // SAFETY: close on a descriptor beyond any descriptor table fails without effect.
    unsafe {
        libc::syscall(libc::SYS_close, key as libc::c_long);
    }
}

/// CPUs this process may run on (at least 1). Read from the affinity mask rather than
/// sysconf, which opens a file under /sys: the close of that file would show up as one
/// more key in the keyed aggregation.
pub fn online_cpus() -> usize {
    // SAFETY: the set is a plain bit mask on our stack, sized as the call is told.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return 1;
        }
        (libc::CPU_COUNT(&set) as usize).max(1)
    }
}

fn pin_current_thread(cpu: usize) -> Result<(), String> {
    // SAFETY: the set is a plain bit mask on our stack, sized as the call is told.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(format!(
                "cannot pin a load thread to CPU {cpu}: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_arguments(arguments: &[&str], expected: Result<(LoadRequest, bool), &str>) {
        let parsed = LoadRequest::parse_arguments(arguments);
        assert_eq!(parsed, expected.map_err(str::to_string), "{arguments:?}");
    }

    #[test]
    fn arguments_parse() {
        check_arguments(&[], Ok((LoadRequest::default(), false)));
        check_arguments(
            &[
                "--calls",
                "2m",
                "--threads",
                "2",
                "--rate",
                "50k",
                "--keyed",
                "--cpu",
                "1",
                "--serve",
            ],
            Ok((
                LoadRequest {
                    calls: 2_000_000,
                    threads: 2,
                    rate_per_second: Some(50_000),
                    keyed: true,
                    first_cpu: Some(1),
                },
                true,
            )),
        );
        check_arguments(&["--calls"], Err("--calls needs a value"));
        check_arguments(&["--calls", "x"], Err("--calls: not a number: x"));
        check_arguments(
            &["--threads", "0"],
            Err("--threads must be 1 to 1024, not 0"),
        );
        check_arguments(&["--bogus"], Err("unknown argument: --bogus"));
    }

    #[test]
    fn arguments_round_trip() {
        let request = LoadRequest {
            calls: 12345,
            threads: 2,
            rate_per_second: Some(1000),
            keyed: true,
            first_cpu: Some(0),
        };
        let arguments = request.to_arguments();
        assert_eq!(
            LoadRequest::parse_arguments(&arguments),
            Ok((request, false))
        );
    }

    #[test]
    fn counts_parse() {
        for (text, expected) in [
            ("10", Some(10)),
            ("1_000_000", Some(1_000_000)),
            ("3k", Some(3_000)),
            ("1M", Some(1_000_000)),
            ("", None),
            ("k", None),
            ("-1", None),
        ] {
            assert_eq!(parse_count(text), expected, "{text:?}");
        }
    }

    #[test]
    fn result_lines_round_trip() {
        let result = LoadResult {
            calls: 1_000_000,
            threads: 2,
            elapsed_ns: 81_234_567,
            ns_per_call: 81.25,
        };
        let line = result.to_line();
        assert_eq!(
            line,
            "calls=1000000 threads=2 elapsed_ns=81234567 ns_per_call=81.25"
        );
        assert_eq!(LoadResult::parse_line(&line), Ok(result));
        assert!(LoadResult::parse_line("calls=1").is_err());
        assert!(LoadResult::parse_line("calls=x threads=1 elapsed_ns=1 ns_per_call=1").is_err());
    }

    #[test]
    fn calls_split_evenly() {
        assert_eq!(
            (0..3)
                .map(|t| calls_of_thread(10, 3, t))
                .collect::<Vec<_>>(),
            [4, 3, 3]
        );
        assert_eq!(calls_of_thread(5, 1, 0), 5);
    }

    #[test]
    fn a_small_load_runs() {
        let result = run_load(&LoadRequest {
            calls: 2_000,
            threads: 2,
            rate_per_second: None,
            keyed: true,
            first_cpu: None,
        })
        .expect("load runs");
        assert_eq!(result.calls, 2_000);
        assert!(result.ns_per_call > 0.0);
    }
}
