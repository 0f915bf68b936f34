//! Reading a BTF blob: the header, the type section (every kind walked once, keeping
//! only where each type starts, so that type ids are right and parsing allocates nothing
//! per type) and the string section; split BTF (a module's types on top of vmlinux's)
//! continues the base's type ids and string offsets.

use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use super::format::*;

/// Where the running kernel publishes its BTF.
pub const VMLINUX_BTF_PATH: &str = "/sys/kernel/btf/vmlinux";

/// Why BTF could not be read or did not say what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BtfError {
    /// The file could not be read.
    Read { path: String, reason: String },
    /// The bytes are not BTF this reader understands.
    Malformed(String),
    /// No struct of that name (with members) exists.
    MissingStruct(String),
    /// The struct has no member of that name.
    MissingMember { structure: String, member: String },
    /// The member is a bit-field, which has no byte offset.
    BitfieldMember { structure: String, member: String },
}

impl fmt::Display for BtfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BtfError::Read { path, reason } => write!(f, "cannot read BTF from {path}: {reason}"),
            BtfError::Malformed(reason) => write!(f, "malformed BTF: {reason}"),
            BtfError::MissingStruct(name) => write!(f, "BTF has no struct {name}"),
            BtfError::MissingMember { structure, member } => {
                write!(f, "BTF struct {structure} has no member {member}")
            }
            BtfError::BitfieldMember { structure, member } => {
                write!(f, "BTF struct {structure} member {member} is a bit-field")
            }
        }
    }
}

impl std::error::Error for BtfError {}

/// The names of a blob's own types: (hash of the name, type id), sorted (built by
/// `names.rs`).
#[derive(Debug, Clone, Default)]
pub(super) struct NameIndex {
    pub entries: Vec<(u64, u32)>,
}

/// The enumerators of a blob's own enums: (hash of the name, enum id, enumerator index),
/// sorted (built by `names.rs`).
#[derive(Debug, Clone, Default)]
pub(super) struct EnumeratorIndex {
    pub entries: Vec<(u64, u32, u32)>,
}

/// The fixed part of one type record, as the blob holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TypeRecord {
    pub name_offset: u32,
    pub info: u32,
    pub size_or_type: u32,
    /// Where the kind's extra data (members, parameters…) starts in the blob.
    pub extra: usize,
}

/// Parsed BTF: the blob, where each of its types starts, its strings, and (for split
/// BTF) the base it continues. The name and enumerator indexes are built on the first
/// lookup that needs them.
#[derive(Debug, Clone)]
pub struct Btf {
    data: Vec<u8>,
    /// Offset in `data` of each type record, the first being `first_id`'s.
    type_offsets: Vec<u32>,
    strings: Range<usize>,
    base: Option<Arc<Btf>>,
    first_id: u32,
    /// Bytes of the base's strings: this blob's string offsets start there.
    string_base: u32,
    pub(super) names: OnceLock<NameIndex>,
    pub(super) enumerators: OnceLock<EnumeratorIndex>,
}

fn malformed(reason: impl Into<String>) -> BtfError {
    BtfError::Malformed(reason.into())
}

fn u32_at(data: &[u8], at: usize) -> Result<u32, BtfError> {
    data.get(at..at.saturating_add(4))
        .map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
        .ok_or_else(|| malformed(format!("truncated at byte {at}")))
}

/// Bytes of extra data that follow a type of `kind` with `vlen` entries.
fn extra_size(kind: u32, vlen: u32) -> Result<usize, BtfError> {
    let vlen = vlen as usize;
    Ok(match kind {
        KIND_INT | KIND_VAR | KIND_DECL_TAG => 4,
        KIND_PTR | KIND_FWD | KIND_TYPEDEF | KIND_VOLATILE | KIND_CONST | KIND_RESTRICT
        | KIND_FUNC | KIND_FLOAT | KIND_TYPE_TAG => 0,
        KIND_ARRAY => 12,
        KIND_STRUCT | KIND_UNION | KIND_DATASEC | KIND_ENUM64 => 12 * vlen,
        KIND_ENUM | KIND_FUNC_PROTO => 8 * vlen,
        _ => return Err(malformed(format!("unknown type kind {kind}"))),
    })
}

