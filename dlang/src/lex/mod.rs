//! The D lexer. It has an outer state for program scope (probe descriptions and the
//! start of declarations) and an expression state (predicates, action bodies,
//! declarations); the parser chooses the state and tells the lexer which names are
//! types (D-REFERENCE.md §2.1). Comments, control lines and line continuations are
//! consumed between tokens.

mod control;
mod gnu_extensions;
mod literals;
mod names;
mod rules;
mod source_map;
mod token;

use logos::Logos;

use crate::ast::{IntegerBase, IntegerSuffix, Item, MacroVariable};
use crate::diagnostics::{Diagnostic, ErrorTag, Span};

use control::{process_control_line, ControlEffect};
use gnu_extensions::{gnu_extension_at, skip_parenthesized, GnuExtension};
use literals::{
    decode_integer, pack_character_constant, scan_quoted, translate_escapes, QuotedScan,
};
use names::NameTable;
use rules::{ExpressionLexeme, OuterLexeme};

pub use names::{TypeNameOracle, BUILT_IN_TYPEDEFS};
pub use source_map::SourceMap;
pub use token::{IntegerLiteral, Keyword, Punctuator, Token, TokenKind};

/// Which lexer state produces the next token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LexerMode {
    /// Program scope: probe descriptions, probe IDs, and the keyword or type name that
    /// starts a declaration.
    Outer,
    /// Program scope where every probe-specifier-shaped word is a probe description,
    /// never a keyword or type name (`-P/-m/-f/-i` arguments, `-xpspec`).
    ProbeDescription,
    /// Predicates, action bodies and declarations.
    Expression,
}

/// Characters that make an outer-state word a probe description rather than a type
/// name or keyword.
const PROBE_DESCRIPTION_MARKERS: &[char] = &[':', '-', '.', '?', '!', '`'];

