//! An aggregation as the printers see it: its description, its function's rule, its
//! merged table and, with `aggpercpu`, each CPU's part of its entries.

use difvm::aggregation::{AggregationError, AggregationRule};
use difvm::object::AggregationDescription;

use crate::aggregation_state::per_cpu::PerCpuValues;
use crate::aggregation_state::table::AggregationTable;
use crate::record::{decode_slot, RecordValue};
use crate::render::histogram::HistogramStyle;
use crate::render::printf::AggregationValue;

/// An aggregation ready to print: its description, its function's rule and its data.
#[derive(Debug, Clone)]
pub struct AggregationView<'a> {
    pub description: &'a AggregationDescription,
    pub rule: AggregationRule,
    pub table: &'a AggregationTable,
    /// Each CPU's part of the entries, printed after their merged values (`aggpercpu`).
    pub per_cpu: Option<&'a PerCpuValues>,
}

impl<'a> AggregationView<'a> {
    /// Builds the view; fails only for histogram parameters the compiler rejects.
    pub fn new(
        description: &'a AggregationDescription,
        table: &'a AggregationTable,
    ) -> Result<AggregationView<'a>, AggregationError> {
        Ok(AggregationView {
            description,
            rule: AggregationRule::new(&description.function)?,
            table,
            per_cpu: None,
        })
    }

    /// The view printing each CPU's part after every merged value (`aggpercpu`).
    pub fn with_per_cpu(mut self, per_cpu: Option<&'a PerCpuValues>) -> AggregationView<'a> {
        self.per_cpu = per_cpu;
        self
    }

    /// Decodes the key components of an entry; components that cannot be decoded are
    /// left out.
    pub fn decode_key<'k>(&self, key: &'k [u8]) -> Vec<RecordValue<'k>> {
        self.description
            .keys
            .iter()
            .filter_map(|slot| decode_slot(slot, key).ok())
            .collect()
    }

    /// The value of one entry as a `%@` conversion of `printa()` prints it.
    pub fn printa_value<'v>(
        &'v self,
        words: &'v [i64],
        histogram_style: HistogramStyle,
    ) -> AggregationValue<'v> {
        AggregationValue {
            rule: &self.rule,
            words,
            normalization: self.table.normalization,
            histogram_style,
        }
    }
}