/// Rewrites big-endian BTF in little-endian byte order: the header's words and the whole
/// type section, which consists of 32-bit words only. The string section is bytes.
fn to_little_endian(data: &mut [u8]) -> Result<(), BtfError> {
    data.swap(0, 1);
    let swap_word = |data: &mut [u8], at: usize| {
        if let Some(word) = data.get_mut(at..at + 4) {
            word.reverse();
        }
    };
    for at in (4..HEADER_SIZE as usize).step_by(4) {
        swap_word(data, at);
    }
    let header_length = u32_at(data, 4)? as usize;
    let start = header_length.saturating_add(u32_at(data, 8)? as usize);
    let end = start
        .saturating_add(u32_at(data, 12)? as usize)
        .min(data.len());
    for at in (start..end).step_by(4) {
        swap_word(data, at);
    }
    Ok(())
}

/// The header's sections: the type section and the string section.
fn sections(data: &[u8]) -> Result<(Range<usize>, Range<usize>), BtfError> {
    if data.len() < HEADER_SIZE as usize {
        return Err(malformed("shorter than its header"));
    }
    if data[2] != VERSION {
        return Err(malformed(format!("version {}", data[2])));
    }
    let header_length = u32_at(data, 4)? as usize;
    if header_length < HEADER_SIZE as usize {
        return Err(malformed(format!("header of {header_length} bytes")));
    }
    let section = |offset_at: usize| -> Result<Range<usize>, BtfError> {
        let offset = u32_at(data, offset_at)? as usize;
        let length = u32_at(data, offset_at + 4)? as usize;
        let start = header_length
            .checked_add(offset)
            .ok_or_else(|| malformed("section offset overflows"))?;
        let end = start
            .checked_add(length)
            .filter(|&end| end <= data.len())
            .ok_or_else(|| malformed("section extends past the end"))?;
        Ok(start..end)
    };
    Ok((section(8)?, section(16)?))
}

/// Where each type of `type_section` starts, checking that every type's data lies inside
/// the section.
fn type_offsets(data: &[u8], type_section: Range<usize>) -> Result<Vec<u32>, BtfError> {
    let mut offsets = Vec::with_capacity(type_section.len() / 16);
    let mut at = type_section.start;
    while at < type_section.end {
        if at + TYPE_SIZE > type_section.end {
            return Err(malformed("truncated type"));
        }
        let info = u32_at(data, at + 4)?;
        offsets.push(u32::try_from(at).map_err(|_| malformed("blob larger than 4 GiB"))?);
        at += TYPE_SIZE + extra_size(info_kind(info), info_vlen(info))?;
        if at > type_section.end {
            return Err(malformed("type data extends past the type section"));
        }
    }
    Ok(offsets)
}

impl Btf {
    /// Parses a blob of base BTF (vmlinux's), in either byte order.
    pub fn parse(data: Vec<u8>) -> Result<Btf, BtfError> {
        Btf::parse_on(data, None)
    }

    /// Parses a blob of split BTF (a module's) whose type ids and string offsets continue
    /// from `base`'s.
    pub fn parse_split(data: Vec<u8>, base: Arc<Btf>) -> Result<Btf, BtfError> {
        Btf::parse_on(data, Some(base))
    }

