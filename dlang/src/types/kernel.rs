//! The kernel's types inside the type table. Type ids from [`KERNEL_TYPE_BASE`] up stand
//! for the kernel type of the same id (`KernelTypeId`), converted from the
//! [`KernelTypes`] description the first time the table is asked about it; D's own
//! types keep the ids below. A struct, union or enum the program names but does not
//! define resolves to the kernel's definition of that tag, so `struct task_struct`
//! (which `curthread` points to) needs nothing from the kernel until a program reaches
//! into it.

use std::cell::OnceCell;
use std::fmt;
use std::sync::Arc;

use super::table::{
    AggregateBody, KernelTypeRange, Member, Qualifiers, TypeId, TypeKind, TypeTable,
    KERNEL_TYPE_BASE,
};
use crate::kernel_types::{
    KernelType, KernelTypeId, KernelTypeNamespace, KernelTypes, KernelVariable, KernelVariableError,
};

/// What an id the kernel does not describe stands for.
static UNDESCRIBED: TypeKind = TypeKind::Void;

impl fmt::Debug for KernelTypeRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let converted = self.kinds.get().map_or(0, |kinds| {
            kinds.iter().filter(|kind| kind.get().is_some()).count()
        });
        write!(f, "KernelTypeRange({converted} converted)")
    }
}

impl KernelTypeRange {
    /// The table id of kernel type `id`.
    fn table_id(&self, id: KernelTypeId) -> TypeId {
        if id.0 == 0 || id.0 >= KERNEL_TYPE_BASE {
            self.void
        } else {
            TypeId(KERNEL_TYPE_BASE + id.0)
        }
    }

    /// The kind of the kernel type with table id `ty`, converted on first use.
    fn kind(&self, ty: TypeId) -> &TypeKind {
        let id = ty.0 - KERNEL_TYPE_BASE;
        let kinds = self.kinds.get_or_init(|| {
            (0..self.source.type_count())
                .map(|_| OnceCell::new())
                .collect()
        });
        match kinds.get(id as usize) {
            Some(cell) => cell.get_or_init(|| Box::new(self.convert(KernelTypeId(id)))),
            None => &UNDESCRIBED,
        }
    }

    /// Converts the description of kernel type `id` into a D type kind whose references
    /// are table ids of kernel types.
    fn convert(&self, id: KernelTypeId) -> TypeKind {
        let Some(description) = self.source.describe(id) else {
            return TypeKind::Void;
        };
        match description {
            KernelType::Void => TypeKind::Void,
            KernelType::Integer {
                name,
                size,
                signed,
                character,
                boolean: _,
            } => TypeKind::Integer {
                name,
                size,
                signed,
                character,
            },
            KernelType::Float { name, size } => TypeKind::Float { name, size },
            KernelType::Pointer { target } => TypeKind::Pointer {
                target: self.table_id(target),
            },
            KernelType::Array { element, count } => TypeKind::Array {
                element: self.table_id(element),
                count,
            },
            KernelType::Aggregate {
                union,
                name,
                size,
                alignment,
                members,
            } => {
                let body = AggregateBody {
                    members: members
                        .into_iter()
                        .map(|member| Member {
                            name: member.name,
                            ty: self.table_id(member.ty),
                            bit_offset: member.bit_offset,
                            bit_width: member.bit_width,
                        })
                        .collect(),
                    size,
                    alignment: alignment.max(1),
                };
                if union {
                    TypeKind::Union {
                        tag: name,
                        body: Some(body),
                    }
                } else {
                    TypeKind::Struct {
                        tag: name,
                        body: Some(body),
                    }
                }
            }
            KernelType::Forward { union, name } => {
                if union {
                    TypeKind::Union {
                        tag: Some(name),
                        body: None,
                    }
                } else {
                    TypeKind::Struct {
                        tag: Some(name),
                        body: None,
                    }
                }
            }
            // D's enums are `int`-sized; the kernel's other enums are integers of their
            // size, named as the enum.
            KernelType::Enum {
                name,
                size: 4,
                signed: _,
                enumerators,
            } => TypeKind::Enum {
                tag: name,
                enumerators: Some(enumerators),
            },
            KernelType::Enum {
                name, size, signed, ..
            } => TypeKind::Integer {
                name: format!("enum {}", name.as_deref().unwrap_or("(anon)")),
                size,
                signed,
                character: false,
            },
            KernelType::Typedef { name, target } => TypeKind::Typedef {
                name,
                target: self.table_id(target),
            },
            KernelType::Qualified {
                target,
                constant,
                volatile,
                restrict,
            } => TypeKind::Qualified {
                target: self.table_id(target),
                qualifiers: Qualifiers {
                    constant,
                    volatile,
                    restrict,
                },
            },
            KernelType::Function {
                return_type,
                parameters,
                varargs,
            } => TypeKind::Function {
                return_type: self.table_id(return_type),
                parameters: parameters
                    .into_iter()
                    .map(|parameter| self.table_id(parameter))
                    .collect(),
                varargs,
            },
        }
    }
}

