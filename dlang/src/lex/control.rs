//! Control lines (`#pragma`, `#line`, `# N "file"`, `#ident`, `#error`, …), processed
//! by the lexer itself as DTrace does without `-C` (D-REFERENCE.md §1.2, §1.3).

use difvm::stability::Attribute;

use crate::ast::{OptionPragma, Pragma};
use crate::diagnostics::{Diagnostic, ErrorTag, Span};

use super::literals::{
    decode_integer, is_integer_token, scan_quoted, translate_escapes, QuotedScan,
};

/// What a control line asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ControlEffect {
    /// Nothing: `#ident`, `#pragma ident`, an empty `#`, or a pragma of another namespace.
    Nothing,
    /// The next line is `line`; `file` as for [`super::SourceMap::add_line_directive`].
    Line {
        line: u32,
        file: Option<Option<String>>,
    },
    Option(OptionPragma),
    Pragma(Pragma),
}

#[derive(Debug, Clone, PartialEq)]
enum WordKind {
    Integer(u64),
    String(String),
    Identifier(String),
}

impl WordKind {
    fn text(&self) -> String {
        match self {
            WordKind::Integer(value) => value.to_string(),
            WordKind::String(text) | WordKind::Identifier(text) => text.clone(),
        }
    }
}

/// How deep into `#pragma D` the words so far have led, ordered as DTrace orders them:
/// a pragma is known at a level if its own level is not deeper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum PragmaLevel {
    Directive,
    Pragma,
    DPragma,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PragmaHandler {
    Attributes,
    Binding,
    DependsOn,
    Error,
    Ident,
    Line,
    Option,
}

const PRAGMAS: &[(&str, PragmaHandler, PragmaLevel)] = &[
    (
        "attributes",
        PragmaHandler::Attributes,
        PragmaLevel::DPragma,
    ),
    ("binding", PragmaHandler::Binding, PragmaLevel::DPragma),
    ("depends_on", PragmaHandler::DependsOn, PragmaLevel::DPragma),
    ("error", PragmaHandler::Error, PragmaLevel::Directive),
    ("ident", PragmaHandler::Ident, PragmaLevel::Directive),
    ("line", PragmaHandler::Line, PragmaLevel::Directive),
    ("option", PragmaHandler::Option, PragmaLevel::DPragma),
];

/// Processes the control line whose `#` is at `hash` and which ends (before its
/// newline) at `end`.
pub(crate) fn process_control_line(
    source: &str,
    hash: usize,
    end: usize,
) -> Result<ControlEffect, Diagnostic> {
    let span = hash..end;
    let words = split_words(source, hash + 1, end)?;
    let mut level = PragmaLevel::Directive;
    for (index, word) in words.iter().enumerate() {
        let name = match word {
            WordKind::Integer(_) => return line_directive("line", &words[index..], span),
            WordKind::String(_) => {
                return Err(Diagnostic::new(
                    ErrorTag::D_PRAGCTL_INVAL,
                    span,
                    "invalid control directive",
                ));
            }
            WordKind::Identifier(name) => name.as_str(),
        };
        if level == PragmaLevel::Directive && name == "pragma" {
            level = PragmaLevel::Pragma;
            continue;
        }
        if level == PragmaLevel::Pragma && name == "D" {
            level = PragmaLevel::DPragma;
            continue;
        }
        let handler = PRAGMAS
            .iter()
            .find(|(pragma, _, pragma_level)| *pragma_level <= level && *pragma == name);
        let Some(&(pragma_name, handler, _)) = handler else {
            return match level {
                PragmaLevel::Directive => Err(Diagnostic::new(
                    ErrorTag::D_PRAGCTL_INVAL,
                    span,
                    format!("invalid control directive: #{name}"),
                )),
                PragmaLevel::DPragma => Err(Diagnostic::new(
                    ErrorTag::D_PRAGMA_INVAL,
                    span,
                    format!("invalid D pragma: {name}"),
                )),
                // Pragmas of other namespaces are ignored.
                PragmaLevel::Pragma => Ok(ControlEffect::Nothing),
            };
        };
        let arguments = &words[index + 1..];
        return match handler {
            PragmaHandler::Ident => Ok(ControlEffect::Nothing),
            PragmaHandler::Line => line_directive(pragma_name, arguments, span),
            PragmaHandler::Error => Err(error_directive(pragma_name, arguments, span)),
            PragmaHandler::Option => option_pragma(pragma_name, arguments, span),
            PragmaHandler::Attributes | PragmaHandler::Binding | PragmaHandler::DependsOn => {
                check_declaration_pragma(handler, pragma_name, arguments, &span)?;
                let words = std::iter::once(pragma_name.to_string())
                    .chain(arguments.iter().map(WordKind::text));
                Ok(ControlEffect::Pragma(Pragma {
                    words: words.collect(),
                    span,
                }))
            }
        };
    }
    Ok(ControlEffect::Nothing)
}

