//! The name field of a pid probe description: `entry`, `return`, a hex instruction
//! offset as DTrace reads it, or a pattern.

use difvm::glob::is_glob_pattern;

use crate::error::{ProviderError, UserProbeErrorTag};

/// What a description's name field asks of each matching function.
pub(crate) enum PidProbeNames {
    /// A pattern (an empty name is `*`): the entry and return probes and the probe of
    /// each instruction whose hex offset it matches, as DTrace's
    /// `dt_pid_create_glob_offset_probes` makes them.
    Pattern(String),
    /// The entry probe.
    Entry,
    /// The return probe.
    Return,
    /// The instruction at this offset from the function's start.
    Offset(u64),
}

/// Interprets the name field: empty or a glob is a pattern; `entry`, `return` or a hex
/// offset (with or without `0x`) select one probe; anything else is D_PROC_NAME.
pub(crate) fn parse_pid_probe_names(name: &str) -> Result<PidProbeNames, ProviderError> {
    if name.is_empty() {
        return Ok(PidProbeNames::Pattern("*".to_string()));
    }
    if is_glob_pattern(name) {
        return Ok(PidProbeNames::Pattern(name.to_string()));
    }
    match name {
        "entry" => return Ok(PidProbeNames::Entry),
        "return" => return Ok(PidProbeNames::Return),
        _ => {}
    }
    hex_offset(name)
        .map(PidProbeNames::Offset)
        .ok_or_else(|| ProviderError::UserProbe {
            tag: UserProbeErrorTag::Name,
            message: format!("'{name}' is an invalid probe name"),
        })
}

/// Reads a probe name as DTrace does with `strtoull(name, &end, 16)` and a check that
/// the whole name was read: leading white space, an optional sign (a negative offset
/// wraps around, so it is then beyond any function), an optional `0x`, and hex digits,
/// saturating at the largest offset. None when something else is left over.
fn hex_offset(name: &str) -> Option<u64> {
    let text = name.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, text) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let has_hex_after_prefix = |rest: &str| rest.starts_with(|c: char| c.is_ascii_hexdigit());
    let digits = match text.get(..2) {
        Some("0x" | "0X") if has_hex_after_prefix(&text[2..]) => &text[2..],
        _ => text,
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let value = digits.chars().try_fold(0u64, |value, digit| {
        value
            .checked_mul(16)?
            .checked_add(u64::from(digit.to_digit(16)?))
    });
    Some(match value {
        None => u64::MAX,
        Some(value) if negative => value.wrapping_neg(),
        Some(value) => value,
    })
}
