//! The consumer's aggregation state: one merged table per aggregation (and each CPU's
//! part of it with `aggpercpu`), the merge of the per-CPU data drained from an engine,
//! and the library actions that change it (`clear()`, `trunc()`, `normalize()`,
//! `denormalize()`). Printing reads this state (`crate::render`); nothing here prints.

pub mod ordering;
pub mod per_cpu;
pub mod table;

use std::collections::{BTreeMap, BTreeSet};

use difvm::aggregation::AggregationRule;
use difvm::engine::AggregationEntry;
use difvm::object::AggregationDescription;

use per_cpu::PerCpuValues;
use table::AggregationTable;

/// One entry of an aggregation table: encoded key tuple and value words.
type TableEntry = (Vec<u8>, Vec<i64>);

/// Every aggregation's merged data, by aggregation id.
#[derive(Debug, Clone)]
pub struct AggregationState {
    /// The program's aggregations, by id.
    descriptions: BTreeMap<u32, AggregationDescription>,
    tables: BTreeMap<u32, AggregationTable>,
    /// The update and merge rule of every aggregation, by id.
    rules: BTreeMap<u32, AggregationRule>,
    /// Keys `clear()` zeroed that no data has reached since: the first data replaces
    /// their zeroes instead of merging with them, so that `min()` and `max()` show only
    /// what happened after the clear.
    cleared_keys: BTreeMap<u32, BTreeSet<Vec<u8>>>,
    /// Each CPU's part of the entries, by aggregation id (`aggpercpu`).
    per_cpu_values: Option<BTreeMap<u32, PerCpuValues>>,
}

impl AggregationState {
    /// Empty tables for the program's aggregations.
    pub fn new(descriptions: &[AggregationDescription]) -> AggregationState {
        AggregationState {
            descriptions: descriptions
                .iter()
                .map(|description| (description.id, description.clone()))
                .collect(),
            tables: descriptions
                .iter()
                .map(|description| (description.id, AggregationTable::new()))
                .collect(),
            rules: descriptions
                .iter()
                .filter_map(|description| {
                    let rule = AggregationRule::new(&description.function).ok()?;
                    Some((description.id, rule))
                })
                .collect(),
            cleared_keys: BTreeMap::new(),
            per_cpu_values: None,
        }
    }

    /// Keeps each CPU's part of every entry from now on (`aggpercpu`); `cpus` are the
    /// CPUs shown for every entry.
    pub fn keep_per_cpu_values(&mut self, cpus: Vec<u32>) {
        self.per_cpu_values = Some(
            self.tables
                .keys()
                .map(|id| (*id, PerCpuValues::new(cpus.clone())))
                .collect(),
        );
    }

    /// The merged table of one aggregation.
    pub fn table(&self, aggregation: u32) -> Option<&AggregationTable> {
        self.tables.get(&aggregation)
    }

    /// Each CPU's part of one aggregation's entries, when they are kept.
    pub fn per_cpu_values(&self, aggregation: u32) -> Option<&PerCpuValues> {
        self.per_cpu_values
            .as_ref()
            .and_then(|tables| tables.get(&aggregation))
    }

    fn per_cpu_values_mut(&mut self, aggregation: u32) -> Option<&mut PerCpuValues> {
        self.per_cpu_values
            .as_mut()
            .and_then(|tables| tables.get_mut(&aggregation))
    }

