//! The top level of a D program: clauses with their probe descriptions, predicates and
//! action blocks, and the dispatch to declarations, inlines, translators and providers
//! (D-REFERENCE.md §1.1).

use crate::ast::{Clause, Item, ProbeSpecifier};
use crate::diagnostics::{Diagnostic, ErrorTag};
use crate::lex::{Keyword, LexerMode, Punctuator, TokenKind};

use super::declarations::{is_storage_class_keyword, is_type_specifier_keyword};
use super::{Parser, ProbeSpecifierOption, ProgramOrigin};

impl<'s, 'c> Parser<'s, 'c> {
    /// Parses the whole program text into `items`; on an error, `items` holds the
    /// items parsed before it.
    pub(super) fn parse_translation_unit(
        &mut self,
        items: &mut Vec<Item>,
    ) -> Result<(), Diagnostic> {
        let mut first_item = true;
        loop {
            self.lexer.set_mode(self.outer_mode(first_item));
            let kind = self.peek_kind()?;
            // Control lines met while lexing the next token come before it.
            items.extend(self.lexer.take_pending_items());
            let item = match kind {
                TokenKind::EndOfInput => return Ok(()),
                TokenKind::ProbeSpecifier | TokenKind::ProbeIdentifier => {
                    Item::Clause(self.parse_clause()?)
                }
                TokenKind::Keyword(Keyword::Inline) => {
                    self.lexer.set_mode(LexerMode::Expression);
                    Item::Inline(self.parse_inline()?)
                }
                TokenKind::Keyword(Keyword::Translator) => {
                    self.lexer.set_mode(LexerMode::Expression);
                    Item::Translator(self.parse_translator()?)
                }
                TokenKind::Keyword(Keyword::Provider) => {
                    self.lexer.set_mode(LexerMode::Expression);
                    Item::Provider(self.parse_provider()?)
                }
                TokenKind::Keyword(Keyword::Static) if self.at_header_token()? => {
                    self.lexer.set_mode(LexerMode::Expression);
                    self.skip_header_static_definition()?;
                    first_item = false;
                    continue;
                }
                TokenKind::Keyword(keyword)
                    if is_storage_class_keyword(keyword) || is_type_specifier_keyword(keyword) =>
                {
                    self.lexer.set_mode(LexerMode::Expression);
                    Item::Declaration(self.parse_declaration()?)
                }
                TokenKind::TypeName => {
                    self.lexer.set_mode(LexerMode::Expression);
                    Item::Declaration(self.parse_declaration()?)
                }
                _ => return self.unexpected(),
            };
            items.push(item);
            first_item = false;
        }
    }

    /// Whether the next token comes from a C header included with `-C`.
    fn at_header_token(&mut self) -> Result<bool, Diagnostic> {
        let start = self.peek()?.span.start;
        Ok(self.lexer.in_c_header(start))
    }

    /// Skips a C header's `static` declaration: glibc's headers (`<bits/byteswap.h>`,
    /// which `<sys/types.h>` includes) define `static inline` functions, which D can
    /// neither declare nor call, so they are passed over up to the `;` that ends a
    /// declaration or the `}` that ends a function body.
    fn skip_header_static_definition(&mut self) -> Result<(), Diagnostic> {
        let mut depth = 0usize;
        loop {
            let token = self.advance()?;
            match token.kind {
                TokenKind::EndOfInput => return Err(self.syntax_error_near(&token)),
                TokenKind::Punctuator(Punctuator::Semicolon) if depth == 0 => return Ok(()),
                TokenKind::Punctuator(
                    Punctuator::LeftBrace | Punctuator::LeftParen | Punctuator::LeftBracket,
                ) => depth += 1,
                TokenKind::Punctuator(
                    Punctuator::RightBrace | Punctuator::RightParen | Punctuator::RightBracket,
                ) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && token.kind == TokenKind::Punctuator(Punctuator::RightBrace) {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }

    /// The lexer state for program scope: `-P/-m/-f/-i` arguments start with a probe
    /// description whatever it looks like, and `-xpspec` makes every one so.
    fn outer_mode(&self, first_item: bool) -> LexerMode {
        let leading_specifier_forced = matches!(
            self.origin,
            ProgramOrigin::CommandLine(
                ProbeSpecifierOption::Provider
                    | ProbeSpecifierOption::Module
                    | ProbeSpecifierOption::Function
                    | ProbeSpecifierOption::Identifier
            )
        );
        if self.probe_descriptions_only || (first_item && leading_specifier_forced) {
            LexerMode::ProbeDescription
        } else {
            LexerMode::Outer
        }
    }

    /// `probe-desc[, probe-desc ...] [/ predicate /] { statements }`.
    fn parse_clause(&mut self) -> Result<Clause, Diagnostic> {
        let mut probes = Vec::new();
        loop {
            let token = self.advance()?;
            probes.push(ProbeSpecifier {
                text: self.text(&token).to_string(),
                span: token.span,
            });
            if self.eat(Punctuator::Comma)?.is_none() {
                break;
            }
            if !matches!(
                self.peek_kind()?,
                TokenKind::ProbeSpecifier | TokenKind::ProbeIdentifier
            ) {
                return self.unexpected();
            }
        }
        let start = probes[0].span.start;
        let first_probe_span = probes[0].span.clone();

        let mut predicate = None;
        if self.at(Punctuator::Slash)? {
            self.lexer.set_mode(LexerMode::Expression);
            self.advance()?;
            let expression = self.parse_expression()?;
            if self.peek_kind()? != TokenKind::PredicateEnd {
                return self.unexpected();
            }
            self.advance()?;
            predicate = Some(expression);
        }

        let body = if self.at(Punctuator::LeftBrace)? {
            self.lexer.set_mode(LexerMode::Expression);
            Some(self.parse_block()?)
        } else if let Some(predicate) = &predicate {
            return Err(Diagnostic::new(
                ErrorTag::D_SYNTAX,
                predicate.span.clone(),
                "expected actions { } following probe description and predicate",
            ));
        } else if self.origin == ProgramOrigin::ScriptFile {
            return Err(Diagnostic::new(
                ErrorTag::D_SYNTAX,
                first_probe_span,
                "expected predicate and/or actions following probe description",
            ));
        } else {
            None
        };
        Ok(Clause {
            probes,
            predicate,
            body,
            span: self.span_from(start),
        })
    }
}
