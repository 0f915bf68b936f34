//! Stable provider tables against a described kernel: which probes are listed, their
//! argument types and derivations, and the reasons given for the ones this kernel
//! cannot back.

use std::sync::Arc;

use providers::provider::{concrete_description, ProbeKind, Provider};
use providers::stable::{KernelProbeSources, StableProvider};

fn provider(name: &str, has_kprobes: bool) -> StableProvider {
    let kprobes = if has_kprobes {
        "/"
    } else {
        "/nonexistent/kprobe"
    };
    let sources = Arc::new(KernelProbeSources::new(
        VMLINUX_FOR_TESTS,
        "/proc/kallsyms",
        kprobes,
    ));
    StableProvider::all(sources)
        .into_iter()
        .find(|provider| provider.name() == name)
        .unwrap()
}

/// This machine's BTF: the tests skip when it cannot be read.
const VMLINUX_FOR_TESTS: &str = providers::btf_functions::VMLINUX_BTF_PATH;

fn btf_readable() -> bool {
    std::fs::metadata(VMLINUX_FOR_TESTS).is_ok()
}

#[test]
fn every_proc_probe_is_listed_with_its_argument_types() {
    if !btf_readable() {
        println!("skipping: no kernel BTF");
        return;
    }
    let proc = provider("proc", false);
    let probes = proc
        .probes(&concrete_description("proc", "", "", ""))
        .unwrap();
    let names: Vec<&str> = probes
        .iter()
        .map(|probe| probe.description.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "create",
            "exec",
            "exec-failure",
            "exec-success",
            "exit",
            "lwp-create",
            "lwp-exit",
            "lwp-start",
            "signal-clear",
            "signal-discard",
            "signal-handle",
            "signal-send",
            "start"
        ]
    );
    let create = &probes[0];
    assert_eq!(create.description.to_string(), "proc:vmlinux::create");
    assert_eq!(create.argument_types, ["psinfo_t *"]);
    assert_eq!(
        create.kind,
        ProbeKind::RawTracepoint {
            event: "sched_process_fork".to_string(),
            argument_count: 2
        }
    );
    let signal_send = probes
        .iter()
        .find(|p| p.description.name == "signal-send")
        .unwrap();
    assert_eq!(
        signal_send.argument_types,
        ["lwpsinfo_t *", "psinfo_t *", "int"]
    );
    let exec = probes
        .iter()
        .find(|p| p.description.name == "exec")
        .unwrap();
    assert_eq!(exec.argument_types, ["string"]);
}

#[test]
fn probes_this_kernel_cannot_back_are_left_out_and_named_ones_say_why() {
    if !btf_readable() {
        println!("skipping: no kernel BTF");
        return;
    }
    let sched = provider("sched", false);
    let names: Vec<String> = sched
        .probes(&concrete_description("sched", "", "", "*"))
        .unwrap()
        .into_iter()
        .map(|probe| probe.description.name)
        .collect();
    assert!(!names.iter().any(|name| name == "enqueue"), "{names:?}");
    assert!(names.iter().any(|name| name == "off-cpu"), "{names:?}");
    let error = sched
        .probes(&concrete_description("sched", "", "", "enqueue"))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "probe sched:vmlinux::enqueue is not available: it needs kprobes or fentry, which this kernel refuses"
    );
    let with_kprobes = provider("sched", true);
    let enqueue = with_kprobes
        .probes(&concrete_description("sched", "", "", "enqueue"))
        .unwrap();
    assert_eq!(
        enqueue[0].kind,
        ProbeKind::KernelFunction {
            module: None,
            function: "enqueue_task_fair".to_string(),
            is_return: false
        }
    );
}

#[test]
fn only_descriptions_that_may_name_a_stable_probe_are_asked() {
    let io = provider("io", false);
    assert!(io.may_match(&concrete_description("io", "", "", "start")));
    assert!(io.may_match(&concrete_description("", "vmlinux", "", "done")));
    assert!(!io.may_match(&concrete_description("", "", "", "BEGIN")));
    assert!(!io.may_match(&concrete_description("io", "", "read", "start")));
    assert!(!io.may_match(&concrete_description("syscall", "", "", "")));
}

