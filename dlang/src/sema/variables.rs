//! The variable table: built-in variables, globals, thread-locals (`self->`),
//! clause-locals (`this->`), associative and static arrays, each with its DIF variable
//! id, its type once known, and how it was introduced.

use std::collections::HashMap;

use difvm::isa::builtin_variable;

use super::ir::VariableId;
use crate::diagnostics::{Diagnostic, ErrorTag};
use crate::types::TypeId;

/// Which namespace a variable lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VariableScope {
    /// A read-only built-in (`pid`, `execname`, `arg0`, `args[]`, …).
    Builtin,
    Global,
    /// `self->name`.
    ThreadLocal,
    /// `this->name`.
    ClauseLocal,
}

/// How a variable stores its value(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariableShape {
    Scalar,
    /// Keyed by a tuple; `keys` is the key signature once fixed.
    Associative {
        keys: Option<Vec<TypeId>>,
    },
    /// `int a[10];`: a fixed array of scalars. DIF has no store for user arrays
    /// (`ldga` is for the built-in `args[]`, `regs[]` and `uregs[]`), so code generation
    /// keeps the elements in a global associative array keyed by the index, with the
    /// id of an ordinary global.
    StaticArray {
        elements: u64,
    },
    /// `args[]`, `regs[]`, `uregs[]` (the value is the DIF array id).
    BuiltinArray {
        array: u16,
    },
}

/// One variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub scope: VariableScope,
    pub shape: VariableShape,
    /// The value type (element type for arrays); `None` until the first assignment
    /// gives it one.
    pub ty: Option<TypeId>,
    pub dif_id: u16,
    /// Declared explicitly (`int x;`, `self int y;`).
    pub declared: bool,
    /// Made by the compiler (if/else conditions, register spills): never shown to users.
    pub hidden: bool,
    /// For clause-locals created by an assignment: the clause that created them.
    pub origin_clause: Option<u32>,
    /// Kept in memory, so that `&` can take its address: a global integer or pointer
    /// whose address the program takes, or a scalar array of integers or pointers.
    /// Its DIF variable is by-reference (`ldgs` gives the address of its storage) and
    /// it is read and written with loads and stores.
    pub in_memory: bool,
}

impl Variable {
    /// The name with its scope prefix, as messages print it (`self->x`, `this->y`).
    pub fn display_name(&self) -> String {
        match self.scope {
            VariableScope::ThreadLocal => format!("self->{}", self.name),
            VariableScope::ClauseLocal => format!("this->{}", self.name),
            _ => self.name.clone(),
        }
    }
}

/// All variables of a compilation.
#[derive(Debug, Clone)]
pub struct VariableTable {
    variables: Vec<Variable>,
    globals: HashMap<String, VariableId>,
    thread_locals: HashMap<String, VariableId>,
    clause_locals: HashMap<String, VariableId>,
    next_global: u32,
    next_thread_local: u32,
    next_clause_local: u32,
}

impl Default for VariableTable {
    fn default() -> VariableTable {
        VariableTable {
            variables: Vec::new(),
            globals: HashMap::new(),
            thread_locals: HashMap::new(),
            clause_locals: HashMap::new(),
            next_global: u32::from(builtin_variable::FIRST_USER),
            next_thread_local: u32::from(builtin_variable::FIRST_USER),
            next_clause_local: u32::from(builtin_variable::FIRST_USER),
        }
    }
}

impl VariableTable {
    /// The variable `id`.
    pub fn get(&self, id: VariableId) -> &Variable {
        &self.variables[id.0 as usize]
    }

    /// The variable `id`, for updating its type or signature.
    pub fn get_mut(&mut self, id: VariableId) -> &mut Variable {
        &mut self.variables[id.0 as usize]
    }

    /// Every variable, in creation order, with its id.
    pub fn iter(&self) -> impl Iterator<Item = (VariableId, &Variable)> {
        self.variables
            .iter()
            .enumerate()
            .map(|(index, variable)| (VariableId(index as u32), variable))
    }

    /// Looks a name up among built-ins and globals.
    pub fn global(&self, name: &str) -> Option<VariableId> {
        self.globals.get(name).copied()
    }

    /// Looks a `self->` name up.
    pub fn thread_local(&self, name: &str) -> Option<VariableId> {
        self.thread_locals.get(name).copied()
    }

    /// Looks a `this->` name up.
    pub fn clause_local(&self, name: &str) -> Option<VariableId> {
        self.clause_locals.get(name).copied()
    }

    /// Registers a built-in variable with its fixed DIF id.
    pub fn add_builtin(
        &mut self,
        name: &str,
        dif_id: u16,
        shape: VariableShape,
        ty: TypeId,
    ) -> VariableId {
        let id = VariableId(self.variables.len() as u32);
        self.variables.push(Variable {
            name: name.to_string(),
            scope: VariableScope::Builtin,
            shape,
            ty: Some(ty),
            dif_id,
            declared: true,
            hidden: false,
            origin_clause: None,
            in_memory: false,
        });
        self.globals.insert(name.to_string(), id);
        id
    }

    /// Creates a user variable in `scope`, assigning the next DIF id of its kind.
    pub fn create(
        &mut self,
        name: &str,
        scope: VariableScope,
        shape: VariableShape,
        ty: Option<TypeId>,
        declared: bool,
    ) -> Result<VariableId, Diagnostic> {
        let counter = match scope {
            VariableScope::ThreadLocal => &mut self.next_thread_local,
            VariableScope::ClauseLocal => &mut self.next_clause_local,
            _ => &mut self.next_global,
        };
        if *counter > u32::from(u16::MAX) {
            return Err(Diagnostic::without_span(
                ErrorTag::D_ID_OFLOW,
                format!("too many identifiers: cannot create {name}"),
            ));
        }
        let dif_id = *counter as u16;
        *counter += 1;
        let id = VariableId(self.variables.len() as u32);
        self.variables.push(Variable {
            name: name.to_string(),
            scope,
            shape,
            ty,
            dif_id,
            declared,
            hidden: name.contains('%'),
            origin_clause: None,
            in_memory: false,
        });
        let map = match scope {
            VariableScope::ThreadLocal => &mut self.thread_locals,
            VariableScope::ClauseLocal => &mut self.clause_locals,
            _ => &mut self.globals,
        };
        map.insert(name.to_string(), id);
        Ok(id)
    }
}
