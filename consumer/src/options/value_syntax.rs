//! The value syntaxes of DTrace options (D-REFERENCE.md §11.1 "Value syntaxes"): booleans
//! and runtime integers, sizes, times and rates, D language versions and stability
//! attribute triples. Each parser takes the value text and returns the stored form or
//! the libdtrace error.

use std::fmt;

use super::error::OptionError;

/// One nanosecond-per-second, the numerator used to turn a frequency into a period.
pub(super) const NANOSECONDS_PER_SECOND: u64 = 1_000_000_000;

/// DTrace stores option values as signed 64-bit integers and rejects negative ones, so
/// no option value may exceed this.
pub(super) const LARGEST_OPTION_VALUE: u64 = i64::MAX as u64;

/// A D language version, `MAJOR.MINOR[.MICRO]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DVersion {
    pub major: u32,
    pub minor: u32,
    pub micro: u32,
}

impl DVersion {
    pub const fn new(major: u32, minor: u32, micro: u32) -> DVersion {
        DVersion {
            major,
            minor,
            micro,
        }
    }

    /// Parses version text as libdtrace does: up to three dot-separated decimal
    /// components, missing ones being 0 (so `1` is 1.0 and `1.` is 1.0 too), with major at
    /// most 255 and minor and micro at most 4095. Anything else is
    /// [`OptionError::MalformedVersion`]. Whether the version exists is not checked here.
    pub fn parse(text: &str) -> Result<DVersion, OptionError> {
        let mut components = [0u32; 3];
        let mut index = 0;
        for character in text.chars() {
            if let Some(digit) = character.to_digit(10) {
                // Saturate instead of overflowing; anything that large fails the bound
                // check below anyway.
                components[index] = components[index].saturating_mul(10).saturating_add(digit);
            } else if character == '.' && index < components.len() - 1 {
                index += 1;
            } else {
                return Err(OptionError::MalformedVersion);
            }
        }
        let [major, minor, micro] = components;
        if major > 0xff || minor > 0xfff || micro > 0xfff {
            return Err(OptionError::MalformedVersion);
        }
        Ok(DVersion::new(major, minor, micro))
    }

    /// Whether this is one of the D versions the compiler implements.
    pub fn is_defined(self) -> bool {
        DEFINED_D_VERSIONS.contains(&self)
    }
}

impl fmt::Display for DVersion {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.micro == 0 {
            write!(formatter, "{}.{}", self.major, self.minor)
        } else {
            write!(formatter, "{}.{}.{}", self.major, self.minor, self.micro)
        }
    }
}

/// The D language versions of classic DTrace, oldest first; `-x version=` must name one.
pub const DEFINED_D_VERSIONS: &[DVersion] = &[
    DVersion::new(1, 0, 0),
    DVersion::new(1, 1, 0),
    DVersion::new(1, 2, 0),
    DVersion::new(1, 2, 1),
    DVersion::new(1, 2, 2),
    DVersion::new(1, 3, 0),
    DVersion::new(1, 4, 0),
    DVersion::new(1, 4, 1),
    DVersion::new(1, 5, 0),
    DVersion::new(1, 6, 0),
    DVersion::new(1, 6, 1),
    DVersion::new(1, 6, 2),
    DVersion::new(1, 6, 3),
    DVersion::new(1, 7, 0),
    DVersion::new(1, 7, 1),
    DVersion::new(1, 8, 0),
    DVersion::new(1, 8, 1),
    DVersion::new(1, 9, 0),
    DVersion::new(1, 9, 1),
    DVersion::new(1, 10, 0),
    DVersion::new(1, 11, 0),
    DVersion::new(1, 12, 0),
    DVersion::new(1, 12, 1),
    DVersion::new(1, 13, 0),
];

/// The newest D version, the one in force when `version` is not set.
pub const LATEST_D_VERSION: DVersion = DVersion::new(1, 13, 0);

