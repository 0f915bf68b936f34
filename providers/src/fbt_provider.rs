//! The fbt provider: kernel function boundaries, `fbt:MODULE:FUNCTION:entry|return`.
//!
//! Functions come from `/proc/kallsyms` (text symbols; the module from the `[module]`
//! suffix, `vmlinux` otherwise), or from the kernel's BTF when kallsyms cannot be read.
//! Argument types come from BTF (vmlinux functions only). Listing works on any
//! kernel; attaching needs kprobes or fentry, which not every kernel allows.

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

/// The module name of functions of the kernel image.
pub const KERNEL_IMAGE_MODULE: &str = "vmlinux";

/// The fbt provider.
#[derive(Debug)]
pub struct FbtProvider {
    kallsyms_path: PathBuf,
    btf_path: PathBuf,
    functions: OnceLock<Vec<KernelFunction>>,
    btf: OnceLock<Option<BtfFunctions>>,
}

impl FbtProvider {
    /// A provider reading the kallsyms and BTF files at the given paths.
    pub fn new(kallsyms_path: impl Into<PathBuf>, btf_path: impl Into<PathBuf>) -> FbtProvider {
        FbtProvider {
            kallsyms_path: kallsyms_path.into(),
            btf_path: btf_path.into(),
            functions: OnceLock::new(),
            btf: OnceLock::new(),
        }
    }

    /// A provider reading this machine's `/proc/kallsyms` and `/sys/kernel/btf/vmlinux`.
    pub fn for_this_machine() -> FbtProvider {
        FbtProvider::new(KALLSYMS_PATH, VMLINUX_BTF_PATH)
    }

    /// The kernel functions, read once: kallsyms when it lists any, else BTF.
    fn functions(&self) -> &[KernelFunction] {
        self.functions
            .get_or_init(|| match read_kernel_functions(&self.kallsyms_path) {
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
            })
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

    fn argument_types(&self, probe: &ProbeEntry) -> Result<Vec<String>, ProviderError> {
        let ProbeKind::KernelFunction {
            module: None,
            function,
            ..
        } = &probe.kind
        else {
            return Ok(Vec::new());
        };
        Ok(self
            .btf()
            .and_then(|btf| btf.argument_types(function))
            .unwrap_or_default())
    }

    fn attributes(&self) -> ProviderAttributes {
        FBT_ATTRIBUTES
    }
}
