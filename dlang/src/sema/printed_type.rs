//! The description of a `print()` argument's type that goes into the compiled program
//! ([`difvm::printed_type::PrintedType`]): built from the type table's public questions
//! only (`kind`, `resolve`, `members`, `enumerators`, `size_of`, `name`), so it works the
//! same for declared types and for the kernel's types the table answers lazily.

use std::collections::HashMap;

use difvm::printed_type::{
    PrintedMember, PrintedShape, PrintedType, PrintedTypeEntry, PrintedTypeIndex,
};

use crate::types::{TypeId, TypeKind, TypeTable};

/// The description of `ty` and of every type its value contains (members, array
/// elements, through typedefs and qualifiers), `ty` first.
pub(super) fn printed_type(types: &TypeTable, ty: TypeId) -> PrintedType {
    let mut builder = PrintedTypeBuilder {
        types,
        entries: Vec::new(),
        indexes: HashMap::new(),
    };
    builder.entry(ty);
    PrintedType {
        types: builder.entries,
    }
}

/// Collects entries once per type id, so a struct used by several members is described
/// once.
struct PrintedTypeBuilder<'t> {
    types: &'t TypeTable,
    entries: Vec<PrintedTypeEntry>,
    indexes: HashMap<TypeId, PrintedTypeIndex>,
}

impl PrintedTypeBuilder<'_> {
    /// The index of `ty`'s entry, describing it first if needed. The entry is reserved
    /// before its members are described, so `types[0]` is always the argument's type.
    fn entry(&mut self, ty: TypeId) -> PrintedTypeIndex {
        if let Some(&index) = self.indexes.get(&ty) {
            return index;
        }
        let index = self.entries.len() as PrintedTypeIndex;
        self.indexes.insert(ty, index);
        self.entries.push(PrintedTypeEntry {
            name: self.types.name(ty),
            size: self.types.size_of(ty),
            shape: PrintedShape::Opaque,
        });
        let shape = self.shape(ty);
        self.entries[index as usize].shape = shape;
        index
    }

    fn shape(&mut self, ty: TypeId) -> PrintedShape {
        let resolved = self.types.resolve(ty);
        match self.types.kind(resolved) {
            TypeKind::Integer {
                signed, character, ..
            } => PrintedShape::Integer {
                signed: *signed,
                character: *character,
            },
            TypeKind::Float { .. } => PrintedShape::Float,
            TypeKind::Pointer { .. } => PrintedShape::Pointer,
            TypeKind::String => PrintedShape::String,
            TypeKind::Enum {
                enumerators: Some(_),
                ..
            } => PrintedShape::Enum {
                enumerators: self.types.enumerators(resolved).to_vec(),
            },
            TypeKind::Array { element, count } => {
                let (element, count) = (*element, *count);
                PrintedShape::Array {
                    element: self.entry(element),
                    count,
                }
            }
            TypeKind::Struct { body: Some(_), .. } => PrintedShape::Struct {
                members: self.members(resolved),
            },
            TypeKind::Union { body: Some(_), .. } => PrintedShape::Union {
                members: self.members(resolved),
            },
            _ => PrintedShape::Opaque,
        }
    }

    fn members(&mut self, ty: TypeId) -> Vec<PrintedMember> {
        let members = self.types.members(ty).to_vec();
        members
            .into_iter()
            .map(|member| PrintedMember {
                ty: self.entry(member.ty),
                name: member.name,
                bit_offset: member.bit_offset,
                bit_width: member.bit_width,
            })
            .collect()
    }
}
