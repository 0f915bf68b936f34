//! Aggregation snapshots from the kernel's per-CPU aggregation hash, and the consumer's
//! side of the clear generations that `clear()` and `trunc()` start.
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
//!
//! A program writes a CPU's update count after its words, and the kernel copies a
//! value from its start, so a count read covers the words read after it: words may hold
//! part of a later update (the next difference takes the rest), never less than the
//! count says, and an unchanged count means there is nothing left to deliver.
//!
//! # `clear()` and `trunc()`
//!
//! The consumer carries both out on its own table in three steps:
//!
//! 1. [`AggregationBaseline::begin_generation`]: the runtime has just stored the
//!    aggregation's new generation in the kernel, and takes a snapshot.
//! 2. The consumer absorbs that snapshot and clears or truncates its table.
//! 3. [`AggregationBaseline::finish_generation`] with the keys whose older data still
//!    counts (those `trunc()` kept; none for `clear()`).
//!
//! For the additive functions nothing more is needed: the changes after the snapshot of
//! step 1 are the data after the action, exactly, for kept and new keys alike.
//!
//! `min()` and `max()` cannot be restarted by difference, so their words carry the
//! generation they belong to (the value's second word holds it plus one), and a program
//! that finds words of an older generation than the aggregation's current one restarts
//! them from the initial value. Words of a new generation are therefore a change on
//! their own. Every update lands in exactly one generation, and the snapshot attributes
//! each generation to one side of the action: from step 1 to step 3 it holds the new
//! generation's changes back (they come after the action, and are delivered by the next
//! snapshot), and from step 3 on it drops changes of older generations (updates that
//! were running while the generation changed) except for the keys `trunc()` kept.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use difvm::aggregation::AggregationRule;
use difvm::engine::AggregationEntry;

use crate::map_layout::restarts_on_new_generation;

/// A multiply-and-rotate hash of the hash keys, 8 bytes at a time (the scheme rustc's
/// `FxHasher` uses): a snapshot of a million entries hashes every key, and the default
/// hasher made that a large part of its cost. The keys are the kernel's own entries.
#[derive(Debug, Default, Clone, Copy)]
struct EntryKeyHasher(u64);

impl Hasher for EntryKeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
        }
        for byte in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ *byte as u64).wrapping_mul(SEED);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type EntryKeyMap<V> = HashMap<Box<[u8]>, V, BuildHasherDefault<EntryKeyHasher>>;

/// What the previous snapshots saw of one CPU's value of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CpuBaseline {
    cpu: u32,
    updates: u64,
    generation: u64,
    words: Box<[i64]>,
}

/// The generations of one aggregation.
#[derive(Debug, Default)]
struct Generations {
    /// The generation programs write now.
    current: u64,
    /// Data of generations below this belong before a `clear()` or `trunc()` the
    /// consumer already carried out, except for the keys in `kept_floors`.
    floor: u64,
    /// Keys `trunc()` kept, with the floor that applied to them before it.
    kept_floors: EntryKeyMap<u64>,
    /// Set between `begin_generation` and `finish_generation`: changes of the current
    /// generation are held back.
    holding: bool,
}

impl Generations {
    fn floor_of(&self, map_key: &[u8]) -> u64 {
        self.kept_floors.get(map_key).copied().unwrap_or(self.floor)
    }
}

/// The consumer's memory of the kernel's aggregation entries: what each CPU's value was
/// at the previous snapshot, and the generations of every aggregation.
#[derive(Debug, Default)]
pub struct AggregationBaseline {
    seen: EntryKeyMap<Vec<CpuBaseline>>,
    generations: HashMap<u32, Generations>,
    /// Changes held back by an unfinished generation, delivered by the next snapshot.
    held: Vec<AggregationEntry>,
    keep_per_cpu: bool,
    /// The CPU of each per-CPU value, in order (the possible CPUs).
    cpus: Vec<u32>,
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

/// Which of its aggregation's words an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryWords {
    /// All of them.
    Whole,
    /// `count` words from word `first` on (a part of a split histogram).
    Part { first: usize, count: usize },
}

