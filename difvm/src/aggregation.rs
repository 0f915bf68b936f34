//! Aggregating functions: the value layout of each function (a fixed number of 64-bit
//! words), the update rule applied when a probe fires, the merge of two per-CPU values,
//! the bucket schemes of `quantize`, `lquantize` and `llquantize` with the labels the
//! consumer prints for them, and the integer results of `avg` and `stddev`.
//!
//! # Value layouts
//!
//! | function | words |
//! |---|---|
//! | `count` | `[count]` |
//! | `sum` | `[sum]` |
//! | `avg` | `[count, sum]` |
//! | `min` | `[min]`, starting at `i64::MAX` |
//! | `max` | `[max]`, starting at `i64::MIN` |
//! | `stddev` | `[count, sum, sum of squares (low 64 bits), sum of squares (high 64 bits)]` |
//! | `quantize` | 127 bucket counts |
//! | `lquantize` | `levels + 2` bucket counts: underflow, one per level, overflow |
//! | `llquantize` | `2 * M + 3` bucket counts, see below |
//!
//! Words are `i64`; counts and the 128-bit sum of squares are unsigned quantities stored
//! bit for bit.
//!
//! # quantize
//!
//! Bucket 63 holds 0. Bucket `63 + 1 + k` (k = 0..=62) holds `2^k <= x < 2^(k+1)` and is
//! labelled `2^k`; bucket 126 also takes every value `>= 2^62`. Bucket `63 - 1 - k` holds
//! `-2^(k+1) < x <= -2^k` and is labelled `-2^k`; bucket 0 also takes every value
//! `<= -2^62`. This is classic DTrace's `DTRACE_QUANTIZE_BUCKETVAL` scheme.
//!
//! # lquantize(x, low, high, step)
//!
//! `levels = (high - low) / step`. `x` is first truncated to 32 bits (as classic DTrace
//! does). Bucket 0 holds `x < low`; bucket `1 + i` holds `low + i*step <= x <
//! low + (i+1)*step`; bucket `levels + 1` holds `x >= low + levels*step`.
//!
//! # llquantize(x, factor, low, high, steps): signed log-linear buckets
//!
//! We follow the Linux 2.x decision (signed values, mirrored negative buckets) on top of
//! the classic bucket boundaries. For each magnitude `m` in `low..=high` the classic
//! positive buckets start at `factor^m` and are `width = max(1, factor^(m+1) / steps)`
//! apart, up to (excluding) `factor^(m+1)`. Call the resulting ascending list of bucket
//! lower bounds `b[0..M]` (for `llquantize(x, 10, 0, 2, 10)`: 1..9, 10, 20..90, 100,
//! 200..900, so M = 27). With `T = factor^(high+1)` and `L = factor^low` the buckets are,
//! in index order:
//!
//! | index | holds | label |
//! |---|---|---|
//! | 0 | `x <= -T` | `<= -T` |
//! | `1 + j` (j = 0..M) | mirror of positive bucket `M-1-j`: `-upper < x <= -b[M-1-j]` | `-b[M-1-j]` |
//! | `M + 1` | `-L < x < L` | `0` when `L = 1`, else `abs() < L` |
//! | `M + 2 + j` (j = 0..M) | `b[j] <= x < b[j+1]` (the last one up to `T`) | `b[j]` |
//! | `2M + 2` | `x >= T` | `>= T` |
//!
//! where `upper` is the next bound above `b[M-1-j]` (or `T`). Non-negative values therefore
//! land exactly where classic DTrace puts them (its underflow row is our centre bucket
//! restricted to `0 <= x < L`), and negative values land in the mirror image.

use crate::object::AggregationFunction;

/// Number of `quantize` buckets.
pub const QUANTIZE_BUCKET_COUNT: usize = 127;
/// Index of the `quantize` bucket that holds zero.
pub const QUANTIZE_ZERO_BUCKET: usize = 63;
/// Largest number of `lquantize` levels a program may ask for.
pub const LQUANTIZE_MAX_LEVELS: i64 = 65535;
/// Largest number of buckets an `llquantize` aggregation may have; more would make every
/// aggregation entry enormous.
pub const LLQUANTIZE_MAX_BUCKETS: usize = 65536;

