//! A compact S-expression rendering of the AST, one line per top-level item: the golden
//! format of the parser tests and a debugging aid for later passes.

use std::fmt::Write;

use crate::ast::{
    Aggregate, ArrayDimension, AssignmentOperator, Block, Clause, Declaration,
    DeclarationSpecifiers, Declarator, Derivation, EnumSpecifier, Expr, ExprKind, IntegerBase,
    Item, MacroVariable, Program, Statement, StorageClass, StructOrUnionSpecifier, TypeName,
    TypeQualifier, TypeSpecifier, UnaryOperator,
};

/// The program, one line per item.
pub fn dump_program(program: &Program) -> String {
    let mut out = String::new();
    for item in &program.items {
        dump_item(&mut out, item);
        out.push('\n');
    }
    out
}

/// One expression on one line.
pub fn dump_expression(expr: &Expr) -> String {
    let mut out = String::new();
    dump_expr(&mut out, expr);
    out
}

fn dump_item(out: &mut String, item: &Item) {
    match item {
        Item::Clause(clause) => dump_clause(out, clause),
        Item::Declaration(declaration) => dump_declaration(out, declaration),
        Item::Inline(inline) => {
            out.push_str("(inline ");
            dump_type(out, &inline.ty);
            let _ = write!(out, " {}", inline.name);
            if !inline.parameters.is_empty() {
                out.push_str(" (parameters");
                for (ty, name) in &inline.parameters {
                    out.push_str(" (");
                    dump_type(out, ty);
                    let _ = write!(out, " {name})");
                }
                out.push(')');
            }
            out.push(' ');
            dump_expr(out, &inline.value);
            out.push(')');
        }
        Item::Translator(translator) => {
            out.push_str("(translator ");
            dump_type(out, &translator.output);
            out.push(' ');
            dump_type(out, &translator.input);
            let _ = write!(out, " {}", translator.parameter);
            for (member, value, _) in &translator.members {
                let _ = write!(out, " ({member} ");
                dump_expr(out, value);
                out.push(')');
            }
            out.push(')');
        }
        Item::Provider(provider) => {
            let _ = write!(out, "(provider {}", provider.name);
            for probe in &provider.probes {
                let _ = write!(out, " (probe {} (arguments", probe.name);
                for argument in &probe.arguments {
                    out.push(' ');
                    dump_type(out, argument);
                }
                out.push(')');
                if let Some(translated) = &probe.translated_arguments {
                    out.push_str(" (translated");
                    for argument in translated {
                        out.push(' ');
                        dump_type(out, argument);
                    }
                    out.push(')');
                }
                out.push(')');
            }
            out.push(')');
        }
        Item::Option(option) => match &option.value {
            Some(value) => {
                let _ = write!(out, "(option {} {:?})", option.name, value);
            }
            None => {
                let _ = write!(out, "(option {})", option.name);
            }
        },
        Item::Pragma(pragma) => {
            out.push_str("(pragma");
            for word in &pragma.words {
                let _ = write!(out, " {word:?}");
            }
            out.push(')');
        }
    }
}

fn dump_clause(out: &mut String, clause: &Clause) {
    out.push_str("(clause (probes");
    for probe in &clause.probes {
        let _ = write!(out, " {:?}", probe.text);
    }
    out.push(')');
    if let Some(predicate) = &clause.predicate {
        out.push_str(" (predicate ");
        dump_expr(out, predicate);
        out.push(')');
    }
    match &clause.body {
        Some(body) => {
            out.push(' ');
            dump_block(out, body);
        }
        None => out.push_str(" (default-action)"),
    }
    out.push(')');
}

fn dump_block(out: &mut String, block: &Block) {
    out.push_str("(block");
    for statement in &block.statements {
        out.push(' ');
        dump_statement(out, statement);
    }
    out.push(')');
}

