//! The firing context of probes run by the user-space engine: the dtrace process itself
//! is the current process, so built-ins describe it and user memory is its own.

use difvm::interp::context::ProbeFiringContext;

/// Built-in values of the dtrace process, read when a probe fires.
#[derive(Debug, Clone)]
pub struct DtraceProcessContext {
    /// Raw probe arguments (`arg0`…); the ERROR probe has five.
    pub arguments: Vec<u64>,
    cpu: u32,
    pid: u64,
    tid: u64,
    ppid: u64,
    uid: u64,
    gid: u64,
    execname: Vec<u8>,
}

impl DtraceProcessContext {
    /// The context of a firing now, on the CPU this thread runs on.
    pub fn now(arguments: Vec<u64>) -> DtraceProcessContext {
        // SAFETY: these calls take no pointers and cannot fail.
        let (cpu, pid, tid, ppid, uid, gid) = unsafe {
            (
                libc::sched_getcpu().max(0) as u32,
                libc::getpid() as u64,
                libc::gettid() as u64,
                libc::getppid() as u64,
                libc::getuid() as u64,
                libc::getgid() as u64,
            )
        };
        let execname = std::fs::read("/proc/self/comm")
            .map(|mut name| {
                while name.last() == Some(&b'\n') {
                    name.pop();
                }
                name
            })
            .unwrap_or_else(|_| b"dtrace".to_vec());
        DtraceProcessContext {
            arguments,
            cpu,
            pid,
            tid,
            ppid,
            uid,
            gid,
            execname,
        }
    }
}

fn clock_nanoseconds(clock: libc::clockid_t) -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec.
    unsafe { libc::clock_gettime(clock, &mut time) };
    (time.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(time.tv_nsec as u64)
}

impl ProbeFiringContext for DtraceProcessContext {
    fn cpu(&self) -> u32 {
        self.cpu
    }
    fn argument(&self, index: u64) -> Option<u64> {
        usize::try_from(index)
            .ok()
            .and_then(|index| self.arguments.get(index).copied())
    }
    fn pid(&self) -> u64 {
        self.pid
    }
    fn tid(&self) -> u64 {
        self.tid
    }
    fn ppid(&self) -> u64 {
        self.ppid
    }
    fn uid(&self) -> u64 {
        self.uid
    }
    fn gid(&self) -> u64 {
        self.gid
    }
    fn execname(&self) -> Vec<u8> {
        self.execname.clone()
    }
    fn timestamp(&self) -> u64 {
        clock_nanoseconds(libc::CLOCK_MONOTONIC)
    }
    fn walltimestamp(&self) -> u64 {
        clock_nanoseconds(libc::CLOCK_REALTIME)
    }
    fn vtimestamp(&self) -> Option<u64> {
        Some(clock_nanoseconds(libc::CLOCK_THREAD_CPUTIME_ID))
    }
    fn read_user_memory(&self, address: u64, buffer: &mut [u8]) -> bool {
        // process_vm_readv on ourselves reads our own memory but fails cleanly (EFAULT)
        // on unmapped addresses, which a plain pointer read would not.
        let local = libc::iovec {
            iov_base: buffer.as_mut_ptr().cast(),
            iov_len: buffer.len(),
        };
        let remote = libc::iovec {
            iov_base: address as *mut libc::c_void,
            iov_len: buffer.len(),
        };
        // SAFETY: `local` describes our writable buffer; the kernel validates `remote`.
        let copied = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
        copied == buffer.len() as isize
    }
}
