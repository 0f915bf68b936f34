//! The fbt provider: kernel function boundaries, `fbt:MODULE:FUNCTION:entry|return`.
//!
//! Functions come from `/proc/kallsyms` (text symbols; the module from the `[module]`
//! suffix, `vmlinux` otherwise), or from the kernel's BTF when kallsyms cannot be read.
//! Where tracefs's `available_filter_functions` can be read, only the functions it lists
//! are probes: the kernel refuses kprobes on many of the others (`notrace` code, say), and
//! one refused function would fail a whole `fbt::vfs_*:entry` enabling. (Kernels in
//! lockdown refuse to show that list; they have no kprobes to refuse anything either.)
//! Argument types come from BTF (vmlinux functions only): the parameters at entry, the
//! return offset and the returned value's type at return. Listing works on any
//! kernel; attaching needs kprobes or fentry, which not every kernel allows.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

use difvm::glob::field_matches;
use difvm::object::ProbeDescription;

use crate::attributes::{ProviderAttributes, FBT_ATTRIBUTES};
use crate::btf_functions::{BtfFunctions, VMLINUX_BTF_PATH};
use crate::error::ProviderError;
use crate::kernel_symbols::{read_kernel_functions, KernelFunction, KALLSYMS_PATH};
use crate::provider::{
    concrete_description, module_function_name_match, ProbeEntry, ProbeKind, Provider,
};
use crate::tracefs::TRACEFS_MOUNT_POINTS;

/// tracefs's list of the functions the kernel can trace, one per line (`name` or
/// `name [module]`).
const TRACEABLE_FUNCTIONS_FILE: &str = "available_filter_functions";

/// The type of a return probe's `args[0]`, the offset of the return in the function.
const RETURN_OFFSET_TYPE: &str = "int";

/// The module name of functions of the kernel image.
pub const KERNEL_IMAGE_MODULE: &str = "vmlinux";

/// The fbt provider.
#[derive(Debug)]
pub struct FbtProvider {
    kallsyms_path: PathBuf,
    btf_path: PathBuf,
    /// Where to look (in order) for the list of traceable functions; none for every
    /// function.
    traceable_functions_paths: Vec<PathBuf>,
    functions: OnceLock<Vec<KernelFunction>>,
    btf: OnceLock<Option<BtfFunctions>>,
}

impl FbtProvider {
    /// A provider reading the kallsyms and BTF files at the given paths.
    pub fn new(kallsyms_path: impl Into<PathBuf>, btf_path: impl Into<PathBuf>) -> FbtProvider {
        FbtProvider {
            kallsyms_path: kallsyms_path.into(),
            btf_path: btf_path.into(),
            traceable_functions_paths: Vec::new(),
            functions: OnceLock::new(),
            btf: OnceLock::new(),
        }
    }

    /// A provider reading this machine's `/proc/kallsyms` and `/sys/kernel/btf/vmlinux`,
    /// keeping the functions tracefs lists as traceable.
    pub fn for_this_machine() -> FbtProvider {
        let traceable = TRACEFS_MOUNT_POINTS
            .iter()
            .map(|root| PathBuf::from(root).join(TRACEABLE_FUNCTIONS_FILE))
            .collect();
        FbtProvider::new(KALLSYMS_PATH, VMLINUX_BTF_PATH).with_traceable_functions(traceable)
    }

    /// Keeps only the functions listed in the first of `paths` that can be read (every
    /// function when none can).
    pub fn with_traceable_functions(mut self, paths: Vec<PathBuf>) -> FbtProvider {
        self.traceable_functions_paths = paths;
        self
    }

    /// The names in the first readable, non-empty traceable-functions list.
    fn traceable_function_names(&self) -> Option<HashSet<String>> {
        self.traceable_functions_paths.iter().find_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            let names: HashSet<String> = text
                .lines()
                .filter_map(|line| line.split_whitespace().next())
                .map(str::to_string)
                .collect();
            (!names.is_empty()).then_some(names)
        })
    }

    /// The kernel functions, read once: kallsyms when it lists any, else BTF; only the
    /// traceable ones where the kernel says which those are.
    fn functions(&self) -> &[KernelFunction] {
        self.functions.get_or_init(|| {
            let mut functions = self.listed_functions();
            if let Some(traceable) = self.traceable_function_names() {
                functions.retain(|function| traceable.contains(&function.name));
            }
            functions
        })
    }

    /// Every kernel function: kallsyms when it lists any, else BTF.
    fn listed_functions(&self) -> Vec<KernelFunction> {
        match read_kernel_functions(&self.kallsyms_path) {
            Ok(functions) if !functions.is_empty() => functions,
            _ => self
                .btf()
                .map(|btf| {
                    btf.function_names()
                        .iter()
                        .map(|name| KernelFunction {
                            name: name.clone(),
                            module: None,
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// The kernel's BTF, read once; None when it cannot be read.
    fn btf(&self) -> Option<&BtfFunctions> {
        self.btf
            .get_or_init(|| BtfFunctions::read(&self.btf_path).ok())
            .as_ref()
    }
}

impl Provider for FbtProvider {
    fn name(&self) -> &str {
        "fbt"
    }

    fn enumeration_is_costly(&self) -> bool {
        true
    }

    fn may_match(&self, description: &ProbeDescription) -> bool {
        field_matches(&description.provider, "fbt")
            && (field_matches(&description.name, "entry")
                || field_matches(&description.name, "return"))
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        if !self.may_match(description) {
            return Ok(Vec::new());
        }
        let mut entries = Vec::new();
        for function in self.functions() {
            let module = function.module.as_deref().unwrap_or(KERNEL_IMAGE_MODULE);
            for (name, is_return) in [("entry", false), ("return", true)] {
                if module_function_name_match(description, module, &function.name, name) {
                    entries.push(ProbeEntry::new(
                        concrete_description("fbt", module, &function.name, name),
                        ProbeKind::KernelFunction {
                            module: function.module.clone(),
                            function: function.name.clone(),
                            is_return,
                        },
                    ));
                }
            }
        }
        Ok(entries)
    }

    /// An entry probe's `args[]` are the function's parameters; a return probe's are
    /// DTrace's: `args[0]` the offset of the return in the function (an `int`) and
    /// `args[1]` the value returned, of the function's return type (no `args[1]` for a
    /// function returning `void`).
    fn argument_types(&self, probe: &ProbeEntry) -> Result<Vec<String>, ProviderError> {
        let ProbeKind::KernelFunction {
            module: None,
            function,
            is_return,
        } = &probe.kind
        else {
            return Ok(Vec::new());
        };
        let Some(btf) = self.btf() else {
            return Ok(Vec::new());
        };
        if !*is_return {
            return Ok(btf.argument_types(function).unwrap_or_default());
        }
        Ok(match btf.return_type(function) {
            Some(returned) if returned == "void" => vec![RETURN_OFFSET_TYPE.to_string()],
            Some(returned) => vec![RETURN_OFFSET_TYPE.to_string(), returned],
            None => Vec::new(),
        })
    }

    fn attributes(&self) -> ProviderAttributes {
        FBT_ATTRIBUTES
    }
}
