//! What the interpreter asks of the world at probe-firing time: built-in variables,
//! probe arguments, stacks and memory outside the interpreter's own address space.
//!
//! The caller (the consumer's vm engine, or a test) implements [`ProbeFiringContext`];
//! [`SimpleFiringContext`] is a plain implementation holding fixed values.

/// The firing context of one probe: everything a clause may read that the engine does
/// not own. The probe's identity (`epid`, `id`, `probeprov`…) comes from the engine's
/// enabled-probe table instead.
///
/// Methods returning `Option` may refuse (`None`); the DIFO that asked then faults with
/// `illegal operation`. Memory readers return `false` for addresses they cannot read; the
/// DIFO then faults with `invalid address`.
pub trait ProbeFiringContext {
    /// The CPU the probe fires on; selects the principal buffer.
    fn cpu(&self) -> u32;
    /// Raw probe argument `index` (`arg0`–`arg9`, `args[index]`); `None` past the last
    /// argument the probe has. `argN` reads a missing argument as 0.
    fn argument(&self, index: u64) -> Option<u64>;

    fn pid(&self) -> u64 {
        0
    }
    fn tid(&self) -> u64 {
        0
    }
    fn ppid(&self) -> u64 {
        0
    }
    fn uid(&self) -> u64 {
        0
    }
    fn gid(&self) -> u64 {
        0
    }
    /// The process name (`execname`).
    fn execname(&self) -> Vec<u8> {
        Vec::new()
    }
    /// Monotonic nanoseconds (`timestamp`); the engine reads it once per clause.
    fn timestamp(&self) -> u64 {
        0
    }
    /// Nanoseconds since the epoch (`walltimestamp`).
    fn walltimestamp(&self) -> u64 {
        0
    }
    /// On-CPU nanoseconds of the thread (`vtimestamp`); `None` when unsupported.
    fn vtimestamp(&self) -> Option<u64> {
        None
    }
    fn errno(&self) -> u64 {
        0
    }
    /// `curthread`: an opaque kernel pointer.
    fn curthread(&self) -> u64 {
        0
    }
    /// The physical package of the CPU the probe fires on (`curcpu->cpu_chip`).
    fn cpu_chip(&self) -> u32 {
        0
    }
    /// The NUMA node of the CPU the probe fires on (`curcpu->cpu_lgrp`).
    fn cpu_lgrp(&self) -> u32 {
        0
    }
    fn caller(&self) -> u64 {
        0
    }
    fn ucaller(&self) -> u64 {
        0
    }
    fn stackdepth(&self) -> u64 {
        0
    }
    fn ustackdepth(&self) -> u64 {
        0
    }
    /// `ipl`; Linux has none.
    fn ipl(&self) -> Option<u64> {
        None
    }
    /// `zonename`; Linux has none.
    fn zonename(&self) -> Option<Vec<u8>> {
        None
    }
    /// `regs[index]` (kernel registers at the probe site).
    fn kernel_register(&self, _index: u64) -> Option<u64> {
        None
    }
    /// `uregs[index]` (user registers of the current thread).
    fn user_register(&self, _index: u64) -> Option<u64> {
        None
    }
    /// Up to `frames` kernel program counters, innermost first.
    fn kernel_stack(&self, _frames: u32) -> Vec<u64> {
        Vec::new()
    }
    /// Up to `frames` user program counters of the current thread, innermost first.
    fn user_stack(&self, _frames: u32) -> Vec<u64> {
        Vec::new()
    }
    /// Whether the current process is `pid` or one of its descendants (`progenyof`).
    fn progenyof(&self, pid: u64) -> bool {
        pid == self.pid()
    }
    /// Reads kernel memory at `address` (addresses outside the interpreter's own address
    /// space reached by `ld*`, `bcopy`, `tracemem`, string arguments…).
    fn read_kernel_memory(&self, _address: u64, _buffer: &mut [u8]) -> bool {
        false
    }
    /// Reads user memory of the current process (`copyin`, `copyinstr`, `uld*`). In the
    /// vm engine the "current process" is dtrace itself, and a context may well refuse.
    fn read_user_memory(&self, _address: u64, _buffer: &mut [u8]) -> bool {
        false
    }
    /// Writes user memory of the current process (`copyout`, `copyoutstr`; destructive).
    fn write_user_memory(&self, _address: u64, _bytes: &[u8]) -> bool {
        false
    }
}

/// A firing context with fixed values, for tests and for probes the engine's caller
/// synthesises (BEGIN, END). Memory is given as `(base address, bytes)` areas.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleFiringContext {
    pub cpu: u32,
    /// The CPU's physical package and NUMA node.
    pub cpu_chip: u32,
    pub cpu_lgrp: u32,
    pub arguments: Vec<u64>,
    pub pid: u64,
    pub tid: u64,
    pub ppid: u64,
    /// The process ids of the current process's ancestors (parent first), for
    /// `progenyof()`; empty when the context does not know them.
    pub ancestors: Vec<u64>,
    pub uid: u64,
    pub gid: u64,
    pub execname: String,
    pub timestamp: u64,
    pub walltimestamp: u64,
    /// On-CPU nanoseconds of the thread, when the context knows them.
    pub vtimestamp: Option<u64>,
    pub errno: u64,
    pub kernel_stack: Vec<u64>,
    pub user_stack: Vec<u64>,
    pub kernel_memory: Vec<(u64, Vec<u8>)>,
    pub user_memory: Vec<(u64, Vec<u8>)>,
}

