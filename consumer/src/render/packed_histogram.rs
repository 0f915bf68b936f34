//! The `aggpack` display: each entry of a `quantize()` or `lquantize()` aggregation
//! prints its keys and then its whole distribution packed on one line, one character
//! per bucket, under one `key min .----. max | count` header, as DTrace's
//! `dt_aggregate_minmaxbin`, `dt_print_quanthdr_packed`, `dt_print_quantize_packed`,
//! `dt_print_lquantize_packed` and `dt_print_packed` do.
//!
//! A row is `" %*lld :"` (the lowest printed bucket's value, at least 4 wide), one
//! character per bucket, then `": %-*lld | %lld\n"` (the highest printed bucket's value
//! and the sum of the printed counts). Each character is a space for an empty bucket,
//! one of `__xxxxXX` for a positive count and one of `vvvvVV` for a negative one, picked
//! by the count's share of the total the bars would be scaled against (`aggzoom`
//! applies). Counts in packed rows are not divided by `normalize()`'s divisor, as in
//! DTrace.
//!
//! DTrace chooses Unicode characters for positive counts unless the encoding is set to
//! `ascii` or `TERM` names a terminal known not to handle them (`sun`, `sun-color`,
//! `dumb`). Output here must not depend on the terminal, so the ASCII characters are
//! the default, as under `TERM=dumb`, and `-x encoding=utf8` selects the Unicode ones.
//!
//! `llquantize()` and the other functions are not affected by `aggpack`.

use difvm::aggregation::{
    quantize_bucket_value, AggregationRule, QUANTIZE_BUCKET_COUNT, QUANTIZE_ZERO_BUCKET,
};

use crate::render::c_format::push_repeated;
use crate::render::histogram::{add_to_bar_total, HistogramStyle};

/// The characters of positive counts, from the smallest share to the largest.
const POSITIVE_CHARACTERS: &[u8] = b"__xxxxXX";
/// The characters of negative counts, from the smallest share to the largest.
const NEGATIVE_CHARACTERS: &[u8] = b"vvvvVV";
/// The Unicode characters of positive counts with the `utf8` encoding: the lower block
/// elements from one eighth (U+2581) to the full block (U+2588).
// Unverified: recalled as the vertical counterpart of the ASCII characters; the exact
// choice of DTrace's Unicode characters for packed rows could not be checked.
const UTF8_LOWER_BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// DTrace's fixed widths of the `min` and `max` columns of packed `lquantize()` rows.
const LINEAR_MINIMUM_WIDTH: usize = 7;
const LINEAR_MAXIMUM_WIDTH: usize = 8;

/// The bucket range and column widths shared by all entries of one aggregation printed
/// with `aggpack`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedHistogram {
    /// First and last printed bucket (indices into the value words).
    first: usize,
    last: usize,
    /// The numbers printed before and after the buckets.
    minimum_label: i64,
    maximum_label: i64,
    /// The widths of the `min` and `max` columns.
    minimum_width: usize,
    maximum_width: usize,
    style: HistogramStyle,
}

