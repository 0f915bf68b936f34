//! Declarations: type specifiers and declarators to types (with struct, union and enum
//! definitions and their layout), typedefs, variable declarations (`int x;`,
//! `self int y;`, `int a[string];`, `int b[10];`) and provider definitions. Inline
//! definitions are in `inline_definitions`, `#pragma D option` in `option_pragmas`.

use std::collections::HashMap;

use difvm::isa::builtin_array;

use super::functions::{self, FunctionKind};
use super::ir::{TypedExpr, TypedExprKind};
use super::variables::{VariableScope, VariableShape};
use super::{constants, error, Analyzer, SemaResult};
use crate::ast::{
    Aggregate, ArrayDimension, Declaration, DeclarationSpecifiers, Declarator, Derivation,
    EnumSpecifier, ProviderDefinition, StorageClass, StructOrUnionSpecifier, TypeName,
    TypeQualifier, TypeSpecifier,
};
use crate::diagnostics::{ErrorTag, Span};
use crate::kernel_types::KernelTypeNamespace;
use crate::types::{intrinsic_from_words, MemberLayout, Qualifiers, TypeId, TypeTable};

/// What a declarator declares once its derivations are applied.
pub(super) struct Declared {
    pub(super) name: Option<(String, Span)>,
    pub(super) ty: TypeId,
    /// The outermost derivation when it is an array: `[N]` count or key signature.
    pub(super) outer_array: Option<OuterArray>,
}

pub(super) enum OuterArray {
    Elements(u64, TypeId),
    Keys(Vec<TypeId>, TypeId),
}

