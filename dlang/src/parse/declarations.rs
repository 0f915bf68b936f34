//! C declarations and types as D uses them: declaration specifiers, struct, union and
//! enum specifiers, declarators (pointers, arrays, associative-array key signatures,
//! functions), type names, and the D definitions built from them: `inline`,
//! `translator` and `provider`.

use crate::ast::{
    Aggregate, ArrayDimension, Declaration, DeclarationSpecifiers, Declarator, Derivation,
    EnumSpecifier, InlineDefinition, MemberDeclaration, ProviderDefinition, ProviderProbe,
    StorageClass, StructOrUnionSpecifier, TranslatorDefinition, TypeName, TypeQualifier,
    TypeSpecifier,
};
use crate::diagnostics::Diagnostic;
use crate::lex::{Keyword, Punctuator, Token, TokenKind};

use super::Parser;

/// Keywords that are storage classes (kept in the AST; sema rejects the ones D does
/// not allow).
pub(super) fn is_storage_class_keyword(keyword: Keyword) -> bool {
    storage_class(keyword).is_some()
}

fn storage_class(keyword: Keyword) -> Option<StorageClass> {
    Some(match keyword {
        Keyword::Extern => StorageClass::Extern,
        Keyword::Static => StorageClass::Static,
        Keyword::Auto => StorageClass::Auto,
        Keyword::Register => StorageClass::Register,
        Keyword::Typedef => StorageClass::Typedef,
        Keyword::SelfScope => StorageClass::SelfScope,
        Keyword::ThisScope => StorageClass::ThisScope,
        _ => return None,
    })
}

fn type_qualifier(keyword: Keyword) -> Option<TypeQualifier> {
    Some(match keyword {
        Keyword::Const => TypeQualifier::Const,
        Keyword::Volatile => TypeQualifier::Volatile,
        Keyword::Restrict => TypeQualifier::Restrict,
        _ => return None,
    })
}

fn simple_type_specifier(keyword: Keyword) -> Option<TypeSpecifier> {
    Some(match keyword {
        Keyword::Void => TypeSpecifier::Void,
        Keyword::Char => TypeSpecifier::Char,
        Keyword::Short => TypeSpecifier::Short,
        Keyword::Int => TypeSpecifier::Int,
        Keyword::Long => TypeSpecifier::Long,
        Keyword::Float => TypeSpecifier::Float,
        Keyword::Double => TypeSpecifier::Double,
        Keyword::Signed => TypeSpecifier::Signed,
        Keyword::Unsigned => TypeSpecifier::Unsigned,
        Keyword::Bool => TypeSpecifier::Bool,
        Keyword::String => TypeSpecifier::String,
        _ => return None,
    })
}

/// Keywords that may start a type name: type specifiers, `struct`/`union`/`enum` and
/// qualifiers.
pub(super) fn is_type_specifier_keyword(keyword: Keyword) -> bool {
    simple_type_specifier(keyword).is_some()
        || type_qualifier(keyword).is_some()
        || matches!(keyword, Keyword::Struct | Keyword::Union | Keyword::Enum)
}

/// What a list of declaration specifiers may contain where it is being parsed.
#[derive(Debug, Clone, Copy)]
struct SpecifierRules {
    /// Storage classes are allowed (declarations and parameters, not type names).
    storage: bool,
    /// A plain identifier before any type specifier can only be a type name here (in
    /// type names, parameters and members), even if the program never declared it:
    /// it may be a kernel or library type.
    identifier_is_type: bool,
}

/// Which kinds of declarator are acceptable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeclaratorKind {
    /// Must name something (declarations, struct members, inlines).
    Named,
    /// Must not name anything (type names in casts, `sizeof`, `xlate`, …).
    Abstract,
    /// Either (function and key-signature parameters).
    Either,
}

impl<'s, 'c> Parser<'s, 'c> {
    /// Whether the next token starts a type name.
    pub(super) fn starts_type_name(&mut self) -> Result<bool, Diagnostic> {
        Ok(match self.peek_kind()? {
            TokenKind::TypeName => true,
            TokenKind::Keyword(keyword) => is_type_specifier_keyword(keyword),
            _ => false,
        })
    }

    /// A type name: specifiers and qualifiers, then an abstract declarator.
    pub(super) fn parse_type_name(&mut self) -> Result<TypeName, Diagnostic> {
        let start = self.peek()?.span.start;
        let specifiers = self.parse_specifiers(SpecifierRules {
            storage: false,
            identifier_is_type: true,
        })?;
        let declarator = self.parse_declarator(DeclaratorKind::Abstract)?;
        Ok(TypeName {
            specifiers,
            declarator,
            span: self.span_from(start),
        })
    }

