//! Attachment planning: what the kernel engine must attach for each enabled probe, and
//! which context the probe program reads its arguments from. Providers own this mapping
//! (they know what their probes are); `kernel_shim::runtime` performs the bpf(2) and
//! perf_event_open(2) calls a plan names, and the consumer only asks for the plans.

use difvm::object::{EnabledProbe, PROBE_ID_ERROR};
use kernel_shim::runtime::{AttachTarget, ClockCpus, Marker, ProbeInstrumentation, ProbePlan};
use kernel_shim::sys::CpuClockRate;
use kernel_shim::translate::{ContextKind, ReturnOffset, TracepointField};

use crate::provider::{DtraceProbe, ProbeEntry, ProbeKind, UprobeSite};
use crate::tracefs::{mount_tracefs_if_missing, EventFormat};
use crate::tracepoint_arguments::tracepoint_arguments;

/// The plans of every probe that `enabled_probes` enable, once per probe, in the order
/// they are first enabled. `probes` holds the registry entry of every probe id in
/// `enabled_probes`. ERROR has no plan: its clauses run inside every other probe's
/// program. Errors are the text after `dtrace: could not enable tracing: `.
pub fn plan_enabled_probes(
    enabled_probes: &[EnabledProbe],
    probes: &[ProbeEntry],
) -> Result<Vec<ProbePlan>, String> {
    let mut plans: Vec<ProbePlan> = Vec::new();
    for enabled in enabled_probes {
        if enabled.probe_id == PROBE_ID_ERROR
            || plans.iter().any(|plan| plan.probe_id == enabled.probe_id)
        {
            continue;
        }
        let entry = probes
            .iter()
            .find(|entry| entry.id == enabled.probe_id)
            .ok_or_else(|| format!("probe {} ({}) is unknown", enabled.probe_id, enabled.probe))?;
        if let Some(plan) = probe_plan(entry)? {
            plans.push(plan);
        }
    }
    Ok(plans)
}

