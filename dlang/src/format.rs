//! D printf-style format strings: parsing `printf`/`printa`/`system`/`freopen` formats
//! into literal text and conversions (the [`difvm::format`] types the compiled program
//! stores), with DTrace's exact parse error messages, and the table of conversions saying
//! which D argument types each one accepts.
//!
//! The parsed form serves two users. The compiler's type checker walks the conversions to
//! match them with the call's arguments: [`Conversion::arguments`] lists the argument
//! positions a conversion consumes (a `*` width or precision takes an `int` before the
//! value), [`ConversionRule::rule`] gives the conversion's [`ArgumentRule`],
//! [`ArgumentRule::accepts`] says whether a type fits, and [`ArgumentRule::prototype`]
//! gives the text of the `prototype:` line of D_PRINTF_ARG_TYPE. The compiled program then
//! carries the parsed form ([`compile_format`]), and the consumer formats record data with
//! it, using [`Conversion::behavior`] to decide how a value is printed.
//!
//! Parse errors ([`FormatError`]) carry the message without location; they are reported
//! with the tag D_SYNTAX ([`SyntaxDiagnostic::to_diagnostic`]). An empty format string parses to no
//! pieces: the caller reports D_PRINTF_FMT_EMPTY with its own function name.
//!
//! Conversions are numbered from 1 in order of appearance, counting `%%`, exactly as
//! DTrace numbers them in its messages.

use crate::diagnostics::{Diagnostic, ErrorTag, Span};
pub use difvm::format::{
    ArgumentRole, Conversion, ConversionBehavior, ConversionFlags, FormatError, FormatPiece,
    FormatString, IntegerRadix, IntegerSignedness, Precision, PrintfFormat, Width,
};

/// Parsing format strings, the compiler's side of [`FormatString`].
pub trait ParseFormat: Sized {
    /// Parses a format string. An empty string gives no pieces.
    fn parse(format: &str) -> Result<Self, FormatError> {
        Self::parse_bytes(format.as_bytes())
    }

    /// Parses a format string as the program's string constant holds it: bytes, which
    /// need not be UTF-8 (a `"\xfb"` in the literal text prints the byte 0xfb).
    fn parse_bytes(format: &[u8]) -> Result<Self, FormatError>;
}

impl ParseFormat for FormatString {
    fn parse_bytes(format: &[u8]) -> Result<FormatString, FormatError> {
        FormatParser {
            bytes: format,
            position: 0,
            conversions: 0,
        }
        .parse()
    }
}

/// The format of a printf-like action as the compiled program stores it: `text` and its
/// parsed form (or the parse error, which the consumer reports when it uses the format).
pub fn compile_format(text: &str) -> PrintfFormat {
    PrintfFormat {
        text: text.to_string(),
        parsed: FormatString::parse(text),
    }
}

/// Reporting format parse errors, the compiler's side of [`FormatError`].
pub trait SyntaxDiagnostic {
    /// The error as a D_SYNTAX diagnostic at `span` (the format string's location).
    fn to_diagnostic(&self, span: Span) -> Diagnostic;
}

impl SyntaxDiagnostic for FormatError {
    fn to_diagnostic(&self, span: Span) -> Diagnostic {
        Diagnostic::new(ErrorTag::D_SYNTAX, span, self.message.clone())
    }
}

/// The argument rule of a conversion, the compiler's side of [`Conversion`].
pub trait ConversionRule {
    /// Which D argument types the conversion accepts.
    fn rule(&self) -> ArgumentRule;
}

impl ConversionRule for Conversion {
    fn rule(&self) -> ArgumentRule {
        // Every parsed conversion has a name from the table; a conversion built by other
        // means with an unknown name accepts no argument.
        lookup_conversion(&self.name).map_or(ArgumentRule::NoArgument, |(_, rule)| rule)
    }
}

