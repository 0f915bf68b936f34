//! The kernel's types and variables for the compiler: [`BtfKernelTypes`] answers dlang's
//! `KernelTypes` questions from the running kernel's BTF (`/sys/kernel/btf/vmlinux`) and
//! symbol table (`/proc/kallsyms`), each read on the first question that needs it, so a
//! program that names no kernel type reads neither.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use dlang::kernel_types::{
    KernelMember, KernelType, KernelTypeId, KernelTypeNamespace, KernelTypes, KernelVariable,
    KernelVariableError, KernelVariableLocation,
};
use kernel_shim::btf::{Btf, BtfKind, BtfMembers, BtfNamespace, VMLINUX_BTF_PATH};
use kernel_shim::kallsyms::{kallsyms_lines, KALLSYMS_PATH};

/// How deep the alignment of an aggregate follows members by value, typedefs and arrays
/// before giving up (malformed BTF could nest a struct in itself).
const MAXIMUM_ALIGNMENT_DEPTH: u32 = 32;

/// The largest alignment of a scalar on x86_64 (a pointer's, and a `long`'s).
const WORD_ALIGNMENT: u64 = 8;

/// kallsyms type letters of data symbols: initialised data, zero-initialised data (bss)
/// and read-only data, global or local.
const DATA_SYMBOL_TYPES: [&str; 6] = ["d", "D", "b", "B", "r", "R"];

/// The kernel's types from BTF and its variables from BTF and kallsyms, read lazily.
#[derive(Debug)]
pub struct BtfKernelTypes {
    btf_path: PathBuf,
    kallsyms_path: PathBuf,
    btf: OnceLock<Result<Btf, String>>,
    /// The ids of the `VAR`s in the per-CPU data section.
    /// The `VAR` ids of the per-CPU variables, with their offsets in the per-CPU area.
    per_cpu_variables: OnceLock<HashMap<u32, u32>>,
    /// The text of kallsyms, `None` when it cannot be read.
    kallsyms: OnceLock<Option<String>>,
}

impl Default for BtfKernelTypes {
    fn default() -> BtfKernelTypes {
        BtfKernelTypes::new(VMLINUX_BTF_PATH, KALLSYMS_PATH)
    }
}

/// What kallsyms says of a name.
enum KallsymsEntry {
    Data { address: u64 },
    Function,
    Absent,
}

impl BtfKernelTypes {
    /// Kernel types from the BTF file at `btf_path` and variables' addresses from the
    /// kallsyms file at `kallsyms_path`; nothing is read until asked.
    pub fn new(btf_path: impl Into<PathBuf>, kallsyms_path: impl Into<PathBuf>) -> BtfKernelTypes {
        BtfKernelTypes {
            btf_path: btf_path.into(),
            kallsyms_path: kallsyms_path.into(),
            btf: OnceLock::new(),
            per_cpu_variables: OnceLock::new(),
            kallsyms: OnceLock::new(),
        }
    }

    /// The BTF, read on first use, or why it cannot be.
    fn loaded(&self) -> Result<&Btf, &str> {
        self.btf
            .get_or_init(|| {
                let path = self.btf_path.to_string_lossy();
                Btf::from_file(&path)
                    .map_err(|error| format!("kernel type information is not available: {error}"))
            })
            .as_ref()
            .map_err(String::as_str)
    }

    fn btf(&self) -> Option<&Btf> {
        self.loaded().ok()
    }

    fn per_cpu_variables(&self, btf: &Btf) -> &HashMap<u32, u32> {
        self.per_cpu_variables
            .get_or_init(|| btf.per_cpu_variables())
    }

    /// What kallsyms lists for the kernel image's symbol `name`.
    fn kallsyms_entry(&self, name: &str) -> KallsymsEntry {
        let text = self
            .kallsyms
            .get_or_init(|| std::fs::read_to_string(&self.kallsyms_path).ok());
        let Some(text) = text else {
            return KallsymsEntry::Absent;
        };
        let mut function = false;
        for line in kallsyms_lines(text).filter(|line| line.module.is_none() && line.name == name) {
            if DATA_SYMBOL_TYPES.contains(&line.symbol_type) {
                return KallsymsEntry::Data {
                    address: line.address,
                };
            }
            function |= line.is_text();
        }
        if function {
            KallsymsEntry::Function
        } else {
            KallsymsEntry::Absent
        }
    }

