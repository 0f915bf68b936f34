//! Where `ppid` and `progenyof()` find a task's parent and process id, and `vtimestamp`
//! a thread's time on CPU and start time: the offsets of `real_parent`, `tgid`,
//! `se.sum_exec_runtime` and `start_time` in the running kernel's `struct task_struct`,
//! read from its BTF (they move between kernel versions and configurations); where a
//! probe about another thread than the current one (`sched:::on-cpu`) reads that
//! thread's ids, credentials and name, and how it reaches the thread through the run
//! queue for its kernel stack; and how a probe finds this CPU's per-CPU area, for
//! per-CPU kernel variables.

use difvm::object::CompiledProgram;

use difvm::isa::subroutine;

use super::difos::{calls_subroutine, program_has_kernel_relocations, program_needs_task_offsets};
use super::path_offsets::DentryPathOffsets;
use crate::btf::{Btf, BtfError};

/// Offsets in `struct task_struct` that `ppid` follows (`task->real_parent->tgid`),
/// that `vtimestamp` reads, and from which a probe about another thread reads what
/// helpers give for the current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskStructOffsets {
    pub real_parent: u32,
    pub tgid: u32,
    /// The thread id (`tid`).
    pub pid: u32,
    /// `comm`, the thread's name (`execname`).
    pub comm: u32,
    /// `cred`, the subjective credentials `bpf_get_current_uid_gid` reads, and the
    /// offsets of `uid` and `gid` (each a `kuid_t`/`kgid_t` holding a `u32`) in them.
    pub cred: u32,
    pub cred_uid: u32,
    pub cred_gid: u32,
    /// How a probe reaches the thread being switched in as a pointer the verifier
    /// knows (for `bpf_get_task_stack`); None on kernels without group scheduling or
    /// whose verifier would not accept it (see [`RunQueueCurrentOffsets::from_btf`]).
    pub run_queue_current: Option<RunQueueCurrentOffsets>,
    /// `se.sum_exec_runtime`: nanoseconds the thread has run, as of the scheduler's
    /// last update (exact when the thread is switched in or out).
    pub sum_exec_runtime: u32,
    /// `start_time`: when the thread was created, which tells a thread from a later one
    /// that reuses its `task_struct`.
    pub start_time: u32,
}

impl TaskStructOffsets {
    /// The offsets in the kernel that `btf` describes.
    pub fn from_btf(btf: &Btf) -> Result<TaskStructOffsets, BtfError> {
        Ok(TaskStructOffsets {
            real_parent: btf.member_offset("task_struct", "real_parent")?,
            tgid: btf.member_offset("task_struct", "tgid")?,
            sum_exec_runtime: btf.member_offset("task_struct", "se")?
                + btf.member_offset("sched_entity", "sum_exec_runtime")?,
            start_time: btf.member_offset("task_struct", "start_time")?,
            pid: btf.member_offset("task_struct", "pid")?,
            comm: btf.member_offset("task_struct", "comm")?,
            cred: btf.member_offset("task_struct", "cred")?,
            cred_uid: btf.member_offset("cred", "uid")?,
            cred_gid: btf.member_offset("cred", "gid")?,
            run_queue_current: RunQueueCurrentOffsets::from_btf(btf).ok().flatten(),
        })
    }

    /// The offsets in the running kernel (from `/sys/kernel/btf/vmlinux`).
    pub fn from_running_kernel() -> Result<TaskStructOffsets, BtfError> {
        TaskStructOffsets::from_btf(&Btf::running_kernel()?)
    }
}

/// The route from the current task to the task its CPU's run queue has made current,
/// `task->se.cfs_rq->rq->curr`, which a `sched_switch` probe follows to the thread being
/// switched in: the scheduler sets `rq->curr` to `next` before the tracepoint fires. The
/// route is read through pointers the verifier types from BTF (from
/// `bpf_get_current_task_btf`), so that the task it reaches may be handed to
/// `bpf_get_task_stack`, which a raw tracepoint's plain argument may not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunQueueCurrentOffsets {
    /// `se.cfs_rq` in `struct task_struct`.
    pub task_cfs_rq: u32,
    /// `rq` in `struct cfs_rq`.
    pub cfs_rq_rq: u32,
    /// `curr` in `struct rq`.
    pub rq_curr: u32,
}

