//! Declarations of D variables (`int x;`, `self int t;`, `this int a[4];`, `int a[string];`):
//! the variable each declares, and DTrace's checks against what the name already is.

use super::declarations::{Declared, OuterArray};
use super::functions;
use super::variables::{VariableScope, VariableShape};
use super::{error, Analyzer, SemaResult};
use crate::diagnostics::{Diagnostic, ErrorTag, Span};
use crate::types::TypeId;

impl Analyzer<'_> {
    pub(super) fn declare_variable(
        &mut self,
        name: &str,
        span: &Span,
        scope: VariableScope,
        declared: Declared,
    ) -> SemaResult<()> {
        let (shape, ty) = match declared.outer_array {
            Some(OuterArray::Keys(keys, element)) => {
                if scope == VariableScope::ClauseLocal {
                    return Err(error(
                        ErrorTag::D_DECL_LOCASSC,
                        span,
                        format!(
                            "associative arrays may not be declared as local variables: {name}"
                        ),
                    ));
                }
                (VariableShape::Associative { keys: Some(keys) }, element)
            }
            Some(OuterArray::Elements(count, element))
                if scope == VariableScope::Global && self.types.is_scalar(element) =>
            {
                (VariableShape::StaticArray { elements: count }, element)
            }
            _ => (VariableShape::Scalar, declared.ty),
        };
        if self.types.is_void(ty) {
            return Err(error(
                ErrorTag::D_DECL_VOIDOBJ,
                span,
                format!("cannot have void object: {name}"),
            ));
        }
        if self.types.is_dynamic(ty) || self.types.is_internal(ty) {
            return Err(error(
                ErrorTag::D_DECL_DYNOBJ,
                span,
                format!("cannot have dynamic object: {name}"),
            ));
        }
        if self.is_incomplete(ty) {
            return Err(error(
                ErrorTag::D_DECL_INCOMPLETE,
                span,
                format!(
                    "incomplete struct/union/enum {}: {name}",
                    self.type_name(ty)
                ),
            ));
        }
        if self.types.is_function(ty) {
            return Err(error(
                ErrorTag::D_DECL_IDENT,
                span,
                format!("function declarations are not permitted in D: {name}"),
            ));
        }
        let existing = match scope {
            VariableScope::ThreadLocal => self.variables.thread_local(name),
            VariableScope::ClauseLocal => self.variables.clause_local(name),
            _ => self.variables.global(name),
        };
        // An inline or an enumerator of that name: dt_node_decl() compares kinds and
        // types, and a declaration of the inline's own kind and type declares nothing.
        let previous_identifier = if scope != VariableScope::Global {
            None
        } else if let Some(inline) = self.inlines.get(name) {
            let kind = if inline.parameters.is_empty() {
                "scalar"
            } else {
                "associative array"
            };
            Some((kind, inline.ty))
        } else {
            self.types
                .find_enumerator(name)
                .map(|(enum_type, _)| ("enumerator", enum_type))
        };
        if let Some((previous_kind, previous_type)) = previous_identifier {
            if previous_kind == "scalar"
                && shape == VariableShape::Scalar
                && self.types.same_type(previous_type, ty)
            {
                return Ok(());
            }
            return Err(error(
                ErrorTag::D_DECL_IDRED,
                span,
                format!(
                    "identifier redeclared: {name}\n\t current: {} {}\n\tprevious: {previous_kind} {}",
                    identifier_kind(&shape),
                    identifier_type(self.type_name(ty), &shape),
                    self.type_name(previous_type)
                ),
            ));
        }
        // DTrace's functions are built-in identifiers of its global scope too.
        if scope == VariableScope::Global && functions::lookup_function(name).is_some() {
            return Err(error(
                ErrorTag::D_DECL_IDRED,
                span,
                format!("built-in identifier redeclared: {name}"),
            ));
        }
        let Some(id) = existing else {
            self.variables.create(name, scope, shape, Some(ty), true)?;
            return Ok(());
        };
        let variable = self.variables.get(id).clone();
        if variable.scope == VariableScope::Builtin {
            return Err(error(
                ErrorTag::D_DECL_IDRED,
                span,
                format!("built-in identifier redeclared: {name}"),
            ));
        }
        let same_shape = match (&variable.shape, &shape) {
            (VariableShape::Scalar, VariableShape::Scalar) => true,
            (
                VariableShape::StaticArray { elements: a },
                VariableShape::StaticArray { elements: b },
            ) => a == b,
            (
                VariableShape::Associative { keys: Some(a) },
                VariableShape::Associative { keys: Some(b) },
            ) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| self.types.same_type(*x, *y)),
            (VariableShape::Associative { keys: None }, VariableShape::Associative { .. }) => true,
            _ => false,
        };
        let same_type = variable
            .ty
            .is_none_or(|previous| self.types.same_type(previous, ty));
        if same_shape && same_type {
            let entry = self.variables.get_mut(id);
            entry.declared = true;
            entry.ty = Some(ty);
            entry.shape = shape;
            return Ok(());
        }
        let previous_type = variable.ty.map(|ty| self.type_name(ty)).unwrap_or_default();
        if let (
            true,
            VariableShape::Associative {
                keys: Some(previous),
            },
            VariableShape::Associative {
                keys: Some(current),
            },
        ) = (same_type, &variable.shape, &shape)
        {
            return Err(self.redeclared_keys(name, ty, current, previous, span));
        }
        Err(error(
            ErrorTag::D_DECL_IDRED,
            span,
            format!(
                "identifier redeclared: {name}\n\t current: {} {}\n\tprevious: {} {}",
                identifier_kind(&shape),
                identifier_type(self.type_name(ty), &shape),
                identifier_kind(&variable.shape),
                identifier_type(previous_type, &variable.shape)
            ),
        ))
    }

    /// An associative array redeclared with the same value type but other keys, in
    /// dt_node_decl()'s words: the first key whose type differs (keys past the earlier
    /// declaration's count are not compared), else the tuple lengths.
    fn redeclared_keys(
        &self,
        name: &str,
        ty: TypeId,
        current: &[TypeId],
        previous: &[TypeId],
        span: &Span,
    ) -> Diagnostic {
        let differing = current
            .iter()
            .zip(previous)
            .position(|(a, b)| !self.types.same_type(*a, *b));
        let message = match differing {
            Some(position) => format!(
                "identifier redeclared: {name}\n\t current: associative array, key #{key} of type {}\n\tprevious: associative array, key #{key} of type {}",
                self.type_name(current[position]),
                self.type_name(previous[position]),
                key = position + 1,
            ),
            None => format!(
                "identifier redeclared: {name}\n\t current: associative array of {value}, tuple length {}\n\tprevious: associative array of {value}, tuple length {}",
                current.len(),
                previous.len(),
                value = self.type_name(ty),
            ),
        };
        error(ErrorTag::D_DECL_IDRED, span, message)
    }
}

/// DTrace's identifier kind of a variable of `shape`: a fixed array is a scalar of
/// array type.
fn identifier_kind(shape: &VariableShape) -> &'static str {
    match shape {
        VariableShape::Scalar | VariableShape::StaticArray { .. } => "scalar",
        _ => "associative array",
    }
}

/// The type of a variable of `shape` as DTrace names it: a fixed array's as C does
/// (`int [5]`).
fn identifier_type(ty: String, shape: &VariableShape) -> String {
    match shape {
        VariableShape::StaticArray { elements } => format!("{ty} [{elements}]"),
        _ => ty,
    }
}
