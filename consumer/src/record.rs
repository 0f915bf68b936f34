//! Record decoding: splitting a drained principal buffer into EPID-tagged records, and
//! turning a record's data bytes (or an aggregation key) into typed values using only
//! the statement's record slots. Every read is bounds-checked: short or garbage buffers
//! give a [`RecordError`], never a panic.

use std::collections::HashMap;

use difvm::object::{
    EnabledProbe, RecordSlot, Statement, SymbolFormat, ValueLayout, RECORD_HEADER_SIZE,
};

/// Why a buffer or a record could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// A record names an EPID no enabled probe has.
    UnknownEpid { epid: u32, offset: usize },
    /// The buffer ends inside a record (or inside a record header).
    TruncatedRecord {
        epid: u32,
        offset: usize,
        needed: usize,
        available: usize,
    },
    /// A slot reaches past the end of the record data.
    SlotOutOfBounds {
        offset: u32,
        size: u32,
        available: usize,
    },
    /// A slot's size does not fit its layout (e.g. a 3-byte integer).
    BadSlotSize { layout: ValueLayout, size: u32 },
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::UnknownEpid { epid, offset } => {
                write!(f, "unknown EPID {} at buffer offset {}", epid, offset)
            }
            RecordError::TruncatedRecord {
                epid,
                offset,
                needed,
                available,
            } => write!(
                f,
                "record of EPID {} at buffer offset {} needs {} bytes, only {} available",
                epid, offset, needed, available
            ),
            RecordError::SlotOutOfBounds {
                offset,
                size,
                available,
            } => write!(
                f,
                "record slot at offset {} of size {} exceeds the {} bytes of record data",
                offset, size, available
            ),
            RecordError::BadSlotSize { layout, size } => {
                write!(f, "record slot of size {} cannot hold {:?}", size, layout)
            }
        }
    }
}

impl std::error::Error for RecordError {}

/// The PCs of a recorded stack: 8-byte little-endian words, ending at the first zero
/// word (or at the end of the slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackFrames<'a> {
    words: &'a [u8],
}

impl<'a> StackFrames<'a> {
    /// Frames stored in `words` (a multiple of 8 bytes; a partial last word is ignored).
    pub fn new(words: &'a [u8]) -> StackFrames<'a> {
        StackFrames { words }
    }

    /// The number of frames the slot has room for.
    pub fn capacity(&self) -> usize {
        self.words.len() / 8
    }

    /// The recorded PCs, up to the first zero.
    pub fn iter(&self) -> impl Iterator<Item = u64> + 'a {
        self.words
            .chunks_exact(8)
            .map(read_u64)
            .take_while(|&pc| pc != 0)
    }

    /// The raw slot bytes (aggregation keys compare stacks byte by byte).
    pub fn bytes(&self) -> &'a [u8] {
        self.words
    }
}

/// One decoded value of a record or an aggregation key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordValue<'a> {
    /// An integer of `size` bytes (1, 2, 4 or 8); `bits` holds the value zero-extended.
    Integer { bits: u64, size: u32, signed: bool },
    /// A pointer.
    Pointer(u64),
    /// A string's bytes up to (not including) its first NUL.
    String(&'a [u8]),
    /// Raw bytes of a struct, union, array or `tracemem()`.
    Bytes(&'a [u8]),
    /// `stack()`.
    KernelStack(StackFrames<'a>),
    /// `ustack()`/`jstack()`: the process and its PCs.
    UserStack { pid: u64, frames: StackFrames<'a> },
    /// `sym()`/`func()`/`mod()`.
    KernelSymbol { address: u64, format: SymbolFormat },
    /// `usym()`/`ufunc()`/`umod()`/`uaddr()`.
    UserSymbol {
        pid: u64,
        address: u64,
        format: SymbolFormat,
    },
}

impl RecordValue<'_> {
    /// The value as a signed 64-bit integer (sign-extended from its size when signed),
    /// for integers, pointers and symbol addresses.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            RecordValue::Integer {
                bits,
                size,
                signed: true,
            } => Some(sign_extend(bits, size)),
            RecordValue::Integer { bits, .. } => Some(bits as i64),
            RecordValue::Pointer(address)
            | RecordValue::KernelSymbol { address, .. }
            | RecordValue::UserSymbol { address, .. } => Some(address as i64),
            _ => None,
        }
    }
}

