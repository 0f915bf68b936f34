//! Per-CPU aggregation values (`-x aggpercpu`): each CPU's part of every entry of one
//! aggregation, kept beside the merged table and changed by the same merges, `clear()`s
//! and `trunc()`s (the aggregation printer shows them after each merged value).

use std::collections::BTreeMap;

use difvm::aggregation::AggregationRule;

/// Each CPU's part of one aggregation's entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerCpuValues {
    /// The CPUs printed for every entry, in order.
    pub cpus: Vec<u32>,
    /// Encoded key tuple → CPU → value words.
    pub entries: BTreeMap<Vec<u8>, BTreeMap<u32, Vec<i64>>>,
}

impl PerCpuValues {
    /// No entries yet; `cpus` are the CPUs printed for every entry.
    pub fn new(cpus: Vec<u32>) -> PerCpuValues {
        PerCpuValues {
            cpus,
            entries: BTreeMap::new(),
        }
    }

    /// Merges one entry's per-CPU parts with `rule`; with `replace` (the first data of an
    /// entry after `clear()`), the parts replace what the entry held.
    pub fn absorb(
        &mut self,
        rule: &AggregationRule,
        key: &[u8],
        parts: &[(u32, Vec<i64>)],
        replace: bool,
    ) {
        let by_cpu = self.entries.entry(key.to_vec()).or_default();
        if replace {
            by_cpu.clear();
        }
        for (cpu, words) in parts {
            match by_cpu.get_mut(cpu) {
                Some(into) => rule.merge(into, words),
                None => {
                    by_cpu.insert(*cpu, words.clone());
                }
            }
        }
    }

    /// `clear()`: every CPU's value becomes zero; the keys stay.
    pub fn clear_values(&mut self) {
        for by_cpu in self.entries.values_mut() {
            for words in by_cpu.values_mut() {
                words.iter_mut().for_each(|word| *word = 0);
            }
        }
    }

    /// `trunc()`: keeps the entries whose key `keep` accepts.
    pub fn retain_keys(&mut self, keep: impl Fn(&[u8]) -> bool) {
        self.entries.retain(|key, _| keep(key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_merge_clear_and_truncate() {
        let rule = AggregationRule::Maximum;
        let mut values = PerCpuValues::new(vec![0, 1]);
        values.absorb(&rule, b"a", &[(0, vec![3]), (1, vec![9])], false);
        values.absorb(&rule, b"a", &[(0, vec![5])], false);
        values.absorb(&rule, b"b", &[(1, vec![1])], false);
        let parts = |values: &PerCpuValues, key: &[u8]| -> Vec<(u32, Vec<i64>)> {
            values.entries[key]
                .iter()
                .map(|(cpu, words)| (*cpu, words.clone()))
                .collect()
        };
        assert_eq!(parts(&values, b"a"), vec![(0, vec![5]), (1, vec![9])]);
        values.clear_values();
        assert_eq!(parts(&values, b"a"), vec![(0, vec![0]), (1, vec![0])]);
        // The first data after clear() replaces the zeroes.
        values.absorb(&rule, b"a", &[(1, vec![-4])], true);
        assert_eq!(parts(&values, b"a"), vec![(1, vec![-4])]);
        values.retain_keys(|key| key == b"b");
        assert_eq!(values.entries.keys().collect::<Vec<_>>(), vec![b"b"]);
    }
}