fn dump_statement(out: &mut String, statement: &Statement) {
    match statement {
        Statement::Expression(expr) => dump_expr(out, expr),
        Statement::If {
            condition,
            then_branch,
            else_branch,
            ..
        } => {
            out.push_str("(if ");
            dump_expr(out, condition);
            out.push(' ');
            dump_statement(out, then_branch);
            if let Some(else_branch) = else_branch {
                out.push_str(" (else ");
                dump_statement(out, else_branch);
                out.push(')');
            }
            out.push(')');
        }
        Statement::Block(block) => dump_block(out, block),
        Statement::Empty(_) => out.push_str("(empty)"),
    }
}

fn dump_declaration(out: &mut String, declaration: &Declaration) {
    out.push_str("(declaration ");
    dump_specifiers(out, &declaration.specifiers);
    for declarator in &declaration.declarators {
        out.push(' ');
        dump_declarator(out, declarator);
    }
    out.push(')');
}

fn dump_specifiers(out: &mut String, specifiers: &DeclarationSpecifiers) {
    let mut words = Vec::new();
    for (class, _) in &specifiers.storage {
        words.push(
            match class {
                StorageClass::Extern => "extern",
                StorageClass::Static => "static",
                StorageClass::Auto => "auto",
                StorageClass::Register => "register",
                StorageClass::Typedef => "typedef",
                StorageClass::SelfScope => "self",
                StorageClass::ThisScope => "this",
            }
            .to_string(),
        );
    }
    for qualifier in &specifiers.qualifiers {
        words.push(qualifier_text(*qualifier).to_string());
    }
    for (specifier, _) in &specifiers.types {
        let mut word = String::new();
        dump_type_specifier(&mut word, specifier);
        words.push(word);
    }
    let _ = write!(out, "({})", words.join(" "));
}

fn qualifier_text(qualifier: TypeQualifier) -> &'static str {
    match qualifier {
        TypeQualifier::Const => "const",
        TypeQualifier::Volatile => "volatile",
        TypeQualifier::Restrict => "restrict",
    }
}

fn dump_type_specifier(out: &mut String, specifier: &TypeSpecifier) {
    match specifier {
        TypeSpecifier::Void => out.push_str("void"),
        TypeSpecifier::Char => out.push_str("char"),
        TypeSpecifier::Short => out.push_str("short"),
        TypeSpecifier::Int => out.push_str("int"),
        TypeSpecifier::Long => out.push_str("long"),
        TypeSpecifier::Float => out.push_str("float"),
        TypeSpecifier::Double => out.push_str("double"),
        TypeSpecifier::Signed => out.push_str("signed"),
        TypeSpecifier::Unsigned => out.push_str("unsigned"),
        TypeSpecifier::Bool => out.push_str("_Bool"),
        TypeSpecifier::String => out.push_str("string"),
        TypeSpecifier::TypedefName(name) => out.push_str(name),
        TypeSpecifier::StructOrUnion(specifier) => dump_struct_or_union(out, specifier),
        TypeSpecifier::Enum(specifier) => dump_enum(out, specifier),
    }
}

fn dump_struct_or_union(out: &mut String, specifier: &StructOrUnionSpecifier) {
    out.push('(');
    out.push_str(match specifier.kind {
        Aggregate::Struct => "struct",
        Aggregate::Union => "union",
    });
    if let Some(tag) = &specifier.tag {
        let _ = write!(out, " {tag}");
    }
    if let Some(members) = &specifier.members {
        out.push_str(" (members");
        for member in members {
            out.push_str(" (");
            dump_specifiers(out, &member.specifiers);
            for (declarator, width) in &member.declarators {
                out.push(' ');
                dump_declarator(out, declarator);
                if let Some(width) = width {
                    out.push_str(" (bits ");
                    dump_expr(out, width);
                    out.push(')');
                }
            }
            out.push(')');
        }
        out.push(')');
    }
    out.push(')');
}

