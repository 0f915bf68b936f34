//! The kernel's own types and variables as the compiler sees them: the [`KernelTypes`]
//! interface the consumer answers from the running kernel's BTF, and the plain
//! descriptions it answers with.
//!
//! The compiler does no I/O: it asks this interface by name (`struct task_struct`, the
//! typedef `u64`, the enumerator `TASK_COMM_LEN`, the variable `cpu_number`) and by
//! kernel type id, one type at a time, only when a program names a kernel type. The
//! type table turns each description into a D type the first time it is needed
//! (`types::TypeTable::with_kernel_types`), so a program that names no kernel type
//! never makes the implementation read BTF.

use std::fmt;

/// A type id of the kernel's type information (a BTF type id; 0 is `void`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KernelTypeId(pub u32);

/// The name spaces C looks type names up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelTypeNamespace {
    Struct,
    Union,
    Enum,
    Typedef,
}

/// One member of a kernel struct or union.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelMember {
    /// Empty for an anonymous struct or union member.
    pub name: String,
    pub ty: KernelTypeId,
    /// Offset from the start of the aggregate, in bits.
    pub bit_offset: u64,
    /// `Some(width)` for a bit-field.
    pub bit_width: Option<u32>,
}

/// What a kernel type is, as far as D is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelType {
    Void,
    /// An integer; `character` for the char types, `boolean` for `_Bool`.
    Integer {
        name: String,
        size: u32,
        signed: bool,
        character: bool,
        boolean: bool,
    },
    Float {
        name: String,
        size: u32,
    },
    Pointer {
        target: KernelTypeId,
    },
    Array {
        element: KernelTypeId,
        count: u64,
    },
    /// A struct or union with its layout as the kernel was compiled (`name` is `None`
    /// for an anonymous one).
    Aggregate {
        union: bool,
        name: Option<String>,
        size: u64,
        alignment: u64,
        members: Vec<KernelMember>,
    },
    /// A struct or union the kernel only declares (no definition anywhere).
    Forward {
        union: bool,
        name: String,
    },
    /// An enum (BTF's 32- and 64-bit enums alike) of `size` bytes.
    Enum {
        name: Option<String>,
        size: u32,
        signed: bool,
        enumerators: Vec<(String, i64)>,
    },
    Typedef {
        name: String,
        target: KernelTypeId,
    },
    /// `const`, `volatile`, `restrict`, or none of them for a type tag (which D does not
    /// show).
    Qualified {
        target: KernelTypeId,
        constant: bool,
        volatile: bool,
        restrict: bool,
    },
    /// A function type (a prototype; a function's own entry describes its prototype).
    Function {
        return_type: KernelTypeId,
        parameters: Vec<KernelTypeId>,
        varargs: bool,
    },
}

/// Where a kernel variable lives, which decides how a probe reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelVariableLocation {
    /// A per-CPU variable (its BTF `VAR` id, and its offset in every CPU's per-CPU
    /// area); a probe reads the instance of the CPU it runs on.
    PerCpu {
        variable_id: u32,
        section_offset: u32,
    },
    /// An ordinary variable at this kernel address.
    Address(u64),
}

/// A kernel variable (`` `cpu_number ``, `` vmlinux`max_pfn ``).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelVariable {
    /// The variable's type; `None` when the kernel's type information does not describe
    /// the variable (a symbol kallsyms lists but BTF does not), which D reads as an
    /// `unsigned long`-sized word.
    pub ty: Option<KernelTypeId>,
    pub location: KernelVariableLocation,
}

/// Why a kernel variable cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelVariableError {
    /// No kernel symbol has that name.
    Unknown,
    /// The symbol exists but cannot be used; the text says why in full.
    Unavailable(String),
}

/// The kernel's types and variables, answered lazily.
pub trait KernelTypes: Send + Sync {
    /// The module kernel types belong to, as D scopes them (`` vmlinux`task_struct ``).
    fn module(&self) -> &str {
        "vmlinux"
    }

    /// Why there is no kernel type information at all (`None` when there is).
    fn unavailable_reason(&self) -> Option<String>;

    /// The number of type ids (the largest id plus one); 0 when unavailable.
    fn type_count(&self) -> u32;

    /// The type named `name` in `namespace`; for a struct or union, its definition when
    /// the kernel has one.
    fn named(&self, namespace: KernelTypeNamespace, name: &str) -> Option<KernelTypeId>;

    /// The description of type `id` (`None` for an id out of range, or for entries that
    /// are not types D can use).
    fn describe(&self, id: KernelTypeId) -> Option<KernelType>;

    /// The enum and value of the enumerator `name`.
    fn enumerator(&self, name: &str) -> Option<(KernelTypeId, i64)>;

    /// The kernel variable `name`.
    fn variable(&self, name: &str) -> Result<KernelVariable, KernelVariableError>;
}

/// No kernel type information, with the reason given to every question (for tests and
/// for callers that have none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoKernelTypes {
    pub reason: String,
}

impl Default for NoKernelTypes {
    fn default() -> NoKernelTypes {
        NoKernelTypes {
            reason: "kernel type information is not available".to_string(),
        }
    }
}

impl KernelTypes for NoKernelTypes {
    fn unavailable_reason(&self) -> Option<String> {
        Some(self.reason.clone())
    }

    fn type_count(&self) -> u32 {
        0
    }

    fn named(&self, _namespace: KernelTypeNamespace, _name: &str) -> Option<KernelTypeId> {
        None
    }

    fn describe(&self, _id: KernelTypeId) -> Option<KernelType> {
        None
    }

    fn enumerator(&self, _name: &str) -> Option<(KernelTypeId, i64)> {
        None
    }

    fn variable(&self, _name: &str) -> Result<KernelVariable, KernelVariableError> {
        Err(KernelVariableError::Unavailable(self.reason.clone()))
    }
}

impl fmt::Debug for dyn KernelTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KernelTypes({})", self.module())
    }
}
