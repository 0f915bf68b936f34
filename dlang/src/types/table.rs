//! The type table itself: the [`TypeId`]s, the kinds of types, and the table that
//! creates derived types on demand and answers the checker's questions about them.
//! Building the initial table (`intrinsics`), laying out aggregates (`layout`) and
//! printing type names (`names`) add their methods to [`TypeTable`] from their own
//! modules.

use std::collections::{HashMap, HashSet};

use std::cell::OnceCell;
use std::sync::Arc;

use crate::kernel_types::{KernelTypeNamespace, KernelTypes};

/// The first type id that stands for a kernel type (see `types::kernel`).
pub const KERNEL_TYPE_BASE: u32 = 0x8000_0000;

/// The kernel's types as the table sees them: the source and the types converted so
/// far, one cell per kernel type id (allocated when the first kernel type is
/// converted). `types::kernel` converts and answers.
#[derive(Clone)]
pub(super) struct KernelTypeRange {
    pub(super) source: Arc<dyn KernelTypes>,
    pub(super) kinds: OnceCell<Vec<OnceCell<Box<TypeKind>>>>,
    /// The table's `void`, which kernel type id 0 stands for.
    pub(super) void: TypeId,
}

/// A type in a [`TypeTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// The C type qualifiers D keeps in type names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Qualifiers {
    pub constant: bool,
    pub volatile: bool,
    pub restrict: bool,
}

impl Qualifiers {
    /// True when no qualifier is set.
    pub fn is_empty(&self) -> bool {
        !self.constant && !self.volatile && !self.restrict
    }
}

/// One member of a struct or union.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub ty: TypeId,
    /// Offset of the member from the start of the aggregate, in bits.
    pub bit_offset: u64,
    /// `Some(width)` for a bit-field.
    pub bit_width: Option<u32>,
}

/// The body of a struct or union once it has been defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggregateBody {
    pub members: Vec<Member>,
    pub size: u64,
    pub alignment: u64,
}

/// The kinds of type D knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeKind {
    Void,
    /// An integer type; `character` marks the char types (which make pointers and
    /// arrays of them string-compatible).
    Integer {
        name: String,
        size: u32,
        signed: bool,
        character: bool,
    },
    /// A floating-point type: usable in data and casts, not in arithmetic.
    Float {
        name: String,
        size: u32,
    },
    Pointer {
        target: TypeId,
    },
    /// `element [count]`; `count` is 0 for `[]`.
    Array {
        element: TypeId,
        count: u64,
    },
    /// `struct tag`; `body` is `None` while the struct is only forward-declared.
    Struct {
        tag: Option<String>,
        body: Option<AggregateBody>,
    },
    Union {
        tag: Option<String>,
        body: Option<AggregateBody>,
    },
    /// `enum tag`; `enumerators` is `None` while only forward-declared.
    Enum {
        tag: Option<String>,
        enumerators: Option<Vec<(String, i64)>>,
    },
    Function {
        return_type: TypeId,
        parameters: Vec<TypeId>,
        varargs: bool,
    },
    Typedef {
        name: String,
        target: TypeId,
    },
    Qualified {
        target: TypeId,
        qualifiers: Qualifiers,
    },
    /// D's `string`: a NUL-terminated array of strsize bytes.
    String,
    /// Result of `stack()`, `ustack()`, `jstack()`.
    Stack,
    /// Result of `sym()`, `func()`, `mod()`.
    SymbolAddress,
    /// Result of `usym()`, `ufunc()`, `umod()`, `uaddr()`.
    UserSymbolAddress,
    /// The dynamic type of untyped objects (`args[]` without types, translator output).
    Dynamic,
}

