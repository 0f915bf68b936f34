//! Sizing of the per-CPU principal and speculation buffers, and the record of a size
//! granted smaller than the size asked for ([`LoweredSize`], from which the consumer builds dtrace(1)'s notice,
//! D-REFERENCE.md §11.1).
//!
//! A perf ring's data area must be a power of two pages, so a requested ring size is
//! rounded down to one (and up to a single page when it is smaller than that). The
//! session asks for rings of twice `bufsize` rounded up ([`record_ring_size`]): each
//! record travels in a perf sample whose header and padding take up to as many bytes
//! again for records of 16 bytes or more, and the programs count `bufsize` themselves.

/// The data-area size of a perf ring for a requested per-CPU buffer size: the largest
/// power-of-two number of pages that fits in `requested` bytes, at least one page.
pub fn ring_data_size(requested: u64, page_size: u64) -> u64 {
    let page_size = page_size.max(1);
    let pages = (requested / page_size).max(1);
    let power_of_two_pages = 1u64 << (63 - pages.leading_zeros());
    power_of_two_pages.saturating_mul(page_size)
}

/// The data-area size of a perf ring that holds `bufsize` bytes of records of 16 bytes
/// or more, whatever their sample overhead: the smallest power-of-two number of pages
/// of at least twice `bufsize`.
pub fn record_ring_size(bufsize: u64, page_size: u64) -> u64 {
    let page_size = page_size.max(1);
    let pages = bufsize.saturating_mul(2).div_ceil(page_size).max(1);
    pages
        .checked_next_power_of_two()
        .unwrap_or(1 << 63)
        .saturating_mul(page_size)
}

/// The bytes of records a ring of `ring_size` data bytes surely holds (the inverse of
/// [`record_ring_size`]).
pub fn bytes_of_records_held(ring_size: u64) -> u64 {
    ring_size / 2
}

/// The largest `specsize` the programs can address: the kernel's verifier refuses
/// offsets of 512 MiB or more into a map value, and a speculation buffer's value also
/// holds its length word and room for the record being appended.
const LARGEST_SPECULATION_SIZE: u64 = (1 << 29) - (1 << 20);

/// The `specsize` granted for `requested`: halved until the programs can address it, as
/// DTrace's `bufresize=auto` halves a buffer until it can be allocated.
pub fn granted_speculation_size(requested: u64) -> u64 {
    let mut size = requested;
    while size > LARGEST_SPECULATION_SIZE {
        size /= 2;
    }
    size
}

/// A size option the engine granted smaller than it was asked for; the consumer tells
/// the user (dtrace(1)'s `… lowered to …` notice).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoweredSize {
    pub option: SizeOption,
    /// Bytes asked for.
    pub requested: u64,
    /// Bytes granted: less than `requested`.
    pub granted: u64,
}

/// The size options the kernel engine may lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeOption {
    /// `bufsize`: the per-CPU principal buffers.
    BufferSize,
    /// `specsize`: each speculation's per-CPU buffers.
    SpeculationSize,
}

impl LoweredSize {
    /// `option` lowered from `requested` to `granted` bytes, or None when it was not.
    pub fn new(option: SizeOption, requested: u64, granted: u64) -> Option<LoweredSize> {
        (granted < requested).then_some(LoweredSize {
            option,
            requested,
            granted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speculation_sizes_are_halved_until_addressable() {
        assert_eq!(granted_speculation_size(4 << 20), 4 << 20);
        assert_eq!(granted_speculation_size(256 << 20), 256 << 20);
        assert_eq!(granted_speculation_size(1 << 30), 256 << 20);
        assert_eq!(granted_speculation_size(600 << 20), 300 << 20);
    }

    #[test]
    fn ring_sizes_round_down_to_power_of_two_pages() {
        let cases = [
            (4 << 20, 4 << 20),
            (3 << 20, 2 << 20),
            (5000, 4096),
            (1, 4096),
            (0, 4096),
            (12288, 8192),
            ((4 << 20) + 1, 4 << 20),
        ];
        for (requested, expected) in cases {
            assert_eq!(ring_data_size(requested, 4096), expected, "{requested}");
        }
    }

    #[test]
    fn record_rings_hold_twice_bufsize_in_power_of_two_pages() {
        let cases = [
            (32, 4096),
            (2048, 4096),
            (2049, 8192),
            (16 << 10, 32 << 10),
            (3 << 20, 8 << 20),
            (4 << 20, 8 << 20),
            (0, 4096),
        ];
        for (bufsize, expected) in cases {
            assert_eq!(record_ring_size(bufsize, 4096), expected, "{bufsize}");
            assert!(bytes_of_records_held(expected) >= bufsize, "{bufsize}");
        }
    }
}
