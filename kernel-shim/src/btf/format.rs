//! The constants of the BTF encoding (`include/uapi/linux/btf.h`) shared by the reader,
//! the builder and the writer.

/// `BTF_MAGIC`, as read in little-endian byte order.
pub const MAGIC: u16 = 0xeb9f;
/// The only BTF version there is.
pub const VERSION: u8 = 1;
/// Bytes of `struct btf_header`.
pub const HEADER_SIZE: u32 = 24;
/// Bytes of `struct btf_type` (name, info, size or type).
pub const TYPE_SIZE: usize = 12;

pub const KIND_INT: u32 = 1;
pub const KIND_PTR: u32 = 2;
pub const KIND_ARRAY: u32 = 3;
pub const KIND_STRUCT: u32 = 4;
pub const KIND_UNION: u32 = 5;
pub const KIND_ENUM: u32 = 6;
pub const KIND_FWD: u32 = 7;
pub const KIND_TYPEDEF: u32 = 8;
pub const KIND_VOLATILE: u32 = 9;
pub const KIND_CONST: u32 = 10;
pub const KIND_RESTRICT: u32 = 11;
pub const KIND_FUNC: u32 = 12;
pub const KIND_FUNC_PROTO: u32 = 13;
pub const KIND_VAR: u32 = 14;
pub const KIND_DATASEC: u32 = 15;
pub const KIND_FLOAT: u32 = 16;
pub const KIND_DECL_TAG: u32 = 17;
pub const KIND_TYPE_TAG: u32 = 18;
pub const KIND_ENUM64: u32 = 19;

/// `BTF_INT_SIGNED`, in the encoding bits of an INT's extra word.
pub const INT_SIGNED: u32 = 1;
/// `BTF_INT_CHAR`: the integer is a character type.
pub const INT_CHAR: u32 = 2;
/// `BTF_INT_BOOL`: the integer is `_Bool`.
pub const INT_BOOL: u32 = 4;
/// `BTF_FUNC_STATIC`: the linkage (in `vlen`) of a FUNC the verifier checks through its
/// callers rather than through its prototype.
pub const FUNC_STATIC: u32 = 0;
/// `BTF_FUNC_GLOBAL`: the linkage of a FUNC the verifier checks once, from its
/// prototype, whatever calls it.
pub const FUNC_GLOBAL: u32 = 1;

/// The `info` word of a type.
pub fn info(kind: u32, kind_flag: bool, vlen: u32) -> u32 {
    (kind_flag as u32) << 31 | (kind & 0x1f) << 24 | (vlen & 0xffff)
}

pub fn info_kind(info: u32) -> u32 {
    (info >> 24) & 0x1f
}

pub fn info_vlen(info: u32) -> u32 {
    info & 0xffff
}

pub fn info_kind_flag(info: u32) -> bool {
    info >> 31 != 0
}
