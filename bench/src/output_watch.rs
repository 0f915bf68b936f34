//! Watching a child's standard output or error on a thread of its own: counting lines
//! (all, those with a given word, and those carrying a number), noting when a word was
//! first seen, adding up the drops the tracer reports, and keeping the last lines for
//! failure messages.
//!
//! The harness reads tracer output as fast as it comes, so a tracer never slows down
//! because its pipe is full.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

/// What the watcher has seen so far.
#[derive(Debug, Clone, Default)]
pub struct WatchState {
    /// Lines seen.
    pub lines: u64,
    /// Per watched word, the lines that contain it.
    pub word_lines: Vec<u64>,
    /// Per watched word, when the first line containing it arrived.
    pub word_first_seen: Vec<Option<Instant>>,
    /// Per watched word, the first line containing it.
    pub word_first_line: Vec<Option<String>>,
    /// When the latest line arrived.
    pub last_line_at: Option<Instant>,
    /// Lost records the tool reported (`Lost N events`, `N drops on CPU C`).
    pub reported_drops: u64,
    /// Lines that look like one aggregation entry (`@[key]: 3`, or numbers only).
    pub aggregation_lines: u64,
    /// The last lines (as many as the watcher keeps).
    pub kept_lines: VecDeque<String>,
    /// The stream has ended.
    pub closed: bool,
}

/// A thread reading one stream.
pub struct StreamWatcher {
    state: Arc<Mutex<WatchState>>,
    thread: Option<JoinHandle<()>>,
}

/// Bytes read from the stream at a time.
const READ_CHUNK: usize = 64 * 1024;

