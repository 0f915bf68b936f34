//! The rawtp provider over a BTF blob built here (typedefs `btf_trace_EVENT` of pointers
//! to prototypes) and a fake tracefs, its attachment plan, and the running kernel's
//! raw tracepoints.

mod common;

use common::{description, fake_tracefs, ScratchDirectory};
use kernel_shim::btf::{
    BtfBuilder, INT_BOOL, INT_SIGNED, KIND_FUNC_PROTO, KIND_INT, KIND_PTR, KIND_STRUCT,
    KIND_TYPEDEF,
};
use kernel_shim::runtime::{AttachTarget, ProbeInstrumentation};
use kernel_shim::translate::ContextKind;
use providers::attachment::probe_plan;
use providers::provider::{ProbeKind, Provider};
use providers::rawtp_provider::RawtpProvider;
use providers::registry::ProbeRegistry;
use providers::tracefs::Tracefs;

/// A kernel's BTF with three raw tracepoints (`sched_switch` and `sched_wakeup`, which
/// the fake tracefs lists in `sched`, and the bare `pelt_cfs_tp`), one with twelve
/// arguments, and a `btf_trace_` typedef that is not a tracepoint's.
fn kernel_btf() -> Vec<u8> {
    let mut blob = BtfBuilder::new();
    let int = blob.add_type("int", KIND_INT, false, 0, 4, &[INT_SIGNED << 24 | 32]);
    let boolean = blob.add_type("_Bool", KIND_INT, false, 0, 1, &[INT_BOOL << 24 | 8]);
    let bool_typedef = blob.add_type("bool", KIND_TYPEDEF, false, 0, boolean, &[]);
    let pid = blob.string("pid");
    let task = blob.add_type("task_struct", KIND_STRUCT, false, 1, 8, &[pid, int, 0]);
    let task_pointer = blob.add_type("", KIND_PTR, false, 0, task, &[]);
    let void_pointer = blob.add_type("", KIND_PTR, false, 0, 0, &[]);
    let cfs_rq = blob.add_type("cfs_rq", KIND_STRUCT, false, 0, 0, &[]);
    let cfs_rq_pointer = blob.add_type("", KIND_PTR, false, 0, cfs_rq, &[]);
    let tracepoint = |blob: &mut BtfBuilder, event: &str, arguments: &[u32]| {
        let mut parameters = vec![blob.string("__data"), void_pointer];
        for (index, argument) in arguments.iter().enumerate() {
            parameters.extend([blob.string(&format!("a{index}")), *argument]);
        }
        let vlen = arguments.len() as u32 + 1;
        let prototype = blob.add_type("", KIND_FUNC_PROTO, false, vlen, 0, &parameters);
        let pointer = blob.add_type("", KIND_PTR, false, 0, prototype, &[]);
        blob.add_type(
            &format!("btf_trace_{event}"),
            KIND_TYPEDEF,
            false,
            0,
            pointer,
            &[],
        );
    };
    tracepoint(
        &mut blob,
        "sched_switch",
        &[bool_typedef, task_pointer, task_pointer, int],
    );
    tracepoint(&mut blob, "sched_wakeup", &[task_pointer; 12]);
    tracepoint(&mut blob, "pelt_cfs_tp", &[cfs_rq_pointer]);
    blob.add_type("btf_trace_not_a_pointer", KIND_TYPEDEF, false, 0, int, &[]);
    blob.finish()
}

/// A provider over [`kernel_btf`] and the fake tracefs (both kept alive by the caller).
fn provider() -> (RawtpProvider, ScratchDirectory, ScratchDirectory) {
    let tracefs = fake_tracefs();
    let btf = ScratchDirectory::new("rawtp-btf");
    let path = btf.path().join("vmlinux");
    std::fs::write(&path, kernel_btf()).expect("write BTF");
    let provider = RawtpProvider::new(Some(Tracefs::at(tracefs.path())), path);
    (provider, tracefs, btf)
}

