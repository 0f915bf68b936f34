//! Splitting perf samples into DTrace records. A sample holds one record, or several when
//! a committed speculation delivers everything one CPU speculated at once, followed by up
//! to 7 bytes of the kernel's padding. Records are walked by their EPID's record size
//! (from the enabled-probe table); the walk stops when fewer than a header's bytes remain,
//! at EPID 0, or at an EPID the table does not know.

use difvm::engine::RecordSizes;
use difvm::object::RECORD_HEADER_SIZE;

/// Appends the whole records of `sample` to `buffer`; returns the number of bytes of the
/// sample that were not part of a whole known record, not counting the padding (non-zero
/// only for a sample `sizes` cannot explain).
pub fn append_records(sizes: &RecordSizes, sample: &[u8], buffer: &mut Vec<u8>) -> usize {
    let header = RECORD_HEADER_SIZE as usize;
    let mut at = 0usize;
    while sample.len() - at >= header {
        let epid = u32::from_le_bytes([sample[at], sample[at + 1], sample[at + 2], sample[at + 3]]);
        if epid == 0 {
            break;
        }
        let Some(length) = sizes.record_length(epid) else {
            return sample.len() - at;
        };
        let Some(record) = sample.get(at..at + length) else {
            return sample.len() - at;
        };
        buffer.extend_from_slice(record);
        at += length;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use difvm::object::{
        CompiledProgram, EnabledProbe, ProbeDescription, Statement, StatementRole,
    };

    fn statement(record_size: u32) -> Statement {
        Statement {
            clause: 0,
            role: StatementRole::User,
            probe: ProbeDescription::default(),
            predicate: None,
            actions: Vec::new(),
            record_size,
            attributes: difvm::stability::STABLE_COMMON,
        }
    }

    fn record(epid: u32, data: &[u8]) -> Vec<u8> {
        let mut bytes = epid.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[0; 4]);
        bytes.extend_from_slice(data);
        bytes
    }

    #[test]
    fn samples_split_into_known_records() {
        let program = CompiledProgram {
            statements: vec![statement(0), statement(16)],
            ..CompiledProgram::default()
        };
        let enabled: Vec<EnabledProbe> = [(1, 0), (2, 1)]
            .iter()
            .map(|&(epid, statement)| EnabledProbe {
                epid,
                probe_id: 10,
                probe: ProbeDescription::default(),
                statement,
            })
            .collect();
        let sizes = RecordSizes::new(&program, &enabled);
        let a = record(1, &[]);
        let b = record(2, &[7; 16]);
        let cases: Vec<(Vec<u8>, Vec<u8>, usize)> = vec![
            // One record plus the kernel's 4 bytes of padding.
            ([b.clone(), vec![0; 4]].concat(), b.clone(), 0),
            // A committed speculation: several records in one sample.
            (
                [a.clone(), b.clone(), a.clone(), vec![0; 4]].concat(),
                [a.clone(), b.clone(), a.clone()].concat(),
                0,
            ),
            // EPID 0 ends the walk.
            ([a.clone(), vec![0; 12]].concat(), a.clone(), 0),
            // An unknown EPID is reported, not guessed at.
            ([a.clone(), record(9, &[1; 8])].concat(), a.clone(), 16),
            // A record cut short.
            (b[..12].to_vec(), Vec::new(), 12),
        ];
        for (sample, expected, unexplained) in cases {
            let mut buffer = Vec::new();
            assert_eq!(append_records(&sizes, &sample, &mut buffer), unexplained);
            assert_eq!(buffer, expected);
        }
    }
}
