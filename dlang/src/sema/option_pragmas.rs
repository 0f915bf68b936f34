//! `#pragma D option` in a program: the compile-time options it sets (string and stack
//! sizes, scratch space, …) and the record of every option for the engine and consumer.

use super::{error, Analyzer, SemaResult};
use crate::ast::OptionPragma;
use crate::diagnostics::ErrorTag;

impl Analyzer<'_> {
    /// `#pragma D option name[=value]`: recorded for the engine and consumer, and
    /// applied at once when it is a compile-time option.
    pub(super) fn apply_option(&mut self, pragma: &OptionPragma) -> SemaResult<()> {
        let value = pragma.value.as_deref();
        let invalid = || {
            error(
                ErrorTag::D_PRAGMA_OPTSET,
                &pragma.span,
                match value {
                    Some(value) => format!("failed to set option '{}' to '{value}': Invalid value for specified option", pragma.name),
                    None => format!("failed to set option '{}': Invalid value for specified option", pragma.name),
                },
            )
        };
        let flag = || parse_boolean(value);
        match pragma.name.as_str() {
            "strsize" => {
                let size = value
                    .and_then(parse_size)
                    .filter(|&size| size > 0 && size <= u64::from(u32::MAX))
                    .ok_or_else(invalid)?;
                self.types.set_string_size(size as u32);
            }
            "defaultargs" => self.settings.default_arguments = flag().ok_or_else(invalid)?,
            "argref" => self.settings.argument_references = flag().ok_or_else(invalid)?,
            "zdefs" => self.settings.zero_matches_allowed = flag().ok_or_else(invalid)?,
            "empty" => self.settings.empty_programs_allowed = flag().ok_or_else(invalid)?,
            "stackframes" => {
                self.settings.stack_frames = parse_frames(value).ok_or_else(invalid)?
            }
            "ustackframes" => {
                self.settings.user_stack_frames = parse_frames(value).ok_or_else(invalid)?
            }
            "jstackframes" => {
                self.settings.java_stack_frames = parse_frames(value).ok_or_else(invalid)?
            }
            "jstackstrsize" => {
                self.settings.java_stack_string_size = value
                    .and_then(parse_size)
                    .map(|size| size as u32)
                    .ok_or_else(invalid)?
            }
            "maxframes" => self.settings.max_frames = Some(parse_count(value).ok_or_else(invalid)?),
            "scratchsize" => {
                self.settings.scratch_size = value.and_then(parse_size).ok_or_else(invalid)?
            }
            "printsize" => {
                self.settings.print_size = value.and_then(parse_size).ok_or_else(invalid)?
            }
            "amin" => {
                let minimum = value.and_then(difvm::stability::Attribute::parse);
                self.settings.minimum_attributes = Some(minimum.ok_or_else(invalid)?)
            }
            "errtags" => self.errtags = Some(flag().ok_or_else(invalid)?),
            _ => {}
        }
        self.pragma_options
            .push((pragma.name.clone(), pragma.value.clone()));
        Ok(())
    }
}

/// A boolean option value: no value means on.
fn parse_boolean(value: Option<&str>) -> Option<bool> {
    let Some(value) = value else {
        return Some(true);
    };
    match value.to_ascii_lowercase().as_str() {
        "" | "no" | "disable" | "disabled" | "false" | "off" | "unset" | "0" => Some(false),
        "yes" | "enable" | "enabled" | "true" | "on" | "set" | "1" => Some(true),
        _ => None,
    }
}

/// A C-syntax unsigned integer (decimal, `0x` hex, `0` octal).
fn parse_unsigned(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if text.len() > 1 && text.starts_with('0') {
        u64::from_str_radix(&text[1..], 8).ok()
    } else {
        text.parse().ok()
    }
}

/// A default stack depth: any unsigned integer, 0 included, as libdtrace's runtime
/// integer options take (`-x stackframes=0` and its pragma agree).
fn parse_frames(value: Option<&str>) -> Option<u32> {
    value
        .and_then(parse_unsigned)
        .filter(|&count| count <= u64::from(u32::MAX))
        .map(|count| count as u32)
}

fn parse_count(value: Option<&str>) -> Option<u32> {
    value
        .and_then(parse_unsigned)
        .filter(|&count| count > 0 && count <= u64::from(u32::MAX))
        .map(|count| count as u32)
}

/// A size with an optional `k m g t` suffix (powers of 1024).
fn parse_size(text: &str) -> Option<u64> {
    let (digits, multiplier) = match text.chars().last()? {
        'k' | 'K' => (&text[..text.len() - 1], 1u64 << 10),
        'm' | 'M' => (&text[..text.len() - 1], 1 << 20),
        'g' | 'G' => (&text[..text.len() - 1], 1 << 30),
        't' | 'T' => (&text[..text.len() - 1], 1 << 40),
        _ => (text, 1),
    };
    parse_unsigned(digits)?.checked_mul(multiplier)
}
