//! The names the lexer must know to tell a type name from an identifier: the D
//! typedefs that are always present, typedefs and variables the program has declared so
//! far (parser-to-lexer feedback), and optionally the type names known to the caller
//! (kernel and library types).

use std::cell::RefCell;
use std::collections::HashSet;

/// The D typedefs that are always present (D-REFERENCE.md §3.1).
pub const BUILT_IN_TYPEDEFS: &[&str] = &[
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "intptr_t",
    "ssize_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "uchar_t",
    "ushort_t",
    "uint_t",
    "ulong_t",
    "u_longlong_t",
    "ptrdiff_t",
    "uintptr_t",
    "size_t",
    "id_t",
    "pid_t",
];

/// A question the caller can answer about names the program did not declare: whether
/// `name` (possibly scoped, e.g. `` vmlinux`pid_t ``) names a type.
pub type TypeNameOracle<'c> = &'c dyn Fn(&str) -> bool;

/// Type names and identifiers known at the current point of the program.
pub(crate) struct NameTable<'c> {
    declared_types: HashSet<String>,
    declared_identifiers: HashSet<String>,
    /// Names the program has used as variables (`x = 1`, `a[k]`, `n++`): the oracle is
    /// not asked about them again, since asking may make the kernel's types load.
    used_as_variables: RefCell<HashSet<String>>,
    oracle: Option<TypeNameOracle<'c>>,
}

impl<'c> NameTable<'c> {
    pub(crate) fn new(oracle: Option<TypeNameOracle<'c>>) -> NameTable<'c> {
        NameTable {
            declared_types: HashSet::new(),
            declared_identifiers: HashSet::new(),
            used_as_variables: RefCell::new(HashSet::new()),
            oracle,
        }
    }

    /// Whether `name` names a type and is not a declared variable, inline or
    /// enumerator.
    pub(crate) fn is_type_name(&self, name: &str) -> bool {
        // Most programs declare nothing; skip hashing then.
        if !self.declared_identifiers.is_empty() && self.declared_identifiers.contains(name) {
            return false;
        }
        (!self.declared_types.is_empty() && self.declared_types.contains(name))
            || BUILT_IN_TYPEDEFS.contains(&name)
            || (!self.used_as_variables.borrow().contains(name)
                && self.oracle.is_some_and(|oracle| oracle(name)))
    }

    /// Whether `name` is a type D itself defines or the program declared with
    /// `typedef` (and not since as a variable, inline or enumerator). DTrace's lexer
    /// returns such a name as a type name wherever it appears, so `t = 1;` after
    /// `typedef int t;` is a syntax error; only the kernel's many type names are
    /// left to be used as variables.
    pub(crate) fn is_program_or_built_in_type(&self, name: &str) -> bool {
        if !self.declared_identifiers.is_empty() && self.declared_identifiers.contains(name) {
            return false;
        }
        (!self.declared_types.is_empty() && self.declared_types.contains(name))
            || BUILT_IN_TYPEDEFS.contains(&name)
    }

    /// Records that the program used `name` as a variable.
    pub(crate) fn note_used_as_variable(&self, name: &str) {
        let mut used = self.used_as_variables.borrow_mut();
        if !used.contains(name) {
            used.insert(name.to_string());
        }
    }

    /// Records a typedef name declared by the program.
    pub(crate) fn declare_type(&mut self, name: &str) {
        self.declared_identifiers.remove(name);
        self.declared_types.insert(name.to_string());
    }

    /// Records a variable, inline or enumerator declared by the program.
    pub(crate) fn declare_identifier(&mut self, name: &str) {
        self.declared_types.remove(name);
        self.declared_identifiers.insert(name.to_string());
    }
}
