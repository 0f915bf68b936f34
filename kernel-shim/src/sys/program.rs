//! BPF programs: loading raw instructions with the verifier log on failure, program
//! information (id, run count, recursion misses), run-time statistics, and test runs.

use std::ffi::CString;
use std::fmt;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use super::abi::*;
use super::error::SysError;
use super::syscall::{bpf, bpf_fd, name_from_field, object_name};
use crate::ebpf::Insn;

/// Program types used for tracing (`enum bpf_prog_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProgramType {
    SocketFilter,
    /// Kprobes and uprobes (ctx: `struct pt_regs *`).
    Kprobe,
    /// Perf tracepoints (ctx: the tracepoint's record, as its tracefs `format` describes).
    Tracepoint,
    /// Perf events such as cpu-clock (ctx: `struct bpf_perf_event_data *`).
    PerfEvent,
    /// Raw tracepoints (ctx: `u64 args[]`).
    RawTracepoint,
    /// fentry/fexit and other BTF-typed attachments.
    Tracing,
}

impl ProgramType {
    pub const fn number(self) -> u32 {
        match self {
            ProgramType::SocketFilter => 1,
            ProgramType::Kprobe => 2,
            ProgramType::Tracepoint => 5,
            ProgramType::PerfEvent => 7,
            ProgramType::RawTracepoint => 17,
            ProgramType::Tracing => 26,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            ProgramType::SocketFilter => "socket_filter",
            ProgramType::Kprobe => "kprobe",
            ProgramType::Tracepoint => "tracepoint",
            ProgramType::PerfEvent => "perf_event",
            ProgramType::RawTracepoint => "raw_tracepoint",
            ProgramType::Tracing => "tracing",
        }
    }
}

impl fmt::Display for ProgramType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Attach types (`enum bpf_attach_type`) for `expected_attach_type` and link creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttachType {
    TraceRawTp,
    TraceFentry,
    TraceFexit,
    PerfEvent,
    TraceKprobeMulti,
    TraceUprobeMulti,
}

impl AttachType {
    pub const fn number(self) -> u32 {
        match self {
            AttachType::TraceRawTp => 23,
            AttachType::TraceFentry => 24,
            AttachType::TraceFexit => 25,
            AttachType::PerfEvent => 41,
            AttachType::TraceKprobeMulti => 42,
            AttachType::TraceUprobeMulti => 48,
        }
    }
}

/// Everything `bpf_prog_load` needs.
#[derive(Clone, Debug)]
pub struct ProgramLoadRequest<'a> {
    pub program_type: ProgramType,
    pub instructions: &'a [Insn],
    /// "GPL" unlocks the GPL-only helpers (`bpf_probe_read_*`, `bpf_get_stack`, …).
    pub license: &'a str,
    pub expected_attach_type: Option<AttachType>,
    /// The BTF type id of the attach target, for `ProgramType::Tracing`.
    pub attach_btf_id: Option<u32>,
    /// Shown by bpftool; shortened to 15 characters.
    pub name: &'a str,
    /// 0 asks for a log only if loading fails; otherwise `BPF_LOG_LEVEL1`, `BPF_LOG_LEVEL2`
    /// and `BPF_LOG_STATS` bits, and the log is kept on success too.
    pub log_level: u32,
    /// The loaded BTF (`bpf_btf_load`) that `func_info` refers to.
    pub btf: Option<BorrowedFd<'a>>,
    /// `struct bpf_func_info` records, `func_info_rec_size` bytes each: the first
    /// instruction and FUNC type id of every function of the program. The kernel requires
    /// them of programs that pass callbacks to helpers (`bpf_loop`).
    pub func_info: &'a [u8],
    pub func_info_rec_size: u32,
}