    /// The alignment of type `id` in bytes, as the compiler laid it out (libbpf's rule:
    /// a struct whose members or size are not aligned to their types was packed);
    /// `None` for types that have none (void, functions) or past the depth guard.
    fn alignment(&self, btf: &Btf, id: u32, depth: u32) -> Option<u64> {
        if depth > MAXIMUM_ALIGNMENT_DEPTH {
            return None;
        }
        let scalar = |size: u32| Some((size as u64).clamp(1, WORD_ALIGNMENT));
        match btf.type_by_id(id)?.kind {
            BtfKind::Integer { size, .. } | BtfKind::Float { size } => scalar(size),
            BtfKind::Enum(enumerators) => scalar(enumerators.size),
            BtfKind::Pointer { .. } => Some(WORD_ALIGNMENT),
            BtfKind::Array { element, .. } => self.alignment(btf, element, depth + 1),
            BtfKind::Typedef { target }
            | BtfKind::Volatile { target }
            | BtfKind::Const { target }
            | BtfKind::Restrict { target }
            | BtfKind::TypeTag { target } => self.alignment(btf, target, depth + 1),
            BtfKind::Struct(members) | BtfKind::Union(members) => {
                self.aggregate_alignment(btf, members, depth)
            }
            _ => None,
        }
    }

    fn aggregate_alignment(&self, btf: &Btf, members: BtfMembers<'_>, depth: u32) -> Option<u64> {
        let mut largest = 1;
        for member in members.iter() {
            let alignment = self.alignment(btf, member.ty, depth + 1)?;
            largest = largest.max(alignment);
            if member.bit_width.is_none()
                && !(member.bit_offset as u64).is_multiple_of(8 * alignment)
            {
                return Some(1);
            }
        }
        if !(members.size as u64).is_multiple_of(largest) {
            return Some(1);
        }
        Some(largest)
    }

    /// The description of a struct or union.
    fn aggregate(&self, btf: &Btf, union: bool, name: &str, members: BtfMembers<'_>) -> KernelType {
        KernelType::Aggregate {
            union,
            name: (!name.is_empty()).then(|| name.to_string()),
            size: members.size as u64,
            alignment: self.aggregate_alignment(btf, members, 0).unwrap_or(1),
            members: members
                .iter()
                .map(|member| KernelMember {
                    name: member.name.to_string(),
                    ty: KernelTypeId(member.ty),
                    bit_offset: member.bit_offset as u64,
                    bit_width: member.bit_width,
                })
                .collect(),
        }
    }

    /// A forward declaration's description: the definition of the same name where the
    /// kernel has one.
    fn forward(&self, btf: &Btf, union: bool, name: &str) -> KernelType {
        let namespace = if union {
            BtfNamespace::Union
        } else {
            BtfNamespace::Struct
        };
        let definition = btf
            .named(namespace, name)
            .and_then(|id| btf.type_by_id(id))
            .and_then(|definition| match definition.kind {
                BtfKind::Struct(members) if !union => Some(members),
                BtfKind::Union(members) if union => Some(members),
                _ => None,
            });
        match definition {
            Some(members) => self.aggregate(btf, union, name, members),
            None => KernelType::Forward {
                union,
                name: name.to_string(),
            },
        }
    }

    /// The description of a function prototype (`FUNC_PROTO` `id`).
    fn function(&self, btf: &Btf, id: u32) -> Option<KernelType> {
        let BtfKind::FunctionPrototype(parameters) = btf.type_by_id(id)?.kind else {
            return None;
        };
        let varargs = parameters.varargs();
        let count = parameters.len() - varargs as u32;
        Some(KernelType::Function {
            return_type: KernelTypeId(parameters.return_type),
            parameters: (0..count)
                .filter_map(|index| parameters.get(index))
                .map(|(_, ty)| KernelTypeId(ty))
                .collect(),
            varargs,
        })
    }

