//! `print()` of a kernel type read from this host's BTF: the compiler describes
//! `struct fs_struct` (reached through `curthread->fs`) from the type table's lazy kernel
//! types, and the renderer lays a value of it out member by member. Skips with a reason
//! when the kernel has no BTF.

use std::path::Path;
use std::sync::Arc;

use consumer::kernel_types::BtfKernelTypes;
use consumer::render::print_layout::render_print_layout;
use difvm::object::ActionKind;
use difvm::printed_type::PrintedShape;
use dlang::compile::{compile_with_kernel_types, CompileOptions, ProgramSource};
use dlang::probes::ListCatalog;

#[test]
fn print_of_a_kernel_struct_lays_out_its_btf_members() {
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("skipping: this kernel has no /sys/kernel/btf/vmlinux");
        return;
    }
    let compilation = compile_with_kernel_types(
        &[ProgramSource::script(
            "fs.d",
            "BEGIN { print(*curthread->fs); exit(0); }",
        )],
        &CompileOptions {
            default_error_handler: false,
            ..CompileOptions::default()
        },
        &ListCatalog::with_dtrace_provider(Vec::new()),
        Some(Arc::new(BtfKernelTypes::default())),
    )
    .unwrap_or_else(|error| panic!("{}", error.diagnostic.message));
    let printed_type = compilation.program.statements[0]
        .actions
        .iter()
        .find_map(|action| match &action.kind {
            ActionKind::Print { printed_type } => Some(printed_type.clone()),
            _ => None,
        })
        .expect("a print() action");
    let root = printed_type.root().unwrap();
    assert_eq!(root.name, "struct fs_struct");
    let PrintedShape::Struct { members } = &root.shape else {
        panic!("{root:?}");
    };
    let names: Vec<&str> = members.iter().map(|member| member.name.as_str()).collect();
    for expected in ["users", "umask", "root", "pwd"] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    let bytes = vec![0u8; root.size as usize];
    let mut out = String::new();
    render_print_layout(&mut out, &printed_type, &bytes, 8192);
    assert!(out.starts_with("(struct fs_struct) {\n"), "{out}");
    assert!(
        out.contains("\n .root = (struct path) {\n  .mnt = (struct vfsmount *)0x0,\n"),
        "{out}"
    );
    assert!(out.ends_with("\n}\n"), "{out}");
}