impl Analyzer<'_> {
    /// A top-level declaration.
    pub(super) fn declaration(&mut self, declaration: &Declaration) -> SemaResult<()> {
        let storage = self.storage_class(&declaration.specifiers)?;
        let base = self.base_type(&declaration.specifiers)?;
        if declaration.declarators.is_empty() {
            let defines_tag = declaration.specifiers.types.iter().any(|(specifier, _)| {
                matches!(
                    specifier,
                    TypeSpecifier::StructOrUnion(_) | TypeSpecifier::Enum(_)
                )
            });
            if !defines_tag {
                return Err(error(
                    ErrorTag::D_DECL_USELESS,
                    &declaration.span,
                    "useless declaration",
                ));
            }
            return Ok(());
        }
        for (declarator, end) in declaration
            .declarators
            .iter()
            .zip(&declaration.declarator_ends)
        {
            let declared = self.apply_declarator(base, declarator)?;
            let Some((name, _)) = declared.name.clone() else {
                return Err(error(
                    ErrorTag::D_DECL_USELESS,
                    &declarator.span,
                    "useless declaration",
                ));
            };
            let span = end.clone();
            if name.contains('`') {
                return Err(error(
                    ErrorTag::D_DECL_SCOPE,
                    &span,
                    format!("D scoping operator may not be used in a declaration name ({name})"),
                ));
            }
            match storage {
                Some(StorageClass::Typedef) => {
                    // DTrace refuses a typedef named like a global identifier, then one
                    // that redefines a type name; both are identifier redeclarations.
                    if self.global_identifier_kind(&name).is_some() {
                        return Err(error(
                            ErrorTag::D_DECL_IDRED,
                            &span,
                            format!("global variable identifier redeclared: {name}"),
                        ));
                    }
                    if self.types.define_typedef(&name, declared.ty).is_err() {
                        // A C header's typedef lives apart from D's own in DTrace, so a
                        // header may name a D typedef again with its C type.
                        if self.declared_in_c_header(&span) {
                            self.types.redefine_typedef(&name, declared.ty);
                            continue;
                        }
                        return Err(error(
                            ErrorTag::D_DECL_IDRED,
                            &span,
                            format!("typedef redeclared: {name}"),
                        ));
                    }
                }
                // An extern declaration names a kernel variable and gives it a type; the
                // name then reads the variable.
                Some(StorageClass::Extern) => self.declare_extern(&name, declared.ty),
                // A prototype without a storage class declares an extern function, as
                // in C and in DTrace (C headers write many prototypes so).
                None if self.types.is_function(declared.ty) => {
                    self.declare_extern(&name, declared.ty)
                }
                Some(StorageClass::SelfScope) => {
                    self.declare_variable(&name, &span, VariableScope::ThreadLocal, declared)?
                }
                Some(StorageClass::ThisScope) => {
                    self.declare_variable(&name, &span, VariableScope::ClauseLocal, declared)?
                }
                _ => self.declare_variable(&name, &span, VariableScope::Global, declared)?,
            }
        }
        Ok(())
    }

    /// Whether `span` lies in a file included through the C preprocessor (cpp's line
    /// markers name it), rather than in the program itself.
    fn declared_in_c_header(&self, span: &Span) -> bool {
        self.source_map
            .as_ref()
            .is_some_and(|map| map.in_c_header(span.start))
    }

    /// The storage class of a declaration (at most one; auto/register/static are not D).
    fn storage_class(
        &self,
        specifiers: &DeclarationSpecifiers,
    ) -> SemaResult<Option<StorageClass>> {
        single_storage_class(specifiers)?;
        let Some((class, span)) = specifiers.storage.first() else {
            return Ok(None);
        };
        if matches!(
            class,
            StorageClass::Auto | StorageClass::Register | StorageClass::Static
        ) {
            return Err(error(
                ErrorTag::D_DECL_BADCLASS,
                span,
                "specified storage class not appropriate in D",
            ));
        }
        Ok(Some(*class))
    }

    /// The type a type name (in a cast, `sizeof`, `offsetof`, `xlate`) denotes.
    pub(super) fn type_from_type_name(&mut self, type_name: &TypeName) -> SemaResult<TypeId> {
        if let Some((class, span)) = type_name.specifiers.storage.first() {
            let _ = class;
            return Err(error(
                ErrorTag::D_DECL_CLASS,
                span,
                "storage class not allowed in a type name",
            ));
        }
        let base = self.base_type(&type_name.specifiers)?;
        let declared = self.apply_declarator(base, &type_name.declarator)?;
        if let Some(OuterArray::Keys(..)) = declared.outer_array {
            return Err(error(
                ErrorTag::D_DECL_ARRSUB,
                &type_name.span,
                "positive integral constant expression or tuple signature expected as array declaration subscript",
            ));
        }
        Ok(declared.ty)
    }

    /// The type named by declaration specifiers (with qualifiers), defining any struct,
    /// union or enum body they contain.
    pub(super) fn base_type(&mut self, specifiers: &DeclarationSpecifiers) -> SemaResult<TypeId> {
        let mut words = Vec::new();
        let mut named: Option<TypeId> = None;
        for (specifier, span) in &specifiers.types {
            let word = match specifier {
                TypeSpecifier::Void => "void",
                TypeSpecifier::Char => "char",
                TypeSpecifier::Short => "short",
                TypeSpecifier::Int => "int",
                TypeSpecifier::Long => "long",
                TypeSpecifier::Float => "float",
                TypeSpecifier::Double => "double",
                TypeSpecifier::Signed => "signed",
                TypeSpecifier::Unsigned => "unsigned",
                TypeSpecifier::Bool => "_Bool",
                TypeSpecifier::String => "string",
                TypeSpecifier::TypedefName(name) => {
                    if named.is_some() {
                        return Err(error(
                            ErrorTag::D_DECL_COMBO,
                            span,
                            "invalid type combination",
                        ));
                    }
                    if self.types.typedef_named(name).is_none() {
                        self.load_library_defining_type(name)?;
                    }
                    let ty = self.types.type_named(name).ok_or_else(|| {
                        error(
                            ErrorTag::D_UNKNOWN,
                            span,
                            format!("failed to resolve type {name}: Unknown type name"),
                        )
                    })?;
                    named = Some(ty);
                    continue;
                }
                TypeSpecifier::StructOrUnion(aggregate) => {
                    if named.is_some() {
                        return Err(error(
                            ErrorTag::D_DECL_COMBO,
                            span,
                            "invalid type combination",
                        ));
                    }
                    named = Some(self.struct_or_union(aggregate)?);
                    continue;
                }
                TypeSpecifier::Enum(enumeration) => {
                    if named.is_some() {
                        return Err(error(
                            ErrorTag::D_DECL_COMBO,
                            span,
                            "invalid type combination",
                        ));
                    }
                    named = Some(self.enumeration(enumeration)?);
                    continue;
                }
            };
            words.push((word, span.clone()));
        }
        let base = match (named, words.is_empty()) {
            (Some(ty), true) => ty,
            (Some(_), false) => {
                return Err(error(
                    ErrorTag::D_DECL_COMBO,
                    &words[0].1,
                    "invalid type combination",
                ))
            }
            (None, true) => self.types.well_known().int,
            (None, false) => parse_type_words(&self.types, &words)?,
        };
        let qualifiers = Qualifiers {
            constant: specifiers.qualifiers.contains(&TypeQualifier::Const),
            volatile: specifiers.qualifiers.contains(&TypeQualifier::Volatile),
            restrict: specifiers.qualifiers.contains(&TypeQualifier::Restrict),
        };
        Ok(self.types.qualified(base, qualifiers))
    }

    fn apply_declarator(&mut self, base: TypeId, declarator: &Declarator) -> SemaResult<Declared> {
        let mut ty = base;
        let mut outer_array = None;
        let count = declarator.derivations.len();
        for (index, derivation) in declarator.derivations.iter().enumerate().rev() {
            let outermost = index == 0;
            ty = match derivation {
                Derivation::Pointer { qualifiers } => {
                    let pointer = self.types.pointer_to(ty);
                    let qualifiers = Qualifiers {
                        constant: qualifiers.contains(&TypeQualifier::Const),
                        volatile: qualifiers.contains(&TypeQualifier::Volatile),
                        restrict: qualifiers.contains(&TypeQualifier::Restrict),
                    };
                    self.types.qualified(pointer, qualifiers)
                }
                Derivation::Array(ArrayDimension::Unspecified) => {
                    // DTrace names the declared identifier when the array is the object
                    // being declared.
                    let named = declarator.name.as_ref().filter(|_| outermost);
                    let suffix = named
                        .map(|(name, _)| format!(": {name}"))
                        .unwrap_or_default();
                    return Err(error(
                        ErrorTag::D_DECL_ARRNULL,
                        &declarator.span,
                        format!(
                            "array declaration requires array dimension or tuple signature{suffix}"
                        ),
                    ));
                }
                Derivation::Array(ArrayDimension::Size(expr)) => {
                    // DTrace never resolves the names of a dimension: only what its
                    // parser folded to an integer constant (inline constants included)
                    // is a dimension, so an unknown name is no error of its own.
                    let value = match self.expression(expr) {
                        Err(diagnostic) if diagnostic.tag == ErrorTag::D_IDENT_UNDEF => None,
                        value => Some(value?),
                    };
                    let elements = match value.as_ref().and_then(|value| {
                        constants::constant_value(value).filter(|_| self.types.is_integer(value.ty))
                    }) {
                        Some(elements) if (elements as i64) > 0 => elements,
                        _ => {
                            return Err(error(
                                ErrorTag::D_DECL_ARRSUB,
                                &expr.span,
                                "positive integral constant expression or tuple signature expected as array declaration subscript",
                            ))
                        }
                    };
                    if elements > u64::from(u32::MAX) {
                        return Err(error(
                            ErrorTag::D_DECL_ARRBIG,
                            &expr.span,
                            "array dimension too big",
                        ));
                    }
                    if outermost {
                        outer_array = Some(OuterArray::Elements(elements, ty));
                    }
                    self.types.array_of(ty, elements)
                }
                Derivation::Array(ArrayDimension::Keys(keys)) => {
                    if !outermost || count == 0 {
                        return Err(error(
                            ErrorTag::D_DECL_ARRSUB,
                            &declarator.span,
                            "positive integral constant expression or tuple signature expected as array declaration subscript",
                        ));
                    }
                    let mut signature = Vec::new();
                    for key in keys {
                        let key_type = self.type_from_type_name(key)?;
                        if self.types.is_void(key_type) {
                            return Err(error(
                                ErrorTag::D_KEY_TYPE,
                                &key.span,
                                format!("void expression may not be used as associative array index: key #{}", signature.len() + 1),
                            ));
                        }
                        signature.push(key_type);
                    }
                    outer_array = Some(OuterArray::Keys(signature, ty));
                    ty
                }
                Derivation::Function {
                    parameters,
                    varargs,
                } => {
                    // dt_decl_prototype() checks each parameter, then that a void one
                    // is the only one.
                    let mut types = Vec::new();
                    let mut void_parameter = None;
                    for parameter in parameters {
                        if !parameter.specifiers.storage.is_empty() {
                            return Err(error(
                                ErrorTag::D_DECL_PARMCLASS,
                                &parameter.span,
                                "inappropriate storage class for function or associative array parameter",
                            ));
                        }
                        let parameter_type =
                            self.type_from_type_name(&decayed_parameter(parameter))?;
                        if self.types.is_void(parameter_type) {
                            if let Some((name, _)) = &parameter.declarator.name {
                                return Err(error(
                                    ErrorTag::D_DECL_PROTO_NAME,
                                    &parameter.span,
                                    format!("void parameter may not have a name: {name}"),
                                ));
                            }
                            void_parameter.get_or_insert(parameter.span.clone());
                            continue;
                        }
                        types.push(parameter_type);
                    }
                    if let Some(span) = void_parameter {
                        if parameters.len() > 1 || *varargs {
                            return Err(error(
                                ErrorTag::D_DECL_PROTO_VOID,
                                &span,
                                "void must be sole parameter in function prototype",
                            ));
                        }
                    }
                    self.types.function(ty, types, *varargs)
                }
            };
        }
        Ok(Declared {
            name: declarator.name.clone(),
            ty,
            outer_array,
        })
    }

    fn struct_or_union(&mut self, specifier: &StructOrUnionSpecifier) -> SemaResult<TypeId> {
        if specifier.members.is_none() {
            return self.define_struct_or_union(specifier);
        }
        let key = specifier as *const StructOrUnionSpecifier as usize;
        self.type_body(key, |analyzer| analyzer.define_struct_or_union(specifier))
    }

    fn define_struct_or_union(&mut self, specifier: &StructOrUnionSpecifier) -> SemaResult<TypeId> {
        let is_struct = specifier.kind == Aggregate::Struct;
        let Some(members) = &specifier.members else {
            let namespace = if is_struct {
                KernelTypeNamespace::Struct
            } else {
                KernelTypeNamespace::Union
            };
            return Ok(match specifier.tag.as_deref() {
                Some(tag) => self.types.tagged(namespace, tag),
                None if is_struct => self.types.declare_struct(None),
                None => self.types.declare_union(None),
            });
        };
        let tag = specifier
            .tag
            .as_deref()
            .map(|tag| tag.rsplit('`').next().unwrap_or(tag).to_string());
        let word = if is_struct { "struct" } else { "union" };
        let existing = tag.as_deref().and_then(|tag| {
            if is_struct {
                self.types.struct_tagged(tag)
            } else {
                self.types.union_tagged(tag)
            }
        });
        if let Some(existing) = existing {
            if self.types.is_defined_by_program(existing) {
                return Err(error(
                    ErrorTag::D_DECL_TYPERED,
                    specifier.left_brace.as_ref().unwrap_or(&specifier.span),
                    format!("type redeclared: {word} {}", tag.as_deref().unwrap_or("")),
                ));
            }
        }
        let ty = if is_struct {
            self.types.declare_struct(tag.as_deref())
        } else {
            self.types.declare_union(tag.as_deref())
        };
        self.types.begin_definition(ty);
        let mut layout = Vec::new();
        let mut names: HashMap<String, ()> = HashMap::new();
        for member in members {
            let base = self.base_type(&member.specifiers)?;
            if member.declarators.is_empty() {
                if self.types.is_struct_or_union(base) {
                    layout.push(MemberLayout {
                        name: String::new(),
                        ty: base,
                        bit_width: None,
                    });
                    continue;
                }
                return Err(error(
                    ErrorTag::D_DECL_MNAME,
                    &member.span,
                    "member declaration requires a name",
                ));
            }
            for (declarator, width) in &member.declarators {
                let declared = self.member_declarator(base, declarator)?;
                let name = declared.name.as_ref().map(|(name, _)| name.clone());
                let bit_width = match width {
                    Some(expr) => Some(self.bit_field_width(
                        expr,
                        declared.ty,
                        name.as_deref().unwrap_or(""),
                    )?),
                    None => None,
                };
                let Some(name) = name else {
                    if bit_width.is_some() {
                        layout.push(MemberLayout {
                            name: String::new(),
                            ty: declared.ty,
                            bit_width,
                        });
                        continue;
                    }
                    return Err(error(
                        ErrorTag::D_DECL_MNAME,
                        &declarator.span,
                        "member declaration requires a name",
                    ));
                };
                // dt_decl_member(): a forward-declared type is incomplete; any other
                // type without a size (void, a function) is a void member.
                if self.is_incomplete(declared.ty) {
                    return Err(error(
                        ErrorTag::D_DECL_INCOMPLETE,
                        &declarator.span,
                        format!(
                            "incomplete struct/union/enum {}: {name}",
                            self.type_name(declared.ty)
                        ),
                    ));
                }
                if self.types.is_void(declared.ty) || self.types.is_function(declared.ty) {
                    return Err(error(
                        ErrorTag::D_DECL_VOIDOBJ,
                        &declarator.span,
                        format!("cannot have void member: {name}"),
                    ));
                }
                // dt_decl_member() reports libctf's refusal of a second member of
                // the same name (ECTF_DUPMEMBER) as an unclassified error.
                if names.insert(name.clone(), ()).is_some() {
                    return Err(error(
                        ErrorTag::D_UNKNOWN,
                        &declarator.span,
                        format!(
                            "failed to define member '{name}': Duplicate member name definition"
                        ),
                    ));
                }
                layout.push(MemberLayout {
                    name,
                    ty: declared.ty,
                    bit_width,
                });
            }
        }
        self.types.define_aggregate(ty, layout);
        Ok(ty)
    }

    /// A member's declarator applied to `base`. A last member declared as an array
    /// without a dimension (C's flexible array member, `unsigned char data[];`, as
    /// `<bits/socket.h>` has) is an array of no elements, as CTF describes it.
    fn member_declarator(&mut self, base: TypeId, declarator: &Declarator) -> SemaResult<Declared> {
        let Some(Derivation::Array(ArrayDimension::Unspecified)) = declarator.derivations.first()
        else {
            return self.apply_declarator(base, declarator);
        };
        let mut element = declarator.clone();
        element.derivations.remove(0);
        let mut declared = self.apply_declarator(base, &element)?;
        declared.ty = self.types.array_of(declared.ty, 0);
        Ok(declared)
    }

    fn bit_field_width(
        &mut self,
        expr: &crate::ast::Expr,
        ty: TypeId,
        name: &str,
    ) -> SemaResult<u32> {
        let value = self.expression(expr)?;
        let width = match constants::constant_value(&value) {
            // dt_node_is_posconst(): only an unnamed bit-field may have width 0 (it
            // ends the storage unit).
            Some(width)
                if self.types.is_integer(value.ty)
                    && (width as i64) >= 0
                    && (width != 0 || name.is_empty()) =>
            {
                width
            }
            _ => {
                return Err(error(
                    ErrorTag::D_DECL_BFCONST,
                    &expr.span,
                    "positive integral constant expression expected as bit-field size",
                ))
            }
        };
        if !self.types.is_integer(ty) {
            return Err(error(
                ErrorTag::D_DECL_BFTYPE,
                &expr.span,
                format!("invalid type for bit-field: {name}"),
            ));
        }
        if width > self.types.size_of(ty) * 8 {
            return Err(error(
                ErrorTag::D_DECL_BFSIZE,
                &expr.span,
                format!("bit-field too big for type: {name}"),
            ));
        }
        Ok(width as u32)
    }

    fn enumeration(&mut self, specifier: &EnumSpecifier) -> SemaResult<TypeId> {
        if specifier.enumerators.is_none() {
            return self.define_enumeration(specifier);
        }
        let key = specifier as *const EnumSpecifier as usize;
        self.type_body(key, |analyzer| analyzer.define_enumeration(specifier))
    }

    /// The type a struct, union or enum body (at `key`, its specifier's address)
    /// defines. A body in a clause's type name (`sizeof (struct s { ... })`, a cast)
    /// is defined once, when the parse-time checks of the clauses read it, as DTrace's
    /// parser declares it; the clause's analysis then finds that type again.
    fn type_body(
        &mut self,
        key: usize,
        define: impl FnOnce(&mut Self) -> SemaResult<TypeId>,
    ) -> SemaResult<TypeId> {
        if let Some(&ty) = self.clause_type_bodies.get(&key) {
            return Ok(ty);
        }
        let ty = define(self)?;
        if self.recording_clause_type_bodies {
            self.clause_type_bodies.insert(key, ty);
        }
        Ok(ty)
    }

    fn define_enumeration(&mut self, specifier: &EnumSpecifier) -> SemaResult<TypeId> {
        let tag = specifier.tag.as_deref();
        let Some(enumerators) = &specifier.enumerators else {
            return Ok(match tag {
                Some(tag) => self.types.tagged(KernelTypeNamespace::Enum, tag),
                None => self.types.declare_enum(None),
            });
        };
        if let Some(existing) = tag.and_then(|tag| self.types.enum_tagged(tag)) {
            if self.types.is_defined_by_program(existing) {
                return Err(error(
                    ErrorTag::D_DECL_TYPERED,
                    specifier.left_brace.as_ref().unwrap_or(&specifier.span),
                    format!("type redeclared: enum {}", tag.unwrap_or("")),
                ));
            }
        }
        let ty = self.types.declare_enum(tag);
        let mut values = Vec::new();
        let mut next: i64 = 0;
        for (name, value, span) in enumerators {
            let value = match value {
                Some(expr) => {
                    // Earlier enumerators of this enum are usable in later values.
                    self.types.define_enum(ty, values.clone());
                    let typed = self.expression(expr)?;
                    match constants::constant_value(&typed) {
                        Some(constant) if self.types.is_integer(typed.ty) => constant as i64,
                        _ => {
                            return Err(error(
                                ErrorTag::D_DECL_ENCONST,
                                span,
                                format!("enumerator '{name}' must be assigned an integral constant expression"),
                            ))
                        }
                    }
                }
                // dt_decl_enumerator() checks only assigned values: the previous
                // value plus one is C int arithmetic, so INT_MAX is followed by INT_MIN.
                None => next,
            };
            if value > i64::from(i32::MAX) || value < i64::from(i32::MIN) {
                return Err(error(
                    ErrorTag::D_DECL_ENOFLOW,
                    span,
                    format!("enumerator '{name}' value overflows INT_MAX ({})", i32::MAX),
                ));
            }
            // Then libctf adds the enumerator, refusing a second one of the same name in
            // this enum (ECTF_DUPMEMBER, an unclassified error), and only then is the
            // name checked against the global identifiers.
            if values
                .iter()
                .any(|(existing, _): &(String, i64)| existing == name)
            {
                return Err(error(
                    ErrorTag::D_UNKNOWN,
                    span,
                    format!(
                        "failed to define enumerator '{name}': Duplicate member name definition"
                    ),
                ));
            }
            if self.variables.global(name).is_some()
                || self.inlines.contains_key(name)
                || self.types.find_enumerator(name).is_some()
            {
                return Err(error(
                    ErrorTag::D_DECL_IDRED,
                    span,
                    format!("identifier redeclared: {name}"),
                ));
            }
            values.push((name.clone(), value));
            next = i64::from((value as i32).wrapping_add(1));
        }
        self.types.define_enum(ty, values);
        Ok(ty)
    }

    /// How DTrace describes the global identifier `name` when a declaration would
    /// replace it (its kind, then `inline` for an inline), or `None` when it is free.
    pub(super) fn global_identifier_kind(&self, name: &str) -> Option<String> {
        if let Some(inline) = self.inlines.get(name) {
            let kind = if inline.parameters.is_empty() {
                "scalar"
            } else {
                "associative array"
            };
            return Some(format!("{kind} inline"));
        }
        if self.types.find_enumerator(name).is_some() {
            return Some("enumerator ".to_string());
        }
        // dt_idkind_name() of DTrace's built-in functions.
        if let Some((kind, _)) = functions::lookup_function(name) {
            let kind = match kind {
                FunctionKind::Subroutine(_) => "function",
                FunctionKind::Action(_) => "tracing function",
                FunctionKind::Aggregating(_) => "aggregating function",
            };
            return Some(format!("{kind} "));
        }
        let id = self.variables.global(name)?;
        let kind = match self.variables.get(id).shape {
            VariableShape::Associative { .. } | VariableShape::BuiltinArray { .. } => {
                "associative array"
            }
            VariableShape::Scalar | VariableShape::StaticArray { .. } => "scalar",
        };
        Some(format!("{kind} "))
    }

    /// A non-constant stand-in value of type `ty`, used to type-check bodies whose
    /// parameters are bound later (inlines, translators).
    pub(super) fn placeholder(&self, ty: TypeId, span: &Span) -> TypedExpr {
        let index = TypedExpr {
            kind: TypedExprKind::Integer(0),
            ty: self.types.well_known().int,
            span: span.clone(),
        };
        TypedExpr {
            kind: TypedExprKind::BuiltinArrayElement {
                array: builtin_array::ARGS,
                index: Box::new(index),
            },
            ty,
            span: span.clone(),
        }
    }

    /// `provider name { probe ...; };`: checked for argument types; it defines USDT
    /// probes only for `-h`/`-G`, which compile nothing.
    pub(super) fn provider_definition(&mut self, provider: &ProviderDefinition) -> SemaResult<()> {
        let mut seen: HashMap<&str, ()> = HashMap::new();
        for probe in &provider.probes {
            if seen.insert(&probe.name, ()).is_some() {
                return Err(error(
                    ErrorTag::D_PROV_PRDUP,
                    &probe.span,
                    format!("probe {}:{} is already declared", provider.name, probe.name),
                ));
            }
            // dt_node_probe() checks the input prototype as dt_decl_prototype() does
            // a function's.
            let mut void_argument = None;
            for argument in &probe.arguments {
                let ty = self.type_from_type_name(argument)?;
                if self.types.is_void(ty) {
                    if let Some((name, _)) = &argument.declarator.name {
                        return Err(error(
                            ErrorTag::D_DECL_PROTO_NAME,
                            &argument.span,
                            format!("void parameter may not have a name: {name}"),
                        ));
                    }
                    void_argument.get_or_insert(argument.span.clone());
                }
            }
            if let Some(span) = void_argument.filter(|_| probe.arguments.len() > 1) {
                return Err(error(
                    ErrorTag::D_DECL_PROTO_VOID,
                    &span,
                    "void must be sole parameter in probe input prototype",
                ));
            }
            if let Some(translated) = &probe.translated_arguments {
                for argument in translated {
                    self.type_from_type_name(argument)?;
                }
            }
        }
        Ok(())
    }
}

