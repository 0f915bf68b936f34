//! Attaching a loaded probe program where its probe lives. Every attachment is held by
//! descriptors (perf events and BPF links): dropping an `Attachment`, or the death of the
//! process, detaches everything, so a killed dtrace leaves nothing behind.

use std::path::PathBuf;

use super::error::RuntimeError;
use crate::ebpf::insn::Insn;
use crate::sys::{
    bpf_link_create_uprobe_multi, bpf_prog_load, AttachType, ProgramLoadRequest, UprobeMultiRequest,
};
use crate::sys::{
    bpf_raw_tracepoint_open, online_cpus, perf_event_open_cpu_clock, perf_event_open_kprobe,
    perf_event_open_tracepoint, perf_event_open_uprobe, tracepoint_id, CpuClockRate, KprobeRequest,
    LinkFd, PerfEventFd, ProgFd, ProgramType, SysError, UprobeRequest,
};

/// Which CPUs a cpu-clock probe samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockCpus {
    /// One event on every online CPU (`profile-N`).
    Every,
    /// One event on the first online CPU (`tick-N`).
    One,
    /// One event on this CPU (`tick-N` and `profile-N` under `-x cpu`, which traces
    /// only there).
    Only(u32),
}

impl AttachTarget {
    /// This target as it is attached when only `cpu` is traced (`-x cpu`): cpu-clock
    /// events go on that CPU alone; other targets are unchanged (their programs do
    /// nothing on other CPUs).
    pub fn for_only_cpu(&self, cpu: Option<u32>) -> AttachTarget {
        match (self, cpu) {
            (AttachTarget::CpuClock { rate, .. }, Some(cpu)) => AttachTarget::CpuClock {
                rate: *rate,
                cpus: ClockCpus::Only(cpu),
            },
            _ => self.clone(),
        }
    }
}

/// Where a probe program is attached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttachTarget {
    /// A kernel tracepoint `events/GROUP/EVENT` (program type `Tracepoint`).
    Tracepoint { group: String, event: String },
    /// A raw tracepoint such as `sys_enter`/`sys_exit`, which the syscall provider uses
    /// for every syscall at once (program type `RawTracepoint`).
    RawTracepoint { name: String },
    /// cpu-clock sampling (program type `PerfEvent`).
    CpuClock { rate: CpuClockRate, cpus: ClockCpus },
    /// A uprobe or uretprobe at a file offset (program type `Kprobe`); a USDT site gives
    /// its semaphore's file offset. The program reads `cookie` with
    /// `bpf_get_attach_cookie` (a pid return probe's `ret` offset).
    Uprobe {
        path: PathBuf,
        file_offset: u64,
        return_probe: bool,
        semaphore_offset: Option<u64>,
        pid: Option<i32>,
        cookie: u64,
    },
    /// A kprobe or kretprobe on a kernel function (program type `Kprobe`); only kernels
    /// with `CONFIG_KPROBES`.
    Kprobe {
        function: String,
        return_probe: bool,
    },
}

impl AttachTarget {
    /// The program type the kernel requires for this attachment.
    pub fn program_type(&self) -> ProgramType {
        match self {
            AttachTarget::Tracepoint { .. } => ProgramType::Tracepoint,
            AttachTarget::RawTracepoint { .. } => ProgramType::RawTracepoint,
            AttachTarget::CpuClock { .. } => ProgramType::PerfEvent,
            AttachTarget::Uprobe { .. } | AttachTarget::Kprobe { .. } => ProgramType::Kprobe,
        }
    }

    /// A short description for messages (`tracepoint syscalls:sys_enter_read`).
    pub fn describe(&self) -> String {
        match self {
            AttachTarget::Tracepoint { group, event } => format!("tracepoint {group}:{event}"),
            AttachTarget::RawTracepoint { name } => format!("raw tracepoint {name}"),
            AttachTarget::CpuClock { rate, cpus } => {
                let rate = match rate {
                    CpuClockRate::FrequencyHz(hz) => format!("{hz} Hz"),
                    CpuClockRate::PeriodNs(ns) => format!("every {ns} ns"),
                };
                match cpus {
                    ClockCpus::Every => format!("cpu-clock {rate} on every CPU"),
                    ClockCpus::One => format!("cpu-clock {rate} on one CPU"),
                    ClockCpus::Only(cpu) => format!("cpu-clock {rate} on CPU {cpu}"),
                }
            }
            AttachTarget::Uprobe {
                path,
                file_offset,
                return_probe,
                ..
            } => format!(
                "{} {}:{file_offset:#x}",
                if *return_probe { "uretprobe" } else { "uprobe" },
                path.display()
            ),
            AttachTarget::Kprobe {
                function,
                return_probe,
            } => format!(
                "{} {function}",
                if *return_probe { "kretprobe" } else { "kprobe" }
            ),
        }
    }
}

