//! The default per-firing output (§12.6, §12.7): the `CPU ID FUNCTION:NAME` header, the
//! record prefix (or its flowindent form), the formats of `trace()` data (Linux 2.x
//! integer widths with signedness), strings, the hex dump of bytes and `tracemem()`,
//! `print()` (through [`crate::render::print_layout`]),
//! stacks and symbols, `printf()` output, and the newline that ends a record in
//! non-quiet mode.
//!
//! The session drives a [`TraceRenderer`] record by record: [`TraceRenderer::begin_record`],
//! then [`TraceRenderer::render_action`] for each action with its decoded values, then
//! [`TraceRenderer::end_record`]. Actions whose effect belongs to the session (`printa`,
//! `system`, `freopen`, `setopt`, `clear`, `exit`, speculations, …) print nothing here;
//! the session handles them in the same loop so that their output (e.g. `printa()`'s)
//! lands in record order.

use difvm::format::{FormatError, FormatString, PrintfFormat};
use difvm::object::{Action, ActionKind, ProbeDescription};
use difvm::printed_type::PrintedType;

use crate::record::{sign_extend, RecordValue};
use crate::render::bytes::{render_bytes, render_raw_string};
use crate::render::c_format::{format_bytes_as_string, CFormatSpec};
use crate::render::print_layout::render_print_layout;
use crate::render::printf::{format_printf, PrintfContext, PrintfError};
use crate::render::symbols::{
    recorded_kernel_symbol_text, recorded_user_symbol_text, render_kernel_stack, render_user_stack,
};

/// The options that shape per-firing output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceOutputOptions {
    /// `-q` / `quiet`: no header, no record prefix, no record-ending newline, bare
    /// `trace()` formats.
    pub quiet: bool,
    /// `-F` / `flowindent`.
    pub flowindent: bool,
    /// `stackindent` (14 by default).
    pub stack_indent: usize,
    /// `rawbytes`: print byte data as hex dumps even when it looks like a string.
    pub raw_bytes: bool,
    /// `printsize`: the most bytes of a recorded struct, union or array `print()` shows.
    pub print_size: u64,
}

impl Default for TraceOutputOptions {
    fn default() -> Self {
        TraceOutputOptions {
            quiet: false,
            flowindent: false,
            stack_indent: 14,
            raw_bytes: false,
            print_size: 8192,
        }
    }
}

/// The record being printed and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct RecordContext<'p> {
    pub cpu: u32,
    pub epid: u32,
    pub probe_id: u32,
    /// The concrete probe that fired.
    pub probe: &'p ProbeDescription,
    /// The (EPID, probe id) of the record that follows in the same buffer, if any:
    /// flowindent uses it to decide whether a return probe unindents.
    pub next_record: Option<(u32, u32)>,
}

/// Why a record's output could not be produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceOutputError {
    /// A printf-like action's format does not parse: the compiled program carries the
    /// parse error instead of a parsed format (the compiler refuses such formats, so the
    /// program was built by other means or is damaged).
    Format(FormatError),
    /// The values do not fit the format.
    Printf(PrintfError),
}

impl std::fmt::Display for TraceOutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceOutputError::Format(error) => error.fmt(f),
            TraceOutputError::Printf(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for TraceOutputError {}

impl From<PrintfError> for TraceOutputError {
    fn from(error: PrintfError) -> Self {
        TraceOutputError::Printf(error)
    }
}

/// Whether a probe is a function entry or return for flowindent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FlowKind {
    None,
    Entry,
    Return,
}

/// The flowindent state carried from record to record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowIndentState {
    /// Current indentation in spaces.
    pub indent: usize,
    /// (EPID, probe id) of the previous record.
    pub last_record: Option<(u32, u32)>,
}

/// Per-firing output of one consumer: the options, whether the header was printed, and
/// the flowindent state carried from record to record (where the output stands, not
/// session state).
#[derive(Debug, Clone, Default)]
pub struct TraceRenderer {
    pub options: TraceOutputOptions,
    header_printed: bool,
    pub flow: FlowIndentState,
}

/// Width of the function-and-name column of the record prefix.
const PROBE_COLUMN_WIDTH: usize = 32;
/// Width of the function column in flowindent mode.
const FLOW_COLUMN_WIDTH: usize = 41;
/// Width of strings traced in non-quiet mode (`"  %-33s"`).
const TRACE_STRING_WIDTH: usize = 33;
/// Width of symbol texts (`"  %-50s"`).
const SYMBOL_WIDTH: usize = 50;

impl TraceRenderer {
    pub fn new(options: TraceOutputOptions) -> TraceRenderer {
        TraceRenderer {
            options,
            ..TraceRenderer::default()
        }
    }

