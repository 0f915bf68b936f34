//! The consumer's table of one aggregation's merged data (encoded key tuple → value
//! words) and the library actions that change it or what it shows: `clear()`, `trunc()`,
//! `normalize()` and `denormalize()`.

use std::collections::BTreeMap;

use difvm::aggregation::AggregationRule;
use difvm::object::AggregationDescription;

use crate::aggregation_state::ordering::{compare_keys, compare_values};

/// The merged data of one aggregation as the consumer holds it: encoded key tuple →
/// value words (the layout of `difvm::aggregation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggregationTable {
    /// The `normalize()` divisor; 1 when not normalized.
    pub normalization: u64,
    pub entries: BTreeMap<Vec<u8>, Vec<i64>>,
}

impl Default for AggregationTable {
    fn default() -> Self {
        AggregationTable {
            normalization: 1,
            entries: BTreeMap::new(),
        }
    }
}

impl AggregationTable {
    /// An empty, unnormalized table.
    pub fn new() -> AggregationTable {
        AggregationTable::default()
    }

    /// `clear()`: every value becomes zero (all words, as DTrace zeroes the data, so
    /// `min`/`max` show 0); the keys stay.
    pub fn clear_values(&mut self) {
        for words in self.entries.values_mut() {
            words.iter_mut().for_each(|word| *word = 0);
        }
    }

    /// `normalize(@a, n)`: displayed values are divided by `n` (0 is treated as 1, which
    /// leaves values alone instead of dividing by zero).
    pub fn normalize(&mut self, divisor: u64) {
        self.normalization = divisor.max(1);
    }

    /// `denormalize(@a)`.
    pub fn denormalize(&mut self) {
        self.normalization = 1;
    }

    /// `trunc(@a)` (`keep` None or 0: remove every entry) and `trunc(@a, n)`: keep the
    /// `n` entries with the largest values (`n > 0`) or the `|n|` with the smallest
    /// (`n < 0`). Ties are broken by key, and the sort options do not apply.
    pub fn truncate(
        &mut self,
        rule: &AggregationRule,
        description: &AggregationDescription,
        keep: Option<i64>,
    ) {
        let keep = keep.unwrap_or(0);
        if keep == 0 {
            self.entries.clear();
            return;
        }
        let mut entries: Vec<(&Vec<u8>, &Vec<i64>)> = self.entries.iter().collect();
        entries.sort_by(|left, right| {
            let order = compare_values(rule, left.1, right.1)
                .then_with(|| compare_keys(description, left.0, right.0, 0));
            if keep > 0 {
                order.reverse()
            } else {
                order
            }
        });
        let kept: Vec<Vec<u8>> = entries
            .into_iter()
            .take(keep.unsigned_abs().try_into().unwrap_or(usize::MAX))
            .map(|(key, _)| key.clone())
            .collect();
        self.entries.retain(|key, _| kept.contains(key));
    }
}
