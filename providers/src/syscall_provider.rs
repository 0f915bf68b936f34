//! The syscall provider: `syscall:vmlinux:NAME:entry` and `:return` for every system
//! call of the running kernel.
//!
//! The syscalls that exist are the tracefs events `syscalls/sys_enter_NAME`; the probe
//! function is NAME (the kernel entry point without `sys_`, e.g. `newstat`), and the
//! number comes from the built-in x86_64 table. When tracefs cannot be read (not
//! mounted, or no permission, as for a non-root compile-only run) the provider falls
//! back to the built-in table, so syscall names are still known; argument types are then
//! unavailable and the list may name syscalls this kernel was built without.

use std::sync::OnceLock;

use difvm::glob::field_matches;
use difvm::object::ProbeDescription;

use crate::attributes::{ProviderAttributes, SYSCALL_ATTRIBUTES};
use crate::error::ProviderError;
use crate::provider::{
    concrete_description, module_function_name_match, ProbeEntry, ProbeKind, Provider,
};
use crate::syscall_table::{syscall_by_probe_function, X86_64_SYSCALLS};
use crate::tracefs::Tracefs;

/// The module every syscall probe lists, as DTrace on Linux shows it.
pub const SYSCALL_MODULE: &str = "vmlinux";

/// The tracefs event group holding the per-syscall events.
const SYSCALLS_GROUP: &str = "syscalls";

/// One system call the provider offers.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SyscallFunction {
    /// Probe function name and tracefs event suffix (`openat`).
    function: String,
    /// x86_64 number, when the built-in table knows the syscall.
    number: Option<u32>,
}

/// The syscall provider.
#[derive(Debug)]
pub struct SyscallProvider {
    tracefs: Option<Tracefs>,
    functions: OnceLock<(Vec<SyscallFunction>, bool)>,
}

impl SyscallProvider {
    /// A provider reading syscall events from `tracefs` (None: use the built-in table).
    pub fn new(tracefs: Option<Tracefs>) -> SyscallProvider {
        SyscallProvider {
            tracefs,
            functions: OnceLock::new(),
        }
    }

    /// True when the syscall list came from the built-in table because tracefs could
    /// not be read.
    pub fn uses_builtin_table(&self) -> bool {
        self.loaded().1
    }

    /// The syscalls, in number order (syscalls unknown to the table last, by name),
    /// and whether they came from the built-in table.
    fn loaded(&self) -> &(Vec<SyscallFunction>, bool) {
        self.functions.get_or_init(|| {
            match self
                .tracefs
                .as_ref()
                .map(|tracefs| tracefs.events(SYSCALLS_GROUP))
            {
                Some(Ok(events)) => (functions_from_events(&events), false),
                _ => (functions_from_table(), true),
            }
        })
    }
}

/// The syscalls named by tracefs `sys_enter_*` events.
fn functions_from_events(events: &[String]) -> Vec<SyscallFunction> {
    let mut functions: Vec<SyscallFunction> = events
        .iter()
        .filter_map(|event| event.strip_prefix("sys_enter_"))
        .map(|function| SyscallFunction {
            function: function.to_string(),
            number: syscall_by_probe_function(function).map(|entry| entry.number),
        })
        .collect();
    functions.sort_by(|a, b| {
        (a.number.is_none(), a.number, &a.function).cmp(&(
            b.number.is_none(),
            b.number,
            &b.function,
        ))
    });
    functions
}

/// Every implemented syscall of the built-in table.
fn functions_from_table() -> Vec<SyscallFunction> {
    X86_64_SYSCALLS
        .iter()
        .filter_map(|entry| {
            entry.probe_function().map(|function| SyscallFunction {
                function: function.to_string(),
                number: Some(entry.number),
            })
        })
        .collect()
}

impl Provider for SyscallProvider {
    fn name(&self) -> &str {
        "syscall"
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        if !field_matches(&description.provider, "syscall") {
            return Ok(Vec::new());
        }
        let mut entries = Vec::new();
        for syscall in &self.loaded().0 {
            for (name, is_return) in [("entry", false), ("return", true)] {
                if module_function_name_match(description, SYSCALL_MODULE, &syscall.function, name)
                {
                    entries.push(ProbeEntry::new(
                        concrete_description("syscall", SYSCALL_MODULE, &syscall.function, name),
                        ProbeKind::Syscall {
                            number: syscall.number,
                            event: syscall.function.clone(),
                            is_return,
                        },
                    ));
                }
            }
        }
        Ok(entries)
    }

    fn argument_types(&self, probe: &ProbeEntry) -> Result<Vec<String>, ProviderError> {
        let (
            ProbeKind::Syscall {
                event, is_return, ..
            },
            Some(tracefs),
        ) = (&probe.kind, &self.tracefs)
        else {
            return Ok(Vec::new());
        };
        if self.uses_builtin_table() {
            return Ok(Vec::new());
        }
        let event_name = format!(
            "{}{}",
            if *is_return {
                "sys_exit_"
            } else {
                "sys_enter_"
            },
            event
        );
        let format = tracefs.event_format(SYSCALLS_GROUP, &event_name)?;
        Ok(format
            .argument_fields()
            .filter(|field| field.name != "__syscall_nr")
            .map(|field| field.c_type.clone())
            .collect())
    }

    fn attributes(&self) -> ProviderAttributes {
        SYSCALL_ATTRIBUTES
    }
}
