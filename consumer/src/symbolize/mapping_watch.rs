//! Keeping the mapping snapshot of a target process (`-c`/`-p`) fresh while it runs.
//!
//! Aggregations are printed at the end, usually after a `-c` command has exited, and
//! a process's mappings can no longer be read once it has. Records in the principal
//! buffer are formatted as they are consumed, while their process usually lives, but an
//! aggregation keyed by `ustack()` is only looked at when printed. So a helper thread
//! rereads the target's `/proc/PID/maps` while the target runs: every millisecond
//! while the mappings keep changing (program start, library loading), backing off to
//! [`SLOWEST_INTERVAL`] while they stay the same, and never spending more than a tenth
//! of its time reading (a process with a huge map list is read less often).

use std::fs;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::user::MappingStore;

/// The pause between reads while the mappings change.
const FASTEST_INTERVAL: Duration = Duration::from_millis(1);

/// The longest pause between reads of mappings that stay the same.
const SLOWEST_INTERVAL: Duration = Duration::from_millis(64);

/// The pause after a read is at least this many times as long as the read took.
const READ_COST_FACTOR: u32 = 10;

/// A running watch of one process; dropping it stops the helper thread.
pub struct MappingWatch {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl MappingWatch {
    /// Starts watching process `pid`, recording its mappings into `store` until it
    /// exits or the watch is dropped. Fails only when no thread can be started.
    ///
    /// A process that already runs its own program (a `-c` command held at its entry
    /// point, a grabbed process) has its mappings read here first: once released, a
    /// short command may be gone before the thread's first read.
    pub fn start(pid: u64, store: Arc<Mutex<MappingStore>>) -> std::io::Result<MappingWatch> {
        if !runs_dtrace_image(pid) {
            store
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .capture(pid);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = stop.clone();
        let thread = with_signals_blocked(|| {
            std::thread::Builder::new()
                .name(format!("dtrace-maps-{pid}"))
                .spawn(move || watch_mappings(pid, &store, &thread_stop))
        })?;
        Ok(MappingWatch {
            stop,
            thread: Some(thread),
        })
    }
}

/// Runs `spawn` with every signal blocked in the calling thread, so that the thread it
/// starts inherits a mask that blocks them all. SIGINT and SIGTERM must reach the main
/// thread: their arrival is what cuts its wait for trace data short.
fn with_signals_blocked<T>(spawn: impl FnOnce() -> T) -> T {
    // SAFETY: the sigset_t values are initialised by sigfillset/pthread_sigmask before
    // use, and changing the calling thread's own mask has no other preconditions.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut previous: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut previous);
        let spawned = spawn();
        libc::pthread_sigmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut());
        spawned
    }
}

impl Drop for MappingWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

/// Whether process `pid` is a `-c` child that has not yet exec'd its command (it still
/// runs dtrace's own executable).
fn runs_dtrace_image(pid: u64) -> bool {
    let own_executable = fs::read_link("/proc/self/exe").ok();
    own_executable.is_some() && fs::read_link(format!("/proc/{pid}/exe")).ok() == own_executable
}

/// Whether process `pid` is stopped under ptrace (state `t`): a `-c` command held at
/// its entry point until tracing starts.
fn is_held(pid: u64) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            == Some('t')
    })
}

/// The helper thread's loop: read the mappings, record them when they changed, pause.
fn watch_mappings(pid: u64, store: &Mutex<MappingStore>, stop: &AtomicBool) {
    let maps_path = format!("/proc/{pid}/maps");
    let mut previous = String::new();
    let mut interval = FASTEST_INTERVAL;
    while !stop.load(Ordering::Relaxed) {
        // A `-c` child held before `exec` still runs dtrace's own image. Its mappings
        // are of no interest, and once released it may run for only a few milliseconds,
        // so until it has exec'd only the (cheaper) executable link is watched, at the
        // fastest pace.
        // Likewise while a child is held at its entry point (stopped under ptrace
        // until tracing starts): its mappings cannot change, and once released it
        // may load a library and exit within milliseconds.
        if runs_dtrace_image(pid) || is_held(pid) {
            interval = FASTEST_INTERVAL;
            std::thread::park_timeout(FASTEST_INTERVAL);
            continue;
        }
        let started = Instant::now();
        // A process that is gone has no maps file; a zombie has an empty one.
        let text = match fs::read_to_string(&maps_path) {
            Ok(text) if !text.is_empty() => text,
            _ => return,
        };
        if text == previous {
            interval = (interval * 2).min(SLOWEST_INTERVAL);
        } else {
            store
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .record_live(pid, &text);
            previous = text;
            interval = FASTEST_INTERVAL;
        }
        std::thread::park_timeout(interval.max(started.elapsed() * READ_COST_FACTOR));
    }
}