/// All types of one compilation.
#[derive(Debug, Clone)]
pub struct TypeTable {
    pub(super) entries: Vec<TypeKind>,
    /// The size of `string`, which `#pragma D option strsize` may change.
    pub(super) string_size: u32,
    pub(super) typedefs: HashMap<String, TypeId>,
    pub(super) struct_tags: HashMap<String, TypeId>,
    pub(super) union_tags: HashMap<String, TypeId>,
    pub(super) enum_tags: HashMap<String, TypeId>,
    pub(super) pointers: HashMap<TypeId, TypeId>,
    pub(super) arrays: HashMap<(TypeId, u64), TypeId>,
    pub(super) qualified: HashMap<(TypeId, bool, bool, bool), TypeId>,
    pub(super) intrinsic_names: HashMap<&'static str, TypeId>,
    pub(super) well_known: WellKnownTypes,
    /// The kernel's types, when the compiler was given them (ids from
    /// `KERNEL_TYPE_BASE` up).
    pub(super) kernel: Option<KernelTypeRange>,
    /// The structs and unions whose bodies the program is declaring: until their
    /// body is laid out they are incomplete, never the kernel's type of that tag (DTrace
    /// finds the tag in its D container first, with size 0).
    pub(super) being_defined: HashSet<TypeId>,
}

/// Ids of the types the checker needs by name.
#[derive(Debug, Clone, Copy)]
pub struct WellKnownTypes {
    pub void: TypeId,
    pub char: TypeId,
    pub signed_char: TypeId,
    pub unsigned_char: TypeId,
    pub short: TypeId,
    pub unsigned_short: TypeId,
    pub int: TypeId,
    pub unsigned_int: TypeId,
    pub long: TypeId,
    pub unsigned_long: TypeId,
    pub long_long: TypeId,
    pub unsigned_long_long: TypeId,
    pub bool: TypeId,
    pub float: TypeId,
    pub double: TypeId,
    pub long_double: TypeId,
    pub string: TypeId,
    pub stack: TypeId,
    pub symbol_address: TypeId,
    pub user_symbol_address: TypeId,
    pub dynamic: TypeId,
    pub void_pointer: TypeId,
    pub char_pointer: TypeId,
    pub const_char_pointer: TypeId,
    pub size_t: TypeId,
    pub ptrdiff_t: TypeId,
    pub int64_t: TypeId,
    pub uint64_t: TypeId,
}

/// How many typedefs, qualifiers and declarations `resolve` looks through.
const MAXIMUM_RESOLUTION_STEPS: u32 = 64;

impl Default for TypeTable {
    fn default() -> TypeTable {
        TypeTable::new(256)
    }
}

impl TypeTable {
    /// The ids of the types the checker uses by name.
    pub fn well_known(&self) -> WellKnownTypes {
        self.well_known
    }

    /// The current size of `string` (strsize).
    pub fn string_size(&self) -> u32 {
        self.string_size
    }

    /// Changes the size of `string` (for `#pragma D option strsize`).
    pub fn set_string_size(&mut self, size: u32) {
        self.string_size = size;
    }

    /// The kind of `ty` exactly as stored (typedefs and qualifiers not stripped).
    pub fn kind(&self, ty: TypeId) -> &TypeKind {
        if ty.0 >= KERNEL_TYPE_BASE {
            return self.kernel_kind(ty);
        }
        &self.entries[ty.0 as usize]
    }

    /// Adds a new type and returns its id.
    pub(super) fn add(&mut self, kind: TypeKind) -> TypeId {
        let id = TypeId(self.entries.len() as u32);
        self.entries.push(kind);
        id
    }

    /// Strips typedefs and qualifiers: the type that decides what operations mean. A
    /// struct, union or enum the program declared but did not define is the kernel's
    /// definition of that tag, when the kernel has one.
    pub fn resolve(&self, mut ty: TypeId) -> TypeId {
        // Kernel type information could hold a cycle of typedefs; D's own cannot.
        for _ in 0..MAXIMUM_RESOLUTION_STEPS {
            let kind = self.kind(ty);
            match kind {
                TypeKind::Typedef { target, .. } | TypeKind::Qualified { target, .. } => {
                    ty = *target
                }
                TypeKind::Struct { body: None, .. }
                | TypeKind::Union { body: None, .. }
                | TypeKind::Enum {
                    enumerators: None, ..
                } if self.being_defined.contains(&ty) => return ty,
                TypeKind::Struct { body: None, .. }
                | TypeKind::Union { body: None, .. }
                | TypeKind::Enum {
                    enumerators: None, ..
                } => match self.kernel_definition_of(kind) {
                    Some(definition) if definition != ty => ty = definition,
                    _ => return ty,
                },
                _ => return ty,
            }
        }
        ty
    }

