//! D expressions: a Pratt parser for the binary operators of D-REFERENCE.md §4.1 (C
//! precedence plus `^^` between `&&` and `||`), with recursive descent for casts,
//! unary, postfix and primary expressions, the conditional operator, assignments and
//! the comma operator.

use crate::ast::{AssignmentOperator, BinaryOperator, Expr, ExprKind, IntegerBase, UnaryOperator};
use crate::diagnostics::{Diagnostic, ErrorTag, Span};
use crate::lex::{Keyword, Punctuator, Token, TokenKind};

use super::{Parser, MAXIMUM_EXPRESSION_DEPTH};

/// A parsed expression with what the grammar needs to know about it.
struct Operand {
    expr: Expr,
    /// The depth of the expression tree.
    depth: u32,
    /// Whether the expression is a C unary-expression (so it may be assigned to);
    /// binary, conditional and cast expressions are not.
    unary: bool,
}

/// The binary operators and their precedence, higher binding tighter.
fn binary_operator(token: &Token) -> Option<(BinaryOperator, u8)> {
    let TokenKind::Punctuator(punctuator) = token.kind else {
        return None;
    };
    Some(match punctuator {
        Punctuator::PipePipe => (BinaryOperator::LogicalOr, 1),
        Punctuator::CaretCaret => (BinaryOperator::LogicalXor, 2),
        Punctuator::AmpersandAmpersand => (BinaryOperator::LogicalAnd, 3),
        Punctuator::Pipe => (BinaryOperator::BitwiseOr, 4),
        Punctuator::Caret => (BinaryOperator::BitwiseXor, 5),
        Punctuator::Ampersand => (BinaryOperator::BitwiseAnd, 6),
        Punctuator::EqualEqual => (BinaryOperator::Equal, 7),
        Punctuator::BangEqual => (BinaryOperator::NotEqual, 7),
        Punctuator::Less => (BinaryOperator::Less, 8),
        Punctuator::LessEqual => (BinaryOperator::LessEqual, 8),
        Punctuator::Greater => (BinaryOperator::Greater, 8),
        Punctuator::GreaterEqual => (BinaryOperator::GreaterEqual, 8),
        Punctuator::ShiftLeft => (BinaryOperator::ShiftLeft, 9),
        Punctuator::ShiftRight => (BinaryOperator::ShiftRight, 9),
        Punctuator::Plus => (BinaryOperator::Add, 10),
        Punctuator::Minus => (BinaryOperator::Subtract, 10),
        Punctuator::Star => (BinaryOperator::Multiply, 11),
        Punctuator::Slash => (BinaryOperator::Divide, 11),
        Punctuator::Percent => (BinaryOperator::Modulo, 11),
        _ => return None,
    })
}

fn assignment_operator(token: &Token) -> Option<AssignmentOperator> {
    let TokenKind::Punctuator(punctuator) = token.kind else {
        return None;
    };
    let compound = match punctuator {
        Punctuator::Assign => return Some(AssignmentOperator::Assign),
        Punctuator::PlusAssign => BinaryOperator::Add,
        Punctuator::MinusAssign => BinaryOperator::Subtract,
        Punctuator::StarAssign => BinaryOperator::Multiply,
        Punctuator::SlashAssign => BinaryOperator::Divide,
        Punctuator::PercentAssign => BinaryOperator::Modulo,
        Punctuator::AmpersandAssign => BinaryOperator::BitwiseAnd,
        Punctuator::CaretAssign => BinaryOperator::BitwiseXor,
        Punctuator::PipeAssign => BinaryOperator::BitwiseOr,
        Punctuator::ShiftLeftAssign => BinaryOperator::ShiftLeft,
        Punctuator::ShiftRightAssign => BinaryOperator::ShiftRight,
        _ => return None,
    };
    Some(AssignmentOperator::Compound(compound))
}

fn prefix_operator(token: &Token) -> Option<UnaryOperator> {
    let TokenKind::Punctuator(punctuator) = token.kind else {
        return None;
    };
    Some(match punctuator {
        Punctuator::Minus => UnaryOperator::Negate,
        Punctuator::Plus => UnaryOperator::Plus,
        Punctuator::Tilde => UnaryOperator::BitwiseNot,
        Punctuator::Bang => UnaryOperator::LogicalNot,
        Punctuator::Star => UnaryOperator::Dereference,
        Punctuator::Ampersand => UnaryOperator::AddressOf,
        _ => return None,
    })
}

impl<'s, 'c> Parser<'s, 'c> {
    /// A full expression, comma operator included (statements, predicates, the middle
    /// of `?:`, parenthesised expressions).
    pub(super) fn parse_expression(&mut self) -> Result<Expr, Diagnostic> {
        Ok(self.parse_comma()?.expr)
    }