    /// A declaration at program scope: `int x;`, `self int y;`, `typedef ...;`,
    /// `struct s { ... };`, `int a[string, int];`.
    pub(super) fn parse_declaration(&mut self) -> Result<Declaration, Diagnostic> {
        let start = self.peek()?.span.start;
        let specifiers = self.parse_specifiers(SpecifierRules {
            storage: true,
            identifier_is_type: false,
        })?;
        let mut declarators = Vec::new();
        let mut declarator_ends = Vec::new();
        if !self.at(Punctuator::Semicolon)? {
            loop {
                declarators.push(self.parse_declarator(DeclaratorKind::Named)?);
                declarator_ends.push(self.peek()?.span.clone());
                if self.eat(Punctuator::Comma)?.is_none() {
                    break;
                }
            }
        }
        // The names are known before the token after the `;` is lexed, so a typedef
        // name is a type name from the next declaration on.
        let is_typedef = specifiers
            .storage
            .iter()
            .any(|(class, _)| *class == StorageClass::Typedef);
        for (name, _) in declarators
            .iter()
            .filter_map(|declarator| declarator.name.as_ref())
        {
            if is_typedef {
                self.lexer.declare_type_name(name);
            } else {
                self.lexer.declare_identifier(name);
            }
        }
        self.expect(Punctuator::Semicolon)?;
        Ok(Declaration {
            specifiers,
            declarators,
            declarator_ends,
            span: self.span_from(start),
        })
    }

