//! DTrace's orders of aggregation data: values compared by function and keys compared
//! component by component (integers as unsigned numbers of their size, other data byte
//! by byte). `trunc()` keeps entries by the value order, and the display sorts with both.

use std::cmp::Ordering;

use difvm::aggregation::{
    average_of, quantize_bucket_value, standard_deviation_of, AggregationRule, BucketLabel,
    QUANTIZE_ZERO_BUCKET,
};
use difvm::object::{AggregationDescription, ValueLayout};

use crate::record::slot_bytes;

/// Orders two values of one aggregation the way DTrace's `dt_aggregate_valcmp` does:
/// scalars by value, `avg` by mean, `stddev` by standard deviation, histograms by the
/// sum of bucket value × count and then by the count of the bucket holding zero.
pub fn compare_values(rule: &AggregationRule, left: &[i64], right: &[i64]) -> Ordering {
    let first = |words: &[i64]| words.first().copied().unwrap_or(0);
    match rule {
        AggregationRule::Count
        | AggregationRule::Sum
        | AggregationRule::Minimum
        | AggregationRule::Maximum => first(left).cmp(&first(right)),
        AggregationRule::Average => average_of(left, 1).cmp(&average_of(right, 1)),
        AggregationRule::StandardDeviation => {
            standard_deviation_of(left, 1).cmp(&standard_deviation_of(right, 1))
        }
        _ => {
            let (left_sum, left_zero) = histogram_weight(rule, left);
            let (right_sum, right_zero) = histogram_weight(rule, right);
            left_sum.cmp(&right_sum).then(left_zero.cmp(&right_zero))
        }
    }
}

/// Σ(bucket value × count) of a histogram, and the count of its bucket holding zero.
/// `lquantize` weighs its underflow bucket as `low - 1` and its overflow bucket as
/// `limit + 1`, as DTrace does.
fn histogram_weight(rule: &AggregationRule, words: &[i64]) -> (i128, i64) {
    let weighted_sum = |weights: &mut dyn Iterator<Item = i64>| -> i128 {
        weights.zip(words).fold(0i128, |sum, (weight, &count)| {
            sum.saturating_add(i128::from(weight) * i128::from(count))
        })
    };
    let count_at = |index: Option<usize>| {
        index
            .and_then(|index| words.get(index))
            .copied()
            .unwrap_or(0)
    };
    match rule {
        AggregationRule::Quantize => (
            weighted_sum(&mut (0..words.len()).map(quantize_bucket_value)),
            count_at(Some(QUANTIZE_ZERO_BUCKET)),
        ),
        AggregationRule::LinearQuantize(linear) => {
            let weight = |index: usize| match linear.bucket_label(index) {
                BucketLabel::Below(low) => low - 1,
                BucketLabel::AtLeast(limit) => limit + 1,
                BucketLabel::Value(value)
                | BucketLabel::AtMost(value)
                | BucketLabel::AbsoluteBelow(value) => value,
            };
            // The first bucket whose weight is zero (underflow, a level, or overflow,
            // in DTrace's order of checking) holds zero.
            let zero = (0..linear.bucket_count()).find(|&index| weight(index) == 0);
            (
                weighted_sum(&mut (0..words.len()).map(weight)),
                count_at(zero),
            )
        }
        AggregationRule::LogLinearQuantize(log_linear) => {
            let weight = |index: usize| match log_linear.bucket_label(index) {
                BucketLabel::AbsoluteBelow(_) => 0,
                BucketLabel::Value(value)
                | BucketLabel::Below(value)
                | BucketLabel::AtMost(value)
                | BucketLabel::AtLeast(value) => value,
            };
            (
                weighted_sum(&mut (0..words.len()).map(weight)),
                count_at(Some(log_linear.centre_bucket())),
            )
        }
        _ => (0, 0),
    }
}

/// Orders two encoded keys of one aggregation (DTrace's `dt_aggregate_keycmp`): the
/// components starting at `key_position`, integers of 1, 2, 4 and 8 bytes as unsigned
/// numbers, user symbols by (pid, address), everything else byte by byte.
pub fn compare_keys(
    description: &AggregationDescription,
    left: &[u8],
    right: &[u8],
    key_position: usize,
) -> Ordering {
    compare_keys_across((description, left), (description, right), key_position)
}

/// Orders two encoded keys of aggregations with as many key components, each decoded by
/// its own aggregation's layout (a joined `printa()`). As in DTrace's
/// `dt_aggregate_keycmp`, a component recorded in fewer bytes comes first, so keys of
/// different sizes (a `char` and a `long` key) are never equal.
pub fn compare_keys_across(
    (left_description, left): (&AggregationDescription, &[u8]),
    (right_description, right): (&AggregationDescription, &[u8]),
    key_position: usize,
) -> Ordering {
    let count = left_description
        .keys
        .len()
        .min(right_description.keys.len());
    let start = if key_position >= count {
        0
    } else {
        key_position
    };
    for offset in 0..count {
        let index = (start + offset) % count;
        let (left_slot, right_slot) = (
            &left_description.keys[index],
            &right_description.keys[index],
        );
        let (Ok(left_bytes), Ok(right_bytes)) =
            (slot_bytes(left_slot, left), slot_bytes(right_slot, right))
        else {
            continue;
        };
        let order = match (left_slot.size, &left_slot.layout) {
            _ if left_slot.size != right_slot.size => left_slot.size.cmp(&right_slot.size),
            (1 | 2 | 4 | 8, _) => unsigned_value(left_bytes).cmp(&unsigned_value(right_bytes)),
            (16, ValueLayout::UserSymbol(_)) => unsigned_value(&left_bytes[..8])
                .cmp(&unsigned_value(&right_bytes[..8]))
                .then(unsigned_value(&left_bytes[8..]).cmp(&unsigned_value(&right_bytes[8..]))),
            _ => left_bytes.cmp(right_bytes),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

/// A little-endian unsigned number of up to 8 bytes.
fn unsigned_value(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |value, &byte| (value << 8) | u64::from(byte))
}
