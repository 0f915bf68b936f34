//! The machine description printed above the table: CPUs, memory, kernel, CPU model and
//! the tracer versions, so that a pasted table says where it was measured.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::child_process::{MonitoredChild, WatchPlan};
use crate::load_generator::online_cpus;

/// The description, one `- name: value` line each.
pub fn describe_machine(dtrace: Option<&Path>, bpftrace: Option<&Path>) -> Vec<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory = memory_total_kib(&meminfo)
        .map(|kib| format!("{:.1} GiB", kib as f64 / (1024.0 * 1024.0)))
        .unwrap_or_else(|| "unknown".to_string());
    let mut lines = vec![
        format!("- CPUs (nproc): {}", online_cpus()),
        format!("- CPU model: {}", cpu_model(&cpuinfo).unwrap_or("unknown")),
        format!("- memory: {memory}"),
        format!(
            "- kernel: {}",
            kernel_release().unwrap_or_else(|| "unknown".to_string())
        ),
    ];
    if let Some(path) = dtrace {
        lines.push(format!("- dtrace: {}", path.display()));
    }
    if let Some(path) = bpftrace {
        let version = first_output_line(path, "--version").unwrap_or_default();
        lines.push(format!("- bpftrace: {} ({version})", path.display()));
    }
    lines
}

/// The `model name` of the first CPU in /proc/cpuinfo.
pub fn cpu_model(cpuinfo: &str) -> Option<&str> {
    cpuinfo
        .lines()
        .find(|line| line.starts_with("model name"))
        .and_then(|line| line.split_once(':'))
        .map(|(_, model)| model.trim())
}

/// `MemTotal` in KiB from /proc/meminfo.
pub fn memory_total_kib(meminfo: &str) -> Option<u64> {
    meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
}

fn kernel_release() -> Option<String> {
    // SAFETY: utsname is plain data that uname fills.
    let mut names: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to our stack.
    if unsafe { libc::uname(&mut names) } != 0 {
        return None;
    }
    let bytes: Vec<u8> = names
        .release
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The first line `program argument` prints, waiting at most 10 seconds.
fn first_output_line(program: &Path, argument: &str) -> Option<String> {
    let mut command = Command::new(program);
    command.arg(argument);
    let mut child = MonitoredChild::spawn(
        command,
        &WatchPlan {
            stdout_words: &[],
            stdout_keep: 4,
        },
    )
    .ok()?;
    child.wait_until(Instant::now() + Duration::from_secs(10))?;
    child
        .stdout
        .wait_closed(Instant::now() + Duration::from_secs(2));
    child.stdout.kept_text().lines().next().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_parse() {
        assert_eq!(
            cpu_model("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t: x\n"),
            Some("AMD EPYC")
        );
        assert_eq!(cpu_model(""), None);
        assert_eq!(
            memory_total_kib("MemTotal:       24684012 kB\nMemFree: 1 kB\n"),
            Some(24_684_012)
        );
        assert_eq!(memory_total_kib("MemFree: 1 kB\n"), None);
    }
}
