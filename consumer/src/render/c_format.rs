//! C `printf` primitives: the padding, sign, precision and alternate-form rules of the C
//! library's integer, character, string and floating-point conversions, as glibc applies
//! them in the C locale. DTrace hands every value to the C library's printf; these
//! functions reproduce that output byte for byte.

/// The flags, width and precision of one C conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CFormatSpec {
    pub left_justify: bool,
    pub plus_sign: bool,
    pub space_sign: bool,
    pub alternate: bool,
    pub zero_pad: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

/// The digits of an unsigned conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Radix {
    Decimal,
    Octal,
    HexLower,
    HexUpper,
}

/// Appends `prefix` (sign or `0x`) and `digits`, padded to the width: spaces on the right
/// when left-justified, zeros between prefix and digits when zero padding applies,
/// otherwise spaces on the left.
fn pad_number(
    out: &mut String,
    spec: &CFormatSpec,
    prefix: &str,
    digits: &str,
    zeros_allowed: bool,
) {
    let length = prefix.len() + digits.len();
    let padding = spec.width.saturating_sub(length);
    if spec.left_justify {
        out.push_str(prefix);
        out.push_str(digits);
        push_repeated(out, ' ', padding);
    } else if spec.zero_pad && zeros_allowed {
        out.push_str(prefix);
        push_repeated(out, '0', padding);
        out.push_str(digits);
    } else {
        push_repeated(out, ' ', padding);
        out.push_str(prefix);
        out.push_str(digits);
    }
}

/// Appends `count` copies of `character`.
pub fn push_repeated(out: &mut String, character: char, count: usize) {
    out.extend(std::iter::repeat_n(character, count));
}

/// Applies an integer precision: at least `precision` digits, and no digits at all for
/// a zero value with precision 0.
fn apply_integer_precision(digits: String, precision: Option<usize>) -> String {
    match precision {
        Some(0) if digits == "0" => String::new(),
        Some(precision) if digits.len() < precision => {
            let mut padded = "0".repeat(precision - digits.len());
            padded.push_str(&digits);
            padded
        }
        _ => digits,
    }
}

/// `%d`/`%i` of a signed value.
pub fn format_signed(out: &mut String, spec: &CFormatSpec, value: i64) {
    let digits = apply_integer_precision(value.unsigned_abs().to_string(), spec.precision);
    let sign = if value < 0 {
        "-"
    } else if spec.plus_sign {
        "+"
    } else if spec.space_sign {
        " "
    } else {
        ""
    };
    pad_number(out, spec, sign, &digits, spec.precision.is_none());
}

/// `%u`, `%o`, `%x`, `%X` of an unsigned value.
pub fn format_unsigned(out: &mut String, spec: &CFormatSpec, value: u64, radix: Radix) {
    let digits = match radix {
        Radix::Decimal => value.to_string(),
        Radix::Octal => format!("{:o}", value),
        Radix::HexLower => format!("{:x}", value),
        Radix::HexUpper => format!("{:X}", value),
    };
    let mut digits = apply_integer_precision(digits, spec.precision);
    let mut prefix = "";
    if spec.alternate {
        match radix {
            // The alternate form of octal guarantees a leading zero.
            Radix::Octal if !digits.starts_with('0') => digits.insert(0, '0'),
            Radix::HexLower if value != 0 => prefix = "0x",
            Radix::HexUpper if value != 0 => prefix = "0X",
            _ => {}
        }
    }
    pad_number(out, spec, prefix, &digits, spec.precision.is_none());
}

/// `%s` of a byte string: at most `precision` bytes, padded with spaces to the width
/// (the `0` flag does not apply to strings), counted in bytes as C does. Bytes that are
/// not UTF-8 are kept as raw-byte escapes, so they reach the output unchanged.
pub fn format_bytes_as_string(out: &mut String, spec: &CFormatSpec, bytes: &[u8]) {
    let bytes = match spec.precision {
        Some(precision) if precision < bytes.len() => &bytes[..precision],
        _ => bytes,
    };
    let padding = spec.width.saturating_sub(bytes.len());
    let text = crate::render::raw_text::text_of_bytes(bytes);
    if spec.left_justify {
        out.push_str(&text);
        push_repeated(out, ' ', padding);
    } else {
        push_repeated(out, ' ', padding);
        out.push_str(&text);
    }
}