    /// Merges drained per-CPU aggregation data into the tables. Keys a table does not
    /// hold yet are gathered and sorted, then added in one bulk insertion when they are
    /// many, which keeps a snapshot of a million new keys from walking the table a
    /// million times.
    pub fn absorb(&mut self, entries: Vec<AggregationEntry>) {
        let mut fresh: BTreeMap<u32, Vec<TableEntry>> = BTreeMap::new();
        for entry in entries {
            let Some(rule) = self.rules.get(&entry.aggregation) else {
                continue;
            };
            let replace = self
                .cleared_keys
                .get_mut(&entry.aggregation)
                .is_some_and(|cleared| cleared.remove(&entry.key));
            if let Some(per_cpu) = self
                .per_cpu_values
                .as_mut()
                .and_then(|tables| tables.get_mut(&entry.aggregation))
            {
                per_cpu.absorb(rule, &entry.key, &entry.per_cpu, replace);
            }
            let table = self.tables.entry(entry.aggregation).or_default();
            match table.entries.get_mut(&entry.key) {
                Some(words) if replace => *words = entry.value,
                Some(words) => rule.merge(words, &entry.value),
                None => fresh
                    .entry(entry.aggregation)
                    .or_default()
                    .push((entry.key, entry.value)),
            }
        }
        for (aggregation, new_entries) in fresh {
            if let (Some(rule), Some(table)) = (
                self.rules.get(&aggregation),
                self.tables.get_mut(&aggregation),
            ) {
                insert_new_entries(rule, table, new_entries);
            }
        }
    }

    /// `clear(@a)`, once the data gathered before it is absorbed: the values become zero
    /// (the keys stay), and only later data counts, for every function (`min()` and
    /// `max()` included).
    pub fn clear(&mut self, aggregation: u32) {
        if let Some(table) = self.tables.get_mut(&aggregation) {
            table.clear_values();
            self.cleared_keys
                .insert(aggregation, table.entries.keys().cloned().collect());
        }
        if let Some(per_cpu) = self.per_cpu_values_mut(aggregation) {
            per_cpu.clear_values();
        }
    }

    /// `trunc(@a)` or `trunc(@a, n)`, once the data gathered before it is absorbed:
    /// removes the entries not kept (a removed key that comes back starts from nothing)
    /// and returns the keys kept.
    pub fn truncate(&mut self, aggregation: u32, keep: Option<i64>) -> Vec<Vec<u8>> {
        let (Some(table), Some(description), Some(rule)) = (
            self.tables.get_mut(&aggregation),
            self.descriptions.get(&aggregation),
            self.rules.get(&aggregation),
        ) else {
            return Vec::new();
        };
        table.truncate(rule, description, keep);
        let kept: Vec<Vec<u8>> = table.entries.keys().cloned().collect();
        let remaining = &table.entries;
        if let Some(cleared) = self.cleared_keys.get_mut(&aggregation) {
            cleared.retain(|key| remaining.contains_key(key));
        }
        if let Some(per_cpu) = self
            .per_cpu_values
            .as_mut()
            .and_then(|tables| tables.get_mut(&aggregation))
        {
            per_cpu.retain_keys(|key| remaining.contains_key(key));
        }
        kept
    }

    /// `normalize(@a, n)`.
    pub fn normalize(&mut self, aggregation: u32, divisor: u64) {
        if let Some(table) = self.tables.get_mut(&aggregation) {
            table.normalize(divisor);
        }
    }

    /// `denormalize(@a)`.
    pub fn denormalize(&mut self, aggregation: u32) {
        if let Some(table) = self.tables.get_mut(&aggregation) {
            table.denormalize();
        }
    }
}

/// Adds the entries of keys `table` does not hold yet, merging those that come twice.
fn insert_new_entries(
    rule: &AggregationRule,
    table: &mut AggregationTable,
    mut new_entries: Vec<TableEntry>,
) {
    // A key can come twice (changes held back by a clear(), then newer ones): the
    // stable sort keeps them in delivery order for merging.
    new_entries.sort_by(|left, right| left.0.cmp(&right.0));
    let mut merged: Vec<TableEntry> = Vec::with_capacity(new_entries.len());
    for (key, value) in new_entries {
        match merged.last_mut() {
            Some((last, words)) if *last == key => rule.merge(words, &value),
            _ => merged.push((key, value)),
        }
    }
    // Appending rebuilds the whole table, which pays only when it grows a lot.
    if merged.len() * 8 < table.entries.len() {
        table.entries.extend(merged);
    } else {
        let mut added: BTreeMap<Vec<u8>, Vec<i64>> = merged.into_iter().collect();
        table.entries.append(&mut added);
    }
}