/// The descriptors that keep one program attached to one target; dropping it detaches.
#[derive(Debug)]
pub struct Attachment {
    /// Links first: they are closed before the events they point at.
    links: Vec<LinkFd>,
    events: Vec<PerfEventFd>,
}

impl Attachment {
    /// The number of kernel attachments (one per CPU for `profile-N`).
    pub fn attachment_count(&self) -> usize {
        self.links.len()
    }

    /// Combines the attachments of several targets into one.
    pub fn merge(&mut self, other: Attachment) {
        self.links.extend(other.links);
        self.events.extend(other.events);
    }

    fn empty() -> Attachment {
        Attachment {
            links: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Attaches `program` to `event` through a BPF link carrying `cookie`, or, on a
    /// kernel without perf-event links, with `PERF_EVENT_IOC_SET_BPF`.
    fn add_perf_event(
        &mut self,
        program: &ProgFd,
        event: PerfEventFd,
        cookie: u64,
    ) -> Result<(), SysError> {
        match event.attach(program, cookie) {
            Ok(link) => self.links.push(link),
            Err(error) if error.errno() == Some(libc::EINVAL) && cookie == 0 => {
                event.set_bpf(program)?;
                event.enable()?;
            }
            Err(error) => return Err(error),
        }
        self.events.push(event);
        Ok(())
    }
}

/// Attaches `program` (of `target.program_type()`) to `target`. `cookie` is readable in
/// the program with `bpf_get_attach_cookie` for perf-event attachments.
pub fn attach(
    program: &ProgFd,
    target: &AttachTarget,
    cookie: u64,
) -> Result<Attachment, RuntimeError> {
    if program.program_type() != target.program_type() {
        return Err(RuntimeError::invalid(
            format!("attaching to {}", target.describe()),
            format!(
                "a {} program cannot attach there; it needs a {} program",
                program.program_type(),
                target.program_type()
            ),
        ));
    }
    let mut attachment = Attachment::empty();
    match target {
        AttachTarget::Tracepoint { group, event } => {
            let id = tracepoint_id(group, event)?;
            attachment.add_perf_event(program, perf_event_open_tracepoint(id)?, cookie)?;
        }
        AttachTarget::RawTracepoint { name } => {
            attachment
                .links
                .push(bpf_raw_tracepoint_open(name, program)?);
        }
        AttachTarget::CpuClock { rate, cpus } => {
            let online = online_cpus()?;
            let chosen = match cpus {
                ClockCpus::Every => online,
                ClockCpus::One => online.into_iter().take(1).collect(),
                ClockCpus::Only(cpu) => vec![*cpu],
            };
            for cpu in chosen {
                attachment.add_perf_event(
                    program,
                    perf_event_open_cpu_clock(cpu, *rate)?,
                    cookie,
                )?;
            }
        }
        AttachTarget::Uprobe {
            path,
            file_offset,
            return_probe,
            semaphore_offset,
            pid,
            cookie: target_cookie,
        } => {
            let event = perf_event_open_uprobe(&UprobeRequest {
                path,
                file_offset: *file_offset,
                return_probe: *return_probe,
                reference_counter_offset: semaphore_offset.unwrap_or(0),
                pid: *pid,
            })?;
            // The target's own cookie (a pid return probe's `ret` offset) wins.
            let cookie = if *target_cookie != 0 {
                *target_cookie
            } else {
                cookie
            };
            attachment.add_perf_event(program, event, cookie)?;
        }
        AttachTarget::Kprobe {
            function,
            return_probe,
        } => {
            let event = perf_event_open_kprobe(&KprobeRequest {
                function,
                offset: 0,
                return_probe: *return_probe,
            })?;
            attachment.add_perf_event(program, event, cookie)?;
        }
    }
    Ok(attachment)
}

/// Uprobe targets that one uprobe multi-link can attach: the same file, direction and
/// process, several offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UprobeGroup {
    pub path: PathBuf,
    pub offsets: Vec<u64>,
    /// The USDT semaphores' offsets (0 for none), when some target has one.
    pub reference_counter_offsets: Option<Vec<u64>>,
    pub return_probe: bool,
    pub pid: Option<i32>,
    /// Each uprobe's cookie, when some target has one.
    pub cookies: Option<Vec<u64>>,
}

impl UprobeGroup {
    /// The group of `targets` when they are all uprobes that one link can attach.
    pub fn of(targets: &[AttachTarget]) -> Option<UprobeGroup> {
        let mut group: Option<UprobeGroup> = None;
        let mut counters = Vec::new();
        let mut cookies = Vec::new();
        for target in targets {
            let AttachTarget::Uprobe {
                path,
                file_offset,
                return_probe,
                semaphore_offset,
                pid,
                cookie,
            } = target
            else {
                return None;
            };
            match &mut group {
                None => {
                    group = Some(UprobeGroup {
                        path: path.clone(),
                        offsets: vec![*file_offset],
                        reference_counter_offsets: None,
                        return_probe: *return_probe,
                        pid: *pid,
                        cookies: None,
                    })
                }
                Some(group) => {
                    if group.path != *path
                        || group.return_probe != *return_probe
                        || group.pid != *pid
                    {
                        return None;
                    }
                    group.offsets.push(*file_offset);
                }
            }
            counters.push(semaphore_offset.unwrap_or(0));
            cookies.push(*cookie);
        }
        let mut group = group?;
        if counters.iter().any(|&counter| counter != 0) {
            group.reference_counter_offsets = Some(counters);
        }
        if cookies.iter().any(|&cookie| cookie != 0) {
            group.cookies = Some(cookies);
        }
        Some(group)
    }
}

/// Whether this kernel attaches uprobe multi-links (Linux 6.6 and later), found once by
/// attaching an empty program to `uprobe_multi_probe_site` of this process that way.
pub fn uprobe_multi_links_work() -> bool {
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORKS.get_or_init(|| {
        let instructions = [Insn::mov64_imm(crate::ebpf::insn::Reg::R0, 0), Insn::exit()];
        let mut request = ProgramLoadRequest::new(ProgramType::Kprobe, &instructions);
        request.expected_attach_type = Some(AttachType::TraceUprobeMulti);
        request.name = "dtrace_probe_um";
        let Ok(program) = bpf_prog_load(&request) else {
            return false;
        };
        let site: extern "C" fn() = uprobe_multi_probe_site;
        let Some(file_offset) = file_offset_in_this_process(site as usize as u64) else {
            return false;
        };
        // SAFETY: getpid has no preconditions.
        let pid = unsafe { libc::getpid() };
        bpf_link_create_uprobe_multi(
            &program,
            &UprobeMultiRequest {
                path: std::path::Path::new(SELF_EXECUTABLE),
                offsets: &[file_offset],
                reference_counter_offsets: None,
                cookies: None,
                return_probe: false,
                pid: Some(pid),
            },
        )
        .is_ok()
    })
}

/// The path given to the kernel for the running binary: the magic link resolves to the
/// very file this process executes even if it has since been replaced or deleted.
const SELF_EXECUTABLE: &str = "/proc/self/exe";

/// A function of our own binary that `uprobe_multi_links_work` places its trial uprobe
/// on; it is never called.
#[no_mangle]
#[inline(never)]
extern "C" fn uprobe_multi_probe_site() {
    std::hint::black_box(0xA7u8);
}

/// The file offset in the running binary of the code at `address`, from the mapping of
/// `/proc/self/maps` that holds it (a few kilobytes to read, where the symbol table would
/// mean parsing the whole executable, and it works for a stripped binary as well).
fn file_offset_in_this_process(address: u64) -> Option<u64> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (start, end) = fields.next()?.split_once('-')?;
        let _permissions = fields.next()?;
        let offset = u64::from_str_radix(fields.next()?, 16).ok()?;
        let start = u64::from_str_radix(start, 16).ok()?;
        let end = u64::from_str_radix(end, 16).ok()?;
        (address >= start && address < end).then(|| address - start + offset)
    })
}

