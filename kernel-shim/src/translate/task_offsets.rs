//! Where `ppid` and `progenyof()` find a task's parent and process id: the offsets of
//! `real_parent` and `tgid` in the running kernel's `struct task_struct`, read from its
//! BTF (they move between kernel versions and configurations).

use super::layout::TaskStructOffsets;
use crate::btf::{Btf, BtfError};

impl TaskStructOffsets {
    /// The offsets in the kernel that `btf` describes.
    pub fn from_btf(btf: &Btf) -> Result<TaskStructOffsets, BtfError> {
        Ok(TaskStructOffsets {
            real_parent: btf.member_offset("task_struct", "real_parent")?,
            tgid: btf.member_offset("task_struct", "tgid")?,
        })
    }

    /// The offsets in the running kernel (from `/sys/kernel/btf/vmlinux`).
    pub fn from_running_kernel() -> Result<TaskStructOffsets, BtfError> {
        TaskStructOffsets::from_btf(&Btf::running_kernel()?)
    }
}
