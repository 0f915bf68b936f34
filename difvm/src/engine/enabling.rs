//! Enablings: which statement runs on which probe under which EPID, and how long each
//! EPID's record is. Both engines and the consumer read records by these numbers, so
//! they are assigned and measured here, once.

use std::collections::HashMap;

use crate::object::{CompiledProgram, EnabledProbe, ProbeDescription, RECORD_HEADER_SIZE};

/// The enabled probes of `program`: every statement on every probe its description
/// matches, EPIDs given from 1 in statement order and then probe id order.
/// `matching_probes` returns the (probe id, concrete description) of every probe a
/// statement's description matches, in any order.
pub fn enable_statements(
    program: &CompiledProgram,
    mut matching_probes: impl FnMut(&ProbeDescription) -> Vec<(u32, ProbeDescription)>,
) -> Vec<EnabledProbe> {
    let mut enabled = Vec::new();
    for (statement_index, statement) in program.statements.iter().enumerate() {
        let mut probes = matching_probes(&statement.probe);
        probes.sort_by_key(|(probe_id, _)| *probe_id);
        for (probe_id, probe) in probes {
            enabled.push(EnabledProbe {
                epid: enabled.len() as u32 + 1,
                probe_id,
                probe,
                statement: statement_index,
            });
        }
    }
    enabled
}

/// The record length (header included) of every EPID of a session.
#[derive(Debug, Clone, Default)]
pub struct RecordSizes {
    by_epid: HashMap<u32, usize>,
}

impl RecordSizes {
    pub fn new(program: &CompiledProgram, enabled: &[EnabledProbe]) -> RecordSizes {
        let by_epid = enabled
            .iter()
            .filter_map(|probe| {
                let statement = program.statements.get(probe.statement)?;
                Some((
                    probe.epid,
                    RECORD_HEADER_SIZE as usize + statement.record_size as usize,
                ))
            })
            .collect();
        RecordSizes { by_epid }
    }

    /// The record length of `epid`, header included.
    pub fn record_length(&self, epid: u32) -> Option<usize> {
        self.by_epid.get(&epid).copied()
    }

    /// The length of the shortest run of whole records at the start of `records` that
    /// is at least `at_least` bytes long (what a `ring` buffer drops to keep its newest
    /// records); all of `records` when a record's EPID is unknown or the records run out
    /// first.
    pub fn oldest_records_length(&self, records: &[u8], at_least: u64) -> usize {
        let mut length = 0usize;
        while (length as u64) < at_least {
            let epid = records
                .get(length..length + 4)
                .and_then(|bytes| bytes.try_into().ok())
                .map(u32::from_le_bytes);
            match epid.and_then(|epid| self.record_length(epid)) {
                Some(record_length) if length + record_length <= records.len() => {
                    length += record_length;
                }
                _ => return records.len(),
            }
        }
        length
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_whole_records_are_cut_first() {
        // EPID 1 records are 16 bytes long, EPID 2 records 8; EPID 3 is unknown.
        let sizes = RecordSizes {
            by_epid: [(1, 16), (2, 8)].into_iter().collect(),
        };
        let record = |epid: u32, length: usize| {
            let mut bytes = epid.to_le_bytes().to_vec();
            bytes.resize(length, 0);
            bytes
        };
        let records = [record(1, 16), record(2, 8), record(1, 16)].concat();
        // Cases: bytes that must go, bytes cut.
        let cases = [
            (0, 0),
            (1, 16),
            (16, 16),
            (17, 24),
            (24, 24),
            (25, 40),
            (40, 40),
        ];
        for (at_least, expected) in cases {
            assert_eq!(
                sizes.oldest_records_length(&records, at_least),
                expected,
                "{at_least}"
            );
        }
        let unknown = [record(3, 8), record(1, 16)].concat();
        assert_eq!(sizes.oldest_records_length(&unknown, 1), unknown.len());
    }
}
