//! Record and aggregation-key layout: every recorded value gets a slot at its natural
//! alignment, in action order; records and keys are padded to a multiple of 8 bytes.

use difvm::object::{AggregationDescription, RecordSlot};

use crate::sema::ir::RecordShape;
use crate::sema::Analysis;

/// Places slots one after another at their natural alignment.
#[derive(Debug, Default)]
pub(super) struct RecordLayout {
    end: u32,
}

impl RecordLayout {
    /// The slot for the next value of `shape`.
    pub(super) fn place(&mut self, shape: &RecordShape) -> RecordSlot {
        let alignment = shape.alignment.clamp(1, 8);
        // Saturating arithmetic: absurd sizes give a record the engines refuse, not a
        // panic here.
        let offset = self.end.div_ceil(alignment).saturating_mul(alignment);
        self.end = offset.saturating_add(shape.size);
        RecordSlot {
            offset,
            size: shape.size,
            alignment,
            layout: shape.layout.clone(),
        }
    }

    /// The laid-out size, rounded up to a multiple of 8.
    pub(super) fn size(&self) -> u32 {
        self.end.div_ceil(8).saturating_mul(8)
    }
}

/// The key slots and key size of one aggregation.
#[derive(Debug, Clone)]
pub(super) struct KeyLayout {
    pub slots: Vec<RecordSlot>,
    pub size: u32,
}

/// Key layouts of every aggregation, indexed by id - 1.
pub(super) fn aggregation_key_layouts(analysis: &Analysis) -> Vec<KeyLayout> {
    analysis
        .aggregations
        .iter()
        .map(|aggregation| {
            let mut layout = RecordLayout::default();
            let slots = aggregation
                .keys
                .iter()
                .map(|(_, shape)| layout.place(shape))
                .collect();
            KeyLayout {
                slots,
                size: layout.size(),
            }
        })
        .collect()
}

/// `CompiledProgram.aggregations`.
pub(super) fn aggregation_descriptions(
    analysis: &Analysis,
    layouts: &[KeyLayout],
) -> Vec<AggregationDescription> {
    analysis
        .aggregations
        .iter()
        .zip(layouts)
        .map(|(aggregation, layout)| AggregationDescription {
            id: aggregation.id,
            name: aggregation.name.clone(),
            function: aggregation.function,
            keys: layout.slots.clone(),
            key_size: layout.size,
        })
        .collect()
}
