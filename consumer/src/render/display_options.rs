//! The options that change how aggregations are displayed beyond sorting and key
//! layout: `aggzoom`, `agghist`, `aggpack` and the `utf8` encoding, read from the
//! option set the way DTrace's consumer reads `DTRACEOPT_AGGZOOM`, `DTRACEOPT_AGGHIST`,
//! `DTRACEOPT_AGGPACK` and `dt_encoding`.

use crate::options::{DtraceOption, OptionSet};
use crate::render::histogram::HistogramStyle;

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

impl AggregationDisplayOptions {
    /// The display options an option set selects.
    pub fn from_options(options: &OptionSet) -> AggregationDisplayOptions {
        AggregationDisplayOptions {
            histogram_style: HistogramStyle {
                zoom: options.boolean(DtraceOption::AggZoom),
                utf8: options.word(DtraceOption::Encoding) == Some("utf8"),
            },
            value_histograms: options.boolean(DtraceOption::AggHist),
            packed_histograms: options.boolean(DtraceOption::AggPack),
        }
    }
}
