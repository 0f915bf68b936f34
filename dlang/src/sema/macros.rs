//! Macro variables (§1.6): `$N` operands typed by their text, `$$N` as strings,
//! `$target`, `$pid`, … as integers and `$$name` as decimal strings, in expressions and
//! inside probe descriptions.

use super::ir::{TypedExpr, TypedExprKind};
use super::{error, Analyzer, SemaResult};
use crate::ast::{IntegerBase, IntegerSuffix, MacroVariable};
use crate::diagnostics::{ErrorTag, Span};

/// What the text of a `$N` operand becomes.
enum OperandToken {
    Integer {
        magnitude: u64,
        negative: bool,
        base: IntegerBase,
        suffix: IntegerSuffix,
    },
    Identifier(String),
    String(Vec<u8>),
}

impl Analyzer<'_> {
    /// The value of a macro variable in an expression.
    pub(super) fn macro_expression(
        &mut self,
        variable: &MacroVariable,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        match variable {
            MacroVariable::Argument { index, written } => {
                let text = self.macro_argument(*index, written, "0", span)?;
                match classify_operand(&text, written, span)? {
                    OperandToken::Integer {
                        magnitude,
                        negative,
                        base,
                        suffix,
                    } => {
                        let ty = self.integer_literal_type(magnitude, base, suffix, span)?;
                        let value = if negative {
                            magnitude.wrapping_neg()
                        } else {
                            magnitude
                        };
                        Ok(self.constant(value, ty, span))
                    }
                    OperandToken::Identifier(name) => {
                        let identifier = crate::ast::Expr {
                            kind: crate::ast::ExprKind::Identifier(name),
                            span: span.clone(),
                        };
                        self.expression(&identifier)
                    }
                    OperandToken::String(bytes) => Ok(self.string_constant(bytes, span)),
                }
            }
            MacroVariable::ArgumentString { index, written } => {
                let text = self.macro_argument(*index, written, "", span)?;
                Ok(self.string_constant(unescape(text.as_bytes()), span))
            }
            MacroVariable::Named(name) => {
                let value = self.named_macro(name, &format!("${name}"), span)?;
                Ok(self.int_constant(i64::from(value as i32), span))
            }
            MacroVariable::NamedString(name) => {
                let value = self.named_macro(name, &format!("$${name}"), span)?;
                Ok(self.string_constant(value.to_string().into_bytes(), span))
            }
        }
    }

    /// The checks DTrace's lexer makes of a macro variable as it reads it: the variable
    /// must be defined and an integer operand must fit in 64 bits. An operand that is
    /// an identifier is only looked up when its expression is analysed.
    pub(super) fn check_macro_while_lexing(
        &mut self,
        variable: &MacroVariable,
        span: &Span,
    ) -> SemaResult<()> {
        match variable {
            MacroVariable::Argument { index, written } => {
                let text = self.macro_argument(*index, written, "0", span)?;
                classify_operand(&text, written, span).map(|_| ())
            }
            MacroVariable::ArgumentString { index, written } => {
                self.macro_argument(*index, written, "", span).map(|_| ())
            }
            MacroVariable::Named(name) => self
                .named_macro(name, &format!("${name}"), span)
                .map(|_| ()),
            MacroVariable::NamedString(name) => self
                .named_macro(name, &format!("$${name}"), span)
                .map(|_| ()),
        }
    }

    fn string_constant(&self, mut bytes: Vec<u8>, span: &Span) -> TypedExpr {
        if let Some(end) = bytes.iter().position(|&b| b == 0) {
            bytes.truncate(end);
        }
        TypedExpr {
            kind: TypedExprKind::String(bytes),
            ty: self.types.well_known().string,
            span: span.clone(),
        }
    }

    /// The text of operand `index`, marking it referenced; `default` when undefined
    /// and defaultargs is set.
    fn macro_argument(
        &mut self,
        index: u32,
        written: &str,
        default: &str,
        span: &Span,
    ) -> SemaResult<String> {
        let index = index as usize;
        match self.options.macro_arguments.get(index) {
            Some(text) => {
                self.arguments_referenced[index] = true;
                Ok(text.clone())
            }
            None if self.settings.default_arguments => Ok(default.to_string()),
            None => Err(error(
                ErrorTag::D_MACRO_UNDEF,
                span,
                format!("macro argument {written} is not defined"),
            )),
        }
    }

    fn named_macro(&self, name: &str, written: &str, span: &Span) -> SemaResult<u32> {
        self.options.macro_variables.value(name).ok_or_else(|| {
            error(
                ErrorTag::D_MACRO_UNDEF,
                span,
                format!("macro variable {written} is not defined"),
            )
        })
    }

    /// Replaces `$N`, `$$N`, `$name` and `$$name` inside a probe description with the
    /// operand text or the decimal value.
    pub(super) fn expand_description_macros(
        &mut self,
        text: &str,
        span: &Span,
    ) -> SemaResult<String> {
        if !text.contains('$') {
            return Ok(text.to_string());
        }
        // dtrace_xstr2desc() fails with EDT_BADSPCV, which the parser reports as an
        // invalid description.
        let undefined = || {
            error(
                ErrorTag::D_PDESC_INVAL,
                span,
                format!(
                    "invalid probe description \"{text}\": Undefined macro variable in probe description"
                ),
            )
        };
        let bytes = text.as_bytes();
        let mut expanded = String::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] != b'$' {
                let next = text[i..].find('$').map_or(text.len(), |offset| i + offset);
                expanded.push_str(&text[i..next]);
                i = next;
                continue;
            }
            i += 1;
            if bytes.get(i) == Some(&b'$') {
                i += 1;
            }
            let start = i;
            if bytes.get(i).is_some_and(u8::is_ascii_digit) {
                while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                let index: usize = text[start..i].parse().map_err(|_| undefined())?;
                match self.options.macro_arguments.get(index) {
                    Some(argument) => {
                        self.arguments_referenced[index] = true;
                        expanded.push_str(argument);
                    }
                    None if self.settings.default_arguments => {}
                    None => return Err(undefined()),
                }
            } else {
                while bytes
                    .get(i)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    i += 1;
                }
                let value = self
                    .options
                    .macro_variables
                    .value(&text[start..i])
                    .ok_or_else(undefined)?;
                expanded.push_str(&value.to_string());
            }
        }
        Ok(expanded)
    }
}