/// `#line N ["file" [state]]`, `# N "file" ...` and `#pragma line`.
fn line_directive(
    name: &str,
    arguments: &[WordKind],
    span: Span,
) -> Result<ControlEffect, Diagnostic> {
    let malformed = || {
        Diagnostic::new(
            ErrorTag::D_PRAGMA_MALFORM,
            span.clone(),
            format!("malformed #{name} <val> [ [\"file\"] state ]"),
        )
    };
    let line = match arguments.first() {
        Some(WordKind::Integer(line)) => u32::try_from(*line).unwrap_or(u32::MAX),
        _ => return Err(malformed()),
    };
    let file = match arguments.get(1) {
        None => None,
        // cpp names the main input /dev/fd/N when DTrace pipes it in; messages then
        // refer to the script itself, so the tag is cleared.
        Some(WordKind::String(file)) if file.starts_with("/dev/fd/") => Some(None),
        Some(WordKind::String(file)) => Some(Some(file.clone())),
        Some(_) => return Err(malformed()),
    };
    if let Some(state) = arguments.get(2) {
        if !matches!(state, WordKind::Integer(_)) {
            return Err(malformed());
        }
    }
    Ok(ControlEffect::Line { line, file })
}

/// `#error text` and `#pragma error text`: DTrace joins the words, each followed by a
/// space, and fails.
fn error_directive(name: &str, arguments: &[WordKind], span: Span) -> Diagnostic {
    let mut text = String::new();
    for word in arguments {
        if let WordKind::String(word) | WordKind::Identifier(word) = word {
            text.push_str(word);
            text.push(' ');
        }
    }
    Diagnostic::new(ErrorTag::D_PRAGERR, span, format!("#{name}: {text}"))
}

/// The checks dt_pragma.c makes on the words of `#pragma D attributes`, `binding` and
/// `depends_on` before it looks any name up (the look-ups are the analyzer's, in
/// `sema::pragmas`): the kinds of the words, the attribute triple and the version.
fn check_declaration_pragma(
    handler: PragmaHandler,
    name: &str,
    arguments: &[WordKind],
    span: &Span,
) -> Result<(), Diagnostic> {
    let error = |tag, message: String| Err(Diagnostic::new(tag, span.clone(), message));
    match handler {
        PragmaHandler::Attributes => match arguments {
            [WordKind::Identifier(attributes), WordKind::Identifier(target), rest @ ..] => {
                if Attribute::parse(attributes).is_none() {
                    return error(
                        ErrorTag::D_PRAGMA_INVAL,
                        format!("invalid attributes specified by #pragma {name}"),
                    );
                }
                // `provider NAME [PART]`; dt_pragma.c reads past the end of the words
                // when the provider name is missing, we call that malformed.
                let provider_named = matches!(rest.first(), Some(WordKind::Identifier(_)));
                if target == "provider" && !provider_named {
                    return error(
                        ErrorTag::D_PRAGMA_MALFORM,
                        format!("malformed #pragma {name} <attributes> <ident>"),
                    );
                }
                Ok(())
            }
            _ => error(
                ErrorTag::D_PRAGMA_MALFORM,
                format!("malformed #pragma {name} <attributes> <ident>"),
            ),
        },
        PragmaHandler::Binding => match arguments {
            [WordKind::String(version), WordKind::Identifier(_), ..] => {
                if is_version_string(version) {
                    Ok(())
                } else {
                    error(
                        ErrorTag::D_PRAGMA_INVAL,
                        format!("invalid version string specified by #pragma {name}"),
                    )
                }
            }
            _ => error(
                ErrorTag::D_PRAGMA_MALFORM,
                format!("malformed #pragma {name} \"version\" <ident>"),
            ),
        },
        _ => match arguments {
            [WordKind::Identifier(class), WordKind::Identifier(_), ..] => {
                if matches!(class.as_str(), "provider" | "module" | "library") {
                    Ok(())
                } else {
                    error(
                        ErrorTag::D_PRAGMA_INVAL,
                        format!("invalid class {class} specified by #pragma {name}"),
                    )
                }
            }
            _ => error(
                ErrorTag::D_PRAGMA_MALFORM,
                format!("malformed #pragma {name} <class> <name>"),
            ),
        },
    }
}

