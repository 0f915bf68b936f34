//! The look-ups of `#pragma D depends_on`, `#pragma D attributes` and `#pragma D
//! binding` (D-REFERENCE.md §1.3), as dt_pragma.c makes them. The lexer has already
//! checked the shape of their words (`lex::control`); what is left needs the probes of
//! this machine or the identifiers the program has declared.

use difvm::object::ProbeDescription;
use difvm::stability::{Attribute, ProviderAttributeSetting, ProviderComponent};

use super::functions::lookup_function;
use super::library::is_library_inline;
use super::variables::VariableScope;
use super::{error, Analyzer, SemaResult};
use crate::ast::Pragma;
use crate::diagnostics::ErrorTag;

impl Analyzer<'_> {
    /// `#pragma D depends_on provider|module|library NAME`: the program requires a
    /// provider or a kernel module this machine has; a main program may not depend on
    /// a library (only library files may). Other pragmas are left to
    /// [`Analyzer::apply_identifier_pragma`].
    pub(super) fn apply_dependency_pragma(&mut self, pragma: &Pragma) -> SemaResult<()> {
        let [pragma_name, class, name, ..] = pragma.words.as_slice() else {
            return Ok(());
        };
        if pragma_name != "depends_on" {
            return Ok(());
        }
        let found = match class.as_str() {
            "provider" => self.has_probes(ProbeDescription {
                provider: name.clone(),
                ..ProbeDescription::default()
            }),
            "module" => self.has_probes(ProbeDescription {
                module: name.clone(),
                ..ProbeDescription::default()
            }),
            _ => {
                return Err(error(
                    ErrorTag::D_PRAGMA_DEPEND,
                    &pragma.span,
                    "main program may not explicitly depend on a library",
                ))
            }
        };
        if found {
            Ok(())
        } else {
            Err(error(
                ErrorTag::D_PRAGMA_DEPEND,
                &pragma.span,
                format!("program requires {class} {name}"),
            ))
        }
    }

    /// `#pragma D attributes ATTR NAME` and `#pragma D binding "VERSION" NAME`: the
    /// name must be the program's own (a variable or inline it declared before the
    /// pragma), not one DTrace defines (D_PRAGMA_SCOPE); `attributes` also accepts
    /// `provider NAME PART` for a provider this machine has. The attributes of the
    /// program's identifiers become those of the statements that use them (`-v`,
    /// `amin`); a binding does not change what the program does.
    pub(super) fn apply_identifier_pragma(&mut self, pragma: &Pragma) -> SemaResult<()> {
        let (pragma_name, value, target) = match pragma.words.as_slice() {
            [pragma_name, value, target, ..] if pragma_name != "depends_on" => {
                (pragma_name, value, target)
            }
            _ => return Ok(()),
        };
        let scope_error = || {
            error(
                ErrorTag::D_PRAGMA_SCOPE,
                &pragma.span,
                format!("#pragma {pragma_name} cannot modify entity defined outside program scope"),
            )
        };
        if pragma_name == "attributes" && target == "provider" {
            return self.apply_provider_attributes(pragma);
        }
        let declared = match self.variables.global(target) {
            Some(id) if self.variables.get(id).scope == VariableScope::Builtin => {
                return Err(scope_error())
            }
            Some(_) => true,
            None => self.inlines.contains_key(target.as_str()),
        };
        if declared {
            if pragma_name == "attributes" {
                if let Some(attributes) = Attribute::parse(value) {
                    self.pragma_attributes.insert(target.clone(), attributes);
                }
            }
            return Ok(());
        }
        if lookup_function(target).is_some() || is_library_inline(target) {
            return Err(scope_error());
        }
        if pragma_name == "binding" {
            // DTrace creates the identifier with the binding when it does not exist.
            return Ok(());
        }
        Err(error(
            ErrorTag::D_PRAGMA_INVAL,
            &pragma.span,
            format!("invalid name \"{target}\" specified by #pragma {pragma_name}"),
        ))
    }

    /// `#pragma D attributes ATTR provider NAME PART`. dt_pragma.c names the provider
    /// as the component and the component as the provider in its message; so do we.
    fn apply_provider_attributes(&mut self, pragma: &Pragma) -> SemaResult<()> {
        let [_, _, _, provider, rest @ ..] = pragma.words.as_slice() else {
            return Ok(());
        };
        if !self.has_probes(ProbeDescription {
            provider: provider.clone(),
            ..ProbeDescription::default()
        }) {
            return Err(error(
                ErrorTag::D_PRAGMA_INVAL,
                &pragma.span,
                format!("invalid name \"{provider}\" specified by #pragma attributes"),
            ));
        }
        let Some(part) = rest.first() else {
            return Ok(());
        };
        if let Some(component) = ProviderComponent::from_word(part) {
            if let Some(attributes) = Attribute::parse(&pragma.words[1]) {
                self.provider_attributes.push(ProviderAttributeSetting {
                    provider: provider.clone(),
                    component,
                    attributes,
                });
            }
            Ok(())
        } else {
            Err(error(
                ErrorTag::D_PRAGMA_INVAL,
                &pragma.span,
                format!(
                    "invalid component \"{provider}\" in attribute #pragma for provider {part}"
                ),
            ))
        }
    }

    /// Whether any probe of this machine matches `description` (names with glob
    /// characters name nothing, as DTrace looks providers and modules up by name).
    pub(super) fn has_probes(&self, description: ProbeDescription) -> bool {
        let is_glob = |field: &str| field.contains(['*', '?', '[', '\\']);
        if is_glob(&description.provider) || is_glob(&description.module) {
            return false;
        }
        !self.catalog.matching(&description).is_empty()
    }
}
