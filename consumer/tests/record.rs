//! Tests of record decoding: typed values from slots, splitting drained buffers into
//! records, and errors (never panics) on short or garbage input.

use consumer::record::{
    decode_record, decode_slot, split_records, EnabledProbeIndex, RecordError, RecordIterator,
    RecordValue,
};
use difvm::object::{
    Action, ActionKind, ActionValue, EnabledProbe, ProbeDescription, RecordSlot, Statement,
    StatementRole, SymbolFormat, ValueLayout,
};
use dlang::format::compile_format;

fn slot(offset: u32, size: u32, layout: ValueLayout) -> RecordSlot {
    RecordSlot {
        offset,
        size,
        alignment: size.clamp(1, 8),
        layout,
    }
}

fn check(slot: RecordSlot, data: &[u8], expected: Result<RecordValue<'_>, RecordError>) {
    assert_eq!(decode_slot(&slot, data), expected, "slot {:?}", slot);
}

#[test]
fn integers_and_pointers() {
    let data = [0xfe, 0xff, 0xff, 0xff, 0x01, 0x02, 0x03, 0x04];
    let signed = ValueLayout::Integer { signed: true };
    check(
        slot(0, 1, signed.clone()),
        &data,
        Ok(RecordValue::Integer {
            bits: 0xfe,
            size: 1,
            signed: true,
        }),
    );
    check(
        slot(0, 2, signed.clone()),
        &data,
        Ok(RecordValue::Integer {
            bits: 0xfffe,
            size: 2,
            signed: true,
        }),
    );
    check(
        slot(0, 4, ValueLayout::Integer { signed: false }),
        &data,
        Ok(RecordValue::Integer {
            bits: 0xfffffffe,
            size: 4,
            signed: false,
        }),
    );
    check(
        slot(0, 8, ValueLayout::Pointer),
        &data,
        Ok(RecordValue::Pointer(0x04030201fffffffe)),
    );
    let value = decode_slot(&slot(0, 4, signed.clone()), &data).unwrap();
    assert_eq!(value.as_i64(), Some(-2));
    check(
        slot(0, 3, signed.clone()),
        &data,
        Err(RecordError::BadSlotSize {
            layout: signed.clone(),
            size: 3,
        }),
    );
    check(
        slot(6, 4, signed),
        &data,
        Err(RecordError::SlotOutOfBounds {
            offset: 6,
            size: 4,
            available: 8,
        }),
    );
    check(
        slot(u32::MAX, 8, ValueLayout::Pointer),
        &data,
        Err(RecordError::SlotOutOfBounds {
            offset: u32::MAX,
            size: 8,
            available: 8,
        }),
    );
}

#[test]
fn strings_bytes_stacks_and_symbols() {
    let mut data = b"hello\0\0\0".to_vec();
    check(
        slot(0, 8, ValueLayout::String),
        &data,
        Ok(RecordValue::String(b"hello")),
    );
    check(
        slot(0, 5, ValueLayout::String),
        &data,
        Ok(RecordValue::String(b"hello")),
    );
    check(
        slot(0, 8, ValueLayout::Bytes),
        &data,
        Ok(RecordValue::Bytes(b"hello\0\0\0")),
    );

    data.clear();
    for word in [0x10u64, 0x20, 0, 0x30] {
        data.extend_from_slice(&word.to_le_bytes());
    }
    let RecordValue::KernelStack(frames) =
        decode_slot(&slot(0, 32, ValueLayout::KernelStack { frames: 4 }), &data).unwrap()
    else {
        panic!("not a stack")
    };
    assert_eq!(frames.iter().collect::<Vec<_>>(), vec![0x10, 0x20]);
    assert_eq!(frames.capacity(), 4);

    let RecordValue::UserStack { pid, frames } = decode_slot(
        &slot(
            0,
            32,
            ValueLayout::UserStack {
                frames: 3,
                string_size: 0,
            },
        ),
        &data,
    )
    .unwrap() else {
        panic!("not a user stack")
    };
    assert_eq!(pid, 0x10);
    assert_eq!(frames.iter().collect::<Vec<_>>(), vec![0x20]);

    check(
        slot(8, 8, ValueLayout::KernelSymbol(SymbolFormat::Module)),
        &data,
        Ok(RecordValue::KernelSymbol {
            address: 0x20,
            format: SymbolFormat::Module,
        }),
    );
    check(
        slot(
            0,
            16,
            ValueLayout::UserSymbol(SymbolFormat::SymbolWithOffset),
        ),
        &data,
        Ok(RecordValue::UserSymbol {
            pid: 0x10,
            address: 0x20,
            format: SymbolFormat::SymbolWithOffset,
        }),
    );
    assert!(decode_slot(
        &slot(0, 8, ValueLayout::UserSymbol(SymbolFormat::Symbol)),
        &data
    )
    .is_err());
    assert!(decode_slot(
        &slot(
            0,
            4,
            ValueLayout::UserStack {
                frames: 2,
                string_size: 0
            }
        ),
        &data
    )
    .is_err());
}

fn statement(record_size: u32, actions: Vec<Action>) -> Statement {
    Statement {
        clause: 0,
        role: StatementRole::User,
        probe: ProbeDescription::default(),
        predicate: None,
        actions,
        record_size,
        attributes: difvm::stability::STABLE_COMMON,
    }
}

fn recorded(kind: ActionKind, slots: Vec<RecordSlot>) -> Action {
    Action {
        kind,
        values: slots
            .into_iter()
            .map(|slot| ActionValue {
                difo: None,
                slot: Some(slot),
            })
            .collect(),
    }
}

