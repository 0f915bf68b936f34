//! The `agghist` display: each entry of a `count()`, `sum()`, `avg()` or `stddev()`
//! aggregation prints its keys and then a histogram bar of its value, scaled against
//! the whole aggregation, under one `key … Distribution … count` header, as DTrace's
//! `dt_aggregate_total` and the `agghist` branch of `dt_print_datum` do.
//!
//! The scale is computed over every entry of the aggregation (not only the printed
//! ones): the sum of the absolute values, or, with `aggzoom`, the largest absolute value
//! divided by 0.95 and truncated to an integer, as `dt_aggregate_total` stores it in an
//! integer. Which signs occur among all entries decides the bar style, as for
//! histograms. `min()`, `max()` and the quantizations are not affected by `agghist`.

use difvm::aggregation::{average_of, standard_deviation_of, AggregationRule};

use crate::render::histogram::{
    render_histogram_header, BarScale, HistogramStyle, AGGZOOM_MAXIMUM_HEIGHT,
};

/// The bar scale shared by all entries of one aggregation printed with `agghist`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueHistogram {
    scale: BarScale,
}

impl ValueHistogram {
    /// The scale for an aggregation whose entries hold `values` (their value words), or
    /// `None` when `agghist` does not apply to the aggregation's function.
    pub fn new<'w>(
        rule: &AggregationRule,
        values: impl IntoIterator<Item = &'w [i64]>,
        style: HistogramStyle,
    ) -> Option<ValueHistogram> {
        if !applies_to(rule) {
            return None;
        }
        let mut total: i128 = 0;
        let mut positives = false;
        let mut negatives = false;
        for words in values {
            let value = histogram_value(rule, words);
            positives |= value > 0;
            negatives |= value < 0;
            let magnitude = i128::from(value).abs();
            if style.zoom {
                // DTrace scales in long double and stores the result in an int64_t,
                // which truncates it.
                let scaled = (magnitude as f64 * (1.0 / AGGZOOM_MAXIMUM_HEIGHT)) as i128;
                total = total.max(scaled);
            } else {
                total += magnitude;
            }
        }
        Some(ValueHistogram {
            scale: BarScale {
                total: total as f64,
                positives,
                negatives,
                utf8: style.utf8,
            },
        })
    }

    /// Appends the header printed before the first entry: `key` right-aligned in the
    /// width of the packed keys, or `value` in 16 columns without keys.
    pub fn render_header(&self, out: &mut String, key_width: usize) {
        render_histogram_header(out, key_width);
    }

    /// Appends an entry's value after its keys: a space, then the bar and the value
    /// (divided by the normalization for display, not for the bar) and the newline.
    pub fn render_value(
        &self,
        out: &mut String,
        rule: &AggregationRule,
        words: &[i64],
        normalization: u64,
    ) {
        out.push(' ');
        let value = histogram_value(rule, words);
        self.scale.render_row(out, value, normalization);
    }
}

/// Whether `agghist` displays aggregations of this function (those that
/// `dt_aggregate_total` totals).
pub fn applies_to(rule: &AggregationRule) -> bool {
    matches!(
        rule,
        AggregationRule::Count
            | AggregationRule::Sum
            | AggregationRule::Average
            | AggregationRule::StandardDeviation
    )
}

/// The value an entry contributes to the `agghist` display: the count or sum, the
/// integer mean of `avg()` and the standard deviation of `stddev()` (computed without
/// normalization, as `dt_aggregate_total` does); 0 for other functions.
///
/// Classic DTrace totals `avg()` and `stddev()` by their computed values but then draws
/// the bar of the first value word (the number of samples) behind an assertion that
/// only `count()` and `sum()` get here; the bar of the computed value is drawn instead,
/// consistently with the total.
fn histogram_value(rule: &AggregationRule, words: &[i64]) -> i64 {
    match rule {
        AggregationRule::Count | AggregationRule::Sum => words.first().copied().unwrap_or(0),
        AggregationRule::Average => average_of(words, 1),
        AggregationRule::StandardDeviation => standard_deviation_of(words, 1) as i64,
        _ => 0,
    }
}
