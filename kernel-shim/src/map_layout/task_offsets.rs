//! Where `ppid` and `progenyof()` find a task's parent and process id, and `vtimestamp`
//! a thread's time on CPU and start time: the offsets of `real_parent`, `tgid`,
//! `se.sum_exec_runtime` and `start_time` in the running kernel's `struct task_struct`,
//! read from its BTF (they move between kernel versions and configurations); and how a
//! probe finds this CPU's per-CPU area, for per-CPU kernel variables.

use difvm::object::CompiledProgram;

use super::difos::{program_has_kernel_relocations, program_needs_task_offsets};
use crate::btf::{Btf, BtfError};

/// Offsets in `struct task_struct` that `ppid` follows (`task->real_parent->tgid`) and
/// that `vtimestamp` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskStructOffsets {
    pub real_parent: u32,
    pub tgid: u32,
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
        })
    }

    /// The offsets in the running kernel (from `/sys/kernel/btf/vmlinux`).
    pub fn from_running_kernel() -> Result<TaskStructOffsets, BtfError> {
        TaskStructOffsets::from_btf(&Btf::running_kernel()?)
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
/// `ppid`, `vtimestamp` or calls `progenyof()`, per-CPU area offsets when it reads a
/// per-CPU kernel variable. The running kernel's BTF is read only when it needs either,
/// so that a program that needs neither starts without reading it; a fact BTF cannot
/// give is `None`, and translating what needs it fails with a clear error.
pub fn kernel_offsets_for(
    program: &CompiledProgram,
) -> (Option<TaskStructOffsets>, Option<PerCpuBaseOffsets>) {
    let needs_task = program_needs_task_offsets(program);
    let needs_per_cpu = program_has_kernel_relocations(program);
    if !needs_task && !needs_per_cpu {
        return (None, None);
    }
    let Ok(btf) = Btf::running_kernel() else {
        return (None, None);
    };
    let task = needs_task
        .then(|| TaskStructOffsets::from_btf(&btf).ok())
        .flatten();
    let per_cpu = needs_per_cpu
        .then(|| PerCpuBaseOffsets::from_btf(&btf).ok())
        .flatten();
    (task, per_cpu)
}