/// Why an aggregating function's parameters cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AggregationError {
    /// `lquantize` with `step` 0, `low >= high`, or a number of levels outside 1..=65535.
    InvalidLinearParameters { low: i32, high: i32, step: u32 },
    /// `llquantize` with `factor < 2`, `high < low`, `steps` 0, `factor^(high+1)`
    /// overflowing 64 bits, or too many buckets.
    InvalidLogLinearParameters {
        factor: u16,
        low: u16,
        high: u16,
        steps: u16,
    },
}

impl std::fmt::Display for AggregationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AggregationError::InvalidLinearParameters { low, high, step } => {
                write!(f, "invalid lquantize parameters: low {low}, high {high}, step {step}")
            }
            AggregationError::InvalidLogLinearParameters { factor, low, high, steps } => write!(
                f,
                "invalid llquantize parameters: factor {factor}, low {low}, high {high}, steps {steps}"
            ),
        }
    }
}

impl std::error::Error for AggregationError {}

/// How the consumer labels one histogram bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BucketLabel {
    /// The bucket's value or lower bound (printed as the number).
    Value(i64),
    /// Values below the number (printed `< N`).
    Below(i64),
    /// Values at or below the number (printed `<= N`).
    AtMost(i64),
    /// Values whose absolute value is below the number (printed `abs() < N`).
    AbsoluteBelow(i64),
    /// Values at or above the number (printed `>= N`).
    AtLeast(i64),
}

/// The bucket of a `quantize` value.
pub fn quantize_bucket(value: i64) -> usize {
    if value == 0 {
        QUANTIZE_ZERO_BUCKET
    } else if value > 0 {
        // floor(log2(value)) is 0..=62 for positive i64 values.
        let power = 63 - value.leading_zeros() as usize;
        QUANTIZE_ZERO_BUCKET + 1 + power
    } else {
        // -2^(k+1) < x <= -2^k  <=>  2^k <= |x| < 2^(k+1); |i64::MIN| = 2^63 clamps to 62.
        let magnitude = value.unsigned_abs();
        let power = (63 - magnitude.leading_zeros() as usize).min(62);
        QUANTIZE_ZERO_BUCKET - 1 - power
    }
}

/// The value (`-2^62` … `-1`, `0`, `1` … `2^62`) that labels a `quantize` bucket.
pub fn quantize_bucket_value(index: usize) -> i64 {
    let index = index.min(QUANTIZE_BUCKET_COUNT - 1);
    if index == QUANTIZE_ZERO_BUCKET {
        0
    } else if index > QUANTIZE_ZERO_BUCKET {
        1i64 << (index - QUANTIZE_ZERO_BUCKET - 1)
    } else {
        -(1i64 << (QUANTIZE_ZERO_BUCKET - 1 - index))
    }
}

/// The bucket scheme of one `lquantize` aggregation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinearQuantization {
    pub low: i64,
    pub step: i64,
    pub levels: i64,
}

impl LinearQuantization {
    /// Checks the parameters the way the compiler does (`low < high`, `step >= 1`,
    /// 1..=65535 levels).
    pub fn new(low: i32, high: i32, step: u32) -> Result<LinearQuantization, AggregationError> {
        let invalid = AggregationError::InvalidLinearParameters { low, high, step };
        if step == 0 || low >= high {
            return Err(invalid);
        }
        let levels = (high as i64 - low as i64) / step as i64;
        if !(1..=LQUANTIZE_MAX_LEVELS).contains(&levels) {
            return Err(invalid);
        }
        Ok(LinearQuantization {
            low: low as i64,
            step: step as i64,
            levels,
        })
    }

    /// Number of buckets: underflow, the levels, overflow.
    pub fn bucket_count(&self) -> usize {
        self.levels as usize + 2
    }

