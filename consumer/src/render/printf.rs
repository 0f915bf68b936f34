//! The printf engine: formats a parsed D format string ([`difvm::format::FormatString`],
//! as the compiled program stores it) with recorded values, as `printf()`, `printa()` with a format, `system()` and
//! `freopen()` do when the consumer processes their records.
//!
//! Each conversion takes its value from the argument list in order (a `*` width or
//! precision first takes an `int`), or, for `@` conversions in `printa()`, from the
//! aggregation values. Values are printed at their recorded size the way DTrace's
//! `pfprint_*` functions hand them to the C library: `%d` of an unsigned type prints
//! unsigned, `%x` of a `char` prints two hex digits, a precision of 0 is ignored, and a
//! negative dynamic width left-justifies.

use difvm::aggregation::{average_of, standard_deviation_of, AggregationRule};
use difvm::format::{
    Conversion, ConversionBehavior, FormatPiece, FormatString, IntegerRadix, IntegerSignedness,
    Precision, Width,
};
use difvm::object::SymbolFormat;

use crate::record::{sign_extend, RecordValue};
use crate::render::c_format::{
    format_bytes_as_string, format_character, format_float, format_signed, format_string,
    format_unsigned, CFormatSpec, Radix,
};
use crate::render::histogram::{render_histogram, HistogramStyle};
use crate::render::symbols::{
    kernel_address_text, kernel_module_text, render_kernel_stack, render_user_stack,
    user_address_text, user_module_text, SymbolResolver,
};

/// The value of one aggregation for the entry being printed, for `%@` conversions.
#[derive(Debug, Clone, Copy)]
pub struct AggregationValue<'a> {
    pub rule: &'a AggregationRule,
    pub words: &'a [i64],
    /// The `normalize()` divisor; 1 when not normalized.
    pub normalization: u64,
    /// How histogram values draw their bars (`aggzoom`, the `utf8` encoding).
    pub histogram_style: HistogramStyle,
}

/// What printing needs besides the values.
#[derive(Clone, Copy)]
pub struct PrintfContext<'r> {
    pub resolver: &'r dyn SymbolResolver,
    /// The process traced with -p or -c, whose symbols `%A` uses for plain addresses.
    pub target_pid: Option<u64>,
}

/// Why a format could not be applied to the recorded values. The compiler's checks make
/// these impossible for records it laid out; they guard against bad metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrintfError {
    /// A conversion has no value left to consume.
    MissingArgument { conversion: u32 },
    /// An `@` conversion outside `printa()`.
    MissingAggregation { conversion: u32 },
    /// The value's kind or size does not suit the conversion.
    ArgumentMismatch { conversion: u32, name: String },
}

impl std::fmt::Display for PrintfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PrintfError::MissingArgument { conversion } => {
                write!(
                    f,
                    "conversion #{} has no corresponding argument",
                    conversion
                )
            }
            PrintfError::MissingAggregation { conversion } => {
                write!(f, "conversion #{} requires an aggregation", conversion)
            }
            PrintfError::ArgumentMismatch { conversion, name } => {
                write!(
                    f,
                    "argument of conversion #{} (%{}) does not match its data",
                    conversion, name
                )
            }
        }
    }
}

impl std::error::Error for PrintfError {}

