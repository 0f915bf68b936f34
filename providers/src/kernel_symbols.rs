//! Kernel text symbols from `/proc/kallsyms`: the functions the fbt provider lists,
//! with the module each belongs to (`[module]` suffix; none for vmlinux).

use std::fs;
use std::path::Path;

use crate::error::ProviderError;

/// The default place of the kernel symbol table.
pub const KALLSYMS_PATH: &str = "/proc/kallsyms";

/// A kernel function symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelFunction {
    pub name: String,
    /// The module, or None for the kernel image (listed as `vmlinux`).
    pub module: Option<String>,
}

/// Reads the kernel functions of the kallsyms file at `path`.
pub fn read_kernel_functions(path: &Path) -> Result<Vec<KernelFunction>, ProviderError> {
    let text = fs::read_to_string(path).map_err(|error| ProviderError::io(path, &error))?;
    Ok(parse_kallsyms(&text))
}

/// The text symbols (`t`/`T`) of a kallsyms listing that can be function probes, one
/// per (module, name), in file order.
///
/// Left out: CFI and patchable-entry padding (`__pfx_*`, `__cfi_*`), which are not
/// functions, and compiler-made clones whose names carry a `.` suffix (`foo.isra.0`,
/// `foo.cold`), which have no stable name to give in a description.
pub fn parse_kallsyms(text: &str) -> Vec<KernelFunction> {
    let mut seen = std::collections::HashSet::new();
    let mut functions = Vec::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let (Some(_address), Some(symbol_type), Some(name)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if !matches!(symbol_type, "t" | "T")
            || name.starts_with("__pfx_")
            || name.starts_with("__cfi_")
            || name.contains('.')
        {
            continue;
        }
        let module = fields.next().and_then(|module| {
            module
                .strip_prefix('[')
                .and_then(|module| module.strip_suffix(']'))
        });
        if seen.insert((module, name)) {
            functions.push(KernelFunction {
                name: name.to_string(),
                module: module.map(str::to_string),
            });
        }
    }
    functions
}
