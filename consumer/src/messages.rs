//! The consumer's messages: the one [`MessageSink`] every diagnostic and notice of a
//! run passes through (errors, warnings, notices, drop and fault reports, and the texts
//! dtrace(1) prints on standard output for `-V`, `-v` and `-l`), and the texts of the
//! runtime messages (§12.9): drop reports and the classic runtime error message printed
//! by the default ERROR handler. Texts are built without the `dtrace: ` program prefix
//! and without the final newline; [`MessageSink::message`] adds both.

use std::cell::RefCell;
use std::io::Write;

use difvm::object::{FaultCode, ProbeDescription};

use crate::record::RecordValue;

/// Where a run's diagnostics and notices go. Every method writes after what was already
/// written to standard output, so that a message follows the output it is about (the
/// session flushes its own output, which may be a file, before it reports).
pub trait MessageSink {
    /// `dtrace: MESSAGE` and a newline on the diagnostic stream.
    fn message(&self, message: &str);
    /// `text` as it is on the diagnostic stream: texts that carry their own prefixes
    /// and newlines (the compiler's error messages, the `-S` DIF listing, cpp's
    /// diagnostics).
    fn diagnostic_text(&self, text: &str);
    /// `text` as it is on standard output: the texts dtrace(1) prints there besides the
    /// trace output (the `-V` banner, the `-v` stability reports, the `-l` listing).
    fn report(&self, text: &str);
}

/// The process's standard error (and standard output for reports), as dtrace(1)
/// writes its messages.
#[derive(Debug, Clone, Copy, Default)]
pub struct StandardStreams;

impl MessageSink for StandardStreams {
    fn message(&self, message: &str) {
        // Standard output is flushed first, so that on a terminal (or one file taking
        // both streams) the message comes after the output it follows.
        let _ = std::io::stdout().flush();
        eprintln!("dtrace: {message}");
    }

    fn diagnostic_text(&self, text: &str) {
        let _ = std::io::stdout().flush();
        eprint!("{text}");
    }

    fn report(&self, text: &str) {
        // A reader that went away (`dtrace -l | head`) is no reason to panic; what
        // follows is simply not read.
        let _ = std::io::stdout().write_all(text.as_bytes());
    }
}

/// A sink that keeps what it is given, for tests: the diagnostic stream and standard
/// output as two texts.
#[derive(Debug, Default)]
pub struct CapturedMessages {
    diagnostics: RefCell<String>,
    reports: RefCell<String>,
}

impl CapturedMessages {
    pub fn new() -> CapturedMessages {
        CapturedMessages::default()
    }

    /// Everything written to the diagnostic stream so far.
    pub fn diagnostics(&self) -> String {
        self.diagnostics.borrow().clone()
    }

    /// Everything written to standard output so far.
    pub fn reports(&self) -> String {
        self.reports.borrow().clone()
    }
}

impl MessageSink for CapturedMessages {
    fn message(&self, message: &str) {
        self.diagnostic_text(&format!("dtrace: {message}\n"));
    }

    fn diagnostic_text(&self, text: &str) {
        self.diagnostics.borrow_mut().push_str(text);
    }

    fn report(&self, text: &str) {
        self.reports.borrow_mut().push_str(text);
    }
}

/// The kinds of drops DTrace reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropKind {
    /// Principal buffer full (per CPU).
    Principal,
    /// Aggregation buffer full (per CPU).
    Aggregation,
    Dynamic,
    DynamicRinsing,
    DynamicDirty,
    Speculative,
    SpeculationBusy,
    SpeculationUnavailable,
    StackStringOverflow,
    DoubleError,
}

impl DropKind {
    /// The tag `-x droptags` prints, e.g. `DTRACEDROP_PRINCIPAL`.
    pub fn tag(self) -> &'static str {
        match self {
            DropKind::Principal => "DTRACEDROP_PRINCIPAL",
            DropKind::Aggregation => "DTRACEDROP_AGGREGATION",
            DropKind::Dynamic => "DTRACEDROP_DYNAMIC",
            DropKind::DynamicRinsing => "DTRACEDROP_DYNRINSE",
            DropKind::DynamicDirty => "DTRACEDROP_DYNDIRTY",
            DropKind::Speculative => "DTRACEDROP_SPEC",
            DropKind::SpeculationBusy => "DTRACEDROP_SPECBUSY",
            DropKind::SpeculationUnavailable => "DTRACEDROP_SPECUNAVAIL",
            DropKind::StackStringOverflow => "DTRACEDROP_STKSTROVERFLOW",
            DropKind::DoubleError => "DTRACEDROP_DBLERROR",
        }
    }

    /// The noun that takes the plural `s`, and the text after it.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            DropKind::Principal => ("drop", ""),
            DropKind::Aggregation => ("aggregation drop", ""),
            DropKind::Dynamic => ("dynamic variable drop", ""),
            DropKind::DynamicRinsing => ("dynamic variable drop", " with non-empty rinsing list"),
            DropKind::DynamicDirty => ("dynamic variable drop", " with non-empty dirty list"),
            DropKind::Speculative => ("speculative drop", ""),
            DropKind::SpeculationBusy => {
                ("failed speculation", " (available buffer(s) still busy)")
            }
            DropKind::SpeculationUnavailable => {
                ("failed speculation", " (no speculative buffer available)")
            }
            DropKind::StackStringOverflow => ("jstack()/ustack() string table overflow", ""),
            DropKind::DoubleError => ("error", " in ERROR probe enabling"),
        }
    }
}