    /// The variable `name` that BTF and kallsyms describe, when they do.
    fn find_variable(&self, name: &str) -> Result<KernelVariable, KernelVariableError> {
        let btf = self.btf();
        let variable = btf.and_then(|btf| {
            let id = btf.named(BtfNamespace::Variable, name)?;
            match btf.type_by_id(id)?.kind {
                BtfKind::Variable { ty, .. } => Some((btf, id, ty)),
                _ => None,
            }
        });
        if let Some((btf, id, ty)) = variable {
            if let Some(&section_offset) = self.per_cpu_variables(btf).get(&id) {
                return Ok(KernelVariable {
                    ty: Some(KernelTypeId(ty)),
                    location: KernelVariableLocation::PerCpu {
                        variable_id: id,
                        section_offset,
                    },
                });
            }
        }
        let ty = variable.map(|(_, _, ty)| KernelTypeId(ty));
        match self.kallsyms_entry(name) {
            KallsymsEntry::Data { address: 0 } => Err(KernelVariableError::Unavailable(format!(
                "the address of kernel variable `{name}` is hidden: {} shows zero addresses \
                 (dtrace is not running as root, or kernel.kptr_restrict hides them)",
                self.kallsyms_path.display()
            ))),
            KallsymsEntry::Data { address } => Ok(KernelVariable {
                ty,
                location: KernelVariableLocation::Address(address),
            }),
            KallsymsEntry::Function => Err(function_not_variable(name)),
            KallsymsEntry::Absent => {
                if btf
                    .and_then(|btf| btf.named(BtfNamespace::Function, name))
                    .is_some()
                {
                    Err(function_not_variable(name))
                } else if ty.is_some() {
                    Err(KernelVariableError::Unavailable(format!(
                        "kernel variable `{name}` has no address: {} does not list it \
                         (the kernel lists data symbols only with CONFIG_KALLSYMS_ALL)",
                        self.kallsyms_path.display()
                    )))
                } else {
                    Err(KernelVariableError::Unknown)
                }
            }
        }
    }
}

fn function_not_variable(name: &str) -> KernelVariableError {
    KernelVariableError::Unavailable(format!(
        "kernel symbol `{name}` is a function, not a variable"
    ))
}

impl KernelTypes for BtfKernelTypes {
    fn unavailable_reason(&self) -> Option<String> {
        self.loaded().err().map(str::to_string)
    }

    fn type_count(&self) -> u32 {
        self.btf().map_or(0, Btf::type_id_limit)
    }

    fn named(&self, namespace: KernelTypeNamespace, name: &str) -> Option<KernelTypeId> {
        let namespace = match namespace {
            KernelTypeNamespace::Struct => BtfNamespace::Struct,
            KernelTypeNamespace::Union => BtfNamespace::Union,
            KernelTypeNamespace::Enum => BtfNamespace::Enum,
            KernelTypeNamespace::Typedef => BtfNamespace::Typedef,
        };
        self.btf()?.named(namespace, name).map(KernelTypeId)
    }

    fn describe(&self, id: KernelTypeId) -> Option<KernelType> {
        let btf = self.btf()?;
        if id.0 == 0 {
            return Some(KernelType::Void);
        }
        let ty = btf.type_by_id(id.0)?;
        let name = ty.name.to_string();
        let qualified = |target: u32, constant: bool, volatile: bool, restrict: bool| {
            Some(KernelType::Qualified {
                target: KernelTypeId(target),
                constant,
                volatile,
                restrict,
            })
        };
        match ty.kind {
            BtfKind::Integer { size, encoding, .. } => Some(KernelType::Integer {
                character: encoding.character || (size == 1 && name.contains("char")),
                boolean: encoding.boolean || name == "_Bool",
                signed: encoding.signed,
                name,
                size,
            }),
            BtfKind::Float { size } => Some(KernelType::Float { name, size }),
            BtfKind::Pointer { target } => Some(KernelType::Pointer {
                target: KernelTypeId(target),
            }),
            BtfKind::Array { element, count, .. } => Some(KernelType::Array {
                element: KernelTypeId(element),
                count: count as u64,
            }),
            BtfKind::Struct(members) => Some(self.aggregate(btf, false, ty.name, members)),
            BtfKind::Union(members) => Some(self.aggregate(btf, true, ty.name, members)),
            BtfKind::Forward { union } => Some(self.forward(btf, union, ty.name)),
            BtfKind::Enum(enumerators) => Some(KernelType::Enum {
                name: (!name.is_empty()).then_some(name),
                size: enumerators.size,
                signed: enumerators.signed,
                enumerators: enumerators
                    .iter()
                    .map(|(enumerator, value)| (enumerator.to_string(), value))
                    .collect(),
            }),
            BtfKind::Typedef { target } => Some(KernelType::Typedef {
                name,
                target: KernelTypeId(target),
            }),
            BtfKind::Const { target } => qualified(target, true, false, false),
            BtfKind::Volatile { target } => qualified(target, false, true, false),
            BtfKind::Restrict { target } => qualified(target, false, false, true),
            BtfKind::TypeTag { target } => qualified(target, false, false, false),
            BtfKind::Function { prototype, .. } => self.function(btf, prototype),
            BtfKind::FunctionPrototype(_) => self.function(btf, id.0),
            BtfKind::Variable { .. } | BtfKind::DataSection(_) | BtfKind::DeclarationTag { .. } => {
                None
            }
        }
    }

