//! BTF, the kernel's BPF Type Format: a complete reader of the running kernel's type
//! information (`/sys/kernel/btf/vmlinux`, and a module's split BTF on top of it) with a
//! typed view of every kind, lookups by name, and the struct member offsets the
//! translator needs; and a writer of the small blob that gives a program's functions
//! their types, which the kernel requires (`func_info`) of programs that pass callbacks to
//! helpers such as `bpf_loop`.
//!
//! BTF of either byte order is read (big-endian blobs are rewritten little-endian as they
//! are parsed); x86_64 kernels produce little-endian BTF.

mod builder;
mod format;
mod kinds;
mod members;
mod names;
mod per_cpu;
mod reader;
mod writer;

#[cfg(test)]
mod tests;

pub use builder::BtfBuilder;
pub use format::{
    INT_BOOL, INT_CHAR, INT_SIGNED, KIND_ARRAY, KIND_CONST, KIND_DATASEC, KIND_DECL_TAG, KIND_ENUM,
    KIND_ENUM64, KIND_FLOAT, KIND_FUNC, KIND_FUNC_PROTO, KIND_FWD, KIND_INT, KIND_PTR,
    KIND_RESTRICT, KIND_STRUCT, KIND_TYPEDEF, KIND_TYPE_TAG, KIND_UNION, KIND_VAR, KIND_VOLATILE,
};
pub use kinds::{
    BtfDataSection, BtfDataSectionEntry, BtfEnumerators, BtfKind, BtfMember, BtfMembers,
    BtfParameters, BtfType, IntegerEncoding, MAXIMUM_ALIAS_DEPTH,
};
pub use names::BtfNamespace;
pub use per_cpu::PER_CPU_DATA_SECTION;
pub use reader::{Btf, BtfError, VMLINUX_BTF_PATH};
pub use writer::{
    encode_func_info, function_btf, FunctionBtf, FunctionType, ParameterType, FUNC_INFO_RECORD_SIZE,
};