fn read_from_areas(areas: &[(u64, Vec<u8>)], address: u64, buffer: &mut [u8]) -> bool {
    areas.iter().any(|(base, bytes)| {
        let Some(start) = address.checked_sub(*base) else {
            return false;
        };
        let Ok(start) = usize::try_from(start) else {
            return false;
        };
        let Some(end) = start.checked_add(buffer.len()) else {
            return false;
        };
        match bytes.get(start..end) {
            Some(source) => {
                buffer.copy_from_slice(source);
                true
            }
            None => false,
        }
    })
}

impl ProbeFiringContext for SimpleFiringContext {
    fn cpu(&self) -> u32 {
        self.cpu
    }
    fn cpu_chip(&self) -> u32 {
        self.cpu_chip
    }
    fn cpu_lgrp(&self) -> u32 {
        self.cpu_lgrp
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
    fn progenyof(&self, pid: u64) -> bool {
        pid == self.pid || self.ancestors.contains(&pid)
    }
    fn uid(&self) -> u64 {
        self.uid
    }
    fn gid(&self) -> u64 {
        self.gid
    }
    fn execname(&self) -> Vec<u8> {
        self.execname.as_bytes().to_vec()
    }
    fn timestamp(&self) -> u64 {
        self.timestamp
    }
    fn walltimestamp(&self) -> u64 {
        self.walltimestamp
    }
    fn vtimestamp(&self) -> Option<u64> {
        self.vtimestamp
    }
    fn errno(&self) -> u64 {
        self.errno
    }
    fn kernel_stack(&self, frames: u32) -> Vec<u64> {
        self.kernel_stack
            .iter()
            .copied()
            .take(frames as usize)
            .collect()
    }
    fn user_stack(&self, frames: u32) -> Vec<u64> {
        self.user_stack
            .iter()
            .copied()
            .take(frames as usize)
            .collect()
    }
    fn read_kernel_memory(&self, address: u64, buffer: &mut [u8]) -> bool {
        read_from_areas(&self.kernel_memory, address, buffer)
    }
    fn read_user_memory(&self, address: u64, buffer: &mut [u8]) -> bool {
        read_from_areas(&self.user_memory, address, buffer)
    }
}

/// The context of an ERROR firing: the faulting firing's context with the ERROR probe's
/// arguments.
pub(super) struct ErrorProbeContext<'a> {
    inner: &'a dyn ProbeFiringContext,
    arguments: [u64; 6],
}

impl<'a> ErrorProbeContext<'a> {
    /// `arguments` are `arg0`–`arg5` of the ERROR probe.
    pub(super) fn new(inner: &'a dyn ProbeFiringContext, arguments: [u64; 6]) -> Self {
        ErrorProbeContext { inner, arguments }
    }
}

impl ProbeFiringContext for ErrorProbeContext<'_> {
    fn cpu(&self) -> u32 {
        self.inner.cpu()
    }
    fn argument(&self, index: u64) -> Option<u64> {
        usize::try_from(index)
            .ok()
            .and_then(|index| self.arguments.get(index).copied())
    }
    fn pid(&self) -> u64 {
        self.inner.pid()
    }
    fn tid(&self) -> u64 {
        self.inner.tid()
    }
    fn ppid(&self) -> u64 {
        self.inner.ppid()
    }
    fn uid(&self) -> u64 {
        self.inner.uid()
    }
    fn gid(&self) -> u64 {
        self.inner.gid()
    }
    fn execname(&self) -> Vec<u8> {
        self.inner.execname()
    }
    fn timestamp(&self) -> u64 {
        self.inner.timestamp()
    }
    fn walltimestamp(&self) -> u64 {
        self.inner.walltimestamp()
    }
    fn vtimestamp(&self) -> Option<u64> {
        self.inner.vtimestamp()
    }
    fn errno(&self) -> u64 {
        self.inner.errno()
    }
    fn curthread(&self) -> u64 {
        self.inner.curthread()
    }
    fn cpu_chip(&self) -> u32 {
        self.inner.cpu_chip()
    }
    fn cpu_lgrp(&self) -> u32 {
        self.inner.cpu_lgrp()
    }
    fn caller(&self) -> u64 {
        self.inner.caller()
    }
    fn ucaller(&self) -> u64 {
        self.inner.ucaller()
    }
    fn stackdepth(&self) -> u64 {
        self.inner.stackdepth()
    }
    fn ustackdepth(&self) -> u64 {
        self.inner.ustackdepth()
    }
    fn ipl(&self) -> Option<u64> {
        self.inner.ipl()
    }
    fn zonename(&self) -> Option<Vec<u8>> {
        self.inner.zonename()
    }
    fn kernel_register(&self, index: u64) -> Option<u64> {
        self.inner.kernel_register(index)
    }
    fn user_register(&self, index: u64) -> Option<u64> {
        self.inner.user_register(index)
    }
    fn kernel_stack(&self, frames: u32) -> Vec<u64> {
        self.inner.kernel_stack(frames)
    }
    fn user_stack(&self, frames: u32) -> Vec<u64> {
        self.inner.user_stack(frames)
    }
    fn progenyof(&self, pid: u64) -> bool {
        self.inner.progenyof(pid)
    }
    fn read_kernel_memory(&self, address: u64, buffer: &mut [u8]) -> bool {
        self.inner.read_kernel_memory(address, buffer)
    }
    fn read_user_memory(&self, address: u64, buffer: &mut [u8]) -> bool {
        self.inner.read_user_memory(address, buffer)
    }
    fn write_user_memory(&self, address: u64, bytes: &[u8]) -> bool {
        self.inner.write_user_memory(address, bytes)
    }
}
