//! The DIFO generator the code generator's passes share: one DIFO's builder with the
//! program's types and variables, the spill slots that hold values while registers run
//! out, and the mapping of D variables and types to their DIF descriptions.

use difvm::difo::{
    CtfKind, DifType, DifTypeKind, VariableKind, VariableScope as DifScope,
    DIF_TYPE_FLAG_BY_REFERENCE,
};
use difvm::isa::Opcode;
use difvm::object::{VariableDescription, VariableStorage};

use super::builder::{Access, DifoBuilder};
use crate::diagnostics::Diagnostic;
use crate::sema::ir::{TypedExpr, VariableId};
use crate::sema::{Analysis, Variable, VariableScope, VariableShape, VariableTable};
use crate::types::{TypeId, TypeKind, TypeTable};

/// The clause-local variables used to spill registers, shared by all DIFOs (a spill
/// lives only while one DIFO runs).
pub(crate) struct SpillSlots {
    pub(super) first_id: u32,
    /// Slots used by the DIFO needing the most.
    pub(super) count: usize,
}

/// The name of spill slot `index`.
fn spill_name(index: usize) -> String {
    format!("%spill_{index}")
}

/// The DIF type of a D type.
pub(crate) fn dif_type(types: &TypeTable, ty: TypeId) -> DifType {
    let size = types.size_of(ty).min(u64::from(u32::MAX)) as u32;
    let by_reference = |ctf_kind| DifType {
        kind: DifTypeKind::Ctf,
        ctf_kind,
        flags: DIF_TYPE_FLAG_BY_REFERENCE,
        size,
    };
    match types.resolved_kind(ty) {
        TypeKind::String => DifType::string(types.string_size()),
        TypeKind::Integer { .. } | TypeKind::Enum { .. } => DifType::integer(size),
        TypeKind::Pointer { .. } => DifType {
            kind: DifTypeKind::Ctf,
            ctf_kind: CtfKind::Pointer,
            flags: 0,
            size: 8,
        },
        TypeKind::Struct { .. } => by_reference(CtfKind::Struct),
        TypeKind::Union { .. } => by_reference(CtfKind::Union),
        TypeKind::Array { .. } => by_reference(CtfKind::Array),
        TypeKind::Float { .. } => by_reference(CtfKind::Float),
        TypeKind::Void => DifType::integer(0),
        _ => DifType::integer(8),
    }
}

/// The DIF type of a variable: its value's, except that a variable kept in memory
/// (`Variable::in_memory`) is a by-reference object as large as its storage, so that
/// `ldgs` gives the storage's address.
pub(crate) fn variable_dif_type(types: &TypeTable, variable: &Variable) -> DifType {
    let Some(ty) = variable.ty else {
        return DifType::integer(8);
    };
    if !variable.in_memory {
        return dif_type(types, ty);
    }
    let (ctf_kind, count) = match variable.shape {
        VariableShape::StaticArray { elements } => (CtfKind::Array, elements),
        _ if types.is_pointer(ty) => (CtfKind::Pointer, 1),
        _ => (CtfKind::Integer, 1),
    };
    DifType {
        kind: DifTypeKind::Ctf,
        ctf_kind,
        flags: DIF_TYPE_FLAG_BY_REFERENCE,
        size: types
            .size_of(ty)
            .saturating_mul(count)
            .min(u64::from(u32::MAX)) as u32,
    }
}

/// How DIF addresses a variable: its id, table kind and scope, and the load/store
/// opcodes.
pub(crate) struct VariableAccess {
    pub id: u16,
    pub kind: VariableKind,
    pub scope: DifScope,
    pub load: Opcode,
    pub store: Option<Opcode>,
    /// User variables appear in the DIFO's variable table.
    pub user: bool,
}