/// Sign-extends the low `size` bytes of `bits`.
pub fn sign_extend(bits: u64, size: u32) -> i64 {
    match size {
        1 => bits as u8 as i8 as i64,
        2 => bits as u16 as i16 as i64,
        4 => bits as u32 as i32 as i64,
        _ => bits as i64,
    }
}

fn read_u64(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}

/// Reads a little-endian unsigned integer of 1, 2, 4 or 8 bytes.
fn read_unsigned(bytes: &[u8]) -> Option<u64> {
    Some(match bytes.len() {
        1 => u64::from(bytes[0]),
        2 => u64::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        4 => u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
        8 => read_u64(bytes),
        _ => return None,
    })
}

/// The bytes of `slot` within `data`.
pub fn slot_bytes<'a>(slot: &RecordSlot, data: &'a [u8]) -> Result<&'a [u8], RecordError> {
    let out_of_bounds = RecordError::SlotOutOfBounds {
        offset: slot.offset,
        size: slot.size,
        available: data.len(),
    };
    let start = slot.offset as usize;
    let end = start
        .checked_add(slot.size as usize)
        .ok_or(out_of_bounds.clone())?;
    data.get(start..end).ok_or(out_of_bounds)
}

/// Decodes the value in `slot` of a record's data (or of an aggregation key).
pub fn decode_slot<'a>(slot: &RecordSlot, data: &'a [u8]) -> Result<RecordValue<'a>, RecordError> {
    let bytes = slot_bytes(slot, data)?;
    let bad_size = || RecordError::BadSlotSize {
        layout: slot.layout.clone(),
        size: slot.size,
    };
    let word = |index: usize| {
        bytes
            .get(index * 8..index * 8 + 8)
            .map(read_u64)
            .ok_or_else(bad_size)
    };
    Ok(match &slot.layout {
        ValueLayout::Integer { signed } => RecordValue::Integer {
            bits: read_unsigned(bytes).ok_or_else(bad_size)?,
            size: slot.size,
            signed: *signed,
        },
        ValueLayout::Pointer => RecordValue::Pointer(read_unsigned(bytes).ok_or_else(bad_size)?),
        ValueLayout::String => {
            let length = bytes
                .iter()
                .position(|&byte| byte == 0)
                .unwrap_or(bytes.len());
            RecordValue::String(&bytes[..length])
        }
        ValueLayout::Bytes => RecordValue::Bytes(bytes),
        ValueLayout::KernelStack { frames } => {
            let length = (*frames as usize)
                .saturating_mul(8)
                .min(bytes.len() / 8 * 8);
            RecordValue::KernelStack(StackFrames::new(&bytes[..length]))
        }
        ValueLayout::UserStack { frames, .. } => {
            let pid = word(0)?;
            let available = (bytes.len() - 8) / 8 * 8;
            let length = (*frames as usize).saturating_mul(8).min(available);
            RecordValue::UserStack {
                pid,
                frames: StackFrames::new(&bytes[8..8 + length]),
            }
        }
        ValueLayout::KernelSymbol(format) => RecordValue::KernelSymbol {
            address: word(0)?,
            format: *format,
        },
        ValueLayout::UserSymbol(format) => RecordValue::UserSymbol {
            pid: word(0)?,
            address: word(1)?,
            format: *format,
        },
    })
}

/// Decodes every recorded value of a statement's record: one list per action, holding
/// the values that have slots, in order. Aggregating actions record nothing in the
/// principal buffer (their slots lie in the aggregation key), so their lists are empty.
pub fn decode_record<'a>(
    statement: &Statement,
    data: &'a [u8],
) -> Result<Vec<Vec<RecordValue<'a>>>, RecordError> {
    statement
        .actions
        .iter()
        .map(|action| {
            if matches!(action.kind, difvm::object::ActionKind::Aggregate { .. }) {
                return Ok(Vec::new());
            }
            action
                .values
                .iter()
                .filter_map(|value| value.slot.as_ref())
                .map(|slot| decode_slot(slot, data))
                .collect()
        })
        .collect()
}

