//! Symbolic output of addresses and stacks: the [`SymbolResolver`] the session provides,
//! and the texts DTrace prints for kernel and user addresses (`module`symbol+0xoffset`
//! and its shorter forms) and for stack frames.

use difvm::object::SymbolFormat;

use crate::record::StackFrames;
use crate::render::c_format::{format_string, push_repeated, CFormatSpec};

/// What a symbol lookup found for an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolLookup {
    /// The containing module (kernel module, or the basename of a user object).
    pub module: String,
    /// The containing symbol, when one is known.
    pub symbol: Option<SymbolName>,
}

/// A symbol and its start address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolName {
    pub name: String,
    pub address: u64,
}

/// Turns addresses into module and symbol names. The session implements this over its
/// symbol tables; [`NoSymbols`] knows nothing, so every address prints in hex.
pub trait SymbolResolver {
    /// Looks up a kernel address.
    fn kernel_symbol(&self, address: u64) -> Option<SymbolLookup>;
    /// Looks up a user address of process `pid` (0 when no process is known).
    fn user_symbol(&self, pid: u64, address: u64) -> Option<SymbolLookup>;
    /// The text of user stack frame `address` of process `pid` when the resolver
    /// prints frames without their symbols (`-x noresolve`: `object:0xoffset`), or None
    /// to print the frame from [`SymbolResolver::user_symbol`] as usual.
    fn unresolved_user_frame(&self, _pid: u64, _address: u64) -> Option<String> {
        None
    }
}

/// A resolver that knows no symbols.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSymbols;

impl SymbolResolver for NoSymbols {
    fn kernel_symbol(&self, _address: u64) -> Option<SymbolLookup> {
        None
    }

    fn user_symbol(&self, _pid: u64, _address: u64) -> Option<SymbolLookup> {
        None
    }
}

/// `module`symbol+0xoffset` (offset omitted when the address is the symbol's start),
/// `module`0xaddress` when only the module is known, `0xaddress` otherwise: `%a`,
/// `%A`, `uaddr()` and stack frames.
fn address_text(lookup: Option<SymbolLookup>, address: u64) -> String {
    match lookup {
        Some(SymbolLookup {
            module,
            symbol: Some(symbol),
        }) if address > symbol.address => {
            format!(
                "{}`{}+0x{:x}",
                module,
                symbol.name,
                address - symbol.address
            )
        }
        // At the symbol's start, or without a symbol, it reads as `sym()` does.
        lookup => symbol_text(lookup, address),
    }
}

/// `module`symbol` without offset (`sym()`, `func()`), or the shorter forms.
fn symbol_text(lookup: Option<SymbolLookup>, address: u64) -> String {
    match lookup {
        Some(SymbolLookup {
            module,
            symbol: Some(symbol),
        }) => {
            format!("{}`{}", module, symbol.name)
        }
        Some(SymbolLookup {
            module,
            symbol: None,
        }) => format!("{}`0x{:x}", module, address),
        None => format!("0x{:x}", address),
    }
}

/// The module name (`mod()`, `umod()`), or `0xaddress`.
fn module_text(lookup: Option<SymbolLookup>, address: u64) -> String {
    match lookup {
        Some(SymbolLookup { module, .. }) => module,
        None => format!("0x{:x}", address),
    }
}

/// The text of a kernel address with offset (`%a`, kernel stack frames).
pub fn kernel_address_text(resolver: &dyn SymbolResolver, address: u64) -> String {
    address_text(resolver.kernel_symbol(address), address)
}

/// The text of `sym()`/`func()` of a kernel address.
pub fn kernel_symbol_text(resolver: &dyn SymbolResolver, address: u64) -> String {
    symbol_text(resolver.kernel_symbol(address), address)
}

/// The text of `mod()` of a kernel address.
pub fn kernel_module_text(resolver: &dyn SymbolResolver, address: u64) -> String {
    module_text(resolver.kernel_symbol(address), address)
}

/// The text of a user address with offset (`%A`, `uaddr()`, user stack frames).
pub fn user_address_text(resolver: &dyn SymbolResolver, pid: u64, address: u64) -> String {
    address_text(resolver.user_symbol(pid, address), address)
}

/// The text of `usym()`/`ufunc()`: DTrace moves the address to the start of its symbol
/// and prints the result the way `uaddr()` does, so there is no offset.
pub fn user_symbol_text(resolver: &dyn SymbolResolver, pid: u64, address: u64) -> String {
    symbol_text(resolver.user_symbol(pid, address), address)
}

/// The text of `umod()`.
pub fn user_module_text(resolver: &dyn SymbolResolver, pid: u64, address: u64) -> String {
    module_text(resolver.user_symbol(pid, address), address)
}

/// The text of a recorded `sym()`, `func()` or `mod()` value, as the trace and
/// aggregation printers show it.
pub fn recorded_kernel_symbol_text(
    resolver: &dyn SymbolResolver,
    address: u64,
    format: SymbolFormat,
) -> String {
    match format {
        SymbolFormat::Module => kernel_module_text(resolver, address),
        _ => kernel_symbol_text(resolver, address),
    }
}

/// The text of a recorded `usym()`, `ufunc()`, `umod()` or `uaddr()` value, as the trace
/// and aggregation printers show it.
pub fn recorded_user_symbol_text(
    resolver: &dyn SymbolResolver,
    pid: u64,
    address: u64,
    format: SymbolFormat,
) -> String {
    match format {
        SymbolFormat::Symbol => user_symbol_text(resolver, pid, address),
        SymbolFormat::SymbolWithOffset => user_address_text(resolver, pid, address),
        SymbolFormat::Module => user_module_text(resolver, pid, address),
    }
}

/// Appends a stack as DTrace prints it: a newline, then for every frame `indent`
/// spaces, the frame formatted with `spec` as a string, and a newline. Frame lists end
/// at the first zero PC.
pub fn render_kernel_stack(
    out: &mut String,
    resolver: &dyn SymbolResolver,
    frames: &StackFrames<'_>,
    indent: usize,
    spec: &CFormatSpec,
) {
    out.push('\n');
    for pc in frames.iter() {
        push_repeated(out, ' ', indent);
        format_string(out, spec, &kernel_address_text(resolver, pc));
        out.push('\n');
    }
}

/// Appends a user stack of process `pid` like [`render_kernel_stack`]. A stack recorded
/// with no frames prints nothing at all, not even the newline.
pub fn render_user_stack(
    out: &mut String,
    resolver: &dyn SymbolResolver,
    pid: u64,
    frames: &StackFrames<'_>,
    indent: usize,
    spec: &CFormatSpec,
) {
    if frames.capacity() == 0 {
        return;
    }
    out.push('\n');
    for pc in frames.iter() {
        push_repeated(out, ' ', indent);
        let frame = resolver
            .unresolved_user_frame(pid, pc)
            .unwrap_or_else(|| user_address_text(resolver, pid, pc));
        format_string(out, spec, &frame);
        out.push('\n');
    }
}
