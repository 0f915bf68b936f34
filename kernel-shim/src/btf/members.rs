//! Struct member offsets by name, looking through anonymous struct and union members as
//! C does: what the translator needs of `task_struct` and `sched_entity`; and whether the
//! verifier trusts a pointer loaded from a member (not in a union, no `__rcu` tag).

use super::kinds::BtfKind;
use super::reader::{Btf, BtfError};

/// How deep anonymous members nest before the search gives up (malformed BTF could nest
/// an aggregate in itself).
const MAXIMUM_ANONYMOUS_DEPTH: u32 = 8;

impl Btf {
    /// `member` of the struct or union `id`, searching anonymous members too; `None`
    /// when absent.
    fn find_member(&self, id: u32, member: &str, depth: u32) -> Option<FoundMember> {
        let (members, union) = match self.type_by_id(id)?.kind {
            BtfKind::Struct(members) => (members, false),
            BtfKind::Union(members) => (members, true),
            _ => return None,
        };
        if depth > MAXIMUM_ANONYMOUS_DEPTH {
            return None;
        }
        for candidate in members.iter() {
            if candidate.name == member {
                return Some(FoundMember {
                    bit_offset: candidate.bit_offset as u64,
                    bitfield: candidate.bit_width.is_some(),
                    ty: candidate.ty,
                    in_union: union,
                });
            }
            if candidate.name.is_empty() {
                let inner = self.resolve_alias(candidate.ty)?;
                if let Some(found) = self.find_member(inner, member, depth + 1) {
                    return Some(FoundMember {
                        bit_offset: candidate.bit_offset as u64 + found.bit_offset,
                        in_union: found.in_union || union,
                        ..found
                    });
                }
            }
        }
        None
    }

    fn named_member(&self, structure: &str, member: &str) -> Result<FoundMember, BtfError> {
        let id = self
            .struct_id(structure)
            .ok_or_else(|| BtfError::MissingStruct(structure.to_string()))?;
        self.find_member(id, member, 0)
            .ok_or_else(|| BtfError::MissingMember {
                structure: structure.to_string(),
                member: member.to_string(),
            })
    }

    /// The byte offset of `member` in `struct structure`.
    pub fn member_offset(&self, structure: &str, member: &str) -> Result<u32, BtfError> {
        let found = self.named_member(structure, member)?;
        if found.bitfield || found.bit_offset % 8 != 0 {
            return Err(BtfError::BitfieldMember {
                structure: structure.to_string(),
                member: member.to_string(),
            });
        }
        u32::try_from(found.bit_offset / 8).map_err(|_| BtfError::MissingMember {
            structure: structure.to_string(),
            member: member.to_string(),
        })
    }

    /// Whether the verifier types a pointer loaded from `member` of `struct structure`
    /// through a pointer it does not trust as untrusted: the member lies in a union
    /// (`struct rq`'s `curr`, in a union with `donor` from 6.12 on), so the verifier cannot
    /// know that member is the one in use, or its pointee carries a type tag (`__rcu`).
    pub fn member_loads_untrusted(&self, structure: &str, member: &str) -> Result<bool, BtfError> {
        let found = self.named_member(structure, member)?;
        if found.in_union {
            return Ok(true);
        }
        let pointee = match self.type_by_id(found.ty).map(|ty| ty.kind) {
            Some(BtfKind::Pointer { target }) => target,
            _ => return Ok(false),
        };
        Ok(matches!(
            self.type_by_id(pointee).map(|ty| ty.kind),
            Some(BtfKind::TypeTag { .. })
        ))
    }
}

/// A member found by name: where it is, its type, and whether a union holds it.
#[derive(Debug, Clone, Copy)]
struct FoundMember {
    bit_offset: u64,
    bitfield: bool,
    ty: u32,
    in_union: bool,
}