/// Attaches `program`, loaded with the `TraceUprobeMulti` attach type, to every uprobe
/// of `group` through one link.
pub fn attach_uprobe_group(
    program: &ProgFd,
    group: &UprobeGroup,
) -> Result<Attachment, RuntimeError> {
    let link = bpf_link_create_uprobe_multi(
        program,
        &UprobeMultiRequest {
            path: &group.path,
            offsets: &group.offsets,
            reference_counter_offsets: group.reference_counter_offsets.as_deref(),
            cookies: group.cookies.as_deref(),
            return_probe: group.return_probe,
            pid: group.pid,
        },
    )?;
    let mut attachment = Attachment::empty();
    attachment.links.push(link);
    Ok(attachment)
}

/// Drops `attachments`, on several threads when there are many. Closing a uprobe
/// multi-link waits for the kernel's grace periods, and waits that overlap share them:
/// the probes of every instruction of a few functions, or a library's entry probes,
/// detach in a fraction of the time one after another would take.
pub fn detach_all(attachments: Vec<Attachment>) {
    /// Threads closing at once; more would only add threads waiting for the same
    /// grace periods.
    const THREADS: usize = 32;
    if attachments.len() < 2 {
        return;
    }
    let per_thread = attachments.len().div_ceil(THREADS);
    let mut remaining = attachments;
    std::thread::scope(|scope| {
        while !remaining.is_empty() {
            let rest = remaining.split_off(remaining.len().min(per_thread));
            let chunk = std::mem::replace(&mut remaining, rest);
            // When a thread cannot be started, its closure, and so the chunk, is
            // dropped (closed) here instead.
            let _ = std::thread::Builder::new().spawn_scoped(scope, move || drop(chunk));
        }
    });
}