impl EntryWords {
    /// The aggregation's `total` words with `words` (this part's) in place, zero
    /// elsewhere.
    fn widen(self, words: Vec<i64>, total: usize) -> Vec<i64> {
        match self {
            EntryWords::Whole => words,
            EntryWords::Part { first, .. } => {
                let mut whole = vec![0; total];
                for (slot, word) in whole.iter_mut().skip(first).zip(words) {
                    *slot = word;
                }
                whole
            }
        }
    }
}

/// Per-CPU changes of one entry being merged into one delivery.
#[derive(Default)]
struct MergedChange {
    value: Option<Vec<i64>>,
    per_cpu: Vec<(u32, Vec<i64>)>,
}

impl MergedChange {
    fn add(&mut self, rule: &AggregationRule, cpu: u32, difference: Vec<i64>, per_cpu: bool) {
        match &mut self.value {
            Some(into) => rule.merge(into, &difference),
            None if per_cpu => self.value = Some(difference.clone()),
            None => {
                self.value = Some(difference);
                return;
            }
        }
        if per_cpu {
            self.per_cpu.push((cpu, difference));
        }
    }

    fn into_entry(self, aggregation: u32, key: &[u8]) -> Option<AggregationEntry> {
        self.value.map(|value| AggregationEntry {
            aggregation,
            key: key.to_vec(),
            value,
            per_cpu: self.per_cpu,
        })
    }
}

impl AggregationBaseline {
    /// A baseline for per-CPU values of the CPUs `cpus`, in order (the possible CPUs);
    /// values beyond the list are numbered by position.
    pub fn new(cpus: Vec<u32>) -> AggregationBaseline {
        AggregationBaseline {
            cpus,
            ..AggregationBaseline::default()
        }
    }

    /// Whether entries carry each CPU's part of their change (`aggpercpu`).
    pub fn set_keep_per_cpu(&mut self, keep: bool) {
        self.keep_per_cpu = keep;
    }

    /// The generation programs write now for `aggregation` (0 until the first clear).
    pub fn current_generation(&self, aggregation: u32) -> u64 {
        self.generations
            .get(&aggregation)
            .map_or(0, |generations| generations.current)
    }

    /// Step 1 of a `clear()` or `trunc()`: the runtime has stored `generation` (the
    /// current one + 1) in the kernel. Until [`finish_generation`], changes of the new
    /// generation are held back.
    ///
    /// [`finish_generation`]: AggregationBaseline::finish_generation
    pub fn begin_generation(&mut self, aggregation: u32, generation: u64) {
        let generations = self.generations.entry(aggregation).or_default();
        generations.current = generation;
        generations.holding = true;
    }

    /// Step 3 of a `clear()` or `trunc()`: `kept_map_keys` are the hash keys whose
    /// older-generation changes still count; every other key's do not.
    pub fn finish_generation(&mut self, aggregation: u32, kept_map_keys: &[Vec<u8>]) {
        let generations = self.generations.entry(aggregation).or_default();
        let kept_floors = kept_map_keys
            .iter()
            .map(|key| (key.clone().into_boxed_slice(), generations.floor_of(key)))
            .collect();
        generations.kept_floors = kept_floors;
        generations.floor = generations.current;
        generations.holding = false;
    }

    /// Takes the changes held back by the last generation started, to deliver them
    /// before those of the next snapshot.
    pub fn take_held(&mut self) -> Vec<AggregationEntry> {
        std::mem::take(&mut self.held)
    }

    /// Gives back changes taken with [`take_held`] that a failed snapshot could not
    /// deliver, before any held back since.
    ///
    /// [`take_held`]: AggregationBaseline::take_held
    pub fn restore_held(&mut self, mut held: Vec<AggregationEntry>) {
        held.append(&mut self.held);
        self.held = held;
    }

