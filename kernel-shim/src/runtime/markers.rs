//! The dtrace provider's BEGIN and END probes: two marker functions of the running binary
//! with uprobes on them. Calling a marker fires the probe synchronously, in the calling
//! thread, before the call returns.
//!
//! The uprobes are placed by file offset, found from the marker's run-time address and the
//! mapping of `/proc/self/maps` that holds it. That is a few kilobytes to read, where
//! finding the markers' symbols would mean parsing the whole executable (tens of megabytes
//! with debug information), and it works as well for a stripped binary.
//!
//! Several sessions may run in one process (the tests do), and a uprobe fires for every
//! call in the process, so each call passes the session's cookie as the first argument and
//! each session's BEGIN/END program starts with a check of it (`session_filter_prologue`).

use std::path::PathBuf;

use super::error::RuntimeError;
use crate::ebpf::{Insn, JmpOp, MemSize, Reg};

/// Which marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    Begin,
    End,
}

/// The BEGIN marker. Its body differs from the END marker's so that no optimisation
/// merges the two into one address.
#[no_mangle]
#[inline(never)]
pub extern "C" fn dtrace_rs_begin_marker(session_cookie: u64) {
    std::hint::black_box((0xB0u8, session_cookie));
}

/// The END marker.
#[no_mangle]
#[inline(never)]
pub extern "C" fn dtrace_rs_end_marker(session_cookie: u64) {
    std::hint::black_box((0xE0u8, session_cookie));
}

impl Marker {
    /// The marker function's symbol name.
    pub const fn symbol(self) -> &'static str {
        match self {
            Marker::Begin => "dtrace_rs_begin_marker",
            Marker::End => "dtrace_rs_end_marker",
        }
    }

    fn address(self) -> u64 {
        let function: extern "C" fn(u64) = match self {
            Marker::Begin => dtrace_rs_begin_marker,
            Marker::End => dtrace_rs_end_marker,
        };
        function as usize as u64
    }

    /// Calls the marker with the session's cookie: every BEGIN (or END) program of that
    /// session attached to it runs now, in this thread.
    pub fn fire(self, session_cookie: u64) {
        match self {
            Marker::Begin => dtrace_rs_begin_marker(std::hint::black_box(session_cookie)),
            Marker::End => dtrace_rs_end_marker(std::hint::black_box(session_cookie)),
        }
    }
}

/// Where a marker's uprobe goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerLocation {
    /// The running binary, as the kernel should open it.
    pub path: PathBuf,
    pub file_offset: u64,
}

/// The path given to the kernel for the running binary: the magic link resolves to the
/// very file this process executes even if it has since been replaced or deleted.
const SELF_EXECUTABLE: &str = "/proc/self/exe";

/// Finds the file offset of `marker` in the running binary.
pub fn marker_location(marker: Marker) -> Result<MarkerLocation, RuntimeError> {
    Ok(MarkerLocation {
        path: PathBuf::from(SELF_EXECUTABLE),
        file_offset: offset_from_mappings(marker)?,
    })
}

/// The file offset of `marker` from its run-time address and `/proc/self/maps`.
pub fn offset_from_mappings(marker: Marker) -> Result<u64, RuntimeError> {
    let attempted = || format!("finding {} in /proc/self/maps", marker.symbol());
    let maps = std::fs::read_to_string("/proc/self/maps")
        .map_err(|error| RuntimeError::invalid(attempted(), error.to_string()))?;
    let address = marker.address();
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (Some(range), Some(_permissions), Some(offset)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Some((start, end)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end), Ok(offset)) = (
            u64::from_str_radix(start, 16),
            u64::from_str_radix(end, 16),
            u64::from_str_radix(offset, 16),
        ) else {
            continue;
        };
        if address >= start && address < end {
            return Ok(address - start + offset);
        }
    }
    Err(RuntimeError::invalid(
        attempted(),
        format!("no mapping holds address {address:#x}"),
    ))
}

/// Offset of the first argument register in `struct pt_regs` (the uprobe program's
/// context): `di` on x86_64, `regs[0]` on aarch64.
#[cfg(target_arch = "x86_64")]
const FIRST_ARGUMENT_OFFSET: i16 = 14 * 8;
#[cfg(target_arch = "aarch64")]
const FIRST_ARGUMENT_OFFSET: i16 = 0;

/// Instructions to put before a BEGIN or END program: return 0 at once unless the marker
/// was called with `session_cookie`. They leave r1 (the context) untouched, and every
/// eBPF jump and call is relative, so the program after them runs unchanged.
pub fn session_filter_prologue(session_cookie: u64) -> Vec<Insn> {
    let mut prologue = vec![Insn::ldx_mem(
        MemSize::DW,
        Reg::R0,
        Reg::R1,
        FIRST_ARGUMENT_OFFSET,
    )];
    prologue.extend(Insn::ld_imm64(Reg::R2, session_cookie));
    prologue.push(Insn::jmp_reg(JmpOp::Eq, Reg::R0, Reg::R2, 2));
    prologue.push(Insn::mov64_imm(Reg::R0, 0));
    prologue.push(Insn::exit());
    prologue
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::{Object, ObjectSegment, ObjectSymbol};

    /// The file offset of `marker` from the running binary's symbol table, or None when the
    /// binary has no such symbol.
    fn offset_from_symbols(marker: Marker) -> Result<Option<u64>, RuntimeError> {
        let attempted = || format!("finding {} in {SELF_EXECUTABLE}", marker.symbol());
        let file = std::fs::File::open(SELF_EXECUTABLE)
            .map_err(|error| RuntimeError::invalid(attempted(), error.to_string()))?;
        let cache = object::ReadCache::new(file);
        let binary = object::File::parse(&cache)
            .map_err(|error| RuntimeError::invalid(attempted(), error.to_string()))?;
        let address = binary
            .symbols()
            .chain(binary.dynamic_symbols())
            .find(|symbol| symbol.name() == Ok(marker.symbol()))
            .map(|symbol| symbol.address());
        let Some(address) = address else {
            return Ok(None);
        };
        for segment in binary.segments() {
            let (file_start, file_size) = segment.file_range();
            let start = segment.address();
            if address >= start && address < start + file_size {
                return Ok(Some(address - start + file_start));
            }
        }
        Err(RuntimeError::invalid(
            attempted(),
            format!("address {address:#x} lies in no loaded segment"),
        ))
    }

    #[test]
    fn markers_found_by_mapping_are_at_their_symbols_file_offsets() {
        for marker in [Marker::Begin, Marker::End] {
            let by_mapping = offset_from_mappings(marker).expect("mapping");
            if let Some(by_symbol) = offset_from_symbols(marker).expect("symbols") {
                assert_eq!(by_symbol, by_mapping, "{marker:?}");
            }
            assert_eq!(
                marker_location(marker).expect("location").file_offset,
                by_mapping
            );
        }
        assert_ne!(
            offset_from_mappings(Marker::Begin).expect("BEGIN"),
            offset_from_mappings(Marker::End).expect("END"),
            "the markers must be distinct functions"
        );
    }
}
