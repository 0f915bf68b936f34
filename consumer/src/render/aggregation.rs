//! The aggregation printers: the default text layout of entries (§8.4) with each CPU's
//! part after every value (`aggpercpu`), the `agghist` and `aggpack` displays, the
//! aggregations printed when tracing ends, and `printa()` with and without a format, for
//! one aggregation or several joined by key.
//!
//! Printing functions append to a `String` and report whether any entry was printed:
//! DTrace marks an aggregation printed by `printa()` as soon as one of its entries was
//! printed, and skips it when printing aggregations at exit.

use difvm::aggregation::{average_of, standard_deviation_of, AggregationRule};
use difvm::format::FormatString;
use difvm::object::AggregationDescription;

use crate::record::{decode_slot, sign_extend, RecordValue};
use crate::render::aggregation_sorting::{joined_rows, sorted_entries, AggregationSortOptions};
use crate::render::aggregation_view::AggregationView;
use crate::render::bytes::{is_printable, render_bytes, render_raw_string};
use crate::render::c_format::{format_bytes_as_string, CFormatSpec};
use crate::render::display_options::AggregationDisplayOptions;
use crate::render::histogram::render_histogram;
use crate::render::packed_histogram::PackedHistogram;
use crate::render::printf::{format_printa_entry, AggregationValue, PrintfContext, PrintfError};
use crate::render::symbols::{
    recorded_kernel_symbol_text, recorded_user_symbol_text, render_kernel_stack, render_user_stack,
    SymbolResolver,
};
use crate::render::value_histogram::ValueHistogram;

/// Options of the default layout besides sorting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AggregationLayoutOptions {
    /// Indentation of stack frames (`stackindent`, 14 by default).
    pub stack_indent: usize,
    /// `rawbytes`: always print byte keys as hex dumps.
    pub raw_bytes: bool,
    /// `aggzoom`, `agghist`, `aggpack` and the `utf8` encoding.
    pub display: AggregationDisplayOptions,
}

impl Default for AggregationLayoutOptions {
    fn default() -> Self {
        AggregationLayoutOptions {
            stack_indent: 14,
            raw_bytes: false,
            display: AggregationDisplayOptions::default(),
        }
    }
}

/// How the entries of one aggregation are laid out by [`AggregationPrinter`].
enum EntryLayout {
    /// Keys, the value in its default format, and a newline (§8.4).
    Default,
    /// `agghist`: packed keys and a bar per entry, under a `key` header.
    ValueHistogram(ValueHistogram),
    /// `aggpack`: packed keys and the distribution on one line, under a `min/max` header.
    PackedHistogram(PackedHistogram),
}

/// What the default layout needs: sorting, layout options and symbols.
#[derive(Clone, Copy)]
pub struct AggregationPrinter<'r> {
    pub sort: AggregationSortOptions,
    pub layout: AggregationLayoutOptions,
    pub resolver: &'r dyn SymbolResolver,
}