    fn enumerator(&self, name: &str) -> Option<(KernelTypeId, i64)> {
        let (id, value) = self.btf()?.enumerator(name)?;
        Some((KernelTypeId(id), value))
    }

    fn variable(&self, name: &str) -> Result<KernelVariable, KernelVariableError> {
        self.find_variable(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_shim::btf::{
        BtfBuilder, INT_CHAR, INT_SIGNED, KIND_ARRAY, KIND_CONST, KIND_DATASEC, KIND_DECL_TAG,
        KIND_ENUM64, KIND_FLOAT, KIND_FUNC, KIND_FUNC_PROTO, KIND_FWD, KIND_INT, KIND_PTR,
        KIND_STRUCT, KIND_TYPEDEF, KIND_TYPE_TAG, KIND_VAR, PER_CPU_DATA_SECTION,
    };

    /// A small kernel's BTF (ids in the comments).
    fn sample_btf() -> Vec<u8> {
        let mut blob = BtfBuilder::new();
        let int = blob.add_type("int", KIND_INT, false, 0, 4, &[INT_SIGNED << 24 | 32]); // 1
        let char_type = blob.add_type(
            "char",
            KIND_INT,
            false,
            0,
            1,
            &[(INT_SIGNED | INT_CHAR) << 24 | 8],
        ); // 2
        let comm_type = blob.add_type("", KIND_ARRAY, false, 0, 0, &[char_type, int, 16]); // 3
        let forward = blob.add_type("task", KIND_FWD, false, 0, 0, &[]); // 4
        let pointer = blob.add_type("", KIND_PTR, false, 0, forward, &[]); // 5
        let members = [
            blob.string("pid"),
            int,
            0,
            blob.string("comm"),
            comm_type,
            32,
            blob.string("real_parent"),
            pointer,
            192,
            blob.string("flag"),
            int,
            1 << 24 | 256,
        ];
        blob.add_type("task", KIND_STRUCT, true, 4, 40, &members); // 6
        blob.add_type("pid_t", KIND_TYPEDEF, false, 0, int, &[]); // 7
        let constant = blob.add_type("", KIND_CONST, false, 0, char_type, &[]); // 8
        blob.add_type("user", KIND_TYPE_TAG, false, 0, constant, &[]); // 9
        let prototype = blob.add_type("", KIND_FUNC_PROTO, false, 2, int, &[0, pointer, 0, 0]); // 10
        blob.add_type("printk", KIND_FUNC, false, 1, prototype, &[]); // 11
        let huge = blob.string("HUGE");
        blob.add_type("wide", KIND_ENUM64, false, 1, 8, &[huge, 0, 1]); // 12
        let cpu_number = blob.add_type("cpu_number", KIND_VAR, false, 0, int, &[1]); // 13
        blob.add_type(
            PER_CPU_DATA_SECTION,
            KIND_DATASEC,
            false,
            1,
            20,
            &[cpu_number, 16, 4],
        ); // 14
        let jiffies = blob.add_type("jiffies", KIND_VAR, false, 0, int, &[1]); // 15
        blob.add_type(".data", KIND_DATASEC, false, 1, 4, &[jiffies, 0, 4]); // 16
        let (c, i) = (blob.string("c"), blob.string("i"));
        blob.add_type(
            "packed",
            KIND_STRUCT,
            false,
            2,
            5,
            &[c, char_type, 0, i, int, 8],
        ); // 17
        blob.add_type("tag", KIND_DECL_TAG, false, 0, 6, &[(-1i32) as u32]); // 18
        let own = blob.next_id();
        blob.add_type("itself", KIND_STRUCT, false, 1, 4, &[c, own, 0]); // 19
        blob.add_type("missing", KIND_FWD, false, 0, 0, &[]); // 20
        blob.add_type("double", KIND_FLOAT, false, 0, 8, &[]); // 21
        blob.finish()
    }

    /// A scratch directory holding `btf` and `kallsyms` files.
    fn kernel_files(test: &str, kallsyms: &str) -> (PathBuf, PathBuf) {
        let directory =
            std::env::temp_dir().join(format!("dtrace-kernel-types-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&directory).expect("scratch directory");
        std::fs::write(directory.join("btf"), sample_btf()).expect("write BTF");
        std::fs::write(directory.join("kallsyms"), kallsyms).expect("write kallsyms");
        (directory.join("btf"), directory.join("kallsyms"))
    }

    const KALLSYMS: &str = "ffffffff81000000 T printk\nffffffff82000000 D jiffies\n\
                            ffffffff82000010 B max_pfn\nffffffffc0000000 d module_data\t[mod]\n";

    #[test]
    fn nothing_is_read_before_the_first_question() {
        let types = BtfKernelTypes::new("/nonexistent/btf", "/nonexistent/kallsyms");
        assert!(types.btf.get().is_none() && types.kallsyms.get().is_none());
        let reason = types.unavailable_reason().expect("unavailable");
        assert!(
            reason.starts_with(
                "kernel type information is not available: cannot read BTF from /nonexistent/btf"
            ),
            "{reason}"
        );
        assert_eq!(types.type_count(), 0);
        assert_eq!(types.named(KernelTypeNamespace::Struct, "task"), None);
        assert_eq!(types.variable("jiffies"), Err(KernelVariableError::Unknown));
    }

    #[test]
    fn types_are_described() {
        let (btf, kallsyms) = kernel_files("describe", KALLSYMS);
        let types = BtfKernelTypes::new(btf, kallsyms);
        assert_eq!(types.unavailable_reason(), None);
        assert_eq!(types.type_count(), 22);
        assert_eq!(
            types.named(KernelTypeNamespace::Struct, "task"),
            Some(KernelTypeId(6))
        );
        assert_eq!(
            types.named(KernelTypeNamespace::Typedef, "pid_t"),
            Some(KernelTypeId(7))
        );
        assert_eq!(
            types.named(KernelTypeNamespace::Enum, "wide"),
            Some(KernelTypeId(12))
        );
        assert_eq!(types.enumerator("HUGE"), Some((KernelTypeId(12), 1 << 32)));
        let describe = |id| types.describe(KernelTypeId(id));
        let Some(KernelType::Aggregate {
            union: false,
            name,
            size: 40,
            alignment: 8,
            members,
        }) = describe(4)
        else {
            panic!(
                "the forward declaration resolves to the definition: {:?}",
                describe(4)
            )
        };
        assert_eq!(name.as_deref(), Some("task"));
        assert_eq!(
            members
                .iter()
                .map(|member| member.name.as_str())
                .collect::<Vec<_>>(),
            ["pid", "comm", "real_parent", "flag"]
        );
        assert_eq!(
            (members[3].bit_offset, members[3].bit_width),
            (256, Some(1))
        );
        assert_eq!(describe(0), Some(KernelType::Void));
        assert!(matches!(
            describe(2),
            Some(KernelType::Integer {
                size: 1,
                signed: true,
                character: true,
                boolean: false,
                ..
            })
        ));
        assert_eq!(
            describe(3),
            Some(KernelType::Array {
                element: KernelTypeId(2),
                count: 16
            })
        );
        assert_eq!(
            describe(5),
            Some(KernelType::Pointer {
                target: KernelTypeId(4)
            })
        );
        assert_eq!(
            describe(7),
            Some(KernelType::Typedef {
                name: "pid_t".into(),
                target: KernelTypeId(1)
            })
        );
        assert_eq!(
            describe(8),
            Some(KernelType::Qualified {
                target: KernelTypeId(2),
                constant: true,
                volatile: false,
                restrict: false
            })
        );
        assert_eq!(
            describe(9),
            Some(KernelType::Qualified {
                target: KernelTypeId(8),
                constant: false,
                volatile: false,
                restrict: false
            })
        );
        let printk = Some(KernelType::Function {
            return_type: KernelTypeId(1),
            parameters: vec![KernelTypeId(5)],
            varargs: true,
        });
        assert_eq!(describe(11), printk);
        assert_eq!(describe(10), printk);
        assert!(matches!(
            describe(12),
            Some(KernelType::Enum {
                size: 8,
                signed: false,
                ..
            })
        ));
        for not_a_type in [13, 14, 18, 22] {
            assert_eq!(describe(not_a_type), None, "{not_a_type}");
        }
        assert!(matches!(
            describe(17),
            Some(KernelType::Aggregate {
                alignment: 1,
                size: 5,
                ..
            })
        ));
        assert!(matches!(
            describe(19),
            Some(KernelType::Aggregate { alignment: 1, .. })
        ));
        assert_eq!(
            describe(20),
            Some(KernelType::Forward {
                union: false,
                name: "missing".into()
            })
        );
        assert_eq!(
            describe(21),
            Some(KernelType::Float {
                name: "double".into(),
                size: 8
            })
        );
    }

    #[test]
    fn variables_are_per_cpu_at_an_address_or_explained() {
        let (btf, kallsyms) = kernel_files("variables", KALLSYMS);
        let types = BtfKernelTypes::new(btf, kallsyms);
        assert_eq!(
            types.variable("cpu_number"),
            Ok(KernelVariable {
                ty: Some(KernelTypeId(1)),
                location: KernelVariableLocation::PerCpu {
                    variable_id: 13,
                    section_offset: 16
                }
            })
        );
        assert_eq!(
            types.variable("jiffies"),
            Ok(KernelVariable {
                ty: Some(KernelTypeId(1)),
                location: KernelVariableLocation::Address(0xffffffff82000000)
            })
        );
        assert_eq!(
            types.variable("max_pfn"),
            Ok(KernelVariable {
                ty: None,
                location: KernelVariableLocation::Address(0xffffffff82000010)
            })
        );
        assert_eq!(
            types.variable("printk"),
            Err(KernelVariableError::Unavailable(
                "kernel symbol `printk` is a function, not a variable".into()
            ))
        );
        assert_eq!(
            types.variable("module_data"),
            Err(KernelVariableError::Unknown)
        );
        assert_eq!(
            types.variable("nonesuch"),
            Err(KernelVariableError::Unknown)
        );

        let (btf, kallsyms) = kernel_files("hidden", "0000000000000000 D jiffies\n");
        let hidden = BtfKernelTypes::new(btf, kallsyms);
        let Err(KernelVariableError::Unavailable(reason)) = hidden.variable("jiffies") else {
            panic!("hidden addresses are unavailable")
        };
        assert!(reason.contains("shows zero addresses"), "{reason}");
        // Without kallsyms, the function is known from BTF and the variable is explained.
        let Err(KernelVariableError::Unavailable(reason)) =
            BtfKernelTypes::new(hidden.btf_path.clone(), "/nonexistent").variable("jiffies")
        else {
            panic!("a BTF variable without an address is unavailable")
        };
        assert!(reason.contains("has no address"), "{reason}");
        assert!(matches!(
            BtfKernelTypes::new(hidden.btf_path.clone(), "/nonexistent").variable("printk"),
            Err(KernelVariableError::Unavailable(_))
        ));
    }

    #[test]
    fn the_running_kernel_describes_task_struct_and_cpu_number() {
        let types = BtfKernelTypes::default();
        if let Some(reason) = types.unavailable_reason() {
            println!("skipping: {reason}");
            return;
        }
        let task_struct = types
            .named(KernelTypeNamespace::Struct, "task_struct")
            .expect("struct task_struct");
        let Some(KernelType::Aggregate {
            members,
            size,
            alignment,
            ..
        }) = types.describe(task_struct)
        else {
            panic!("task_struct is a struct")
        };
        assert!(size > 1000 && alignment >= 8, "{size} {alignment}");
        for wanted in ["pid", "comm", "real_parent"] {
            assert!(
                members.iter().any(|member| member.name == wanted),
                "{wanted}"
            );
        }
        assert!(matches!(
            types.variable("cpu_number"),
            Ok(KernelVariable {
                location: KernelVariableLocation::PerCpu { .. },
                ty: Some(_)
            })
        ));
        let kallsyms = std::fs::read_to_string(KALLSYMS_PATH).unwrap_or_default();
        if kallsyms.lines().any(|line| line.ends_with(" max_pfn")) {
            println!("skipping the max_pfn check: this kernel's kallsyms lists data symbols");
        } else {
            assert_eq!(types.variable("max_pfn"), Err(KernelVariableError::Unknown));
        }
        assert!(matches!(
            types.variable("vfs_read"),
            Err(KernelVariableError::Unavailable(_))
        ));
    }
}
