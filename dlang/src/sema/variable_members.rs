//! Stores into parts of struct and union values held in D variables (`g.x = 1`,
//! `self->t.f = 5`, `a[k].y++`), and into elements of fixed arrays held in dynamic
//! variables (`self->a[2] = 1`): the lvalue that rewrites the whole variable through a
//! scratch copy, so that a store is bounded by the variable's storage in every engine.

use super::ir::{Arithmetic, LValue, OutOfRange, TypedExpr, TypedExprKind, VariableId};
use super::variables::{VariableScope, VariableShape};
use super::Analyzer;

/// A by-reference variable an address points into, and the address's offset from the
/// start of the variable's storage.
struct VariableAddress {
    variable: LValue,
    current: TypedExpr,
    offset: TypedExpr,
    /// The largest array element an index on the way may fall back past the struct
    /// for ([`OutOfRange::Offset`]).
    slack: u64,
}

impl Analyzer<'_> {
    /// When `address` (the address of a member place) points into a struct or union
    /// held in a D variable, wraps the store `member_at` builds (given the member's
    /// offset from the start of the variable) into an [`LValue::VariableMember`].
    /// Any other address is a store to memory, built by `member_at` from `address`.
    pub(super) fn member_lvalue(
        &mut self,
        address: TypedExpr,
        member_at: impl FnOnce(TypedExpr) -> LValue,
    ) -> LValue {
        let Some(found) = self.variable_address(&address) else {
            return member_at(address);
        };
        let size = self.types.size_of(found.current.ty) as u32;
        LValue::VariableMember {
            variable: Box::new(found.variable),
            current: Box::new(found.current),
            size,
            slack: found.slack as u32,
            member: Box::new(member_at(found.offset)),
        }
    }

    /// Walks `base + offset + …` chains down to a read of a struct- or union-typed
    /// global, thread-local, clause-local or associative-array element.
    fn variable_address(&self, address: &TypedExpr) -> Option<VariableAddress> {
        match &address.kind {
            TypedExprKind::Variable(id) => {
                let ty = self.struct_variable_type(*id, false)?;
                Some(VariableAddress {
                    variable: LValue::Variable(*id),
                    current: TypedExpr {
                        ty,
                        ..address.clone()
                    },
                    offset: self.offset_zero(address),
                    slack: 0,
                })
            }
            TypedExprKind::AssociativeElement { variable, keys } => {
                let ty = self.struct_variable_type(*variable, true)?;
                Some(VariableAddress {
                    variable: LValue::AssociativeElement {
                        variable: *variable,
                        keys: keys.clone(),
                    },
                    current: TypedExpr {
                        ty,
                        ..address.clone()
                    },
                    offset: self.offset_zero(address),
                    slack: 0,
                })
            }
            TypedExprKind::Arithmetic {
                operator: Arithmetic::Add,
                left,
                right,
            } => {
                let inner = self.variable_address(left)?;
                let offset = TypedExpr {
                    kind: TypedExprKind::Arithmetic {
                        operator: Arithmetic::Add,
                        left: Box::new(inner.offset),
                        right: right.clone(),
                    },
                    ty: self.types.well_known().uint64_t,
                    span: address.span.clone(),
                };
                Some(VariableAddress { offset, ..inner })
            }
            TypedExprKind::BoundedElementAddress {
                array,
                index,
                elements,
                element_size,
                ..
            } => {
                let inner = self.variable_address(array)?;
                let past_struct = self.types.size_of(inner.current.ty);
                let offset = TypedExpr {
                    kind: TypedExprKind::BoundedElementAddress {
                        array: Box::new(inner.offset),
                        index: index.clone(),
                        elements: *elements,
                        element_size: *element_size,
                        out_of_range: OutOfRange::Offset(past_struct),
                    },
                    ty: self.types.well_known().uint64_t,
                    span: address.span.clone(),
                };
                Some(VariableAddress {
                    offset,
                    slack: inner.slack.max(*element_size),
                    ..inner
                })
            }
            _ => None,
        }
    }

    /// The struct or union type (or, for a dynamic variable, the array type) of a
    /// writable variable of the given shape, if it has one.
    fn struct_variable_type(
        &self,
        id: VariableId,
        associative: bool,
    ) -> Option<crate::types::TypeId> {
        let variable = self.variables.get(id);
        if variable.scope == VariableScope::Builtin {
            return None;
        }
        let shape_matches = match variable.shape {
            VariableShape::Scalar => !associative,
            VariableShape::Associative { .. } => associative,
            _ => false,
        };
        let ty = variable.ty?;
        // A fixed array held in a dynamic variable (`self int a[4]`) is rewritten
        // whole as well: such a variable has no storage until it is first assigned.
        let dynamic = associative || variable.scope == VariableScope::ThreadLocal;
        let rewritten = self.types.is_struct_or_union(ty) || (dynamic && self.types.is_array(ty));
        (shape_matches && rewritten).then_some(ty)
    }

    fn offset_zero(&self, address: &TypedExpr) -> TypedExpr {
        TypedExpr {
            kind: TypedExprKind::Integer(0),
            ty: self.types.well_known().uint64_t,
            span: address.span.clone(),
        }
    }
}
