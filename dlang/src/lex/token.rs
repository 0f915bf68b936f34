//! Tokens of the D language: keywords, punctuators and the token kinds the lexer hands
//! to the parser.

use crate::ast::{IntegerBase, IntegerSuffix, MacroVariable};
use crate::diagnostics::Span;

macro_rules! keywords {
    ($($variant:ident => $text:literal,)*) => {
        /// Every word the D lexer reserves (D-REFERENCE.md §1.7). Only some are usable;
        /// the grammar never accepts the others, so using them is a syntax error.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Keyword { $($variant,)* }

        impl Keyword {
            /// Every keyword, in alphabetical order of its spelling.
            pub const ALL: &'static [Keyword] = &[$(Keyword::$variant,)*];

            /// The keyword as written in D.
            pub fn text(self) -> &'static str {
                match self { $(Keyword::$variant => $text,)* }
            }

            /// The keyword spelled `text`, if `text` is one.
            pub fn from_text(text: &str) -> Option<Keyword> {
                match text { $($text => Some(Keyword::$variant),)* _ => None }
            }
        }
    };
}

keywords! {
    Bool => "_Bool",
    Auto => "auto",
    Break => "break",
    Case => "case",
    Char => "char",
    Const => "const",
    Continue => "continue",
    Counter => "counter",
    Default => "default",
    Do => "do",
    Double => "double",
    Else => "else",
    Enum => "enum",
    Extern => "extern",
    Float => "float",
    For => "for",
    Goto => "goto",
    If => "if",
    Import => "import",
    Inline => "inline",
    Int => "int",
    Long => "long",
    Offsetof => "offsetof",
    Probe => "probe",
    Provider => "provider",
    Register => "register",
    Restrict => "restrict",
    Return => "return",
    SelfScope => "self",
    Short => "short",
    Signed => "signed",
    Sizeof => "sizeof",
    Static => "static",
    String => "string",
    Stringof => "stringof",
    Struct => "struct",
    Switch => "switch",
    ThisScope => "this",
    Translator => "translator",
    Typedef => "typedef",
    Union => "union",
    Unsigned => "unsigned",
    Void => "void",
    Volatile => "volatile",
    While => "while",
    Xlate => "xlate",
}

macro_rules! punctuators {
    ($($variant:ident => $text:literal,)*) => {
        /// Operators and punctuation of D (D-REFERENCE.md §2.6).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Punctuator { $($variant,)* }

        impl Punctuator {
            /// The punctuator as written in D.
            pub fn text(self) -> &'static str {
                match self { $(Punctuator::$variant => $text,)* }
            }
        }
    };
}

punctuators! {
    Plus => "+",
    Minus => "-",
    Star => "*",
    Slash => "/",
    Percent => "%",
    PlusPlus => "++",
    MinusMinus => "--",
    ShiftLeft => "<<",
    ShiftRight => ">>",
    Ampersand => "&",
    Pipe => "|",
    Caret => "^",
    Tilde => "~",
    Bang => "!",
    AmpersandAmpersand => "&&",
    PipePipe => "||",
    CaretCaret => "^^",
    EqualEqual => "==",
    BangEqual => "!=",
    Less => "<",
    LessEqual => "<=",
    Greater => ">",
    GreaterEqual => ">=",
    Assign => "=",
    PlusAssign => "+=",
    MinusAssign => "-=",
    StarAssign => "*=",
    SlashAssign => "/=",
    PercentAssign => "%=",
    AmpersandAssign => "&=",
    PipeAssign => "|=",
    CaretAssign => "^=",
    ShiftLeftAssign => "<<=",
    ShiftRightAssign => ">>=",
    Question => "?",
    Colon => ":",
    Comma => ",",
    Dot => ".",
    Arrow => "->",
    LeftBracket => "[",
    RightBracket => "]",
    LeftParen => "(",
    RightParen => ")",
    LeftBrace => "{",
    RightBrace => "}",
    Semicolon => ";",
    Ellipsis => "...",
}

/// A decoded integer or character constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntegerLiteral {
    pub value: u64,
    pub base: IntegerBase,
    pub suffix: IntegerSuffix,
}

/// What a token is. The token's text is always `source[span]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenKind {
    /// A probe description in the outer state, e.g. `syscall::read:entry` or `BEGIN`.
    ProbeSpecifier,
    /// A bare decimal integer in probe-description position: a probe ID.
    ProbeIdentifier,
    /// A plain identifier.
    Identifier,
    /// An identifier containing the scoping backquote, e.g. `` vmlinux`jiffies ``.
    ScopedIdentifier,
    /// An identifier (possibly scoped) that names a type here.
    TypeName,
    Keyword(Keyword),
    Integer(IntegerLiteral),
    /// A string literal after escape processing.
    String(Vec<u8>),
    Macro(MacroVariable),
    /// `@name` or `@`.
    Aggregation,
    Punctuator(Punctuator),
    /// The `/` that closes a predicate (chosen by the lookahead rule of §2.1).
    PredicateEnd,
    EndOfInput,
}

/// One token with its place in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

impl Token {
    /// Whether the token is the punctuator `punctuator`.
    pub fn is(&self, punctuator: Punctuator) -> bool {
        self.kind == TokenKind::Punctuator(punctuator)
    }

    /// Whether the token is the keyword `keyword`.
    pub fn is_keyword(&self, keyword: Keyword) -> bool {
        self.kind == TokenKind::Keyword(keyword)
    }
}
