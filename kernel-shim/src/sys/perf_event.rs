//! perf events that carry BPF programs: tracepoints, uprobes/uretprobes (with USDT semaphore
//! reference counters), kprobes where the kernel has them, and cpu-clock sampling events;
//! plus the ioctls that attach, enable and disable them.
//!
//! Events are opened disabled; `attach` (a BPF link, then enable) or `set_bpf` + `enable`
//! start them. Closing the descriptors detaches.

use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::abi::*;
use super::error::SysError;
use super::link::{bpf_link_create_perf_event, LinkFd};
use super::program::ProgFd;
use super::syscall::perf_event_open;

/// An owned perf event descriptor.
#[derive(Debug)]
pub struct PerfEventFd {
    fd: OwnedFd,
    description: String,
}

const UPROBE_PMU_TYPE_PATH: &str = "/sys/bus/event_source/devices/uprobe/type";
const KPROBE_PMU_TYPE_PATH: &str = "/sys/bus/event_source/devices/kprobe/type";

/// `config` bit 0 of the kprobe and uprobe PMUs: a return probe.
const PROBE_CONFIG_RETURN: u64 = 1;
/// `config` bits 32–63 of the uprobe PMU: the reference counter (USDT semaphore) offset.
const UPROBE_REF_CTR_OFFSET_SHIFT: u32 = 32;

/// Opens the tracepoint with this tracefs id (`events/GROUP/NAME/id`). One event on CPU 0
/// for all processes is enough: an attached program runs on every CPU.
pub fn perf_event_open_tracepoint(tracepoint_id: u64) -> Result<PerfEventFd, SysError> {
    let mut attr = PerfEventAttr {
        event_type: PERF_TYPE_TRACEPOINT,
        config: tracepoint_id,
        sample_period_or_freq: 1,
        sample_type: PERF_SAMPLE_RAW,
        flags: PERF_ATTR_FLAG_DISABLED,
        wakeup_events: 1,
        ..PerfEventAttr::default()
    };
    let description = format!("of tracepoint id {tracepoint_id}");
    // SAFETY: no string pointers in this attribute.
    let fd = unsafe { perf_event_open(&mut attr, -1, 0, || description.clone())? };
    Ok(PerfEventFd { fd, description })
}

/// Where to place a uprobe.
#[derive(Clone, Debug)]
pub struct UprobeRequest<'a> {
    /// The ELF file (executable or shared library).
    pub path: &'a Path,
    /// The FILE offset of the probed instruction (not its virtual address).
    pub file_offset: u64,
    /// A uretprobe: fire when the function containing the offset returns.
    pub return_probe: bool,
    /// The file offset of a USDT semaphore the kernel increments while attached; 0 for none.
    pub reference_counter_offset: u64,
    /// Only this process; `None` for every process.
    pub pid: Option<i32>,
}

/// The PMU type number of uprobes.
pub fn uprobe_pmu_type() -> Result<u32, SysError> {
    read_pmu_type(UPROBE_PMU_TYPE_PATH)
}

/// The PMU type number of kprobes; absent where the kernel lacks `CONFIG_KPROBES`, which
/// is said in words a user of fbt understands.
pub fn kprobe_pmu_type() -> Result<u32, SysError> {
    read_pmu_type(KPROBE_PMU_TYPE_PATH).map_err(|error| match error.errno() {
        Some(libc::ENOENT) => SysError::invalid(
            "finding the kprobe PMU",
            "this kernel has no kprobes (it is built without CONFIG_KPROBES), \
             which fbt probes need",
        ),
        _ => error,
    })
}

fn read_pmu_type(path: &str) -> Result<u32, SysError> {
    let attempted = || format!("reading the PMU type {path}");
    let text =
        std::fs::read_to_string(path).map_err(|error| SysError::from_io(attempted(), &error))?;
    text.trim()
        .parse()
        .map_err(|_| SysError::invalid(attempted(), format!("not a number: {:?}", text.trim())))
}

/// Opens a uprobe or uretprobe.
pub fn perf_event_open_uprobe(request: &UprobeRequest<'_>) -> Result<PerfEventFd, SysError> {
    let kind = if request.return_probe {
        "uretprobe"
    } else {
        "uprobe"
    };
    let description = format!(
        "of {kind} {}:{:#x}{}",
        request.path.display(),
        request.file_offset,
        match request.pid {
            Some(pid) => format!(" in process {pid}"),
            None => String::new(),
        }
    );
    let pmu_type = uprobe_pmu_type()?;
    if request.reference_counter_offset >> 32 != 0 {
        return Err(SysError::invalid(
            format!("perf_event_open {description}"),
            "the semaphore offset does not fit 32 bits",
        ));
    }
    let path = CString::new(request.path.as_os_str().as_bytes()).map_err(|_| {
        SysError::invalid(
            format!("perf_event_open {description}"),
            "path contains NUL",
        )
    })?;
    let mut config = request.reference_counter_offset << UPROBE_REF_CTR_OFFSET_SHIFT;
    if request.return_probe {
        config |= PROBE_CONFIG_RETURN;
    }
    let mut attr = PerfEventAttr {
        event_type: pmu_type,
        config,
        config1: path.as_ptr() as u64,
        config2: request.file_offset,
        sample_period_or_freq: 1,
        flags: PERF_ATTR_FLAG_DISABLED,
        wakeup_events: 1,
        ..PerfEventAttr::default()
    };
    let (pid, cpu) = match request.pid {
        Some(pid) => (pid, -1),
        None => (-1, 0),
    };
    // SAFETY: `config1` points to `path`, NUL-terminated and alive until after the call.
    let fd = unsafe { perf_event_open(&mut attr, pid, cpu, || description.clone())? };
    Ok(PerfEventFd { fd, description })
}

