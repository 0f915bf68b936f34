//! The probe registry: id assignment and stability, matching across providers with
//! globs.

mod common;

use common::{description, fake_tracefs, ScratchDirectory};
use providers::dtrace_provider::DtraceProvider;
use providers::fbt_provider::FbtProvider;
use providers::pid_provider::PidProvider;
use providers::profile_provider::ProfileProvider;
use providers::registry::ProbeRegistry;
use providers::sdt_provider::SdtProvider;
use providers::syscall_provider::SyscallProvider;
use providers::tracefs::Tracefs;
use providers::usdt_provider::UsdtProvider;

/// A registry over the fake tracefs and a fake kallsyms, with the real provider order.
fn fake_machine_registry(tracefs: &ScratchDirectory) -> ProbeRegistry {
    tracefs.write("kallsyms", "ffffffff81000000 T vfs_read\nffffffff81000100 t helper\nffffffffc0000000 t mod_fn\t[mymod]\n");
    let tracefs_root = Tracefs::at(tracefs.path());
    ProbeRegistry::new(vec![
        Box::new(DtraceProvider),
        Box::new(SyscallProvider::new(Some(tracefs_root.clone()))),
        Box::new(ProfileProvider),
        Box::new(SdtProvider::new(Some(tracefs_root))),
        Box::new(FbtProvider::new(
            tracefs.path().join("kallsyms"),
            tracefs.path().join("no-btf"),
        )),
        Box::new(PidProvider::new()),
        Box::new(UsdtProvider::new()),
    ])
}

/// The descriptions (as text) of the probes with `ids`.
fn described(registry: &ProbeRegistry, ids: &[u32]) -> Vec<String> {
    ids.iter()
        .map(|&id| {
            registry
                .probe(id)
                .expect("id exists")
                .description
                .to_string()
        })
        .collect()
}

/// Checks that `text` matches exactly the probes `expected` (as descriptions, in id
/// order).
fn check(registry: &mut ProbeRegistry, text: &str, expected: &[&str]) {
    let ids = registry.matching(&description(text)).expect("matching");
    assert_eq!(described(registry, &ids), expected, "{text}");
}

#[test]
fn dtrace_probes_own_the_first_ids() {
    let tracefs = fake_tracefs();
    let mut registry = fake_machine_registry(&tracefs);
    // Whatever is asked first, BEGIN, END and ERROR are 1, 2, 3 and the syscall probes
    // follow in number order.
    assert_eq!(
        registry
            .matching(&description("syscall::openat:entry"))
            .expect("matching"),
        [8]
    );
    assert_eq!(
        registry
            .matching(&description("dtrace:::BEGIN"))
            .expect("matching"),
        [1]
    );
    assert_eq!(
        registry.matching(&description(":::END")).expect("matching"),
        [2]
    );
    assert_eq!(
        registry
            .matching(&description("::ERROR:"))
            .expect("matching"),
        Vec::<u32>::new()
    );
    assert_eq!(
        registry
            .matching(&description(":::ERROR"))
            .expect("matching"),
        [3]
    );
    check(
        &mut registry,
        "syscall::read:",
        &["syscall:vmlinux:read:entry", "syscall:vmlinux:read:return"],
    );
    assert_eq!(
        registry
            .matching(&description("syscall::read:"))
            .expect("matching"),
        [4, 5]
    );
}

#[test]
fn ids_do_not_depend_on_query_order() {
    let tracefs = fake_tracefs();
    let queries = [
        "sdt:sched::sched_switch",
        ":::tick-1",
        "syscall::newstat:return",
        "fbt::vfs_read:entry",
        ":::BEGIN",
    ];
    let mut first = fake_machine_registry(&tracefs);
    let mut second = fake_machine_registry(&tracefs);
    let ids_first: Vec<Vec<u32>> = queries
        .iter()
        .map(|text| first.matching(&description(text)).expect("matching"))
        .collect();
    let ids_second: Vec<Vec<u32>> = queries
        .iter()
        .rev()
        .map(|text| second.matching(&description(text)).expect("matching"))
        .collect();
    let mut ids_second_in_order = ids_second;
    ids_second_in_order.reverse();
    assert_eq!(ids_first, ids_second_in_order);
    // Asking again gives the same ids.
    for (text, ids) in queries.iter().zip(&ids_first) {
        assert_eq!(
            &first.matching(&description(text)).expect("matching"),
            ids,
            "{text}"
        );
    }
}

