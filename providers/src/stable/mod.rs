//! The stable providers — `proc`, `sched`, `io`, `ip`, `tcp`, `udp` — whose probes DTrace scripts rely on
//! across kernels. Each probe is built on a probe this kernel has (a raw tracepoint
//! wherever one fires at the right moment, a system call probe, or, for the few that
//! no tracepoint can back, a kernel function where kprobes exist) and is described by
//! a table row: the underlying probe, a guard, and its arguments as D over the
//! underlying probe's arguments (`difvm::probe_derivation`), which the compiler applies
//! with the D library's translators (`psinfo_t`, `bufinfo_t`, `tcpsinfo_t`, …).
//!
//! A probe whose underlying probe this kernel lacks is not listed; naming it exactly
//! gives the reason. Probes are named `PROVIDER:vmlinux::NAME`, as Oracle's DTrace for
//! Linux names them.

mod io_probes;
mod kernel_sources;
mod network_probes;
mod proc_probes;
mod sched_probes;

use std::sync::Arc;

use difvm::glob::{field_matches, is_glob_pattern};
use difvm::object::ProbeDescription;
use difvm::probe_derivation::{ArgumentTranslation, DerivedArgument, ProbeDerivation};

use crate::attributes::{ProviderAttributes, STABLE_ATTRIBUTES};
use crate::error::ProviderError;
use crate::provider::{concrete_description, ProbeEntry, ProbeKind, Provider};
use crate::syscall_table::syscall_by_probe_function;
pub use kernel_sources::KernelProbeSources;

/// The module field of every stable probe.
const STABLE_MODULE: &str = "vmlinux";

/// One probe of a stable provider.
pub(crate) struct StableProbe {
    pub name: &'static str,
    /// Empty, except where a probe has several underlying probes: each is then a probe
    /// of its own, its function the underlying event (`sched:vmlinux:sched_wakeup_new:wakeup`),
    /// as Solaris names a probe's sites, so that `sched:::wakeup` matches them all.
    pub function: &'static str,
    pub source: ProbeSource,
    /// D over the underlying probe's arguments that must hold for the probe to fire;
    /// `{tick_handler}` stands for the address of the kernel's tick timer function.
    pub guard: Option<&'static str>,
    pub arguments: &'static [StableArgument],
    /// The underlying argument holding the task the probe is about, when the
    /// underlying probe fires in another thread's context.
    pub subject_task_argument: Option<u8>,
}

/// One argument of a stable probe: its native C type, its native value as D over the
/// underlying probe's arguments, and what `args[N]` makes of it.
pub(crate) struct StableArgument {
    pub native_type: &'static str,
    pub value: &'static str,
    pub translation: Translation,
}

