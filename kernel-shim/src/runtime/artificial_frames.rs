//! Where the tracing machinery of each probe lives in kernel text, so that its programs
//! can leave the machinery's frames out of kernel stacks (see
//! `translate::artificial_frames` for why this is decided at every capture rather than
//! by a fixed count). The machinery functions are named after the probe's tracepoint;
//! their addresses come from `/proc/kallsyms`, each function extending to the next symbol
//! that is not another function's padding.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::attach::AttachTarget;
use super::probe_plan::ProbeInstrumentation;
use crate::kallsyms::kallsyms_lines;
pub use crate::kallsyms::KALLSYMS_PATH;
use crate::translate::{ArtificialFrames, ContextKind, KernelTextRange};

/// The text ranges of the kernel functions a session asked for, by name (a static
/// function's name may belong to several functions).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MachineryText {
    functions: BTreeMap<String, Vec<KernelTextRange>>,
}

impl MachineryText {
    /// Reads the functions named in `wanted` from the kallsyms file at `path`. Addresses
    /// that read as 0 (kallsyms hides them from the unprivileged) give no ranges.
    pub fn read(path: &Path, wanted: &BTreeSet<String>) -> std::io::Result<MachineryText> {
        Ok(MachineryText::parse(
            &std::fs::read_to_string(path)?,
            wanted,
        ))
    }

    /// The functions named in `wanted` in the kallsyms listing `text`.
    pub fn parse(text: &str, wanted: &BTreeSet<String>) -> MachineryText {
        // Every symbol's address bounds the function before it, except the padding
        // that CFI and patchable entries put in front of a function (`__pfx_`,
        // `__cfi_`), which belongs to no return address.
        let mut boundaries = Vec::new();
        let mut starts: Vec<(String, u64)> = Vec::new();
        for line in kallsyms_lines(text) {
            if line.address == 0 || line.is_function_padding() {
                continue;
            }
            boundaries.push(line.address);
            if line.is_text() && wanted.contains(line.name) {
                starts.push((line.name.to_string(), line.address));
            }
        }
        boundaries.sort_unstable();
        boundaries.dedup();
        let mut functions: BTreeMap<String, Vec<KernelTextRange>> = BTreeMap::new();
        for (name, start) in starts {
            let next = boundaries.partition_point(|&boundary| boundary <= start);
            if let Some(&end) = boundaries.get(next) {
                functions
                    .entry(name)
                    .or_default()
                    .push(KernelTextRange { start, end });
            }
        }
        MachineryText { functions }
    }

    /// The ranges of function `name` (none when it is not in the table).
    pub fn ranges(&self, name: &str) -> &[KernelTextRange] {
        self.functions.get(name).map_or(&[], Vec::as_slice)
    }
}

/// The machinery functions that may stand between `instrumentation`'s probe site and its
/// program on a kernel stack (none for probes whose stacks start at the probe site).
pub fn machinery_functions(instrumentation: &ProbeInstrumentation) -> Vec<String> {
    let raw_tracepoint = |event: &str, argument_counts: std::ops::RangeInclusive<u8>| {
        let mut names: Vec<String> = argument_counts
            .map(|count| format!("bpf_trace_run{count}"))
            .collect();
        names.push(format!("__bpf_trace_{event}"));
        names.push(format!("__traceiter_{event}"));
        names
    };
    match instrumentation {
        ProbeInstrumentation::Marker(_) => Vec::new(),
        // Both raw tracepoints pass two arguments (the registers and the number or the
        // return value) to their programs.
        ProbeInstrumentation::Syscall { is_return, .. } => {
            raw_tracepoint(if *is_return { "sys_exit" } else { "sys_enter" }, 2..=2)
        }
        ProbeInstrumentation::Targets { context, targets } => {
            let mut names = Vec::new();
            for target in targets {
                match target {
                    AttachTarget::RawTracepoint { name } => {
                        // The number of arguments the tracepoint passes is not known
                        // here: every `bpf_trace_runN` may be the one.
                        names.extend(raw_tracepoint(name, 1..=12));
                    }
                    AttachTarget::Tracepoint { group, event } => {
                        names.push(format!("__traceiter_{event}"));
                        // The syscalls group's events are not tracepoints of their own
                        // but callbacks on `sys_enter` and `sys_exit`.
                        let direction = if event.starts_with("sys_enter_") {
                            Some("enter")
                        } else if event.starts_with("sys_exit_") {
                            Some("exit")
                        } else {
                            None
                        };
                        if let (true, Some(direction)) = (group == "syscalls", direction) {
                            names.push(format!("perf_syscall_{direction}"));
                            names.push(format!("perf_call_bpf_{direction}"));
                            names.push(format!("__traceiter_sys_{direction}"));
                        }
                    }
                    _ => {}
                }
            }
            if !matches!(
                context,
                ContextKind::RawTracepoint { .. } | ContextKind::Tracepoint { .. }
            ) {
                names.clear();
            }
            names.sort();
            names.dedup();
            names
        }
    }
}