/// Which D argument types a conversion accepts (DTrace's `pfc_check` functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentRule {
    /// Any integer: `char, short, int, long, or long long` (`%d`, `%i`).
    AnyInteger,
    /// Any integer or a pointer, whose address prints as the unsigned number it is
    /// (`%o`, `%u`, `%x`, `%X`); the prototype DTrace names is still the integers'.
    AnyIntegerOrPointer,
    /// An integer of at most 4 bytes: `char, short, or int`.
    IntegerUpToInt,
    /// `float, double, or long double`.
    FloatingPoint,
    /// `pointer or integer` (`%p`).
    PointerOrInteger,
    /// `pointer or integer`, or a `_symaddr` (`%a`).
    KernelAddress,
    /// `_usymaddr`, or a pointer or integer when a process is traced with -p/-c (`%A`).
    UserAddress,
    /// `char [] or string (or use stringof)`.
    String,
    /// `wchar_t []`.
    WideString,
    /// `stack`.
    Stack,
    /// A 64-bit integer: `int64_t`.
    Time,
    /// An integer whose base type is `short`, `signed short` or `unsigned short` (`%hx`).
    AnyShort,
    /// An integer whose base type is `long`, `signed long` or `unsigned long` (`%lx`).
    AnyLong,
    /// An integer whose base type is `long long`, `signed long long` or
    /// `unsigned long long`, or an `int64_t`/`uint64_t` typedef (`%llx`).
    AnyLongLong,
    /// An integer compatible with the named type: same size and signedness.
    ExactInteger {
        name: &'static str,
        size: u32,
        signed: bool,
    },
    /// `long double` (the `L` conversions).
    LongDouble,
    /// `%%` takes no argument.
    NoArgument,
}

/// The class of a D type, as the type checker describes an argument to
/// [`ArgumentRule::accepts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentClass {
    /// An integer type (including `char` and `_Bool`).
    Integer {
        size: u32,
        signed: bool,
    },
    /// An enumeration (an `int`-sized integer for `%d`, but not compatible with `int`).
    Enum {
        size: u32,
    },
    /// `float`, `double` or `long double`.
    Float {
        size: u32,
    },
    Pointer,
    /// The D `string` type.
    String,
    /// An array of `char`.
    CharArray,
    /// An array of `wchar_t`.
    WideCharArray,
    /// The result of `stack()`, `ustack()` or `jstack()`.
    Stack,
    /// `_symaddr`: the result of `sym()`, `func()` or `mod()` (an address-sized integer).
    SymbolAddress,
    /// `_usymaddr`: the result of `usym()`, `ufunc()`, `umod()` or `uaddr()`.
    UserSymbolAddress,
    /// Anything else (structs, unions, functions, void).
    Other,
}

/// A D argument type as the type checker describes it for format checking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatArgument<'a> {
    pub class: ArgumentClass,
    /// The type name after resolving typedefs, e.g. `unsigned long` for `uint64_t`.
    pub resolved_name: &'a str,
    /// The typedef names from the written type down to the resolved type, outermost
    /// first (empty when the type is not a typedef).
    pub typedef_names: &'a [&'a str],
}

/// The longest size prefix DTrace keeps (its name buffer holds 8 bytes: up to six
/// prefix characters, the conversion character and the NUL); extra prefix characters
/// are dropped silently.
const MAXIMUM_PREFIX_LENGTH: usize = 6;

/// The width the `?` flag sets: the width of a pointer printed in hex on LP64.
const POINTER_WIDTH: u32 = 16;

