//! The lexical pieces of DIF listing lines: comments, operands, numbers, quoted strings,
//! type text (`D type (integer) (size 4)`) and variable-table rows.

use crate::difo::{
    CtfKind, DifType, DifTypeKind, VariableKind, VariableScope, DIF_TYPE_FLAG_BY_REFERENCE,
    DIF_TYPE_FLAG_BY_USER_REFERENCE, DIF_VARIABLE_FLAG_READ, DIF_VARIABLE_FLAG_WRITE,
};

/// One parsed instruction operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Operand {
    /// `%rN`.
    Register(u64),
    /// `[%rN]`: the address operand of loads and stores.
    Address(u64),
    /// `DT_INTEGER[N]`.
    IntegerReference(u64),
    /// `DT_STRING[N]`.
    StringReference(u64),
    /// `DT_VAR(N)`.
    Variable(u64),
    /// `DT_TYPE(N)`.
    TupleType(u64),
    /// `DIF_SUBR(N)`.
    Subroutine(u64),
    /// `DT_XLREF[N]`.
    TranslatorReference(u64),
    /// A bare number (hand-written form): a branch target, an immediate integer, ….
    Number(i128),
    /// A double-quoted string with C escapes (hand-written form): an immediate string.
    Text(Vec<u8>),
    /// An identifier (hand-written form): a label, variable or subroutine name.
    Name(String),
}

impl Operand {
    /// How the operand is called in error messages.
    pub(crate) fn description(&self) -> &'static str {
        match self {
            Operand::Register(_) => "a register",
            Operand::Address(_) => "an address operand",
            Operand::IntegerReference(_) => "an integer table reference",
            Operand::StringReference(_) => "a string table reference",
            Operand::Variable(_) => "a variable reference",
            Operand::TupleType(_) => "a tuple type",
            Operand::Subroutine(_) => "a subroutine",
            Operand::TranslatorReference(_) => "a translator reference",
            Operand::Number(_) => "a number",
            Operand::Text(_) => "a string",
            Operand::Name(_) => "a name",
        }
    }
}

/// Splits an instruction line at its comment: the first `!` outside double quotes.
/// Returns the code and, if present, everything after the `!`.
pub(crate) fn split_comment(line: &str) -> (&str, Option<&str>) {
    let mut in_quotes = false;
    let mut escaped = false;
    for (position, character) in line.char_indices() {
        if in_quotes {
            match character {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_quotes = false,
                _ => {}
            }
        } else if character == '"' {
            in_quotes = true;
        } else if character == '!' {
            return (&line[..position], Some(&line[position + 1..]));
        }
    }
    (line, None)
}

/// Splits an operand list at commas outside double quotes; each operand is trimmed.
pub(crate) fn split_operands(text: &str) -> Vec<&str> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let mut operands = Vec::new();
    let mut start = 0;
    let mut in_quotes = false;
    let mut escaped = false;
    for (position, character) in text.char_indices() {
        if in_quotes {
            match character {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_quotes = false,
                _ => {}
            }
        } else if character == '"' {
            in_quotes = true;
        } else if character == ',' {
            operands.push(text[start..position].trim());
            start = position + 1;
        }
    }
    operands.push(text[start..].trim());
    operands
}

/// Builds an operand from the number inside `DT_…[n]`/`DT_…(n)`.
type MakeOperand = fn(u64) -> Operand;