    /// Starts a record: the header before the first record (unless quiet; flowindent
    /// prints its own header even when quiet), then the record prefix.
    pub fn begin_record(&mut self, out: &mut String, record: &RecordContext<'_>) {
        if !self.header_printed {
            self.header_printed = true;
            if self.options.flowindent {
                out.push_str(&format!("{:>3} {:<41}\n", "CPU", "FUNCTION"));
            } else if !self.options.quiet {
                out.push_str(&format!(
                    "{:>3} {:>6} {:>32}\n",
                    "CPU", "ID", "FUNCTION:NAME"
                ));
            }
        }
        if self.options.flowindent {
            self.begin_flow_record(out, record);
        } else if !self.options.quiet {
            let name = format!("{}:{}", record.probe.function, record.probe.name);
            out.push_str(&format!(
                "{:>3} {:>6} {:>width$} ",
                record.cpu,
                record.probe_id,
                name,
                width = PROBE_COLUMN_WIDTH
            ));
        }
    }

    /// The flowindent prefix: indentation, ` -> `/` <- ` (` => `/` <= ` for syscalls)
    /// and the function, or `| function:name` for other probes. A repeated firing of
    /// the same probe from another clause neither indents nor unindents again.
    fn begin_flow_record(&mut self, out: &mut String, record: &RecordContext<'_>) {
        let probe = record.probe;
        let mut kind = flow_kind(&probe.name);
        if kind == FlowKind::Entry {
            if let Some((last_epid, last_probe_id)) = self.flow.last_record {
                if last_epid != record.epid && last_probe_id == record.probe_id {
                    kind = FlowKind::None;
                }
            }
        }
        if kind == FlowKind::Return {
            if let Some((next_epid, next_probe_id)) = record.next_record {
                if next_epid != record.epid && next_probe_id == record.probe_id {
                    kind = FlowKind::None;
                }
            }
        }
        let syscall = probe.provider == "syscall";
        let marker = match kind {
            FlowKind::Entry if syscall => " => ",
            FlowKind::Entry => " -> ",
            FlowKind::Return if syscall => " <= ",
            FlowKind::Return => " <- ",
            FlowKind::None => "| ",
        };
        if kind == FlowKind::Return {
            self.flow.indent = self.flow.indent.saturating_sub(2);
        }
        let mut text = " ".repeat(self.flow.indent);
        text.push_str(marker);
        text.push_str(&probe.function);
        if kind == FlowKind::None {
            text.push(':');
            text.push_str(&probe.name);
        }
        out.push_str(&format!(
            "{:>3} {:<width$} ",
            record.cpu,
            text,
            width = FLOW_COLUMN_WIDTH
        ));
        if kind == FlowKind::Entry {
            self.flow.indent += 2;
        }
        self.flow.last_record = Some((record.epid, record.probe_id));
    }

    /// Ends a record: a newline unless quiet.
    pub fn end_record(&mut self, out: &mut String) {
        if !self.options.quiet {
            out.push('\n');
        }
    }