impl ArgumentRule {
    /// The text of the `prototype:` line of D_PRINTF_ARG_TYPE.
    pub fn prototype(&self) -> &'static str {
        match self {
            ArgumentRule::AnyInteger | ArgumentRule::AnyIntegerOrPointer => {
                "char, short, int, long, or long long"
            }
            ArgumentRule::IntegerUpToInt => "char, short, or int",
            ArgumentRule::FloatingPoint => "float, double, or long double",
            ArgumentRule::PointerOrInteger | ArgumentRule::KernelAddress => "pointer or integer",
            ArgumentRule::UserAddress => {
                "pointer or integer (with -p/-c) or _usymaddr (without -p/-c)"
            }
            ArgumentRule::String => "char [] or string (or use stringof)",
            ArgumentRule::WideString => "wchar_t []",
            ArgumentRule::Stack => "stack",
            ArgumentRule::Time => "int64_t",
            ArgumentRule::AnyShort => "short",
            ArgumentRule::AnyLong => "long",
            ArgumentRule::AnyLongLong => "long long",
            ArgumentRule::ExactInteger { name, .. } => name,
            ArgumentRule::LongDouble => "long double",
            ArgumentRule::NoArgument => "void",
        }
    }

    /// Whether an argument of the described type fits the conversion.
    /// `traced_process` is true when a process is traced with -p or -c (which lets `%A`
    /// take plain pointers and integers).
    pub fn accepts(&self, argument: &FormatArgument<'_>, traced_process: bool) -> bool {
        let integer_like = matches!(
            argument.class,
            ArgumentClass::Integer { .. }
                | ArgumentClass::Enum { .. }
                | ArgumentClass::SymbolAddress
        );
        let integer_size = match argument.class {
            ArgumentClass::Integer { size, .. } | ArgumentClass::Enum { size } => Some(size),
            ArgumentClass::SymbolAddress => Some(8),
            _ => None,
        };
        match self {
            ArgumentRule::AnyInteger => integer_like,
            ArgumentRule::AnyIntegerOrPointer => {
                integer_like || argument.class == ArgumentClass::Pointer
            }
            ArgumentRule::IntegerUpToInt => integer_like && integer_size.is_some_and(|s| s <= 4),
            ArgumentRule::FloatingPoint => matches!(argument.class, ArgumentClass::Float { .. }),
            ArgumentRule::PointerOrInteger | ArgumentRule::KernelAddress => {
                integer_like || argument.class == ArgumentClass::Pointer
            }
            ArgumentRule::UserAddress => {
                argument.class == ArgumentClass::UserSymbolAddress
                    || (traced_process
                        && (integer_like || argument.class == ArgumentClass::Pointer))
            }
            ArgumentRule::String => {
                matches!(
                    argument.class,
                    ArgumentClass::String | ArgumentClass::CharArray
                )
            }
            ArgumentRule::WideString => argument.class == ArgumentClass::WideCharArray,
            ArgumentRule::Stack => argument.class == ArgumentClass::Stack,
            ArgumentRule::Time => integer_like && integer_size == Some(8),
            ArgumentRule::AnyShort => {
                is_named_integer(argument, &["short", "signed short", "unsigned short"])
            }
            ArgumentRule::AnyLong => {
                is_named_integer(argument, &["long", "signed long", "unsigned long"])
            }
            ArgumentRule::AnyLongLong => {
                is_named_integer(
                    argument,
                    &["long long", "signed long long", "unsigned long long"],
                ) || (matches!(argument.class, ArgumentClass::Integer { .. })
                    && argument
                        .typedef_names
                        .iter()
                        .any(|name| *name == "int64_t" || *name == "uint64_t"))
            }
            ArgumentRule::ExactInteger { size, signed, .. } => {
                argument.class
                    == ArgumentClass::Integer {
                        size: *size,
                        signed: *signed,
                    }
            }
            ArgumentRule::LongDouble => argument.class == ArgumentClass::Float { size: 16 },
            ArgumentRule::NoArgument => false,
        }
    }
}

/// True when the argument is an integer whose resolved type name is one of `names`.
fn is_named_integer(argument: &FormatArgument<'_>, names: &[&str]) -> bool {
    matches!(argument.class, ArgumentClass::Integer { .. })
        && names.contains(&argument.resolved_name)
}