    /// The bucket of `value` (truncated to 32 bits first, as classic DTrace does).
    pub fn bucket(&self, value: i64) -> usize {
        let value = value as i32 as i64;
        if value < self.low {
            return 0;
        }
        let level = (value - self.low) / self.step;
        if level < self.levels {
            level as usize + 1
        } else {
            self.levels as usize + 1
        }
    }

    /// The label of bucket `index`: `< low`, a level's lower bound, or `>= limit`.
    pub fn bucket_label(&self, index: usize) -> BucketLabel {
        if index == 0 {
            BucketLabel::Below(self.low)
        } else if (index as i64) <= self.levels {
            BucketLabel::Value(self.low + (index as i64 - 1) * self.step)
        } else {
            BucketLabel::AtLeast(self.low + self.levels * self.step)
        }
    }
}

/// The bucket scheme of one `llquantize` aggregation (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLinearQuantization {
    pub factor: u16,
    pub low: u16,
    pub high: u16,
    pub steps: u16,
    /// `factor^low`: the bound of the centre bucket.
    low_bound: i64,
    /// `factor^(high+1)`: where the overflow buckets start.
    high_bound: i64,
    /// Ascending lower bounds of the positive magnitude buckets.
    bounds: Vec<i64>,
}

impl LogLinearQuantization {
    /// Computes the bucket bounds; refuses parameters that would overflow or make more
    /// than [`LLQUANTIZE_MAX_BUCKETS`] buckets.
    pub fn new(
        factor: u16,
        low: u16,
        high: u16,
        steps: u16,
    ) -> Result<LogLinearQuantization, AggregationError> {
        let invalid = AggregationError::InvalidLogLinearParameters {
            factor,
            low,
            high,
            steps,
        };
        if factor < 2 || high < low || steps == 0 {
            return Err(invalid);
        }
        let factor_wide = factor as i64;
        let low_bound = factor_wide.checked_pow(low as u32).ok_or(invalid.clone())?;
        let high_bound = factor_wide
            .checked_pow(high as u32 + 1)
            .ok_or(invalid.clone())?;
        let mut bounds = Vec::new();
        let mut magnitude_start = low_bound;
        for _ in low..=high {
            let magnitude_end = magnitude_start * factor_wide;
            let width = (magnitude_end / steps as i64).max(1);
            let mut bound = magnitude_start;
            while bound < magnitude_end {
                if bounds.len() * 2 + 3 > LLQUANTIZE_MAX_BUCKETS {
                    return Err(invalid);
                }
                bounds.push(bound);
                bound += width;
            }
            magnitude_start = magnitude_end;
        }
        Ok(LogLinearQuantization {
            factor,
            low,
            high,
            steps,
            low_bound,
            high_bound,
            bounds,
        })
    }

    /// Number of buckets: `2 * M + 3`.
    pub fn bucket_count(&self) -> usize {
        self.bounds.len() * 2 + 3
    }

    /// Index of the centre bucket (`-factor^low < x < factor^low`).
    pub fn centre_bucket(&self) -> usize {
        self.bounds.len() + 1
    }

    /// Position of a non-negative magnitude `>= factor^low` among the positive buckets:
    /// `Some(j)` for bucket `b[j]`, `None` for the overflow range.
    fn positive_position(&self, magnitude: u64) -> Option<usize> {
        if magnitude >= self.high_bound as u64 {
            return None;
        }
        // The last bound <= magnitude; bounds[0] = factor^low <= magnitude here.
        let position = self
            .bounds
            .partition_point(|&bound| bound as u64 <= magnitude);
        Some(position.saturating_sub(1))
    }

    /// The bucket of `value`.
    pub fn bucket(&self, value: i64) -> usize {
        let centre = self.centre_bucket();
        let magnitude = value.unsigned_abs();
        if magnitude < self.low_bound as u64 {
            return centre;
        }
        match (value > 0, self.positive_position(magnitude)) {
            (true, Some(position)) => centre + 1 + position,
            (true, None) => self.bucket_count() - 1,
            (false, Some(position)) => centre - 1 - position,
            (false, None) => 0,
        }
    }

