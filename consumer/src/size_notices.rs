//! dtrace(1)'s notices about size options an engine granted smaller than asked for
//! (`buffer size lowered to 2m`, D-REFERENCE.md §11.1), built from what the engine
//! reports.

use kernel_shim::runtime::{LoweredSize, SizeOption};

/// The notice for a size the kernel engine lowered (see [`lowered_size_notice`]).
pub fn kernel_lowered_size_notice(lowered: &LoweredSize) -> Option<String> {
    let name = match lowered.option {
        SizeOption::BufferSize => "buffer size",
        SizeOption::SpeculationSize => "speculation size",
    };
    lowered_size_notice(name, lowered.requested, lowered.granted)
}

/// dtrace(1)'s notice for an option whose size an engine lowered, without the `dtrace: `
/// prefix: `buffer size lowered to 2m` when the new size is a whole number of the largest
/// unit (` kmgtpe`) not above it, else `buffer size lowered to 12345 bytes`. `name` is
/// `buffer size`, `aggregation size`, `speculation size` or `dynamic variable size`.
/// None when the size was not lowered (dtrace(1) also keeps quiet when the new size is
/// within 8 bytes of the old one).
pub fn lowered_size_notice(name: &str, requested: u64, granted: u64) -> Option<String> {
    if granted == 0 || granted >= requested.saturating_sub(8) {
        return None;
    }
    let mut unit_index = 0usize;
    let mut shift = 10u32;
    while shift < 64 && (1u64 << shift) <= granted {
        unit_index += 1;
        shift += 10;
    }
    let unit_shift = shift - 10;
    let units = b" kmgtpe";
    if granted & ((1u64 << unit_shift) - 1) == 0 {
        let unit = units.get(unit_index).copied().unwrap_or(b'e') as char;
        Some(format!("{name} lowered to {}{unit}", granted >> unit_shift))
    } else {
        Some(format!("{name} lowered to {granted} bytes"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_match_dtrace() {
        let cases: &[(u64, u64, Option<&str>)] = &[
            (4 << 20, 4 << 20, None),
            (3 << 20, 2 << 20, Some("buffer size lowered to 2m")),
            (5000, 4096, Some("buffer size lowered to 4k")),
            (1 << 20, 12288, Some("buffer size lowered to 12k")),
            (1 << 20, 12289, Some("buffer size lowered to 12289 bytes")),
            (1 << 20, 512, Some("buffer size lowered to 512 ")),
            (8 << 30, 1 << 30, Some("buffer size lowered to 1g")),
            (4104, 4096, None),
            (4105, 4096, Some("buffer size lowered to 4k")),
            (1 << 20, 0, None),
        ];
        for (requested, granted, expected) in cases {
            assert_eq!(
                lowered_size_notice("buffer size", *requested, *granted).as_deref(),
                *expected,
                "{requested} → {granted}"
            );
        }
    }
}
