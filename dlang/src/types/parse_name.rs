//! Parses C type names given as text (`const char *`, `struct file *`, `uint64_t`,
//! `int [16]`, `void (*)()`): the argument types probe providers report and the
//! prototypes of D's built-in functions.

use super::table::{Qualifiers, TypeId, TypeTable};
use crate::kernel_types::KernelTypeNamespace;

/// Why a type name could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeNameError {
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Star,
    OpenBracket,
    CloseBracket,
    OpenParen,
    CloseParen,
    Number(u64),
    Comma,
    Ellipsis,
}

fn tokenize(text: &str) -> Result<Vec<Token>, TypeNameError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\n' => i += 1,
            b'*' => {
                tokens.push(Token::Star);
                i += 1
            }
            b'[' => {
                tokens.push(Token::OpenBracket);
                i += 1
            }
            b']' => {
                tokens.push(Token::CloseBracket);
                i += 1
            }
            b'(' => {
                tokens.push(Token::OpenParen);
                i += 1
            }
            b')' => {
                tokens.push(Token::CloseParen);
                i += 1
            }
            b',' => {
                tokens.push(Token::Comma);
                i += 1
            }
            b'.' if text[i..].starts_with("...") => {
                tokens.push(Token::Ellipsis);
                i += 3
            }
            b'0'..=b'9' => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                let digits = &text[start..i];
                let value = if let Some(hex) = digits.strip_prefix("0x") {
                    u64::from_str_radix(hex, 16)
                } else {
                    digits.parse()
                };
                let value = value.map_err(|_| TypeNameError {
                    message: format!("invalid array dimension in type name: {digits}"),
                })?;
                tokens.push(Token::Number(value));
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'`' => {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'`')
                {
                    i += 1;
                }
                tokens.push(Token::Word(text[start..i].to_string()));
            }
            _ => {
                return Err(TypeNameError {
                    message: format!("invalid character '{}' in type name", c as char),
                })
            }
        }
    }
    Ok(tokens)
}

/// Parses `text` as a C type name, resolving names in `table`. Unknown struct, union
/// and enum tags are declared (incomplete); unknown typedef names are errors.
pub fn parse_type_name(table: &mut TypeTable, text: &str) -> Result<TypeId, TypeNameError> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens: &tokens,
        position: 0,
        text,
    };
    let ty = parser.type_name(table)?;
    if parser.position != tokens.len() {
        return Err(parser.unknown());
    }
    Ok(ty)
}