    /// A type by its typedef or intrinsic name: D's own names first, then the kernel's.
    /// A name scoped by the kernel's module (`` vmlinux`u64 ``) is the kernel's typedef,
    /// or a C base type (`` vmlinux`int ``), which the kernel's types have as D has them.
    pub fn type_named(&self, name: &str) -> Option<TypeId> {
        if let Some((module, plain)) = name.rsplit_once('`') {
            if module.is_empty() || Some(module) != self.kernel_module() {
                return self.typedef_named(plain).or_else(|| self.intrinsic(plain));
            }
            return self
                .kernel_named(KernelTypeNamespace::Typedef, plain)
                .or_else(|| self.intrinsic(plain));
        }
        self.typedef_named(name)
            .or_else(|| self.intrinsic(name))
            .or_else(|| self.kernel_named(KernelTypeNamespace::Typedef, name))
    }

    /// The struct, union or enum `tag` as a type specifier names it: a tag scoped by
    /// the kernel's module (`` struct vmlinux`task_struct ``) is the kernel's definition;
    /// any other is D's own declaration (created when new), which resolves to the
    /// kernel's definition while the program does not define it.
    pub fn tagged(&mut self, namespace: KernelTypeNamespace, tag: &str) -> TypeId {
        if let Some((module, plain)) = tag.rsplit_once('`') {
            if !module.is_empty() && Some(module) == self.kernel_module() {
                if let Some(kernel) = self.kernel_named(namespace, plain) {
                    return kernel;
                }
            }
            return self.tagged(namespace, plain);
        }
        match namespace {
            KernelTypeNamespace::Union => self.declare_union(Some(tag)),
            KernelTypeNamespace::Enum => self.declare_enum(Some(tag)),
            _ => self.declare_struct(Some(tag)),
        }
    }

    /// The kind of the resolved type.
    pub fn resolved_kind(&self, ty: TypeId) -> &TypeKind {
        self.kind(self.resolve(ty))
    }

    /// `target *`, shared between uses.
    pub fn pointer_to(&mut self, target: TypeId) -> TypeId {
        if let Some(&existing) = self.pointers.get(&target) {
            return existing;
        }
        let id = self.add(TypeKind::Pointer { target });
        self.pointers.insert(target, id);
        id
    }

    /// `element [count]`, shared between uses.
    pub fn array_of(&mut self, element: TypeId, count: u64) -> TypeId {
        if let Some(&existing) = self.arrays.get(&(element, count)) {
            return existing;
        }
        let id = self.add(TypeKind::Array { element, count });
        self.arrays.insert((element, count), id);
        id
    }

    /// `ty` with `qualifiers` added (returns `ty` itself when there are none).
    pub fn qualified(&mut self, ty: TypeId, qualifiers: Qualifiers) -> TypeId {
        if qualifiers.is_empty() {
            return ty;
        }
        let key = (
            ty,
            qualifiers.constant,
            qualifiers.volatile,
            qualifiers.restrict,
        );
        if let Some(&existing) = self.qualified.get(&key) {
            return existing;
        }
        let id = self.add(TypeKind::Qualified {
            target: ty,
            qualifiers,
        });
        self.qualified.insert(key, id);
        id
    }

    /// A function type.
    pub fn function(
        &mut self,
        return_type: TypeId,
        parameters: Vec<TypeId>,
        varargs: bool,
    ) -> TypeId {
        self.add(TypeKind::Function {
            return_type,
            parameters,
            varargs,
        })
    }

    /// Looks up an intrinsic type by its C name (`unsigned long`, `char`, …).
    pub fn intrinsic(&self, name: &str) -> Option<TypeId> {
        self.intrinsic_names.get(name).copied()
    }

    /// Looks up a typedef name.
    pub fn typedef_named(&self, name: &str) -> Option<TypeId> {
        self.typedefs.get(name).copied()
    }