/// How the kernel engine instruments `probe`; None for ERROR, whose clauses run inside
/// every other probe's program.
pub fn probe_plan(probe: &ProbeEntry) -> Result<Option<ProbePlan>, String> {
    let name = probe.description.to_string();
    let targets = |context: ContextKind, targets: Vec<AttachTarget>| {
        ProbeInstrumentation::Targets { context, targets }
    };
    if let Some(argument) = subject_task_argument(probe) {
        if !matches!(probe.kind, ProbeKind::RawTracepoint { argument_count, .. } if argument < argument_count.min(10))
        {
            return Err(format!(
                "{name}: the thread it is about (argument {argument}) is not an argument of a raw tracepoint"
            ));
        }
    }
    let mut exit_recorders = Vec::new();
    let instrumentation = match &probe.kind {
        ProbeKind::Dtrace(DtraceProbe::Begin) => ProbeInstrumentation::Marker(Marker::Begin),
        ProbeKind::Dtrace(DtraceProbe::End) => ProbeInstrumentation::Marker(Marker::End),
        ProbeKind::Dtrace(DtraceProbe::Error) => return Ok(None),
        ProbeKind::Syscall {
            number: Some(number),
            is_return,
            ..
        } => ProbeInstrumentation::Syscall {
            number: *number,
            is_return: *is_return,
        },
        ProbeKind::Syscall { number: None, .. } => {
            return Err(format!(
                "{name}: the kernel engine does not know this system call's number"
            ))
        }
        ProbeKind::Profile {
            period_ns,
            every_cpu,
            ..
        } => targets(
            ContextKind::PerfEvent,
            vec![AttachTarget::CpuClock {
                rate: CpuClockRate::PeriodNs(*period_ns),
                cpus: if *every_cpu {
                    ClockCpus::Every
                } else {
                    ClockCpus::One
                },
            }],
        ),
        ProbeKind::Tracepoint { group, event } => {
            let tracefs = mount_tracefs_if_missing().map_err(|error| format!("{name}: {error}"))?;
            let format = tracefs
                .event_format(group, event)
                .map_err(|error| format!("{name}: {error}"))?;
            targets(
                ContextKind::Tracepoint {
                    fields: tracepoint_fields(&format),
                },
                vec![AttachTarget::Tracepoint {
                    group: group.clone(),
                    event: event.clone(),
                }],
            )
        }
        ProbeKind::RawTracepoint {
            event,
            argument_count,
        } => targets(
            ContextKind::RawTracepoint {
                argument_count: *argument_count,
                // A stable probe about another thread than the one its tracepoint runs
                // in (`sched:::on-cpu`) reads that thread's built-ins from the task
                // in this argument.
                subject_task_argument: subject_task_argument(probe),
            },
            vec![AttachTarget::RawTracepoint {
                name: event.clone(),
            }],
        ),
        ProbeKind::Uprobe {
            pid,
            is_return,
            sites,
        } => {
            // A return probe's arg0, the offset of the instruction its function left
            // by: in the uretprobe's cookie when the function has one way out, else
            // recorded at each exit under the probe's id, the uretprobe's cookie.
            let return_offset = if !*is_return {
                ReturnOffset::Unknown
            } else if sites.iter().all(|site| site.return_offset.is_some()) {
                ReturnOffset::Cookie
            } else if sites.iter().all(|site| !site.return_exits.is_empty()) {
                ReturnOffset::Recorded
            } else {
                ReturnOffset::Unknown
            };
            let uprobe = |site: &UprobeSite, offset: u64, return_probe: bool, cookie: u64| {
                AttachTarget::Uprobe {
                    path: site.path.clone(),
                    file_offset: site.file_offset + offset,
                    return_probe,
                    semaphore_offset: site.semaphore_file_offset,
                    pid: pid.map(|pid| pid as i32),
                    cookie,
                }
            };
            if return_offset == ReturnOffset::Recorded {
                exit_recorders = sites
                    .iter()
                    .flat_map(|site| {
                        site.return_exits.iter().map(|&exit| {
                            uprobe(site, exit, false, u64::from(probe.id) << 32 | exit)
                        })
                    })
                    .collect();
            }
            targets(
                ContextKind::Uprobe {
                    return_probe: *is_return,
                    process: *pid,
                    return_offset,
                    function_entry: !*is_return && sites.iter().all(|site| site.function_entry),
                },
                sites
                    .iter()
                    .map(|site| {
                        let cookie = match return_offset {
                            ReturnOffset::Cookie => site.return_offset.unwrap_or(0),
                            ReturnOffset::Recorded => u64::from(probe.id),
                            ReturnOffset::Unknown => 0,
                        };
                        uprobe(site, 0, *is_return, cookie)
                    })
                    .collect(),
            )
        }
        ProbeKind::KernelFunction {
            function,
            is_return,
            ..
        } => targets(
            ContextKind::Kprobe {
                return_probe: *is_return,
            },
            vec![AttachTarget::Kprobe {
                function: function.clone(),
                return_probe: *is_return,
            }],
        ),
    };
    Ok(Some(ProbePlan {
        probe_id: probe.id,
        name,
        instrumentation,
        exit_recorders,
    }))
}

/// The underlying argument holding the task a derived probe is about, when that is not
/// the thread its underlying probe fires in.
fn subject_task_argument(probe: &ProbeEntry) -> Option<u8> {
    probe
        .derivation
        .as_ref()
        .and_then(|derivation| derivation.subject_task_argument)
}

