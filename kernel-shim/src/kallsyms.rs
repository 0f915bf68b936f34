//! The lines of `/proc/kallsyms` (`ADDRESS TYPE NAME [MODULE]`), read one way for every
//! user: fbt's function list, the consumer's symbol table, and the runtime's ranges of
//! tracing machinery.

/// The kernel symbol table.
pub const KALLSYMS_PATH: &str = "/proc/kallsyms";

/// One kallsyms line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KallsymsLine<'t> {
    /// The address; 0 when kallsyms hides addresses from the reader.
    pub address: u64,
    /// The `nm`-style type letter (`T`, `t`, `D`, …).
    pub symbol_type: &'t str,
    pub name: &'t str,
    /// The module without its brackets (`[bpf]` → `bpf`); None for the kernel image.
    pub module: Option<&'t str>,
}

impl KallsymsLine<'_> {
    /// Whether this is the padding that CFI and patchable function entries put in front
    /// of a function (`__pfx_*`, `__cfi_*`): no function and no return address.
    pub fn is_function_padding(&self) -> bool {
        self.name.starts_with("__pfx_") || self.name.starts_with("__cfi_")
    }

    /// Whether the symbol is in a text section (`t` or `T`).
    pub fn is_text(&self) -> bool {
        matches!(self.symbol_type, "t" | "T")
    }
}

/// The well-formed lines of kallsyms `text`, in file order; malformed lines are skipped.
pub fn kallsyms_lines(text: &str) -> impl Iterator<Item = KallsymsLine<'_>> {
    text.lines().filter_map(|line| {
        let mut fields = line.split_whitespace();
        let address = u64::from_str_radix(fields.next()?, 16).ok()?;
        let symbol_type = fields.next()?;
        let name = fields.next()?;
        let module = fields.next().and_then(|module| {
            module
                .strip_prefix('[')
                .and_then(|module| module.strip_suffix(']'))
        });
        Some(KallsymsLine {
            address,
            symbol_type,
            name,
            module,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_into_their_fields() {
        let text = "ffffffff81000000 T vfs_read\nnot a line\n\
                    ffffffffc0000000 t mod_fn\t[mymod]\n0000000000000000 t __pfx_x\n";
        let lines: Vec<_> = kallsyms_lines(text).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            KallsymsLine {
                address: 0xffffffff81000000,
                symbol_type: "T",
                name: "vfs_read",
                module: None
            }
        );
        assert_eq!(lines[1].module, Some("mymod"));
        assert!(lines[1].is_text());
        assert!(lines[2].is_function_padding());
        assert_eq!(lines[2].address, 0);
    }
}