#[test]
fn on_demand_probes_take_the_next_id_and_keep_it() {
    let tracefs = fake_tracefs();
    let mut registry = fake_machine_registry(&tracefs);
    let all_static = registry.list(&[], false).expect("listing").len() as u32;
    let tick = registry
        .matching(&description(":::tick-5s"))
        .expect("matching");
    assert_eq!(tick, [all_static + 1]);
    let profile = registry
        .matching(&description("profile:::profile-1234"))
        .expect("matching");
    assert_eq!(profile, [all_static + 2]);
    assert_eq!(
        registry
            .matching(&description("profile:::tick-5s"))
            .expect("matching"),
        tick
    );
    // Globs match on-demand probes once they exist.
    check(
        &mut registry,
        ":::tick-5*",
        &[
            "profile:::tick-500",
            "profile:::tick-5000",
            "profile:::tick-5s",
        ],
    );
}

#[test]
fn globs_and_empty_fields_match_across_providers() {
    let tracefs = fake_tracefs();
    let mut registry = fake_machine_registry(&tracefs);
    check(&mut registry, "::BEGIN:", &[]);
    check(&mut registry, "*:::BEGIN", &["dtrace:::BEGIN"]);
    check(
        &mut registry,
        "dtrace:::",
        &["dtrace:::BEGIN", "dtrace:::END", "dtrace:::ERROR"],
    );
    check(
        &mut registry,
        "[dp]*:::E*",
        &["dtrace:::END", "dtrace:::ERROR"],
    );
    check(
        &mut registry,
        ":::entry",
        &[
            "syscall:vmlinux:read:entry",
            "syscall:vmlinux:newstat:entry",
            "syscall:vmlinux:openat:entry",
            "syscall:vmlinux:brand_new_call:entry",
            "fbt:vmlinux:vfs_read:entry",
            "fbt:vmlinux:helper:entry",
            "fbt:mymod:mod_fn:entry",
        ],
    );
    check(
        &mut registry,
        "::*read:entry",
        &["syscall:vmlinux:read:entry", "fbt:vmlinux:vfs_read:entry"],
    );
    check(
        &mut registry,
        "s*:vmlinux:read:return",
        &["syscall:vmlinux:read:return"],
    );
    check(
        &mut registry,
        ":sched::",
        &["sdt:sched::sched_switch", "sdt:sched::sched_wakeup"],
    );
    check(
        &mut registry,
        "fbt:mymod::",
        &["fbt:mymod:mod_fn:entry", "fbt:mymod:mod_fn:return"],
    );
    check(&mut registry, "nosuch:::", &[]);
    // pid and usdt probes need a pid in the provider name: globs list none.
    check(&mut registry, "pid*:::entry", &[]);
}

#[test]
fn probe_by_id_reads_every_static_provider() {
    let tracefs = fake_tracefs();
    let mut registry = fake_machine_registry(&tracefs);
    let all = registry.list(&[], false).expect("listing");
    let last = all.last().expect("probes exist").entry.clone();
    assert_eq!(last.description.to_string(), "fbt:mymod:mod_fn:return");

    let mut fresh = fake_machine_registry(&tracefs);
    assert_eq!(fresh.probe(last.id), None, "nothing read yet");
    assert_eq!(
        fresh
            .probe_by_id(last.id)
            .expect("lookup")
            .map(|entry| entry.description.to_string()),
        Some(last.description.to_string())
    );
    assert_eq!(fresh.probe_by_id(0).expect("lookup"), None);
    assert_eq!(fresh.probe_by_id(u32::MAX).expect("lookup"), None);
}

