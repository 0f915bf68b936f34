//! The `Provider` trait and the probe entry every provider produces: a concrete probe
//! description, its argument types and what a later attach step needs to instrument it.

use std::path::PathBuf;
use std::sync::Arc;

use difvm::glob::field_matches;
use difvm::object::ProbeDescription;
use difvm::probe_derivation::ProbeDerivation;

use crate::attributes::ProviderAttributes;
use crate::error::ProviderError;

/// One probe of this machine, as the registry knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeEntry {
    /// The probe id, unique and stable within a run. Providers hand entries to the
    /// registry with `id == 0`; the registry assigns the real id.
    pub id: u32,
    /// The concrete description (no globs, no empty fields except where the probe's
    /// module or function really is empty, as for `dtrace:::BEGIN`).
    pub description: ProbeDescription,
    /// C type names of `args[0]`, `args[1]`, … (empty when the probe has no typed
    /// arguments or they have not been loaded; see [`Provider::argument_types`]).
    pub argument_types: Vec<String>,
    /// What the attach step needs to instrument the probe.
    pub kind: ProbeKind,
    /// For a probe built on another (the stable providers), its guard and arguments as
    /// D over the underlying probe's arguments: `kind` then instruments the underlying
    /// probe.
    pub derivation: Option<Arc<ProbeDerivation>>,
}

impl ProbeEntry {
    /// An entry with no id yet and no argument types.
    pub fn new(description: ProbeDescription, kind: ProbeKind) -> ProbeEntry {
        ProbeEntry {
            id: 0,
            description,
            argument_types: Vec::new(),
            kind,
            derivation: None,
        }
    }
}

/// The probes of the dtrace provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DtraceProbe {
    Begin,
    End,
    Error,
}

/// Where and how a probe is instrumented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeKind {
    /// `dtrace:::BEGIN`, `END`, `ERROR`.
    Dtrace(DtraceProbe),
    /// A system call entry or return. `number` is the x86_64 syscall number used to
    /// dispatch inside the shared `raw_syscalls` program (None when the running kernel
    /// has a syscall our table does not know); `event` is the tracefs event suffix
    /// (`openat` for `syscalls:sys_enter_openat`).
    Syscall {
        number: Option<u32>,
        event: String,
        is_return: bool,
    },
    /// A timer probe. `period_ns` is the interval; `frequency_hz` is set when the rate
    /// was written in Hz (perf's frequency mode can then be used as is); `every_cpu` is
    /// true for `profile-*` (one event per CPU) and false for `tick-*` (one CPU).
    Profile {
        period_ns: u64,
        frequency_hz: Option<u64>,
        every_cpu: bool,
    },
    /// A kernel tracepoint `events/GROUP/EVENT`.
    Tracepoint { group: String, event: String },
    /// A raw tracepoint (rawtp): `event` is the tracepoint's name, `argument_count` the
    /// number of its raw arguments (after the tracepoint's data pointer).
    RawTracepoint { event: String, argument_count: u8 },
    /// A user-space probe: pid provider (one site) or USDT (every site of the probe).
    /// `pid` is the process the probe belongs to (None for probes listed from a file).
    Uprobe {
        pid: Option<u32>,
        is_return: bool,
        sites: Vec<UprobeSite>,
    },
    /// A kernel function boundary (fbt). `module` is None for vmlinux.
    KernelFunction {
        module: Option<String>,
        function: String,
        is_return: bool,
    },
}

/// One instrumentation site of a user-space probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UprobeSite {
    /// The object file to give the kernel (possibly through `/proc/PID/root`).
    pub path: PathBuf,
    /// File offset of the instruction to probe (uprobes take file offsets).
    pub file_offset: u64,
    /// File offset of the USDT semaphore (`ref_ctr_offset`), when the probe has one.
    pub semaphore_file_offset: Option<u64>,
    /// The USDT argument specification (`-4@112(%rsp) 8@%rbx`), when this is a USDT site.
    pub usdt_arguments: Option<String>,
    /// For a pid return probe (a uretprobe at the function's start) whose function has
    /// one way out, a `ret`: that instruction's offset in the function, the probe's
    /// `arg0`.
    pub return_offset: Option<u64>,
    /// For a pid return probe whose function may leave by several instructions: their
    /// offsets (rets, jumps out of it, indirect jumps). Each records, for the thread,
    /// that the function left there, and the uretprobe reads which one it was (`arg0`).
    pub return_exits: Vec<u64>,
    /// Whether the site is a function's first instruction (pid entry and offset 0
    /// probes), where the return address is on top of the stack.
    pub function_entry: bool,
}

/// A source of probes.
///
/// `probes` answers a description: it returns every probe of this provider whose four
/// fields match, creating probes on demand where the provider does that (`tick-5s`,
/// `pid1234::malloc:entry`). Entries come back with `id == 0`; ids are the registry's
/// business. Providers are `Send + Sync` so a registry can move between threads.
pub trait Provider: Send + Sync {
    /// The provider's name as in descriptions (`syscall`, `pid`, `usdt`, …).
    fn name(&self) -> &str;

    /// Every probe of this provider matching `description`, in the provider's natural
    /// order (deterministic for a given machine state).
    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError>;

    /// Probes `description` names in objects not loaded yet, asked for when it matched
    /// nothing and zero matches are allowed (`-Z`): they fire once the object is loaded,
    /// as DTrace's descriptions matched again when a process loads a library. None by
    /// default.
    fn deferred_probes(
        &self,
        _description: &ProbeDescription,
    ) -> Result<Vec<ProbeEntry>, ProviderError> {
        Ok(Vec::new())
    }

    /// A cheap test of whether any probe of this provider could match `description`;
    /// the registry does not ask (or read, if costly) a provider that answers false.
    /// The default checks only the provider field.
    fn may_match(&self, description: &ProbeDescription) -> bool {
        field_matches(&description.provider, self.name())
    }

    /// False for providers whose probes all exist only on demand (pid, usdt): the
    /// registry then never asks them for "all probes".
    fn has_static_probes(&self) -> bool {
        true
    }

    /// True for providers whose full enumeration is expensive (fbt reads kallsyms): the
    /// registry reads them only for descriptions that may match them.
    fn enumeration_is_costly(&self) -> bool {
        false
    }

    /// The C type names of the probe's arguments. Providers whose types are costly to
    /// read (tracefs `format` files) leave `argument_types` empty in [`Provider::probes`]
    /// and load them here; the default returns what the entry already carries.
    fn argument_types(&self, probe: &ProbeEntry) -> Result<Vec<String>, ProviderError> {
        Ok(probe.argument_types.clone())
    }

    /// The provider's stability attributes (for `-v` listings).
    fn attributes(&self) -> ProviderAttributes;
}

/// True when `description`'s module, function and name fields match the probe's.
pub fn module_function_name_match(
    description: &ProbeDescription,
    module: &str,
    function: &str,
    name: &str,
) -> bool {
    field_matches(&description.module, module)
        && field_matches(&description.function, function)
        && field_matches(&description.name, name)
}

/// True when every field of `description` matches the concrete `probe` description.
pub fn description_matches(description: &ProbeDescription, probe: &ProbeDescription) -> bool {
    field_matches(&description.provider, &probe.provider)
        && module_function_name_match(description, &probe.module, &probe.function, &probe.name)
}

/// Builds a concrete description from its four fields.
pub fn concrete_description(
    provider: &str,
    module: &str,
    function: &str,
    name: &str,
) -> ProbeDescription {
    ProbeDescription {
        provider: provider.to_string(),
        module: module.to_string(),
        function: function.to_string(),
        name: name.to_string(),
    }
}