/// The text of a drop report: `5 drops on CPU 1`, `1 aggregation drop on CPU 0`,
/// `3 speculative drops`, … (`cpu` is used by the per-CPU kinds, principal and
/// aggregation). With `droptags` the text starts with `[DTRACEDROP_…] `.
pub fn drop_message(kind: DropKind, count: u64, cpu: u32, droptags: bool) -> String {
    let (noun, rest) = kind.words();
    let plural = if count > 1 { "s" } else { "" };
    let tag = if droptags {
        format!("[{}] ", kind.tag())
    } else {
        String::new()
    };
    match kind {
        DropKind::Principal | DropKind::Aggregation => {
            format!("{}{} {}{} on CPU {}", tag, count, noun, plural, cpu)
        }
        _ => format!("{}{} {}{}{}", tag, count, noun, plural, rest),
    }
}

/// A runtime fault, as the default ERROR handler's record reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeFault {
    /// The faulting enabled probe.
    pub epid: u32,
    /// Its probe id and description.
    pub probe_id: u32,
    pub probe: ProbeDescription,
    /// 0 for the predicate, N for the N-th action.
    pub action: i64,
    /// DIF offset of the faulting instruction, or -1 when unknown.
    pub dif_offset: i64,
    pub fault: FaultCode,
    /// The faulting address or value.
    pub address: u64,
}

impl RuntimeFault {
    /// Reads the default ERROR handler's record (`arg1`…`arg5`: EPID, action index, DIF
    /// offset, fault code, address), looking the faulting EPID up with `probe_of`
    /// (EPID → probe id and description). None when the record does not have that
    /// shape or the EPID is unknown.
    pub fn from_error_record(
        values: &[RecordValue<'_>],
        probe_of: impl Fn(u32) -> Option<(u32, ProbeDescription)>,
    ) -> Option<RuntimeFault> {
        let [epid, action, offset, fault, address] = values else {
            return None;
        };
        let epid = epid.as_i64()? as u32;
        let (probe_id, probe) = probe_of(epid)?;
        Some(RuntimeFault {
            epid,
            probe_id,
            probe,
            action: i64::from(action.as_i64()? as i32),
            dif_offset: i64::from(offset.as_i64()? as i32),
            fault: FaultCode::from_u32(fault.as_i64()? as u32),
            address: address.as_i64()? as u64,
        })
    }

    /// The classic message: `error on enabled probe ID 1 (ID 1: dtrace:::BEGIN):
    /// invalid address (0x0) in action #1 at DIF offset 28`.
    pub fn message(&self) -> String {
        let details = if self.fault.reports_address() {
            format!(" (0x{:x})", self.address)
        } else {
            String::new()
        };
        let location = if self.action == 0 {
            "predicate".to_string()
        } else {
            format!("action #{}", self.action)
        };
        let offset = if self.dif_offset == -1 {
            String::new()
        } else {
            format!(" at DIF offset {}", self.dif_offset)
        };
        format!(
            "error on enabled probe ID {} (ID {}: {}): {}{} in {}{}",
            self.epid,
            self.probe_id,
            self.probe,
            self.fault.message(),
            details,
            location,
            offset
        )
    }
}

/// The classic message of a library-level error (a failed `setopt()` or `freopen()`):
/// `error on enabled probe ID %u (ID %u: %s:%s:%s:%s): %s`.
pub fn library_error_message(
    epid: u32,
    probe_id: u32,
    probe: &ProbeDescription,
    message: &str,
) -> String {
    format!(
        "error on enabled probe ID {} (ID {}: {}): {}",
        epid, probe_id, probe, message
    )
}

/// The strerror text of an I/O error, without Rust's ` (os error N)` suffix, as
/// dtrace(1) prints it in its messages (e.g. `No such file or directory`).
pub fn describe_io_error(error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(errno) => kernel_shim::sys::errno_description(errno),
        None => error.to_string(),
    }
}