/// One record of a drained buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawRecord<'a> {
    pub epid: u32,
    /// Offset of the record header within the buffer.
    pub offset: usize,
    /// The record data after the header (`record_size` bytes).
    pub data: &'a [u8],
}

/// Walks a drained buffer record by record. A zero EPID word is padding: it is skipped
/// 4 bytes at a time, as classic DTrace's consumer does. The walk stops after the first
/// error.
pub struct RecordIterator<'a, F> {
    buffer: &'a [u8],
    offset: usize,
    record_size: F,
    failed: bool,
}

impl<'a, F: Fn(u32) -> Option<u32>> RecordIterator<'a, F> {
    /// Walks `buffer`; `record_size` gives the data size of an EPID's records (None for
    /// an unknown EPID).
    pub fn new(buffer: &'a [u8], record_size: F) -> RecordIterator<'a, F> {
        RecordIterator {
            buffer,
            offset: 0,
            record_size,
            failed: false,
        }
    }
}

impl<'a, F: Fn(u32) -> Option<u32>> Iterator for RecordIterator<'a, F> {
    type Item = Result<RawRecord<'a>, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            let remaining = self.buffer.len().saturating_sub(self.offset);
            if remaining == 0 {
                return None;
            }
            let offset = self.offset;
            if remaining < 4 {
                self.failed = true;
                return Some(Err(RecordError::TruncatedRecord {
                    epid: 0,
                    offset,
                    needed: 4,
                    available: remaining,
                }));
            }
            let epid = u32::from_le_bytes([
                self.buffer[offset],
                self.buffer[offset + 1],
                self.buffer[offset + 2],
                self.buffer[offset + 3],
            ]);
            if epid == 0 {
                self.offset += 4;
                continue;
            }
            let Some(size) = (self.record_size)(epid) else {
                self.failed = true;
                return Some(Err(RecordError::UnknownEpid { epid, offset }));
            };
            let needed = RECORD_HEADER_SIZE as usize + size as usize;
            if remaining < needed {
                self.failed = true;
                return Some(Err(RecordError::TruncatedRecord {
                    epid,
                    offset,
                    needed,
                    available: remaining,
                }));
            }
            self.offset += needed;
            let data = &self.buffer[offset + RECORD_HEADER_SIZE as usize..offset + needed];
            return Some(Ok(RawRecord { epid, offset, data }));
        }
    }
}

/// Splits a whole drained buffer into records; fails on the first bad record.
pub fn split_records<'a>(
    buffer: &'a [u8],
    record_size: impl Fn(u32) -> Option<u32>,
) -> Result<Vec<RawRecord<'a>>, RecordError> {
    RecordIterator::new(buffer, record_size).collect()
}

/// EPID → enabled probe and statement, for decoding records.
#[derive(Debug, Clone)]
pub struct EnabledProbeIndex<'p> {
    by_epid: HashMap<u32, (&'p EnabledProbe, &'p Statement)>,
}

impl<'p> EnabledProbeIndex<'p> {
    /// Indexes `enabled_probes`, whose `statement` fields index `statements`; enabled
    /// probes naming a missing statement are left out (their records then fail as
    /// unknown EPIDs).
    pub fn new(enabled_probes: &'p [EnabledProbe], statements: &'p [Statement]) -> Self {
        let by_epid = enabled_probes
            .iter()
            .filter_map(|probe| {
                statements
                    .get(probe.statement)
                    .map(|statement| (probe.epid, (probe, statement)))
            })
            .collect();
        EnabledProbeIndex { by_epid }
    }

    /// The enabled probe and statement of `epid`.
    pub fn lookup(&self, epid: u32) -> Option<(&'p EnabledProbe, &'p Statement)> {
        self.by_epid.get(&epid).copied()
    }

    /// The data size of `epid`'s records.
    pub fn record_size(&self, epid: u32) -> Option<u32> {
        self.lookup(epid)
            .map(|(_, statement)| statement.record_size)
    }

    /// Splits a drained buffer into records of the indexed EPIDs.
    pub fn split<'a>(&self, buffer: &'a [u8]) -> Result<Vec<RawRecord<'a>>, RecordError> {
        split_records(buffer, |epid| self.record_size(epid))
    }
}