    /// Defines `typedef target name`. Returns the previous definition when the name was
    /// already a typedef of a different type.
    pub fn define_typedef(&mut self, name: &str, target: TypeId) -> Result<TypeId, TypeId> {
        if let Some(&existing) = self.typedefs.get(name) {
            let TypeKind::Typedef { target: old, .. } = self.kind(existing) else {
                return Err(existing);
            };
            if self.same_type(*old, target) {
                return Ok(existing);
            }
            return Err(existing);
        }
        let id = self.add(TypeKind::Typedef {
            name: name.to_string(),
            target,
        });
        self.typedefs.insert(name.to_string(), id);
        Ok(id)
    }

    /// Makes `name` name a new typedef of `target`, whatever it named before (types
    /// already built on the old typedef keep it). This is how a C header's typedef
    /// takes precedence over D's own of the same name (DTrace keeps the headers' types
    /// in its C container, which name look-ups search first).
    pub fn redefine_typedef(&mut self, name: &str, target: TypeId) -> TypeId {
        let id = self.add(TypeKind::Typedef {
            name: name.to_string(),
            target,
        });
        self.typedefs.insert(name.to_string(), id);
        id
    }

    /// The struct with `tag`, if one has been declared.
    pub fn struct_tagged(&self, tag: &str) -> Option<TypeId> {
        self.struct_tags.get(tag).copied()
    }

    /// The union with `tag`, if one has been declared.
    pub fn union_tagged(&self, tag: &str) -> Option<TypeId> {
        self.union_tags.get(tag).copied()
    }

    /// The enum with `tag`, if one has been declared.
    pub fn enum_tagged(&self, tag: &str) -> Option<TypeId> {
        self.enum_tags.get(tag).copied()
    }

    /// Declares (without a body) the struct `tag`, or returns the existing one; an
    /// anonymous struct is always new.
    pub fn declare_struct(&mut self, tag: Option<&str>) -> TypeId {
        if let Some(tag) = tag {
            if let Some(existing) = self.struct_tagged(tag) {
                return existing;
            }
        }
        let id = self.add(TypeKind::Struct {
            tag: tag.map(str::to_string),
            body: None,
        });
        if let Some(tag) = tag {
            self.struct_tags.insert(tag.to_string(), id);
        }
        id
    }

    /// Declares (without a body) the union `tag`, or returns the existing one.
    pub fn declare_union(&mut self, tag: Option<&str>) -> TypeId {
        if let Some(tag) = tag {
            if let Some(existing) = self.union_tagged(tag) {
                return existing;
            }
        }
        let id = self.add(TypeKind::Union {
            tag: tag.map(str::to_string),
            body: None,
        });
        if let Some(tag) = tag {
            self.union_tags.insert(tag.to_string(), id);
        }
        id
    }

    /// Declares (without enumerators) the enum `tag`, or returns the existing one.
    pub fn declare_enum(&mut self, tag: Option<&str>) -> TypeId {
        if let Some(tag) = tag {
            if let Some(existing) = self.enum_tagged(tag) {
                return existing;
            }
        }
        let id = self.add(TypeKind::Enum {
            tag: tag.map(str::to_string),
            enumerators: None,
        });
        if let Some(tag) = tag {
            self.enum_tags.insert(tag.to_string(), id);
        }
        id
    }

    /// Gives a declared enum its enumerators.
    pub fn define_enum(&mut self, ty: TypeId, enumerators: Vec<(String, i64)>) {
        if let Some(TypeKind::Enum {
            enumerators: slot, ..
        }) = self.entries.get_mut(ty.0 as usize)
        {
            *slot = Some(enumerators);
        }
    }

    /// True when the program itself has defined the struct, union or enum `ty` (a kernel
    /// definition of the same tag does not count).
    pub fn is_defined_by_program(&self, ty: TypeId) -> bool {
        match self.kind(ty) {
            TypeKind::Struct { body, .. } | TypeKind::Union { body, .. } => body.is_some(),
            TypeKind::Enum { enumerators, .. } => enumerators.is_some(),
            _ => true,
        }
    }