#[test]
fn argument_types_errors_propagate() {
    let tracefs = fake_tracefs();
    let mut registry = fake_machine_registry(&tracefs);
    let ids = registry
        .matching(&description("sdt:sched::sched_wakeup"))
        .expect("matching");
    std::fs::remove_file(tracefs.path().join("events/sched/sched_wakeup/format")).expect("remove");
    assert!(registry.load_argument_types(ids[0]).is_err());
    assert!(registry
        .list(&[description("sdt:sched::sched_wakeup")], true)
        .is_err());
    assert_eq!(
        registry
            .load_argument_types(9_999_999)
            .expect("unknown id has no types"),
        Vec::<String>::new()
    );
}

#[test]
fn user_probe_queries_do_not_read_kernel_functions() {
    let tracefs = fake_tracefs();
    let mut registry = fake_machine_registry(&tracefs);
    let pid = std::process::id();
    let malloc = registry
        .matching(&description(&format!("pid{pid}:libc.so.6:malloc:entry")))
        .expect("matching");
    // dtrace (3), the fake syscalls (8), profile (13) and sdt (10) were read; fbt was not.
    assert_eq!(malloc, [3 + 8 + 13 + 10 + 1]);
    let fbt = registry
        .matching(&description("fbt::vfs_read:entry"))
        .expect("matching");
    assert_eq!(fbt, [malloc[0] + 1]);
}

#[test]
fn listing_follows_the_descriptions_in_order() {
    let tracefs = fake_tracefs();
    let mut registry = fake_machine_registry(&tracefs);
    let listed_names = |registry: &mut ProbeRegistry, texts: &[&str]| -> Vec<String> {
        let descriptions: Vec<_> = texts.iter().map(|text| description(text)).collect();
        registry
            .list(&descriptions, false)
            .expect("listing")
            .into_iter()
            .map(|listed| listed.entry.description.name.clone())
            .collect()
    };
    // dtrace -l lists statement after statement, not in id order: the profile probe
    // comes before BEGIN, and a description given twice is listed twice (each clause
    // is one statement here, as each clause is one ECB description in DTrace).
    assert_eq!(
        listed_names(
            &mut registry,
            &[
                "profile:::tick-1000",
                "dtrace:::BEGIN",
                "profile:::tick-1000"
            ]
        ),
        ["tick-1000", "BEGIN", "tick-1000"]
    );
}

#[test]
fn a_query_reads_no_provider_after_the_last_that_may_match_it() {
    let tracefs = fake_tracefs();
    let mut registry = fake_machine_registry(&tracefs);
    check(&mut registry, "dtrace:::BEGIN", &["dtrace:::BEGIN"]);
    let read = registry
        .matching(&description("syscall::read:entry"))
        .expect("matching");
    // The sdt provider was not read: its events, removed now, are gone for it.
    std::fs::remove_dir_all(tracefs.path().join("events/sched")).expect("remove");
    check(&mut registry, "sdt:sched::", &[]);
    // The ids are those of a registry that read everything cheap at once.
    let (tracefs_everything, tracefs_narrow, tracefs_tick) =
        (fake_tracefs(), fake_tracefs(), fake_tracefs());
    let mut everything = fake_machine_registry(&tracefs_everything);
    everything.matching(&description(":::")).expect("matching");
    assert_eq!(
        everything
            .matching(&description("syscall::read:entry"))
            .expect("matching"),
        read
    );
    // A probe created on demand after a narrow query still follows every cheap static
    // provider's probes.
    let mut narrow_first = fake_machine_registry(&tracefs_narrow);
    narrow_first
        .matching(&description("dtrace:::END"))
        .expect("matching");
    let tick_after_narrow = narrow_first
        .matching(&description(":::tick-5s"))
        .expect("matching");
    let tick_first = fake_machine_registry(&tracefs_tick)
        .matching(&description(":::tick-5s"))
        .expect("matching");
    assert_eq!(tick_after_narrow, tick_first);
}