/// D_DECL_* checks on intrinsic type words; used by [`Analyzer::base_type`].
fn check_type_words(words: &[(&str, Span)]) -> SemaResult<()> {
    let has = |word: &str| words.iter().any(|(candidate, _)| *candidate == word);
    let span = &words[0].1;
    let length_modifiers = has("short") || has("long");
    let sign_modifiers = has("signed") || has("unsigned");
    if has("char") && length_modifiers {
        return Err(error(
            ErrorTag::D_DECL_CHARATTR,
            span,
            "invalid type declaration: short and long may not be used with char type",
        ));
    }
    if has("void") && (length_modifiers || sign_modifiers) {
        return Err(error(
            ErrorTag::D_DECL_VOIDATTR,
            span,
            "invalid type declaration: attributes may not be used with void type",
        ));
    }
    let non_integer = ["void", "float", "double", "string", "_Bool"]
        .iter()
        .find(|word| has(word));
    if sign_modifiers && non_integer.is_some() {
        return Err(error(
            ErrorTag::D_DECL_SIGNINT,
            span,
            "invalid type declaration: signed and unsigned may only be used with integer type",
        ));
    }
    if length_modifiers
        && matches!(
            non_integer,
            Some(&"void") | Some(&"string") | Some(&"_Bool")
        )
    {
        return Err(error(
            ErrorTag::D_DECL_LONGINT,
            span,
            "invalid type declaration: short and long may only be used with integer or floating-point type",
        ));
    }
    Ok(())
}

