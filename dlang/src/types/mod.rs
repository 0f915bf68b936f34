//! D's type system: a table of C and D types (LP64 intrinsics, D typedefs, pointers,
//! arrays, structs, unions, enums, functions, `string` and the internal types), their
//! layout and the predicates the semantic checker asks of them.
//!
//! Every type lives in one [`TypeTable`] and is named by a [`TypeId`]. Derived types
//! (pointers, arrays, qualified types) are created on demand and shared, so two uses of
//! `int *` get the same id; structs, unions and enums are identified by their table
//! entry, which makes type identity a plain id comparison after typedefs and qualifiers
//! are stripped.

mod intrinsics;
mod kernel;
mod layout;
mod names;
mod parse_name;
mod table;

pub use layout::MemberLayout;
pub(crate) use parse_name::intrinsic_from_words;
pub use parse_name::{parse_type_name, TypeNameError};
pub use table::{
    AggregateBody, Member, Qualifiers, TypeId, TypeKind, TypeTable, WellKnownTypes,
    KERNEL_TYPE_BASE,
};
