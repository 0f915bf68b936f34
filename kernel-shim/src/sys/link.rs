//! BPF links: the attachment of a program to a perf event, raw tracepoint or BTF target.
//! Closing the link's descriptor detaches the program, so a killed consumer leaves nothing
//! attached.

use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use super::abi::{
    LinkCreateAttr, RawTracepointOpenAttr, UprobeMultiLinkCreateAttr, BPF_LINK_CREATE,
    BPF_RAW_TRACEPOINT_OPEN,
};
use super::error::SysError;
use super::program::{AttachType, ProgFd};
use super::syscall::bpf_fd;

/// An owned BPF link descriptor; dropping it detaches the program.
#[derive(Debug)]
pub struct LinkFd {
    fd: OwnedFd,
}

impl LinkFd {
    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }
}

impl AsFd for LinkFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Attaches `program` to `target` (for `AttachType::PerfEvent`, a perf event descriptor)
/// with no cookie.
pub fn bpf_link_create(
    program: &ProgFd,
    target: BorrowedFd<'_>,
    attach_type: AttachType,
) -> Result<LinkFd, SysError> {
    link_create(program, target.as_raw_fd() as u32, attach_type, 0)
}

/// Attaches `program` to a perf event with a cookie the program reads back with
/// `bpf_get_attach_cookie`, so that one program can serve many probes.
pub fn bpf_link_create_perf_event(
    program: &ProgFd,
    perf_event: BorrowedFd<'_>,
    cookie: u64,
) -> Result<LinkFd, SysError> {
    link_create(
        program,
        perf_event.as_raw_fd() as u32,
        AttachType::PerfEvent,
        cookie,
    )
}

/// What a `BPF_TRACE_UPROBE_MULTI` link attaches: uprobes (or uretprobes) at `offsets`
/// of the file `path`, with `reference_counter_offsets` (USDT semaphores, 0 for none)
/// and cookies when given, for process `pid` only or for every process.
#[derive(Debug)]
pub struct UprobeMultiRequest<'a> {
    pub path: &'a std::path::Path,
    pub offsets: &'a [u64],
    pub reference_counter_offsets: Option<&'a [u64]>,
    /// Each uprobe's `bpf_get_attach_cookie` value, when given.
    pub cookies: Option<&'a [u64]>,
    pub return_probe: bool,
    pub pid: Option<i32>,
}

/// Attaches `program` (loaded with the `TraceUprobeMulti` attach type) to every uprobe
/// of `request` through one link. Closing such a link waits for the kernel's grace
/// periods once for all its uprobes, and without the trace-event lock that serializes
/// closing perf-event uprobes, so many of them detach quickly.
pub fn bpf_link_create_uprobe_multi(
    program: &ProgFd,
    request: &UprobeMultiRequest<'_>,
) -> Result<LinkFd, SysError> {
    use std::os::unix::ffi::OsStrExt;
    let path = CString::new(request.path.as_os_str().as_bytes())
        .map_err(|_| SysError::invalid("attaching uprobes", "the path contains a NUL byte"))?;
    for per_uprobe in [request.reference_counter_offsets, request.cookies]
        .into_iter()
        .flatten()
    {
        if per_uprobe.len() != request.offsets.len() {
            return Err(SysError::invalid(
                "attaching uprobes",
                "one reference counter offset and cookie per uprobe offset is needed",
            ));
        }
    }
    let mut attr = UprobeMultiLinkCreateAttr {
        prog_fd: program.raw_fd() as u32,
        attach_type: AttachType::TraceUprobeMulti.number(),
        path: path.as_ptr() as u64,
        offsets: request.offsets.as_ptr() as u64,
        ref_ctr_offsets: request
            .reference_counter_offsets
            .map_or(0, |counters| counters.as_ptr() as u64),
        cookies: request.cookies.map_or(0, |cookies| cookies.as_ptr() as u64),
        cnt: request.offsets.len() as u32,
        multi_flags: u32::from(request.return_probe),
        pid: request.pid.map_or(0, |pid| pid as u32),
        ..UprobeMultiLinkCreateAttr::default()
    };
    // SAFETY: the pointers are to `path`, `request.offsets`, the counters and the
    // cookies, which outlive the call, and `cnt` is the length of every array.
    let fd = unsafe {
        bpf_fd(BPF_LINK_CREATE, &mut attr, || {
            format!(
                "attaching {} uprobes of {} as one link",
                request.offsets.len(),
                request.path.display()
            )
        })?
    };
    Ok(LinkFd { fd })
}

fn link_create(
    program: &ProgFd,
    target_fd: u32,
    attach_type: AttachType,
    cookie: u64,
) -> Result<LinkFd, SysError> {
    let mut attr = LinkCreateAttr {
        prog_fd: program.raw_fd() as u32,
        target_fd,
        attach_type: attach_type.number(),
        bpf_cookie: cookie,
        ..LinkCreateAttr::default()
    };
    // SAFETY: the attribute holds no pointers.
    let fd = unsafe {
        bpf_fd(BPF_LINK_CREATE, &mut attr, || {
            format!(
                "attaching {} program to descriptor {target_fd} as {attach_type:?}",
                program.program_type()
            )
        })?
    };
    Ok(LinkFd { fd })
}

/// Attaches a raw tracepoint program to the raw tracepoint `name` (e.g. `sys_enter`).
pub fn bpf_raw_tracepoint_open(name: &str, program: &ProgFd) -> Result<LinkFd, SysError> {
    let attempted = || {
        format!(
            "attaching {} program to raw tracepoint {name:?}",
            program.program_type()
        )
    };
    let name_c =
        CString::new(name).map_err(|_| SysError::invalid(attempted(), "name contains NUL"))?;
    let mut attr = RawTracepointOpenAttr {
        name: name_c.as_ptr() as u64,
        prog_fd: program.raw_fd() as u32,
        ..RawTracepointOpenAttr::default()
    };
    // SAFETY: `name` points to a NUL-terminated string that outlives the call.
    let fd = unsafe {
        bpf_fd(BPF_RAW_TRACEPOINT_OPEN, &mut attr, || {
            format!("of {name:?}")
        })?
    };
    Ok(LinkFd { fd })
}