/// What `args[N]` of a stable probe is.
#[derive(Clone, Copy)]
pub(crate) enum Translation {
    Native,
    /// Translated to this type by the D library.
    To(&'static str),
    /// The user-space string the native value points at.
    UserString,
    /// Another value than the native one (of the given C type, as D over the
    /// underlying probe's arguments), translated to this type by the D library.
    ToFrom {
        translated_type: &'static str,
        native_type: &'static str,
        value: &'static str,
    },
    /// Not one of the probe's documented `args[]` (not listed): a value the library's
    /// translators read as `argN` (the tcp provider's TCP state and direction).
    /// Hidden arguments come after the documented ones.
    Hidden,
}

/// What a stable probe is built on.
pub(crate) enum ProbeSource {
    /// A raw tracepoint, by event name.
    RawTracepoint(&'static str),
    /// A system call's entry or return probe, by the syscall provider's function name.
    Syscall {
        function: &'static str,
        is_return: bool,
    },
    /// The entry of a kernel function, for probes no tracepoint can back: listed only
    /// where the kernel allows kprobes.
    KernelFunction(&'static str),
}

/// A stable provider: a name and its table of probes.
pub struct StableProvider {
    name: &'static str,
    probes: &'static [StableProbe],
    sources: Arc<KernelProbeSources>,
}

impl StableProvider {
    /// The stable providers of this machine, sharing what they read of the kernel.
    pub fn all(sources: Arc<KernelProbeSources>) -> Vec<StableProvider> {
        [
            ("proc", proc_probes::PROC_PROBES),
            ("sched", sched_probes::SCHED_PROBES),
            ("io", io_probes::IO_PROBES),
            ("ip", network_probes::IP_PROBES),
            ("tcp", network_probes::TCP_PROBES),
            ("udp", network_probes::UDP_PROBES),
        ]
        .into_iter()
        .map(|(name, probes)| StableProvider {
            name,
            probes,
            sources: Arc::clone(&sources),
        })
        .collect()
    }

    /// The entry of `probe`, or why this kernel cannot back it.
    fn entry(&self, probe: &StableProbe) -> Result<ProbeEntry, String> {
        let kind = self.underlying_kind(&probe.source)?;
        let guard = match probe.guard {
            Some(guard) if guard.contains(TICK_HANDLER) => {
                let address = self.sources.tick_handler_address().ok_or_else(|| {
                    "the kernel's tick timer function is not in /proc/kallsyms".to_string()
                })?;
                Some(guard.replace(TICK_HANDLER, &format!("{address:#x}")))
            }
            guard => guard.map(str::to_string),
        };
        let derivation = ProbeDerivation {
            guard,
            arguments: probe.arguments.iter().map(derived_argument).collect(),
            subject_task_argument: probe.subject_task_argument,
        };
        let mut entry = ProbeEntry::new(
            concrete_description(self.name, STABLE_MODULE, probe.function, probe.name),
            kind,
        );
        entry.argument_types = probe
            .arguments
            .iter()
            .zip(&derivation.arguments)
            .filter(|(argument, _)| !matches!(argument.translation, Translation::Hidden))
            .map(|(_, argument)| argument.argument_type().to_string())
            .collect();
        entry.derivation = Some(Arc::new(derivation));
        Ok(entry)
    }

    fn underlying_kind(&self, source: &ProbeSource) -> Result<ProbeKind, String> {
        match source {
            ProbeSource::RawTracepoint(event) => {
                let argument_count = self
                    .sources
                    .raw_tracepoint_argument_count(event)
                    .ok_or_else(|| format!("this kernel has no {event} tracepoint"))?;
                Ok(ProbeKind::RawTracepoint {
                    event: event.to_string(),
                    argument_count,
                })
            }
            ProbeSource::Syscall {
                function,
                is_return,
            } => {
                let syscall = syscall_by_probe_function(function)
                    .ok_or_else(|| format!("this machine has no {function} system call"))?;
                Ok(ProbeKind::Syscall {
                    number: Some(syscall.number),
                    event: function.to_string(),
                    is_return: *is_return,
                })
            }
            ProbeSource::KernelFunction(function) => {
                if !self.sources.has_kprobes() {
                    return Err("it needs kprobes or fentry, which this kernel refuses".to_string());
                }
                Ok(ProbeKind::KernelFunction {
                    module: None,
                    function: function.to_string(),
                    is_return: false,
                })
            }
        }
    }
}

/// The placeholder of a guard for the tick timer function's address.
const TICK_HANDLER: &str = "{tick_handler}";

fn derived_argument(argument: &StableArgument) -> DerivedArgument {
    DerivedArgument {
        native_type: argument.native_type.to_string(),
        value: argument.value.to_string(),
        translation: match argument.translation {
            Translation::Native | Translation::Hidden => ArgumentTranslation::Native,
            Translation::To(ty) => ArgumentTranslation::Translated(ty.to_string()),
            Translation::UserString => ArgumentTranslation::UserString,
            Translation::ToFrom {
                translated_type,
                native_type,
                value,
            } => ArgumentTranslation::TranslatedFrom {
                translated_type: translated_type.to_string(),
                native_type: native_type.to_string(),
                value: value.to_string(),
            },
        },
    }
}

impl Provider for StableProvider {
    fn name(&self) -> &str {
        self.name
    }

    /// Listing a stable provider reads BTF (raw tracepoint prototypes), so it is read
    /// only for descriptions that may name one of its probes.
    fn enumeration_is_costly(&self) -> bool {
        true
    }

    fn may_match(&self, description: &ProbeDescription) -> bool {
        field_matches(&description.provider, self.name)
            && field_matches(&description.module, STABLE_MODULE)
            && self.probes.iter().any(|probe| {
                field_matches(&description.function, probe.function)
                    && field_matches(&description.name, probe.name)
            })
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        if !self.may_match(description) {
            return Ok(Vec::new());
        }
        let mut entries = Vec::new();
        for probe in self.probes.iter().filter(|probe| {
            field_matches(&description.function, probe.function)
                && field_matches(&description.name, probe.name)
        }) {
            match self.entry(probe) {
                Ok(entry) => entries.push(entry),
                // Named exactly, an unavailable probe says why; a glob skips it.
                Err(reason) if names_exactly(description, self.name, probe.name) => {
                    return Err(ProviderError::Unavailable {
                        message: format!(
                            "probe {}:{}:{}:{} is not available: {reason}",
                            self.name, STABLE_MODULE, probe.function, probe.name
                        ),
                    });
                }
                Err(_) => {}
            }
        }
        Ok(entries)
    }

    fn attributes(&self) -> ProviderAttributes {
        STABLE_ATTRIBUTES
    }
}

/// Whether `description` names the probe `provider:::name` without a glob.
fn names_exactly(description: &ProbeDescription, provider: &str, name: &str) -> bool {
    description.name == name
        && !is_glob_pattern(&description.provider)
        && description.provider == provider
}