/// Where to place a kprobe (kernels with `CONFIG_KPROBES`; not the development host).
#[derive(Clone, Debug)]
pub struct KprobeRequest<'a> {
    pub function: &'a str,
    /// Offset into the function; 0 for its entry.
    pub offset: u64,
    /// A kretprobe.
    pub return_probe: bool,
}

/// Opens a kprobe or kretprobe on one CPU for all processes.
pub fn perf_event_open_kprobe(request: &KprobeRequest<'_>) -> Result<PerfEventFd, SysError> {
    let kind = if request.return_probe {
        "kretprobe"
    } else {
        "kprobe"
    };
    let description = format!("of {kind} {}+{:#x}", request.function, request.offset);
    let pmu_type = kprobe_pmu_type()?;
    let function = CString::new(request.function).map_err(|_| {
        SysError::invalid(
            format!("perf_event_open {description}"),
            "function name contains NUL",
        )
    })?;
    let mut attr = PerfEventAttr {
        event_type: pmu_type,
        config: if request.return_probe {
            PROBE_CONFIG_RETURN
        } else {
            0
        },
        config1: function.as_ptr() as u64,
        config2: request.offset,
        sample_period_or_freq: 1,
        flags: PERF_ATTR_FLAG_DISABLED,
        wakeup_events: 1,
        ..PerfEventAttr::default()
    };
    // SAFETY: `config1` points to `function`, NUL-terminated and alive until after the call.
    let fd = unsafe { perf_event_open(&mut attr, -1, 0, || description.clone())? };
    Ok(PerfEventFd { fd, description })
}

/// How often a cpu-clock event fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuClockRate {
    /// About this many times a second (the kernel adapts the period): `profile-N`.
    FrequencyHz(u64),
    /// Exactly every this many nanoseconds of CPU clock: `tick-1s` is 1,000,000,000.
    PeriodNs(u64),
}

/// Opens a software cpu-clock sampling event on one CPU for all processes.
pub fn perf_event_open_cpu_clock(cpu: u32, rate: CpuClockRate) -> Result<PerfEventFd, SysError> {
    let (sample, frequency_flag, description) = match rate {
        CpuClockRate::FrequencyHz(hz) => (
            hz,
            PERF_ATTR_FLAG_FREQ,
            format!("of cpu-clock at {hz} Hz on CPU {cpu}"),
        ),
        CpuClockRate::PeriodNs(ns) => (ns, 0, format!("of cpu-clock every {ns} ns on CPU {cpu}")),
    };
    if sample == 0 {
        return Err(SysError::invalid(
            format!("perf_event_open {description}"),
            "the rate must not be zero",
        ));
    }
    let cpu_number = libc::c_int::try_from(cpu)
        .map_err(|_| SysError::invalid(format!("perf_event_open {description}"), "no such CPU"))?;
    let mut attr = PerfEventAttr {
        event_type: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_CPU_CLOCK,
        sample_period_or_freq: sample,
        flags: PERF_ATTR_FLAG_DISABLED | frequency_flag,
        ..PerfEventAttr::default()
    };
    // SAFETY: no string pointers in this attribute.
    let fd = unsafe { perf_event_open(&mut attr, -1, cpu_number, || description.clone())? };
    Ok(PerfEventFd { fd, description })
}

/// `PERF_COUNT_SW_BPF_OUTPUT`: the software event `bpf_perf_event_output` writes samples to.
const PERF_COUNT_SW_BPF_OUTPUT: u64 = 10;
/// `perf_event_attr` flag bit: wake readers by bytes (`wakeup_watermark`), not by events.
const PERF_ATTR_FLAG_WATERMARK: u64 = 1 << 14;