/// The DIF addressing of a variable.
pub(crate) fn variable_access(variable: &Variable) -> VariableAccess {
    let user = variable.scope != VariableScope::Builtin;
    let (kind, scope, load, store) = match (&variable.shape, variable.scope) {
        (VariableShape::BuiltinArray { .. }, _) => {
            (VariableKind::Array, DifScope::Global, Opcode::Ldga, None)
        }
        // A scalar array in memory is a by-reference global holding its elements.
        (VariableShape::StaticArray { .. }, _) if variable.in_memory => (
            VariableKind::Scalar,
            DifScope::Global,
            Opcode::Ldgs,
            Some(Opcode::Stgs),
        ),
        // Any other scalar array is a global associative array keyed by the index.
        (VariableShape::StaticArray { .. }, _) => (
            VariableKind::Array,
            DifScope::Global,
            Opcode::Ldgaa,
            Some(Opcode::Stgaa),
        ),
        (VariableShape::Associative { .. }, VariableScope::ThreadLocal) => (
            VariableKind::Array,
            DifScope::ThreadLocal,
            Opcode::Ldtaa,
            Some(Opcode::Sttaa),
        ),
        (VariableShape::Associative { .. }, _) => (
            VariableKind::Array,
            DifScope::Global,
            Opcode::Ldgaa,
            Some(Opcode::Stgaa),
        ),
        (_, VariableScope::ThreadLocal) => (
            VariableKind::Scalar,
            DifScope::ThreadLocal,
            Opcode::Ldts,
            Some(Opcode::Stts),
        ),
        (_, VariableScope::ClauseLocal) => (
            VariableKind::Scalar,
            DifScope::ClauseLocal,
            Opcode::Ldls,
            Some(Opcode::Stls),
        ),
        (_, VariableScope::Builtin) => (VariableKind::Scalar, DifScope::Global, Opcode::Ldgs, None),
        (_, VariableScope::Global) => (
            VariableKind::Scalar,
            DifScope::Global,
            Opcode::Ldgs,
            Some(Opcode::Stgs),
        ),
    };
    VariableAccess {
        id: variable.dif_id,
        kind,
        scope,
        load,
        store,
        user,
    }
}

/// The byte size of an associative array's encoded key tuple: 8 bytes per by-value
/// key, strsize per string, the object size for other by-reference keys.
fn key_size(types: &TypeTable, keys: &[TypeId]) -> u32 {
    keys.iter()
        .map(|&key| {
            if types.is_string(key) {
                types.string_size()
            } else if types.is_by_reference(key) {
                types.size_of(key) as u32
            } else {
                8
            }
        })
        .fold(0u32, u32::saturating_add)
}

/// `CompiledProgram.variables`: every user variable with a type, plus the spill slots.
pub(super) fn variable_descriptions(
    analysis: &Analysis,
    spills: &SpillSlots,
) -> Vec<VariableDescription> {
    let types = &analysis.types;
    let mut descriptions = Vec::new();
    for (_, variable) in analysis.variables.iter() {
        if variable.ty.is_none() || variable.scope == VariableScope::Builtin {
            continue;
        }
        let scope = match variable.scope {
            VariableScope::ThreadLocal => DifScope::ThreadLocal,
            VariableScope::ClauseLocal => DifScope::ClauseLocal,
            _ => DifScope::Global,
        };
        let storage = match &variable.shape {
            VariableShape::StaticArray { .. } if variable.in_memory => VariableStorage::Scalar,
            // Both engines store any other scalar array like an associative array with
            // one by-value key (the index), as the DIF that accesses it does.
            VariableShape::StaticArray { .. } => VariableStorage::Associative { key_size: 8 },
            VariableShape::Associative { keys } => VariableStorage::Associative {
                key_size: key_size(types, keys.as_deref().unwrap_or(&[])),
            },
            _ => VariableStorage::Scalar,
        };
        descriptions.push(VariableDescription {
            id: variable.dif_id,
            name: variable.name.clone(),
            scope,
            storage,
            ty: variable_dif_type(types, variable),
        });
    }
    for index in 0..spills.count {
        descriptions.push(VariableDescription {
            id: (spills.first_id + index as u32) as u16,
            name: spill_name(index),
            scope: DifScope::ClauseLocal,
            storage: VariableStorage::Scalar,
            ty: DifType::integer(8),
        });
    }
    descriptions
}