/// Parses one operand.
pub(crate) fn parse_operand(text: &str) -> Result<Operand, String> {
    if text.starts_with('"') {
        return parse_quoted_string(text).map(Operand::Text);
    }
    if let Some(register) = text.strip_prefix("%r") {
        return parse_unsigned(register)
            .map(Operand::Register)
            .ok_or_else(|| format!("invalid register `{text}`"));
    }
    if let Some(inner) = text
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    {
        return inner
            .trim()
            .strip_prefix("%r")
            .and_then(parse_unsigned)
            .map(Operand::Address)
            .ok_or_else(|| format!("invalid address operand `{text}`"));
    }
    let wrapped: [(&str, &str, MakeOperand); 6] = [
        ("DT_INTEGER[", "]", Operand::IntegerReference),
        ("DT_STRING[", "]", Operand::StringReference),
        ("DT_VAR(", ")", Operand::Variable),
        ("DT_TYPE(", ")", Operand::TupleType),
        ("DIF_SUBR(", ")", Operand::Subroutine),
        ("DT_XLREF[", "]", Operand::TranslatorReference),
    ];
    for (prefix, suffix, make) in wrapped {
        if let Some(rest) = text.strip_prefix(prefix) {
            return rest
                .strip_suffix(suffix)
                .and_then(|number| parse_unsigned(number.trim()))
                .map(make)
                .ok_or_else(|| format!("invalid operand `{text}`"));
        }
    }
    if text.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return parse_signed(text)
            .map(Operand::Number)
            .ok_or_else(|| format!("invalid number `{text}`"));
    }
    if is_identifier(text) {
        return Ok(Operand::Name(text.to_string()));
    }
    if text.is_empty() {
        return Err("missing operand".to_string());
    }
    Err(format!("cannot parse operand `{text}`"))
}