impl AggregationPrinter<'_> {
    /// Appends every entry of one aggregation in the default layout, or in the
    /// `agghist`/`aggpack` display when it is on and applies to the aggregation's
    /// function (no leading empty line; those displays start with their header, which
    /// starts with an empty line). Returns whether any entry was printed.
    pub fn render_aggregation(&self, out: &mut String, view: &AggregationView<'_>) -> bool {
        let entries = sorted_entries(view, &self.sort);
        let layout = self.entry_layout(view);
        let packed_keys = !matches!(layout, EntryLayout::Default);
        if packed_keys && !entries.is_empty() {
            let key_width = packed_key_width(view.description);
            match &layout {
                EntryLayout::ValueHistogram(bars) => bars.render_header(out, key_width),
                EntryLayout::PackedHistogram(packed) => packed.render_header(out, key_width),
                EntryLayout::Default => {}
            }
        }
        for (key, words) in &entries {
            self.render_key(out, view, key, packed_keys);
            match &layout {
                EntryLayout::Default => {
                    self.render_value(out, &view.rule, words, view.table.normalization);
                    self.render_per_cpu_values(out, view, key);
                    out.push('\n');
                }
                EntryLayout::ValueHistogram(bars) => {
                    bars.render_value(out, &view.rule, words, view.table.normalization)
                }
                EntryLayout::PackedHistogram(packed) => packed.render_value(out, words),
            }
        }
        !entries.is_empty()
    }

    /// The layout of one aggregation's entries: DTrace applies `aggpack` to
    /// `quantize()`/`lquantize()` and `agghist` to `count()`/`sum()`/`avg()`/`stddev()`,
    /// with the range or scale computed over all of the aggregation's entries.
    fn entry_layout(&self, view: &AggregationView<'_>) -> EntryLayout {
        let display = &self.layout.display;
        let values = || view.table.entries.values().map(Vec::as_slice);
        if display.packed_histograms {
            if let Some(packed) =
                PackedHistogram::new(&view.rule, values(), display.histogram_style)
            {
                return EntryLayout::PackedHistogram(packed);
            }
        }
        if display.value_histograms {
            if let Some(bars) = ValueHistogram::new(&view.rule, values(), display.histogram_style) {
                return EntryLayout::ValueHistogram(bars);
            }
        }
        EntryLayout::Default
    }

    /// Appends the aggregations not yet printed by `printa()`, as DTrace does when
    /// tracing ends: in aggregation id order (reversed with `aggsortrev`), each sorted.
    /// The caller prints the empty line that precedes them.
    pub fn render_unprinted(
        &self,
        out: &mut String,
        views: &[AggregationView<'_>],
        already_printed: impl Fn(u32) -> bool,
    ) {
        let mut order: Vec<&AggregationView<'_>> = views
            .iter()
            .filter(|view| !already_printed(view.description.id))
            .collect();
        order.sort_by_key(|view| view.description.id);
        if self.sort.reverse {
            order.reverse();
        }
        for view in order {
            self.render_aggregation(out, view);
        }
    }

    /// `printa(@a)` or `printa(@a, @b, ...)` without a format: an empty line, then the
    /// entries of one aggregation, or, for several, one line per key present in any of
    /// them with the key once and each aggregation's value (0 where it has no entry).
    /// Returns whether any entry was printed (the aggregations are then marked printed).
    pub fn render_printa(&self, out: &mut String, views: &[AggregationView<'_>]) -> bool {
        out.push('\n');
        match views {
            [] => false,
            [view] => self.render_aggregation(out, view),
            _ => {
                // Like DTrace's joined walk, which computes no totals or bucket ranges,
                // a joined printa() ignores agghist and aggpack.
                let rows = joined_rows(views, &self.sort);
                for row in &rows {
                    self.render_key(out, &views[row.key_source], row.key, false);
                    for (view, words) in views.iter().zip(&row.values) {
                        self.render_value(out, &view.rule, words, view.table.normalization);
                        self.render_per_cpu_values(out, view, row.key);
                    }
                    out.push('\n');
                }
                !rows.is_empty()
            }
        }
    }

    /// `printa(format, @a, ...)`: for every entry (or joined key), the format with the
    /// key components as arguments and `@` conversions taking the aggregations' values
    /// in turn. No leading empty line. Returns whether any entry was printed.
    pub fn render_printa_formatted(
        &self,
        out: &mut String,
        format: &FormatString,
        views: &[AggregationView<'_>],
        target_pid: Option<u64>,
    ) -> Result<bool, PrintfError> {
        let context = PrintfContext {
            resolver: self.resolver,
            target_pid,
        };
        match views {
            [] => Ok(false),
            [view] => {
                let entries = sorted_entries(view, &self.sort);
                for (key, words) in &entries {
                    let keys = view.decode_key(key);
                    let value = view.printa_value(words, self.layout.display.histogram_style);
                    format_printa_entry(out, format, &keys, &[value], &context)?;
                }
                Ok(!entries.is_empty())
            }
            _ => {
                let rows = joined_rows(views, &self.sort);
                for row in &rows {
                    let keys = views[row.key_source].decode_key(row.key);
                    let values: Vec<AggregationValue<'_>> = views
                        .iter()
                        .zip(&row.values)
                        .map(|(view, words)| {
                            view.printa_value(words, self.layout.display.histogram_style)
                        })
                        .collect();
                    format_printa_entry(out, format, &keys, &values, &context)?;
                }
                Ok(!rows.is_empty())
            }
        }
    }

    /// Appends every key component in its default format, or in its packed format
    /// (`packed`, for the `agghist` and `aggpack` displays).
    fn render_key(&self, out: &mut String, view: &AggregationView<'_>, key: &[u8], packed: bool) {
        for slot in &view.description.keys {
            if let Ok(value) = decode_slot(slot, key) {
                self.render_key_component(out, slot.size, &value, packed);
            }
        }
    }

    /// One key component: stacks and symbols by kind, strings and other bytes as
    /// `"  %-50s"` (or a hex dump), integers by size: `" %16lld"`, `" %8d"`, and the
    /// 2- and 1-byte sizes printed unsigned as `" %5d"`/`" %3d"`. In the packed format
    /// DTrace prints strings right-aligned as `" %16s"` and everything else as usual.
    fn render_key_component(
        &self,
        out: &mut String,
        size: u32,
        value: &RecordValue<'_>,
        packed: bool,
    ) {
        let resolver = self.resolver;
        let indent = self.layout.stack_indent;
        match *value {
            RecordValue::KernelStack(frames) => {
                render_kernel_stack(out, resolver, &frames, indent, &CFormatSpec::default())
            }
            RecordValue::UserStack { pid, frames } => {
                render_user_stack(out, resolver, pid, &frames, indent, &CFormatSpec::default())
            }
            RecordValue::KernelSymbol { address, format } => {
                let text = recorded_kernel_symbol_text(resolver, address, format);
                push_key_text(out, text.as_bytes());
            }
            RecordValue::UserSymbol {
                pid,
                address,
                format,
            } => {
                let text = recorded_user_symbol_text(resolver, pid, address, format);
                push_key_text(out, text.as_bytes());
            }
            // A D string prints as a string (even when empty) unless it holds
            // characters DTrace would not print, which give a hex dump.
            RecordValue::String(bytes)
                if !self.layout.raw_bytes && bytes.iter().all(|&byte| is_printable(byte)) =>
            {
                if packed {
                    push_packed_key_text(out, bytes);
                } else {
                    push_key_text(out, bytes);
                }
            }
            // Under rawbytes, or holding characters DTrace would not print, a string
            // key is dumped whole: its strsize bytes, NULs after the string included,
            // as dt_print_bytes() dumps the key's record.
            RecordValue::String(bytes) => render_raw_string(out, bytes, size as usize),
            RecordValue::Bytes(bytes) => {
                render_bytes(out, bytes, KEY_STRING_WIDTH, false, self.layout.raw_bytes);
            }
            RecordValue::Integer { bits, .. } | RecordValue::Pointer(bits) => match size {
                8 => out.push_str(&format!(" {:>16}", bits as i64)),
                4 => out.push_str(&format!(" {:>8}", sign_extend(bits, 4))),
                2 => out.push_str(&format!(" {:>5}", bits as u16)),
                _ => out.push_str(&format!(" {:>3}", bits as u8)),
            },
        }
    }

    /// Appends, after the merged value of the entry `key`, each CPU's value when the
    /// view carries per-CPU values, as Linux DTrace prints them: for every CPU,
    /// `\n    [CPU %d]` followed by that CPU's value in the value's default format (a CPU
    /// that never updated the entry shows 0, or an empty histogram).
    fn render_per_cpu_values(&self, out: &mut String, view: &AggregationView<'_>, key: &[u8]) {
        let Some(per_cpu) = view.per_cpu else {
            return;
        };
        let parts = per_cpu.entries.get(key);
        let zero = vec![0; view.rule.word_count()];
        for cpu in &per_cpu.cpus {
            let words = parts.and_then(|parts| parts.get(cpu)).unwrap_or(&zero);
            out.push_str(&format!("\n    [CPU {cpu}]"));
            self.render_value(out, &view.rule, words, view.table.normalization);
        }
    }

    /// One aggregation value in its default format.
    fn render_value(
        &self,
        out: &mut String,
        rule: &AggregationRule,
        words: &[i64],
        normalization: u64,
    ) {
        let normal = normalization.max(1);
        let word = words.first().copied().unwrap_or(0);
        match rule {
            AggregationRule::Count
            | AggregationRule::Sum
            | AggregationRule::Minimum
            | AggregationRule::Maximum => {
                // DTrace divides in unsigned arithmetic and prints the result signed.
                out.push_str(&format!(" {:>16}", ((word as u64) / normal) as i64));
            }
            AggregationRule::Average => {
                out.push_str(&format!(" {:>16}", average_of(words, normal as i64)));
            }
            AggregationRule::StandardDeviation => {
                out.push_str(&format!(
                    " {:>16}",
                    standard_deviation_of(words, normal as i64)
                ));
            }
            AggregationRule::Quantize
            | AggregationRule::LinearQuantize(_)
            | AggregationRule::LogLinearQuantize(_) => {
                render_histogram(
                    out,
                    rule,
                    words,
                    normal,
                    self.layout.display.histogram_style,
                );
            }
        }
    }
}

/// Width of string-like key components (`"  %-50s"`).
const KEY_STRING_WIDTH: usize = 50;

/// Appends a string-like key component as `"  %-50s"`.
fn push_key_text(out: &mut String, text: &[u8]) {
    out.push_str("  ");
    let spec = CFormatSpec {
        left_justify: true,
        width: KEY_STRING_WIDTH,
        ..CFormatSpec::default()
    };
    format_bytes_as_string(out, &spec, text);
}

/// Width of string key components in the packed format (`" %16s"`).
const PACKED_KEY_STRING_WIDTH: usize = 16;

/// Appends a string key component in the packed format, `" %16s"`.
fn push_packed_key_text(out: &mut String, text: &[u8]) {
    out.push(' ');
    let spec = CFormatSpec {
        width: PACKED_KEY_STRING_WIDTH,
        ..CFormatSpec::default()
    };
    format_bytes_as_string(out, &spec, text);
}

/// The width of an aggregation's keys in the packed format, as DTrace computes it for
/// the `agghist`/`aggpack` header: for each key component its packed width plus one
/// (4 for 1-byte integers, 6 for 2-byte, 9 for 4-byte, and 17 for everything else,
/// stacks and symbols included, even though those print wider).
pub fn packed_key_width(description: &AggregationDescription) -> usize {
    description
        .keys
        .iter()
        .map(|slot| match slot.size {
            1 => 4,
            2 => 6,
            4 => 9,
            _ => PACKED_KEY_STRING_WIDTH + 1,
        })
        .sum()
}
