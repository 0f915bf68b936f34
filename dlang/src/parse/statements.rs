//! Statements of a clause body: expression statements separated by `;` (the last may
//! omit it), empty statements, and `if`/`else` with statement or block branches.

use crate::ast::{Block, Statement};
use crate::diagnostics::Diagnostic;
use crate::lex::{Keyword, Punctuator};

use super::Parser;

impl<'s, 'c> Parser<'s, 'c> {
    /// `{ statement-list }`.
    pub(super) fn parse_block(&mut self) -> Result<Block, Diagnostic> {
        let open = self.expect(Punctuator::LeftBrace)?;
        let mut statements = Vec::new();
        while !self.at(Punctuator::RightBrace)? {
            if let Some(semicolon) = self.eat(Punctuator::Semicolon)? {
                statements.push(Statement::Empty(semicolon.span));
                continue;
            }
            if self.at_keyword(Keyword::If)? {
                statements.push(self.parse_if()?);
                continue;
            }
            let expression = self.parse_expression()?;
            statements.push(Statement::Expression(expression));
            // The last statement of a block needs no `;`.
            if self.eat(Punctuator::Semicolon)?.is_none() && !self.at(Punctuator::RightBrace)? {
                return self.unexpected();
            }
        }
        self.advance()?;
        Ok(Block {
            statements,
            span: self.span_from(open.span.start),
        })
    }

    /// `if (condition) statement-or-block [else statement-or-block]`.
    fn parse_if(&mut self) -> Result<Statement, Diagnostic> {
        self.nested(|parser| {
            let start = parser.advance()?.span.start;
            parser.expect(Punctuator::LeftParen)?;
            let condition = parser.parse_expression()?;
            parser.expect(Punctuator::RightParen)?;
            let then_branch = Box::new(parser.parse_statement_or_block()?);
            let else_branch = if parser.at_keyword(Keyword::Else)? {
                parser.advance()?;
                Some(Box::new(parser.parse_statement_or_block()?))
            } else {
                None
            };
            Ok(Statement::If {
                condition,
                then_branch,
                else_branch,
                span: parser.span_from(start),
            })
        })
    }

    /// An `if` branch: a block, or one statement that must end in `;`.
    fn parse_statement_or_block(&mut self) -> Result<Statement, Diagnostic> {
        if self.at(Punctuator::LeftBrace)? {
            return Ok(Statement::Block(self.parse_block()?));
        }
        if let Some(semicolon) = self.eat(Punctuator::Semicolon)? {
            return Ok(Statement::Empty(semicolon.span));
        }
        if self.at_keyword(Keyword::If)? {
            return self.parse_if();
        }
        let expression = self.parse_expression()?;
        self.expect(Punctuator::Semicolon)?;
        Ok(Statement::Expression(expression))
    }
}