/// Formats `format` with the recorded `arguments` of a printf-like action.
pub fn format_printf(
    out: &mut String,
    format: &FormatString,
    arguments: &[RecordValue<'_>],
    context: &PrintfContext<'_>,
) -> Result<(), PrintfError> {
    format_with(out, format, arguments, &[], context)
}

/// Formats one `printa()` entry: the key components are the arguments, and `@`
/// conversions take the values of `aggregations` in turn (the last one repeats once
/// they run out).
pub fn format_printa_entry(
    out: &mut String,
    format: &FormatString,
    keys: &[RecordValue<'_>],
    aggregations: &[AggregationValue<'_>],
    context: &PrintfContext<'_>,
) -> Result<(), PrintfError> {
    format_with(out, format, keys, aggregations, context)
}

fn format_with(
    out: &mut String,
    format: &FormatString,
    arguments: &[RecordValue<'_>],
    aggregations: &[AggregationValue<'_>],
    context: &PrintfContext<'_>,
) -> Result<(), PrintfError> {
    let mut arguments = arguments.iter();
    let mut next_aggregation = 0;
    for piece in &format.pieces {
        let conversion = match piece {
            FormatPiece::Literal(text) => {
                crate::render::raw_text::push_bytes(out, text);
                continue;
            }
            FormatPiece::Conversion(conversion) => conversion,
        };
        if conversion.behavior == ConversionBehavior::Percent {
            out.push('%');
            continue;
        }
        let missing = || PrintfError::MissingArgument {
            conversion: conversion.number,
        };
        let mut width = match conversion.width {
            Width::Fixed(width) => i64::from(width),
            Width::None => 0,
            Width::Dynamic => dynamic_integer(arguments.next().ok_or_else(missing)?, conversion)?,
        };
        let mut precision = match conversion.precision {
            Precision::Fixed(precision) => i64::from(precision),
            Precision::None => 0,
            Precision::Dynamic => {
                dynamic_integer(arguments.next().ok_or_else(missing)?, conversion)?
            }
        };
        let left_justify = conversion.flags.left_justify || width < 0;
        let mut stack_indent = 0;
        if conversion.behavior == ConversionBehavior::Stack && left_justify {
            // DTrace indents the frames of `%-Nk` by N instead of padding each frame.
            stack_indent = width.unsigned_abs() as usize;
            width = 0;
        }
        if precision < 0 {
            precision = 0;
        }
        let spec = CFormatSpec {
            left_justify,
            plus_sign: conversion.flags.plus_sign,
            space_sign: conversion.flags.space_sign,
            alternate: conversion.flags.alternate,
            zero_pad: conversion.flags.zero_pad,
            width: width.unsigned_abs() as usize,
            // DTrace only passes a precision to the C library when it is positive.
            precision: (precision > 0).then_some(precision as usize),
        };
        let item = ConversionItem {
            conversion,
            spec,
            stack_indent,
            context,
        };
        if conversion.flags.aggregation {
            let Some(last) = aggregations.len().checked_sub(1) else {
                return Err(PrintfError::MissingAggregation {
                    conversion: conversion.number,
                });
            };
            let value = &aggregations[next_aggregation.min(last)];
            next_aggregation += 1;
            item.print_aggregation(out, value)?;
        } else {
            item.print_value(out, arguments.next().ok_or_else(missing)?)?;
        }
    }
    Ok(())
}

/// The `int` of a `*` width or precision: the recorded integer, truncated to `int`.
fn dynamic_integer(value: &RecordValue<'_>, conversion: &Conversion) -> Result<i64, PrintfError> {
    match value {
        RecordValue::Integer { .. } => Ok(i64::from(value.as_i64().unwrap_or(0) as i32)),
        _ => Err(mismatch(conversion)),
    }
}

fn mismatch(conversion: &Conversion) -> PrintfError {
    PrintfError::ArgumentMismatch {
        conversion: conversion.number,
        name: conversion.name.clone(),
    }
}

/// One conversion with its resolved C flags, ready to print a value.
struct ConversionItem<'c> {
    conversion: &'c Conversion,
    spec: CFormatSpec,
    stack_indent: usize,
    context: &'c PrintfContext<'c>,
}

impl ConversionItem<'_> {
    fn mismatch(&self) -> PrintfError {
        mismatch(self.conversion)
    }

    /// Prints an aggregation's value: the full histogram for the quantizations
    /// (whatever the conversion), the computed integer for the others.
    fn print_aggregation(
        &self,
        out: &mut String,
        value: &AggregationValue<'_>,
    ) -> Result<(), PrintfError> {
        let normal = value.normalization.max(1);
        let word = value.words.first().copied().unwrap_or(0);
        let integer = match value.rule {
            AggregationRule::Quantize
            | AggregationRule::LinearQuantize(_)
            | AggregationRule::LogLinearQuantize(_) => {
                render_histogram(out, value.rule, value.words, normal, value.histogram_style);
                return Ok(());
            }
            AggregationRule::Count => AggregateInteger::Unsigned((word as u64) / normal),
            AggregationRule::Sum | AggregationRule::Minimum | AggregationRule::Maximum => {
                AggregateInteger::Signed(word.wrapping_div(normal as i64))
            }
            AggregationRule::Average => {
                AggregateInteger::Signed(average_of(value.words, normal as i64))
            }
            AggregationRule::StandardDeviation => {
                AggregateInteger::Unsigned(standard_deviation_of(value.words, normal as i64))
            }
        };
        let (bits, signed) = match integer {
            AggregateInteger::Signed(value) => (value as u64, true),
            AggregateInteger::Unsigned(value) => (value, false),
        };
        self.print_value(
            out,
            &RecordValue::Integer {
                bits,
                size: 8,
                signed,
            },
        )
    }

    /// Prints one recorded value.
    fn print_value(&self, out: &mut String, value: &RecordValue<'_>) -> Result<(), PrintfError> {
        let spec = &self.spec;
        let resolver = self.context.resolver;
        // `mod()` and `umod()` values print their module name whatever the conversion,
        // as DTrace picks the printing function by the record's action first.
        match *value {
            RecordValue::KernelSymbol {
                address,
                format: SymbolFormat::Module,
            } => {
                format_string(out, spec, &kernel_module_text(resolver, address));
                return Ok(());
            }
            RecordValue::UserSymbol {
                pid,
                address,
                format: SymbolFormat::Module,
            } => {
                format_string(out, spec, &user_module_text(resolver, pid, address));
                return Ok(());
            }
            _ => {}
        }
        match self.conversion.behavior {
            ConversionBehavior::Integer { radix, signedness } => {
                let (bits, size, signed) = integer_parts(value).ok_or_else(|| self.mismatch())?;
                let signed = match signedness {
                    IntegerSignedness::Signed => true,
                    IntegerSignedness::Unsigned => false,
                    IntegerSignedness::FromArgument => signed,
                };
                if signed && radix == IntegerRadix::Decimal {
                    format_signed(out, spec, sign_extend(bits, size));
                } else {
                    let radix = match radix {
                        IntegerRadix::Decimal => Radix::Decimal,
                        IntegerRadix::Octal => Radix::Octal,
                        IntegerRadix::HexLower => Radix::HexLower,
                        IntegerRadix::HexUpper => Radix::HexUpper,
                    };
                    format_unsigned(out, spec, bits, radix);
                }
            }
            ConversionBehavior::Character => {
                let (bits, ..) = integer_parts(value).ok_or_else(|| self.mismatch())?;
                format_character(out, spec, bits as u8);
            }
            ConversionBehavior::WideCharacter => {
                let (bits, ..) = integer_parts(value).ok_or_else(|| self.mismatch())?;
                let character = char::from_u32(bits as u32).unwrap_or(char::REPLACEMENT_CHARACTER);
                format_string(out, spec, character.encode_utf8(&mut [0; 4]));
            }
            ConversionBehavior::EscapedCharacter => {
                let (bits, ..) = integer_parts(value).ok_or_else(|| self.mismatch())?;
                format_string(out, spec, &escape_bytes(&[bits as u8], true));
            }
            ConversionBehavior::String | ConversionBehavior::InetAddress => {
                format_bytes_as_string(
                    out,
                    spec,
                    string_bytes(value).ok_or_else(|| self.mismatch())?,
                );
            }
            ConversionBehavior::EscapedString => {
                let bytes = string_bytes(value).ok_or_else(|| self.mismatch())?;
                format_string(out, spec, &escape_bytes(bytes, false));
            }
            ConversionBehavior::WideString => {
                let RecordValue::Bytes(bytes) = value else {
                    return Err(self.mismatch());
                };
                format_string(out, spec, &wide_string(bytes));
            }
            ConversionBehavior::FloatingPoint { conversion } => {
                let number = floating_point(value).ok_or_else(|| self.mismatch())?;
                format_float(out, spec, number, conversion);
            }
            ConversionBehavior::KernelAddress => {
                let address = address_of(value).ok_or_else(|| self.mismatch())?;
                format_string(out, spec, &kernel_address_text(resolver, address));
            }
            ConversionBehavior::UserAddress => {
                let (pid, address) = match *value {
                    RecordValue::UserSymbol { pid, address, .. } => (pid, address),
                    _ => {
                        let address = address_of(value).ok_or_else(|| self.mismatch())?;
                        (self.context.target_pid.unwrap_or(0), address)
                    }
                };
                format_string(out, spec, &user_address_text(resolver, pid, address));
            }
            ConversionBehavior::Stack => match value {
                RecordValue::KernelStack(frames) => {
                    render_kernel_stack(out, resolver, frames, self.stack_indent, spec)
                }
                RecordValue::UserStack { pid, frames } => {
                    render_user_stack(out, resolver, *pid, frames, self.stack_indent, spec)
                }
                _ => return Err(self.mismatch()),
            },
            ConversionBehavior::Time | ConversionBehavior::Time822 => {
                let nanoseconds = value.as_i64().ok_or_else(|| self.mismatch())?;
                let seconds = nanoseconds / 1_000_000_000;
                let text = if self.conversion.behavior == ConversionBehavior::Time {
                    time::ctime_style(seconds)
                } else {
                    time::rfc822_style(seconds)
                };
                format_string(out, spec, &text);
            }
            ConversionBehavior::Port => {
                let (bits, ..) = integer_parts(value).ok_or_else(|| self.mismatch())?;
                format_string(out, spec, &(bits as u16).to_string());
            }
            ConversionBehavior::Percent => out.push('%'),
        }
        Ok(())
    }
}

/// An aggregation's printable integer and whether `%d` shows it signed.
enum AggregateInteger {
    Signed(i64),
    Unsigned(u64),
}

/// (bits zero-extended from the size, size, signed) of an integer-like value.
fn integer_parts(value: &RecordValue<'_>) -> Option<(u64, u32, bool)> {
    match *value {
        RecordValue::Integer { bits, size, signed } => Some((bits, size, signed)),
        RecordValue::Pointer(address)
        | RecordValue::KernelSymbol { address, .. }
        | RecordValue::UserSymbol { address, .. } => Some((address, 8, false)),
        _ => None,
    }
}

/// The address in an integer-like value.
fn address_of(value: &RecordValue<'_>) -> Option<u64> {
    integer_parts(value).map(|(bits, ..)| bits)
}

/// The bytes `%s` prints: a string, or raw bytes up to their first NUL.
fn string_bytes<'a>(value: &RecordValue<'a>) -> Option<&'a [u8]> {
    match *value {
        RecordValue::String(bytes) => Some(bytes),
        RecordValue::Bytes(bytes) => Some(
            &bytes[..bytes
                .iter()
                .position(|&byte| byte == 0)
                .unwrap_or(bytes.len())],
        ),
        _ => None,
    }
}

/// A `wchar_t` array (4-byte units) up to its first NUL.
fn wide_string(bytes: &[u8]) -> String {
    bytes
        .chunks_exact(4)
        .map(|unit| u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]))
        .take_while(|&unit| unit != 0)
        .map(|unit| char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// A floating-point value from its recorded bytes: `float`, `double`, or x86
/// `long double` (80-bit extended precision in 16 bytes).
fn floating_point(value: &RecordValue<'_>) -> Option<f64> {
    match *value {
        RecordValue::Integer { bits, size: 4, .. } => Some(f64::from(f32::from_bits(bits as u32))),
        RecordValue::Integer { bits, size: 8, .. } => Some(f64::from_bits(bits)),
        RecordValue::Bytes(bytes) => match bytes.len() {
            4 => Some(f64::from(f32::from_le_bytes(bytes.try_into().ok()?))),
            8 => Some(f64::from_le_bytes(bytes.try_into().ok()?)),
            16 => Some(extended_precision(bytes)),
            _ => None,
        },
        _ => None,
    }
}

/// Converts an x87 80-bit extended-precision value (64-bit mantissa with explicit
/// integer bit, 15-bit exponent, sign) to the nearest double.
fn extended_precision(bytes: &[u8]) -> f64 {
    let mut mantissa_bytes = [0u8; 8];
    mantissa_bytes.copy_from_slice(&bytes[..8]);
    let mantissa = u64::from_le_bytes(mantissa_bytes);
    let sign_exponent = u16::from_le_bytes([bytes[8], bytes[9]]);
    let negative = sign_exponent & 0x8000 != 0;
    let exponent = i32::from(sign_exponent & 0x7fff);
    let magnitude = if exponent == 0x7fff {
        if mantissa << 1 == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else {
        // value = mantissa × 2^(exponent − 16383 − 63); scale in two steps so that the
        // intermediate power of two stays representable.
        let power = exponent - 16383 - 63;
        let half = power / 2;
        (mantissa as f64) * 2f64.powi(half) * 2f64.powi(power - half)
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// Escapes bytes the way DTrace's `strchr2esc` does for `%S` and `%C`: `\a \b \f \n \r
/// \t \v \" \\` by name, other characters outside `!`..`~` (except space) as three
/// octal digits. A NUL ends a string; as a single character (`%C`) it prints `\0`.
pub fn escape_bytes(bytes: &[u8], single_character: bool) -> String {
    let mut escaped = String::new();
    for &byte in bytes {
        match byte {
            0 => {
                if single_character {
                    escaped.push_str("\\0");
                }
                break;
            }
            0x07 => escaped.push_str("\\a"),
            0x08 => escaped.push_str("\\b"),
            0x0c => escaped.push_str("\\f"),
            b'\n' => escaped.push_str("\\n"),
            b'\r' => escaped.push_str("\\r"),
            b'\t' => escaped.push_str("\\t"),
            0x0b => escaped.push_str("\\v"),
            b'"' => escaped.push_str("\\\""),
            b'\\' => escaped.push_str("\\\\"),
            b' ' => escaped.push(' '),
            b'!'..=b'~' => escaped.push(char::from(byte)),
            _ => escaped.push_str(&format!("\\{}{}{}", byte >> 6, (byte >> 3) & 7, byte & 7)),
        }
    }
    escaped
}

/// Local-time texts of `%Y` and `%T`.
pub mod time {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];

    /// The broken-down local time of `seconds` since the epoch.
    fn local_time(seconds: i64) -> Option<libc::tm> {
        let time = libc::time_t::try_from(seconds).ok()?;
        // SAFETY: an all-zero `tm` is a valid value (integers and a null zone pointer),
        // and localtime_r only writes into the `tm` we pass.
        let mut broken_down: libc::tm = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are valid for the duration of the call.
        let result = unsafe { libc::localtime_r(&time, &mut broken_down) };
        (!result.is_null()).then_some(broken_down)
    }

    /// `%Y`: `YYYY Mon DD HH:MM:SS` with the day space-padded, as DTrace rearranges
    /// `ctime()`'s text.
    pub fn ctime_style(seconds: i64) -> String {
        match local_time(seconds) {
            Some(tm) => format!(
                "{} {} {:2} {:02}:{:02}:{:02}",
                i64::from(tm.tm_year) + 1900,
                MONTHS.get(tm.tm_mon as usize).copied().unwrap_or("???"),
                tm.tm_mday,
                tm.tm_hour,
                tm.tm_min,
                tm.tm_sec
            ),
            None => seconds.to_string(),
        }
    }

    /// `%T`: DTrace's `strftime("%a, %d %b %G %T %Z")` of the local time (note `%G`,
    /// the ISO week-based year, as DTrace writes it).
    pub fn rfc822_style(seconds: i64) -> String {
        let Some(tm) = local_time(seconds) else {
            return seconds.to_string();
        };
        let mut buffer = [0u8; 128];
        let pattern = c"%a, %d %b %G %T %Z";
        // SAFETY: the buffer is writable for its length, the pattern is NUL-terminated
        // and `tm` came from localtime_r.
        let length = unsafe {
            libc::strftime(
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                pattern.as_ptr(),
                &tm,
            )
        };
        String::from_utf8_lossy(&buffer[..length]).into_owned()
    }
}