/// dt_version_str2num(): at most three `.`-separated decimal parts, the major at most
/// 255 and the others at most 4095.
fn is_version_string(text: &str) -> bool {
    let mut parts = [0u64; 3];
    let mut index = 0;
    for character in text.chars() {
        if let Some(digit) = character.to_digit(10) {
            parts[index] = (parts[index] * 10 + u64::from(digit)).min(u64::from(u32::MAX));
        } else if character == '.' && index < 2 {
            index += 1;
        } else {
            return false;
        }
    }
    parts[0] <= 0xff && parts[1] <= 0xfff && parts[2] <= 0xfff
}

/// `#pragma D option name[=value]`.
fn option_pragma(
    name: &str,
    arguments: &[WordKind],
    span: Span,
) -> Result<ControlEffect, Diagnostic> {
    let Some(WordKind::Identifier(setting)) = arguments.first() else {
        return Err(Diagnostic::new(
            ErrorTag::D_PRAGMA_MALFORM,
            span,
            format!("malformed #pragma {name} <option>=<val>"),
        ));
    };
    if arguments.len() > 1 {
        return Err(Diagnostic::new(
            ErrorTag::D_PRAGMA_MALFORM,
            span,
            format!("superfluous arguments specified for #pragma {name}"),
        ));
    }
    let (option, value) = match setting.split_once('=') {
        Some((option, value)) => (option.to_string(), Some(value.to_string())),
        None => (setting.clone(), None),
    };
    Ok(ControlEffect::Option(OptionPragma {
        name: option,
        value,
        span,
    }))
}

/// Splits the text of a control line into words: integers, string literals, and runs
/// of other non-blank characters (names).
fn split_words(source: &str, start: usize, end: usize) -> Result<Vec<WordKind>, Diagnostic> {
    let bytes = source.as_bytes();
    let mut words = Vec::new();
    let mut position = start;
    loop {
        while position < end && matches!(bytes[position], b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
            position += 1;
        }
        if position >= end {
            return Ok(words);
        }
        let word_start = position;
        if bytes[position] == b'"' {
            let QuotedScan::Closed(close) = scan_quoted(&source[..end], position, b'"') else {
                return Err(Diagnostic::new(
                    ErrorTag::D_SYNTAX,
                    position..position + 1,
                    "syntax error near \"\"\"",
                ));
            };
            let text = translate_escapes(&source[word_start + 1..close]);
            words.push(WordKind::String(
                String::from_utf8_lossy(&text).into_owned(),
            ));
            position = close + 1;
            continue;
        }
        while position < end
            && !matches!(bytes[position], b' ' | b'\t' | b'\r' | 0x0b | 0x0c | b'"')
        {
            position += 1;
        }
        let text = &source[word_start..position];
        // DTrace's lexer takes the longest match, so a word is an integer only if all of
        // it is one (`1.0` is a name, `08` an integer with an invalid digit).
        if is_integer_token(text) {
            let literal = decode_integer(text, word_start..position)?;
            words.push(WordKind::Integer(literal.value));
        } else {
            words.push(WordKind::Identifier(text.to_string()));
        }
    }
}
