//! The order in which aggregation entries print: the `aggsort*` options applied to
//! DTrace's value and key orders, and the joining of several aggregations by key for
//! `printa(@a, @b, ...)`.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::aggregation_state::ordering::{compare_keys, compare_keys_across, compare_values};
use crate::record::slot_bytes;
use crate::render::aggregation_view::AggregationView;

/// The sorting options of DTrace (`aggsortkey`, `aggsortrev`, `aggsortkeypos`,
/// `aggsortpos`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AggregationSortOptions {
    /// `aggsortkey`: order by key instead of by value.
    pub sort_by_key: bool,
    /// `aggsortrev`: reverse every comparison (including the order of aggregations).
    pub reverse: bool,
    /// `aggsortkeypos`: the key component compared first (the others follow, wrapping
    /// round); out-of-range positions mean 0.
    pub key_position: usize,
    /// `aggsortpos`: in a joined `printa()`, the aggregation whose value is compared
    /// first (the others follow, wrapping round); out-of-range positions mean 0.
    pub aggregation_position: usize,
}

fn apply_direction(order: Ordering, options: &AggregationSortOptions) -> Ordering {
    if options.reverse {
        order.reverse()
    } else {
        order
    }
}

/// The entries of one aggregation in printing order.
pub fn sorted_entries<'a>(
    view: &AggregationView<'a>,
    options: &AggregationSortOptions,
) -> Vec<(&'a [u8], &'a [i64])> {
    let mut entries: Vec<(&'a [u8], &'a [i64])> = view
        .table
        .entries
        .iter()
        .map(|(key, words)| (key.as_slice(), words.as_slice()))
        .collect();
    entries.sort_by(|left, right| {
        let keys = || compare_keys(view.description, left.0, right.0, options.key_position);
        let order = if options.sort_by_key {
            keys()
        } else {
            compare_values(&view.rule, left.1, right.1).then_with(keys)
        };
        apply_direction(order, options)
    });
    entries
}

/// One line of a joined `printa()`: a key and every aggregation's value for it (zeros
/// where an aggregation has no entry).
pub struct JoinedRow<'a> {
    pub key: &'a [u8],
    /// The aggregation whose entry supplied the key (its key layout decodes it).
    pub key_source: usize,
    pub values: Vec<Cow<'a, [i64]>>,
}

/// One aggregation's entries by their key components (each component's bytes, so
/// components of different sizes differ): the whole key and the value words.
type KeyedEntries<'a> = BTreeMap<Vec<&'a [u8]>, (&'a [u8], &'a [i64])>;

/// The rows of a joined `printa()` in printing order: by the values of the aggregations
/// starting at `aggregation_position`, then by key (or by key first with
/// `aggsortkey`).
pub fn joined_rows<'a>(
    views: &[AggregationView<'a>],
    options: &AggregationSortOptions,
) -> Vec<JoinedRow<'a>> {
    // DTrace joins entries whose key records are equal component by component, size
    // included: a `char` key 1 and a `long` key 1 are two rows.
    let tables: Vec<KeyedEntries<'a>> = views
        .iter()
        .map(|view| {
            view.table
                .entries
                .iter()
                .map(|(key, words)| {
                    let components = view
                        .description
                        .keys
                        .iter()
                        .filter_map(|slot| slot_bytes(slot, key).ok())
                        .collect();
                    (components, (key.as_slice(), words.as_slice()))
                })
                .collect()
        })
        .collect();
    let mut keys: BTreeMap<&Vec<&'a [u8]>, (&'a [u8], usize)> = BTreeMap::new();
    for (index, table) in tables.iter().enumerate() {
        for (components, (key, _)) in table {
            keys.entry(components).or_insert((key, index));
        }
    }
    let mut rows: Vec<JoinedRow<'a>> = keys
        .into_iter()
        .map(|(components, (key, key_source))| JoinedRow {
            key,
            key_source,
            values: views
                .iter()
                .zip(&tables)
                .map(|(view, table)| match table.get(components) {
                    Some((_, words)) => Cow::Borrowed(*words),
                    None => Cow::Owned(vec![0; view.rule.word_count()]),
                })
                .collect(),
        })
        .collect();
    let count = views.len();
    let start = if options.aggregation_position >= count {
        0
    } else {
        options.aggregation_position
    };
    rows.sort_by(|left, right| {
        let keys = || {
            compare_keys_across(
                (views[left.key_source].description, left.key),
                (views[right.key_source].description, right.key),
                options.key_position,
            )
        };
        let values = || {
            (0..count)
                .map(|offset| (start + offset) % count)
                .map(|index| {
                    compare_values(
                        &views[index].rule,
                        &left.values[index],
                        &right.values[index],
                    )
                })
                .find(|order| *order != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        };
        let order = if options.sort_by_key {
            keys().then_with(values)
        } else {
            values().then_with(keys)
        };
        apply_direction(order, options)
    });
    rows
}