struct Parser<'a> {
    tokens: &'a [Token],
    position: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn unknown(&self) -> TypeNameError {
        TypeNameError {
            message: format!("failed to resolve type {}: Unknown type name", self.text),
        }
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.position)
    }

    fn type_name(&mut self, table: &mut TypeTable) -> Result<TypeId, TypeNameError> {
        let mut qualifiers = Qualifiers::default();
        let mut words: Vec<String> = Vec::new();
        let mut tagged: Option<TypeId> = None;
        let mut named: Option<TypeId> = None;
        while let Some(Token::Word(word)) = self.peek() {
            // Keywords are matched without a module scope; names are looked up with it
            // (`` vmlinux`task_struct `` is the kernel's).
            let scoped = word.clone();
            let word = word.rsplit('`').next().unwrap_or("").to_string();
            match word.as_str() {
                "const" => qualifiers.constant = true,
                "volatile" => qualifiers.volatile = true,
                "restrict" => qualifiers.restrict = true,
                "userland" => {}
                "struct" | "union" | "enum" => {
                    self.position += 1;
                    let Some(Token::Word(tag)) = self.peek() else {
                        return Err(self.unknown());
                    };
                    let namespace = match word.as_str() {
                        "struct" => KernelTypeNamespace::Struct,
                        "union" => KernelTypeNamespace::Union,
                        _ => KernelTypeNamespace::Enum,
                    };
                    let tag = tag.clone();
                    tagged = Some(table.tagged(namespace, &tag));
                }
                "signed" | "unsigned" | "char" | "short" | "int" | "long" | "void" | "float"
                | "double" | "_Bool" | "string" => words.push(word),
                _ => {
                    if tagged.is_some() || named.is_some() || !words.is_empty() {
                        break;
                    }
                    named = Some(table.type_named(&scoped).ok_or_else(|| self.unknown())?);
                }
            }
            self.position += 1;
        }
        let base = match (tagged, named) {
            (Some(ty), None) if words.is_empty() => ty,
            (None, Some(ty)) if words.is_empty() => ty,
            (None, None) => intrinsic_from_words(table, &words).ok_or_else(|| self.unknown())?,
            _ => return Err(self.unknown()),
        };
        let mut ty = table.qualified(base, qualifiers);
        // Pointers with their own qualifiers.
        loop {
            match self.peek() {
                Some(Token::Star) => {
                    self.position += 1;
                    ty = table.pointer_to(ty);
                }
                Some(Token::Word(word))
                    if word == "const" || word == "volatile" || word == "restrict" =>
                {
                    let qualifiers = Qualifiers {
                        constant: word == "const",
                        volatile: word == "volatile",
                        restrict: word == "restrict",
                    };
                    self.position += 1;
                    ty = table.qualified(ty, qualifiers);
                }
                _ => break,
            }
        }
        // `(*)(...)`: a pointer to a function returning `ty`.
        if self.peek() == Some(&Token::OpenParen) {
            self.position += 1;
            let mut pointers = 0;
            while self.peek() == Some(&Token::Star) {
                self.position += 1;
                pointers += 1;
            }
            if self.peek() != Some(&Token::CloseParen) {
                return Err(self.unknown());
            }
            self.position += 1;
            let (parameters, varargs) = self.parameter_list(table)?;
            ty = table.function(ty, parameters, varargs);
            for _ in 0..pointers {
                ty = table.pointer_to(ty);
            }
            return Ok(ty);
        }
        // Array dimensions: `int [4][2]` is an array of 4 arrays of 2 ints.
        let mut dimensions = Vec::new();
        while self.peek() == Some(&Token::OpenBracket) {
            self.position += 1;
            let count = match self.peek() {
                Some(Token::Number(count)) => {
                    let count = *count;
                    self.position += 1;
                    count
                }
                _ => 0,
            };
            if self.peek() != Some(&Token::CloseBracket) {
                return Err(self.unknown());
            }
            self.position += 1;
            dimensions.push(count);
        }
        for count in dimensions.into_iter().rev() {
            ty = table.array_of(ty, count);
        }
        Ok(ty)
    }

    fn parameter_list(
        &mut self,
        table: &mut TypeTable,
    ) -> Result<(Vec<TypeId>, bool), TypeNameError> {
        if self.peek() != Some(&Token::OpenParen) {
            return Err(self.unknown());
        }
        self.position += 1;
        let mut parameters = Vec::new();
        let mut varargs = false;
        loop {
            match self.peek() {
                Some(Token::CloseParen) => {
                    self.position += 1;
                    break;
                }
                Some(Token::Comma) => self.position += 1,
                Some(Token::Ellipsis) => {
                    self.position += 1;
                    varargs = true;
                }
                Some(_) => {
                    let parameter = self.type_name(table)?;
                    if !table.is_void(parameter) {
                        parameters.push(parameter);
                    }
                }
                None => return Err(self.unknown()),
            }
        }
        Ok((parameters, varargs))
    }
}

/// Resolves a combination of intrinsic type words (`unsigned long long`, `signed`,
/// `long int`) to its type; `None` for invalid combinations.
pub(crate) fn intrinsic_from_words(table: &TypeTable, words: &[String]) -> Option<TypeId> {
    let count = |name: &str| words.iter().filter(|word| *word == name).count();
    let signed = count("signed");
    let unsigned = count("unsigned");
    let longs = count("long");
    let shorts = count("short");
    let ints = count("int");
    let chars = count("char");
    let others: Vec<&String> = words
        .iter()
        .filter(|word| {
            !matches!(
                word.as_str(),
                "signed" | "unsigned" | "long" | "short" | "int" | "char"
            )
        })
        .collect();
    if signed + unsigned > 1 || ints > 1 || chars > 1 || shorts > 1 || longs > 2 {
        return None;
    }
    if let [other] = others.as_slice() {
        return match (
            other.as_str(),
            signed + unsigned + shorts + ints + chars,
            longs,
        ) {
            ("double", 0, 1) => table.intrinsic("long double"),
            (name, 0, 0) => table.intrinsic(name),
            _ => None,
        };
    }
    if !others.is_empty() {
        return None;
    }
    let prefix = if unsigned == 1 { "unsigned " } else { "" };
    let name = match (chars, shorts, longs) {
        (1, 0, 0) if ints == 0 => {
            if signed == 1 {
                "signed char".to_string()
            } else {
                format!("{prefix}char")
            }
        }
        (0, 1, 0) => format!("{prefix}short"),
        (0, 0, 0) => format!("{prefix}int"),
        (0, 0, 1) => format!("{prefix}long"),
        (0, 0, 2) => format!("{prefix}long long"),
        _ => return None,
    };
    table.intrinsic(&name)
}
