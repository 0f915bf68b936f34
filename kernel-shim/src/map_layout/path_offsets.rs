//! Where `d_path()` finds a path's names: the offsets, in the running kernel's BTF, of
//! `struct path`'s mount and dentry, a dentry's parent and name, a mount's root
//! dentry, and, in the `struct mount` around each `struct vfsmount`, its parent mount
//! and the dentry it is mounted on. They move between kernel versions (`d_name` sits
//! in an anonymous union on 6.18), so they are read from BTF, and only for programs
//! that call `d_path()`.

use crate::btf::{Btf, BtfError};

/// The offsets `d_path()` walks a path with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DentryPathOffsets {
    /// `mnt` and `dentry` in `struct path`.
    pub path_mount: u32,
    pub path_dentry: u32,
    /// `d_parent` in `struct dentry`, and `d_name.name` (its name's characters).
    pub dentry_parent: u32,
    pub dentry_name: u32,
    /// `mnt_root` in `struct vfsmount`: the dentry at the root of the mount.
    pub mount_root: u32,
    /// `mnt` in `struct mount`: the `struct vfsmount` a path points at.
    pub mount_vfsmount: u32,
    /// `mnt_parent` and `mnt_mountpoint` in `struct mount`.
    pub mount_parent: u32,
    pub mount_mountpoint: u32,
}

impl DentryPathOffsets {
    /// The offsets in the kernel that `btf` describes.
    pub fn from_btf(btf: &Btf) -> Result<DentryPathOffsets, BtfError> {
        Ok(DentryPathOffsets {
            path_mount: btf.member_offset("path", "mnt")?,
            path_dentry: btf.member_offset("path", "dentry")?,
            dentry_parent: btf.member_offset("dentry", "d_parent")?,
            dentry_name: btf.member_offset("dentry", "d_name")?
                + btf.member_offset("qstr", "name")?,
            mount_root: btf.member_offset("vfsmount", "mnt_root")?,
            mount_vfsmount: btf.member_offset("mount", "mnt")?,
            mount_parent: btf.member_offset("mount", "mnt_parent")?,
            mount_mountpoint: btf.member_offset("mount", "mnt_mountpoint")?,
        })
    }
}
