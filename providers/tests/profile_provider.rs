//! Profile probe names (§1.4 units and rules) and on-demand creation.

mod common;

use common::description;
use providers::profile_provider::{parse_profile_probe_name, ProfileProvider, ProfileRate};
use providers::provider::{ProbeKind, Provider};

/// Checks the parse of `name`: None, or (every_cpu, period_ns, frequency_hz).
fn check(name: &str, expected: Option<(bool, u64, Option<u64>)>) {
    let parsed = parse_profile_probe_name(name).map(
        |ProfileRate {
             every_cpu,
             period_ns,
             frequency_hz,
         }| (every_cpu, period_ns, frequency_hz),
    );
    assert_eq!(parsed, expected, "{name}");
}

#[test]
fn probe_names_and_units() {
    check("profile-997", Some((true, 1_003_009, Some(997))));
    check("profile-97", Some((true, 10_309_278, Some(97))));
    check("tick-1", Some((false, 1_000_000_000, Some(1))));
    check("tick-100hz", Some((false, 10_000_000, Some(100))));
    check("tick-100HZ", Some((false, 10_000_000, Some(100))));
    check("tick-1s", Some((false, 1_000_000_000, None)));
    check("tick-1sec", Some((false, 1_000_000_000, None)));
    check("tick-2SEC", Some((false, 2_000_000_000, None)));
    check("tick-10ms", Some((false, 10_000_000, None)));
    check("tick-10msec", Some((false, 10_000_000, None)));
    check("profile-500us", Some((true, 500_000, None)));
    check("profile-500usec", Some((true, 500_000, None)));
    check("tick-200000ns", Some((false, 200_000, None)));
    check("tick-200000nsec", Some((false, 200_000, None)));
    check("tick-1m", Some((false, 60_000_000_000, None)));
    check("tick-1min", Some((false, 60_000_000_000, None)));
    check("tick-1h", Some((false, 3_600_000_000_000, None)));
    check("tick-1hour", Some((false, 3_600_000_000_000, None)));
    check("tick-1d", Some((false, 86_400_000_000_000, None)));
    check("tick-1day", Some((false, 86_400_000_000_000, None)));
    // 5000 Hz is exactly 200 µs, the shortest period allowed; anything faster does
    // not exist.
    check("profile-5000", Some((true, 200_000, Some(5000))));
    check("profile-5001", None);
    check("tick-199us", None);
    check("tick-199999ns", None);
    // Malformed names.
    check("tick-0", None);
    check("tick-0s", None);
    check("tick-", None);
    check("tick-s", None);
    check("tick-1x", None);
    check("tick-1 s", None);
    check("tick--1", None);
    check("profile", None);
    check("ticks-1", None);
    check("tick-18446744073709551615d", None);
    check("tick-99999999999999999999999", None);
}

/// The names of the probes the provider returns for `text`.
fn probe_names(text: &str) -> Vec<String> {
    ProfileProvider
        .probes(&description(text))
        .expect("profile never fails")
        .into_iter()
        .map(|entry| entry.description.name)
        .collect()
}

#[test]
fn prelisted_probes_and_globs() {
    assert_eq!(
        probe_names("profile:::"),
        [
            "profile-97",
            "profile-199",
            "profile-499",
            "profile-997",
            "profile-1999",
            "profile-4001",
            "profile-4999",
            "tick-1",
            "tick-10",
            "tick-100",
            "tick-500",
            "tick-1000",
            "tick-5000"
        ]
    );
    assert_eq!(
        probe_names(":::tick-*"),
        [
            "tick-1",
            "tick-10",
            "tick-100",
            "tick-500",
            "tick-1000",
            "tick-5000"
        ]
    );
    // A glob never creates a probe, even when it could name only one rate.
    assert_eq!(probe_names(":::tick-5?"), Vec::<String>::new());
    assert_eq!(probe_names("syscall:::profile-97"), Vec::<String>::new());
    assert_eq!(
        probe_names("profile:vmlinux::profile-97"),
        Vec::<String>::new()
    );
}

#[test]
fn exact_names_create_probes_on_demand() {
    assert_eq!(probe_names(":::tick-5s"), ["tick-5s"]);
    assert_eq!(probe_names("profile:::profile-1234"), ["profile-1234"]);
    assert_eq!(probe_names("prof*:*::tick-10ms"), ["tick-10ms"]);
    // A pre-listed name is not duplicated.
    assert_eq!(probe_names(":::tick-1000"), ["tick-1000"]);
    // Too fast, or for another provider: no probe.
    assert_eq!(probe_names(":::profile-10000"), Vec::<String>::new());
    assert_eq!(probe_names("sdt:::tick-5s"), Vec::<String>::new());
    assert_eq!(probe_names("profile:m::tick-5s"), Vec::<String>::new());

    let entries = ProfileProvider
        .probes(&description(":::tick-5s"))
        .expect("profile never fails");
    assert_eq!(
        entries[0].kind,
        ProbeKind::Profile {
            period_ns: 5_000_000_000,
            frequency_hz: None,
            every_cpu: false
        }
    );
    assert_eq!(entries[0].description.to_string(), "profile:::tick-5s");
}
