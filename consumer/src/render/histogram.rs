//! The text histograms of `quantize()`, `lquantize()` and `llquantize()` values: the
//! header line, the choice of rows, the bucket labels and the bars, byte for byte as
//! DTrace's `dt_print_quantize`/`dt_print_lquantize`, `dt_print_quanthdr`,
//! `dt_quantize_total` and `dt_print_quantline` print them, including the `aggzoom`
//! scaling and the Unicode bars of the `utf8` encoding (`dt_print_quantline_utf8`).
//! The bar drawing is shared with the `agghist` display (see `value_histogram`).

use difvm::aggregation::{
    quantize_bucket_value, AggregationRule, BucketLabel, QUANTIZE_BUCKET_COUNT,
    QUANTIZE_ZERO_BUCKET,
};

use crate::render::c_format::push_repeated;

/// Width of a full bar; bars of histograms with both signs are half as wide.
const BAR_WIDTH: usize = 40;

/// DTrace's `DTRACE_AGGZOOM_MAX`: with `aggzoom`, the largest bar is scaled to this
/// fraction of the full width.
pub const AGGZOOM_MAXIMUM_HEIGHT: f64 = 0.95;

/// The Unicode block element drawn for a whole cell of a `utf8` bar (U+2588, full
/// block), and the one for the smallest partial cell (U+258F, left one eighth block);
/// partial cells of k eighths use U+258F − (k − 1).
const UTF8_FULL_BLOCK: u32 = 0x2588;
const UTF8_LEFT_EIGHTH_BLOCK: u32 = 0x258f;
/// How many partial widths a `utf8` bar cell has (`DTRACE_AGGUTF8_LEVELS`).
const UTF8_BLOCK_LEVELS: f64 = 8.0;

/// How bars are drawn: the options that change DTrace's histograms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HistogramStyle {
    /// `aggzoom`: scale bars against the largest count (divided by
    /// [`AGGZOOM_MAXIMUM_HEIGHT`]) instead of the sum of all counts.
    pub zoom: bool,
    /// The `utf8` encoding (`-x encoding=utf8`): bars of histograms without negative
    /// counts are drawn with Unicode block elements, in eighths of a cell. DTrace only
    /// does this when the encoding is set explicitly, so ASCII `@` bars are the default.
    pub utf8: bool,
}

/// Appends the histogram of a quantization value (`words` are its bucket counts),
/// starting with the empty line and the header. Counts are divided by `normalization`
/// for display; the bars are not.
pub fn render_histogram(
    out: &mut String,
    rule: &AggregationRule,
    words: &[i64],
    normalization: u64,
    style: HistogramStyle,
) {
    let normalization = normalization.max(1);
    let (first, last) = match rule {
        AggregationRule::Quantize => quantize_rows(words),
        AggregationRule::LinearQuantize(_) => rows_around_data(words, (0, 2)),
        AggregationRule::LogLinearQuantize(log_linear) => {
            let centre = log_linear.centre_bucket();
            rows_around_data(words, (centre, centre))
        }
        _ => return,
    };
    let rows = words.get(first..=last).unwrap_or(&[]);
    let bars = BarScale::of_rows(rows, style);
    render_histogram_header(out, 0);
    for (index, &count) in (first..=last).zip(rows) {
        let label = match rule {
            AggregationRule::Quantize => quantize_bucket_value(index).to_string(),
            AggregationRule::LinearQuantize(linear) => match linear.bucket_label(index) {
                // DTrace divides the underflow label (alone) by the normalization, in
                // 32-bit unsigned arithmetic.
                BucketLabel::Below(low) => {
                    format!(
                        "< {}",
                        ((low as u32) / (normalization as u32).max(1)) as i32
                    )
                }
                label => label_text(label),
            },
            AggregationRule::LogLinearQuantize(log_linear) => {
                label_text(log_linear.bucket_label(index))
            }
            _ => String::new(),
        };
        out.push_str(&format!("{:>16} ", label));
        bars.render_row(out, count, normalization);
    }
}

/// Appends DTrace's histogram header (`dt_print_quanthdr`): an empty line, then
/// `"%*s %41s %-9s\n"` with `value` right-aligned in 16 columns, or, for the `agghist`
/// display, `key` right-aligned in `key_width` columns (when the aggregation has keys).
pub fn render_histogram_header(out: &mut String, key_width: usize) {
    let (width, title) = if key_width == 0 {
        (16, "value")
    } else {
        (key_width, "key")
    };
    out.push_str(&format!(
        "\n{:>width$} {:>41} {:<9}\n",
        title, "------------- Distribution -------------", "count"
    ));
}

/// The text of a bucket label.
fn label_text(label: BucketLabel) -> String {
    match label {
        BucketLabel::Value(value) => value.to_string(),
        BucketLabel::Below(value) => format!("< {}", value),
        BucketLabel::AtMost(value) => format!("<= {}", value),
        BucketLabel::AbsoluteBelow(value) => format!("abs() < {}", value),
        BucketLabel::AtLeast(value) => format!(">= {}", value),
    }
}

