//! The options that change how aggregations are displayed beyond sorting and key
//! layout: `aggzoom`, `agghist`, `aggpack` and the `utf8` encoding (`crate::settings`
//! derives them from the option set).

use super::histogram::HistogramStyle;

/// How aggregation values are displayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AggregationDisplayOptions {
    /// `aggzoom` and `encoding=utf8`: how histogram bars are drawn (also in `printa()`
    /// with a format).
    pub histogram_style: HistogramStyle,
    /// `agghist`: `count()`, `sum()`, `avg()` and `stddev()` aggregations print one
    /// histogram bar per entry under a `key` header.
    pub value_histograms: bool,
    /// `aggpack`: `quantize()` and `lquantize()` aggregations print each entry's
    /// distribution packed on one line.
    pub packed_histograms: bool,
}