fn dump_enum(out: &mut String, specifier: &EnumSpecifier) {
    out.push_str("(enum");
    if let Some(tag) = &specifier.tag {
        let _ = write!(out, " {tag}");
    }
    if let Some(enumerators) = &specifier.enumerators {
        out.push_str(" (enumerators");
        for (name, value, _) in enumerators {
            match value {
                Some(value) => {
                    let _ = write!(out, " ({name} ");
                    dump_expr(out, value);
                    out.push(')');
                }
                None => {
                    let _ = write!(out, " {name}");
                }
            }
        }
        out.push(')');
    }
    out.push(')');
}

/// `(declarator NAME DERIVATION...)`, derivations from the name outwards; `_` for an
/// abstract declarator.
fn dump_declarator(out: &mut String, declarator: &Declarator) {
    let name = declarator
        .name
        .as_ref()
        .map_or("_", |(name, _)| name.as_str());
    let _ = write!(out, "(declarator {name}");
    dump_derivations(out, &declarator.derivations);
    out.push(')');
}

fn dump_derivations(out: &mut String, derivations: &[Derivation]) {
    for derivation in derivations {
        out.push(' ');
        match derivation {
            Derivation::Pointer { qualifiers } => {
                out.push_str("(pointer");
                for qualifier in qualifiers {
                    let _ = write!(out, " {}", qualifier_text(*qualifier));
                }
                out.push(')');
            }
            Derivation::Array(ArrayDimension::Unspecified) => out.push_str("(array)"),
            Derivation::Array(ArrayDimension::Size(size)) => {
                out.push_str("(array ");
                dump_expr(out, size);
                out.push(')');
            }
            Derivation::Array(ArrayDimension::Keys(keys)) => {
                out.push_str("(keys");
                for key in keys {
                    out.push(' ');
                    dump_type(out, key);
                }
                out.push(')');
            }
            Derivation::Function {
                parameters,
                varargs,
            } => {
                out.push_str("(function");
                for parameter in parameters {
                    out.push(' ');
                    dump_type(out, parameter);
                }
                if *varargs {
                    out.push_str(" ...");
                }
                out.push(')');
            }
        }
    }
}

/// `(type SPECIFIERS [name] DERIVATION...)`.
fn dump_type(out: &mut String, ty: &TypeName) {
    out.push_str("(type ");
    dump_specifiers(out, &ty.specifiers);
    if let Some((name, _)) = &ty.declarator.name {
        let _ = write!(out, " {name}");
    }
    dump_derivations(out, &ty.declarator.derivations);
    out.push(')');
}

