//! Type names as D prints them in messages: C declarator syntax with the abstract
//! declarator after the base type (`char *`, `int [10]`, `int (*)[10]`, `struct foo *`).

use super::table::{TypeId, TypeKind, TypeTable};

impl TypeTable {
    /// The printed name of `ty`, as D prints it (`int`, `char *`, `struct foo *`,
    /// `int [10]`, `string`).
    pub fn name(&self, ty: TypeId) -> String {
        type_name(self, ty)
    }
}

/// The printed name of `ty`.
pub(super) fn type_name(table: &TypeTable, ty: TypeId) -> String {
    declarator(table, ty, String::new(), 0)
}

/// Builds the name of `ty` wrapped around the already-built inner declarator text.
/// `depth` bounds recursion for pathological self-referencing typedef chains.
fn declarator(table: &TypeTable, ty: TypeId, inner: String, depth: u32) -> String {
    if depth > 64 {
        return join("?", &inner);
    }
    match table.kind(ty) {
        TypeKind::Pointer { target } => {
            let needs_parentheses = matches!(
                table.kind(*target),
                TypeKind::Array { .. } | TypeKind::Function { .. }
            );
            let inner = if needs_parentheses {
                format!("(*{inner})")
            } else {
                format!("*{inner}")
            };
            declarator(table, *target, inner, depth + 1)
        }
        TypeKind::Array { element, count } => {
            let suffix = if *count == 0 {
                "[]".to_string()
            } else {
                format!("[{count}]")
            };
            declarator(table, *element, format!("{inner}{suffix}"), depth + 1)
        }
        TypeKind::Function { return_type, .. } => {
            declarator(table, *return_type, format!("{inner}()"), depth + 1)
        }
        TypeKind::Qualified { target, qualifiers } => {
            let mut words = Vec::new();
            if qualifiers.constant {
                words.push("const");
            }
            if qualifiers.volatile {
                words.push("volatile");
            }
            if qualifiers.restrict {
                words.push("restrict");
            }
            let words = words.join(" ");
            if matches!(table.kind(*target), TypeKind::Pointer { .. }) {
                // `char *const`: the qualifier belongs to the pointer.
                let TypeKind::Pointer { target: pointee } = table.kind(*target) else {
                    return join(&words, &inner);
                };
                let inner = if inner.is_empty() {
                    format!("*{words}")
                } else {
                    format!("*{words} {inner}")
                };
                declarator(table, *pointee, inner, depth + 1)
            } else {
                let base = declarator(table, *target, String::new(), depth + 1);
                join(&format!("{words} {base}"), &inner)
            }
        }
        other => join(&base_name(other), &inner),
    }
}

fn join(base: &str, inner: &str) -> String {
    if inner.is_empty() {
        base.to_string()
    } else {
        format!("{base} {inner}")
    }
}

fn base_name(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Void => "void".to_string(),
        TypeKind::Integer { name, .. } | TypeKind::Float { name, .. } => name.clone(),
        TypeKind::Struct { tag, .. } => format!("struct {}", tag.as_deref().unwrap_or("(anon)")),
        TypeKind::Union { tag, .. } => format!("union {}", tag.as_deref().unwrap_or("(anon)")),
        TypeKind::Enum { tag, .. } => format!("enum {}", tag.as_deref().unwrap_or("(anon)")),
        TypeKind::Typedef { name, .. } => name.clone(),
        TypeKind::String => "string".to_string(),
        TypeKind::Stack => "stack".to_string(),
        TypeKind::SymbolAddress => "_symaddr".to_string(),
        TypeKind::UserSymbolAddress => "_usymaddr".to_string(),
        TypeKind::Dynamic => "<DYN>".to_string(),
        TypeKind::Pointer { .. }
        | TypeKind::Array { .. }
        | TypeKind::Function { .. }
        | TypeKind::Qualified { .. } => "?".to_string(),
    }
}