/// Looks a conversion name up in DTrace's conversion table.
fn lookup_conversion(name: &str) -> Option<(ConversionBehavior, ArgumentRule)> {
    use ConversionBehavior as B;
    use IntegerRadix::{Decimal, HexLower, HexUpper, Octal};
    use IntegerSignedness::{FromArgument, Signed, Unsigned};
    let integer = |radix, signedness| B::Integer { radix, signedness };
    let exact = |name, size, signed| ArgumentRule::ExactInteger { name, size, signed };
    let entry = match name {
        "a" => (B::KernelAddress, ArgumentRule::KernelAddress),
        "A" => (B::UserAddress, ArgumentRule::UserAddress),
        "c" => (B::Character, ArgumentRule::IntegerUpToInt),
        "C" => (B::EscapedCharacter, ArgumentRule::IntegerUpToInt),
        "d" | "i" => (integer(Decimal, FromArgument), ArgumentRule::AnyInteger),
        "e" | "E" | "f" | "g" | "G" => (
            B::FloatingPoint {
                conversion: name.chars().next().unwrap_or('f'),
            },
            ArgumentRule::FloatingPoint,
        ),
        "hd" | "hi" => (integer(Decimal, Signed), exact("short", 2, true)),
        "ho" => (integer(Octal, Unsigned), exact("unsigned short", 2, false)),
        "hu" => (
            integer(Decimal, Unsigned),
            exact("unsigned short", 2, false),
        ),
        "hx" => (integer(HexLower, Unsigned), ArgumentRule::AnyShort),
        "hX" => (integer(HexUpper, Unsigned), ArgumentRule::AnyShort),
        "I" => (B::InetAddress, ArgumentRule::String),
        "k" => (B::Stack, ArgumentRule::Stack),
        "lc" | "wc" => (B::WideCharacter, exact("int", 4, true)),
        "ld" | "li" => (integer(Decimal, Signed), exact("long", 8, true)),
        "lo" => (integer(Octal, Unsigned), exact("unsigned long", 8, false)),
        "lu" => (integer(Decimal, Unsigned), exact("unsigned long", 8, false)),
        "ls" | "ws" => (B::WideString, ArgumentRule::WideString),
        "lx" => (integer(HexLower, Unsigned), ArgumentRule::AnyLong),
        "lX" => (integer(HexUpper, Unsigned), ArgumentRule::AnyLong),
        "lld" | "lli" => (integer(Decimal, Signed), exact("long long", 8, true)),
        "llo" => (
            integer(Octal, Unsigned),
            exact("unsigned long long", 8, false),
        ),
        "llu" => (
            integer(Decimal, Unsigned),
            exact("unsigned long long", 8, false),
        ),
        "llx" => (integer(HexLower, Unsigned), ArgumentRule::AnyLongLong),
        "llX" => (integer(HexUpper, Unsigned), ArgumentRule::AnyLongLong),
        "Le" | "LE" | "Lf" | "Lg" | "LG" => (
            B::FloatingPoint {
                conversion: name.chars().nth(1).unwrap_or('f'),
            },
            ArgumentRule::LongDouble,
        ),
        "o" => (integer(Octal, Unsigned), ArgumentRule::AnyIntegerOrPointer),
        "p" => (integer(HexLower, Unsigned), ArgumentRule::PointerOrInteger),
        "P" => (B::Port, exact("uint16_t", 2, false)),
        "s" => (B::String, ArgumentRule::String),
        "S" => (B::EscapedString, ArgumentRule::String),
        "T" => (B::Time822, ArgumentRule::Time),
        "u" => (
            integer(Decimal, Unsigned),
            ArgumentRule::AnyIntegerOrPointer,
        ),
        "x" => (
            integer(HexLower, Unsigned),
            ArgumentRule::AnyIntegerOrPointer,
        ),
        "X" => (
            integer(HexUpper, Unsigned),
            ArgumentRule::AnyIntegerOrPointer,
        ),
        "Y" => (B::Time, ArgumentRule::Time),
        "%" => (B::Percent, ArgumentRule::NoArgument),
        _ => return None,
    };
    Some(entry)
}

/// The state of one parse: a byte cursor over the format and the conversion count.
struct FormatParser<'a> {
    bytes: &'a [u8],
    position: usize,
    conversions: u32,
}