/// How the programs of `instrumentation` find their artificial frames: the fixed counts
/// of its context, and the ranges of its machinery functions found in `text`.
pub fn artificial_frames(
    instrumentation: &ProbeInstrumentation,
    context: &ContextKind,
    text: Option<&MachineryText>,
) -> ArtificialFrames {
    let mut frames = ArtificialFrames::structural(context);
    if let Some(text) = text {
        let mut ranges: Vec<KernelTextRange> = machinery_functions(instrumentation)
            .iter()
            .flat_map(|name| text.ranges(name).iter().copied())
            .collect();
        ranges.sort_unstable();
        ranges.dedup();
        frames.ranges = ranges;
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = "\
ffffffff814152d0 T __pfx___traceiter_sys_enter
ffffffff814152e0 T __traceiter_sys_enter
ffffffff81415330 T __pfx___probestub_sys_enter
ffffffff81415340 T __probestub_sys_enter
ffffffff81415670 t __pfx___bpf_trace_sys_enter
ffffffff81415680 t __bpf_trace_sys_enter
ffffffff81415690 d some_data
ffffffff814b8320 T __pfx_bpf_trace_run2
ffffffff814b8330 T bpf_trace_run2
ffffffff814b8500 T __pfx_bpf_trace_run3
ffffffff814b8510 T bpf_trace_run3
0000000000000000 T hidden_function
";

    fn wanted(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn functions_end_where_the_next_function_or_its_padding_begins() {
        let text = MachineryText::parse(
            LISTING,
            &wanted(&[
                "__traceiter_sys_enter",
                "__bpf_trace_sys_enter",
                "bpf_trace_run2",
                "bpf_trace_run3",
                "hidden_function",
            ]),
        );
        let range = |start, end| vec![KernelTextRange { start, end }];
        assert_eq!(
            text.ranges("__traceiter_sys_enter"),
            range(0xffffffff814152e0, 0xffffffff81415340)
        );
        assert_eq!(
            text.ranges("__bpf_trace_sys_enter"),
            range(0xffffffff81415680, 0xffffffff81415690)
        );
        assert_eq!(
            text.ranges("bpf_trace_run2"),
            range(0xffffffff814b8330, 0xffffffff814b8510)
        );
        // The last symbol has no end, and hidden addresses give nothing.
        assert!(text.ranges("bpf_trace_run3").is_empty());
        assert!(text.ranges("hidden_function").is_empty());
    }

    #[test]
    fn each_kind_of_probe_names_its_machinery() {
        let syscall = ProbeInstrumentation::Syscall {
            number: 110,
            is_return: false,
        };
        assert_eq!(
            machinery_functions(&syscall),
            [
                "bpf_trace_run2",
                "__bpf_trace_sys_enter",
                "__traceiter_sys_enter"
            ]
        );
        let tracepoint = |group: &str, event: &str| ProbeInstrumentation::Targets {
            context: ContextKind::Tracepoint { fields: Vec::new() },
            targets: vec![AttachTarget::Tracepoint {
                group: group.to_string(),
                event: event.to_string(),
            }],
        };
        assert_eq!(
            machinery_functions(&tracepoint("sched", "sched_process_fork")),
            ["__traceiter_sched_process_fork"]
        );
        assert_eq!(
            machinery_functions(&tracepoint("syscalls", "sys_exit_read")),
            [
                "__traceiter_sys_exit",
                "__traceiter_sys_exit_read",
                "perf_call_bpf_exit",
                "perf_syscall_exit"
            ]
        );
        let profile = ProbeInstrumentation::Targets {
            context: ContextKind::PerfEvent,
            targets: Vec::new(),
        };
        assert!(machinery_functions(&profile).is_empty());
        assert!(machinery_functions(&ProbeInstrumentation::Marker(
            super::super::markers::Marker::Begin
        ))
        .is_empty());
    }

    #[test]
    fn artificial_frames_carry_the_ranges_of_the_probe_and_the_fixed_counts() {
        let syscall = ProbeInstrumentation::Syscall {
            number: 110,
            is_return: false,
        };
        let context = ContextKind::SyscallEntry { syscall: Some(110) };
        let text = MachineryText::parse(
            LISTING,
            &wanted(&["__traceiter_sys_enter", "bpf_trace_run2"]),
        );
        let frames = artificial_frames(&syscall, &context, Some(&text));
        assert_eq!(frames.fixed, 3);
        assert!(frames.starts_in_program);
        assert_eq!(
            frames.ranges,
            [
                KernelTextRange {
                    start: 0xffffffff814152e0,
                    end: 0xffffffff81415340
                },
                KernelTextRange {
                    start: 0xffffffff814b8330,
                    end: 0xffffffff814b8510
                }
            ]
        );
        assert_eq!(
            artificial_frames(&syscall, &context, None),
            ArtificialFrames::structural(&context)
        );
    }
}