impl StreamWatcher {
    /// Starts reading `stream`, counting lines containing each of `words` and keeping the
    /// last `keep` lines.
    pub fn start<R: Read + Send + 'static>(
        stream: R,
        words: &[&str],
        keep: usize,
    ) -> StreamWatcher {
        let state = Arc::new(Mutex::new(WatchState {
            word_lines: vec![0; words.len()],
            word_first_seen: vec![None; words.len()],
            word_first_line: vec![None; words.len()],
            ..WatchState::default()
        }));
        let words: Vec<String> = words.iter().map(|word| word.to_string()).collect();
        let shared = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name("output-watch".to_string())
            .spawn(move || read_stream(stream, &words, keep, &shared))
            .ok();
        StreamWatcher { state, thread }
    }

    /// A copy of what has been seen so far.
    pub fn snapshot(&self) -> WatchState {
        lock(&self.state).clone()
    }

    /// Lines containing watched word number `word` so far.
    pub fn word_lines(&self, word: usize) -> u64 {
        lock(&self.state).word_lines.get(word).copied().unwrap_or(0)
    }

    /// When watched word number `word` was first seen, and the line it was seen in.
    pub fn word_first_seen(&self, word: usize) -> Option<(Instant, String)> {
        let state = lock(&self.state);
        let seen = state.word_first_seen.get(word).copied().flatten()?;
        let line = state.word_first_line.get(word).cloned().flatten()?;
        Some((seen, line))
    }

    /// Waits (up to `deadline`) for the stream to end, so that the counts are final.
    pub fn wait_closed(&mut self, deadline: Instant) -> bool {
        while Instant::now() < deadline {
            if lock(&self.state).closed {
                if let Some(thread) = self.thread.take() {
                    let _ = thread.join();
                }
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        false
    }

    /// The kept lines joined, for messages.
    pub fn kept_text(&self) -> String {
        let state = lock(&self.state);
        state
            .kept_lines
            .iter()
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Locks the state, recovering it if a watcher thread panicked while holding it (the
/// counts are plain numbers and stay meaningful).
fn lock(state: &Mutex<WatchState>) -> MutexGuard<'_, WatchState> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn read_stream<R: Read>(mut stream: R, words: &[String], keep: usize, state: &Mutex<WatchState>) {
    let mut buffer = vec![0u8; READ_CHUNK];
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let count = match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(count) => count,
        };
        let arrived = Instant::now();
        let mut update = ChunkCounts::new(words.len());
        let mut chunk = &buffer[..count];
        while let Some(newline) = chunk.iter().position(|&byte| byte == b'\n') {
            partial.extend_from_slice(&chunk[..newline]);
            let line = String::from_utf8_lossy(&partial);
            update.add_line(&line, words, keep);
            partial.clear();
            chunk = &chunk[newline + 1..];
        }
        partial.extend_from_slice(chunk);
        update.apply(&mut lock(state), arrived, keep);
    }
    let mut final_update = ChunkCounts::new(words.len());
    if !partial.is_empty() {
        let line = String::from_utf8_lossy(&partial).into_owned();
        final_update.add_line(&line, words, keep);
    }
    let mut state = lock(state);
    final_update.apply(&mut state, Instant::now(), keep);
    state.closed = true;
}

/// Counts gathered over one chunk, applied to the shared state under one lock.
struct ChunkCounts {
    lines: u64,
    word_lines: Vec<u64>,
    word_first_line: Vec<Option<String>>,
    aggregation_lines: u64,
    reported_drops: u64,
    kept_lines: Vec<String>,
}

impl ChunkCounts {
    fn new(words: usize) -> ChunkCounts {
        ChunkCounts {
            lines: 0,
            word_lines: vec![0; words],
            word_first_line: vec![None; words],
            aggregation_lines: 0,
            reported_drops: 0,
            kept_lines: Vec::new(),
        }
    }

    fn add_line(&mut self, line: &str, words: &[String], keep: usize) {
        self.lines += 1;
        let mut watched = false;
        for (index, word) in words.iter().enumerate() {
            if line.contains(word.as_str()) {
                self.word_lines[index] += 1;
                self.word_first_line[index].get_or_insert_with(|| line.to_string());
                watched = true;
            }
        }
        if !watched && is_aggregation_entry(line) {
            self.aggregation_lines += 1;
        }
        self.reported_drops += reported_drops(line).unwrap_or(0);
        if keep > 0 {
            if self.kept_lines.len() == keep {
                self.kept_lines.remove(0);
            }
            self.kept_lines.push(line.to_string());
        }
    }

    fn apply(self, state: &mut WatchState, arrived: Instant, keep: usize) {
        if self.lines == 0 {
            return;
        }
        state.lines += self.lines;
        state.aggregation_lines += self.aggregation_lines;
        state.reported_drops += self.reported_drops;
        state.last_line_at = Some(arrived);
        for (index, (count, first_line)) in self
            .word_lines
            .into_iter()
            .zip(self.word_first_line)
            .enumerate()
        {
            if count > 0 {
                state.word_lines[index] += count;
                state.word_first_seen[index].get_or_insert(arrived);
                if state.word_first_line[index].is_none() {
                    state.word_first_line[index] = first_line;
                }
            }
        }
        for line in self.kept_lines {
            if state.kept_lines.len() == keep {
                state.kept_lines.pop_front();
            }
            state.kept_lines.push_back(line);
        }
    }
}

/// Whether `line` is one entry of a printed aggregation: bpftrace's `@[key]: value` or
/// dtrace's columns of numbers (`  1073741824        1`).
pub fn is_aggregation_entry(line: &str) -> bool {
    let trimmed = line.trim();
    if trimmed.starts_with('@') {
        return trimmed.contains("]: ");
    }
    let mut fields = trimmed.split_whitespace();
    let mut count = 0;
    let all_numbers = fields.all(|field| {
        count += 1;
        field.parse::<i64>().is_ok()
    });
    all_numbers && count >= 2
}

/// The records a tracer's message says it lost: bpftrace's `Lost 12 events` and dtrace's
/// `dtrace: 12 drops on CPU 0` (also `aggregation drops`, `dynamic variable drops`).
pub fn reported_drops(line: &str) -> Option<u64> {
    if let Some(rest) = line.trim_start().strip_prefix("Lost ") {
        let (number, tail) = rest.split_once(' ')?;
        if tail.starts_with("event") {
            return number.parse().ok();
        }
        return None;
    }
    let text = line.trim_start().strip_prefix("dtrace: ")?;
    let (number, tail) = text.split_once(' ')?;
    let count: u64 = number.parse().ok()?;
    let kind = tail.split(" on CPU").next()?.split(" with ").next()?;
    if kind.ends_with("drop") || kind.ends_with("drops") {
        Some(count)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn drop_messages_parse() {
        for (line, expected) in [
            ("Lost 1234 events", Some(1234)),
            ("Lost 1 event", Some(1)),
            ("Lost many events", None),
            ("dtrace: 5 drops on CPU 1", Some(5)),
            ("dtrace: 1 drop on CPU 0", Some(1)),
            ("dtrace: 7 aggregation drops on CPU 0", Some(7)),
            (
                "dtrace: 3 dynamic variable drops with non-empty dirty list",
                Some(3),
            ),
            ("dtrace: description 'BEGIN' matched 1 probe", None),
            ("@[foo]: 3", None),
        ] {
            assert_eq!(reported_drops(line), expected, "{line:?}");
        }
    }

    #[test]
    fn aggregation_entries_are_recognised() {
        for (line, expected) in [
            ("@[1073741824]: 1", true),
            ("@[tracepoint:syscalls:sys_enter_read]: 12", true),
            ("  1073741824                1", true),
            ("", false),
            ("Attaching 2 probes...", false),
            ("12", false),
            ("  getppid      12", false),
        ] {
            assert_eq!(is_aggregation_entry(line), expected, "{line:?}");
        }
    }

    #[test]
    fn lines_are_counted_and_classified() {
        let text = "Attaching 2 probes...\nbench-live\n@[1073741824]: 1\n\nLost 3 events\ngetppid 1\ngetppid 2";
        let mut watcher = StreamWatcher::start(
            std::io::Cursor::new(text.as_bytes().to_vec()),
            &["bench-live", "getppid"],
            2,
        );
        assert!(watcher.wait_closed(Instant::now() + Duration::from_secs(5)));
        let state = watcher.snapshot();
        assert_eq!(state.lines, 7);
        assert_eq!(state.word_lines, [1, 2]);
        assert!(state.word_first_seen.iter().all(Option::is_some));
        assert_eq!(
            watcher.word_first_seen(1).map(|(_, line)| line).as_deref(),
            Some("getppid 1")
        );
        assert_eq!(state.aggregation_lines, 1);
        assert_eq!(state.reported_drops, 3);
        assert_eq!(watcher.kept_text(), "getppid 1\ngetppid 2");
    }
}