impl FormatParser<'_> {
    fn parse(mut self) -> Result<FormatString, FormatError> {
        let mut pieces = Vec::new();
        let mut literal_start = 0;
        while self.position < self.bytes.len() {
            if self.bytes[self.position] != b'%' {
                self.position += 1;
                continue;
            }
            if self.position > literal_start {
                pieces.push(FormatPiece::Literal(
                    self.text(literal_start, self.position),
                ));
            }
            let conversion = self.parse_conversion()?;
            pieces.push(FormatPiece::Conversion(conversion));
            literal_start = self.position;
        }
        if self.bytes.len() > literal_start {
            pieces.push(FormatPiece::Literal(
                self.text(literal_start, self.bytes.len()),
            ));
        }
        Ok(FormatString { pieces })
    }

    fn text(&self, start: usize, end: usize) -> Vec<u8> {
        self.bytes[start..end].to_vec()
    }

    fn error(&self, message: String) -> FormatError {
        FormatError {
            message: format!("format conversion #{} {}", self.conversions, message),
        }
    }

    /// Parses one conversion starting at its `%`, following DTrace's `dt_printf_create`
    /// state machine character by character (so that odd orders of flags behave the
    /// same way).
    fn parse_conversion(&mut self) -> Result<Conversion, FormatError> {
        self.conversions += 1;
        let start = self.position;
        self.position += 1;

        let mut flags = ConversionFlags::default();
        let mut width = Width::None;
        let mut precision = Precision::None;
        let mut dot = false;
        let mut digits_seen = false;
        let mut name = String::new();
        let mut prefix_length = 0;

        loop {
            let Some(&character) = self.bytes.get(self.position) else {
                return Err(self.error("name expected before end of format string".into()));
            };
            let previous = self.bytes[self.position - 1];
            self.position += 1;
            match character {
                b'0' if !dot && !digits_seen => {
                    flags.zero_pad = true;
                    flags.left_justify = false;
                }
                b'0'..=b'9' => {
                    let mut value: u32 = u32::from(character - b'0');
                    while let Some(&digit @ b'0'..=b'9') = self.bytes.get(self.position) {
                        value = value.wrapping_mul(10).wrapping_add(u32::from(digit - b'0'));
                        self.position += 1;
                    }
                    // A `*` stays in force even if digits follow it, as in DTrace,
                    // where the dynamic value replaces the digits when printing.
                    if dot {
                        if precision != Precision::Dynamic {
                            precision = Precision::Fixed(value);
                        }
                    } else if width != Width::Dynamic {
                        width = Width::Fixed(value);
                    }
                    digits_seen = true;
                }
                b'#' => flags.alternate = true,
                b'*' => {
                    if dot {
                        if precision == Precision::Dynamic {
                            return Err(self.error(
                                "has more than one '*' specified for the output precision".into(),
                            ));
                        }
                        precision = Precision::Dynamic;
                    } else {
                        if width == Width::Dynamic {
                            return Err(self.error(
                                "has more than one '*' specified for the output width".into(),
                            ));
                        }
                        width = Width::Dynamic;
                    }
                }
                b'+' => flags.plus_sign = true,
                b'-' => {
                    flags.left_justify = true;
                    flags.zero_pad = false;
                }
                b'.' => {
                    if dot {
                        return Err(self.error("has more than one '.' specified".into()));
                    }
                    dot = true;
                    digits_seen = false;
                    if precision == Precision::None {
                        precision = Precision::Fixed(0);
                    }
                }
                b'?' => {
                    if width != Width::Dynamic {
                        width = Width::Fixed(POINTER_WIDTH);
                    }
                }
                b'@' => flags.aggregation = true,
                b'\'' => flags.group_thousands = true,
                b' ' => flags.space_sign = true,
                b'$' => {
                    return Err(self.error("uses unsupported positional format (%n$)".into()));
                }
                b'%' if previous != b'%' => {
                    return Err(self.error("cannot be combined with other format flags: %%".into()));
                }
                b'h' | b'l' | b'L' | b'w' => {
                    if prefix_length < MAXIMUM_PREFIX_LENGTH {
                        name.push(char::from(character));
                        prefix_length += 1;
                    }
                }
                _ => {
                    // The conversion character may be the first byte of a multi-byte
                    // UTF-8 character; take the whole character so that messages show it.
                    let character_end = next_character_boundary(self.bytes, self.position - 1);
                    name.push_str(&String::from_utf8_lossy(
                        &self.bytes[self.position - 1..character_end],
                    ));
                    self.position = character_end;
                    break;
                }
            }
        }

        let text = String::from_utf8_lossy(&self.bytes[start..self.position]).into_owned();
        let Some((behavior, _)) = lookup_conversion(&name) else {
            return Err(self.error(format!("is undefined: %{}", name)));
        };
        Ok(Conversion {
            number: self.conversions,
            flags,
            width,
            precision,
            name,
            text,
            behavior,
        })
    }
}

/// The end of the UTF-8 character starting at `start`.
fn next_character_boundary(bytes: &[u8], start: usize) -> usize {
    let mut end = start + 1;
    while end < bytes.len() && (bytes[end] & 0xc0) == 0x80 {
        end += 1;
    }
    end
}
