//! Probe descriptions (§1.4): macro expansion, probe ids, filling fields from the
//! right according to the option that supplied the program, and matching against the
//! probe catalog (D_PDESC_ZERO unless zdefs).

use difvm::object::ProbeDescription;

use super::{error, Analyzer, SemaResult};
use crate::ast::ProbeSpecifier;
use crate::diagnostics::ErrorTag;
use crate::options::{ProbeSpecifierOption, ProgramOrigin};
use crate::probes::ProbeInfo;

/// How many fields an option's descriptions may have; the last field given lands in
/// the last of them (name for `-n`, function for `-f`, …).
fn field_count(option: ProbeSpecifierOption) -> usize {
    match option {
        ProbeSpecifierOption::Name | ProbeSpecifierOption::Identifier => 4,
        ProbeSpecifierOption::Function => 3,
        ProbeSpecifierOption::Module => 2,
        ProbeSpecifierOption::Provider => 1,
    }
}

/// The field word used when a probe id is given to an option that names a field.
fn field_word(option: ProbeSpecifierOption) -> &'static str {
    match option {
        ProbeSpecifierOption::Name | ProbeSpecifierOption::Identifier => "name",
        ProbeSpecifierOption::Function => "function",
        ProbeSpecifierOption::Module => "module",
        ProbeSpecifierOption::Provider => "provider",
    }
}

/// Splits a description on the `:` not escaped by a backslash.
fn split_fields(text: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
            if let Some(field) = fields.last_mut() {
                field.push(c);
            }
            continue;
        }
        match c {
            '\\' => {
                escaped = true;
                if let Some(field) = fields.last_mut() {
                    field.push(c);
                }
            }
            ':' => fields.push(String::new()),
            _ => {
                if let Some(field) = fields.last_mut() {
                    field.push(c);
                }
            }
        }
    }
    fields
}

impl Analyzer<'_> {
    /// Resolves one probe specifier of a clause: its description (fields filled,
    /// macros expanded) and the probes it matches.
    pub(super) fn resolve_probe_specifier(
        &mut self,
        specifier: &ProbeSpecifier,
        origin: &ProgramOrigin,
    ) -> SemaResult<(ProbeDescription, Vec<ProbeInfo>)> {
        let span = &specifier.span;
        let option = match origin {
            ProgramOrigin::Script { .. } => ProbeSpecifierOption::Name,
            ProgramOrigin::CommandLine(option) => *option,
        };
        let text = self.expand_description_macros(&specifier.text, span)?;
        let is_identifier = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if is_identifier || option == ProbeSpecifierOption::Identifier {
            if !is_identifier {
                return Err(error(
                    ErrorTag::D_PDESC_INVAL,
                    span,
                    format!("invalid probe identifier {text}: Unknown probe identifier"),
                ));
            }
            if matches!(
                option,
                ProbeSpecifierOption::Provider
                    | ProbeSpecifierOption::Module
                    | ProbeSpecifierOption::Function
            ) {
                return Err(error(
                    ErrorTag::D_PDESC_INVAL,
                    span,
                    format!(
                        "probe identifier {text} not permitted when specifying {}",
                        field_word(option)
                    ),
                ));
            }
            let probe = text
                .parse::<u32>()
                .ok()
                .and_then(|id| self.catalog.probe_by_id(id))
                .ok_or_else(|| {
                    error(
                        ErrorTag::D_PDESC_INVAL,
                        span,
                        format!("invalid probe identifier {text}: Unknown probe identifier"),
                    )
                })?;
            return Ok((probe.description.clone(), vec![probe]));
        }
        let fields = split_fields(&text);
        let allowed = field_count(option);
        if fields.len() > allowed {
            return Err(error(
                ErrorTag::D_PDESC_INVAL,
                span,
                format!(
                    "invalid probe description \"{}\": Overspecified probe description",
                    specifier.text
                ),
            ));
        }
        // Fill from the right: the last field given is the option's field.
        let mut filled = vec![String::new(); 4];
        let first = allowed - fields.len();
        for (offset, field) in fields.into_iter().enumerate() {
            filled[first + offset] = field;
        }
        let mut filled = filled.into_iter();
        let mut next = || filled.next().unwrap_or_default();
        let description = ProbeDescription {
            provider: next(),
            module: next(),
            function: next(),
            name: next(),
        };
        let probes = self.catalog.matching(&description);
        if probes.is_empty() {
            if let Some(refusal) = self.catalog.refusal(&description) {
                return Err(error(refusal.tag, span, refusal.message));
            }
        }
        if probes.is_empty() && !self.settings.zero_matches_allowed {
            return Err(error(
                ErrorTag::D_PDESC_ZERO,
                span,
                format!("probe description {description} does not match any probes"),
            ));
        }
        Ok((description, probes))
    }
}
