//! Global variables kept in memory, so that `&` can take their address as DTrace
//! allows for non-dynamic variables: integer and pointer globals whose address the
//! program takes anywhere (`&x`), and scalar arrays of integers or pointers
//! (`int a[5]`) up to the engines' largest static object, whose elements `&a[i]` and
//! the array itself (`p = a`) point at.
//! Their DIF variables are by-reference, so `ldgs` gives the address of storage both
//! engines keep for the whole session, and they are read and written with loads and
//! stores ([`Place::Memory`]) like any other object in memory. Global structs and unions
//! are by reference anyway, so `&` of one is its value typed as a pointer.

use std::collections::HashSet;

use super::access::Place;
use super::ir::{AddressSpace, TypedExpr, TypedExprKind, VariableId};
use super::variables::{VariableScope, VariableShape};
use super::{program_scan, Analyzer, SemaResult};
use crate::ast::{Expr, ExprKind, Item, Program, UnaryOperator};
use crate::diagnostics::Span;
use crate::types::TypeId;

/// The names of the plain identifiers `program` applies `&` to, in its clauses or in
/// the values of its inlines (`inline int *p = &x;`).
pub(super) fn address_taken(program: &Program) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut note = |expr: &Expr| {
        if let ExprKind::Unary {
            operator: UnaryOperator::AddressOf,
            operand,
        } = &expr.kind
        {
            if let ExprKind::Identifier(name) = &operand.kind {
                names.insert(name.clone());
            }
        }
    };
    program_scan::for_each_expression(program, &mut note);
    for item in &program.items {
        if let Item::Inline(inline) = item {
            program_scan::walk_expression(&inline.value, &mut note);
        }
    }
    names
}

impl Analyzer<'_> {
    /// Whether variable `id` is kept in memory (see the module's documentation).
    pub(super) fn is_in_memory(&self, id: VariableId) -> bool {
        let variable = self.variables.get(id);
        let Some(ty) = variable.ty else { return false };
        if variable.scope != VariableScope::Global || !self.types.is_scalar(ty) {
            return false;
        }
        match variable.shape {
            VariableShape::Scalar => self.address_taken.contains(&variable.name),
            // Larger arrays than the engines keep as one static object stay
            // associative arrays keyed by the index (and `&` is refused for them).
            VariableShape::StaticArray { elements } => {
                self.types.size_of(ty).saturating_mul(elements)
                    <= u64::from(difvm::verify::STATIC_VARIABLE_MAX_SIZE)
            }
            _ => false,
        }
    }

    /// Whether `id` is a global struct or union: by reference, with storage both
    /// engines keep for the whole session, so `&` may take its address as well.
    pub(super) fn is_global_struct_variable(&self, id: VariableId) -> bool {
        let variable = self.variables.get(id);
        variable.scope == VariableScope::Global
            && variable.shape == VariableShape::Scalar
            && variable
                .ty
                .is_some_and(|ty| self.types.is_struct_or_union(ty))
    }

    /// The address of in-memory variable `id`, typed as a pointer to `element`.
    fn memory_variable_address(
        &mut self,
        id: VariableId,
        element: TypeId,
        span: &Span,
    ) -> TypedExpr {
        TypedExpr {
            kind: TypedExprKind::VariableAddress(id),
            ty: self.types.pointer_to(element),
            span: span.clone(),
        }
    }

    /// The place of in-memory scalar `id`: its storage.
    pub(super) fn memory_variable_place(&mut self, id: VariableId, span: &Span) -> Place {
        let ty = self
            .variables
            .get(id)
            .ty
            .unwrap_or(self.types.well_known().int);
        Place::Memory {
            address: self.memory_variable_address(id, ty, span),
            ty,
            bit_field: None,
            space: AddressSpace::Kernel,
        }
    }

    /// An in-memory scalar array used as a value: the array itself, by reference (its
    /// storage's address typed as the array), as DTrace types it; it decays to a pointer
    /// to its first element where a pointer is wanted, and a char array is a string to
    /// `trace()` and `printf("%s")`.
    pub(super) fn static_array_value(&mut self, id: VariableId, span: &Span) -> TypedExpr {
        let variable = self.variables.get(id);
        let element = variable.ty.unwrap_or(self.types.well_known().int);
        let elements = match variable.shape {
            VariableShape::StaticArray { elements } => elements,
            _ => 1,
        };
        let array = self.types.array_of(element, elements);
        let address = self.memory_variable_address(id, element, span);
        TypedExpr {
            ty: array,
            ..address
        }
    }

    /// `&a[index]` of in-memory scalar array `variable`.
    pub(super) fn static_array_element_address(
        &mut self,
        variable: VariableId,
        index: TypedExpr,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let element = self
            .variables
            .get(variable)
            .ty
            .unwrap_or(self.types.well_known().int);
        let base = self.memory_variable_address(variable, element, span);
        self.pointer_offset(base, index, element, span)
    }

    /// Marks the variables kept in memory for code generation, once the whole
    /// program is analysed and every variable has its type.
    pub(super) fn mark_memory_variables(&mut self) {
        let ids: Vec<VariableId> = self.variables.iter().map(|(id, _)| id).collect();
        for id in ids {
            if self.is_in_memory(id) {
                self.variables.get_mut(id).in_memory = true;
            }
        }
    }
}
