//! C layout of structs and unions on x86_64 (System V ABI): members at their natural
//! alignment, bit-fields packed into units of their declared type, aggregate size
//! rounded up to the largest member alignment.

use super::table::{AggregateBody, Member, TypeId, TypeKind, TypeTable};

/// A member as declared, before layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberLayout {
    /// Empty for an anonymous member (an unnamed nested struct/union or a zero-width
    /// bit-field).
    pub name: String,
    pub ty: TypeId,
    pub bit_width: Option<u32>,
}

impl TypeTable {
    /// Gives a declared struct or union its members, laying them out as C does.
    pub fn define_aggregate(&mut self, ty: TypeId, members: Vec<MemberLayout>) {
        let is_union = matches!(self.kind(ty), TypeKind::Union { .. });
        let body = lay_out(self, members, is_union);
        if let Some(TypeKind::Struct { body: slot, .. } | TypeKind::Union { body: slot, .. }) =
            self.entries.get_mut(ty.0 as usize)
        {
            *slot = Some(body)
        }
    }
}

/// Lays out `members` as a struct (in order) or a union (all at offset 0).
pub(super) fn lay_out(
    table: &TypeTable,
    members: Vec<MemberLayout>,
    is_union: bool,
) -> AggregateBody {
    let mut laid_out = Vec::with_capacity(members.len());
    let mut bit_offset: u64 = 0;
    let mut size_bits: u64 = 0;
    let mut alignment: u64 = 1;
    for member in members {
        let type_size = table.size_of(member.ty);
        let type_alignment = table.alignment_of(member.ty);
        match member.bit_width {
            Some(width) => {
                let unit_bits = type_size.saturating_mul(8).max(8);
                if is_union {
                    size_bits = size_bits.max(u64::from(width));
                    if width > 0 {
                        alignment = alignment.max(type_alignment);
                        laid_out.push(Member {
                            name: member.name,
                            ty: member.ty,
                            bit_offset: 0,
                            bit_width: Some(width),
                        });
                    }
                    continue;
                }
                if width == 0 {
                    // A zero-width bit-field closes the current unit of its type.
                    bit_offset = round_up(bit_offset, unit_bits);
                    continue;
                }
                if bit_offset % unit_bits + u64::from(width) > unit_bits {
                    bit_offset = round_up(bit_offset, unit_bits);
                }
                alignment = alignment.max(type_alignment);
                laid_out.push(Member {
                    name: member.name,
                    ty: member.ty,
                    bit_offset,
                    bit_width: Some(width),
                });
                bit_offset = bit_offset.saturating_add(u64::from(width));
                size_bits = size_bits.max(bit_offset);
            }
            None => {
                alignment = alignment.max(type_alignment);
                if is_union {
                    size_bits = size_bits.max(type_size.saturating_mul(8));
                    laid_out.push(Member {
                        name: member.name,
                        ty: member.ty,
                        bit_offset: 0,
                        bit_width: None,
                    });
                    continue;
                }
                let byte_offset = round_up(bit_offset.div_ceil(8), type_alignment);
                laid_out.push(Member {
                    name: member.name,
                    ty: member.ty,
                    bit_offset: byte_offset.saturating_mul(8),
                    bit_width: None,
                });
                bit_offset = byte_offset.saturating_add(type_size).saturating_mul(8);
                size_bits = size_bits.max(bit_offset);
            }
        }
    }
    let size = round_up(size_bits.div_ceil(8), alignment);
    AggregateBody {
        members: laid_out,
        size,
        alignment,
    }
}

fn round_up(value: u64, multiple: u64) -> u64 {
    if multiple <= 1 {
        value
    } else {
        value.div_ceil(multiple).saturating_mul(multiple)
    }
}
