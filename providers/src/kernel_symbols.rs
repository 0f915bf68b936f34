//! Kernel text symbols from `/proc/kallsyms`: the functions the fbt provider lists,
//! with the module each belongs to (`[module]` suffix; none for vmlinux).

use std::fs;
use std::path::Path;

use kernel_shim::kallsyms::kallsyms_lines;
pub use kernel_shim::kallsyms::KALLSYMS_PATH;

use crate::error::ProviderError;

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
    for line in kallsyms_lines(text) {
        if !line.is_text() || line.is_function_padding() || line.name.contains('.') {
            continue;
        }
        if seen.insert((line.module, line.name)) {
            functions.push(KernelFunction {
                name: line.name.to_string(),
                module: line.module.map(str::to_string),
            });
        }
    }
    functions
}
