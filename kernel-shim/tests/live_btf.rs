//! The BTF reader on the running kernel's BTF (`/sys/kernel/btf/vmlinux`), skipped with
//! a one-line reason where the kernel publishes none.

use kernel_shim::btf::{Btf, BtfKind, BtfNamespace, VMLINUX_BTF_PATH};

#[test]
fn the_running_kernel_has_task_struct_offsets() {
    let Ok(btf) = Btf::running_kernel() else {
        eprintln!("skipping: no {VMLINUX_BTF_PATH}");
        return;
    };
    let real_parent = btf.member_offset("task_struct", "real_parent").unwrap();
    let tgid = btf.member_offset("task_struct", "tgid").unwrap();
    assert!(real_parent > 0 && tgid > 0 && real_parent != tgid);
    let task_struct = btf
        .named(BtfNamespace::Struct, "task_struct")
        .expect("task_struct");
    assert!(matches!(
        btf.type_by_id(task_struct).expect("a type").kind,
        BtfKind::Struct(members) if members.len() > 50
    ));
    assert!(btf.named(BtfNamespace::Variable, "cpu_number").is_some());
    assert!(btf.named(BtfNamespace::Function, "vfs_read").is_some());
    assert!(btf.enumerator("TASK_COMM_LEN").is_some());
}
