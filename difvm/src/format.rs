//! Parsed printf-style formats as the compiled program stores them: the literal text and
//! conversions of a `printf`/`printa`/`system`/`freopen` format (flags, widths and
//! precisions including `*`, and how each conversion prints its value), so that the
//! consumer formats records without parsing format strings.
//!
//! The compiler (`dlang::format`) parses format strings into these types and checks the
//! conversions against the arguments' D types; this crate only holds the result. A
//! [`PrintfFormat`] keeps the text as written and either its parsed form or the parse
//! error, which the consumer reports when it first uses the format (the compiler refuses
//! formats that do not parse, so only a program built by other means carries an error).
//!
//! Conversions are numbered from 1 in order of appearance, counting `%%`, exactly as
//! DTrace numbers them in its messages.

/// The format of a printf-like action as the compiled program stores it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrintfFormat {
    /// The format as written (for `freopen("")`, the restore sentinel).
    pub text: String,
    /// The parsed format, or why `text` does not parse.
    pub parsed: Result<FormatString, FormatError>,
}

impl PrintfFormat {
    /// A format the compiler parsed without error.
    pub fn from_parsed(text: String, parsed: FormatString) -> PrintfFormat {
        PrintfFormat {
            text,
            parsed: Ok(parsed),
        }
    }
}

/// A parsed format string: literal text and conversions in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FormatString {
    pub pieces: Vec<FormatPiece>,
}

/// One piece of a format string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FormatPiece {
    /// Text printed as is (escape sequences were already processed by the lexer). It is
    /// bytes, not UTF-8: a `"\xfb"` in a format prints the byte 0xfb.
    Literal(Vec<u8>),
    Conversion(Conversion),
}

/// The width of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    /// No width given.
    None,
    /// A decimal width, or 16 for the `?` flag.
    Fixed(u32),
    /// `*`: an `int` argument before the value gives the width (negative means
    /// left-justify).
    Dynamic,
}

/// The precision of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Precision {
    /// No precision given.
    None,
    /// `.N` (a bare `.` is precision 0).
    Fixed(u32),
    /// `.*`: an `int` argument gives the precision.
    Dynamic,
}

/// The flag characters of a conversion. As in DTrace, `-` and `0` cancel each other:
/// whichever comes last wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ConversionFlags {
    /// `-`: left-justify within the width.
    pub left_justify: bool,
    /// `+`: always print a sign for signed conversions.
    pub plus_sign: bool,
    /// ` `: print a space where a `+` sign would go.
    pub space_sign: bool,
    /// `#`: alternate form (`0x` for hex, leading `0` for octal).
    pub alternate: bool,
    /// `0`: pad numbers with zeros.
    pub zero_pad: bool,
    /// `'`: thousands grouping (no effect in the C locale DTrace prints in).
    pub group_thousands: bool,
    /// `@`: the value is the aggregation value (printa only).
    pub aggregation: bool,
}

/// What an argument position of a conversion is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgumentRole {
    /// The `int` of a `*` width.
    DynamicWidth,
    /// The `int` of a `.*` precision.
    DynamicPrecision,
    /// The value being converted.
    Value,
}

/// How the digits of an integer conversion are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntegerRadix {
    Decimal,
    Octal,
    HexLower,
    HexUpper,
}

/// Whether an integer conversion prints the value as signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntegerSignedness {
    Signed,
    Unsigned,
    /// `%d`/`%i`: signed when the argument's type is signed, unsigned otherwise.
    FromArgument,
}

/// How the consumer prints the value of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConversionBehavior {
    /// `d i u o x X p` and the sized forms: the value at its recorded size.
    Integer {
        radix: IntegerRadix,
        signedness: IntegerSignedness,
    },
    /// `c`: the low byte of the value as a character.
    Character,
    /// `lc`, `wc`: a wide character.
    WideCharacter,
    /// `C`: a character, escaped like `%S` when not printable.
    EscapedCharacter,
    /// `s`: the string up to its first NUL.
    String,
    /// `S`: the string with non-printable characters escaped.
    EscapedString,
    /// `ls`, `ws`: an array of `wchar_t`.
    WideString,
    /// `e E f g G` and the `L` forms; the character is the C conversion.
    FloatingPoint { conversion: char },
    /// `a`: a kernel address as `module`symbol+0xoffset`.
    KernelAddress,
    /// `A`: a user address of the traced process, same layout.
    UserAddress,
    /// `k`: a stack, one frame per line.
    Stack,
    /// `Y`: nanoseconds since the epoch as `YYYY Mon DD HH:MM:SS` local time.
    Time,
    /// `T`: nanoseconds since the epoch in RFC-822 style.
    Time822,
    /// `I`: an IP address string.
    InetAddress,
    /// `P`: a port number (network byte order `uint16_t`).
    Port,
    /// `%%`: a literal `%`; consumes no argument.
    Percent,
}

/// One conversion (`%…`) of a format string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Conversion {
    /// 1-based number of the conversion in the format (counting `%%`), as used in
    /// DTrace's messages.
    pub number: u32,
    pub flags: ConversionFlags,
    pub width: Width,
    pub precision: Precision,
    /// The conversion's name: size prefix and conversion character, e.g. `d`, `lld`,
    /// `hx`, `%`. This is the `%s` of `(%%%s)` in DTrace's messages.
    pub name: String,
    /// The source text of the conversion, from `%` to the conversion character.
    pub text: String,
    pub behavior: ConversionBehavior,
}

/// Why a format string does not parse.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FormatError {
    /// The message in DTrace's words, e.g. `format conversion #2 is undefined: %z`.
    pub message: String,
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FormatError {}

impl FormatString {
    /// The conversions in order.
    pub fn conversions(&self) -> impl Iterator<Item = &Conversion> {
        self.pieces.iter().filter_map(|piece| match piece {
            FormatPiece::Conversion(conversion) => Some(conversion),
            FormatPiece::Literal(_) => None,
        })
    }

    /// True when the format has no text and no conversions (D_PRINTF_FMT_EMPTY).
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// True when some conversion carries the `@` flag.
    pub fn has_aggregation_conversion(&self) -> bool {
        self.conversions()
            .any(|conversion| conversion.flags.aggregation)
    }
}

impl Conversion {
    /// The argument positions the conversion consumes, in order: a dynamic width, a
    /// dynamic precision, then the value. `%%` consumes nothing, and an `@` conversion
    /// takes its value from the aggregation rather than from the argument list (only
    /// its dynamic width and precision are arguments).
    pub fn arguments(&self) -> Vec<ArgumentRole> {
        let mut roles = Vec::new();
        if self.behavior == ConversionBehavior::Percent {
            return roles;
        }
        if self.width == Width::Dynamic {
            roles.push(ArgumentRole::DynamicWidth);
        }
        if self.precision == Precision::Dynamic {
            roles.push(ArgumentRole::DynamicPrecision);
        }
        if !self.flags.aggregation {
            roles.push(ArgumentRole::Value);
        }
        roles
    }

    /// The conversion as DTrace's `conversion:` line shows it: `%`, the `@` flag if
    /// present, then the name (e.g. `%s`, `%@d`).
    pub fn label(&self) -> String {
        let aggregation = if self.flags.aggregation { "@" } else { "" };
        format!("%{}{}", aggregation, self.name)
    }
}