/// The word pairs that a boolean or runtime integer accepts, (on, off).
const BOOLEAN_WORDS: &[(&str, &str)] = &[
    ("yes", "no"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("true", "false"),
    ("on", "off"),
    ("set", "unset"),
];

/// Parses a boolean or runtime integer value; `Ok(None)` means "unset".
pub fn parse_runtime_integer(value: Option<&str>) -> Result<Option<u64>, OptionError> {
    let Some(text) = value else {
        return Ok(Some(1));
    };
    if text.is_empty() {
        return Ok(None);
    }
    for (positive, negative) in BOOLEAN_WORDS {
        if text.eq_ignore_ascii_case(positive) {
            return Ok(Some(1));
        }
        if text.eq_ignore_ascii_case(negative) {
            return Ok(None);
        }
    }
    parse_c_integer(text)
        .map(Some)
        .ok_or(OptionError::InvalidValue)
}

/// Parses a size: a C integer with an optional single `k`/`m`/`g`/`t` suffix (either
/// case), each a power of 1024.
pub fn parse_size(text: &str) -> Result<u64, OptionError> {
    let (digits, multiplier) = match text.as_bytes().last() {
        Some(b'k' | b'K') => (&text[..text.len() - 1], 1u64 << 10),
        Some(b'm' | b'M') => (&text[..text.len() - 1], 1u64 << 20),
        Some(b'g' | b'G') => (&text[..text.len() - 1], 1u64 << 30),
        Some(b't' | b'T') => (&text[..text.len() - 1], 1u64 << 40),
        _ => (text, 1),
    };
    parse_c_integer(digits)
        .and_then(|number| number.checked_mul(multiplier))
        .filter(|bytes| *bytes <= LARGEST_OPTION_VALUE)
        .ok_or(OptionError::InvalidValue)
}

/// The duration suffixes of time/rate values and their length in nanoseconds; `hz`
/// (a frequency) is handled separately.
const DURATION_SUFFIXES: &[(&str, u64)] = &[
    ("ns", 1),
    ("nsec", 1),
    ("us", 1_000),
    ("usec", 1_000),
    ("ms", 1_000_000),
    ("msec", 1_000_000),
    ("s", NANOSECONDS_PER_SECOND),
    ("sec", NANOSECONDS_PER_SECOND),
    ("m", 60 * NANOSECONDS_PER_SECOND),
    ("min", 60 * NANOSECONDS_PER_SECOND),
    ("h", 3_600 * NANOSECONDS_PER_SECOND),
    ("hour", 3_600 * NANOSECONDS_PER_SECOND),
    ("d", 86_400 * NANOSECONDS_PER_SECOND),
    ("day", 86_400 * NANOSECONDS_PER_SECOND),
];

/// Parses a time or rate into nanoseconds: a C integer with an optional suffix
/// (case-insensitive). A duration suffix multiplies; `hz` gives the period 1e9/N ns
/// (`0hz` is 0); no suffix means nanoseconds.
pub fn parse_rate_nanoseconds(text: &str) -> Result<u64, OptionError> {
    let (number, suffix) = parse_c_integer_prefix(text).ok_or(OptionError::InvalidValue)?;
    let nanoseconds = if suffix.is_empty() {
        Some(number)
    } else if suffix.eq_ignore_ascii_case("hz") {
        Some(NANOSECONDS_PER_SECOND.checked_div(number).unwrap_or(0))
    } else {
        let (_, multiplier) = DURATION_SUFFIXES
            .iter()
            .find(|(name, _)| suffix.eq_ignore_ascii_case(name))
            .ok_or(OptionError::InvalidValue)?;
        number.checked_mul(*multiplier)
    };
    nanoseconds
        .filter(|nanoseconds| *nanoseconds <= LARGEST_OPTION_VALUE)
        .ok_or(OptionError::InvalidValue)
}

/// Parses a whole string as an unsigned C integer no larger than DTrace's largest
/// option value.
pub(super) fn parse_c_integer(text: &str) -> Option<u64> {
    match parse_c_integer_prefix(text)? {
        (number, "") if number <= LARGEST_OPTION_VALUE => Some(number),
        _ => None,
    }
}

/// Reads the unsigned C integer at the start of `text` the way `strtoull(…, 0)` does
/// (`0x` hexadecimal, leading `0` octal, else decimal), returning it and the unread
/// rest. Unlike strtoull it refuses signs, leading blanks, text without digits and
/// values that overflow 64 bits.
fn parse_c_integer_prefix(text: &str) -> Option<(u64, &str)> {
    let bytes = text.as_bytes();
    let (radix, start) = match bytes {
        [b'0', b'x' | b'X', next, ..] if next.is_ascii_hexdigit() => (16, 2),
        [b'0', ..] => (8, 0),
        _ => (10, 0),
    };
    let length = text[start..]
        .bytes()
        .take_while(|byte| char::from(*byte).is_digit(radix))
        .count();
    if length == 0 {
        return None;
    }
    let end = start + length;
    let number = u64::from_str_radix(&text[start..end], radix).ok()?;
    Some((number, &text[end..]))
}
