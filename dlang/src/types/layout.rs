//! Layout of the structs and unions a D program declares, as DTrace's type library
//! (libctf's `ctf_add_member`) builds them: each member after the end of the previous
//! one rounded up to a byte and then to the member's alignment, bit-fields as integers
//! of their own width starting on a byte, and no padding after the last member.
//! Kernel types keep the layout the kernel's type data gives them (`kernel.rs`).

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
    /// Gives a declared struct or union its members, laying them out as DTrace does.
    pub fn define_aggregate(&mut self, ty: TypeId, members: Vec<MemberLayout>) {
        self.being_defined.remove(&ty);
        let is_union = matches!(self.kind(ty), TypeKind::Union { .. });
        let members = members
            .into_iter()
            .map(|member| MemberLayout {
                ty: self.bit_field_type(member.ty, member.bit_width),
                ..member
            })
            .collect();
        let body = lay_out(self, members, is_union);
        if let Some(TypeKind::Struct { body: slot, .. } | TypeKind::Union { body: slot, .. }) =
            self.entries.get_mut(ty.0 as usize)
        {
            *slot = Some(body)
        }
    }
}

impl TypeTable {
    /// Marks the struct or union `ty` as having its body declared: it stays incomplete
    /// (its own member cannot have its type) until `define_aggregate` lays it out.
    pub fn begin_definition(&mut self, ty: TypeId) {
        self.being_defined.insert(ty);
    }

    /// The type of a bit-field member: as DTrace makes it, a new integer type with the
    /// name and signedness of the declared integer type and the storage size its width
    /// needs, so that a bit-field's value is that size wherever it goes (a variable it
    /// is assigned to, a `trace()` record). Other members keep their declared type.
    fn bit_field_type(&mut self, declared: TypeId, bit_width: Option<u32>) -> TypeId {
        let Some(width) = bit_width.filter(|width| *width > 0) else {
            return declared;
        };
        let TypeKind::Integer {
            signed, character, ..
        } = *self.resolved_kind(declared)
        else {
            return declared;
        };
        let name = self.name(declared);
        self.add(TypeKind::Integer {
            name,
            size: bit_field_storage_size(width) as u32,
            signed,
            character,
        })
    }
}

/// Size in bytes of the integer type DTrace makes for a bit-field of `width` bits: the
/// bytes the bits need, rounded up to a power of two (libctf's `clp2`).
pub fn bit_field_storage_size(width: u32) -> u64 {
    u64::from(width).div_ceil(8).max(1).next_power_of_two()
}

/// Lays out `members` as a struct (in order) or a union (all at offset 0).
///
/// A struct member goes at the end of the previous member (its offset plus its width in
/// bits for a bit-field, plus its size otherwise), rounded up to a whole byte and then to
/// the new member's alignment; the struct ends right after its last member (its offset
/// plus its size, even when an earlier bit-field's storage reached further), without the
/// tail padding C adds. A struct is aligned as its first member (libctf looks at the
/// first member only), a union as its most aligned member. A zero-width bit-field takes
/// no room: it only ends the previous member's byte, as every bit-field does.
pub(super) fn lay_out(
    table: &TypeTable,
    members: Vec<MemberLayout>,
    is_union: bool,
) -> AggregateBody {
    let mut laid_out: Vec<Member> = Vec::with_capacity(members.len());
    // Bit offset of the end of the previous member.
    let mut end_bits: u64 = 0;
    let mut size: u64 = 0;
    let mut alignment: u64 = 0;
    for member in members {
        let (member_size, member_alignment, member_bits) = match member.bit_width {
            Some(0) => continue,
            Some(width) => {
                let storage = bit_field_storage_size(width);
                (storage, storage, u64::from(width))
            }
            None => {
                let member_size = table.size_of(member.ty);
                let member_alignment = table.alignment_of(member.ty);
                (member_size, member_alignment, member_size.saturating_mul(8))
            }
        };
        if is_union {
            alignment = alignment.max(member_alignment);
            size = size.max(member_size);
            laid_out.push(Member {
                name: member.name,
                ty: member.ty,
                bit_offset: 0,
                bit_width: member.bit_width,
            });
            continue;
        }
        let byte_offset = if laid_out.is_empty() {
            alignment = member_alignment;
            0
        } else {
            round_up(end_bits.div_ceil(8), member_alignment)
        };
        let bit_offset = byte_offset.saturating_mul(8);
        end_bits = bit_offset.saturating_add(member_bits);
        size = if laid_out.is_empty() {
            member_size
        } else {
            byte_offset.saturating_add(member_size)
        };
        laid_out.push(Member {
            name: member.name,
            ty: member.ty,
            bit_offset,
            bit_width: member.bit_width,
        });
    }
    AggregateBody {
        members: laid_out,
        size,
        alignment: alignment.max(1),
    }
}

fn round_up(value: u64, multiple: u64) -> u64 {
    if multiple <= 1 {
        value
    } else {
        value.div_ceil(multiple).saturating_mul(multiple)
    }
}