/// True for a D-style identifier: a letter or `_`, then letters, digits or `_`.
pub(crate) fn is_identifier(text: &str) -> bool {
    let mut characters = text.chars();
    matches!(characters.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && characters.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses an unsigned decimal or `0x` hexadecimal number.
pub(crate) fn parse_unsigned(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        return u64::from_str_radix(hex, 16).ok();
    }
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Parses an optionally negative decimal or `0x` hexadecimal number.
pub(crate) fn parse_signed(text: &str) -> Option<i128> {
    match text.strip_prefix('-') {
        Some(magnitude) => parse_unsigned(magnitude).map(|value| -(value as i128)),
        None => parse_unsigned(text).map(|value| value as i128),
    }
}

/// Parses a double-quoted string with the escapes `\\ \" \n \t \r \0 \xHH`.
pub(crate) fn parse_quoted_string(text: &str) -> Result<Vec<u8>, String> {
    let inner = text
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .filter(|_| text.len() >= 2)
        .ok_or_else(|| format!("unterminated string {text}"))?;
    let mut bytes = Vec::new();
    let mut characters = inner.chars();
    while let Some(character) = characters.next() {
        if character == '"' {
            return Err(format!("unescaped `\"` inside string {text}"));
        }
        if character != '\\' {
            let mut buffer = [0u8; 4];
            bytes.extend_from_slice(character.encode_utf8(&mut buffer).as_bytes());
            continue;
        }
        let escaped = match characters.next() {
            Some('\\') => b'\\',
            Some('"') => b'"',
            Some('n') => b'\n',
            Some('t') => b'\t',
            Some('r') => b'\r',
            Some('0') => 0,
            Some('x') => {
                let digits: String = characters.by_ref().take(2).collect();
                if digits.len() != 2 {
                    return Err(format!("`\\x` needs two hex digits in {text}"));
                }
                u8::from_str_radix(&digits, 16)
                    .map_err(|_| format!("`\\x` needs two hex digits in {text}"))?
            }
            Some(other) => return Err(format!("unknown escape `\\{other}` in {text}")),
            None => return Err(format!("unterminated escape in {text}")),
        };
        bytes.push(escaped);
    }
    Ok(bytes)
}

/// Parses the listing's type text: `<kind> (<ctf kind>) [by ref |by user ref ](size N)`.
pub(crate) fn parse_type_text(text: &str) -> Result<DifType, String> {
    let bad = || format!("invalid type `{text}`");
    let text = text.trim();
    let (kind, rest) = if let Some(rest) = text.strip_prefix("D type") {
        (DifTypeKind::Ctf, rest)
    } else if let Some(rest) = text.strip_prefix("string") {
        (DifTypeKind::String, rest)
    } else {
        return Err(bad());
    };
    let rest = rest.trim_start().strip_prefix('(').ok_or_else(bad)?;
    let (ctf_word, rest) = rest.split_once(')').ok_or_else(bad)?;
    let ctf_kind = ctf_kind_from_word(ctf_word.trim()).ok_or_else(bad)?;
    let rest = rest.trim_start();
    let (flags, rest) = if let Some(rest) = rest.strip_prefix("by user ref") {
        (DIF_TYPE_FLAG_BY_USER_REFERENCE, rest)
    } else if let Some(rest) = rest.strip_prefix("by ref") {
        (DIF_TYPE_FLAG_BY_REFERENCE, rest)
    } else {
        (0, rest)
    };
    let size = rest
        .trim()
        .strip_prefix("(size ")
        .and_then(|size| size.strip_suffix(')'))
        .and_then(|size| parse_unsigned(size.trim()))
        .and_then(|size| u32::try_from(size).ok())
        .ok_or_else(bad)?;
    Ok(DifType {
        kind,
        ctf_kind,
        flags,
        size,
    })
}

fn ctf_kind_from_word(word: &str) -> Option<CtfKind> {
    use CtfKind::*;
    [
        Unknown, Integer, Float, Pointer, Array, Function, Struct, Union, Enum,
    ]
    .into_iter()
    .find(|kind| kind.word() == word)
}

/// One row of the listing's variable table, with the name still a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VariableRow {
    pub name: String,
    pub id: u16,
    pub kind: VariableKind,
    pub scope: VariableScope,
    pub flags: u8,
    pub ty: DifType,
}

/// Parses a variable-table row: `NAME ID KND SCP FLAG TYPE`, where NAME and FLAG may be
/// empty. Names are identifiers, so a row whose first word is a number has no name; the
/// type text starts with `D` or `string`, which no flag text does.
pub(crate) fn parse_variable_row(line: &str) -> Result<VariableRow, String> {
    let bad = |why: &str| format!("invalid variable table row ({why}): `{}`", line.trim());
    let mut rest = line.trim();
    let next_word = |rest: &mut &str| -> Option<String> {
        let trimmed = rest.trim_start();
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let (word, remainder) = trimmed.split_at(end);
        *rest = remainder;
        (!word.is_empty()).then(|| word.to_string())
    };
    let first = next_word(&mut rest).ok_or_else(|| bad("empty"))?;
    let (name, id_text) = if first.starts_with(|c: char| c.is_ascii_digit()) {
        (String::new(), first)
    } else {
        (first, next_word(&mut rest).ok_or_else(|| bad("no id"))?)
    };
    let id = parse_unsigned(&id_text)
        .and_then(|id| u16::try_from(id).ok())
        .ok_or_else(|| bad("bad id"))?;
    let kind = match next_word(&mut rest).as_deref() {
        Some("arr") => VariableKind::Array,
        Some("scl") => VariableKind::Scalar,
        _ => return Err(bad("bad kind")),
    };
    let scope = match next_word(&mut rest).as_deref() {
        Some("glb") => VariableScope::Global,
        Some("tls") => VariableScope::ThreadLocal,
        Some("loc") => VariableScope::ClauseLocal,
        _ => return Err(bad("bad scope")),
    };
    let after_scope = rest.trim_start();
    let (flags, type_text) = if after_scope.starts_with("D ") || after_scope.starts_with("string") {
        (0, after_scope)
    } else {
        let flags_text = next_word(&mut rest).ok_or_else(|| bad("no type"))?;
        (
            parse_variable_flags(&flags_text).ok_or_else(|| bad("bad flags"))?,
            rest.trim_start(),
        )
    };
    let ty = parse_type_text(type_text)?;
    Ok(VariableRow {
        name,
        id,
        kind,
        scope,
        flags,
        ty,
    })
}

/// Parses the flag column: `/`-separated `r`, `w` and `0x…` parts.
fn parse_variable_flags(text: &str) -> Option<u8> {
    let mut flags = 0u8;
    for part in text.split('/') {
        flags |= match part {
            "r" => DIF_VARIABLE_FLAG_READ,
            "w" => DIF_VARIABLE_FLAG_WRITE,
            other => {
                u8::try_from(parse_unsigned(other).filter(|_| other.starts_with("0x"))?).ok()?
            }
        };
    }
    Some(flags)
}