    /// The label of bucket `index`.
    pub fn bucket_label(&self, index: usize) -> BucketLabel {
        let centre = self.centre_bucket();
        let last = self.bucket_count() - 1;
        if index == 0 {
            BucketLabel::AtMost(-self.high_bound)
        } else if index < centre {
            BucketLabel::Value(-self.bounds[centre - 1 - index])
        } else if index == centre {
            if self.low_bound == 1 {
                BucketLabel::Value(0)
            } else {
                BucketLabel::AbsoluteBelow(self.low_bound)
            }
        } else if index < last {
            BucketLabel::Value(self.bounds[index - centre - 1])
        } else {
            BucketLabel::AtLeast(self.high_bound)
        }
    }
}

/// The update and merge rules of one aggregation, with its bucket scheme precomputed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AggregationRule {
    Count,
    Sum,
    Average,
    Minimum,
    Maximum,
    StandardDeviation,
    Quantize,
    LinearQuantize(LinearQuantization),
    LogLinearQuantize(LogLinearQuantization),
}

impl AggregationRule {
    /// The rule for `function`; fails on histogram parameters no compiler should accept.
    pub fn new(function: &AggregationFunction) -> Result<AggregationRule, AggregationError> {
        Ok(match *function {
            AggregationFunction::Count => AggregationRule::Count,
            AggregationFunction::Sum => AggregationRule::Sum,
            AggregationFunction::Avg => AggregationRule::Average,
            AggregationFunction::Min => AggregationRule::Minimum,
            AggregationFunction::Max => AggregationRule::Maximum,
            AggregationFunction::Stddev => AggregationRule::StandardDeviation,
            AggregationFunction::Quantize => AggregationRule::Quantize,
            AggregationFunction::Lquantize { low, high, step } => {
                AggregationRule::LinearQuantize(LinearQuantization::new(low, high, step)?)
            }
            AggregationFunction::Llquantize {
                factor,
                low,
                high,
                steps,
            } => AggregationRule::LogLinearQuantize(LogLinearQuantization::new(
                factor, low, high, steps,
            )?),
        })
    }

    /// Number of 64-bit words in a value.
    pub fn word_count(&self) -> usize {
        match self {
            AggregationRule::Count
            | AggregationRule::Sum
            | AggregationRule::Minimum
            | AggregationRule::Maximum => 1,
            AggregationRule::Average => 2,
            AggregationRule::StandardDeviation => 4,
            AggregationRule::Quantize => QUANTIZE_BUCKET_COUNT,
            AggregationRule::LinearQuantize(linear) => linear.bucket_count(),
            AggregationRule::LogLinearQuantize(log_linear) => log_linear.bucket_count(),
        }
    }

    /// The value of an entry nothing has been added to yet.
    pub fn initial_value(&self) -> Vec<i64> {
        match self {
            AggregationRule::Minimum => vec![i64::MAX],
            AggregationRule::Maximum => vec![i64::MIN],
            _ => vec![0; self.word_count()],
        }
    }

    /// Adds one firing's `value` (weighted by `increment` for the histograms) to `words`.
    /// Words of the wrong length are left alone rather than indexed out of range.
    pub fn update(&self, words: &mut [i64], value: i64, increment: i64) {
        if words.len() != self.word_count() {
            return;
        }
        match self {
            AggregationRule::Count => words[0] = words[0].wrapping_add(1),
            AggregationRule::Sum => words[0] = words[0].wrapping_add(value),
            AggregationRule::Average => {
                words[0] = words[0].wrapping_add(1);
                words[1] = words[1].wrapping_add(value);
            }
            AggregationRule::Minimum => words[0] = words[0].min(value),
            AggregationRule::Maximum => words[0] = words[0].max(value),
            AggregationRule::StandardDeviation => {
                words[0] = words[0].wrapping_add(1);
                words[1] = words[1].wrapping_add(value);
                let magnitude = value.unsigned_abs() as u128;
                let squares = sum_of_squares(words).wrapping_add(magnitude * magnitude);
                words[2] = squares as u64 as i64;
                words[3] = (squares >> 64) as u64 as i64;
            }
            AggregationRule::Quantize => add_to_bucket(words, quantize_bucket(value), increment),
            AggregationRule::LinearQuantize(linear) => {
                add_to_bucket(words, linear.bucket(value), increment)
            }
            AggregationRule::LogLinearQuantize(log_linear) => {
                add_to_bucket(words, log_linear.bucket(value), increment)
            }
        }
    }