    /// An assignment expression: no top-level comma (arguments, initialisers).
    pub(super) fn parse_assignment_expression(&mut self) -> Result<Expr, Diagnostic> {
        Ok(self.parse_assignment()?.expr)
    }

    /// A conditional expression: no assignment or comma (constant expressions such as
    /// array dimensions, bit-field widths and enumerator values).
    pub(super) fn parse_conditional_expression(&mut self) -> Result<Expr, Diagnostic> {
        Ok(self.nested(|parser| parser.parse_conditional())?.expr)
    }

    /// Makes the operand for a new node whose deepest child is `child_depth` deep.
    fn node(
        &mut self,
        kind: ExprKind,
        span: Span,
        child_depth: u32,
        unary: bool,
    ) -> Result<Operand, Diagnostic> {
        let depth = child_depth + 1;
        if depth > MAXIMUM_EXPRESSION_DEPTH {
            return Err(self.too_deep());
        }
        Ok(Operand {
            expr: Expr { kind, span },
            depth,
            unary,
        })
    }

    fn parse_comma(&mut self) -> Result<Operand, Diagnostic> {
        let mut left = self.parse_assignment()?;
        while self.eat(Punctuator::Comma)?.is_some() {
            let right = self.parse_assignment()?;
            left = self.binary(BinaryOperator::Comma, left, right)?;
        }
        Ok(left)
    }

    fn binary(
        &mut self,
        operator: BinaryOperator,
        left: Operand,
        right: Operand,
    ) -> Result<Operand, Diagnostic> {
        let span = left.expr.span.start..right.expr.span.end;
        let depth = left.depth.max(right.depth);
        let kind = ExprKind::Binary {
            operator,
            left: Box::new(left.expr),
            right: Box::new(right.expr),
        };
        self.node(kind, span, depth, false)
    }

    /// `unary-expression assignment-operator assignment-expression`, right
    /// associative; as in C, only a unary expression may be assigned to.
    fn parse_assignment(&mut self) -> Result<Operand, Diagnostic> {
        self.nested(|parser| {
            let target = parser.parse_conditional()?;
            let token = parser.peek()?.clone();
            let Some(operator) = assignment_operator(&token) else {
                return Ok(target);
            };
            if !target.unary {
                return Err(parser.syntax_error_near(&token));
            }
            parser.advance()?;
            let value = parser.parse_assignment()?;
            let span = target.expr.span.start..value.expr.span.end;
            let depth = target.depth.max(value.depth);
            let kind = ExprKind::Assign {
                operator,
                target: Box::new(target.expr),
                value: Box::new(value.expr),
            };
            parser.node(kind, span, depth, false)
        })
    }

    /// `condition ? expression : conditional`, right associative.
    fn parse_conditional(&mut self) -> Result<Operand, Diagnostic> {
        let condition = self.parse_binary(1)?;
        if self.eat(Punctuator::Question)?.is_none() {
            return Ok(condition);
        }
        let then_value = self.nested(|parser| parser.parse_comma())?;
        self.expect(Punctuator::Colon)?;
        let else_value = self.nested(|parser| parser.parse_conditional())?;
        let span = condition.expr.span.start..else_value.expr.span.end;
        let depth = condition.depth.max(then_value.depth).max(else_value.depth);
        let kind = ExprKind::Conditional {
            condition: Box::new(condition.expr),
            then_value: Box::new(then_value.expr),
            else_value: Box::new(else_value.expr),
        };
        self.node(kind, span, depth, false)
    }

    /// Binary operators of at least `minimum` precedence, left associative.
    fn parse_binary(&mut self, minimum: u8) -> Result<Operand, Diagnostic> {
        let mut left = self.parse_cast()?;
        while let Some((operator, precedence)) = binary_operator(self.peek()?) {
            if precedence < minimum {
                break;
            }
            self.advance()?;
            let right = self.parse_binary(precedence + 1)?;
            left = self.binary(operator, left, right)?;
        }
        Ok(left)
    }

    /// `(type) cast-expression`, or a unary expression (which may itself start with a
    /// parenthesised expression).
    fn parse_cast(&mut self) -> Result<Operand, Diagnostic> {
        if !self.at(Punctuator::LeftParen)? {
            return self.parse_unary();
        }
        let open = self.advance()?;
        if !self.starts_type_name()? {
            let inner = self.parse_parenthesized_rest(&open)?;
            return self.parse_postfix_operators(inner);
        }
        let ty = self.parse_type_name()?;
        self.expect(Punctuator::RightParen)?;
        let operand = self.nested(|parser| parser.parse_cast())?;
        let span = open.span.start..operand.expr.span.end;
        let depth = operand.depth;
        self.node(
            ExprKind::Cast {
                ty,
                operand: Box::new(operand.expr),
            },
            span,
            depth,
            false,
        )
    }

