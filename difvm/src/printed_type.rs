//! The self-contained description of a value's type that a `print()` action carries in
//! the compiled program, so the consumer can lay the recorded bytes out structurally
//! (D-REFERENCE.md §7.1) without the compiler's type table: a flat table of the types
//! the value reaches by value (members, array elements), each with the name D prints for
//! it, its size and its shape. Pointers are described by name only; the types they
//! point to are not part of the value.

/// The type of one `print()` argument: `types[0]` is the argument's own type, and every
/// other entry is reached from it through members or array elements.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrintedType {
    pub types: Vec<PrintedTypeEntry>,
}

/// Index of an entry in [`PrintedType::types`].
pub type PrintedTypeIndex = u32;

/// One type of a [`PrintedType`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrintedTypeEntry {
    /// The name as D prints it, typedef names kept (`int`, `uint64_t`, `struct foo *`,
    /// `char [16]`, `enum color`).
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    pub shape: PrintedShape,
}

/// How the bytes of a type are read and shown.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PrintedShape {
    /// An integer (`character` for the char types, whose arrays may print as strings).
    Integer {
        signed: bool,
        character: bool,
    },
    /// A floating-point number of 4 or 8 bytes.
    Float,
    /// A pointer, shown as its address.
    Pointer,
    /// An enum: shown by enumerator name when one has the value, else as a number.
    Enum {
        enumerators: Vec<(String, i64)>,
    },
    /// `element [count]`.
    Array {
        element: PrintedTypeIndex,
        count: u64,
    },
    Struct {
        members: Vec<PrintedMember>,
    },
    Union {
        members: Vec<PrintedMember>,
    },
    /// D's `string`: bytes up to the first NUL.
    String,
    /// Anything else (a function, an undefined struct): shown as its name only.
    Opaque,
}

/// One member of a struct or union.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrintedMember {
    /// Empty for an anonymous struct or union member.
    pub name: String,
    pub ty: PrintedTypeIndex,
    /// Offset from the start of the enclosing struct or union, in bits.
    pub bit_offset: u64,
    /// `Some(width)` for a bit-field.
    pub bit_width: Option<u32>,
}

impl PrintedType {
    /// The argument's own type.
    pub fn root(&self) -> Option<&PrintedTypeEntry> {
        self.types.first()
    }

    /// The entry at `index`, if the table has one.
    pub fn entry(&self, index: PrintedTypeIndex) -> Option<&PrintedTypeEntry> {
        self.types.get(index as usize)
    }
}
