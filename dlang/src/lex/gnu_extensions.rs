//! The GNU C extensions C headers use, which the lexer tolerates so that `-C` programs
//! can include system headers: `__attribute__((...))` and `__asm__("name")` are skipped
//! with their parenthesized arguments, `__extension__` and `_Noreturn` are skipped, and
//! the double-underscore spellings of C's qualifiers and `signed`/`inline` are those
//! keywords. None of them means anything to D; dropping them is what DTrace's
//! preprocessor set-up achieves (`-U__GNUC__` makes glibc's `<sys/cdefs.h>` define most
//! of them away; headers that use them unconditionally, such as gcc's `<stddef.h>`, are
//! covered here).

use super::token::Keyword;

/// What a GNU extension word at a token's start stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GnuExtension {
    /// The word is dropped.
    Ignored,
    /// The word and the parenthesized group after it (if any) are dropped.
    IgnoredWithArguments,
    /// The word is the keyword.
    Keyword(Keyword),
}

/// The GNU extension spelled by the word at the start of `text`, with the word's length.
pub(super) fn gnu_extension_at(text: &str) -> Option<(GnuExtension, usize)> {
    let length = text
        .bytes()
        .take_while(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
        .count();
    // A word followed by a scoping backquote or a probe description's colon is a
    // name of those, not an extension.
    if matches!(text.as_bytes().get(length), Some(b'`' | b':')) {
        return None;
    }
    let extension = match &text[..length] {
        "__extension__" | "_Noreturn" => GnuExtension::Ignored,
        "__attribute__" | "__attribute" | "__asm__" | "__asm" | "__declspec" => {
            GnuExtension::IgnoredWithArguments
        }
        "__restrict" | "__restrict__" => GnuExtension::Keyword(Keyword::Restrict),
        "__const" | "__const__" => GnuExtension::Keyword(Keyword::Const),
        "__volatile" | "__volatile__" => GnuExtension::Keyword(Keyword::Volatile),
        "__signed" | "__signed__" => GnuExtension::Keyword(Keyword::Signed),
        "__inline" | "__inline__" => GnuExtension::Keyword(Keyword::Inline),
        _ => return None,
    };
    Some((extension, length))
}

/// The offset just past the parenthesized group that starts at `offset` in `source`
/// after blanks (string and character literals may hold parentheses), or `offset`
/// itself when no `(` follows.
pub(super) fn skip_parenthesized(source: &str, offset: usize) -> usize {
    let bytes = source.as_bytes();
    let mut position = offset;
    while bytes
        .get(position)
        .is_some_and(|byte| byte.is_ascii_whitespace())
    {
        position += 1;
    }
    if bytes.get(position) != Some(&b'(') {
        return offset;
    }
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    while let Some(&byte) = bytes.get(position) {
        position += 1;
        match (quote, byte) {
            (Some(_), b'\\') => position += 1,
            (Some(open), _) if byte == open => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(byte),
            (None, b'(') => depth += 1,
            (None, b')') => {
                depth -= 1;
                if depth == 0 {
                    return position;
                }
            }
            (None, _) => {}
        }
    }
    // An unbalanced group runs to the end of the text, where the parser reports the
    // missing tokens.
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_arguments_are_skipped_whole() {
        let text = "__attribute__ ((__format__ (__printf__, 1, \")\"))) x";
        let (extension, length) = gnu_extension_at(text).unwrap();
        assert_eq!(extension, GnuExtension::IgnoredWithArguments);
        assert_eq!(&text[skip_parenthesized(text, length)..], " x");
    }

    #[test]
    fn scoped_and_longer_names_are_not_extensions() {
        assert_eq!(gnu_extension_at("__const`x"), None);
        assert_eq!(gnu_extension_at("__constant"), None);
        assert_eq!(
            gnu_extension_at("__restrict p"),
            Some((GnuExtension::Keyword(Keyword::Restrict), 10))
        );
    }
}