fn dump_expr(out: &mut String, expr: &Expr) {
    match &expr.kind {
        ExprKind::Integer {
            value,
            base,
            suffix,
            ..
        } => {
            let base = match base {
                IntegerBase::Decimal => "",
                IntegerBase::Octal => " octal",
                IntegerBase::Hexadecimal => " hex",
                IntegerBase::Character => " char",
            };
            let unsigned = if suffix.unsigned { " u" } else { "" };
            let long = ["", " l", " ll"]
                .get(usize::from(suffix.long))
                .copied()
                .unwrap_or("");
            if base.is_empty() && unsigned.is_empty() && long.is_empty() {
                let _ = write!(out, "{value}");
            } else {
                let _ = write!(out, "(int {value}{base}{unsigned}{long})");
            }
        }
        ExprKind::String(bytes) => {
            out.push('"');
            for &byte in bytes {
                match byte {
                    b'"' => out.push_str("\\\""),
                    b'\\' => out.push_str("\\\\"),
                    b'\n' => out.push_str("\\n"),
                    b'\t' => out.push_str("\\t"),
                    0x20..=0x7e => out.push(char::from(byte)),
                    _ => {
                        let _ = write!(out, "\\x{byte:02x}");
                    }
                }
            }
            out.push('"');
        }
        ExprKind::Identifier(name) => out.push_str(name),
        ExprKind::ScopedIdentifier { module, name } => {
            let _ = write!(out, "{module}`{name}");
        }
        ExprKind::Macro(variable) => {
            let _ = match variable {
                MacroVariable::Argument { written, .. }
                | MacroVariable::ArgumentString { written, .. } => write!(out, "{written}"),
                MacroVariable::Named(name) => write!(out, "${name}"),
                MacroVariable::NamedString(name) => write!(out, "$${name}"),
            };
        }
        ExprKind::ThreadLocal(name) => {
            let _ = write!(out, "self->{name}");
        }
        ExprKind::ClauseLocal(name) => {
            let _ = write!(out, "this->{name}");
        }
        ExprKind::Aggregation(name) => {
            let _ = write!(out, "@{name}");
        }
        ExprKind::Unary { operator, operand } => {
            let operator = match operator {
                UnaryOperator::Negate => "-",
                UnaryOperator::Plus => "+",
                UnaryOperator::BitwiseNot => "~",
                UnaryOperator::LogicalNot => "!",
                UnaryOperator::Dereference => "*",
                UnaryOperator::AddressOf => "&",
                UnaryOperator::PreIncrement => "pre++",
                UnaryOperator::PreDecrement => "pre--",
                UnaryOperator::PostIncrement => "post++",
                UnaryOperator::PostDecrement => "post--",
            };
            let _ = write!(out, "({operator} ");
            dump_expr(out, operand);
            out.push(')');
        }
        ExprKind::Binary {
            operator,
            left,
            right,
        } => dump_operation(out, operator.symbol(), &[left, right]),
        ExprKind::Assign {
            operator,
            target,
            value,
        } => {
            let symbol = match operator {
                AssignmentOperator::Assign => "=".to_string(),
                AssignmentOperator::Compound(operator) => format!("{}=", operator.symbol()),
            };
            dump_operation(out, &symbol, &[target, value]);
        }
        ExprKind::Conditional {
            condition,
            then_value,
            else_value,
        } => dump_operation(out, "?", &[condition, then_value, else_value]),
        ExprKind::Cast { ty, operand } => {
            out.push_str("(cast ");
            dump_type(out, ty);
            out.push(' ');
            dump_expr(out, operand);
            out.push(')');
        }
        ExprKind::SizeofExpr(operand) => dump_operation(out, "sizeof", &[operand]),
        ExprKind::SizeofType(ty) => {
            out.push_str("(sizeof ");
            dump_type(out, ty);
            out.push(')');
        }
        ExprKind::Stringof(operand) => dump_operation(out, "stringof", &[operand]),
        ExprKind::Offsetof { ty, member } => {
            out.push_str("(offsetof ");
            dump_type(out, ty);
            let _ = write!(out, " {member})");
        }
        ExprKind::Xlate { ty, operand } => {
            out.push_str("(xlate ");
            dump_type(out, ty);
            out.push(' ');
            dump_expr(out, operand);
            out.push(')');
        }
        ExprKind::Call { callee, arguments } => {
            out.push_str("(call ");
            dump_expr(out, callee);
            for argument in arguments {
                out.push(' ');
                dump_expr(out, argument);
            }
            out.push(')');
        }
        ExprKind::Index { base, keys } => {
            out.push_str("(index ");
            dump_expr(out, base);
            for key in keys {
                out.push(' ');
                dump_expr(out, key);
            }
            out.push(')');
        }
        ExprKind::Member { base, member } => {
            out.push_str("(. ");
            dump_expr(out, base);
            let _ = write!(out, " {member})");
        }
        ExprKind::PointerMember { base, member } => {
            out.push_str("(-> ");
            dump_expr(out, base);
            let _ = write!(out, " {member})");
        }
    }
}

fn dump_operation(out: &mut String, operator: &str, operands: &[&Expr]) {
    let _ = write!(out, "({operator}");
    for operand in operands {
        out.push(' ');
        dump_expr(out, operand);
    }
    out.push(')');
}