impl PackedHistogram {
    /// The layout for an aggregation whose entries hold `values` (their bucket counts),
    /// or `None` when `aggpack` does not apply to the aggregation's function.
    pub fn new<'w>(
        rule: &AggregationRule,
        values: impl IntoIterator<Item = &'w [i64]>,
        style: HistogramStyle,
    ) -> Option<PackedHistogram> {
        match rule {
            AggregationRule::Quantize => Some(PackedHistogram::quantize(values, style)),
            AggregationRule::LinearQuantize(linear) => {
                let maximum_label = linear
                    .low
                    .saturating_add(linear.levels.saturating_mul(linear.step));
                Some(PackedHistogram {
                    first: 0,
                    last: linear.bucket_count() - 1,
                    minimum_label: linear.low,
                    maximum_label,
                    minimum_width: LINEAR_MINIMUM_WIDTH,
                    maximum_width: LINEAR_MAXIMUM_WIDTH,
                    style,
                })
            }
            _ => None,
        }
    }

    /// `quantize()`: from one bucket below the lowest non-empty bucket of any entry to
    /// one above the highest. An entry without data counts as data in the zero bucket,
    /// and, as in DTrace, no bucket is added below the zero bucket.
    fn quantize<'w>(values: impl IntoIterator<Item = &'w [i64]>, style: HistogramStyle) -> Self {
        let mut range: Option<(usize, usize)> = None;
        for words in values {
            let first = words.iter().position(|&count| count != 0);
            let last = words.iter().rposition(|&count| count != 0);
            let (first, last) = match (first, last) {
                (Some(first), Some(last)) => (first, last),
                _ => (QUANTIZE_ZERO_BUCKET, QUANTIZE_ZERO_BUCKET),
            };
            range = Some(match range {
                None => (first, last),
                Some((low, high)) => (low.min(first), high.max(last)),
            });
        }
        let (mut first, mut last) = range.unwrap_or((QUANTIZE_ZERO_BUCKET, QUANTIZE_ZERO_BUCKET));
        if first != 0 && first != QUANTIZE_ZERO_BUCKET {
            first -= 1;
        }
        if last < QUANTIZE_BUCKET_COUNT - 1 {
            last += 1;
        }
        let minimum_label = quantize_bucket_value(first);
        let maximum_label = quantize_bucket_value(last);
        PackedHistogram {
            first,
            last,
            minimum_label,
            maximum_label,
            minimum_width: digit_width(minimum_label),
            maximum_width: digit_width(maximum_label),
            style,
        }
    }

    /// Appends the header printed before the first entry (`dt_print_quanthdr_packed`):
    /// an empty line, `key` right-aligned in the width of the packed keys (nothing
    /// without keys), ` min .`, a dash per bucket and `. max | count`.
    pub fn render_header(&self, out: &mut String, key_width: usize) {
        let key_title = if key_width > 0 { "key" } else { "" };
        out.push_str(&format!(
            "\n{:>key_width$} {:>minimum_width$} .",
            key_title,
            "min",
            minimum_width = self.minimum_width
        ));
        push_repeated(out, '-', self.last - self.first + 1);
        out.push_str(&format!(
            ". {:<maximum_width$} | count\n",
            "max",
            maximum_width = self.maximum_width
        ));
    }

    /// Appends an entry's packed row after its keys, with the newline.
    pub fn render_value(&self, out: &mut String, words: &[i64]) {
        let buckets = words.get(self.first..=self.last).unwrap_or(&[]);
        let mut total = 0.0;
        let mut sum: i128 = 0;
        for &count in buckets {
            add_to_bar_total(&mut total, count, self.style.zoom);
            sum += i128::from(count);
        }
        out.push_str(&format!(
            " {:>minimum_width$} :",
            self.minimum_label,
            minimum_width = self.minimum_width
        ));
        for &count in buckets {
            out.push(packed_character(count, total, self.style.utf8));
        }
        let sum = sum.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        out.push_str(&format!(
            ": {:<maximum_width$} | {}\n",
            self.maximum_label,
            sum,
            maximum_width = self.maximum_width
        ));
    }
}

/// The character of one bucket (`dt_print_packed`): a space when empty, else the
/// character at the rounded position `|count| × (characters − 1) / total`.
fn packed_character(count: i64, total: f64, utf8: bool) -> char {
    if count == 0 || total == 0.0 {
        return ' ';
    }
    let position = |levels: usize| -> usize {
        let share = (count as f64 * (levels - 1) as f64).abs() / total;
        ((share + 0.5) as usize).min(levels - 1)
    };
    if count < 0 {
        return char::from(NEGATIVE_CHARACTERS[position(NEGATIVE_CHARACTERS.len())]);
    }
    if utf8 {
        return UTF8_LOWER_BLOCKS[position(UTF8_LOWER_BLOCKS.len())];
    }
    char::from(POSITIVE_CHARACTERS[position(POSITIVE_CHARACTERS.len())])
}

/// DTrace's `dt_ndigits`: the width of the `min`/`max` columns of packed `quantize()`
/// rows. It counts one digit for each power of ten the magnitude exceeds (so exact
/// powers of ten count one digit short), one more for a minus sign, and never less
/// than 4.
pub fn digit_width(value: i64) -> usize {
    let mut digits = 1;
    let magnitude = if value < 0 {
        digits += 1;
        if value == i64::MIN {
            i64::MAX
        } else {
            -value
        }
    } else {
        value
    };
    let mut power: i64 = 10;
    while magnitude > power {
        digits += 1;
        match power.checked_mul(10) {
            Some(next) => power = next,
            None => break,
        }
    }
    digits.max(4)
}
