//! The D parser: hand-written recursive descent over the tokens of [`crate::lex`],
//! with a Pratt parser for expressions. It stops at the first error, as DTrace does, and
//! tells the lexer which names the program declares as types.

mod declarations;
pub mod dump;
mod expressions;
mod program;
mod statements;

use crate::ast::Program;
use crate::diagnostics::{Diagnostic, ErrorTag, Span};
use crate::lex::{Keyword, Lexer, Punctuator, SourceMap, Token, TokenKind, TypeNameOracle};

/// The `dtrace` option that supplied a command-line program; it decides which probe
/// field the leading description names (D-REFERENCE.md §1.4, §12.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeSpecifierOption {
    /// `-n`: the description is filled from the name field leftwards.
    Name,
    /// `-P`: a provider.
    Provider,
    /// `-m`: `[provider:]module`.
    Module,
    /// `-f`: `[[provider:]module:]function`.
    Function,
    /// `-i`: a probe ID.
    Identifier,
}

/// Where a program text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramOrigin {
    /// A `-s` script file: a bare probe description needs a predicate or actions, and
    /// messages carry line numbers.
    ScriptFile,
    /// A probe-specifier argument of `-n/-P/-m/-f/-i`.
    CommandLine(ProbeSpecifierOption),
}

/// How to parse one program text.
#[derive(Clone, Copy)]
pub struct ParseContext<'c> {
    pub origin: ProgramOrigin,
    /// `-xpspec`: every word in probe-description position is a probe description,
    /// never a declaration.
    pub probe_descriptions_only: bool,
    /// Type names the program does not declare but the caller knows (kernel and D
    /// library types), used to recognise casts and declarations.
    pub type_names: Option<TypeNameOracle<'c>>,
}

impl<'c> ParseContext<'c> {
    /// A `-s` script file.
    pub fn script_file() -> ParseContext<'c> {
        ParseContext {
            origin: ProgramOrigin::ScriptFile,
            probe_descriptions_only: false,
            type_names: None,
        }
    }

    /// A command-line program given with `option`.
    pub fn command_line(option: ProbeSpecifierOption) -> ParseContext<'c> {
        ParseContext {
            origin: ProgramOrigin::CommandLine(option),
            probe_descriptions_only: false,
            type_names: None,
        }
    }

    /// The same context, asking `oracle` about type names the program does not declare.
    pub fn with_type_names(mut self, oracle: TypeNameOracle<'c>) -> ParseContext<'c> {
        self.type_names = Some(oracle);
        self
    }

    /// The same context with `-xpspec` in effect.
    pub fn with_probe_descriptions_only(mut self) -> ParseContext<'c> {
        self.probe_descriptions_only = true;
        self
    }
}

/// A successfully parsed program with its line map.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedProgram {
    pub program: Program,
    /// Line numbers and `#line` file tags, for messages about this program.
    pub source_map: SourceMap,
    pub origin: ProgramOrigin,
}

/// The first error in a program, with the line map as far as the lexer got.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseFailure {
    pub diagnostic: Diagnostic,
    pub source_map: SourceMap,
    /// The items complete before the error, and the control lines lexed up to it:
    /// DTrace applies pragmas and declarations while it parses, so their errors come
    /// before a later syntax error.
    pub before_error: Box<Program>,
}

/// Parses one D program: a `-s` file or one `-n/-P/-m/-f/-i` argument.
pub fn parse_program(source: &str, context: ParseContext) -> Result<ParsedProgram, ParseFailure> {
    let mut parser = Parser {
        lexer: Lexer::new(source, context.type_names),
        origin: context.origin,
        probe_descriptions_only: context.probe_descriptions_only,
        nesting: 0,
        previous_end: 0,
    };
    let mut items = Vec::new();
    match parser.parse_translation_unit(&mut items) {
        Ok(()) => Ok(ParsedProgram {
            program: Program { items },
            source_map: parser.lexer.into_source_map(),
            origin: context.origin,
        }),
        Err(diagnostic) => {
            // Control lines the lexer met inside the unfinished item were processed
            // before the error, as DTrace's lexer processes them.
            items.extend(parser.lexer.take_pending_items());
            Err(ParseFailure {
                diagnostic,
                source_map: parser.lexer.into_source_map(),
                before_error: Box::new(Program { items }),
            })
        }
    }
}

