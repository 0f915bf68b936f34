//! Kernel variables in expressions: `` `cpu_number `` and `` vmlinux`max_pfn `` name the
//! kernel's variable of that name, read with its BTF type from this CPU's instance (a
//! per-CPU variable) or from its kallsyms address; `extern int max_pfn;` declares one
//! with a type of the program's choosing, which its plain name then reads.

use super::access::Place;
use super::ir::{AddressSpace, TypedExpr, TypedExprKind};
use super::{error, Analyzer, SemaResult};
use crate::diagnostics::{ErrorTag, Span};
use crate::kernel_types::{KernelVariableError, KernelVariableLocation};
use crate::types::TypeId;

impl Analyzer<'_> {
    /// The place of the kernel variable `` module`name `` (`module` empty for
    /// `` `name ``).
    pub(super) fn kernel_variable_place(
        &mut self,
        module: &str,
        name: &str,
        span: &Span,
    ) -> SemaResult<Place> {
        let declared = module
            .is_empty()
            .then(|| self.extern_variables.get(name).copied())
            .flatten();
        self.typed_kernel_variable_place(module, name, declared, span)
    }

    /// `extern TYPE name;`: the kernel variable `name` read as `ty`. As in DTrace (whose
    /// `dt_module_extern` enters a symbol the kernel lacks as a placeholder), the
    /// declaration itself never fails: an unknown symbol is an error only where the
    /// program reads it. So C headers included with `-C`, which declare many functions
    /// and variables of the C library, compile.
    pub(super) fn declare_extern(&mut self, name: &str, ty: TypeId) {
        self.extern_variables.insert(name.to_string(), ty);
    }

    /// The place of `` module`name `` as `declared` when given, else as BTF types it.
    fn typed_kernel_variable_place(
        &mut self,
        module: &str,
        name: &str,
        declared: Option<TypeId>,
        span: &Span,
    ) -> SemaResult<Place> {
        let written = format!("{module}`{name}");
        if !module.is_empty() && self.types.kernel_module() != Some(module) {
            return Err(error(
                ErrorTag::D_IDENT_UNDEF,
                span,
                format!("failed to resolve {written}: Unknown symbol name"),
            ));
        }
        let (variable, ty) = match self.types.kernel_variable(name) {
            Ok(found) => found,
            Err(KernelVariableError::Unknown) => {
                return Err(error(
                    ErrorTag::D_IDENT_UNDEF,
                    span,
                    format!("failed to resolve {written}: Unknown symbol name"),
                ))
            }
            Err(KernelVariableError::Unavailable(reason)) => {
                return Err(error(
                    ErrorTag::D_SYM_NOTYPES,
                    span,
                    format!("failed to resolve {written}: {reason}"),
                ))
            }
        };
        // A variable BTF does not describe (kallsyms knows only its address) is read as
        // a word; `*(int *)&`name` reads it as another type.
        let ty = declared
            .or(ty)
            .unwrap_or(self.types.well_known().unsigned_long);
        let pointer_type = self.types.pointer_to(ty);
        let kind = match variable.location {
            KernelVariableLocation::PerCpu {
                variable_id,
                section_offset,
            } => TypedExprKind::PerCpuVariableAddress {
                variable_id,
                section_offset,
            },
            KernelVariableLocation::Address(address) => TypedExprKind::Integer(address),
        };
        if self.kernel_type_read.is_none() {
            self.kernel_type_read = Some(format!("the kernel variable {written}"));
        }
        Ok(Place::Memory {
            address: TypedExpr {
                kind,
                ty: pointer_type,
                span: span.clone(),
            },
            ty,
            bit_field: None,
            space: AddressSpace::Kernel,
        })
    }
}
