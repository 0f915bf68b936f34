//! Statement stability (dt_attr_min()): each clause's attributes are the minimum over
//! the identifiers its predicate and actions use, each with DTrace's built-in
//! attributes (`probe*` and `args[]` those of the clause's probes) or the ones
//! `#pragma D attributes` gave it; under `-x amin` an identifier below the minimum is
//! refused (D_ATTR_MIN).

use difvm::object::ProbeDescription;
use difvm::provider_attributes::UNSTABLE_DESCRIPTION;
use difvm::stability::{Attribute, DependencyClass, Stability, STABLE_COMMON};

use super::library::is_library_inline;
use super::{error, Analyzer, InlineInfo, SemaResult};
use crate::diagnostics::{ErrorTag, Span};
use crate::probes::{description_matches, ProbeInfo};

/// Built-ins DTrace declares Evolving/Evolving/Common (`DT_ATTR_EVOLCMN`): the
/// byte-order conversions and the kernel lock and device-number subroutines.
const EVOLVING_BUILTINS: &[&str] = &[
    "getmajor",
    "getminor",
    "htonl",
    "htonll",
    "htons",
    "ntohl",
    "ntohll",
    "ntohs",
    "mutex_owned",
    "mutex_owner",
    "mutex_type_adaptive",
    "mutex_type_spin",
    "rw_iswriter",
    "rw_read_held",
    "rw_write_held",
];

/// The attributes of built-in identifier `name` in DTrace's tables.
fn table_attributes(name: &str) -> Attribute {
    if name == "curthread" {
        Attribute::new(
            Stability::Stable,
            Stability::Private,
            DependencyClass::Common,
        )
    } else if EVOLVING_BUILTINS.contains(&name) {
        Attribute::new(
            Stability::Evolving,
            Stability::Evolving,
            DependencyClass::Common,
        )
    } else {
        STABLE_COMMON
    }
}

impl Analyzer<'_> {
    /// The attributes of built-in identifier `name` in the clause being analysed, from
    /// DTrace's tables (`_dtrace_globals`): `curthread` names a kernel structure whose
    /// layout is Private; the few Evolving subroutines; everything else
    /// Stable/Stable/Common; except what dt_setcontext() resets for each clause, the
    /// `probe*` variables to its descriptions' attributes and `args[]` to its probes'
    /// arguments'.
    pub(super) fn builtin_attributes(&self, name: &str) -> Attribute {
        match name {
            "probeprov" | "probemod" | "probefunc" | "probename" => self.probe_attributes.0,
            "args" => self.probe_attributes.1,
            _ => table_attributes(name),
        }
    }

    /// The attributes of the program's own identifier `name`: what `#pragma D
    /// attributes` gave it, else D's default.
    pub(super) fn declared_attributes(&self, name: &str) -> Attribute {
        self.pragma_attributes
            .get(name)
            .copied()
            .unwrap_or(STABLE_COMMON)
    }

    /// Runs `analysis` of the body of `inline` (with its bindings in place), and
    /// records the use of the inline with its attributes: those `#pragma D attributes`
    /// gave it, else the minimum of its body's and D's default (dt_node_inline()). The system library's inlines
    /// stand for DTrace's built-ins, which its library declares Stable/Stable/Common,
    /// so their bodies (which read Private kernel data) count for nothing, not even
    /// against `amin`.
    pub(super) fn inline_body<T>(
        &mut self,
        inline: &InlineInfo,
        span: &Span,
        analysis: impl FnOnce(&mut Self) -> SemaResult<T>,
    ) -> SemaResult<T> {
        let name = inline.definition.name.as_str();
        let library = is_library_inline(name);
        let clause_attributes = std::mem::replace(&mut self.clause_attributes, STABLE_COMMON);
        let minimum = self.settings.minimum_attributes;
        if library {
            self.settings.minimum_attributes = None;
        }
        let result = analysis(self);
        self.settings.minimum_attributes = minimum;
        let body_attributes = std::mem::replace(&mut self.clause_attributes, clause_attributes);
        let attributes = match self.pragma_attributes.get(name) {
            Some(&attributes) => attributes,
            None if library => STABLE_COMMON,
            None => body_attributes,
        };
        let value = result?;
        let kind = if inline.parameters.is_empty() {
            "scalar"
        } else {
            "associative array"
        };
        self.use_attributes(kind, name, attributes, span)?;
        Ok(value)
    }

    /// Sets what dt_probe_info() gives for the clause about to be analysed, whose
    /// descriptions are `descriptions`: the attributes of the descriptions (those of
    /// `probeprov`, `probemod`, `probefunc` and `probename`) and of their probes'
    /// arguments (those of `args[]`), each the minimum over the descriptions. A
    /// description that matched no probe, or several whose provider does not promise
    /// they share their arguments, has Unstable/Unstable/Common for both
    /// (`_dtrace_prvdesc`).
    pub(super) fn set_probe_attributes(&mut self, descriptions: &[ProbeDescription]) {
        let mut minimum = (STABLE_COMMON, STABLE_COMMON);
        let Some(clause) = &self.clause else {
            return;
        };
        for description in descriptions {
            let probes: Vec<&ProbeInfo> = clause
                .probes
                .iter()
                .flat_map(|(_, probes)| probes)
                .filter(|probe| description_matches(description, &probe.description))
                .collect();
            let provider = probes.first().and_then(|probe| {
                let attributes = self.catalog.provider_attributes(probe)?;
                Some(
                    attributes
                        .with_settings(&probe.description.provider, &self.provider_attributes),
                )
            });
            let described = match provider {
                Some(provider) if probes.len() == 1 || provider.shares_arguments(description) => (
                    provider.description(description),
                    provider.described_arguments(description),
                ),
                _ => (UNSTABLE_DESCRIPTION, UNSTABLE_DESCRIPTION),
            };
            minimum = (
                minimum.0.minimum(described.0),
                minimum.1.minimum(described.1),
            );
        }
        self.probe_attributes = minimum;
    }

    /// Runs `analysis` with no effect on the clause's attributes and no `amin` check.
    pub(super) fn without_attributes<T>(&mut self, analysis: impl FnOnce(&mut Self) -> T) -> T {
        let clause_attributes = self.clause_attributes;
        let minimum = self.settings.minimum_attributes.take();
        let result = analysis(self);
        self.settings.minimum_attributes = minimum;
        self.clause_attributes = clause_attributes;
        result
    }

    /// Records a use of identifier `name` (messages call it `kind name`) with
    /// `attributes` in the clause being analysed, refusing it when it is below the
    /// `amin` minimum (dt_node_attr_assign()).
    pub(super) fn use_attributes(
        &mut self,
        kind: &str,
        name: &str,
        attributes: Attribute,
        span: &Span,
    ) -> SemaResult<()> {
        if let Some(minimum) = self.settings.minimum_attributes {
            if attributes.is_below(minimum) {
                return Err(error(
                    ErrorTag::D_ATTR_MIN,
                    span,
                    format!(
                        "attributes for {kind} {name} ({attributes}) are less than predefined minimum"
                    ),
                ));
            }
        }
        self.clause_attributes = self.clause_attributes.minimum(attributes);
        Ok(())
    }
}