/// How deeply constructs may nest in the parser's recursion (parentheses, unary
/// operators, declarators, `if` statements) before the program is refused; this keeps
/// hostile input from overflowing the stack.
const MAXIMUM_NESTING: u32 = 256;

/// How deep an expression tree may grow; later passes recurse over the tree, so its
/// depth is bounded even where the parser itself loops (long operator chains).
const MAXIMUM_EXPRESSION_DEPTH: u32 = 512;

pub(crate) struct Parser<'s, 'c> {
    lexer: Lexer<'s, 'c>,
    origin: ProgramOrigin,
    probe_descriptions_only: bool,
    nesting: u32,
    /// Where the last consumed token ends, for the spans of constructs.
    previous_end: usize,
}

impl<'s, 'c> Parser<'s, 'c> {
    fn peek(&mut self) -> Result<&Token, Diagnostic> {
        self.lexer.peek()
    }

    fn peek_kind(&mut self) -> Result<TokenKind, Diagnostic> {
        Ok(self.lexer.peek()?.kind.clone())
    }

    fn advance(&mut self) -> Result<Token, Diagnostic> {
        let token = self.lexer.advance()?;
        self.previous_end = token.span.end;
        Ok(token)
    }

    /// The span from `start` to the end of the last consumed token.
    fn span_from(&self, start: usize) -> Span {
        start..self.previous_end.max(start)
    }

    fn text(&self, token: &Token) -> &'s str {
        self.lexer.text(token)
    }

    /// Whether the next token is `punctuator`.
    fn at(&mut self, punctuator: Punctuator) -> Result<bool, Diagnostic> {
        Ok(self.peek()?.is(punctuator))
    }

    /// Whether the next token is `keyword`.
    fn at_keyword(&mut self, keyword: Keyword) -> Result<bool, Diagnostic> {
        Ok(self.peek()?.is_keyword(keyword))
    }

    /// Consumes the next token if it is `punctuator`.
    fn eat(&mut self, punctuator: Punctuator) -> Result<Option<Token>, Diagnostic> {
        if self.at(punctuator)? {
            Ok(Some(self.advance()?))
        } else {
            Ok(None)
        }
    }

    /// Consumes the next token, which must be `punctuator`.
    fn expect(&mut self, punctuator: Punctuator) -> Result<Token, Diagnostic> {
        match self.eat(punctuator)? {
            Some(token) => Ok(token),
            None => self.unexpected(),
        }
    }

    /// The syntax error DTrace reports for the next token.
    fn unexpected<T>(&mut self) -> Result<T, Diagnostic> {
        let token = self.peek()?.clone();
        Err(self.syntax_error_near(&token))
    }

    /// `syntax error near "TOKEN"` (or `near end of input`) at `token`.
    fn syntax_error_near(&self, token: &Token) -> Diagnostic {
        let message = if token.kind == TokenKind::EndOfInput {
            "syntax error near end of input".to_string()
        } else {
            format!("syntax error near \"{}\"", self.text(token))
        };
        Diagnostic::new(ErrorTag::D_SYNTAX, token.span.clone(), message)
    }

    /// Runs `parse` one nesting level deeper, refusing programs nested beyond
    /// [`MAXIMUM_NESTING`].
    fn nested<T>(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        if self.nesting >= MAXIMUM_NESTING {
            return Err(self.too_deep());
        }
        self.nesting += 1;
        let result = parse(self);
        self.nesting -= 1;
        result
    }

    /// The error for a program nested beyond the parser's limits, at the next token.
    fn too_deep(&mut self) -> Diagnostic {
        let span = self.peek().map(|token| token.span.clone()).unwrap_or(0..0);
        Diagnostic::new(ErrorTag::D_SYNTAX, span, "expression nested too deeply")
    }
}