#[test]
fn whole_records_decode_per_action() {
    let printf = recorded(
        ActionKind::Printf {
            format: compile_format("%s %d"),
        },
        vec![
            slot(0, 8, ValueLayout::String),
            slot(8, 4, ValueLayout::Integer { signed: true }),
        ],
    );
    let expression = Action {
        kind: ActionKind::Expression,
        values: vec![ActionValue {
            difo: None,
            slot: None,
        }],
    };
    let trace = recorded(
        ActionKind::Trace,
        vec![slot(16, 8, ValueLayout::Integer { signed: false })],
    );
    let statement = statement(24, vec![printf, expression, trace]);
    let mut data = b"abc\0\0\0\0\0".to_vec();
    data.extend_from_slice(&7i32.to_le_bytes());
    data.extend_from_slice(&[0; 4]);
    data.extend_from_slice(&9u64.to_le_bytes());
    let decoded = decode_record(&statement, &data).unwrap();
    assert_eq!(
        decoded,
        vec![
            vec![
                RecordValue::String(b"abc"),
                RecordValue::Integer {
                    bits: 7,
                    size: 4,
                    signed: true
                }
            ],
            vec![],
            vec![RecordValue::Integer {
                bits: 9,
                size: 8,
                signed: false
            }],
        ]
    );
    assert!(decode_record(&statement, &data[..20]).is_err());
}

/// A buffer of records: (epid, data) pairs with 8-byte headers, and raw padding words.
fn buffer(parts: &[(u32, &[u8])]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (epid, data) in parts {
        bytes.extend_from_slice(&epid.to_le_bytes());
        if *epid != 0 {
            bytes.extend_from_slice(&[0; 4]);
            bytes.extend_from_slice(data);
        }
    }
    bytes
}

#[test]
fn splitting_buffers() {
    let size = |epid: u32| match epid {
        1 => Some(8),
        2 => Some(0),
        _ => None,
    };
    let bytes = buffer(&[(1, &[1; 8]), (0, &[]), (0, &[]), (2, &[]), (1, &[2; 8])]);
    let records = split_records(&bytes, size).unwrap();
    let summary: Vec<(u32, usize, Vec<u8>)> = records
        .iter()
        .map(|record| (record.epid, record.offset, record.data.to_vec()))
        .collect();
    assert_eq!(
        summary,
        vec![(1, 0, vec![1; 8]), (2, 24, vec![]), (1, 32, vec![2; 8])]
    );

    assert_eq!(split_records(&[], size), Ok(vec![]));
    assert_eq!(split_records(&[0, 0, 0, 0], size), Ok(vec![]));
    assert_eq!(
        split_records(&buffer(&[(1, &[1; 8]), (9, &[])]), size),
        Err(RecordError::UnknownEpid {
            epid: 9,
            offset: 16
        })
    );
    assert_eq!(
        split_records(&bytes[..12], size),
        Err(RecordError::TruncatedRecord {
            epid: 1,
            offset: 0,
            needed: 16,
            available: 12
        })
    );
    assert_eq!(
        split_records(&[1, 0], size),
        Err(RecordError::TruncatedRecord {
            epid: 0,
            offset: 0,
            needed: 4,
            available: 2
        })
    );
    // The iterator yields the good records before the error, then stops.
    let with_garbage = buffer(&[(1, &[1; 8]), (7, &[])]);
    let items: Vec<_> = RecordIterator::new(&with_garbage, size).collect();
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok() && items[1].is_err());
}

#[test]
fn enabled_probe_index() {
    let statements = vec![statement(8, vec![]), statement(16, vec![])];
    let probe = |epid, statement| EnabledProbe {
        epid,
        probe_id: epid + 100,
        probe: ProbeDescription::default(),
        statement,
    };
    let probes = vec![probe(1, 0), probe(2, 1), probe(3, 7)];
    let index = EnabledProbeIndex::new(&probes, &statements);
    assert_eq!(index.record_size(1), Some(8));
    assert_eq!(index.record_size(2), Some(16));
    assert_eq!(index.record_size(3), None);
    assert_eq!(index.lookup(2).map(|(probe, _)| probe.probe_id), Some(102));
    let bytes = buffer(&[(2, &[5; 16]), (1, &[6; 8])]);
    let records = index.split(&bytes).unwrap();
    assert_eq!(
        records.iter().map(|record| record.epid).collect::<Vec<_>>(),
        vec![2, 1]
    );
    assert!(index.split(&buffer(&[(3, &[])])).is_err());
}

#[test]
fn garbage_never_panics() {
    let slots = [
        slot(0, 8, ValueLayout::Integer { signed: true }),
        slot(3, 16, ValueLayout::String),
        slot(0, 24, ValueLayout::KernelStack { frames: 100 }),
        slot(
            0,
            24,
            ValueLayout::UserStack {
                frames: 100,
                string_size: 7,
            },
        ),
        slot(0, 16, ValueLayout::UserSymbol(SymbolFormat::Symbol)),
        slot(5, 7, ValueLayout::Bytes),
        slot(0, 0, ValueLayout::Integer { signed: false }),
        slot(0, 0, ValueLayout::KernelStack { frames: 3 }),
    ];
    for length in 0..40 {
        let data: Vec<u8> = (0..length).map(|i| (i * 37 + 11) as u8).collect();
        for slot in &slots {
            let _ = decode_slot(slot, &data);
        }
        let _ = split_records(&data, |epid| Some(epid % 64));
    }
}