    /// Appends what an action prints by itself: `trace()`, `print()`, `tracemem()`,
    /// `printf()`, and the stack and symbol actions. Other actions print nothing here.
    pub fn render_action(
        &self,
        out: &mut String,
        action: &Action,
        values: &[RecordValue<'_>],
        context: &PrintfContext<'_>,
    ) -> Result<(), TraceOutputError> {
        match &action.kind {
            ActionKind::Print { printed_type } => match values.first() {
                Some(value) if printed_type.root().is_some() => {
                    self.render_print_value(out, printed_type, value, context)
                }
                _ => {}
            },
            ActionKind::Trace | ActionKind::RecordSymbolic => {
                let mut slot_sizes = action
                    .values
                    .iter()
                    .filter_map(|value| value.slot.as_ref().map(|slot| slot.size as usize));
                for value in values {
                    match (value, slot_sizes.next()) {
                        (RecordValue::String(bytes), Some(size)) if self.options.raw_bytes => {
                            render_raw_string(out, bytes, size)
                        }
                        _ => self.render_trace_value(out, value, context),
                    }
                }
            }
            ActionKind::TraceMemory => {
                if let Some(RecordValue::Bytes(bytes)) = values.first() {
                    // A dynamic size of 0, or one beyond the recorded bytes, prints them all.
                    let limit = values
                        .get(1)
                        .and_then(RecordValue::as_i64)
                        .map(|size| size as u64 as usize)
                        .filter(|&size| size != 0 && size < bytes.len())
                        .unwrap_or(bytes.len());
                    render_bytes(
                        out,
                        &bytes[..limit],
                        TRACE_STRING_WIDTH,
                        self.options.quiet,
                        true,
                    );
                }
            }
            ActionKind::Printf { format } => {
                format_printf(out, parsed_format(format)?, values, context)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `print()`'s value: its structural layout, starting on a line of its own in
    /// non-quiet mode (after the record prefix, or after what the clause printed before). Stacks and symbols have no layout and print as
    /// `trace()` prints them.
    fn render_print_value(
        &self,
        out: &mut String,
        printed_type: &PrintedType,
        value: &RecordValue<'_>,
        context: &PrintfContext<'_>,
    ) {
        let (bytes, limit) = match *value {
            RecordValue::Integer { bits, size, .. } => {
                let size = (size as usize).min(8);
                (bits.to_le_bytes()[..size].to_vec(), size)
            }
            RecordValue::Pointer(address) => (address.to_le_bytes().to_vec(), 8),
            RecordValue::String(bytes) => (bytes.to_vec(), bytes.len()),
            RecordValue::Bytes(bytes) => (
                bytes.to_vec(),
                self.options.print_size.min(usize::MAX as u64) as usize,
            ),
            _ => return self.render_trace_value(out, value, context),
        };
        if !self.options.quiet && !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        render_print_layout(out, printed_type, &bytes, limit);
    }

    /// The formatted string of a `system()` or `freopen()` action (None for other
    /// actions), for the session to run or open.
    pub fn format_action_string(
        &self,
        action: &Action,
        values: &[RecordValue<'_>],
        context: &PrintfContext<'_>,
    ) -> Result<Option<String>, TraceOutputError> {
        let (ActionKind::System { format } | ActionKind::Freopen { format }) = &action.kind else {
            return Ok(None);
        };
        let mut text = String::new();
        format_printf(&mut text, parsed_format(format)?, values, context)?;
        Ok(Some(text))
    }

    /// One traced value in its default format.
    pub fn render_trace_value(
        &self,
        out: &mut String,
        value: &RecordValue<'_>,
        context: &PrintfContext<'_>,
    ) {
        let quiet = self.options.quiet;
        let resolver = context.resolver;
        let plain = CFormatSpec::default();
        match *value {
            RecordValue::Integer { bits, size, signed } => {
                render_trace_integer(out, bits, size, signed, quiet)
            }
            RecordValue::Pointer(address) => render_trace_integer(out, address, 8, false, quiet),
            RecordValue::String(bytes) => {
                if quiet {
                    crate::render::raw_text::push_bytes(out, bytes);
                } else {
                    out.push_str("  ");
                    let spec = CFormatSpec {
                        left_justify: true,
                        width: TRACE_STRING_WIDTH,
                        ..CFormatSpec::default()
                    };
                    format_bytes_as_string(out, &spec, bytes);
                }
            }
            RecordValue::Bytes(bytes) => render_bytes(
                out,
                bytes,
                TRACE_STRING_WIDTH,
                quiet,
                self.options.raw_bytes,
            ),
            RecordValue::KernelStack(frames) => {
                render_kernel_stack(out, resolver, &frames, self.options.stack_indent, &plain)
            }
            RecordValue::UserStack { pid, frames } => render_user_stack(
                out,
                resolver,
                pid,
                &frames,
                self.options.stack_indent,
                &plain,
            ),
            RecordValue::KernelSymbol { address, format } => {
                let text = recorded_kernel_symbol_text(resolver, address, format);
                out.push_str(&format!("  {:<width$}", text, width = SYMBOL_WIDTH));
            }
            RecordValue::UserSymbol {
                pid,
                address,
                format,
            } => {
                let text = recorded_user_symbol_text(resolver, pid, address, format);
                out.push_str(&format!("  {:<width$}", text, width = SYMBOL_WIDTH));
            }
        }
    }
}

/// The parsed form of a printf-like action's format, or the error that the compiled
/// program recorded for it (a format the compiler did not parse).
pub fn parsed_format(format: &PrintfFormat) -> Result<&FormatString, TraceOutputError> {
    format
        .parsed
        .as_ref()
        .map_err(|error| TraceOutputError::Format(error.clone()))
}

/// Flow kind from the probe name: `entry` or `*-entry`, `return` or `*-return` (so that
/// names like `carpentry` do not count).
fn flow_kind(name: &str) -> FlowKind {
    let matches = |suffix: &str| {
        name == suffix
            || name
                .strip_suffix(suffix)
                .is_some_and(|rest| rest.ends_with('-'))
    };
    if matches("entry") {
        FlowKind::Entry
    } else if matches("return") {
        FlowKind::Return
    } else {
        FlowKind::None
    }
}

/// A traced integer in the Linux 2.x formats: signed `" %19ld"`, `" %10d"`, `" %5hd"`,
/// `" %3hhd"`; unsigned `" %20lu"`, `" %10u"`, `" %5hu"`, `" %3hhu"`; bare when quiet.
fn render_trace_integer(out: &mut String, bits: u64, size: u32, signed: bool, quiet: bool) {
    let text = if signed {
        sign_extend(bits, size).to_string()
    } else {
        bits.to_string()
    };
    if quiet {
        out.push_str(&text);
        return;
    }
    let width = match (size, signed) {
        (8, true) => 19,
        (8, false) => 20,
        (4, _) => 10,
        (2, _) => 5,
        _ => 3,
    };
    out.push_str(&format!(" {:>width$}", text, width = width));
}