/// The operand numbers `$N` and `$$N` in a probe description refer to.
pub(super) fn description_argument_references(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut references = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        i += 1;
        if bytes.get(i) == Some(&b'$') {
            i += 1;
        }
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if let Ok(index) = text[start..i].parse() {
            references.push(index);
        }
    }
    references
}

/// Decides what a `$N` operand's text is: an integer (optionally signed, C syntax with
/// suffixes), an identifier, or else a string (surrounding quotes stripped).
fn classify_operand(text: &str, written: &str, span: &Span) -> SemaResult<OperandToken> {
    let first = text.as_bytes().first().copied();
    if matches!(first, Some(b'0'..=b'9') | Some(b'+') | Some(b'-')) {
        let (negative, digits) = match first {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        if let Some(token) = parse_integer(digits, negative, written, span)? {
            return Ok(token);
        }
    } else if is_identifier(text) {
        return Ok(OperandToken::Identifier(text.to_string()));
    }
    let inner = if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
        &text[1..text.len() - 1]
    } else {
        text
    };
    Ok(OperandToken::String(unescape(inner.as_bytes())))
}

fn is_identifier(text: &str) -> bool {
    let mut bytes = text.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Parses C integer syntax with an optional `u`/`l` suffix; `None` when the text is not
/// an integer at all.
fn parse_integer(
    text: &str,
    negative: bool,
    written: &str,
    span: &Span,
) -> SemaResult<Option<OperandToken>> {
    let suffix_start = text.find(['u', 'U', 'l', 'L']).unwrap_or(text.len());
    let (number, suffix_text) = text.split_at(suffix_start);
    let lower = suffix_text.to_ascii_lowercase();
    let suffix = match lower.as_str() {
        "" => IntegerSuffix::default(),
        "u" => IntegerSuffix {
            unsigned: true,
            long: 0,
        },
        "l" => IntegerSuffix {
            unsigned: false,
            long: 1,
        },
        "ul" | "lu" => IntegerSuffix {
            unsigned: true,
            long: 1,
        },
        "ll" => IntegerSuffix {
            unsigned: false,
            long: 2,
        },
        "ull" | "llu" => IntegerSuffix {
            unsigned: true,
            long: 2,
        },
        _ => return Ok(None),
    };
    let (digits, radix, base) = if let Some(hex) = number
        .strip_prefix("0x")
        .or_else(|| number.strip_prefix("0X"))
    {
        (hex, 16, IntegerBase::Hexadecimal)
    } else if number.len() > 1 && number.starts_with('0') {
        (&number[1..], 8, IntegerBase::Octal)
    } else {
        (number, 10, IntegerBase::Decimal)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Ok(None);
    }
    match u64::from_str_radix(digits, radix) {
        Ok(magnitude) => Ok(Some(OperandToken::Integer {
            magnitude,
            negative,
            base,
            suffix,
        })),
        Err(_) => Err(error(
            ErrorTag::D_MACRO_OFLOW,
            span,
            format!("macro argument {written} constant {number} results in integer overflow"),
        )),
    }
}

/// Processes the escapes of a D string (§2.5); unknown escapes keep the backslash.
pub(super) fn unescape(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 >= bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let c = bytes[i + 1];
        i += 2;
        match c {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'\\' => out.push(b'\\'),
            b'"' => out.push(b'"'),
            b'0'..=b'7' => {
                let mut value = u32::from(c - b'0');
                let mut digits = 1;
                while digits < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    digits += 1;
                }
                out.push(value as u8);
            }
            b'x' => {
                let mut value: u32 = 0;
                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    value = value.wrapping_mul(16) + (bytes[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                }
                out.push(value as u8);
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    out
}