impl<'a> ProgramLoadRequest<'a> {
    /// A request with license "GPL", no attach type, no name and no log unless loading fails.
    pub fn new(program_type: ProgramType, instructions: &'a [Insn]) -> ProgramLoadRequest<'a> {
        ProgramLoadRequest {
            program_type,
            instructions,
            license: "GPL",
            expected_attach_type: None,
            attach_btf_id: None,
            name: "",
            log_level: 0,
            btf: None,
            func_info: &[],
            func_info_rec_size: 0,
        }
    }
}

/// A program the kernel refused, with the verifier's explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub error: SysError,
    /// The verifier log (possibly truncated if enormous); empty if the kernel gave none.
    pub log: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        if !self.log.is_empty() {
            write!(f, "\nverifier log:\n{}", self.log.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// An owned BPF program file descriptor; closing the last reference unloads the program.
#[derive(Debug)]
pub struct ProgFd {
    fd: OwnedFd,
    program_type: ProgramType,
    verifier_log: String,
}

/// The kernel's view of a loaded program (`struct bpf_prog_info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramInfo {
    /// The system-wide program id (what bpftool shows).
    pub id: u32,
    pub program_type: u32,
    pub tag: [u8; 8],
    pub name: String,
    /// Bytes of JITed machine code.
    pub jited_length: u32,
    /// Bytes of instructions after the verifier's rewriting.
    pub translated_length: u32,
    /// Total run time and run count; counted only while run-time statistics are enabled
    /// (`bpf_enable_stats`).
    pub run_time_ns: u64,
    pub run_count: u64,
    /// Invocations skipped because the program was already running on that CPU.
    pub recursion_misses: u64,
    pub verified_instructions: u32,
}

/// The largest verifier log we ask for; the kernel caps it at 1 GiB, which is never useful.
const MAX_LOG_SIZE: usize = 64 << 20;
const INITIAL_LOG_SIZE: usize = 64 << 10;

/// Loads a program. On failure the load is repeated with a verifier log (grown while the
/// kernel says ENOSPC) so that the error carries the verifier's explanation.
pub fn bpf_prog_load(request: &ProgramLoadRequest<'_>) -> Result<ProgFd, LoadError> {
    let describe = || {
        format!(
            "of {} program {:?} ({} instructions)",
            request.program_type,
            request.name,
            request.instructions.len()
        )
    };
    let license = CString::new(request.license).map_err(|_| LoadError {
        error: SysError::invalid(format!("loading {}", describe()), "license contains NUL"),
        log: String::new(),
    })?;
    if request.instructions.is_empty() {
        return Err(LoadError {
            error: SysError::invalid(format!("loading {}", describe()), "no instructions"),
            log: String::new(),
        });
    }
    let encoded: Vec<u64> = request
        .instructions
        .iter()
        .map(|instruction| u64::from_le_bytes(instruction.to_bytes()))
        .collect();

    let attempt = |log: Option<&mut Vec<u8>>, log_level: u32| {
        let mut attr = ProgLoadAttr {
            prog_type: request.program_type.number(),
            insn_cnt: encoded.len() as u32,
            insns: encoded.as_ptr() as u64,
            license: license.as_ptr() as u64,
            prog_name: object_name(request.name),
            expected_attach_type: request.expected_attach_type.map_or(0, AttachType::number),
            attach_btf_id: request.attach_btf_id.unwrap_or(0),
            ..ProgLoadAttr::default()
        };
        if let Some(btf) = request.btf {
            attr.prog_btf_fd = btf.as_raw_fd() as u32;
            if request.func_info_rec_size > 0 {
                attr.func_info_rec_size = request.func_info_rec_size;
                attr.func_info = request.func_info.as_ptr() as u64;
                attr.func_info_cnt =
                    (request.func_info.len() / request.func_info_rec_size as usize) as u32;
            }
        }
        if let Some(log) = log {
            attr.log_level = log_level;
            attr.log_size = log.len() as u32;
            attr.log_buf = log.as_mut_ptr() as u64;
        }
        // SAFETY: the instruction, license, func_info and log pointers are valid for the
        // lengths given and outlive the call.
        let result = unsafe { bpf_fd(BPF_PROG_LOAD, &mut attr, describe) };
        (result, attr.log_true_size as usize)
    };

    if request.log_level == 0 {
        if let (Ok(fd), _) = attempt(None, 0) {
            return Ok(ProgFd {
                fd,
                program_type: request.program_type,
                verifier_log: String::new(),
            });
        }
    }
    let log_level = if request.log_level == 0 {
        BPF_LOG_LEVEL1
    } else {
        request.log_level
    };
    let mut log = vec![0u8; INITIAL_LOG_SIZE];
    loop {
        let (result, true_size) = attempt(Some(&mut log), log_level);
        let text = log_text(&log);
        match result {
            Ok(fd) => {
                return Ok(ProgFd {
                    fd,
                    program_type: request.program_type,
                    verifier_log: text,
                })
            }
            Err(error) if error.errno() == Some(libc::ENOSPC) && log.len() < MAX_LOG_SIZE => {
                let wanted = true_size.max(log.len() * 4).min(MAX_LOG_SIZE);
                log = vec![0u8; wanted];
            }
            Err(error) => return Err(LoadError { error, log: text }),
        }
    }
}

fn log_text(buffer: &[u8]) -> String {
    let end = buffer
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

impl ProgFd {
    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    pub fn program_type(&self) -> ProgramType {
        self.program_type
    }

    /// The verifier log of a load that asked for one (`log_level` > 0); empty otherwise.
    pub fn verifier_log(&self) -> &str {
        &self.verifier_log
    }

    /// The kernel's view of the program: id, run statistics, recursion misses.
    pub fn info(&self) -> Result<ProgramInfo, SysError> {
        // Zeroed as a whole, padding included: the kernel refuses (E2BIG) an info buffer
        // longer than its own struct unless the excess bytes are zero, and the trailing
        // padding of a field-by-field `Default` is not.
        // SAFETY: every field is an integer, for which all-zero bytes are valid.
        let mut raw: ProgInfoRaw = unsafe { std::mem::zeroed() };
        let mut attr = InfoAttr {
            bpf_fd: self.fd.as_raw_fd() as u32,
            info_len: std::mem::size_of::<ProgInfoRaw>() as u32,
            info: &mut raw as *mut ProgInfoRaw as u64,
        };
        // SAFETY: `info` points to a zeroed `ProgInfoRaw` of the length in `info_len`; its
        // pointer fields are zero, so the kernel copies no arrays.
        unsafe {
            bpf(BPF_OBJ_GET_INFO_BY_FD, &mut attr, || {
                format!("information about {} program", self.program_type)
            })?
        };
        Ok(ProgramInfo {
            id: raw.id,
            program_type: raw.prog_type,
            tag: raw.tag,
            name: name_from_field(&raw.name),
            jited_length: raw.jited_prog_len,
            translated_length: raw.xlated_prog_len,
            run_time_ns: raw.run_time_ns,
            run_count: raw.run_cnt,
            recursion_misses: raw.recursion_misses,
            verified_instructions: raw.verified_insns,
        })
    }

    /// Runs the program once in the kernel without attaching it (`BPF_PROG_TEST_RUN`).
    /// Raw tracepoint programs take `context` as their `u64 args[]`; socket filters take
    /// `data` as the packet.
    pub fn test_run(&self, request: &TestRunRequest<'_>) -> Result<TestRunResult, SysError> {
        let mut attr = TestRunAttr {
            prog_fd: self.fd.as_raw_fd() as u32,
            data_size_in: request.data.len() as u32,
            data_in: if request.data.is_empty() {
                0
            } else {
                request.data.as_ptr() as u64
            },
            repeat: request.repeat,
            ctx_size_in: request.context.len() as u32,
            ctx_in: if request.context.is_empty() {
                0
            } else {
                request.context.as_ptr() as u64
            },
            ..TestRunAttr::default()
        };
        if let Some(cpu) = request.cpu {
            attr.flags = BPF_F_TEST_RUN_ON_CPU;
            attr.cpu = cpu;
        }
        // SAFETY: data and context pointers are valid for the sizes given; no output
        // buffers are passed.
        unsafe {
            bpf(BPF_PROG_TEST_RUN, &mut attr, || {
                format!("test run of {} program", self.program_type)
            })?
        };
        Ok(TestRunResult {
            return_value: attr.retval,
            duration_ns: attr.duration,
        })
    }
}

impl AsFd for ProgFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Input of `ProgFd::test_run`.
#[derive(Clone, Debug, Default)]
pub struct TestRunRequest<'a> {
    pub data: &'a [u8],
    pub context: &'a [u8],
    /// Runs (0 means 1); raw tracepoint programs accept only 0.
    pub repeat: u32,
    /// Run on this CPU (raw tracepoint programs only).
    pub cpu: Option<u32>,
}

/// Output of `ProgFd::test_run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestRunResult {
    /// The program's r0.
    pub return_value: u32,
    pub duration_ns: u32,
}

/// Keeps the kernel's run-time statistics (run count and time in `ProgramInfo`) switched on
/// for as long as the returned descriptor is open.
pub fn bpf_enable_stats() -> Result<OwnedFd, SysError> {
    let mut attr = EnableStatsAttr {
        stats_type: BPF_STATS_RUN_TIME,
    };
    // SAFETY: the attribute holds no pointers.
    unsafe {
        bpf_fd(BPF_ENABLE_STATS, &mut attr, || {
            "of run-time statistics".to_string()
        })
    }
}