    /// `inline type name = expr;` and `inline type name[T p, ...] = expr;`.
    pub(super) fn parse_inline(&mut self) -> Result<InlineDefinition, Diagnostic> {
        let start = self.advance()?.span.start;
        // Storage classes parse (DTrace's grammar takes declaration specifiers) and
        // are refused when the inline is checked.
        let specifiers = self.parse_specifiers(SpecifierRules {
            storage: true,
            identifier_is_type: true,
        })?;
        let mut declarator = self.parse_declarator(DeclaratorKind::Named)?;
        let name = match declarator.name.take() {
            Some((name, _)) => name,
            None => return self.unexpected(),
        };
        self.lexer.declare_identifier(&name);
        // The parameters of a parameterised inline are written like a key signature
        // right after the name.
        let parameters = match declarator.derivations.first_mut() {
            Some(Derivation::Array(ArrayDimension::Keys(keys))) => {
                let keys = std::mem::take(keys);
                declarator.derivations.remove(0);
                keys.into_iter()
                    .map(|mut parameter| {
                        let parameter_name = parameter
                            .declarator
                            .name
                            .take()
                            .map(|(name, _)| name)
                            .unwrap_or_default();
                        (parameter, parameter_name)
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let type_span = specifiers.span.start..declarator.span.end.max(specifiers.span.end);
        let ty = TypeName {
            specifiers,
            declarator,
            span: type_span,
        };
        self.expect(Punctuator::Assign)?;
        let value = self.parse_assignment_expression()?;
        self.expect(Punctuator::Semicolon)?;
        Ok(InlineDefinition {
            ty,
            name,
            parameters,
            value,
            span: self.span_from(start),
        })
    }

    /// `translator out < in IDENT > { member = expr; ... };`.
    pub(super) fn parse_translator(&mut self) -> Result<TranslatorDefinition, Diagnostic> {
        let start = self.advance()?.span.start;
        let output = self.parse_type_name()?;
        self.expect(Punctuator::Less)?;
        let input = self.parse_type_name()?;
        let parameter = self.parse_name()?;
        self.expect(Punctuator::Greater)?;
        self.expect(Punctuator::LeftBrace)?;
        let mut members = Vec::new();
        while !self.at(Punctuator::RightBrace)? {
            let member_start = self.peek()?.span.start;
            let member = self.parse_name()?;
            self.expect(Punctuator::Assign)?;
            let value = self.parse_assignment_expression()?;
            self.expect(Punctuator::Semicolon)?;
            members.push((member, value, self.span_from(member_start)));
        }
        self.expect(Punctuator::RightBrace)?;
        self.expect(Punctuator::Semicolon)?;
        Ok(TranslatorDefinition {
            output,
            input,
            parameter,
            members,
            span: self.span_from(start),
        })
    }

    /// `provider name { probe pname(args) [: (xlated args)]; ... };`.
    pub(super) fn parse_provider(&mut self) -> Result<ProviderDefinition, Diagnostic> {
        let start = self.advance()?.span.start;
        let name = self.parse_name()?;
        self.expect(Punctuator::LeftBrace)?;
        let mut probes = Vec::new();
        while !self.at(Punctuator::RightBrace)? {
            if !self.at_keyword(Keyword::Probe)? {
                return self.unexpected();
            }
            let probe_start = self.advance()?.span.start;
            let probe_name = self.parse_name()?;
            self.expect(Punctuator::LeftParen)?;
            let (arguments, _) = self.parse_parameters_after_parenthesis(false)?;
            let translated_arguments = if self.eat(Punctuator::Colon)?.is_some() {
                self.expect(Punctuator::LeftParen)?;
                Some(self.parse_parameters_after_parenthesis(false)?.0)
            } else {
                None
            };
            self.expect(Punctuator::Semicolon)?;
            probes.push(ProviderProbe {
                name: probe_name,
                arguments,
                translated_arguments,
                span: self.span_from(probe_start),
            });
        }
        self.expect(Punctuator::RightBrace)?;
        self.expect(Punctuator::Semicolon)?;
        Ok(ProviderDefinition {
            name,
            probes,
            span: self.span_from(start),
        })
    }

    /// A name in a definition (translator parameter and members, provider and probe
    /// names): an identifier, even one that happens to name a type.
    fn parse_name(&mut self) -> Result<String, Diagnostic> {
        match self.peek_kind()? {
            TokenKind::Identifier | TokenKind::TypeName => {
                let token = self.advance()?;
                Ok(self.text(&token).to_string())
            }
            _ => self.unexpected(),
        }
    }

    fn parse_specifiers(
        &mut self,
        rules: SpecifierRules,
    ) -> Result<DeclarationSpecifiers, Diagnostic> {
        let start = self.peek()?.span.start;
        let mut specifiers = DeclarationSpecifiers {
            storage: Vec::new(),
            qualifiers: Vec::new(),
            types: Vec::new(),
            span: start..start,
        };
        loop {
            let token = self.peek()?.clone();
            match token.kind {
                TokenKind::Keyword(keyword) => {
                    if let Some(class) = storage_class(keyword).filter(|_| rules.storage) {
                        self.advance()?;
                        specifiers.storage.push((class, token.span));
                    } else if let Some(qualifier) = type_qualifier(keyword) {
                        self.advance()?;
                        specifiers.qualifiers.push(qualifier);
                    } else if let Some(specifier) = simple_type_specifier(keyword) {
                        self.advance()?;
                        specifiers.types.push((specifier, token.span));
                    } else if matches!(keyword, Keyword::Struct | Keyword::Union) {
                        let specifier = self.parse_struct_or_union()?;
                        let span = specifier.span.clone();
                        specifiers
                            .types
                            .push((TypeSpecifier::StructOrUnion(specifier), span));
                    } else if keyword == Keyword::Enum {
                        let specifier = self.parse_enum()?;
                        let span = specifier.span.clone();
                        specifiers
                            .types
                            .push((TypeSpecifier::Enum(specifier), span));
                    } else {
                        break;
                    }
                }
                // A typedef name is a type specifier only where no other type
                // specifier was given; after one it is the declared name.
                TokenKind::TypeName if specifiers.types.is_empty() => {
                    self.push_typedef_name(&mut specifiers, &token)?
                }
                TokenKind::Identifier | TokenKind::ScopedIdentifier
                    if rules.identifier_is_type && specifiers.types.is_empty() =>
                {
                    self.push_typedef_name(&mut specifiers, &token)?
                }
                _ => break,
            }
        }
        if specifiers.storage.is_empty()
            && specifiers.qualifiers.is_empty()
            && specifiers.types.is_empty()
        {
            return self.unexpected();
        }
        specifiers.span = self.span_from(start);
        Ok(specifiers)
    }

    fn push_typedef_name(
        &mut self,
        specifiers: &mut DeclarationSpecifiers,
        token: &Token,
    ) -> Result<(), Diagnostic> {
        self.advance()?;
        let name = self.text(token).to_string();
        specifiers
            .types
            .push((TypeSpecifier::TypedefName(name), token.span.clone()));
        Ok(())
    }

    /// `struct tag`, `struct [tag] { members }`, and the same for unions.
    fn parse_struct_or_union(&mut self) -> Result<StructOrUnionSpecifier, Diagnostic> {
        let keyword = self.advance()?;
        let kind = if keyword.is_keyword(Keyword::Union) {
            Aggregate::Union
        } else {
            Aggregate::Struct
        };
        let tag = self.parse_tag()?;
        let left_brace = self.eat(Punctuator::LeftBrace)?.map(|brace| brace.span);
        let members = if left_brace.is_some() {
            let mut members = Vec::new();
            while !self.at(Punctuator::RightBrace)? {
                members.push(self.nested(|parser| parser.parse_member_declaration())?);
            }
            self.advance()?;
            Some(members)
        } else {
            None
        };
        if tag.is_none() && members.is_none() {
            return self.unexpected();
        }
        Ok(StructOrUnionSpecifier {
            kind,
            tag,
            members,
            left_brace,
            span: self.span_from(keyword.span.start),
        })
    }

    /// The tag after `struct`, `union` or `enum`: any identifier, possibly scoped.
    fn parse_tag(&mut self) -> Result<Option<String>, Diagnostic> {
        match self.peek_kind()? {
            TokenKind::Identifier | TokenKind::ScopedIdentifier | TokenKind::TypeName => {
                let token = self.advance()?;
                Ok(Some(self.text(&token).to_string()))
            }
            _ => Ok(None),
        }
    }

    /// One member declaration of a struct or union, with optional bit-field widths.
    fn parse_member_declaration(&mut self) -> Result<MemberDeclaration, Diagnostic> {
        let start = self.peek()?.span.start;
        let specifiers = self.parse_specifiers(SpecifierRules {
            storage: false,
            identifier_is_type: true,
        })?;
        let mut declarators = Vec::new();
        if !self.at(Punctuator::Semicolon)? {
            loop {
                let declarator = if self.at(Punctuator::Colon)? {
                    let at = self.peek()?.span.start;
                    Declarator {
                        name: None,
                        derivations: Vec::new(),
                        span: at..at,
                    }
                } else {
                    self.parse_declarator(DeclaratorKind::Named)?
                };
                let width = if self.eat(Punctuator::Colon)?.is_some() {
                    Some(self.parse_conditional_expression()?)
                } else {
                    None
                };
                declarators.push((declarator, width));
                if self.eat(Punctuator::Comma)?.is_none() {
                    break;
                }
            }
        }
        self.expect(Punctuator::Semicolon)?;
        Ok(MemberDeclaration {
            specifiers,
            declarators,
            span: self.span_from(start),
        })
    }

    /// `enum tag`, `enum [tag] { A [= value], ... [,] }`. Enumerators are identifiers
    /// from here on.
    fn parse_enum(&mut self) -> Result<EnumSpecifier, Diagnostic> {
        let keyword = self.advance()?;
        let tag = self.parse_tag()?;
        let left_brace = self.eat(Punctuator::LeftBrace)?.map(|brace| brace.span);
        let enumerators = if left_brace.is_some() {
            let mut enumerators = Vec::new();
            loop {
                let token = self.peek()?.clone();
                if !matches!(token.kind, TokenKind::Identifier | TokenKind::TypeName) {
                    return self.unexpected();
                }
                self.advance()?;
                let name = self.text(&token).to_string();
                let value = if self.eat(Punctuator::Assign)?.is_some() {
                    Some(self.parse_conditional_expression()?)
                } else {
                    None
                };
                self.lexer.declare_identifier(&name);
                // DTrace defines the enumerator when its parser reads the token after
                // it (`,` or `}`), so its errors report that token's line.
                let following = self.peek()?.span.clone();
                enumerators.push((name, value, following));
                if self.eat(Punctuator::Comma)?.is_none() || self.at(Punctuator::RightBrace)? {
                    break;
                }
            }
            self.expect(Punctuator::RightBrace)?;
            Some(enumerators)
        } else {
            None
        };
        if tag.is_none() && enumerators.is_none() {
            return self.unexpected();
        }
        Ok(EnumSpecifier {
            tag,
            enumerators,
            left_brace,
            span: self.span_from(keyword.span.start),
        })
    }

    fn parse_declarator(&mut self, kind: DeclaratorKind) -> Result<Declarator, Diagnostic> {
        self.nested(|parser| parser.parse_declarator_nested(kind))
    }

    /// A declarator; its derivations run from the name outwards, so the suffixes
    /// (`[]`, `()`) bind before the pointers written to their left.
    fn parse_declarator_nested(&mut self, kind: DeclaratorKind) -> Result<Declarator, Diagnostic> {
        let start = self.peek()?.span.start;
        let mut pointers = Vec::new();
        while self.eat(Punctuator::Star)?.is_some() {
            let mut qualifiers = Vec::new();
            while let TokenKind::Keyword(keyword) = self.peek_kind()? {
                let Some(qualifier) = type_qualifier(keyword) else {
                    break;
                };
                self.advance()?;
                qualifiers.push(qualifier);
            }
            pointers.push(Derivation::Pointer { qualifiers });
        }

        let mut name = None;
        let mut inner = Vec::new();
        let mut suffixes = Vec::new();
        let token = self.peek()?.clone();
        match token.kind {
            TokenKind::Identifier | TokenKind::ScopedIdentifier | TokenKind::TypeName
                if kind != DeclaratorKind::Abstract =>
            {
                self.advance()?;
                name = Some((self.text(&token).to_string(), token.span));
            }
            TokenKind::Punctuator(Punctuator::LeftParen) => {
                self.advance()?;
                if self.parenthesis_groups_declarator(kind)? {
                    let grouped = self.parse_declarator(kind)?;
                    self.expect(Punctuator::RightParen)?;
                    name = grouped.name;
                    inner = grouped.derivations;
                } else {
                    let (parameters, varargs) = self.parse_parameters_after_parenthesis(true)?;
                    suffixes.push(Derivation::Function {
                        parameters,
                        varargs,
                    });
                }
            }
            _ if kind == DeclaratorKind::Named => return self.unexpected(),
            _ => {}
        }

        loop {
            if self.eat(Punctuator::LeftBracket)?.is_some() {
                let dimension = self.parse_array_dimension()?;
                self.expect(Punctuator::RightBracket)?;
                suffixes.push(Derivation::Array(dimension));
            } else if self.eat(Punctuator::LeftParen)?.is_some() {
                let (parameters, varargs) = self.parse_parameters_after_parenthesis(true)?;
                suffixes.push(Derivation::Function {
                    parameters,
                    varargs,
                });
            } else {
                break;
            }
        }
        let mut derivations = inner;
        derivations.extend(suffixes);
        derivations.extend(pointers.into_iter().rev());
        Ok(Declarator {
            name,
            derivations,
            span: self.span_from(start),
        })
    }

    /// After a `(` in declarator position: whether it groups a nested declarator
    /// (`(*p)`) rather than opening a parameter list.
    fn parenthesis_groups_declarator(&mut self, kind: DeclaratorKind) -> Result<bool, Diagnostic> {
        if kind == DeclaratorKind::Named {
            return Ok(true);
        }
        Ok(match self.peek_kind()? {
            TokenKind::Punctuator(
                Punctuator::Star | Punctuator::LeftParen | Punctuator::LeftBracket,
            ) => true,
            TokenKind::Identifier | TokenKind::ScopedIdentifier => kind == DeclaratorKind::Either,
            _ => false,
        })
    }

    /// The inside of `[...]` in a declarator: nothing, a key signature (a list of type
    /// names), or a constant dimension.
    fn parse_array_dimension(&mut self) -> Result<ArrayDimension, Diagnostic> {
        if self.at(Punctuator::RightBracket)? {
            return Ok(ArrayDimension::Unspecified);
        }
        if self.starts_type_name()? {
            let mut keys = Vec::new();
            loop {
                keys.push(self.parse_parameter()?);
                if self.eat(Punctuator::Comma)?.is_none() {
                    break;
                }
            }
            return Ok(ArrayDimension::Keys(keys));
        }
        Ok(ArrayDimension::Size(self.parse_conditional_expression()?))
    }

    /// The parameters of a function declarator or provider probe, after the `(`, up to
    /// and including the `)`. Returns whether a trailing `...` was given.
    fn parse_parameters_after_parenthesis(
        &mut self,
        allow_varargs: bool,
    ) -> Result<(Vec<TypeName>, bool), Diagnostic> {
        let mut parameters = Vec::new();
        let mut varargs = false;
        if self.eat(Punctuator::RightParen)?.is_some() {
            return Ok((parameters, varargs));
        }
        loop {
            if allow_varargs && self.eat(Punctuator::Ellipsis)?.is_some() {
                varargs = true;
                break;
            }
            parameters.push(self.parse_parameter()?);
            if self.eat(Punctuator::Comma)?.is_none() {
                break;
            }
        }
        self.expect(Punctuator::RightParen)?;
        Ok((parameters, varargs))
    }

    /// One parameter: specifiers and a declarator that may or may not name it.
    fn parse_parameter(&mut self) -> Result<TypeName, Diagnostic> {
        let start = self.peek()?.span.start;
        let specifiers = self.parse_specifiers(SpecifierRules {
            storage: true,
            identifier_is_type: true,
        })?;
        let declarator = self.parse_declarator(DeclaratorKind::Either)?;
        Ok(TypeName {
            specifiers,
            declarator,
            span: self.span_from(start),
        })
    }
}