    /// Merges `other` (another CPU's value of the same entry) into `into`.
    pub fn merge(&self, into: &mut [i64], other: &[i64]) {
        if into.len() != self.word_count() || other.len() != into.len() {
            return;
        }
        match self {
            AggregationRule::Minimum => into[0] = into[0].min(other[0]),
            AggregationRule::Maximum => into[0] = into[0].max(other[0]),
            AggregationRule::StandardDeviation => {
                into[0] = into[0].wrapping_add(other[0]);
                into[1] = into[1].wrapping_add(other[1]);
                let squares = sum_of_squares(into).wrapping_add(sum_of_squares(other));
                into[2] = squares as u64 as i64;
                into[3] = (squares >> 64) as u64 as i64;
            }
            _ => {
                for (word, addend) in into.iter_mut().zip(other) {
                    *word = word.wrapping_add(*addend);
                }
            }
        }
    }

    /// The label of every bucket of a histogram rule, in index order; empty for the
    /// non-histogram functions.
    pub fn bucket_labels(&self) -> Vec<BucketLabel> {
        match self {
            AggregationRule::Quantize => (0..QUANTIZE_BUCKET_COUNT)
                .map(|index| BucketLabel::Value(quantize_bucket_value(index)))
                .collect(),
            AggregationRule::LinearQuantize(linear) => (0..linear.bucket_count())
                .map(|index| linear.bucket_label(index))
                .collect(),
            AggregationRule::LogLinearQuantize(log_linear) => (0..log_linear.bucket_count())
                .map(|index| log_linear.bucket_label(index))
                .collect(),
            _ => Vec::new(),
        }
    }
}

fn add_to_bucket(words: &mut [i64], bucket: usize, increment: i64) {
    if let Some(word) = words.get_mut(bucket) {
        *word = word.wrapping_add(increment);
    }
}

fn sum_of_squares(words: &[i64]) -> u128 {
    (words[2] as u64 as u128) | ((words[3] as u64 as u128) << 64)
}

/// The integer result of `avg()` from its `[count, sum]` words, divided by `normal`
/// (1 when not normalized), as classic DTrace computes it: `sum / normal / count`.
pub fn average_of(words: &[i64], normal: i64) -> i64 {
    match words {
        [count, sum, ..] if *count != 0 && normal != 0 => {
            sum.wrapping_div(normal).wrapping_div(*count)
        }
        _ => 0,
    }
}

/// The integer result of `stddev()` from its four words, divided by `normal`: the square
/// root of (sum of squares / normal² / count) − (sum / normal / count)², as classic
/// DTrace's `dt_stddev` computes it.
pub fn standard_deviation_of(words: &[i64], normal: i64) -> u64 {
    if words.len() < 4 || words[0] == 0 || normal == 0 {
        return 0;
    }
    let count = words[0] as u64 as u128;
    let normal_wide = normal.unsigned_abs() as u128;
    let average_of_squares = sum_of_squares(words) / normal_wide / normal_wide / count;
    let average = words[1]
        .wrapping_div(normal)
        .wrapping_div(words[0])
        .unsigned_abs() as u128;
    integer_square_root(average_of_squares.saturating_sub(average * average))
}

