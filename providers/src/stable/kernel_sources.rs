//! What the stable providers read of the running kernel to know which probes it can
//! back: raw tracepoints and their argument counts (BTF's `btf_trace_EVENT`
//! prototypes), whether kprobes exist, and the address of the tick timer function.
//! Each is read once, on the first question.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kernel_shim::btf::{Btf, BtfNamespace};
use kernel_shim::kallsyms::kallsyms_lines;

use crate::btf_functions::VMLINUX_BTF_PATH;
use crate::kernel_symbols::KALLSYMS_PATH;
use crate::rawtp_provider::raw_tracepoint_argument_count;

/// The perf event source the kernel registers when it has kprobes.
const KPROBE_EVENT_SOURCE: &str = "/sys/bus/event_source/devices/kprobe";

/// The functions the kernel's tick hrtimer runs, newest name first (`tick_nohz_handler`
/// since 6.10, `tick_sched_timer` before).
const TICK_HANDLERS: &[&str] = &["tick_nohz_handler", "tick_sched_timer"];

/// The kernel facts the stable providers need, read lazily.
#[derive(Debug)]
pub struct KernelProbeSources {
    btf_path: PathBuf,
    kallsyms_path: PathBuf,
    kprobe_event_source: PathBuf,
    btf: OnceLock<Option<Btf>>,
    tick_handler: OnceLock<Option<u64>>,
}

impl KernelProbeSources {
    /// Sources read from the given files.
    pub fn new(
        btf_path: impl Into<PathBuf>,
        kallsyms_path: impl Into<PathBuf>,
        kprobe_event_source: impl Into<PathBuf>,
    ) -> KernelProbeSources {
        KernelProbeSources {
            btf_path: btf_path.into(),
            kallsyms_path: kallsyms_path.into(),
            kprobe_event_source: kprobe_event_source.into(),
            btf: OnceLock::new(),
            tick_handler: OnceLock::new(),
        }
    }

    /// This machine's BTF, kallsyms and kprobe event source.
    pub fn for_this_machine() -> KernelProbeSources {
        KernelProbeSources::new(VMLINUX_BTF_PATH, KALLSYMS_PATH, KPROBE_EVENT_SOURCE)
    }

    fn btf(&self) -> Option<&Btf> {
        self.btf
            .get_or_init(|| Btf::from_file(&self.btf_path.to_string_lossy()).ok())
            .as_ref()
    }

    /// The number of raw arguments of the raw tracepoint `event`; None when the kernel
    /// has no such tracepoint (or no BTF to say).
    pub fn raw_tracepoint_argument_count(&self, event: &str) -> Option<u8> {
        let btf = self.btf()?;
        let typedef = btf.named(BtfNamespace::Typedef, &format!("btf_trace_{event}"))?;
        raw_tracepoint_argument_count(btf, typedef)
    }

    /// Whether the kernel has kprobes (its perf event source exists).
    pub fn has_kprobes(&self) -> bool {
        Path::new(&self.kprobe_event_source).exists()
    }

    /// The address of the function the kernel's tick timer runs.
    pub fn tick_handler_address(&self) -> Option<u64> {
        *self.tick_handler.get_or_init(|| {
            let text = std::fs::read_to_string(&self.kallsyms_path).ok()?;
            TICK_HANDLERS.iter().find_map(|handler| {
                kallsyms_lines(&text)
                    .find(|line| line.module.is_none() && line.name == *handler)
                    .map(|line| line.address)
                    .filter(|&address| address != 0)
            })
        })
    }
}
