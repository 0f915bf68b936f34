//! The typed view of one BTF type: [`BtfType`] with its name and a [`BtfKind`] for each of
//! BTF's kinds, whose list-shaped extra data (members, parameters, enumerators, data
//! section entries) is read entry by entry from the blob, never copied.

use super::format::*;
use super::reader::{Btf, TypeRecord};

/// One type of the type section, by id.
#[derive(Debug, Clone, Copy)]
pub struct BtfType<'b> {
    pub id: u32,
    /// "" for anonymous types.
    pub name: &'b str,
    pub kind: BtfKind<'b>,
}

/// How an integer's bits are to be read (`BTF_INT_ENCODING`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntegerEncoding {
    pub signed: bool,
    pub character: bool,
    pub boolean: bool,
}

/// What a type is, with what its kind says about it.
#[derive(Debug, Clone, Copy)]
pub enum BtfKind<'b> {
    Integer {
        size: u32,
        encoding: IntegerEncoding,
        /// Bits of the value, and where in the `size` bytes they start.
        bits: u32,
        bit_offset: u32,
    },
    Pointer {
        target: u32,
    },
    Array {
        element: u32,
        index: u32,
        count: u32,
    },
    Struct(BtfMembers<'b>),
    Union(BtfMembers<'b>),
    /// A 32-bit (`ENUM`) or 64-bit (`ENUM64`) enum.
    Enum(BtfEnumerators<'b>),
    /// A forward declaration of a struct or (`union`) a union.
    Forward {
        union: bool,
    },
    Typedef {
        target: u32,
    },
    Volatile {
        target: u32,
    },
    Const {
        target: u32,
    },
    Restrict {
        target: u32,
    },
    /// A function; its type is the prototype. `linkage` is static, global or extern.
    Function {
        prototype: u32,
        linkage: u32,
    },
    FunctionPrototype(BtfParameters<'b>),
    Variable {
        ty: u32,
        linkage: u32,
    },
    DataSection(BtfDataSection<'b>),
    Float {
        size: u32,
    },
    /// A declaration tag on `target` (on its member or parameter `component_index`, or
    /// on the whole declaration when that is -1).
    DeclarationTag {
        target: u32,
        component_index: i32,
    },
    TypeTag {
        target: u32,
    },
}

/// The entries of a list-shaped kind: `count` records of `stride` bytes from `start` in
/// `btf`'s blob.
#[derive(Debug, Clone, Copy)]
struct Entries<'b> {
    btf: &'b Btf,
    start: usize,
    count: u32,
}

impl<'b> Entries<'b> {
    fn word(&self, index: u32, stride: usize, word: usize) -> u32 {
        self.btf
            .word(self.start + index as usize * stride + 4 * word)
    }
}

/// The members of a struct or union.
#[derive(Debug, Clone, Copy)]
pub struct BtfMembers<'b> {
    entries: Entries<'b>,
    /// The aggregate's size in bytes.
    pub size: u32,
    /// `kind_flag`: member offsets carry a bit-field width in their top byte.
    bitfield_offsets: bool,
}

/// One member of a struct or union.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BtfMember<'b> {
    /// "" for an anonymous struct or union member.
    pub name: &'b str,
    pub ty: u32,
    pub bit_offset: u32,
    /// `Some(width)` for a bit-field.
    pub bit_width: Option<u32>,
}

impl<'b> BtfMembers<'b> {
    pub fn len(&self) -> u32 {
        self.entries.count
    }

    pub fn is_empty(&self) -> bool {
        self.entries.count == 0
    }

    pub fn get(&self, index: u32) -> Option<BtfMember<'b>> {
        if index >= self.entries.count {
            return None;
        }
        let offset = self.entries.word(index, 12, 2);
        let (bit_offset, bit_width) = if self.bitfield_offsets {
            (offset & 0xff_ffff, offset >> 24)
        } else {
            (offset, 0)
        };
        Some(BtfMember {
            name: self.entries.btf.string(self.entries.word(index, 12, 0)),
            ty: self.entries.word(index, 12, 1),
            bit_offset,
            bit_width: (bit_width != 0).then_some(bit_width),
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = BtfMember<'b>> + '_ {
        (0..self.len()).filter_map(|index| self.get(index))
    }
}

/// The enumerators of an enum.
#[derive(Debug, Clone, Copy)]
pub struct BtfEnumerators<'b> {
    entries: Entries<'b>,
    /// The enum's size in bytes.
    pub size: u32,
    /// `kind_flag`: the values are signed.
    pub signed: bool,
    /// An `ENUM64` (three words per enumerator) rather than an `ENUM` (two).
    pub wide: bool,
}

impl<'b> BtfEnumerators<'b> {
    pub fn len(&self) -> u32 {
        self.entries.count
    }

    pub fn is_empty(&self) -> bool {
        self.entries.count == 0
    }

    /// The name and value of enumerator `index`, its bits read as the enum's signedness
    /// says.
    pub fn get(&self, index: u32) -> Option<(&'b str, i64)> {
        if index >= self.entries.count {
            return None;
        }
        let stride = if self.wide { 12 } else { 8 };
        let name = self.entries.btf.string(self.entries.word(index, stride, 0));
        let low = self.entries.word(index, stride, 1);
        let value = match (self.wide, self.signed) {
            (true, _) => ((self.entries.word(index, stride, 2) as u64) << 32 | low as u64) as i64,
            (false, true) => low as i32 as i64,
            (false, false) => low as i64,
        };
        Some((name, value))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'b str, i64)> + '_ {
        (0..self.len()).filter_map(|index| self.get(index))
    }
}

/// The return type and parameters of a function prototype.
#[derive(Debug, Clone, Copy)]
pub struct BtfParameters<'b> {
    entries: Entries<'b>,
    pub return_type: u32,
}

impl<'b> BtfParameters<'b> {
    pub fn len(&self) -> u32 {
        self.entries.count
    }

    pub fn is_empty(&self) -> bool {
        self.entries.count == 0
    }

    /// The name ("" when BTF has none) and type of parameter `index`; a last parameter
    /// of type 0 stands for `...`.
    pub fn get(&self, index: u32) -> Option<(&'b str, u32)> {
        (index < self.entries.count).then(|| {
            (
                self.entries.btf.string(self.entries.word(index, 8, 0)),
                self.entries.word(index, 8, 1),
            )
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'b str, u32)> + '_ {
        (0..self.len()).filter_map(|index| self.get(index))
    }

    /// Whether the prototype ends in `...`.
    pub fn varargs(&self) -> bool {
        !self.is_empty() && self.get(self.len() - 1).map(|(_, ty)| ty) == Some(0)
    }
}

/// The variables (and functions) a data section places, each with its offset and size.
#[derive(Debug, Clone, Copy)]
pub struct BtfDataSection<'b> {
    entries: Entries<'b>,
    pub size: u32,
}

/// One variable of a data section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BtfDataSectionEntry {
    /// The `VAR` (or `FUNC`) type id.
    pub ty: u32,
    pub offset: u32,
    pub size: u32,
}

impl BtfDataSection<'_> {
    pub fn len(&self) -> u32 {
        self.entries.count
    }

    pub fn is_empty(&self) -> bool {
        self.entries.count == 0
    }

    pub fn get(&self, index: u32) -> Option<BtfDataSectionEntry> {
        (index < self.entries.count).then(|| BtfDataSectionEntry {
            ty: self.entries.word(index, 12, 0),
            offset: self.entries.word(index, 12, 1),
            size: self.entries.word(index, 12, 2),
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = BtfDataSectionEntry> + '_ {
        (0..self.len()).filter_map(|index| self.get(index))
    }
}

/// The view of `record` (of the blob `owner`, which holds its extra data).
fn kind_of<'b>(owner: &'b Btf, record: &TypeRecord) -> Option<BtfKind<'b>> {
    let target = record.size_or_type;
    let entries = Entries {
        btf: owner,
        start: record.extra,
        count: info_vlen(record.info),
    };
    let flag = info_kind_flag(record.info);
    let extra = |word: usize| owner.word(record.extra + 4 * word);
    Some(match info_kind(record.info) {
        KIND_INT => {
            let bits = extra(0);
            let encoding = bits >> 24;
            BtfKind::Integer {
                size: target,
                encoding: IntegerEncoding {
                    signed: encoding & INT_SIGNED != 0,
                    character: encoding & INT_CHAR != 0,
                    boolean: encoding & INT_BOOL != 0,
                },
                bits: bits & 0xff,
                bit_offset: (bits >> 16) & 0xff,
            }
        }
        KIND_PTR => BtfKind::Pointer { target },
        KIND_ARRAY => BtfKind::Array {
            element: extra(0),
            index: extra(1),
            count: extra(2),
        },
        KIND_STRUCT | KIND_UNION => {
            let members = BtfMembers {
                entries,
                size: target,
                bitfield_offsets: flag,
            };
            if info_kind(record.info) == KIND_STRUCT {
                BtfKind::Struct(members)
            } else {
                BtfKind::Union(members)
            }
        }
        kind @ (KIND_ENUM | KIND_ENUM64) => BtfKind::Enum(BtfEnumerators {
            entries,
            size: target,
            signed: flag,
            wide: kind == KIND_ENUM64,
        }),
        KIND_FWD => BtfKind::Forward { union: flag },
        KIND_TYPEDEF => BtfKind::Typedef { target },
        KIND_VOLATILE => BtfKind::Volatile { target },
        KIND_CONST => BtfKind::Const { target },
        KIND_RESTRICT => BtfKind::Restrict { target },
        KIND_FUNC => BtfKind::Function {
            prototype: target,
            linkage: info_vlen(record.info),
        },
        KIND_FUNC_PROTO => BtfKind::FunctionPrototype(BtfParameters {
            entries,
            return_type: target,
        }),
        KIND_VAR => BtfKind::Variable {
            ty: target,
            linkage: extra(0),
        },
        KIND_DATASEC => BtfKind::DataSection(BtfDataSection {
            entries,
            size: target,
        }),
        KIND_FLOAT => BtfKind::Float { size: target },
        KIND_DECL_TAG => BtfKind::DeclarationTag {
            target,
            component_index: extra(0) as i32,
        },
        KIND_TYPE_TAG => BtfKind::TypeTag { target },
        _ => return None,
    })
}

impl<'b> BtfKind<'b> {
    /// The type this one refers to and stands for in C (a typedef's, a qualifier's or a
    /// type tag's target); `None` for the others.
    pub fn alias_target(&self) -> Option<u32> {
        match *self {
            BtfKind::Typedef { target }
            | BtfKind::Volatile { target }
            | BtfKind::Const { target }
            | BtfKind::Restrict { target }
            | BtfKind::TypeTag { target } => Some(target),
            _ => None,
        }
    }
}

/// How deep [`Btf::resolve_alias`] follows typedefs and qualifiers before deciding that
/// malformed BTF has a cycle.
pub const MAXIMUM_ALIAS_DEPTH: u32 = 64;

impl Btf {
    /// The typed view of type `id`; `None` for `void` (id 0) and ids out of range.
    pub fn type_by_id(&self, id: u32) -> Option<BtfType<'_>> {
        let (owner, record) = self.record(id)?;
        Some(BtfType {
            id,
            name: owner.string(record.name_offset),
            kind: kind_of(owner, &record)?,
        })
    }

    /// `id` with typedefs, qualifiers and type tags looked through; `None` when they form
    /// a cycle or lead out of range.
    pub fn resolve_alias(&self, mut id: u32) -> Option<u32> {
        for _ in 0..MAXIMUM_ALIAS_DEPTH {
            if id == 0 {
                return Some(0);
            }
            match self.type_by_id(id)?.kind.alias_target() {
                Some(target) => id = target,
                None => return Some(id),
            }
        }
        None
    }
}
