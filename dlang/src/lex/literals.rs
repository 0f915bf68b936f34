//! Decoding of integer constants, character constants and string literals, with the
//! errors DTrace reports for malformed ones (D-REFERENCE.md §2.3–§2.5).

use crate::ast::{IntegerBase, IntegerSuffix};
use crate::diagnostics::{Diagnostic, ErrorTag, Span};

use super::token::IntegerLiteral;

/// Decodes an integer constant written as `text` (a run of letters and digits that
/// starts with a digit) at `span`.
pub(crate) fn decode_integer(text: &str, span: Span) -> Result<IntegerLiteral, Diagnostic> {
    let bytes = text.as_bytes();
    let (base, radix, digits_start) = if bytes.len() > 2
        && bytes[0] == b'0'
        && (bytes[1] == b'x' || bytes[1] == b'X')
        && bytes[2].is_ascii_hexdigit()
    {
        (IntegerBase::Hexadecimal, 16, 2)
    } else if bytes[0] == b'0' {
        (IntegerBase::Octal, 8, 0)
    } else {
        (IntegerBase::Decimal, 10, 0)
    };
    let mut value: u64 = 0;
    let mut position = digits_start;
    let mut overflow = false;
    while let Some(digit) = bytes
        .get(position)
        .and_then(|&byte| (byte as char).to_digit(radix))
    {
        match value
            .checked_mul(u64::from(radix))
            .and_then(|shifted| shifted.checked_add(u64::from(digit)))
        {
            Some(next) => value = next,
            None => overflow = true,
        }
        position += 1;
    }
    // DTrace converts with strtoull() first, so overflow of the valid digits is reported
    // before an invalid digit that follows them.
    if overflow {
        return Err(Diagnostic::new(
            ErrorTag::D_INT_OFLOW,
            span,
            format!("constant {text} results in integer overflow"),
        ));
    }
    let suffix = decode_integer_suffix(&bytes[position..]).map_err(|offset| {
        let invalid = text[position + offset..].chars().next().unwrap_or('?');
        Diagnostic::new(
            ErrorTag::D_INT_DIGIT,
            span.clone(),
            format!("constant {text} contains invalid digit {invalid}"),
        )
    })?;
    Ok(IntegerLiteral {
        value,
        base,
        suffix,
    })
}

/// Whether all of `text` is one integer constant as DTrace's lexer matches it
/// (`([0-9]+|0[xX][0-9A-Fa-f]+)[uU]?[lL]?[lL]?`), invalid octal digits included.
pub(crate) fn is_integer_token(text: &str) -> bool {
    let bytes = text.as_bytes();
    let hex_digits = bytes.get(2..).map_or(0, |rest| {
        rest.iter().take_while(|b| b.is_ascii_hexdigit()).count()
    });
    let digits_end =
        if bytes.len() > 2 && bytes[0] == b'0' && matches!(bytes[1], b'x' | b'X') && hex_digits > 0
        {
            2 + hex_digits
        } else {
            bytes.iter().take_while(|b| b.is_ascii_digit()).count()
        };
    if digits_end == 0 {
        return false;
    }
    let mut position = digits_end;
    if matches!(bytes.get(position), Some(b'u' | b'U')) {
        position += 1;
    }
    for _ in 0..2 {
        if matches!(bytes.get(position), Some(b'l' | b'L')) {
            position += 1;
        }
    }
    position == bytes.len()
}

/// Decodes an integer suffix as DTrace's lexer matches it: an optional `u`, then up
/// to two `l`s (either case each, so `lL` is `long long` too). On failure returns the
/// offset of the first character that does not fit.
fn decode_integer_suffix(suffix: &[u8]) -> Result<IntegerSuffix, usize> {
    let mut result = IntegerSuffix::default();
    let mut position = 0;
    if matches!(suffix.first(), Some(b'u' | b'U')) {
        result.unsigned = true;
        position += 1;
    }
    while result.long < 2 && matches!(suffix.get(position), Some(b'l' | b'L')) {
        result.long += 1;
        position += 1;
    }
    if position < suffix.len() {
        return Err(position);
    }
    Ok(result)
}