    /// True when the struct, union or enum `ty` has been defined (has a body).
    pub fn is_defined(&self, ty: TypeId) -> bool {
        match self.resolved_kind(ty) {
            TypeKind::Struct { body, .. } | TypeKind::Union { body, .. } => body.is_some(),
            TypeKind::Enum { enumerators, .. } => enumerators.is_some(),
            _ => true,
        }
    }

    /// Size of a value of `ty` in bytes (0 for void, functions and incomplete types).
    pub fn size_of(&self, ty: TypeId) -> u64 {
        match self.resolved_kind(ty) {
            TypeKind::Void | TypeKind::Function { .. } | TypeKind::Dynamic => 0,
            TypeKind::Integer { size, .. } | TypeKind::Float { size, .. } => u64::from(*size),
            TypeKind::Pointer { .. } => 8,
            TypeKind::Array { element, count } => self.size_of(*element).saturating_mul(*count),
            TypeKind::Struct { body, .. } | TypeKind::Union { body, .. } => {
                body.as_ref().map_or(0, |body| body.size)
            }
            TypeKind::Enum { enumerators, .. } => {
                if enumerators.is_some() {
                    4
                } else {
                    0
                }
            }
            TypeKind::String => u64::from(self.string_size),
            TypeKind::Stack => 8,
            TypeKind::SymbolAddress | TypeKind::UserSymbolAddress => 8,
            TypeKind::Typedef { .. } | TypeKind::Qualified { .. } => 0,
        }
    }

    /// Natural alignment of `ty` in bytes (at least 1).
    pub fn alignment_of(&self, ty: TypeId) -> u64 {
        match self.resolved_kind(ty) {
            TypeKind::Integer { size, .. } | TypeKind::Float { size, .. } => {
                u64::from(*size).max(1)
            }
            TypeKind::Pointer { .. } | TypeKind::Stack => 8,
            TypeKind::SymbolAddress | TypeKind::UserSymbolAddress => 8,
            TypeKind::Array { element, .. } => self.alignment_of(*element),
            TypeKind::Struct { body, .. } | TypeKind::Union { body, .. } => {
                body.as_ref().map_or(1, |body| body.alignment)
            }
            TypeKind::Enum { .. } => 4,
            _ => 1,
        }
    }

    /// Members of the struct or union `ty` (empty when it is not one or not defined).
    pub fn members(&self, ty: TypeId) -> &[Member] {
        match self.resolved_kind(ty) {
            TypeKind::Struct {
                body: Some(body), ..
            }
            | TypeKind::Union {
                body: Some(body), ..
            } => &body.members,
            _ => &[],
        }
    }

    /// Finds `name` among the members of `ty`, looking through anonymous nested structs
    /// and unions; returns the member with its bit offset from the start of `ty`.
    pub fn find_member(&self, ty: TypeId, name: &str) -> Option<Member> {
        for member in self.members(ty) {
            if member.name == name {
                return Some(member.clone());
            }
            if member.name.is_empty() && self.is_struct_or_union(member.ty) {
                if let Some(mut nested) = self.find_member(member.ty, name) {
                    nested.bit_offset += member.bit_offset;
                    return Some(nested);
                }
            }
        }
        None
    }

    /// Enumerators of an enum type.
    pub fn enumerators(&self, ty: TypeId) -> &[(String, i64)] {
        match self.resolved_kind(ty) {
            TypeKind::Enum {
                enumerators: Some(list),
                ..
            } => list,
            _ => &[],
        }
    }

    /// Finds an enumerator by name in every defined enum; returns its enum and value.
    pub fn find_enumerator(&self, name: &str) -> Option<(TypeId, i64)> {
        self.entries
            .iter()
            .enumerate()
            .find_map(|(index, kind)| match kind {
                TypeKind::Enum {
                    enumerators: Some(list),
                    ..
                } => list
                    .iter()
                    .find(|(enumerator, _)| enumerator == name)
                    .map(|(_, value)| (TypeId(index as u32), *value)),
                _ => None,
            })
    }

    // Predicates, named after the questions classic DTrace asks (dt_node_is_*).

