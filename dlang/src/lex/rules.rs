//! The logos state machines that recognise one raw lexeme at a time, one per lexer
//! state. Whitespace, comments and control lines are handled before these run, and the
//! lexemes are classified further (keywords, type names, literal values) afterwards.

use logos::Logos;

use super::token::Punctuator;

/// Raw lexemes of the expression state (predicates, action bodies, declarations).
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExpressionLexeme {
    #[regex(r"[a-zA-Z_][0-9a-zA-Z_]*")]
    Identifier,
    /// `` module`symbol ``, `` `symbol `` and module names starting with a digit.
    #[regex(r"[0-9a-zA-Z_]*`[0-9a-zA-Z_`]*")]
    ScopedIdentifier,
    /// An integer constant as DTrace's lexer matches it (`RGX_INT`): decimal or octal
    /// digits, or `0x` and hex digits, then at most a `u` and two `l`s in that order.
    /// Letters after it start the next token (`12a` is `12` then `a`).
    #[regex(r"([0-9]+|0[xX][0-9a-fA-F]+)[uU]?[lL]?[lL]?")]
    Number,
    /// Floating-point constants are recognised only to be rejected.
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?[fFlL]?", priority = 10)]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?[fFlL]?", priority = 10)]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+[fFlL]?", priority = 10)]
    FloatingPoint,
    #[regex(r"\$\$?[0-9]+")]
    MacroArgument,
    #[regex(r"\$\$?[a-zA-Z_][0-9a-zA-Z_]*")]
    MacroName,
    #[regex(r"@[a-zA-Z_][0-9a-zA-Z_]*")]
    #[token("@")]
    Aggregation,
    #[token("\"")]
    Quote,
    #[token("'")]
    Apostrophe,
    #[token("+", |_| Punctuator::Plus)]
    #[token("-", |_| Punctuator::Minus)]
    #[token("*", |_| Punctuator::Star)]
    #[token("/", |_| Punctuator::Slash)]
    #[token("%", |_| Punctuator::Percent)]
    #[token("++", |_| Punctuator::PlusPlus)]
    #[token("--", |_| Punctuator::MinusMinus)]
    #[token("<<", |_| Punctuator::ShiftLeft)]
    #[token(">>", |_| Punctuator::ShiftRight)]
    #[token("&", |_| Punctuator::Ampersand)]
    #[token("|", |_| Punctuator::Pipe)]
    #[token("^", |_| Punctuator::Caret)]
    #[token("~", |_| Punctuator::Tilde)]
    #[token("!", |_| Punctuator::Bang)]
    #[token("&&", |_| Punctuator::AmpersandAmpersand)]
    #[token("||", |_| Punctuator::PipePipe)]
    #[token("^^", |_| Punctuator::CaretCaret)]
    #[token("==", |_| Punctuator::EqualEqual)]
    #[token("!=", |_| Punctuator::BangEqual)]
    #[token("<", |_| Punctuator::Less)]
    #[token("<=", |_| Punctuator::LessEqual)]
    #[token(">", |_| Punctuator::Greater)]
    #[token(">=", |_| Punctuator::GreaterEqual)]
    #[token("=", |_| Punctuator::Assign)]
    #[token("+=", |_| Punctuator::PlusAssign)]
    #[token("-=", |_| Punctuator::MinusAssign)]
    #[token("*=", |_| Punctuator::StarAssign)]
    #[token("/=", |_| Punctuator::SlashAssign)]
    #[token("%=", |_| Punctuator::PercentAssign)]
    #[token("&=", |_| Punctuator::AmpersandAssign)]
    #[token("|=", |_| Punctuator::PipeAssign)]
    #[token("^=", |_| Punctuator::CaretAssign)]
    #[token("<<=", |_| Punctuator::ShiftLeftAssign)]
    #[token(">>=", |_| Punctuator::ShiftRightAssign)]
    #[token("?", |_| Punctuator::Question)]
    #[token(":", |_| Punctuator::Colon)]
    #[token(",", |_| Punctuator::Comma)]
    #[token(".", |_| Punctuator::Dot)]
    #[token("->", |_| Punctuator::Arrow)]
    #[token("[", |_| Punctuator::LeftBracket)]
    #[token("]", |_| Punctuator::RightBracket)]
    #[token("(", |_| Punctuator::LeftParen)]
    #[token(")", |_| Punctuator::RightParen)]
    #[token("{", |_| Punctuator::LeftBrace)]
    #[token("}", |_| Punctuator::RightBrace)]
    #[token(";", |_| Punctuator::Semicolon)]
    #[token("...", |_| Punctuator::Ellipsis)]
    Punctuator(Punctuator),
}

/// Raw lexemes of the outer state (program scope). Anything else is lexed with
/// [`ExpressionLexeme`].
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OuterLexeme {
    /// A probe-specifier token (§2.1): glob characters, `$` macros and the backquote,
    /// and non-ASCII characters, so that a pid probe can name a function whose symbol
    /// is UTF-8 (`pid$target:a.out:ünïcödé:entry`).
    #[regex(
        r"[-$:a-zA-Z_.?*\\\[\]!\u{80}-\u{10FFFF}][-$:0-9a-zA-Z_.`?*\\\[\]!\u{80}-\u{10FFFF}]*"
    )]
    ProbeSpecifier,
    /// A bare decimal integer: a probe ID.
    #[regex(r"[0-9]+")]
    ProbeIdentifier,
}