/// `%s` of text.
pub fn format_string(out: &mut String, spec: &CFormatSpec, text: &str) {
    format_bytes_as_string(out, spec, text.as_bytes());
}

/// `%c` of a byte.
pub fn format_character(out: &mut String, spec: &CFormatSpec, byte: u8) {
    let without_precision = CFormatSpec {
        precision: None,
        ..*spec
    };
    format_bytes_as_string(out, &without_precision, &[byte]);
}

/// `%e %E %f %F %g %G` of a double.
pub fn format_float(out: &mut String, spec: &CFormatSpec, value: f64, conversion: char) {
    let upper = conversion.is_ascii_uppercase();
    let sign = if value.is_sign_negative() && !value.is_nan() {
        "-"
    } else if spec.plus_sign {
        "+"
    } else if spec.space_sign {
        " "
    } else {
        ""
    };
    if !value.is_finite() {
        let text = match (value.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        pad_number(out, spec, sign, text, false);
        return;
    }
    let magnitude = value.abs();
    let precision = spec.precision.unwrap_or(6);
    let body = match conversion.to_ascii_lowercase() {
        'e' => exponent_notation(magnitude, precision, spec.alternate, upper),
        'g' => general_notation(magnitude, precision, spec.alternate, upper),
        _ => fixed_notation(magnitude, precision, spec.alternate),
    };
    pad_number(out, spec, sign, &body, true);
}

/// `%f` digits of a non-negative finite value.
fn fixed_notation(magnitude: f64, precision: usize, alternate: bool) -> String {
    let mut text = format!("{:.*}", precision, magnitude);
    if alternate && precision == 0 {
        text.push('.');
    }
    text
}

/// `%e` digits of a non-negative finite value: `d.ddddde+XX`.
fn exponent_notation(magnitude: f64, precision: usize, alternate: bool, upper: bool) -> String {
    // Rust writes `1.5e3`; C writes `1.5e+03`.
    let rust = format!("{:.*e}", precision, magnitude);
    let (mantissa, exponent) = rust.split_once('e').unwrap_or((&rust, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let mut text = mantissa.to_string();
    if alternate && precision == 0 {
        text.push('.');
    }
    text.push(if upper { 'E' } else { 'e' });
    text.push(if exponent < 0 { '-' } else { '+' });
    text.push_str(&format!("{:02}", exponent.unsigned_abs()));
    text
}

/// `%g` digits of a non-negative finite value: `%e` or `%f` style depending on the
/// exponent, trailing zeros removed unless the alternate form is asked for.
fn general_notation(magnitude: f64, precision: usize, alternate: bool, upper: bool) -> String {
    let significant = precision.max(1);
    // The exponent the value has once rounded to the requested significant digits.
    let rounded = format!("{:.*e}", significant - 1, magnitude);
    let exponent: i64 = rounded
        .split_once('e')
        .and_then(|(_, exponent)| exponent.parse().ok())
        .unwrap_or(0);
    let mut text = if exponent < -4 || exponent >= significant as i64 {
        exponent_notation(magnitude, significant - 1, alternate, upper)
    } else {
        let decimals = (significant as i64 - 1 - exponent) as usize;
        fixed_notation(magnitude, decimals, alternate)
    };
    if !alternate {
        text = remove_trailing_zeros(&text);
    }
    text
}

/// Removes trailing zeros of the fraction (and a bare decimal point), keeping any
/// exponent.
fn remove_trailing_zeros(text: &str) -> String {
    let (number, exponent) = match text.find(['e', 'E']) {
        Some(position) => text.split_at(position),
        None => (text, ""),
    };
    if !number.contains('.') {
        return text.to_string();
    }
    let trimmed = number.trim_end_matches('0').trim_end_matches('.');
    format!("{}{}", trimmed, exponent)
}
