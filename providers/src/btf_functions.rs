//! The kernel's functions as fbt sees them, from its BTF (`/sys/kernel/btf/vmlinux`, read
//! with `kernel_shim::btf`): their names, and the C names of their parameter and return
//! types for fbt's `args[]`. [`c_type_name`] renders a BTF type as the C type name that
//! `args[]` carries; the rawtp provider names its arguments with it too.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use kernel_shim::btf::{Btf, BtfKind, BtfParameters};

use crate::error::ProviderError;

/// The default place of the kernel's BTF.
pub const VMLINUX_BTF_PATH: &str = kernel_shim::btf::VMLINUX_BTF_PATH;

/// How deep type-name rendering follows references before giving up (malformed BTF
/// could contain a cycle of qualifiers).
const MAXIMUM_TYPE_DEPTH: u32 = 32;

/// The functions of a BTF blob and their prototypes.
#[derive(Debug, Clone)]
pub struct BtfFunctions {
    btf: Btf,
    /// Function name → FUNC_PROTO type id (of the last FUNC of that name).
    prototypes: HashMap<String, u32>,
    /// Function names in type order, each once.
    names: Vec<String>,
}

impl BtfFunctions {
    /// Reads and parses the BTF file at `path`.
    pub fn read(path: &Path) -> Result<BtfFunctions, ProviderError> {
        let data = fs::read(path).map_err(|error| ProviderError::io(path, &error))?;
        let btf =
            Btf::parse(data).map_err(|error| ProviderError::malformed(path, error.to_string()))?;
        Ok(BtfFunctions::from_btf(btf))
    }

    /// Parses a BTF blob (little- or big-endian).
    pub fn parse(data: &[u8]) -> Result<BtfFunctions, String> {
        Btf::parse(data.to_vec())
            .map(BtfFunctions::from_btf)
            .map_err(|error| error.to_string())
    }

    fn from_btf(btf: Btf) -> BtfFunctions {
        let mut prototypes = HashMap::new();
        let mut names = Vec::new();
        for id in btf.own_type_ids() {
            let Some(ty) = btf.type_by_id(id) else {
                continue;
            };
            if let BtfKind::Function { prototype, .. } = ty.kind {
                if !ty.name.is_empty()
                    && prototypes.insert(ty.name.to_string(), prototype).is_none()
                {
                    names.push(ty.name.to_string());
                }
            }
        }
        BtfFunctions {
            btf,
            prototypes,
            names,
        }
    }

    /// Every function name, in type order.
    pub fn function_names(&self) -> &[String] {
        &self.names
    }

    /// The prototype of `function`, when BTF knows it.
    fn prototype(&self, function: &str) -> Option<BtfParameters<'_>> {
        match self.btf.type_by_id(*self.prototypes.get(function)?)?.kind {
            BtfKind::FunctionPrototype(parameters) => Some(parameters),
            _ => None,
        }
    }

    /// The C types of `function`'s parameters, or None when BTF does not know it. A
    /// type that cannot be named is an empty string; a trailing `...` is left out.
    pub fn argument_types(&self, function: &str) -> Option<Vec<String>> {
        let prototype = self.prototype(function)?;
        let count = prototype.len() - prototype.varargs() as u32;
        Some(
            (0..count)
                .filter_map(|index| prototype.get(index))
                .map(|(_, id)| c_type_name(&self.btf, id).unwrap_or_default())
                .collect(),
        )
    }

    /// The C type `function` returns (`void` for none), or None when BTF does not know
    /// the function. A type that cannot be named is an empty string.
    pub fn return_type(&self, function: &str) -> Option<String> {
        let prototype = self.prototype(function)?;
        Some(c_type_name(&self.btf, prototype.return_type).unwrap_or_default())
    }
}

/// The C name of type `id` of `btf` (`const char *`, `struct file *`, `u32 [4]`, `void`
/// for id 0), or None for a type that has no such name (a function, a variable).
pub fn c_type_name(btf: &Btf, id: u32) -> Option<String> {
    type_name(btf, id, 0)
}

/// [`c_type_name`], `depth` references deep.
fn type_name(btf: &Btf, id: u32, depth: u32) -> Option<String> {
    if depth > MAXIMUM_TYPE_DEPTH {
        return None;
    }
    if id == 0 {
        return Some("void".to_string());
    }
    let ty = btf.type_by_id(id)?;
    let named = |prefix: &str| (!ty.name.is_empty()).then(|| format!("{prefix}{}", ty.name));
    match ty.kind {
        BtfKind::Integer { .. } | BtfKind::Float { .. } | BtfKind::Typedef { .. } => named(""),
        BtfKind::Struct(_) => named("struct "),
        BtfKind::Union(_) => named("union "),
        BtfKind::Enum(_) => named("enum "),
        BtfKind::Forward { union } => named(if union { "union " } else { "struct " }),
        BtfKind::Pointer { target } => {
            if target != 0 {
                let pointee = btf.type_by_id(target)?;
                if matches!(pointee.kind, BtfKind::FunctionPrototype(_)) {
                    return Some("void *".to_string());
                }
            }
            let target = type_name(btf, target, depth + 1)?;
            Some(if target.ends_with('*') {
                format!("{target}*")
            } else {
                format!("{target} *")
            })
        }
        BtfKind::Const { target } => Some(format!("const {}", type_name(btf, target, depth + 1)?)),
        BtfKind::Volatile { target } => {
            Some(format!("volatile {}", type_name(btf, target, depth + 1)?))
        }
        BtfKind::Restrict { target } | BtfKind::TypeTag { target } => {
            type_name(btf, target, depth + 1)
        }
        BtfKind::Array { element, count, .. } => Some(format!(
            "{} [{}]",
            type_name(btf, element, depth + 1)?,
            count
        )),
        BtfKind::Function { .. }
        | BtfKind::FunctionPrototype(_)
        | BtfKind::Variable { .. }
        | BtfKind::DataSection(_)
        | BtfKind::DeclarationTag { .. } => None,
    }
}