    fn parse_on(mut data: Vec<u8>, base: Option<Arc<Btf>>) -> Result<Btf, BtfError> {
        match data.get(..2) {
            Some(&[low, high]) if u16::from_le_bytes([low, high]) == MAGIC => {}
            Some(&[high, low]) if u16::from_be_bytes([high, low]) == MAGIC => {
                if data.len() < HEADER_SIZE as usize {
                    return Err(malformed("shorter than its header"));
                }
                to_little_endian(&mut data)?;
            }
            Some(&[low, high]) => {
                let magic = u16::from_le_bytes([low, high]);
                return Err(malformed(format!("magic {magic:#06x}")));
            }
            _ => return Err(malformed("shorter than its header")),
        }
        let (type_section, strings) = sections(&data)?;
        let type_offsets = type_offsets(&data, type_section)?;
        let (first_id, string_base) = match &base {
            Some(base) => (base.type_id_limit(), base.string_section_length()),
            None => (1, 0),
        };
        if first_id.checked_add(type_offsets.len() as u32).is_none() {
            return Err(malformed("too many types"));
        }
        Ok(Btf {
            data,
            type_offsets,
            strings,
            base,
            first_id,
            string_base,
            names: OnceLock::new(),
            enumerators: OnceLock::new(),
        })
    }

    /// Reads and parses the BTF file at `path`.
    pub fn from_file(path: &str) -> Result<Btf, BtfError> {
        let data = std::fs::read(path).map_err(|error| BtfError::Read {
            path: path.to_string(),
            reason: error.to_string(),
        })?;
        Btf::parse(data)
    }

    /// The running kernel's BTF.
    pub fn running_kernel() -> Result<Btf, BtfError> {
        Btf::from_file(VMLINUX_BTF_PATH)
    }

    /// Types in this blob (split BTF: not counting the base's).
    pub fn type_count(&self) -> usize {
        self.type_offsets.len()
    }

    /// The id of this blob's first type (1, or one past the base's last).
    pub fn first_type_id(&self) -> u32 {
        self.first_id
    }

    /// The largest type id plus one (the base's types included).
    pub fn type_id_limit(&self) -> u32 {
        self.first_id + self.type_offsets.len() as u32
    }

    /// The base of split BTF.
    pub fn base(&self) -> Option<&Btf> {
        self.base.as_deref()
    }

    /// Bytes of string offsets this blob's strings cover (the base's included).
    fn string_section_length(&self) -> u32 {
        self.string_base + self.strings.len() as u32
    }

    /// The record of type `id` and the blob holding it (the base's, for its ids).
    pub(super) fn record(&self, id: u32) -> Option<(&Btf, TypeRecord)> {
        if id < self.first_id {
            return self.base.as_deref().and_then(|base| base.record(id));
        }
        let at = *self.type_offsets.get((id - self.first_id) as usize)? as usize;
        Some((
            self,
            TypeRecord {
                name_offset: self.word(at),
                info: self.word(at + 4),
                size_or_type: self.word(at + 8),
                extra: at + TYPE_SIZE,
            },
        ))
    }

    /// The 32-bit word at byte `at` of the blob (0 past its end, which parsing rules out
    /// for the records it walked).
    pub(super) fn word(&self, at: usize) -> u32 {
        u32_at(&self.data, at).unwrap_or(0)
    }

    /// The string at `offset` of the string section ("" when out of range or not UTF-8).
    pub fn string(&self, offset: u32) -> &str {
        if offset < self.string_base {
            return self.base.as_deref().map_or("", |base| base.string(offset));
        }
        let start = self.strings.start + (offset - self.string_base) as usize;
        if start >= self.strings.end {
            return "";
        }
        let bytes = &self.data[start..self.strings.end];
        let end = bytes.iter().position(|&byte| byte == 0).unwrap_or(0);
        std::str::from_utf8(&bytes[..end]).unwrap_or("")
    }

    /// The name of type `id` ("" for anonymous types and `void`).
    pub fn type_name(&self, id: u32) -> &str {
        self.record(id)
            .map_or("", |(owner, record)| owner.string(record.name_offset))
    }

    /// The ids of this blob's own types (split BTF: not the base's), in order.
    pub fn own_type_ids(&self) -> Range<u32> {
        self.first_id..self.type_id_limit()
    }
}
