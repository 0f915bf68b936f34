//! Reading BTF: the header, the type section (every kind walked, so that type ids are
//! right) and the string section; then struct lookups by name and member offsets, looking
//! through anonymous struct and union members as C does.

use std::fmt;
use std::ops::Range;

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

/// One type of the type section.
#[derive(Debug, Clone, Copy)]
struct TypeRecord {
    name_offset: u32,
    info: u32,
    size_or_type: u32,
    /// Where the kind's extra data (members, parameters…) starts in the blob.
    extra: usize,
}

/// Parsed BTF: the blob, its types by id (id 0, `void`, has no record) and its strings.
#[derive(Debug, Clone)]
pub struct Btf {
    data: Vec<u8>,
    types: Vec<TypeRecord>,
    strings: Range<usize>,
}

fn malformed(reason: impl Into<String>) -> BtfError {
    BtfError::Malformed(reason.into())
}

fn u32_at(data: &[u8], at: usize) -> Result<u32, BtfError> {
    data.get(at..at + 4)
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

impl Btf {
    /// Parses a BTF blob.
    pub fn parse(data: Vec<u8>) -> Result<Btf, BtfError> {
        if data.len() < HEADER_SIZE as usize {
            return Err(malformed("shorter than its header"));
        }
        let magic = u16::from_le_bytes([data[0], data[1]]);
        if magic != MAGIC {
            return Err(malformed(format!(
                "magic {magic:#06x} (only little-endian BTF is read)"
            )));
        }
        if data[2] != VERSION {
            return Err(malformed(format!("version {}", data[2])));
        }
        let header_length = u32_at(&data, 4)? as usize;
        let section = |offset_at: usize| -> Result<Range<usize>, BtfError> {
            let offset = u32_at(&data, offset_at)? as usize;
            let length = u32_at(&data, offset_at + 4)? as usize;
            let start = header_length
                .checked_add(offset)
                .ok_or_else(|| malformed("section offset overflows"))?;
            let end = start
                .checked_add(length)
                .filter(|&end| end <= data.len())
                .ok_or_else(|| malformed("section extends past the end"))?;
            Ok(start..end)
        };
        let type_section = section(8)?;
        let strings = section(16)?;
        let mut types = Vec::new();
        let mut at = type_section.start;
        while at < type_section.end {
            if at + TYPE_SIZE > type_section.end {
                return Err(malformed("truncated type"));
            }
            let record = TypeRecord {
                name_offset: u32_at(&data, at)?,
                info: u32_at(&data, at + 4)?,
                size_or_type: u32_at(&data, at + 8)?,
                extra: at + TYPE_SIZE,
            };
            at = record.extra + extra_size(info_kind(record.info), info_vlen(record.info))?;
            if at > type_section.end {
                return Err(malformed("type data extends past the type section"));
            }
            types.push(record);
        }
        Ok(Btf {
            data,
            types,
            strings,
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

    /// Types in the blob (ids 1 to this number).
    pub fn type_count(&self) -> usize {
        self.types.len()
    }

    fn record(&self, id: u32) -> Option<&TypeRecord> {
        (id as usize)
            .checked_sub(1)
            .and_then(|index| self.types.get(index))
    }

    /// The string at `offset` of the string section ("" when out of range).
    fn string(&self, offset: u32) -> &str {
        let start = self.strings.start + offset as usize;
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
            .map_or("", |record| self.string(record.name_offset))
    }

    /// The id of the struct named `name` that has members (a forward declaration or an
    /// empty duplicate is skipped).
    pub fn struct_id(&self, name: &str) -> Option<u32> {
        self.types
            .iter()
            .position(|record| {
                info_kind(record.info) == KIND_STRUCT
                    && info_vlen(record.info) > 0
                    && self.string(record.name_offset) == name
            })
            .map(|index| index as u32 + 1)
    }

    /// `id` with typedefs and qualifiers looked through.
    fn resolve(&self, mut id: u32) -> u32 {
        for _ in 0..32 {
            match self.record(id) {
                Some(record)
                    if matches!(
                        info_kind(record.info),
                        KIND_TYPEDEF | KIND_VOLATILE | KIND_CONST | KIND_RESTRICT | KIND_TYPE_TAG
                    ) =>
                {
                    id = record.size_or_type
                }
                _ => break,
            }
        }
        id
    }

    /// The bit offset of `member` in the struct or union `id`, searching anonymous
    /// members too; `None` when absent. The flag says whether it is a bit-field.
    fn member_bit_offset(&self, id: u32, member: &str, depth: u32) -> Option<(u64, bool)> {
        let record = self.record(id)?;
        let kind = info_kind(record.info);
        if (kind != KIND_STRUCT && kind != KIND_UNION) || depth > 8 {
            return None;
        }
        let bitfields = info_kind_flag(record.info);
        for index in 0..info_vlen(record.info) as usize {
            let at = record.extra + 12 * index;
            let name = u32_at(&self.data, at).ok()?;
            let member_type = u32_at(&self.data, at + 4).ok()?;
            let offset = u32_at(&self.data, at + 8).ok()?;
            let (bit_offset, bitfield_size) = if bitfields {
                (offset & 0xff_ffff, offset >> 24)
            } else {
                (offset, 0)
            };
            let name = self.string(name);
            if name == member {
                return Some((bit_offset as u64, bitfield_size != 0));
            }
            if name.is_empty() {
                if let Some((inner, bitfield)) =
                    self.member_bit_offset(self.resolve(member_type), member, depth + 1)
                {
                    return Some((bit_offset as u64 + inner, bitfield));
                }
            }
        }
        None
    }

    /// The byte offset of `member` in `struct structure`.
    pub fn member_offset(&self, structure: &str, member: &str) -> Result<u32, BtfError> {
        let id = self
            .struct_id(structure)
            .ok_or_else(|| BtfError::MissingStruct(structure.to_string()))?;
        let missing = || BtfError::MissingMember {
            structure: structure.to_string(),
            member: member.to_string(),
        };
        let (bits, bitfield) = self.member_bit_offset(id, member, 0).ok_or_else(missing)?;
        if bitfield || bits % 8 != 0 {
            return Err(BtfError::BitfieldMember {
                structure: structure.to_string(),
                member: member.to_string(),
            });
        }
        u32::try_from(bits / 8).map_err(|_| missing())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob with `int`, `struct inner { int a; int b:3; }` (anonymous member of)
    /// `struct outer { int first; struct inner; }` at bit 32, and a forward `struct outer`.
    fn sample() -> Vec<u8> {
        let strings = b"\0int\0outer\0first\0a\0b\0".to_vec();
        let (int, outer, first, a, b) = (1u32, 5u32, 11u32, 17u32, 19u32);
        let mut types = Vec::new();
        let mut push = |words: &[u32]| {
            for word in words {
                types.extend_from_slice(&word.to_le_bytes());
            }
        };
        // [1] int
        push(&[int, info(KIND_INT, false, 0), 4, INT_SIGNED << 24 | 32]);
        // [2] forward struct outer
        push(&[outer, info(KIND_FWD, false, 0), 0]);
        // [3] anonymous struct with a bit-field
        push(&[0, info(KIND_STRUCT, true, 2), 8]);
        push(&[a, 1, 0]);
        push(&[b, 1, 3 << 24 | 32]);
        // [4] struct outer
        push(&[outer, info(KIND_STRUCT, false, 2), 12]);
        push(&[first, 1, 0]);
        push(&[0, 3, 32]);
        let mut blob = Vec::new();
        blob.extend_from_slice(&MAGIC.to_le_bytes());
        blob.extend_from_slice(&[VERSION, 0]);
        for word in [
            HEADER_SIZE,
            0,
            types.len() as u32,
            types.len() as u32,
            strings.len() as u32,
        ] {
            blob.extend_from_slice(&word.to_le_bytes());
        }
        blob.extend_from_slice(&types);
        blob.extend_from_slice(&strings);
        blob
    }

    #[test]
    fn members_are_found_through_anonymous_structs() {
        let btf = Btf::parse(sample()).expect("parses");
        assert_eq!(btf.type_count(), 4);
        assert_eq!(btf.struct_id("outer"), Some(4));
        assert_eq!(btf.member_offset("outer", "first"), Ok(0));
        assert_eq!(btf.member_offset("outer", "a"), Ok(4));
        assert!(matches!(
            btf.member_offset("outer", "b"),
            Err(BtfError::BitfieldMember { .. })
        ));
        assert!(matches!(
            btf.member_offset("outer", "c"),
            Err(BtfError::MissingMember { .. })
        ));
        assert!(matches!(
            btf.member_offset("nothing", "a"),
            Err(BtfError::MissingStruct(_))
        ));
    }

    #[test]
    fn malformed_blobs_are_refused() {
        assert!(Btf::parse(Vec::new()).is_err());
        let mut wrong_magic = sample();
        wrong_magic[0] = 0;
        assert!(Btf::parse(wrong_magic).is_err());
        let mut truncated = sample();
        truncated.truncate(40);
        assert!(Btf::parse(truncated).is_err());
        let mut unknown_kind = sample();
        unknown_kind[HEADER_SIZE as usize + 7] = 0x1f;
        assert!(Btf::parse(unknown_kind).is_err());
    }

    #[test]
    fn the_running_kernel_has_task_struct_offsets() {
        let Ok(btf) = Btf::running_kernel() else {
            eprintln!("skipping: no {VMLINUX_BTF_PATH}");
            return;
        };
        let real_parent = btf.member_offset("task_struct", "real_parent").unwrap();
        let tgid = btf.member_offset("task_struct", "tgid").unwrap();
        assert!(real_parent > 0 && tgid > 0 && real_parent != tgid);
    }
}
