//! Symbolization of the addresses in the records: the [`SystemSymbols`] resolver the
//! session formats `stack()`, `ustack()`, `sym()`, `usym()`, `%a`, `%A` and their kin
//! with (D-REFERENCE.md §12.6). Kernel addresses resolve through `/proc/kallsyms`, user
//! addresses through the process's mappings and the symbol tables of the mapped objects.

pub mod aggregation_keys;
pub mod kernel;
pub mod mapping_watch;
pub mod user;

use std::cell::OnceCell;
use std::path::PathBuf;

use providers::kernel_symbols::KALLSYMS_PATH;

use crate::render::symbols::{SymbolLookup, SymbolResolver};
use kernel::KernelSymbolTable;
use mapping_watch::MappingWatch;
use user::UserSymbols;

/// How a session's resolver behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemSymbolOptions {
    /// `-x noresolve`: print user stack frames as `object:0xoffset` without looking
    /// at symbols.
    pub noresolve: bool,
    /// The `-c`/`-p` process, whose mappings are kept fresh while it runs so that its
    /// aggregated stacks resolve after it has exited.
    pub watched_process: Option<u64>,
    /// Where the kernel symbol table is read from.
    pub kallsyms_path: PathBuf,
}

impl SystemSymbolOptions {
    /// Symbols resolved normally, watching `watched_process`.
    pub fn new(watched_process: Option<u64>) -> SystemSymbolOptions {
        SystemSymbolOptions {
            noresolve: false,
            watched_process,
            kallsyms_path: PathBuf::from(KALLSYMS_PATH),
        }
    }
}

/// The resolver of a real session. The kernel symbol table is read on the first kernel
/// lookup (most sessions never make one); a process's mappings are read on the first
/// lookup of one of its addresses, and again when a lookup misses while it lives.
/// Addresses of a process that exited before any of this print in hex, as in DTrace.
pub struct SystemSymbols {
    /// Declared first so that it is dropped, and its thread stopped, first.
    _watch: Option<MappingWatch>,
    options: SystemSymbolOptions,
    kernel: OnceCell<KernelSymbolTable>,
    user: UserSymbols,
}

impl SystemSymbols {
    /// A resolver with the given options; starts watching the target process, if any.
    pub fn new(options: SystemSymbolOptions) -> SystemSymbols {
        let user = UserSymbols::new();
        // Without a watch (no thread to be had), the target's stacks still resolve
        // while it runs; only those printed after it exits fall back to hex.
        let watch = options
            .watched_process
            .and_then(|pid| MappingWatch::start(pid, user.store()).ok());
        SystemSymbols {
            _watch: watch,
            options,
            kernel: OnceCell::new(),
            user,
        }
    }

    fn kernel_table(&self) -> &KernelSymbolTable {
        // An unreadable kallsyms leaves the table empty: addresses print in hex.
        self.kernel.get_or_init(|| {
            KernelSymbolTable::read(&self.options.kallsyms_path).unwrap_or_default()
        })
    }
}

impl SymbolResolver for SystemSymbols {
    fn kernel_symbol(&self, address: u64) -> Option<SymbolLookup> {
        self.kernel_table().lookup(address)
    }

    fn user_symbol(&self, pid: u64, address: u64) -> Option<SymbolLookup> {
        self.user.lookup(pid, address)
    }

    fn unresolved_user_frame(&self, pid: u64, address: u64) -> Option<String> {
        if !self.options.noresolve {
            return None;
        }
        Some(
            self.user
                .object_offset_text(pid, address)
                .unwrap_or_else(|| format!("0x{address:x}")),
        )
    }
}