fn names(provider: &RawtpProvider, text: &str) -> Vec<String> {
    provider
        .probes(&description(text))
        .expect("rawtp probes")
        .iter()
        .map(|entry| entry.description.to_string())
        .collect()
}

#[test]
fn raw_tracepoints_are_listed_by_tracefs_group() {
    let (provider, _tracefs, _btf) = provider();
    assert_eq!(
        names(&provider, "rawtp:::"),
        [
            "rawtp:::pelt_cfs_tp",
            "rawtp:sched::sched_switch",
            "rawtp:sched::sched_wakeup",
        ]
    );
    assert_eq!(
        names(&provider, "rawtp:sched::"),
        ["rawtp:sched::sched_switch", "rawtp:sched::sched_wakeup"]
    );
    assert_eq!(names(&provider, ":::pelt_*"), ["rawtp:::pelt_cfs_tp"]);
    assert!(names(&provider, "rawtp::sched_switch:").is_empty());
    assert!(names(&provider, "sdt:::").is_empty());
}

#[test]
fn raw_arguments_are_typed_from_the_prototype() {
    let (provider, _tracefs, _btf) = provider();
    let entries = provider
        .probes(&description("rawtp:sched::sched_switch"))
        .expect("probes");
    let [entry] = entries.as_slice() else {
        panic!("one sched_switch: {entries:?}");
    };
    assert_eq!(
        entry.kind,
        ProbeKind::RawTracepoint {
            event: "sched_switch".to_string(),
            argument_count: 4,
        }
    );
    assert_eq!(
        provider.argument_types(entry).expect("types"),
        [
            "bool",
            "struct task_struct *",
            "struct task_struct *",
            "int"
        ]
    );
    let bare = &provider
        .probes(&description("rawtp:::pelt_cfs_tp"))
        .expect("probes")[0];
    assert_eq!(
        provider.argument_types(bare).expect("types"),
        ["struct cfs_rq *"]
    );
}

#[test]
fn a_raw_tracepoint_is_planned_as_a_raw_tracepoint_program() {
    let (provider, _tracefs, _btf) = provider();
    let entries = provider
        .probes(&description("rawtp:sched::sched_wakeup"))
        .expect("probes");
    let plan = probe_plan(&entries[0]).expect("plan").expect("a plan");
    assert_eq!(
        plan.instrumentation,
        ProbeInstrumentation::Targets {
            context: ContextKind::RawTracepoint {
                argument_count: 12,
                subject_task_argument: None,
            },
            targets: vec![AttachTarget::RawTracepoint {
                name: "sched_wakeup".to_string()
            }],
        }
    );
    assert_eq!(
        provider.argument_types(&entries[0]).expect("types").len(),
        12
    );
}

#[test]
fn without_btf_there_are_no_raw_tracepoints() {
    let provider = RawtpProvider::new(None, "/nonexistent/vmlinux");
    assert!(names(&provider, "rawtp:::").is_empty());
}

/// The running kernel's raw tracepoints: `sched_switch` in the `sched` group with its
/// task arguments, and a bare tracepoint tracefs does not list, with an empty module.
#[test]
fn raw_tracepoints_of_the_running_kernel() {
    let mut registry = ProbeRegistry::for_this_machine();
    let Ok(listed) = registry.list(&[description("rawtp:sched::sched_switch")], true) else {
        println!("skipping: the running kernel's probes cannot be listed");
        return;
    };
    let Some(sched_switch) = listed.first() else {
        println!("skipping: this kernel has no readable BTF or no sched_switch raw tracepoint");
        return;
    };
    let types = &sched_switch.entry.argument_types;
    assert_eq!(
        types.get(1).map(String::as_str),
        Some("struct task_struct *"),
        "{types:?}"
    );
    assert_eq!(
        types.get(2).map(String::as_str),
        Some("struct task_struct *"),
        "{types:?}"
    );
    let bare = registry
        .list(&[description("rawtp:::sched_update_nr_running_tp")], false)
        .expect("listing");
    if let Some(bare) = bare.first() {
        assert_eq!(bare.entry.description.module, "");
    }
}
