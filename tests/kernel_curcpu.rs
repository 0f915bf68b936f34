//! Live test of `curcpu` on the kernel engine: on every CPU a profile probe fires on,
//! `curcpu->cpu_id` is `cpu`, `cpu_chip` its physical package and `cpu_lgrp` its NUMA
//! node as /sys/devices/system/cpu says, and `cpu_pset` is 0.
//!
//! It traces the running machine, so it first checks that it may (root and a working
//! dtrace) and otherwise prints `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::LiveDtrace;

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

/// The physical package of `cpu`, as sysfs says (0 when it does not).
fn package_of(cpu: u32) -> u32 {
    std::fs::read_to_string(format!(
        "/sys/devices/system/cpu/cpu{cpu}/topology/physical_package_id"
    ))
    .ok()
    .and_then(|text| text.trim().parse().ok())
    .unwrap_or(0)
}

/// The NUMA node of `cpu`: the `nodeN` entry of its sysfs directory (0 without NUMA).
fn node_of(cpu: u32) -> u32 {
    std::fs::read_dir(format!("/sys/devices/system/cpu/cpu{cpu}"))
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok())
        .find_map(|entry| {
            let name = entry.file_name();
            name.to_str()?.strip_prefix("node")?.parse().ok()
        })
        .unwrap_or(0)
}

#[test]
fn curcpu_describes_the_cpu_each_profile_probe_fires_on() {
    if DTRACE.must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        r#"profile-97
           {
               this->c = curcpu;
               @[this->c->cpu_id == cpu, this->c->cpu_id, this->c->cpu_pset,
                 this->c->cpu_chip, this->c->cpu_lgrp] = count();
           }
           tick-1s { exit(0); }
           END { printa("%d %d %d %d %d\n", @); }"#,
    ]);
    assert_eq!(
        outcome.status,
        Some(0),
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
    let rows: Vec<Vec<u32>> = outcome
        .stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            line.split_whitespace()
                .map(|word| word.parse().expect("numbers"))
                .collect()
        })
        .collect();
    assert!(!rows.is_empty(), "no firings: {}", outcome.stderr);
    for row in &rows {
        let cpu = row[1];
        assert_eq!(
            row[..],
            [1, cpu, 0, package_of(cpu), node_of(cpu)],
            "stdout: {}",
            outcome.stdout
        );
    }
}
