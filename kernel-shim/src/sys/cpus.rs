//! CPU sets and topology from /sys/devices/system/cpu: the possible CPUs size per-CPU map
//! values, the online CPUs get one profile event each, and a CPU's physical package and
//! NUMA node are `curcpu->cpu_chip` and `curcpu->cpu_lgrp`.

use std::sync::OnceLock;

use super::error::SysError;

const POSSIBLE_PATH: &str = "/sys/devices/system/cpu/possible";
const ONLINE_PATH: &str = "/sys/devices/system/cpu/online";

/// Parses a kernel CPU list such as `0-3,5,7-8` into CPU numbers in ascending order.
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, String> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|part| !part.is_empty()) {
        let (first, last) = match part.split_once('-') {
            Some((first, last)) => (first, last),
            None => (part, part),
        };
        let first: u32 = first
            .parse()
            .map_err(|_| format!("bad CPU number {first:?} in {text:?}"))?;
        let last: u32 = last
            .parse()
            .map_err(|_| format!("bad CPU number {last:?} in {text:?}"))?;
        if last < first {
            return Err(format!("descending CPU range {part:?} in {text:?}"));
        }
        cpus.extend(first..=last);
    }
    cpus.sort_unstable();
    cpus.dedup();
    if cpus.is_empty() {
        return Err(format!("empty CPU list {text:?}"));
    }
    Ok(cpus)
}

fn read_cpu_list(path: &str) -> Result<Vec<u32>, SysError> {
    let attempted = || format!("reading the CPU list {path}");
    let text =
        std::fs::read_to_string(path).map_err(|error| SysError::from_io(attempted(), &error))?;
    parse_cpu_list(&text).map_err(|reason| SysError::invalid(attempted(), reason))
}

/// The CPUs that can ever be brought online.
pub fn possible_cpus() -> Result<Vec<u32>, SysError> {
    read_cpu_list(POSSIBLE_PATH)
}

/// The number of possible CPUs: per-CPU map values hold one slot per possible CPU. The
/// answer cannot change while the system runs, so it is read once.
pub fn possible_cpu_count() -> Result<usize, SysError> {
    static COUNT: OnceLock<Result<usize, SysError>> = OnceLock::new();
    COUNT
        .get_or_init(|| possible_cpus().map(|cpus| cpus.len()))
        .clone()
}

/// The CPUs online now.
pub fn online_cpus() -> Result<Vec<u32>, SysError> {
    read_cpu_list(ONLINE_PATH)
}

/// The physical package (socket) `cpu` is on, or 0 where sysfs does not say (a CPU
/// that is not present, a kernel without topology information).
pub fn physical_package_id(cpu: u32) -> u32 {
    std::fs::read_to_string(format!(
        "/sys/devices/system/cpu/cpu{cpu}/topology/physical_package_id"
    ))
    .ok()
    .and_then(|text| text.trim().parse().ok())
    .unwrap_or(0)
}

/// The NUMA node `cpu` belongs to (the `nodeN` link in its sysfs directory), or 0 on a
/// kernel without NUMA, as `bpf_get_numa_node_id()` answers there.
pub fn numa_node(cpu: u32) -> u32 {
    let Ok(entries) = std::fs::read_dir(format!("/sys/devices/system/cpu/cpu{cpu}")) else {
        return 0;
    };
    entries
        .filter_map(|entry| entry.ok())
        .find_map(|entry| {
            let name = entry.file_name();
            name.to_str()?.strip_prefix("node")?.parse().ok()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        let cases: &[(&str, Result<Vec<u32>, ()>)] = &[
            ("0-1\n", Ok(vec![0, 1])),
            ("0", Ok(vec![0])),
            ("0-3,5,7-8", Ok(vec![0, 1, 2, 3, 5, 7, 8])),
            ("2,0-1", Ok(vec![0, 1, 2])),
            ("", Err(())),
            ("3-1", Err(())),
            ("a-b", Err(())),
        ];
        for (text, expected) in cases {
            assert_eq!(&parse_cpu_list(text).map_err(|_| ()), expected, "{text:?}");
        }
    }

    #[test]
    fn this_machine_has_possible_cpus() {
        assert!(possible_cpu_count().expect("sysfs") >= 1);
        assert!(!online_cpus().expect("sysfs").is_empty());
    }

    #[test]
    fn cpu_zero_has_a_package_and_a_node() {
        // One-socket, one-node machines say 0 for both; the point is that reading works
        // and an absent CPU answers 0 rather than failing.
        assert!(physical_package_id(0) < 4096);
        assert!(numa_node(0) < 4096);
        assert_eq!(physical_package_id(u32::MAX), 0);
        assert_eq!(numa_node(u32::MAX), 0);
    }
}