/// Resolves intrinsic type words (`unsigned long long`) after the D_DECL_* checks.
fn parse_type_words(types: &TypeTable, words: &[(&str, Span)]) -> SemaResult<TypeId> {
    check_type_words(words)?;
    let owned: Vec<String> = words.iter().map(|(word, _)| word.to_string()).collect();
    intrinsic_from_words(types, &owned).ok_or_else(|| {
        error(
            ErrorTag::D_DECL_COMBO,
            &words[0].1,
            "invalid type combination",
        )
    })
}

/// A prototype parameter declared as an array without a dimension (`char *const argv[]`,
/// as C headers write them) is a pointer to its element, as in C: the array is never
/// the object being declared, so it needs no dimension.
fn decayed_parameter(parameter: &TypeName) -> std::borrow::Cow<'_, TypeName> {
    match parameter.declarator.derivations.first() {
        Some(Derivation::Array(ArrayDimension::Unspecified)) => {
            let mut decayed = parameter.clone();
            decayed.declarator.derivations[0] = Derivation::Pointer {
                qualifiers: Vec::new(),
            };
            std::borrow::Cow::Owned(decayed)
        }
        _ => std::borrow::Cow::Borrowed(parameter),
    }
}

/// D_DECL_CLASS for a second storage class, which dt_decl_class() refuses as soon as
/// the parser reads it (before any other check of the declaration).
pub(super) fn single_storage_class(specifiers: &DeclarationSpecifiers) -> SemaResult<()> {
    match specifiers.storage.get(1) {
        Some((_, span)) => Err(error(
            ErrorTag::D_DECL_CLASS,
            span,
            "only a single storage class may be specified in a declaration",
        )),
        None => Ok(()),
    }
}