/// The quantize rows: one zero bucket either side of the data. DTrace's search for the
/// first non-zero bucket stops one short of the last bucket, so data only in the last
/// bucket counts as no data; with no data the rows -1, 0 and 1 are printed.
fn quantize_rows(words: &[i64]) -> (usize, usize) {
    if words.len() != QUANTIZE_BUCKET_COUNT {
        return (0, words.len().saturating_sub(1));
    }
    let last_index = QUANTIZE_BUCKET_COUNT - 1;
    let first = words[..last_index].iter().position(|&count| count != 0);
    let Some(first) = first else {
        return (QUANTIZE_ZERO_BUCKET - 1, QUANTIZE_ZERO_BUCKET + 1);
    };
    let last = words.iter().rposition(|&count| count != 0).unwrap_or(first);
    (first.saturating_sub(1), (last + 1).min(last_index))
}

/// The rows from one bucket before the first non-zero bucket to one after the last,
/// or `empty` (first and last row) when every bucket is zero.
fn rows_around_data(words: &[i64], empty: (usize, usize)) -> (usize, usize) {
    let last_index = words.len().saturating_sub(1);
    match words.iter().position(|&count| count != 0) {
        None => (empty.0.min(last_index), empty.1.min(last_index)),
        Some(first) => {
            let last = words.iter().rposition(|&count| count != 0).unwrap_or(first);
            (first.saturating_sub(1), (last + 1).min(last_index))
        }
    }
}

/// Adds one count to the total that bars are scaled against, as DTrace's
/// `dt_quantize_total` does: the sum of the absolute counts, or with `aggzoom` the
/// largest absolute count divided by [`AGGZOOM_MAXIMUM_HEIGHT`], so that the largest
/// bar is about 95% of the width.
pub fn add_to_bar_total(total: &mut f64, count: i64, zoom: bool) {
    let magnitude = (count as f64).abs();
    if !zoom {
        *total += magnitude;
        return;
    }
    let scaled = magnitude * (1.0 / AGGZOOM_MAXIMUM_HEIGHT);
    if *total < scaled {
        *total = scaled;
    }
}

/// How bars are drawn for one histogram: the total that counts are scaled against,
/// which signs occur, and whether `utf8` bars are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarScale {
    pub total: f64,
    pub positives: bool,
    pub negatives: bool,
    pub utf8: bool,
}

impl BarScale {
    /// The scale of a histogram's printed rows.
    pub fn of_rows(rows: &[i64], style: HistogramStyle) -> BarScale {
        let mut total = 0.0;
        for &count in rows {
            add_to_bar_total(&mut total, count, style.zoom);
        }
        BarScale {
            total,
            positives: rows.iter().any(|&count| count > 0),
            negatives: rows.iter().any(|&count| count < 0),
            utf8: style.utf8,
        }
    }

    /// `|count| × width / total`, the unrounded bar length (0 when the total is 0).
    fn fraction(&self, count: i64, width: usize) -> f64 {
        if self.total == 0.0 {
            return 0.0;
        }
        (count as f64).abs() * width as f64 / self.total
    }

    /// Bar length for `count` out of `width` characters, rounded to the nearest.
    fn depth(&self, count: i64, width: usize) -> usize {
        ((self.fraction(count, width) + 0.5) as usize).min(width)
    }

    /// Appends a row's bar and count and the newline (DTrace's `dt_print_quantline`).
    /// DTrace divides the count by the normalization in unsigned arithmetic and prints
    /// it signed; the bar uses the undivided count.
    pub fn render_row(&self, out: &mut String, count: i64, normalization: u64) {
        let shown = ((count as u64) / normalization.max(1)) as i64;
        if !self.negatives {
            if self.positives && self.utf8 {
                self.render_utf8_row(out, count);
            } else {
                let depth = if self.positives {
                    self.depth(count, BAR_WIDTH)
                } else {
                    0
                };
                out.push('|');
                push_repeated(out, '@', depth);
                push_repeated(out, ' ', BAR_WIDTH - depth);
            }
            out.push_str(&format!(" {:<9}\n", shown));
        } else if !self.positives {
            let depth = self.depth(count, BAR_WIDTH);
            push_repeated(out, ' ', BAR_WIDTH - depth);
            push_repeated(out, '@', depth);
            out.push_str(&format!("| {:<9}\n", shown));
        } else {
            let half = BAR_WIDTH / 2;
            let depth = self.depth(count, half);
            if count <= 0 {
                push_repeated(out, ' ', half - depth);
                push_repeated(out, '@', depth);
                out.push('|');
                push_repeated(out, ' ', half);
            } else {
                push_repeated(out, ' ', half);
                out.push('|');
                push_repeated(out, '@', depth);
                push_repeated(out, ' ', half - depth);
            }
            out.push_str(&format!(" {:<9}\n", shown));
        }
    }

    /// The bar of `dt_print_quantline_utf8`: `|`, a full block per whole cell of the
    /// (unrounded) length, a partial block for the truncated eighths left over, and
    /// spaces to the full width.
    fn render_utf8_row(&self, out: &mut String, count: i64) {
        let length = self.fraction(count, BAR_WIDTH).min(BAR_WIDTH as f64);
        let whole = length as usize;
        let eighths = ((length - whole as f64) * UTF8_BLOCK_LEVELS) as u32;
        out.push('|');
        let full = char::from_u32(UTF8_FULL_BLOCK).unwrap_or('@');
        push_repeated(out, full, whole);
        let mut used = whole;
        if eighths != 0 {
            let partial = char::from_u32(UTF8_LEFT_EIGHTH_BLOCK - (eighths - 1)).unwrap_or('@');
            out.push(partial);
            used += 1;
        }
        push_repeated(out, ' ', BAR_WIDTH.saturating_sub(used));
    }
}