/// The arguments of a tracepoint program: every field of the event after the common
/// header, in order (`arg0`…`arg9` are the first ten; see `tracepoint_arguments` for
/// what each holds).
pub fn tracepoint_fields(format: &EventFormat) -> Vec<TracepointField> {
    tracepoint_arguments(format)
        .into_iter()
        .map(|argument| argument.field)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::concrete_description;

    fn entry(id: u32, name: &str, kind: ProbeKind) -> ProbeEntry {
        ProbeEntry {
            id,
            ..ProbeEntry::new(concrete_description("test", "", "", name), kind)
        }
    }

    fn enabled(epid: u32, probe: &ProbeEntry) -> EnabledProbe {
        EnabledProbe {
            epid,
            probe_id: probe.id,
            probe: probe.description.clone(),
            statement: 0,
        }
    }

    #[test]
    fn each_probe_is_planned_once_and_error_not_at_all() {
        let begin = entry(1, "BEGIN", ProbeKind::Dtrace(DtraceProbe::Begin));
        let error = entry(
            PROBE_ID_ERROR,
            "ERROR",
            ProbeKind::Dtrace(DtraceProbe::Error),
        );
        let tick = entry(
            7,
            "tick-1s",
            ProbeKind::Profile {
                period_ns: 1_000_000_000,
                frequency_hz: Some(1),
                every_cpu: false,
            },
        );
        let syscall = entry(
            9,
            "entry",
            ProbeKind::Syscall {
                number: Some(110),
                event: "getppid".to_string(),
                is_return: false,
            },
        );
        let probes = [begin.clone(), error.clone(), tick.clone(), syscall.clone()];
        let enablings = [
            enabled(1, &tick),
            enabled(2, &begin),
            enabled(3, &error),
            enabled(4, &tick),
            enabled(5, &syscall),
        ];
        let plans = plan_enabled_probes(&enablings, &probes).unwrap();
        let planned: Vec<(u32, &ProbeInstrumentation)> = plans
            .iter()
            .map(|plan| (plan.probe_id, &plan.instrumentation))
            .collect();
        let tick_targets = ProbeInstrumentation::Targets {
            context: ContextKind::PerfEvent,
            targets: vec![AttachTarget::CpuClock {
                rate: CpuClockRate::PeriodNs(1_000_000_000),
                cpus: ClockCpus::One,
            }],
        };
        let getppid = ProbeInstrumentation::Syscall {
            number: 110,
            is_return: false,
        };
        assert_eq!(
            planned,
            [
                (7, &tick_targets),
                (1, &ProbeInstrumentation::Marker(Marker::Begin)),
                (9, &getppid),
            ]
        );
        assert_eq!(plans[0].name, "test:::tick-1s");
    }

    #[test]
    fn unknown_probes_and_syscall_numbers_are_errors() {
        let unnumbered = entry(
            4,
            "entry",
            ProbeKind::Syscall {
                number: None,
                event: "new_call".to_string(),
                is_return: false,
            },
        );
        let error = plan_enabled_probes(&[enabled(1, &unnumbered)], &[]).unwrap_err();
        assert_eq!(error, "probe 4 (test:::entry) is unknown");
        let error = plan_enabled_probes(&[enabled(1, &unnumbered)], &[unnumbered]).unwrap_err();
        assert_eq!(
            error,
            "test:::entry: the kernel engine does not know this system call's number"
        );
    }

    #[test]
    fn return_probes_take_arg0_from_the_cookie_or_from_recorded_exits() {
        let site = |return_offset: Option<u64>, return_exits: Vec<u64>| UprobeSite {
            path: std::path::PathBuf::from("/bin/prog"),
            file_offset: 0x1000,
            semaphore_file_offset: None,
            usdt_arguments: None,
            return_offset,
            return_exits,
            function_entry: true,
        };
        let plan_of = |site: UprobeSite| {
            let probe = entry(
                5,
                "return",
                ProbeKind::Uprobe {
                    pid: Some(42),
                    is_return: true,
                    sites: vec![site],
                },
            );
            probe_plan(&probe).unwrap().unwrap()
        };
        let target = |file_offset: u64, return_probe: bool, cookie: u64| AttachTarget::Uprobe {
            path: std::path::PathBuf::from("/bin/prog"),
            file_offset,
            return_probe,
            semaphore_offset: None,
            pid: Some(42),
            cookie,
        };
        let context = |return_offset: ReturnOffset| ContextKind::Uprobe {
            return_probe: true,
            process: Some(42),
            return_offset,
            function_entry: false,
        };
        // One way out: its offset is the uretprobe's cookie.
        let single = plan_of(site(Some(0x1c), Vec::new()));
        assert_eq!(
            single.instrumentation,
            ProbeInstrumentation::Targets {
                context: context(ReturnOffset::Cookie),
                targets: vec![target(0x1000, true, 0x1c)],
            }
        );
        assert!(single.exit_recorders.is_empty());
        // Several: a recorder at each exit, under the probe's id.
        let several = plan_of(site(None, vec![0x13, 0x1d]));
        assert_eq!(
            several.instrumentation,
            ProbeInstrumentation::Targets {
                context: context(ReturnOffset::Recorded),
                targets: vec![target(0x1000, true, 5)],
            }
        );
        assert_eq!(
            several.exit_recorders,
            [
                target(0x1013, false, 5 << 32 | 0x13),
                target(0x101d, false, 5 << 32 | 0x1d)
            ]
        );
        // Neither: arg0 stays 0.
        let unknown = plan_of(site(None, Vec::new()));
        assert_eq!(
            unknown.instrumentation.context(),
            context(ReturnOffset::Unknown)
        );
    }
}
