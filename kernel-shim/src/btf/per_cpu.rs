//! The kernel's per-CPU variables as BTF lists them: the `VAR`s of the `.data..percpu`
//! data section, each with its offset in that section, which on x86_64 is also the
//! variable's offset from the start of every CPU's per-CPU area.

use std::collections::HashMap;

use super::kinds::BtfKind;
use super::names::BtfNamespace;
use super::reader::Btf;

/// The data section of per-CPU variables.
pub const PER_CPU_DATA_SECTION: &str = ".data..percpu";

impl Btf {
    /// Every per-CPU variable: its `VAR` id and its offset in the per-CPU area.
    pub fn per_cpu_variables(&self) -> HashMap<u32, u32> {
        let mut variables = HashMap::new();
        for id in self.own_type_ids() {
            let Some(ty) = self.type_by_id(id) else {
                continue;
            };
            if ty.name != PER_CPU_DATA_SECTION {
                continue;
            }
            if let BtfKind::DataSection(section) = ty.kind {
                variables.extend(section.iter().map(|entry| (entry.ty, entry.offset)));
            }
        }
        variables
    }

    /// The offset in the per-CPU area of the per-CPU variable `name`.
    pub fn per_cpu_variable_offset(&self, name: &str) -> Option<u32> {
        let id = self.named(BtfNamespace::Variable, name)?;
        self.per_cpu_variables().get(&id).copied()
    }
}
