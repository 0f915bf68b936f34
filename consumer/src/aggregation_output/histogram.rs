//! The text histograms of `quantize()`, `lquantize()` and `llquantize()` values: the
//! header line, the choice of rows, the bucket labels and the `@` bars, byte for byte as
//! DTrace's `dt_print_quantize`/`dt_print_lquantize` and `dt_print_quantline` print them.

use difvm::aggregation::{
    quantize_bucket_value, AggregationRule, BucketLabel, QUANTIZE_BUCKET_COUNT,
    QUANTIZE_ZERO_BUCKET,
};

use crate::printf::c_format::push_repeated;

/// Width of a full bar; bars of histograms with both signs are half as wide.
const BAR_WIDTH: usize = 40;

/// Appends the histogram of a quantization value (`words` are its bucket counts),
/// starting with the empty line and the header. Counts are divided by `normalization`
/// for display; the bars are not.
pub fn render_histogram(
    out: &mut String,
    rule: &AggregationRule,
    words: &[i64],
    normalization: u64,
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
    let bars = BarScale::new(rows);
    out.push_str(&format!(
        "\n{:>16} {:>41} {:<9}\n",
        "value", "------------- Distribution -------------", "count"
    ));
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

/// How bars are drawn for one histogram: the total of the printed rows' absolute counts
/// and which signs occur.
struct BarScale {
    total: f64,
    positives: bool,
    negatives: bool,
}

impl BarScale {
    fn new(rows: &[i64]) -> BarScale {
        BarScale {
            total: rows.iter().map(|&count| (count as f64).abs()).sum(),
            positives: rows.iter().any(|&count| count > 0),
            negatives: rows.iter().any(|&count| count < 0),
        }
    }

    /// Bar length for `count` out of `width` characters.
    fn depth(&self, count: i64, width: usize) -> usize {
        if self.total == 0.0 {
            return 0;
        }
        let fraction = (count as f64).abs() * width as f64 / self.total;
        ((fraction + 0.5) as usize).min(width)
    }

    /// Appends a row's bar and count (DTrace divides the count by the normalization in
    /// unsigned arithmetic and prints it signed).
    fn render_row(&self, out: &mut String, count: i64, normalization: u64) {
        let shown = ((count as u64) / normalization) as i64;
        if !self.negatives {
            let depth = if self.positives {
                self.depth(count, BAR_WIDTH)
            } else {
                0
            };
            out.push('|');
            push_repeated(out, '@', depth);
            push_repeated(out, ' ', BAR_WIDTH - depth);
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
}
