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
}