impl TypeTable {
    /// Lets the table answer kernel types from `source`: struct, union and enum tags the
    /// program does not define, kernel typedef names, and scoped names
    /// (`` vmlinux`task_struct ``).
    pub fn set_kernel_types(&mut self, source: Arc<dyn KernelTypes>) {
        self.kernel = Some(KernelTypeRange {
            source,
            kinds: OnceCell::new(),
            void: self.well_known.void,
        });
    }

    /// The kind of the kernel type with table id `ty` (`void` when there are no kernel
    /// types, which cannot happen for an id the table handed out).
    pub(super) fn kernel_kind(&self, ty: TypeId) -> &TypeKind {
        match &self.kernel {
            Some(range) => range.kind(ty),
            None => &UNDESCRIBED,
        }
    }

    /// True when `ty` (after typedefs and qualifiers) is one of the kernel's types.
    pub fn is_kernel_type(&self, ty: TypeId) -> bool {
        self.resolve(ty).0 >= KERNEL_TYPE_BASE
    }

    /// The module kernel types are scoped by (`vmlinux`), when there are kernel types.
    pub fn kernel_module(&self) -> Option<&str> {
        self.kernel.as_ref().map(|range| range.source.module())
    }

    /// Why no kernel types can be used, when none can.
    pub fn kernel_types_unavailable(&self) -> Option<String> {
        match &self.kernel {
            Some(range) => range.source.unavailable_reason(),
            None => Some("kernel type information is not available".to_string()),
        }
    }

    /// The kernel type named `name` in `namespace`.
    pub fn kernel_named(&self, namespace: KernelTypeNamespace, name: &str) -> Option<TypeId> {
        let range = self.kernel.as_ref()?;
        let id = range.source.named(namespace, name)?;
        Some(range.table_id(id))
    }

    /// The kernel enumerator `name`: its enum and value.
    pub fn kernel_enumerator(&self, name: &str) -> Option<(TypeId, i64)> {
        let range = self.kernel.as_ref()?;
        let (id, value) = range.source.enumerator(name)?;
        Some((range.table_id(id), value))
    }

    /// The kernel variable `name`, with its type as a table id (`None` when the kernel
    /// does not describe it).
    pub fn kernel_variable(
        &self,
        name: &str,
    ) -> Result<(KernelVariable, Option<TypeId>), KernelVariableError> {
        let Some(range) = &self.kernel else {
            return Err(KernelVariableError::Unavailable(
                "kernel symbol information is not available".to_string(),
            ));
        };
        let variable = range.source.variable(name)?;
        let ty = variable.ty.map(|id| range.table_id(id));
        Ok((variable, ty))
    }

    /// The kernel's definition of the tag of the undefined struct, union or enum `kind`
    /// (D's own declaration without a body), when the kernel has one.
    pub(super) fn kernel_definition_of(&self, kind: &TypeKind) -> Option<TypeId> {
        self.kernel.as_ref()?;
        let (namespace, tag) = match kind {
            TypeKind::Struct {
                tag: Some(tag),
                body: None,
            } => (KernelTypeNamespace::Struct, tag),
            TypeKind::Union {
                tag: Some(tag),
                body: None,
            } => (KernelTypeNamespace::Union, tag),
            TypeKind::Enum {
                tag: Some(tag),
                enumerators: None,
            } => (KernelTypeNamespace::Enum, tag),
            _ => return None,
        };
        self.kernel_named(namespace, tag)
    }
}