    /// `void` (after stripping typedefs).
    pub fn is_void(&self, ty: TypeId) -> bool {
        matches!(self.resolved_kind(ty), TypeKind::Void)
    }

    /// Integer or enum.
    pub fn is_integer(&self, ty: TypeId) -> bool {
        matches!(
            self.resolved_kind(ty),
            TypeKind::Integer { .. } | TypeKind::Enum { .. }
        )
    }

    /// Integer, enum or floating point.
    pub fn is_arithmetic(&self, ty: TypeId) -> bool {
        self.is_integer(ty) || matches!(self.resolved_kind(ty), TypeKind::Float { .. })
    }

    /// Pointer or array (D treats arrays as pointers in expressions), not `string`.
    pub fn is_pointer(&self, ty: TypeId) -> bool {
        matches!(
            self.resolved_kind(ty),
            TypeKind::Pointer { .. } | TypeKind::Array { .. }
        )
    }

    /// Integer, enum or pointer (not arrays, strings, floats or aggregates).
    pub fn is_scalar(&self, ty: TypeId) -> bool {
        self.is_integer(ty) || matches!(self.resolved_kind(ty), TypeKind::Pointer { .. })
    }

    /// D's `string` type.
    pub fn is_string(&self, ty: TypeId) -> bool {
        matches!(self.resolved_kind(ty), TypeKind::String)
    }

    /// `string`, `char *` or `char [n]` (with any qualifiers).
    pub fn is_string_compatible(&self, ty: TypeId) -> bool {
        match self.resolved_kind(ty) {
            TypeKind::String => true,
            TypeKind::Pointer { target } => self.is_character(*target),
            TypeKind::Array { element, .. } => self.is_character(*element),
            _ => false,
        }
    }

    /// One of the char types.
    pub fn is_character(&self, ty: TypeId) -> bool {
        matches!(
            self.resolved_kind(ty),
            TypeKind::Integer {
                character: true,
                ..
            }
        )
    }

    /// Signed integer (enums count as signed int).
    pub fn is_signed(&self, ty: TypeId) -> bool {
        match self.resolved_kind(ty) {
            TypeKind::Integer { signed, .. } => *signed,
            TypeKind::Enum { .. } => true,
            _ => false,
        }
    }

    /// Struct or union.
    pub fn is_struct_or_union(&self, ty: TypeId) -> bool {
        matches!(
            self.resolved_kind(ty),
            TypeKind::Struct { .. } | TypeKind::Union { .. }
        )
    }

    /// An array type (not `string`).
    pub fn is_array(&self, ty: TypeId) -> bool {
        matches!(self.resolved_kind(ty), TypeKind::Array { .. })
    }

    /// A function type.
    pub fn is_function(&self, ty: TypeId) -> bool {
        matches!(self.resolved_kind(ty), TypeKind::Function { .. })
    }

    /// The dynamic type.
    pub fn is_dynamic(&self, ty: TypeId) -> bool {
        matches!(self.resolved_kind(ty), TypeKind::Dynamic)
    }

    /// `stack`, `_symaddr` or `_usymaddr`.
    pub fn is_internal(&self, ty: TypeId) -> bool {
        matches!(
            self.resolved_kind(ty),
            TypeKind::Stack | TypeKind::SymbolAddress | TypeKind::UserSymbolAddress
        )
    }

    /// Both `stack`, both `_symaddr` or both `_usymaddr`.
    pub fn is_same_internal(&self, left: TypeId, right: TypeId) -> bool {
        matches!(
            (self.resolved_kind(left), self.resolved_kind(right)),
            (TypeKind::Stack, TypeKind::Stack)
                | (TypeKind::SymbolAddress, TypeKind::SymbolAddress)
                | (TypeKind::UserSymbolAddress, TypeKind::UserSymbolAddress)
        )
    }

    /// The pointed-to type of a pointer, or the element type of an array.
    pub fn referenced(&self, ty: TypeId) -> Option<TypeId> {
        match self.resolved_kind(ty) {
            TypeKind::Pointer { target } => Some(*target),
            TypeKind::Array { element, .. } => Some(*element),
            TypeKind::String => Some(self.well_known.char),
            _ => None,
        }
    }