/// A value computed by an earlier part of an expression, held while a later part is
/// evaluated: in a register, or spilled to a clause-local slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Held {
    Register(u8),
    Spilled(usize),
}

/// Generates one DIFO.
pub(super) struct DifoGenerator<'g> {
    pub(super) builder: DifoBuilder,
    pub(super) types: &'g TypeTable,
    pub(super) variables: &'g VariableTable,
    spills: &'g mut SpillSlots,
    /// Spill slots holding a value in this DIFO.
    spill_in_use: Vec<bool>,
}

impl<'g> DifoGenerator<'g> {
    pub(super) fn new(analysis: &'g Analysis, spills: &'g mut SpillSlots) -> DifoGenerator<'g> {
        DifoGenerator {
            builder: DifoBuilder::new(),
            types: &analysis.types,
            variables: &analysis.variables,
            spills,
            spill_in_use: Vec::new(),
        }
    }

    /// Compiles `expr` into a DIFO returning its value.
    pub(super) fn compile(mut self, expr: &TypedExpr) -> Result<difvm::difo::Difo, Diagnostic> {
        let register = self.expression(expr)?;
        let return_type = dif_type(self.types, expr.ty);
        self.builder.finish(register, return_type)
    }

    /// Records a reference to a user variable in the DIFO's variable table.
    pub(super) fn reference(
        &mut self,
        id: VariableId,
        access: Access,
    ) -> Result<VariableAccess, Diagnostic> {
        let variable = self.variables.get(id);
        let addressing = variable_access(variable);
        if addressing.user {
            let ty = variable_dif_type(self.types, variable);
            self.builder.reference_variable(
                &variable.name,
                addressing.id,
                addressing.kind,
                addressing.scope,
                ty,
                access,
            )?;
        }
        Ok(addressing)
    }

    /// Makes sure `needed` registers are free, spilling held values (oldest first).
    pub(super) fn make_room(&mut self, held: &mut [Held], needed: usize) -> Result<(), Diagnostic> {
        for value in held.iter_mut() {
            if self.builder.free_count() >= needed {
                break;
            }
            if let Held::Register(register) = *value {
                let slot = self.spill(register)?;
                *value = Held::Spilled(slot);
            }
        }
        Ok(())
    }

    /// Stores `register` in a free spill slot and releases it.
    pub(super) fn spill(&mut self, register: u8) -> Result<usize, Diagnostic> {
        let slot = match self.spill_in_use.iter().position(|&used| !used) {
            Some(slot) => slot,
            None => {
                self.spill_in_use.push(false);
                self.spill_in_use.len() - 1
            }
        };
        self.spill_in_use[slot] = true;
        self.spills.count = self.spills.count.max(slot + 1);
        let id = self.spill_id(slot)?;
        self.builder.reference_variable(
            &spill_name(slot),
            id,
            VariableKind::Scalar,
            DifScope::ClauseLocal,
            DifType::integer(8),
            Access::Write,
        )?;
        self.builder.emit_indexed(Opcode::Stls, id, register);
        self.builder.release(register);
        Ok(slot)
    }

    /// The clause-local variable id of spill slot `slot`.
    pub(super) fn spill_id(&self, slot: usize) -> Result<u16, Diagnostic> {
        u16::try_from(self.spills.first_id + slot as u32).map_err(|_| {
            Diagnostic::without_span(
                crate::diagnostics::ErrorTag::D_ID_OFLOW,
                "too many identifiers: no clause-local variable left to spill a register",
            )
        })
    }

    /// Brings a held value back into a register.
    pub(super) fn reload(&mut self, value: Held) -> Result<u8, Diagnostic> {
        match value {
            Held::Register(register) => Ok(register),
            Held::Spilled(slot) => {
                let register = self.builder.allocate()?;
                let id = self.spill_id(slot)?;
                self.builder.reference_variable(
                    &spill_name(slot),
                    id,
                    VariableKind::Scalar,
                    DifScope::ClauseLocal,
                    DifType::integer(8),
                    Access::Read,
                )?;
                self.builder.emit_indexed(Opcode::Ldls, id, register);
                self.spill_in_use[slot] = false;
                Ok(register)
            }
        }
    }
}