    /// The changes since the last call for one hash entry, appended to `delivered`:
    /// `map_key` is the hash key (id, zero, tuple), `key` the aggregation's encoded key,
    /// `per_cpu_values` the per-CPU values (u64 update count, u64 generation + 1, then
    /// the rule's words), in CPU order.
    pub fn entry_change<'v>(
        &mut self,
        aggregation: u32,
        rule: &AggregationRule,
        map_key: &[u8],
        key: &[u8],
        per_cpu_values: impl IntoIterator<Item = &'v [u8]>,
        delivered: &mut Vec<AggregationEntry>,
    ) {
        self.entry_part_change(
            aggregation,
            rule,
            EntryWords::Whole,
            map_key,
            key,
            per_cpu_values,
            delivered,
        );
    }

    /// As [`entry_change`] for an entry holding `part` of the aggregation's words (a
    /// histogram split into parts, see `map_layout`): the changes are delivered as the
    /// aggregation's whole words, zero outside the part.
    ///
    /// [`entry_change`]: AggregationBaseline::entry_change
    #[allow(clippy::too_many_arguments)]
    pub fn entry_part_change<'v>(
        &mut self,
        aggregation: u32,
        rule: &AggregationRule,
        part: EntryWords,
        map_key: &[u8],
        key: &[u8],
        per_cpu_values: impl IntoIterator<Item = &'v [u8]>,
        delivered: &mut Vec<AggregationEntry>,
    ) {
        let total_words = rule.word_count();
        let words = match part {
            EntryWords::Whole => total_words,
            EntryWords::Part { first, count } if first < total_words => {
                count.min(total_words - first)
            }
            // A part past the histogram's words holds nothing that counts.
            EntryWords::Part { .. } => return,
        };
        let keep_per_cpu = self.keep_per_cpu;
        let generational = restarts_on_new_generation(rule);
        let generations = self.generations.entry(aggregation).or_default();
        let floor = generations.floor_of(map_key);
        let (current, holding) = (generations.current, generations.holding);
        let mut now_delivered = MergedChange::default();
        let mut now_held = MergedChange::default();
        let seen = match self.seen.get_mut(map_key) {
            Some(seen) => seen,
            None => self
                .seen
                .entry(map_key.to_vec().into_boxed_slice())
                .or_default(),
        };
        for (index, value) in per_cpu_values.into_iter().enumerate() {
            let updates = word(value, 0) as u64;
            if updates == 0 {
                continue;
            }
            let cpu = self.cpus.get(index).copied().unwrap_or(index as u32);
            let slot = seen.iter().position(|baseline| baseline.cpu == cpu);
            let before = slot.map(|slot| &seen[slot]);
            if before.is_some_and(|before| before.updates == updates) {
                continue;
            }
            let generation = if generational {
                (word(value, 1) as u64).saturating_sub(1)
            } else {
                0
            };
            let now: Box<[i64]> = (0..words).map(|index| word(value, index + 2)).collect();
            // Words of a generation the previous snapshot did not see restarted from the
            // initial value: they are a change on their own.
            let difference = match before {
                Some(before) if before.generation == generation => {
                    change(rule, Some(&before.words), &now)
                }
                _ => now.to_vec(),
            };
            let baseline = CpuBaseline {
                cpu,
                updates,
                generation,
                words: now,
            };
            match slot {
                Some(slot) => seen[slot] = baseline,
                None => seen.push(baseline),
            }
            if generational && generation < floor {
                continue;
            }
            let difference = part.widen(difference, total_words);
            if generational && holding && generation >= current {
                now_held.add(rule, cpu, difference, keep_per_cpu);
            } else {
                now_delivered.add(rule, cpu, difference, keep_per_cpu);
            }
        }
        delivered.extend(now_delivered.into_entry(aggregation, key));
        self.held.extend(now_held.into_entry(aggregation, key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One CPU's value: update count, generation + 1, words.
    fn value(updates: i64, generation: i64, words: &[i64]) -> Vec<u8> {
        [updates, generation + 1]
            .into_iter()
            .chain(words.iter().copied())
            .flat_map(i64::to_le_bytes)
            .collect()
    }

    fn untouched(words: usize) -> Vec<u8> {
        vec![0u8; 16 + 8 * words]
    }

    const MAP_KEY: [u8; 8] = [1, 0, 0, 0, 0, 0, 0, 0];

    fn snapshot(
        baseline: &mut AggregationBaseline,
        rule: &AggregationRule,
        values: &[Vec<u8>],
    ) -> Option<Vec<i64>> {
        let mut delivered = baseline.take_held();
        let values = values.iter().map(Vec::as_slice);
        baseline.entry_change(1, rule, &MAP_KEY, b"", values, &mut delivered);
        assert!(delivered.len() <= 1, "{delivered:?}");
        delivered.pop().map(|entry| entry.value)
    }

    #[test]
    fn snapshots_deliver_changes_merged_across_cpus() {
        let mut baseline = AggregationBaseline::default();
        let count = AggregationRule::Count;
        // CPU 1 never touched the entry: its zeroes are skipped.
        assert_eq!(
            snapshot(&mut baseline, &count, &[value(3, 0, &[3]), untouched(1)]),
            Some(vec![3])
        );
        assert_eq!(
            snapshot(&mut baseline, &count, &[value(3, 0, &[3]), untouched(1)]),
            None
        );
        assert_eq!(
            snapshot(
                &mut baseline,
                &count,
                &[value(5, 0, &[5]), value(4, 0, &[4])]
            ),
            Some(vec![6])
        );

        let mut baseline = AggregationBaseline::default();
        let minimum = AggregationRule::Minimum;
        assert_eq!(
            snapshot(
                &mut baseline,
                &minimum,
                &[value(1, 0, &[7]), value(2, 0, &[-2])]
            ),
            Some(vec![-2])
        );
        assert_eq!(
            snapshot(
                &mut baseline,
                &minimum,
                &[value(2, 0, &[5]), value(2, 0, &[-2])]
            ),
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
            snapshot(&mut baseline, &deviation, &[value(2, 0, &first)]),
            Some(first.clone())
        );
        let mut expected = deviation.initial_value();
        deviation.update(&mut expected, 5_000_000_000, 1);
        assert_eq!(
            snapshot(&mut baseline, &deviation, &[value(3, 0, &words)]),
            Some(expected)
        );
    }

    #[test]
    fn a_clear_drops_older_generations_and_holds_the_new_one_back() {
        let mut baseline = AggregationBaseline::default();
        let maximum = AggregationRule::Maximum;
        assert_eq!(
            snapshot(&mut baseline, &maximum, &[value(2, 0, &[90]), untouched(1)]),
            Some(vec![90])
        );
        // clear(): generation 1 begins; CPU 0 updated once more before it (old words,
        // 95) and CPU 1 once after it (restarted words, 10).
        baseline.begin_generation(1, 1);
        assert_eq!(
            snapshot(
                &mut baseline,
                &maximum,
                &[value(3, 0, &[95]), value(1, 1, &[10])]
            ),
            Some(vec![95])
        );
        baseline.finish_generation(1, &[]);
        // The held-back change comes first; a late change of generation 0 is dropped.
        assert_eq!(
            snapshot(
                &mut baseline,
                &maximum,
                &[value(4, 0, &[99]), value(1, 1, &[10])]
            ),
            Some(vec![10])
        );
        // CPU 0 restarts in generation 1: its words are taken whole.
        assert_eq!(
            snapshot(
                &mut baseline,
                &maximum,
                &[value(5, 1, &[3]), value(1, 1, &[10])]
            ),
            Some(vec![3])
        );
        assert_eq!(baseline.current_generation(1), 1);
    }

    /// Delivers one CPU-0 value of each of `map_keys` and returns the values delivered.
    fn deliver(
        baseline: &mut AggregationBaseline,
        rule: &AggregationRule,
        map_keys: &[&[u8]],
        cpu_value: &[u8],
    ) -> Vec<Vec<i64>> {
        let mut delivered = baseline.take_held();
        for map_key in map_keys {
            baseline.entry_change(1, rule, map_key, b"", [cpu_value], &mut delivered);
        }
        delivered.into_iter().map(|entry| entry.value).collect()
    }

    #[test]
    fn a_truncation_keeps_older_generations_of_the_kept_keys() {
        let minimum = AggregationRule::Minimum;
        let kept: &[u8] = &MAP_KEY;
        let removed: &[u8] = &[1, 0, 0, 0, 0, 0, 0, 0, 7];
        let mut baseline = AggregationBaseline::default();
        let both = [kept, removed];
        assert_eq!(
            deliver(&mut baseline, &minimum, &both, &value(1, 0, &[5])),
            vec![vec![5], vec![5]]
        );
        baseline.begin_generation(1, 1);
        baseline.finish_generation(1, &[kept.to_vec()]);
        // Late updates of generation 0 count for the kept key only.
        assert_eq!(
            deliver(&mut baseline, &minimum, &both, &value(2, 0, &[3])),
            vec![vec![3]]
        );
        // The removed key's words restarted in generation 1.
        assert_eq!(
            deliver(&mut baseline, &minimum, &[removed], &value(3, 1, &[9])),
            vec![vec![9]]
        );
    }

    #[test]
    fn additive_functions_restart_by_difference_alone() {
        let count = AggregationRule::Count;
        let keys: [&[u8]; 2] = [&MAP_KEY, &[1, 0, 0, 0, 0, 0, 0, 0, 7]];
        let mut baseline = AggregationBaseline::default();
        // Programs never restart or stamp the words of additive functions.
        let untouched_generation = |updates: i64| {
            let mut cpu_value = value(updates, 0, &[updates]);
            cpu_value[8..16].fill(0);
            cpu_value
        };
        deliver(&mut baseline, &count, &keys, &untouched_generation(1));
        baseline.begin_generation(1, 1);
        assert_eq!(
            deliver(&mut baseline, &count, &keys, &untouched_generation(2)),
            vec![vec![1], vec![1]]
        );
        baseline.finish_generation(1, &[]);
        assert_eq!(
            deliver(&mut baseline, &count, &keys, &untouched_generation(5)),
            vec![vec![3], vec![3]]
        );
    }

    #[test]
    fn per_cpu_parts_are_kept_on_request() {
        let mut baseline = AggregationBaseline::new(vec![0, 3]);
        baseline.set_keep_per_cpu(true);
        let mut delivered = Vec::new();
        baseline.entry_change(
            1,
            &AggregationRule::Sum,
            &MAP_KEY,
            b"k",
            [value(1, 0, &[5]).as_slice(), value(2, 0, &[7]).as_slice()],
            &mut delivered,
        );
        assert_eq!(
            delivered,
            vec![AggregationEntry {
                aggregation: 1,
                key: b"k".to_vec(),
                value: vec![12],
                per_cpu: vec![(0, vec![5]), (3, vec![7])],
            }]
        );
    }

    #[test]
    fn parts_of_a_split_histogram_arrive_in_place_in_the_whole_words() {
        let mut baseline = AggregationBaseline::default();
        // lquantize(x, 0, 50, 10): 7 buckets, here in parts of 3 words.
        let rule = AggregationRule::LinearQuantize(
            difvm::aggregation::LinearQuantization::new(0, 50, 10).expect("histogram"),
        );
        let part = |number: usize| EntryWords::Part {
            first: 3 * number,
            count: 3,
        };
        let mut delivered = Vec::new();
        let mut deliver = |baseline: &mut AggregationBaseline, number: usize, words: &[i64]| {
            let map_key = [1, 0, 0, 0, number as u8, 0, 0, 0];
            let values = [value(1, 0, words)];
            let values = values.iter().map(Vec::as_slice);
            baseline.entry_part_change(
                1,
                &rule,
                part(number),
                &map_key,
                b"",
                values,
                &mut delivered,
            );
        };
        deliver(&mut baseline, 1, &[0, 4, 0]);
        deliver(&mut baseline, 2, &[2, 9, 9]);
        deliver(&mut baseline, 3, &[1, 1, 1]);
        let values: Vec<Vec<i64>> = delivered.iter().map(|entry| entry.value.clone()).collect();
        // Words past the histogram's 7 are left out; a part wholly past it delivers nothing.
        assert_eq!(
            values,
            [vec![0, 0, 0, 0, 4, 0, 0], vec![0, 0, 0, 0, 0, 0, 2]]
        );
    }
}