    /// A pointer to void or to a function, or to something of unknown size: pointer
    /// arithmetic on it is not allowed.
    pub fn is_void_or_function_pointer(&self, ty: TypeId) -> bool {
        match self.resolved_kind(ty) {
            TypeKind::Pointer { target } => {
                self.is_void(*target) || self.is_function(*target) || self.size_of(*target) == 0
            }
            _ => false,
        }
    }

    /// Passed by reference in DIF: registers hold the object's address.
    pub fn is_by_reference(&self, ty: TypeId) -> bool {
        matches!(
            self.resolved_kind(ty),
            TypeKind::String
                | TypeKind::Array { .. }
                | TypeKind::Struct { .. }
                | TypeKind::Union { .. }
                | TypeKind::Float { .. }
        )
    }

    /// The same type after stripping typedefs and qualifiers, compared structurally
    /// for derived types (so `int *` and `int32_t *` are the same pointer type).
    pub fn same_type(&self, left: TypeId, right: TypeId) -> bool {
        let (left, right) = (self.resolve(left), self.resolve(right));
        if left == right {
            return true;
        }
        match (self.kind(left), self.kind(right)) {
            (
                TypeKind::Integer {
                    size: a,
                    signed: sa,
                    character: ca,
                    ..
                },
                TypeKind::Integer {
                    size: b,
                    signed: sb,
                    character: cb,
                    ..
                },
            ) => a == b && sa == sb && ca == cb,
            (TypeKind::Float { size: a, .. }, TypeKind::Float { size: b, .. }) => a == b,
            (TypeKind::Pointer { target: a }, TypeKind::Pointer { target: b }) => {
                self.same_type(*a, *b)
            }
            (
                TypeKind::Array {
                    element: a,
                    count: ca,
                },
                TypeKind::Array {
                    element: b,
                    count: cb,
                },
            ) => ca == cb && self.same_type(*a, *b),
            (TypeKind::Void, TypeKind::Void) => true,
            (TypeKind::String, TypeKind::String) => true,
            (TypeKind::Stack, TypeKind::Stack) => true,
            (TypeKind::SymbolAddress, TypeKind::SymbolAddress) => true,
            (TypeKind::UserSymbolAddress, TypeKind::UserSymbolAddress) => true,
            (
                TypeKind::Function {
                    return_type: ra,
                    parameters: pa,
                    varargs: va,
                },
                TypeKind::Function {
                    return_type: rb,
                    parameters: pb,
                    varargs: vb,
                },
            ) => {
                va == vb
                    && self.same_type(*ra, *rb)
                    && pa.len() == pb.len()
                    && pa.iter().zip(pb).all(|(a, b)| self.same_type(*a, *b))
            }
            (TypeKind::Struct { tag: Some(a), .. }, TypeKind::Struct { tag: Some(b), .. })
            | (TypeKind::Union { tag: Some(a), .. }, TypeKind::Union { tag: Some(b), .. })
            | (TypeKind::Enum { tag: Some(a), .. }, TypeKind::Enum { tag: Some(b), .. }) => a == b,
            _ => false,
        }
    }

    /// The integer rank used by D's promotion rule (§3.4): width in bits plus one when
    /// unsigned. Enums rank as `int`.
    pub fn integer_rank(&self, ty: TypeId) -> u32 {
        match self.resolved_kind(ty) {
            TypeKind::Integer { size, signed, .. } => size * 8 + u32::from(!*signed),
            TypeKind::Enum { .. } => 32,
            _ => 0,
        }
    }

    /// Information needed to load or store a scalar of `ty`: its size in bytes (1, 2, 4
    /// or 8) and signedness.
    pub fn scalar_access(&self, ty: TypeId) -> (u32, bool) {
        let size = self.size_of(ty).clamp(1, 8) as u32;
        let size = match size {
            1 | 2 | 4 | 8 => size,
            3 => 4,
            _ => 8,
        };
        (size, self.is_signed(ty))
    }
}
