//! Aggregation snapshots from the kernel's per-CPU aggregation hash.
//!
//! Programs keep updating entries while the consumer reads them, and a per-CPU hash offers
//! no way to read and reset a value at once, so entries are never deleted while tracing:
//! each snapshot returns, per entry, what changed since the previous snapshot. Every word
//! of count, sum, avg, stddev and the histograms only grows by addition, so the change is
//! the word-wise difference (128-bit for stddev's sum of squares); min() and max() are
//! idempotent under merging, so their current value is the change. A CPU whose update
//! count (the value's first word) did not move contributes nothing, and one that never
//! touched the entry (count 0) holds zeroes that must not be merged. Per-CPU changes are
//! merged with `difvm::aggregation`'s rules into one entry per key, as the reference
//! engine's `drain_aggregations` delivers them.

use std::collections::HashMap;

use difvm::aggregation::AggregationRule;
use difvm::interp::engine::AggregationEntry;

/// What the previous snapshots saw of each (entry key, CPU).
#[derive(Debug, Default)]
pub struct AggregationBaseline {
    seen: HashMap<(Vec<u8>, usize), Vec<i64>>,
}

fn word(bytes: &[u8], index: usize) -> i64 {
    bytes
        .get(index * 8..index * 8 + 8)
        .and_then(|slice| slice.try_into().ok())
        .map(i64::from_le_bytes)
        .unwrap_or(0)
}

/// The change from `before` to `now` of one CPU's words under `rule`.
fn change(rule: &AggregationRule, before: Option<&[i64]>, now: &[i64]) -> Vec<i64> {
    let Some(before) = before else {
        return now.to_vec();
    };
    match rule {
        AggregationRule::Minimum | AggregationRule::Maximum => now.to_vec(),
        AggregationRule::StandardDeviation if now.len() == 4 && before.len() == 4 => {
            let squares =
                |words: &[i64]| (words[2] as u64 as u128) | ((words[3] as u64 as u128) << 64);
            let difference = squares(now).wrapping_sub(squares(before));
            vec![
                now[0].wrapping_sub(before[0]),
                now[1].wrapping_sub(before[1]),
                difference as u64 as i64,
                (difference >> 64) as u64 as i64,
            ]
        }
        _ => now
            .iter()
            .zip(before.iter().chain(std::iter::repeat(&0)))
            .map(|(now, before)| now.wrapping_sub(*before))
            .collect(),
    }
}

impl AggregationBaseline {
    /// The changes since the last call for one hash entry: `map_key` is the hash key
    /// (id, zero, tuple), `key` the aggregation's encoded key, `per_cpu_values` the
    /// per-CPU values (u64 update count, then the rule's words). None when no CPU changed
    /// the entry.
    pub fn entry_change(
        &mut self,
        aggregation: u32,
        rule: &AggregationRule,
        map_key: &[u8],
        key: &[u8],
        per_cpu_values: &[Vec<u8>],
    ) -> Option<AggregationEntry> {
        let words = rule.word_count();
        let mut merged: Option<Vec<i64>> = None;
        for (cpu, value) in per_cpu_values.iter().enumerate() {
            let updates = word(value, 0);
            if updates == 0 {
                continue;
            }
            let now: Vec<i64> = std::iter::once(updates)
                .chain((0..words).map(|index| word(value, index + 1)))
                .collect();
            let slot = (map_key.to_vec(), cpu);
            let before = self.seen.get(&slot);
            if before.is_some_and(|before| before[0] == updates) {
                continue;
            }
            let difference = change(rule, before.map(|before| &before[1..]), &now[1..]);
            self.seen.insert(slot, now);
            match &mut merged {
                Some(into) => rule.merge(into, &difference),
                None => merged = Some(difference),
            }
        }
        merged.map(|value| AggregationEntry {
            aggregation,
            key: key.to_vec(),
            value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(updates: i64, words: &[i64]) -> Vec<u8> {
        std::iter::once(updates)
            .chain(words.iter().copied())
            .flat_map(i64::to_le_bytes)
            .collect()
    }

    #[test]
    fn snapshots_deliver_changes_merged_across_cpus() {
        let mut baseline = AggregationBaseline::default();
        let count = AggregationRule::Count;
        let map_key = [1u8, 0, 0, 0, 0, 0, 0, 0];
        let snapshot = |baseline: &mut AggregationBaseline, rule, values: &[Vec<u8>]| {
            baseline
                .entry_change(1, rule, &map_key, b"", values)
                .map(|entry| entry.value)
        };
        // CPU 1 never touched the entry: its zeroes are skipped.
        assert_eq!(
            snapshot(&mut baseline, &count, &[value(3, &[3]), value(0, &[0])]),
            Some(vec![3])
        );
        assert_eq!(
            snapshot(&mut baseline, &count, &[value(3, &[3]), value(0, &[0])]),
            None
        );
        assert_eq!(
            snapshot(&mut baseline, &count, &[value(5, &[5]), value(4, &[4])]),
            Some(vec![6])
        );

        let mut baseline = AggregationBaseline::default();
        let minimum = AggregationRule::Minimum;
        assert_eq!(
            snapshot(&mut baseline, &minimum, &[value(1, &[7]), value(2, &[-2])]),
            Some(vec![-2])
        );
        assert_eq!(
            snapshot(&mut baseline, &minimum, &[value(2, &[5]), value(2, &[-2])]),
            Some(vec![5])
        );

        let mut baseline = AggregationBaseline::default();
        let deviation = AggregationRule::StandardDeviation;
        let mut words = deviation.initial_value();
        deviation.update(&mut words, 3_000_000_000, 1);
        deviation.update(&mut words, 4_000_000_000, 1);
        let first = words.clone();
        deviation.update(&mut words, 5_000_000_000, 1);
        assert_eq!(
            snapshot(&mut baseline, &deviation, &[value(2, &first)]),
            Some(first.clone())
        );
        let mut expected = deviation.initial_value();
        deviation.update(&mut expected, 5_000_000_000, 1);
        assert_eq!(
            snapshot(&mut baseline, &deviation, &[value(3, &words)]),
            Some(expected)
        );
    }
}
