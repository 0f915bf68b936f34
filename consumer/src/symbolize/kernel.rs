//! Kernel address lookup from `/proc/kallsyms`: the symbol table sorted by address, each
//! symbol extending to the next one, and the module it belongs to (`vmlinux` for the
//! kernel image, the bracketed name for modules and pseudo modules such as `[bpf]`).

use std::fs;
use std::path::Path;
use std::sync::Arc;

use kernel_shim::kallsyms::{kallsyms_lines, KallsymsLine};

use crate::render::symbols::{SymbolLookup, SymbolName};

/// The module name DTrace gives the kernel image.
pub const KERNEL_IMAGE_MODULE: &str = "vmlinux";

/// How far the last symbol before a change of module (or the end of the table) extends.
/// kallsyms gives no sizes, and the next symbol of another module may lie far away in a
/// different region (modules, BPF programs and trampolines live apart from the kernel
/// image), so a symbol there is taken to cover at most one page rather than the gap.
const MODULE_BOUNDARY_EXTENT: u64 = 4096;

/// One kernel symbol with the extent it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSymbol {
    pub address: u64,
    /// The distance to the next symbol (see [`MODULE_BOUNDARY_EXTENT`] for the last
    /// symbol of a module).
    pub size: u64,
    pub name: String,
    /// The module name, `vmlinux` for the kernel image.
    pub module: Arc<str>,
}

/// The kernel's symbols sorted by address, for lookups by binary search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelSymbolTable {
    symbols: Vec<KernelSymbol>,
}

/// A kallsyms line before sorting, with how much it is wanted: that decides which of
/// several names at one address is kept.
struct KallsymsEntry<'t> {
    line: KallsymsLine<'t>,
    preference: u8,
}

/// How much a kallsyms entry is wanted when several share an address (lower is
/// better), or None when it names no kernel location. Global text beats local text,
/// text beats weak and data symbols; absolute symbols (`a`, `A`) and undefined or
/// debugging entries are values, not locations, and are left out.
fn symbol_preference(line: &KallsymsLine<'_>) -> Option<u8> {
    let rank = match line.symbol_type {
        "T" => 0,
        "t" => 1,
        "W" | "w" => 2,
        "D" | "d" | "B" | "b" | "R" | "r" | "V" | "v" => 3,
        _ => return None,
    };
    // CFI and patchable-entry padding sits in front of its function; it only ever
    // shares an address with something by accident.
    let padding = u8::from(line.is_function_padding());
    Some(rank + padding * 4)
}

impl KernelSymbolTable {
    /// Reads the table from a kallsyms file. A table whose addresses are all hidden
    /// (zero, as kallsyms shows them to unprivileged readers) is empty.
    pub fn read(path: &Path) -> std::io::Result<KernelSymbolTable> {
        Ok(KernelSymbolTable::parse(&fs::read_to_string(path)?))
    }

    /// Builds the table from kallsyms text (`ADDRESS TYPE NAME [MODULE]` lines).
    ///
    /// Entries below the lowest text symbol are left out: on x86-64 the per-CPU
    /// variables appear as small offsets from zero, which would otherwise turn small
    /// integers printed with `%a` into symbol names.
    pub fn parse(text: &str) -> KernelSymbolTable {
        let mut entries: Vec<KallsymsEntry<'_>> = Vec::new();
        for line in kallsyms_lines(text) {
            let Some(preference) = symbol_preference(&line) else {
                continue;
            };
            if line.address == 0 {
                continue;
            }
            entries.push(KallsymsEntry { line, preference });
        }
        let lowest_text = entries
            .iter()
            .filter(|entry| entry.line.is_text())
            .map(|entry| entry.line.address)
            .min()
            .unwrap_or(u64::MAX);
        entries.retain(|entry| entry.line.address >= lowest_text);
        // A stable sort keeps file order among equally preferred names at one address.
        entries.sort_by_key(|entry| (entry.line.address, entry.preference));
        entries.dedup_by_key(|entry| entry.line.address);
        KernelSymbolTable::from_entries(entries)
    }

    fn from_entries(entries: Vec<KallsymsEntry<'_>>) -> KernelSymbolTable {
        let kernel_image: Arc<str> = Arc::from(KERNEL_IMAGE_MODULE);
        let mut modules: Vec<Arc<str>> = Vec::new();
        let mut module_name = |module: Option<&str>| -> Arc<str> {
            let Some(module) = module else {
                return kernel_image.clone();
            };
            match modules.iter().find(|known| &***known == module) {
                Some(known) => known.clone(),
                None => {
                    let interned: Arc<str> = Arc::from(module);
                    modules.push(interned.clone());
                    interned
                }
            }
        };
        let mut symbols: Vec<KernelSymbol> = entries
            .iter()
            .map(|entry| KernelSymbol {
                address: entry.line.address,
                size: 0,
                name: entry.line.name.to_string(),
                module: module_name(entry.line.module),
            })
            .collect();
        let count = symbols.len();
        for index in 0..count {
            let next = symbols
                .get(index + 1)
                .map(|next| (next.address, next.module.clone()));
            let symbol = &mut symbols[index];
            symbol.size = match next {
                Some((address, module)) if module == symbol.module => address - symbol.address,
                Some((address, _)) => (address - symbol.address).min(MODULE_BOUNDARY_EXTENT),
                None => MODULE_BOUNDARY_EXTENT,
            };
        }
        KernelSymbolTable { symbols }
    }

    /// The number of symbols.
    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    /// True when the table has no symbols (kallsyms unreadable or its addresses hidden).
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// The symbol whose extent holds `address`.
    pub fn symbol_containing(&self, address: u64) -> Option<&KernelSymbol> {
        let following = self
            .symbols
            .partition_point(|symbol| symbol.address <= address);
        let symbol = self.symbols.get(following.checked_sub(1)?)?;
        (address - symbol.address < symbol.size).then_some(symbol)
    }

    /// The module and symbol of `address`, as the formatting code wants them.
    pub fn lookup(&self, address: u64) -> Option<SymbolLookup> {
        let symbol = self.symbol_containing(address)?;
        Some(SymbolLookup {
            module: symbol.module.to_string(),
            symbol: Some(SymbolName {
                name: symbol.name.clone(),
                address: symbol.address,
            }),
        })
    }
}
