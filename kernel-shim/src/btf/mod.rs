//! BTF, the kernel's BPF Type Format: a reader of just enough of it to find struct member
//! offsets in the running kernel's type information (`/sys/kernel/btf/vmlinux`), and a
//! writer of the small blob that gives a program's functions their types, which the
//! kernel requires (`func_info`) of programs that pass callbacks to helpers such as
//! `bpf_loop`.
//!
//! Only little-endian BTF is handled, which is what x86_64 kernels produce.

mod format;
mod reader;
mod writer;

pub use reader::{Btf, BtfError, VMLINUX_BTF_PATH};
pub use writer::{
    encode_func_info, function_btf, FunctionBtf, FunctionType, ParameterType, FUNC_INFO_RECORD_SIZE,
};