    /// The rest of `( expression )` after the `(`; the span includes the parentheses.
    fn parse_parenthesized_rest(&mut self, open: &Token) -> Result<Operand, Diagnostic> {
        let inner = self.nested(|parser| parser.parse_comma())?;
        let close = self.expect(Punctuator::RightParen)?;
        Ok(Operand {
            expr: Expr {
                kind: inner.expr.kind,
                span: open.span.start..close.span.end,
            },
            depth: inner.depth,
            unary: true,
        })
    }

    fn parse_unary(&mut self) -> Result<Operand, Diagnostic> {
        let token = self.peek()?.clone();
        let start = token.span.start;
        if let Some(operator) = prefix_operator(&token) {
            self.advance()?;
            let operand = self.nested(|parser| parser.parse_cast())?;
            let depth = operand.depth;
            let kind = ExprKind::Unary {
                operator,
                operand: Box::new(operand.expr),
            };
            return self.node(kind, self.span_from(start), depth, true);
        }
        let (kind, depth) = match &token.kind {
            TokenKind::Punctuator(Punctuator::PlusPlus | Punctuator::MinusMinus) => {
                self.advance()?;
                let operator = if token.is(Punctuator::PlusPlus) {
                    UnaryOperator::PreIncrement
                } else {
                    UnaryOperator::PreDecrement
                };
                let operand = self.nested(|parser| parser.parse_unary())?;
                (
                    ExprKind::Unary {
                        operator,
                        operand: Box::new(operand.expr),
                    },
                    operand.depth,
                )
            }
            TokenKind::Keyword(Keyword::Sizeof) => {
                self.advance()?;
                if let Some(open) = self.eat(Punctuator::LeftParen)? {
                    if self.starts_type_name()? {
                        let ty = self.parse_type_name()?;
                        self.expect(Punctuator::RightParen)?;
                        return self.node(ExprKind::SizeofType(ty), self.span_from(start), 0, true);
                    }
                    let inner = self.parse_parenthesized_rest(&open)?;
                    let operand = self.parse_postfix_operators(inner)?;
                    (ExprKind::SizeofExpr(Box::new(operand.expr)), operand.depth)
                } else {
                    let operand = self.nested(|parser| parser.parse_unary())?;
                    (ExprKind::SizeofExpr(Box::new(operand.expr)), operand.depth)
                }
            }
            TokenKind::Keyword(Keyword::Stringof) => {
                self.advance()?;
                let operand = self.nested(|parser| parser.parse_unary())?;
                (ExprKind::Stringof(Box::new(operand.expr)), operand.depth)
            }
            _ => return self.parse_postfix(),
        };
        self.node(kind, self.span_from(start), depth, true)
    }

    fn parse_postfix(&mut self) -> Result<Operand, Diagnostic> {
        let primary = self.parse_primary()?;
        self.parse_postfix_operators(primary)
    }

    /// Subscripts, calls, member access and postfix `++`/`--` after `operand`.
    fn parse_postfix_operators(&mut self, mut operand: Operand) -> Result<Operand, Diagnostic> {
        loop {
            let punctuator = match self.peek_kind()? {
                TokenKind::Punctuator(
                    punctuator @ (Punctuator::LeftBracket
                    | Punctuator::LeftParen
                    | Punctuator::Dot
                    | Punctuator::Arrow
                    | Punctuator::PlusPlus
                    | Punctuator::MinusMinus),
                ) => punctuator,
                _ => return Ok(operand),
            };
            self.advance()?;
            let start = operand.expr.span.start;
            let base = Box::new(operand.expr);
            let (kind, depth) = match punctuator {
                Punctuator::LeftBracket => {
                    let (keys, depth) = self.parse_arguments(Punctuator::RightBracket, false)?;
                    (ExprKind::Index { base, keys }, depth.max(operand.depth))
                }
                Punctuator::LeftParen => {
                    let (arguments, depth) = self.parse_arguments(Punctuator::RightParen, true)?;
                    (
                        ExprKind::Call {
                            callee: base,
                            arguments,
                        },
                        depth.max(operand.depth),
                    )
                }
                Punctuator::Dot => (
                    ExprKind::Member {
                        base,
                        member: self.parse_member_name()?,
                    },
                    operand.depth,
                ),
                Punctuator::Arrow => (
                    ExprKind::PointerMember {
                        base,
                        member: self.parse_member_name()?,
                    },
                    operand.depth,
                ),
                Punctuator::PlusPlus => (
                    ExprKind::Unary {
                        operator: UnaryOperator::PostIncrement,
                        operand: base,
                    },
                    operand.depth,
                ),
                _ => (
                    ExprKind::Unary {
                        operator: UnaryOperator::PostDecrement,
                        operand: base,
                    },
                    operand.depth,
                ),
            };
            operand = self.node(kind, self.span_from(start), depth, true)?;
        }
    }

