//! Struct member offsets by name, looking through anonymous struct and union members as
//! C does: what the translator needs of `task_struct` and `sched_entity`.

use super::kinds::BtfKind;
use super::reader::{Btf, BtfError};

/// How deep anonymous members nest before the search gives up (malformed BTF could nest
/// an aggregate in itself).
const MAXIMUM_ANONYMOUS_DEPTH: u32 = 8;

impl Btf {
    /// The bit offset of `member` in the struct or union `id`, searching anonymous
    /// members too; `None` when absent. The flag says whether it is a bit-field.
    fn member_bit_offset(&self, id: u32, member: &str, depth: u32) -> Option<(u64, bool)> {
        let members = match self.type_by_id(id)?.kind {
            BtfKind::Struct(members) | BtfKind::Union(members) => members,
            _ => return None,
        };
        if depth > MAXIMUM_ANONYMOUS_DEPTH {
            return None;
        }
        for candidate in members.iter() {
            if candidate.name == member {
                return Some((candidate.bit_offset as u64, candidate.bit_width.is_some()));
            }
            if candidate.name.is_empty() {
                let inner = self.resolve_alias(candidate.ty)?;
                if let Some((offset, bitfield)) = self.member_bit_offset(inner, member, depth + 1) {
                    return Some((candidate.bit_offset as u64 + offset, bitfield));
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