/// Opens an enabled `PERF_COUNT_SW_BPF_OUTPUT` event on one CPU for all processes: the
/// per-CPU ring a `BPF_MAP_TYPE_PERF_EVENT_ARRAY` slot points at. Readers polling the
/// descriptor are woken once `wakeup_watermark_bytes` of samples are waiting (at least
/// one byte, so that a poll never waits on an empty promise).
pub fn perf_event_open_bpf_output(
    cpu: u32,
    wakeup_watermark_bytes: u32,
) -> Result<PerfEventFd, SysError> {
    let description = format!("of bpf-output on CPU {cpu}");
    let cpu_number = libc::c_int::try_from(cpu)
        .map_err(|_| SysError::invalid(format!("perf_event_open {description}"), "no such CPU"))?;
    let mut attr = PerfEventAttr {
        event_type: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_BPF_OUTPUT,
        sample_period_or_freq: 1,
        sample_type: PERF_SAMPLE_RAW,
        flags: PERF_ATTR_FLAG_WATERMARK,
        wakeup_events: wakeup_watermark_bytes.max(1),
        ..PerfEventAttr::default()
    };
    // SAFETY: no string pointers in this attribute.
    let fd = unsafe { perf_event_open(&mut attr, -1, cpu_number, || description.clone())? };
    Ok(PerfEventFd { fd, description })
}

/// Opens an enabled `PERF_COUNT_SW_BPF_OUTPUT` event on one CPU whose ring the kernel
/// writes backward (`write_backward`). Mapped read-only, such a ring is overwritable: a
/// sample never fails for lack of room, it takes the place of the oldest ones, and the
/// newest sample always starts at `data_head` (the `ring` buffer policy). Nobody waits on
/// it while tracing, so its wakeup watermark is the largest the kernel allows (the whole
/// ring).
pub fn perf_event_open_bpf_output_overwritable(cpu: u32) -> Result<PerfEventFd, SysError> {
    let description = format!("of overwritable bpf-output on CPU {cpu}");
    let cpu_number = libc::c_int::try_from(cpu)
        .map_err(|_| SysError::invalid(format!("perf_event_open {description}"), "no such CPU"))?;
    let mut attr = PerfEventAttr {
        event_type: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_BPF_OUTPUT,
        sample_period_or_freq: 1,
        sample_type: PERF_SAMPLE_RAW,
        flags: PERF_ATTR_FLAG_WATERMARK | PERF_ATTR_FLAG_WRITE_BACKWARD,
        wakeup_events: u32::MAX,
        ..PerfEventAttr::default()
    };
    // SAFETY: no string pointers in this attribute.
    let fd = unsafe { perf_event_open(&mut attr, -1, cpu_number, || description.clone())? };
    Ok(PerfEventFd { fd, description })
}

impl PerfEventFd {
    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    /// Attaches `program` through a BPF link carrying `cookie` (read back in the program
    /// with `bpf_get_attach_cookie`), then enables the event. Dropping the link detaches.
    pub fn attach(&self, program: &ProgFd, cookie: u64) -> Result<LinkFd, SysError> {
        let link = bpf_link_create_perf_event(program, self.fd.as_fd(), cookie)?;
        self.enable()?;
        Ok(link)
    }

    /// Attaches `program` the older way (`PERF_EVENT_IOC_SET_BPF`); it stays attached until
    /// this event is closed. The event still needs `enable`.
    pub fn set_bpf(&self, program: &ProgFd) -> Result<(), SysError> {
        self.ioctl(
            PERF_EVENT_IOC_SET_BPF,
            program.raw_fd() as libc::c_ulong,
            "PERF_EVENT_IOC_SET_BPF",
        )
    }

    pub fn enable(&self) -> Result<(), SysError> {
        self.ioctl(PERF_EVENT_IOC_ENABLE, 0, "PERF_EVENT_IOC_ENABLE")
    }

    pub fn disable(&self) -> Result<(), SysError> {
        self.ioctl(PERF_EVENT_IOC_DISABLE, 0, "PERF_EVENT_IOC_DISABLE")
    }

    /// Stops (`true`) or restarts (`false`) the writing of samples into this event's
    /// ring; samples that arrive while it is paused are counted lost. A reader pauses an
    /// overwritable ring so that nothing overwrites the records it is copying.
    pub fn pause_output(&self, paused: bool) -> Result<(), SysError> {
        self.ioctl(
            PERF_EVENT_IOC_PAUSE_OUTPUT,
            libc::c_ulong::from(paused),
            "PERF_EVENT_IOC_PAUSE_OUTPUT",
        )
    }

    fn ioctl(
        &self,
        request: libc::c_ulong,
        argument: libc::c_ulong,
        name: &str,
    ) -> Result<(), SysError> {
        // SAFETY: perf event ioctls with integer arguments; the descriptor is ours.
        let result = unsafe { libc::ioctl(self.fd.as_raw_fd(), request, argument) };
        if result < 0 {
            Err(SysError::last_os_error(format!(
                "ioctl({name}) on perf event {}",
                self.description.trim_start_matches("of ")
            )))
        } else {
            Ok(())
        }
    }
}

impl AsFd for PerfEventFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}