/// How a quoted literal ended when scanned.
pub(crate) enum QuotedScan {
    /// The closing quote is at this byte offset.
    Closed(usize),
    /// A raw newline is at this byte offset before any closing quote.
    Newline(usize),
    /// The input ended before the closing quote.
    EndOfInput,
}

/// Scans a quoted literal whose opening `quote` is at `start`; a backslash escapes the
/// character after it (but never a newline).
pub(crate) fn scan_quoted(source: &str, start: usize, quote: u8) -> QuotedScan {
    let bytes = source.as_bytes();
    let mut position = start + 1;
    while position < bytes.len() {
        match bytes[position] {
            byte if byte == quote => return QuotedScan::Closed(position),
            b'\n' => return QuotedScan::Newline(position),
            b'\\' if bytes.get(position + 1).is_some_and(|&next| next != b'\n') => position += 2,
            _ => position += 1,
        }
    }
    QuotedScan::EndOfInput
}

/// Translates the escapes of a string or character literal body exactly as DTrace's
/// `stresc2chr()` does (§2.5): the C escapes, `\"` and `\\`, octal with 1–3 digits, hex
/// with any number of digits truncated to a byte; any other `\c` stays as two bytes.
pub(crate) fn translate_escapes(body: &str) -> Vec<u8> {
    let bytes = body.as_bytes();
    let mut result = Vec::with_capacity(bytes.len());
    let mut position = 0;
    while position < bytes.len() {
        let byte = bytes[position];
        position += 1;
        if byte != b'\\' || position == bytes.len() {
            // A trailing lone backslash cannot occur in a scanned literal, but keep it
            // rather than lose it.
            result.push(byte);
            continue;
        }
        let escaped = bytes[position];
        position += 1;
        match escaped {
            b'0'..=b'7' => {
                let mut value = u32::from(escaped - b'0');
                let mut digits = 1;
                while digits < 3
                    && position < bytes.len()
                    && (b'0'..=b'7').contains(&bytes[position])
                {
                    value = value * 8 + u32::from(bytes[position] - b'0');
                    position += 1;
                    digits += 1;
                }
                result.push(value as u8);
            }
            b'a' => result.push(0x07),
            b'b' => result.push(0x08),
            b'f' => result.push(0x0c),
            b'n' => result.push(b'\n'),
            b'r' => result.push(b'\r'),
            b't' => result.push(b'\t'),
            b'v' => result.push(0x0b),
            b'x' => {
                let mut value: u32 = 0;
                while let Some(digit) = bytes
                    .get(position)
                    .and_then(|&byte| (byte as char).to_digit(16))
                {
                    value = value.wrapping_mul(16).wrapping_add(digit);
                    position += 1;
                }
                result.push(value as u8);
            }
            b'"' | b'\\' => result.push(escaped),
            other => {
                result.push(b'\\');
                result.push(other);
            }
        }
    }
    result
}

/// Packs the bytes of a character constant big-endian into an integer (`'ab'` is
/// 0x6162), with DTrace's errors for empty and over-long constants.
pub(crate) fn pack_character_constant(bytes: &[u8], span: Span) -> Result<u64, Diagnostic> {
    if bytes.is_empty() {
        return Err(Diagnostic::new(
            ErrorTag::D_CHR_NULL,
            span,
            "empty character constant",
        ));
    }
    if bytes.len() > 8 {
        return Err(Diagnostic::new(
            ErrorTag::D_CHR_OFLOW,
            span,
            "character constant is too long",
        ));
    }
    Ok(bytes
        .iter()
        .fold(0u64, |value, &byte| (value << 8) | u64::from(byte)))
}