#[test]
fn network_probes_are_listed_without_their_hidden_arguments() {
    if !btf_readable() {
        println!("skipping: no kernel BTF");
        return;
    }
    let tcp = provider("tcp", false);
    let probes = tcp
        .probes(&concrete_description("tcp", "", "", ""))
        .unwrap();
    let names: Vec<&str> = probes
        .iter()
        .map(|probe| probe.description.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "accept-established",
            "accept-refused",
            "connect-established",
            "connect-refused",
            "connect-request",
            "receive",
            "send",
            "state-change"
        ]
    );
    let send = probes
        .iter()
        .find(|p| p.description.name == "send")
        .unwrap();
    assert_eq!(
        send.argument_types,
        [
            "pktinfo_t *",
            "csinfo_t *",
            "ipinfo_t *",
            "tcpsinfo_t *",
            "tcpinfo_t *"
        ]
    );
    // The TCP state and direction the library's tcpsinfo_t reads are arg6 and arg7.
    let derivation = send.derivation.as_ref().unwrap();
    assert_eq!(derivation.arguments.len(), 8);
    assert_eq!(derivation.arguments[7].value, "0");
    for (name, count) in [("ip", 2), ("udp", 2)] {
        let provider = provider(name, false);
        let probes = provider
            .probes(&concrete_description(name, "", "", ""))
            .unwrap();
        assert_eq!(probes.len(), count, "{name}");
    }
}

#[test]
fn on_cpu_fires_at_sched_switch_about_the_next_thread_and_plans_that_task() {
    if !btf_readable() {
        println!("skipping: no kernel BTF");
        return;
    }
    let sched = provider("sched", false);
    let on_cpu = sched
        .probes(&concrete_description("sched", "", "", "on-cpu"))
        .unwrap();
    assert_eq!(on_cpu.len(), 1);
    let entry = &on_cpu[0];
    assert_eq!(entry.description.to_string(), "sched:vmlinux::on-cpu");
    assert_eq!(
        entry.kind,
        ProbeKind::RawTracepoint {
            event: "sched_switch".to_string(),
            argument_count: 4
        }
    );
    assert!(entry.argument_types.is_empty());
    let derivation = entry.derivation.as_ref().unwrap();
    assert_eq!(derivation.subject_task_argument, Some(2));
    assert_eq!(derivation.guard, None);
    // off-cpu, on the same tracepoint, is about the thread it fires in.
    let off_cpu = sched
        .probes(&concrete_description("sched", "", "", "off-cpu"))
        .unwrap();
    let off_derivation = off_cpu[0].derivation.as_ref().unwrap();
    assert_eq!(off_derivation.subject_task_argument, None);

    let plan = providers::attachment::probe_plan(entry).unwrap().unwrap();
    assert_eq!(
        plan.instrumentation.context(),
        kernel_shim::translate::ContextKind::RawTracepoint {
            argument_count: 4,
            subject_task_argument: Some(2)
        }
    );
    let plan = providers::attachment::probe_plan(&off_cpu[0])
        .unwrap()
        .unwrap();
    assert_eq!(plan.instrumentation.context().subject_task_argument(), None);
}

/// A probe with two underlying probes is two probes told apart by their function:
/// `sched:::wakeup` is sched_waking's and, for a new task's first wakeup,
/// sched_wakeup_new's.
#[test]
fn wakeup_is_both_sched_waking_and_sched_wakeup_new() {
    if !btf_readable() {
        println!("skipping: no kernel BTF");
        return;
    }
    let sched = provider("sched", false);
    let wakeups: Vec<(String, ProbeKind)> = sched
        .probes(&concrete_description("sched", "", "", "wakeup"))
        .unwrap()
        .into_iter()
        .map(|probe| (probe.description.to_string(), probe.kind))
        .collect();
    let raw = |event: &str| ProbeKind::RawTracepoint {
        event: event.to_string(),
        argument_count: 1,
    };
    assert_eq!(
        wakeups,
        [
            ("sched:vmlinux::wakeup".to_string(), raw("sched_waking")),
            (
                "sched:vmlinux:sched_wakeup_new:wakeup".to_string(),
                raw("sched_wakeup_new")
            ),
        ]
    );
    let only_new = sched
        .probes(&concrete_description("sched", "", "sched_wakeup_new", ""))
        .unwrap();
    assert_eq!(only_new.len(), 1);
}