/// floor(√value) for a 128-bit value.
fn integer_square_root(value: u128) -> u64 {
    if value == 0 {
        return 0;
    }
    // Start from a power of two above the root and run Newton's iteration downwards.
    let bits = 128 - value.leading_zeros();
    let mut root: u128 = 1 << bits.div_ceil(2);
    loop {
        let next = (root + value / root) / 2;
        if next >= root {
            return root as u64;
        }
        root = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Classic DTrace's bucket search for quantize, written as its loop.
    fn classic_quantize_bucket(value: i64) -> usize {
        if value < 0 {
            for index in 0..QUANTIZE_ZERO_BUCKET {
                if value <= quantize_bucket_value(index) {
                    return index;
                }
            }
            return QUANTIZE_ZERO_BUCKET - 1;
        }
        for index in QUANTIZE_ZERO_BUCKET + 1..QUANTIZE_BUCKET_COUNT {
            if value < quantize_bucket_value(index) {
                return index - 1;
            }
        }
        QUANTIZE_BUCKET_COUNT - 1
    }

    #[test]
    fn quantize_buckets_match_the_classic_search() {
        let mut values = vec![0, 1, -1, 2, -2, 3, -3, i64::MAX, i64::MIN, i64::MIN + 1];
        for power in 0..63 {
            let bound = 1i64 << power;
            values.extend([bound, bound - 1, bound + 1, -bound, -bound + 1, -bound - 1]);
        }
        for value in values {
            assert_eq!(
                quantize_bucket(value),
                classic_quantize_bucket(value),
                "value {value}"
            );
        }
    }

    #[test]
    fn quantize_bucket_examples() {
        let check = |value: i64, label: i64| {
            assert_eq!(
                quantize_bucket_value(quantize_bucket(value)),
                label,
                "value {value}"
            );
        };
        check(0, 0);
        check(1, 1);
        check(2, 2);
        check(3, 2);
        check(64, 64);
        check(1023, 512);
        check(1024, 1024);
        check(-1, -1);
        check(-2, -2);
        check(-3, -2);
        check(-4, -4);
        check(i64::MAX, 1 << 62);
        check(i64::MIN, -(1 << 62));
        assert_eq!(quantize_bucket(0), 63);
        assert_eq!(quantize_bucket(1), 64);
        assert_eq!(quantize_bucket(-1), 62);
        assert_eq!(quantize_bucket_value(0), -(1 << 62));
        assert_eq!(quantize_bucket_value(126), 1 << 62);
    }

    #[test]
    fn lquantize_buckets() {
        let linear = LinearQuantization::new(-100, 1100, 100).unwrap();
        assert_eq!(linear.levels, 12);
        assert_eq!(linear.bucket_count(), 14);
        let check = |value: i64, bucket: usize| {
            assert_eq!(linear.bucket(value), bucket, "value {value}");
        };
        check(-101, 0);
        check(-100, 1);
        check(-1, 1);
        check(0, 2);
        check(99, 2);
        check(1099, 12);
        check(1100, 13);
        check(i32::MAX as i64, 13);
        // Truncation to 32 bits: 2^32 + 5 is 5.
        check((1i64 << 32) + 5, 2);
        check(-(1i64 << 32) - 150, 0);
        assert_eq!(linear.bucket_label(0), BucketLabel::Below(-100));
        assert_eq!(linear.bucket_label(1), BucketLabel::Value(-100));
        assert_eq!(linear.bucket_label(2), BucketLabel::Value(0));
        assert_eq!(linear.bucket_label(13), BucketLabel::AtLeast(1100));
    }

    #[test]
    fn lquantize_rejects_bad_parameters() {
        assert!(LinearQuantization::new(0, 0, 1).is_err());
        assert!(LinearQuantization::new(10, 0, 1).is_err());
        assert!(LinearQuantization::new(0, 10, 0).is_err());
        assert!(LinearQuantization::new(0, 10, 11).is_err());
        assert!(LinearQuantization::new(0, 70000, 1).is_err());
        assert!(LinearQuantization::new(0, 65535, 1).is_ok());
        // Uneven ranges round the levels down, as classic DTrace does.
        assert_eq!(LinearQuantization::new(0, 10, 3).unwrap().levels, 3);
    }

    #[test]
    fn llquantize_bounds_follow_the_classic_layout() {
        let log_linear = LogLinearQuantization::new(10, 0, 2, 10).unwrap();
        let expected: Vec<i64> = (1..10)
            .chain((1..10).map(|n| n * 10))
            .chain((1..10).map(|n| n * 100))
            .collect();
        assert_eq!(log_linear.bounds, expected);
        assert_eq!(log_linear.bucket_count(), 2 * 27 + 3);
        let centre = log_linear.centre_bucket();
        assert_eq!(centre, 28);
        let check = |value: i64, bucket: usize| {
            assert_eq!(log_linear.bucket(value), bucket, "value {value}");
        };
        check(0, centre);
        check(1, centre + 1);
        check(9, centre + 9);
        check(10, centre + 10);
        check(19, centre + 10);
        check(20, centre + 11);
        check(999, centre + 27);
        check(1000, 56);
        check(i64::MAX, 56);
        check(-1, centre - 1);
        check(-9, centre - 9);
        check(-15, centre - 10);
        check(-999, 1);
        check(-1000, 0);
        check(i64::MIN, 0);
        assert_eq!(log_linear.bucket_label(0), BucketLabel::AtMost(-1000));
        assert_eq!(log_linear.bucket_label(1), BucketLabel::Value(-900));
        assert_eq!(log_linear.bucket_label(centre - 1), BucketLabel::Value(-1));
        assert_eq!(log_linear.bucket_label(centre), BucketLabel::Value(0));
        assert_eq!(log_linear.bucket_label(centre + 1), BucketLabel::Value(1));
        assert_eq!(log_linear.bucket_label(centre + 11), BucketLabel::Value(20));
        assert_eq!(log_linear.bucket_label(56), BucketLabel::AtLeast(1000));
    }

    #[test]
    fn llquantize_with_more_steps_than_factor_and_a_low_magnitude() {
        // factor 10, magnitudes 1..=2, 20 steps: 10,15,...,95 then 100,150,...,950.
        let log_linear = LogLinearQuantization::new(10, 1, 2, 20).unwrap();
        assert_eq!(log_linear.bounds.len(), 36);
        assert_eq!(log_linear.bounds[0], 10);
        assert_eq!(log_linear.bounds[1], 15);
        assert_eq!(log_linear.bounds[18], 100);
        assert_eq!(log_linear.bounds[19], 150);
        let centre = log_linear.centre_bucket();
        assert_eq!(log_linear.bucket(9), centre);
        assert_eq!(log_linear.bucket(-9), centre);
        assert_eq!(log_linear.bucket(14), centre + 1);
        assert_eq!(log_linear.bucket(15), centre + 2);
        assert_eq!(log_linear.bucket(-15), centre - 2);
        assert_eq!(
            log_linear.bucket_label(centre),
            BucketLabel::AbsoluteBelow(10)
        );
    }

    #[test]
    fn llquantize_with_fewer_steps_than_factor() {
        // factor 10, 5 steps: width 2 in magnitude 0 (1,3,5,7,9), 20 in magnitude 1.
        let log_linear = LogLinearQuantization::new(10, 0, 1, 5).unwrap();
        assert_eq!(log_linear.bounds, vec![1, 3, 5, 7, 9, 10, 30, 50, 70, 90]);
        let centre = log_linear.centre_bucket();
        assert_eq!(log_linear.bucket(2), centre + 1);
        assert_eq!(log_linear.bucket(4), centre + 2);
        assert_eq!(log_linear.bucket(29), centre + 6);
    }

    #[test]
    fn llquantize_rejects_bad_parameters() {
        assert!(LogLinearQuantization::new(1, 0, 2, 10).is_err());
        assert!(LogLinearQuantization::new(10, 3, 2, 10).is_err());
        assert!(LogLinearQuantization::new(10, 0, 2, 0).is_err());
        assert!(LogLinearQuantization::new(10, 0, 17, 10).is_ok());
        assert!(LogLinearQuantization::new(10, 0, 18, 10).is_err());
        assert!(LogLinearQuantization::new(2, 0, 40, 65535).is_err());
    }

    #[test]
    fn scalar_updates_and_merges() {
        let check = |function: AggregationFunction, values: &[i64], expected: &[i64]| {
            let rule = AggregationRule::new(&function).unwrap();
            let mut words = rule.initial_value();
            for &value in values {
                rule.update(&mut words, value, 1);
            }
            assert_eq!(words, expected, "{function:?}");
        };
        check(AggregationFunction::Count, &[5, 6, 7], &[3]);
        check(AggregationFunction::Sum, &[5, -6, 7], &[6]);
        check(AggregationFunction::Avg, &[5, 6, 7], &[3, 18]);
        check(AggregationFunction::Min, &[5, -6, 7], &[-6]);
        check(AggregationFunction::Min, &[], &[i64::MAX]);
        check(AggregationFunction::Max, &[5, -6, 7], &[7]);
        check(AggregationFunction::Max, &[], &[i64::MIN]);
        check(AggregationFunction::Stddev, &[2, -4], &[2, -2, 20, 0]);

        let merge = |function: AggregationFunction, a: &[i64], b: &[i64], expected: &[i64]| {
            let rule = AggregationRule::new(&function).unwrap();
            let mut into = a.to_vec();
            rule.merge(&mut into, b);
            assert_eq!(into, expected, "{function:?}");
        };
        merge(AggregationFunction::Count, &[3], &[4], &[7]);
        merge(AggregationFunction::Avg, &[3, 10], &[1, 2], &[4, 12]);
        merge(AggregationFunction::Min, &[3], &[-4], &[-4]);
        merge(AggregationFunction::Max, &[3], &[-4], &[3]);
        merge(
            AggregationFunction::Stddev,
            &[1, 1, -1, 0],
            &[1, 1, 1, 0],
            &[2, 2, 0, 1],
        );
    }

    #[test]
    fn histogram_updates_use_the_increment() {
        let rule = AggregationRule::new(&AggregationFunction::Quantize).unwrap();
        let mut words = rule.initial_value();
        rule.update(&mut words, 256, 3);
        rule.update(&mut words, 0, -2);
        assert_eq!(words[quantize_bucket(256)], 3);
        assert_eq!(words[QUANTIZE_ZERO_BUCKET], -2);
        assert_eq!(words.iter().sum::<i64>(), 1);

        let rule = AggregationRule::new(&AggregationFunction::Lquantize {
            low: 0,
            high: 10,
            step: 5,
        })
        .unwrap();
        assert_eq!(rule.word_count(), 4);
        let mut words = rule.initial_value();
        for value in [-1, 0, 4, 5, 10, 11] {
            rule.update(&mut words, value, 1);
        }
        assert_eq!(words, vec![1, 2, 1, 2]);
        assert_eq!(
            rule.bucket_labels(),
            vec![
                BucketLabel::Below(0),
                BucketLabel::Value(0),
                BucketLabel::Value(5),
                BucketLabel::AtLeast(10)
            ]
        );
    }

    #[test]
    fn average_and_standard_deviation() {
        assert_eq!(average_of(&[3, 18], 1), 6);
        assert_eq!(average_of(&[3, 18], 2), 3);
        assert_eq!(average_of(&[0, 0], 1), 0);
        assert_eq!(average_of(&[2, -7], 1), -3);

        let rule = AggregationRule::new(&AggregationFunction::Stddev).unwrap();
        let mut words = rule.initial_value();
        for value in [2, 4, 4, 4, 5, 5, 7, 9] {
            rule.update(&mut words, value, 1);
        }
        assert_eq!(standard_deviation_of(&words, 1), 2);
        let mut large = rule.initial_value();
        for value in [i64::MAX, -i64::MAX] {
            rule.update(&mut large, value, 1);
        }
        // Mean 0, mean of squares (2^63-1)^2: the root is 2^63-1.
        assert_eq!(standard_deviation_of(&large, 1), i64::MAX as u64);
        assert_eq!(standard_deviation_of(&rule.initial_value(), 1), 0);
        assert_eq!(integer_square_root(15), 3);
        assert_eq!(integer_square_root(16), 4);
        assert_eq!(integer_square_root(u128::MAX), u64::MAX);
    }
}