    /// Comma-separated assignment expressions up to and including `close`; returns
    /// them with the depth of the deepest.
    fn parse_arguments(
        &mut self,
        close: Punctuator,
        allow_empty: bool,
    ) -> Result<(Vec<Expr>, u32), Diagnostic> {
        let mut arguments = Vec::new();
        let mut depth = 0;
        if !(allow_empty && self.at(close)?) {
            loop {
                let argument = self.parse_assignment()?;
                depth = depth.max(argument.depth);
                arguments.push(argument.expr);
                if self.eat(Punctuator::Comma)?.is_none() {
                    break;
                }
            }
        }
        self.expect(close)?;
        Ok((arguments, depth))
    }

    /// The name after `.` or `->`: always a member name, even if it reads like a
    /// keyword or type name.
    fn parse_member_name(&mut self) -> Result<String, Diagnostic> {
        match self.peek_kind()? {
            TokenKind::Identifier | TokenKind::TypeName | TokenKind::Keyword(_) => {
                let token = self.advance()?;
                Ok(self.text(&token).to_string())
            }
            _ => self.unexpected(),
        }
    }

    fn parse_primary(&mut self) -> Result<Operand, Diagnostic> {
        let token = self.peek()?.clone();
        let start = token.span.start;
        let text = self.text(&token);
        let kind = match token.kind {
            TokenKind::Identifier => {
                self.advance()?;
                ExprKind::Identifier(text.to_string())
            }
            TokenKind::ScopedIdentifier => {
                self.advance()?;
                let (module, name) = text.rsplit_once('`').unwrap_or(("", text));
                ExprKind::ScopedIdentifier {
                    module: module.to_string(),
                    name: name.to_string(),
                }
            }
            TokenKind::Integer(literal) => {
                self.advance()?;
                // DTrace types constants as it parses them: a decimal (or character)
                // constant without `u` must fit a signed 64-bit type.
                let signed_only =
                    matches!(literal.base, IntegerBase::Decimal | IntegerBase::Character);
                if signed_only && !literal.suffix.unsigned && literal.value > i64::MAX as u64 {
                    return Err(Diagnostic::new(
                        ErrorTag::D_INT_OFLOW,
                        token.span,
                        format!(
                            "integer constant 0x{:x} cannot be represented in any built-in integral type",
                            literal.value
                        ),
                    ));
                }
                ExprKind::Integer {
                    value: literal.value,
                    base: literal.base,
                    suffix: literal.suffix,
                    text: text.to_string(),
                }
            }
            TokenKind::String(bytes) => {
                self.advance()?;
                ExprKind::String(bytes)
            }
            TokenKind::Macro(variable) => {
                self.advance()?;
                ExprKind::Macro(variable)
            }
            TokenKind::Aggregation => {
                self.advance()?;
                let name = &text[1..];
                ExprKind::Aggregation(if name.is_empty() {
                    "_".to_string()
                } else {
                    name.to_string()
                })
            }
            TokenKind::Keyword(keyword @ (Keyword::SelfScope | Keyword::ThisScope)) => {
                self.advance()?;
                self.expect(Punctuator::Arrow)?;
                let name = self.parse_member_name()?;
                if keyword == Keyword::SelfScope {
                    ExprKind::ThreadLocal(name)
                } else {
                    ExprKind::ClauseLocal(name)
                }
            }
            TokenKind::Punctuator(Punctuator::LeftParen) => {
                let open = self.advance()?;
                return self.parse_parenthesized_rest(&open);
            }
            TokenKind::Keyword(Keyword::Offsetof) => {
                self.advance()?;
                self.expect(Punctuator::LeftParen)?;
                let ty = self.parse_type_name()?;
                self.expect(Punctuator::Comma)?;
                let member = self.parse_member_name()?;
                self.expect(Punctuator::RightParen)?;
                ExprKind::Offsetof { ty, member }
            }
            TokenKind::Keyword(Keyword::Xlate) => {
                self.advance()?;
                self.expect(Punctuator::Less)?;
                let ty = self.parse_type_name()?;
                self.expect(Punctuator::Greater)?;
                self.expect(Punctuator::LeftParen)?;
                let operand = self.nested(|parser| parser.parse_comma())?;
                self.expect(Punctuator::RightParen)?;
                let depth = operand.depth;
                let kind = ExprKind::Xlate {
                    ty,
                    operand: Box::new(operand.expr),
                };
                return self.node(kind, self.span_from(start), depth, true);
            }
            _ => return self.unexpected(),
        };
        self.node(kind, self.span_from(start), 0, true)
    }
}