/// Characters the lexer skips as blanks.
fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn is_identifier(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

/// A pull lexer over one program text.
pub struct Lexer<'s, 'c> {
    source: &'s str,
    /// Where the next token (or the trivia before it) starts.
    position: usize,
    mode: LexerMode,
    /// The token peeked but not yet consumed.
    lookahead: Option<Token>,
    /// Parentheses and brackets opened and not yet closed in the expression state,
    /// for the predicate-closing `/` rule.
    open_parentheses: u32,
    open_brackets: u32,
    /// Braces opened and not yet closed, in every state: a `}` that closes none is
    /// DTrace's lexer error, reported before the parser sees the token.
    open_braces: u32,
    names: NameTable<'c>,
    source_map: SourceMap,
    /// `#pragma D` items met in control lines, in source order, not yet taken.
    pending_items: Vec<Item>,
}

impl<'s, 'c> Lexer<'s, 'c> {
    /// A lexer at the start of `source`, in the outer state.
    pub fn new(source: &'s str, type_names: Option<TypeNameOracle<'c>>) -> Lexer<'s, 'c> {
        Lexer {
            source,
            position: 0,
            mode: LexerMode::Outer,
            lookahead: None,
            open_parentheses: 0,
            open_brackets: 0,
            open_braces: 0,
            names: NameTable::new(type_names),
            source_map: SourceMap::new(source),
            pending_items: Vec::new(),
        }
    }

    /// The text of `token` as written.
    pub fn text(&self, token: &Token) -> &'s str {
        self.source.get(token.span.clone()).unwrap_or("")
    }

    /// Switches the state for the tokens after the one already peeked, if any: the
    /// parser only switches when the peeked token reads the same in both states (a
    /// keyword, a type name or punctuation).
    pub fn set_mode(&mut self, mode: LexerMode) {
        if mode != LexerMode::Expression {
            self.open_parentheses = 0;
            self.open_brackets = 0;
        }
        self.mode = mode;
    }

    /// Records a typedef name the program declared.
    pub fn declare_type_name(&mut self, name: &str) {
        self.names.declare_type(name);
    }

    /// Records a variable, inline or enumerator name the program declared.
    pub fn declare_identifier(&mut self, name: &str) {
        self.names.declare_identifier(name);
    }

    /// Takes the `#pragma D option` and other `#pragma D` items lexed so far.
    pub fn take_pending_items(&mut self) -> Vec<Item> {
        std::mem::take(&mut self.pending_items)
    }

    /// Whether `offset` lies in a C header cpp included (with `-C`), rather than in
    /// the program text itself.
    pub(crate) fn in_c_header(&self, offset: usize) -> bool {
        self.source_map.in_c_header(offset)
    }

    /// The line map, with the line directives lexed so far.
    pub fn into_source_map(self) -> SourceMap {
        self.source_map
    }

    /// The next token, without consuming it.
    pub fn peek(&mut self) -> Result<&Token, Diagnostic> {
        if self.lookahead.is_none() {
            let token = self.lex_token()?;
            self.check_balance(&token)?;
            self.position = token.span.end.max(self.position);
            self.lookahead = Some(token);
        }
        // The branch above guarantees a lookahead; an empty one would be an internal
        // error, reported rather than panicking.
        self.lookahead.as_ref().ok_or_else(|| {
            Diagnostic::without_span(ErrorTag::D_UNKNOWN, "lexer lost its lookahead")
        })
    }

    /// Consumes and returns the next token.
    pub fn advance(&mut self) -> Result<Token, Diagnostic> {
        self.peek()?;
        let token = self.lookahead.take().ok_or_else(|| {
            Diagnostic::without_span(ErrorTag::D_UNKNOWN, "lexer lost its lookahead")
        })?;
        match token.kind {
            TokenKind::Punctuator(Punctuator::LeftBrace) => self.open_braces += 1,
            TokenKind::Punctuator(Punctuator::RightBrace) => {
                self.open_braces = self.open_braces.saturating_sub(1)
            }
            _ => {}
        }
        if self.mode == LexerMode::Expression {
            match token.kind {
                TokenKind::Punctuator(Punctuator::LeftParen) => self.open_parentheses += 1,
                TokenKind::Punctuator(Punctuator::RightParen) => {
                    self.open_parentheses = self.open_parentheses.saturating_sub(1)
                }
                TokenKind::Punctuator(Punctuator::LeftBracket) => self.open_brackets += 1,
                TokenKind::Punctuator(Punctuator::RightBracket) => {
                    self.open_brackets = self.open_brackets.saturating_sub(1)
                }
                _ => {}
            }
        }
        Ok(token)
    }

    /// DTrace's lexer counts parentheses and brackets in the expression state and
    /// braces everywhere, and refuses a closing one that closes nothing as soon as it
    /// reads it (before the parser could call it a syntax error); these messages end
    /// in a newline in DTrace, so they carry no `near "..."` part.
    fn check_balance(&self, token: &Token) -> Result<(), Diagnostic> {
        let message = match token.kind {
            TokenKind::Punctuator(Punctuator::RightParen)
                if self.mode == LexerMode::Expression && self.open_parentheses == 0 =>
            {
                "extra ) in input stream"
            }
            TokenKind::Punctuator(Punctuator::RightBracket)
                if self.mode == LexerMode::Expression && self.open_brackets == 0 =>
            {
                "extra ] in input stream"
            }
            TokenKind::Punctuator(Punctuator::RightBrace) if self.open_braces == 0 => {
                "extra } in input stream"
            }
            _ => return Ok(()),
        };
        Err(Diagnostic::new(
            ErrorTag::D_SYNTAX,
            token.span.clone(),
            message,
        ))
    }

    fn lex_token(&mut self) -> Result<Token, Diagnostic> {
        self.skip_trivia()?;
        let mut start = self.position;
        while let Some((extension, length)) = gnu_extension_at(&self.source[start..]) {
            let end = start + length;
            match extension {
                GnuExtension::Ignored => self.position = end,
                GnuExtension::IgnoredWithArguments => {
                    self.position = skip_parenthesized(self.source, end)
                }
                GnuExtension::Keyword(keyword) => {
                    return Ok(Token {
                        kind: TokenKind::Keyword(keyword),
                        span: start..end,
                    })
                }
            }
            self.skip_trivia()?;
            start = self.position;
        }
        if start >= self.source.len() {
            let end = self.source.len();
            return Ok(Token {
                kind: TokenKind::EndOfInput,
                span: end..end,
            });
        }
        if self.mode != LexerMode::Expression {
            if let Some(token) = self.lex_outer(start) {
                return Ok(token);
            }
        }
        self.lex_expression(start)
    }

    /// Skips blanks, line continuations, comments, interpreter lines and control lines.
    fn skip_trivia(&mut self) -> Result<(), Diagnostic> {
        let bytes = self.source.as_bytes();
        loop {
            let Some(&byte) = bytes.get(self.position) else {
                return Ok(());
            };
            let next = bytes.get(self.position + 1).copied();
            match byte {
                _ if is_blank(byte) => self.position += 1,
                b'\\' if next == Some(b'\n') => self.position += 2,
                b'\\' if next == Some(b'\r') && bytes.get(self.position + 2) == Some(&b'\n') => {
                    self.position += 3
                }
                b'/' if next == Some(b'*') => self.skip_comment()?,
                b'#' if self.at_line_start(self.position) => self.control_line()?,
                _ => return Ok(()),
            }
        }
    }

    /// Skips the comment opening at the current position; comments do not nest.
    fn skip_comment(&mut self) -> Result<(), Diagnostic> {
        let body = self.position + 2;
        let rest = &self.source[body..];
        let close = rest.find("*/");
        let nested = rest[..close.unwrap_or(rest.len())].find("/*");
        match (close, nested) {
            (_, Some(nested)) => {
                let at = body + nested;
                Err(Diagnostic::new(
                    ErrorTag::D_SYNTAX,
                    at..at + 2,
                    "/* encountered inside a comment",
                ))
            }
            (Some(close), None) => {
                self.position = body + close + 2;
                Ok(())
            }
            (None, None) => {
                let end = self.source.len();
                Err(Diagnostic::new(
                    ErrorTag::D_SYNTAX,
                    end..end,
                    "end-of-file encountered before matching */",
                ))
            }
        }
    }

    /// Whether only blanks (not newlines) separate `offset` from the start of its line.
    fn at_line_start(&self, offset: usize) -> bool {
        let bytes = self.source.as_bytes();
        let mut position = offset;
        while position > 0 && matches!(bytes[position - 1], b' ' | b'\t' | 0x0b | 0x0c) {
            position -= 1;
        }
        position == 0 || bytes[position - 1] == b'\n'
    }

    /// Processes the control line (or `#!` interpreter line) whose `#` is at the
    /// current position.
    fn control_line(&mut self) -> Result<(), Diagnostic> {
        let hash = self.position;
        let end = self.source[hash..]
            .find('\n')
            .map_or(self.source.len(), |offset| hash + offset);
        self.position = end;
        if self.source.as_bytes().get(hash + 1) == Some(&b'!') {
            return Ok(());
        }
        match process_control_line(self.source, hash, end)? {
            ControlEffect::Nothing => {}
            ControlEffect::Line { line, file } => {
                self.source_map.add_line_directive(end + 1, line, file)
            }
            ControlEffect::Option(option) => self.pending_items.push(Item::Option(option)),
            ControlEffect::Pragma(pragma) => self.pending_items.push(Item::Pragma(pragma)),
        }
        Ok(())
    }

    /// Lexes a probe description or probe ID in the outer state; `None` if the text
    /// at `start` is neither, and is lexed as in the expression state instead.
    fn lex_outer(&self, start: usize) -> Option<Token> {
        let mut lexer = OuterLexeme::lexer(&self.source[start..]);
        let lexeme = lexer.next()?.ok()?;
        let mut end = start + lexer.span().end;
        if lexeme == OuterLexeme::ProbeIdentifier {
            return Some(Token {
                kind: TokenKind::ProbeIdentifier,
                span: start..end,
            });
        }
        // A backslash that ends the word before a newline is a line continuation.
        let bytes = self.source.as_bytes();
        if end > start + 1
            && bytes[end - 1] == b'\\'
            && matches!(bytes.get(end), Some(b'\n' | b'\r'))
        {
            end -= 1;
        }
        let text = &self.source[start..end];
        if self.mode == LexerMode::ProbeDescription
            || text.contains(PROBE_DESCRIPTION_MARKERS)
            || matches!(text, "BEGIN" | "END" | "ERROR")
        {
            return Some(Token {
                kind: TokenKind::ProbeSpecifier,
                span: start..end,
            });
        }
        // `int*x;` declares x: the part before any `*` is checked as a type.
        let prefix_end = text.find('*').map_or(end, |offset| start + offset);
        let prefix = &self.source[start..prefix_end];
        if is_identifier(prefix) {
            if let Some(keyword) = Keyword::from_text(prefix) {
                return Some(Token {
                    kind: TokenKind::Keyword(keyword),
                    span: start..prefix_end,
                });
            }
            if self.names.is_type_name(prefix) {
                return Some(Token {
                    kind: TokenKind::TypeName,
                    span: start..prefix_end,
                });
            }
        }
        Some(Token {
            kind: TokenKind::ProbeSpecifier,
            span: start..end,
        })
    }

    fn lex_expression(&self, start: usize) -> Result<Token, Diagnostic> {
        let rest = &self.source[start..];
        let mut lexer = ExpressionLexeme::lexer(rest);
        let lexeme = lexer.next();
        let end = start + lexer.span().end;
        let span = start..end;
        let text = &self.source[span.clone()];
        let kind = match lexeme {
            None | Some(Err(())) => {
                let character = rest.chars().next().unwrap_or(' ');
                let span = start..start + character.len_utf8();
                return Err(Diagnostic::new(
                    ErrorTag::D_SYNTAX,
                    span,
                    format!("syntax error near \"{character}\""),
                ));
            }
            Some(Ok(lexeme)) => lexeme,
        };
        let kind = match kind {
            ExpressionLexeme::Identifier => match Keyword::from_text(text) {
                Some(keyword) => TokenKind::Keyword(keyword),
                None => self.identifier_or_type_name(text, end, TokenKind::Identifier),
            },
            ExpressionLexeme::ScopedIdentifier => {
                let symbol = text.rsplit('`').next().unwrap_or("");
                if !is_identifier(symbol) {
                    return Err(Diagnostic::new(
                        ErrorTag::D_SYNTAX,
                        span,
                        format!("syntax error near \"{text}\""),
                    ));
                }
                self.identifier_or_type_name(text, end, TokenKind::ScopedIdentifier)
            }
            ExpressionLexeme::Number => TokenKind::Integer(decode_integer(text, span.clone())?),
            ExpressionLexeme::FloatingPoint => {
                return Err(Diagnostic::new(
                    ErrorTag::D_SYNTAX,
                    span,
                    "floating-point constants are not permitted",
                ));
            }
            ExpressionLexeme::MacroArgument => {
                let digits = text.trim_start_matches('$');
                // An argument number too large for u32 can never be defined; saturating
                // keeps it undefined.
                let index = digits.parse::<u32>().unwrap_or(u32::MAX);
                let written = text.to_string();
                TokenKind::Macro(if text.starts_with("$$") {
                    MacroVariable::ArgumentString { index, written }
                } else {
                    MacroVariable::Argument { index, written }
                })
            }
            ExpressionLexeme::MacroName => {
                let name = text.trim_start_matches('$').to_string();
                TokenKind::Macro(if text.starts_with("$$") {
                    MacroVariable::NamedString(name)
                } else {
                    MacroVariable::Named(name)
                })
            }
            ExpressionLexeme::Aggregation => TokenKind::Aggregation,
            ExpressionLexeme::Quote => return self.lex_string(start),
            ExpressionLexeme::Apostrophe => return self.lex_character(start),
            ExpressionLexeme::Punctuator(Punctuator::Slash)
                if self.mode == LexerMode::Expression =>
            {
                self.slash_or_predicate_end(span.clone())?
            }
            ExpressionLexeme::Punctuator(punctuator) => TokenKind::Punctuator(punctuator),
        };
        Ok(Token { kind, span })
    }

    /// An identifier that names a kernel type is lexed as a type name unless what
    /// follows shows it is used as a variable: `=` (not `==`), `++`, `--`, `[`, `;`, or
    /// a `,` outside parentheses and brackets. D's own typedefs and the program's are
    /// type names wherever they appear, as in DTrace. A name right after `->` or `.` is
    /// a member name.
    /// Both lexical checks come before asking whether the name is a type, because that
    /// question can make the kernel's types load.
    fn identifier_or_type_name(&self, text: &str, end: usize, identifier: TokenKind) -> TokenKind {
        let bytes = self.source.as_bytes();
        let start = end - text.len();
        let mut before = start;
        while before > 0 && is_blank(bytes[before - 1]) {
            before -= 1;
        }
        let member_name = before > 0
            && (bytes[before - 1] == b'.' || (before > 1 && &bytes[before - 2..before] == b"->"));
        if member_name {
            return identifier;
        }
        let mut position = end;
        while position < bytes.len() && is_blank(bytes[position]) {
            position += 1;
        }
        let next = bytes.get(position + 1).copied();
        let used_as_variable = match bytes.get(position) {
            Some(b'=') => next != Some(b'='),
            Some(b'+') => next == Some(b'+'),
            Some(b'-') => next == Some(b'-'),
            Some(b'[' | b';') => true,
            Some(b',') => self.open_parentheses == 0 && self.open_brackets == 0,
            _ => false,
        };
        if used_as_variable && !self.names.is_program_or_built_in_type(text) {
            self.names.note_used_as_variable(text);
            return identifier;
        }
        if !self.names.is_type_name(text) {
            identifier
        } else {
            TokenKind::TypeName
        }
    }

    /// The predicate-closing `/` rule: a `/` whose next non-blank character is the end
    /// of input, `;`, `{` or `/` closes the predicate; any other is division.
    fn slash_or_predicate_end(&self, span: Span) -> Result<TokenKind, Diagnostic> {
        let bytes = self.source.as_bytes();
        let mut position = span.end;
        while position < bytes.len() && is_blank(bytes[position]) {
            position += 1;
        }
        if !matches!(bytes.get(position), None | Some(b';' | b'{' | b'/')) {
            return Ok(TokenKind::Punctuator(Punctuator::Slash));
        }
        if self.open_parentheses != 0 {
            return Err(Diagnostic::new(
                ErrorTag::D_SYNTAX,
                span,
                "closing ) expected in predicate before /",
            ));
        }
        if self.open_brackets != 0 {
            return Err(Diagnostic::new(
                ErrorTag::D_SYNTAX,
                span,
                "closing ] expected in predicate before /",
            ));
        }
        Ok(TokenKind::PredicateEnd)
    }

    fn lex_string(&self, start: usize) -> Result<Token, Diagnostic> {
        match scan_quoted(self.source, start, b'"') {
            QuotedScan::Closed(close) => {
                let bytes = translate_escapes(&self.source[start + 1..close]);
                Ok(Token {
                    kind: TokenKind::String(bytes),
                    span: start..close + 1,
                })
            }
            QuotedScan::Newline(newline) => Err(Diagnostic::new(
                ErrorTag::D_STR_NL,
                start..newline,
                "newline encountered in string literal",
            )),
            QuotedScan::EndOfInput => Err(Diagnostic::new(
                ErrorTag::D_SYNTAX,
                start..start + 1,
                "syntax error near \"\"\"",
            )),
        }
    }

    fn lex_character(&self, start: usize) -> Result<Token, Diagnostic> {
        match scan_quoted(self.source, start, b'\'') {
            QuotedScan::Closed(close) => {
                let span = start..close + 1;
                let bytes = translate_escapes(&self.source[start + 1..close]);
                let value = pack_character_constant(&bytes, span.clone())?;
                let literal = IntegerLiteral {
                    value,
                    base: IntegerBase::Character,
                    suffix: IntegerSuffix::default(),
                };
                Ok(Token {
                    kind: TokenKind::Integer(literal),
                    span,
                })
            }
            QuotedScan::Newline(newline) => Err(Diagnostic::new(
                ErrorTag::D_CHR_NL,
                start..newline,
                "newline encountered in character constant",
            )),
            QuotedScan::EndOfInput => Err(Diagnostic::new(
                ErrorTag::D_SYNTAX,
                start..start + 1,
                "syntax error near \"'\"",
            )),
        }
    }
}

/// Lexes all of `source` in one state, without parser feedback: for tests and tools.
/// The result ends with the end-of-input token.
pub fn tokenize(source: &str, mode: LexerMode) -> Result<Vec<Token>, Diagnostic> {
    tokenize_with_type_names(source, mode, None)
}

/// [`tokenize`] with `type_names` telling which other names are types (the kernel's).
pub fn tokenize_with_type_names(
    source: &str,
    mode: LexerMode,
    type_names: Option<TypeNameOracle<'_>>,
) -> Result<Vec<Token>, Diagnostic> {
    let mut lexer = Lexer::new(source, type_names);
    lexer.set_mode(mode);
    let mut tokens = Vec::new();
    loop {
        let token = lexer.advance()?;
        let done = token.kind == TokenKind::EndOfInput;
        tokens.push(token);
        if done {
            return Ok(tokens);
        }
    }
}