impl RunQueueCurrentOffsets {
    /// The offsets in the kernel that `btf` describes; None where the verifier would
    /// not accept the task the route reaches: where `rq->curr` shares a union with
    /// `donor` (6.12 on) or is tagged `__rcu`, a pointer loaded from it through the
    /// untrusted `rq` is untrusted, which `bpf_get_task_stack` refuses, and raw
    /// tracepoint programs may call no kfunc (`bpf_task_from_pid`) that would give a
    /// trusted one.
    pub fn from_btf(btf: &Btf) -> Result<Option<RunQueueCurrentOffsets>, BtfError> {
        if btf.member_loads_untrusted("rq", "curr")? {
            return Ok(None);
        }
        Ok(Some(RunQueueCurrentOffsets {
            task_cfs_rq: btf.member_offset("task_struct", "se")?
                + btf.member_offset("sched_entity", "cfs_rq")?,
            cfs_rq_rq: btf.member_offset("cfs_rq", "rq")?,
            rq_curr: btf.member_offset("rq", "curr")?,
        }))
    }
}

/// How a probe finds the per-CPU area of the CPU it runs on. The running task's run
/// queue is this CPU's instance of the per-CPU variable `runqueues`, reached through
/// `task->se.cfs_rq->rq` (kernels with CONFIG_FAIR_GROUP_SCHED); its address less the
/// offset of `runqueues` in the per-CPU area is the start of this CPU's area, where every
/// per-CPU variable lies at its BTF data-section offset. (The kernel's own route,
/// `bpf_this_cpu_ptr` of the variable's BTF id, needs the variable in kallsyms, which
/// kernels without CONFIG_KALLSYMS_ALL do not list.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerCpuBaseOffsets {
    /// `se.cfs_rq` in `struct task_struct`.
    pub task_cfs_rq: u32,
    /// `rq` in `struct cfs_rq`.
    pub cfs_rq_rq: u32,
    /// `runqueues` in the per-CPU area.
    pub runqueues: u32,
}

impl PerCpuBaseOffsets {
    /// The offsets in the kernel that `btf` describes.
    pub fn from_btf(btf: &Btf) -> Result<PerCpuBaseOffsets, BtfError> {
        let runqueues = btf
            .per_cpu_variable_offset("runqueues")
            .ok_or_else(|| BtfError::MissingStruct("per-CPU variable runqueues".to_string()))?;
        Ok(PerCpuBaseOffsets {
            task_cfs_rq: btf.member_offset("task_struct", "se")?
                + btf.member_offset("sched_entity", "cfs_rq")?,
            cfs_rq_rq: btf.member_offset("cfs_rq", "rq")?,
            runqueues,
        })
    }

    /// The offsets in the running kernel (from `/sys/kernel/btf/vmlinux`).
    pub fn from_running_kernel() -> Result<PerCpuBaseOffsets, BtfError> {
        PerCpuBaseOffsets::from_btf(&Btf::running_kernel()?)
    }
}

/// The kernel facts from BTF that `program` needs: `task_struct` offsets when it reads
/// `ppid`, `vtimestamp` or calls `progenyof()`, or when `about_other_threads` (a probe
/// it enables is about another thread than the one it fires in, whose built-ins are
/// read from that thread's `task_struct`), per-CPU area offsets when it reads a
/// per-CPU kernel variable, dentry and mount offsets when it calls `d_path()`. The
/// running kernel's BTF is read only when it needs one of them, so that a program that
/// needs none starts without reading it; a fact BTF cannot give is `None`, and
/// translating what needs it fails with a clear error.
pub fn kernel_offsets_for(program: &CompiledProgram, about_other_threads: bool) -> KernelOffsets {
    let needs_task = about_other_threads || program_needs_task_offsets(program);
    let needs_per_cpu = program_has_kernel_relocations(program);
    let needs_path = calls_subroutine(program, subroutine::D_PATH);
    if !needs_task && !needs_per_cpu && !needs_path {
        return KernelOffsets::default();
    }
    let Ok(btf) = Btf::running_kernel() else {
        return KernelOffsets::default();
    };
    KernelOffsets {
        task: needs_task
            .then(|| TaskStructOffsets::from_btf(&btf).ok())
            .flatten(),
        per_cpu_base: needs_per_cpu
            .then(|| PerCpuBaseOffsets::from_btf(&btf).ok())
            .flatten(),
        path: needs_path
            .then(|| DentryPathOffsets::from_btf(&btf).ok())
            .flatten(),
    }
}

/// The kernel facts from BTF a program needs (see [`kernel_offsets_for`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelOffsets {
    pub task: Option<TaskStructOffsets>,
    pub per_cpu_base: Option<PerCpuBaseOffsets>,
    pub path: Option<DentryPathOffsets>,
}
