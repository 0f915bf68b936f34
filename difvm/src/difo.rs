//! The DIF object (DIFO): code, integer table, string table, variable table, return type.

use crate::isa::Instruction;

/// Whether a DIF type is a C/D type or the D `string` type (classic `DIF_TYPE_CTF`/`DIF_TYPE_STRING`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DifTypeKind {
    /// A C or D type described by its CTF kind and size; printed as `D type`.
    Ctf,
    /// The D `string` type; printed as `string`.
    String,
}

/// The CTF kind of a DIF type, printed in parentheses by the disassembler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CtfKind {
    Unknown,
    Integer,
    Float,
    Pointer,
    Array,
    Function,
    Struct,
    Union,
    Enum,
}

impl CtfKind {
    /// The lower-case word the disassembler prints (`integer`, `pointer`, …).
    pub fn word(self) -> &'static str {
        match self {
            CtfKind::Unknown => "unknown",
            CtfKind::Integer => "integer",
            CtfKind::Float => "float",
            CtfKind::Pointer => "pointer",
            CtfKind::Array => "array",
            CtfKind::Function => "function",
            CtfKind::Struct => "struct",
            CtfKind::Union => "union",
            CtfKind::Enum => "enum",
        }
    }
}

/// The value is passed by reference: registers hold its address (strings, structs, arrays).
pub const DIF_TYPE_FLAG_BY_REFERENCE: u8 = 1;
/// The value is passed by reference to user memory.
pub const DIF_TYPE_FLAG_BY_USER_REFERENCE: u8 = 2;

/// The type of a DIFO's result or of a variable, as DIF sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DifType {
    pub kind: DifTypeKind,
    pub ctf_kind: CtfKind,
    /// `DIF_TYPE_FLAG_*` bits.
    pub flags: u8,
    /// Size in bytes (strsize for strings).
    pub size: u32,
}

impl DifType {
    /// An integer type of `size` bytes, passed by value.
    pub fn integer(size: u32) -> DifType {
        DifType {
            kind: DifTypeKind::Ctf,
            ctf_kind: CtfKind::Integer,
            flags: 0,
            size,
        }
    }
    /// The D string type of `strsize` bytes, passed by reference.
    pub fn string(strsize: u32) -> DifType {
        DifType {
            kind: DifTypeKind::String,
            ctf_kind: CtfKind::Array,
            flags: DIF_TYPE_FLAG_BY_REFERENCE,
            size: strsize,
        }
    }
    /// True when registers hold the address of the value rather than the value.
    pub fn is_by_reference(&self) -> bool {
        self.flags & (DIF_TYPE_FLAG_BY_REFERENCE | DIF_TYPE_FLAG_BY_USER_REFERENCE) != 0
    }
}

/// Variable kind in the variable table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VariableKind {
    Array,
    Scalar,
}

/// Variable scope in the variable table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VariableScope {
    /// Globals and global associative arrays.
    Global,
    /// `self->` variables.
    ThreadLocal,
    /// `this->` variables.
    ClauseLocal,
}

/// The variable is read by this DIFO.
pub const DIF_VARIABLE_FLAG_READ: u8 = 1;
/// The variable is written by this DIFO.
pub const DIF_VARIABLE_FLAG_WRITE: u8 = 2;

/// One entry of a DIFO's variable table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DifVariable {
    /// Offset of the variable's name in the DIFO's string table.
    pub name_offset: u32,
    pub id: u16,
    pub kind: VariableKind,
    pub scope: VariableScope,
    /// `DIF_VARIABLE_FLAG_*` bits.
    pub flags: u8,
    pub ty: DifType,
}

/// An integer-table entry whose value only the kernel knows, supplied where the DIFO
/// runs (classic DTrace's kernel relocations, `dtdo_kreltab`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelRelocation {
    /// The entry of the integer table that `setx` loads.
    pub integer_index: u16,
    pub value: KernelRelocationValue,
}

/// What a kernel relocation stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelRelocationValue {
    /// The address of this CPU's instance of the per-CPU kernel variable whose BTF
    /// `VAR` has this id and lies at `section_offset` in every CPU's per-CPU area (the
    /// user-space engine, which cannot read kernel memory, loads the table's 0).
    PerCpuVariableAddress {
        variable_id: u32,
        section_offset: u32,
    },
}

/// A DIF object: one compiled expression (a predicate, or the value of one action).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Difo {
    pub code: Vec<Instruction>,
    pub integer_table: Vec<u64>,
    /// NUL-separated strings; instructions refer to them by byte offset.
    pub string_table: Vec<u8>,
    pub variable_table: Vec<DifVariable>,
    pub return_type: DifType,
    /// Integer-table entries the engine supplies (empty for most DIFOs).
    pub kernel_relocations: Vec<KernelRelocation>,
}

impl Difo {
    /// The NUL-terminated string at `offset` in the string table, if it is in range.
    pub fn string_at(&self, offset: u32) -> Option<&[u8]> {
        let start = offset as usize;
        let rest = self.string_table.get(start..)?;
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        Some(&rest[..end])
    }

    /// The name of a variable table entry, lossily decoded.
    pub fn variable_name(&self, variable: &DifVariable) -> String {
        self.string_at(variable.name_offset)
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
            .unwrap_or_default()
    }
}
