//! Output text that carries raw bytes: DTrace's output is bytes, not text, so a traced
//! byte such as 0xfb must reach the output as that byte, not as U+FFFD.
//!
//! The printers build a `String`, which can only hold UTF-8. Rather than carry byte
//! vectors through every printer, a byte that cannot be kept as it is (one that is not
//! part of a valid UTF-8 sequence, or one of a sequence that would decode into the
//! escape range itself) is held as one character of a private-use range, and
//! [`output_bytes`] turns those characters back into their bytes when the session writes
//! the text out. Valid UTF-8 stays readable in the `String`, and every byte counts as one
//! character of the escape range, so the round trip is exact for any input.

/// The first character of the escape range: byte `b` (0x80..=0xff) is held as
/// `ESCAPE_BASE + b`. The range lies in Supplementary Private Use Area-B, which no
/// program text uses.
const ESCAPE_BASE: u32 = 0x10_fe00;

/// Whether `character` is an escaped raw byte.
fn escaped_byte(character: char) -> Option<u8> {
    let code = character as u32;
    if (ESCAPE_BASE + 0x80..=ESCAPE_BASE + 0xff).contains(&code) {
        Some((code - ESCAPE_BASE) as u8)
    } else {
        None
    }
}

/// Appends `byte` escaped.
fn push_escaped(out: &mut String, byte: u8) {
    // The range is made of valid scalar values, so the conversion cannot fail.
    if let Some(character) = char::from_u32(ESCAPE_BASE + u32::from(byte)) {
        out.push(character);
    }
}

/// Appends `bytes` so that [`output_bytes`] gives them back exactly: valid UTF-8 as it
/// is, anything else byte by byte in the escape range.
pub fn push_bytes(out: &mut String, bytes: &[u8]) {
    for chunk in bytes.utf8_chunks() {
        for character in chunk.valid().chars() {
            if escaped_byte(character).is_some() {
                let mut buffer = [0u8; 4];
                for &byte in character.encode_utf8(&mut buffer).as_bytes() {
                    push_escaped(out, byte);
                }
            } else {
                out.push(character);
            }
        }
        for &byte in chunk.invalid() {
            push_escaped(out, byte);
        }
    }
}

/// The bytes `bytes` stands for, as a `String` [`push_bytes`] would build.
pub fn text_of_bytes(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    push_bytes(&mut text, bytes);
    text
}

/// The bytes to write for `text`: escaped bytes as themselves, everything else as UTF-8.
pub fn output_bytes(text: &str) -> std::borrow::Cow<'_, [u8]> {
    if !text
        .chars()
        .any(|character| escaped_byte(character).is_some())
    {
        return std::borrow::Cow::Borrowed(text.as_bytes());
    }
    let mut bytes = Vec::with_capacity(text.len());
    for character in text.chars() {
        match escaped_byte(character) {
            Some(byte) => bytes.push(byte),
            None => {
                let mut buffer = [0u8; 4];
                bytes.extend_from_slice(character.encode_utf8(&mut buffer).as_bytes());
            }
        }
    }
    std::borrow::Cow::Owned(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_round_trip() {
        let input = b"a\xfb|\xc3\xa9|\xf4\x8f\xba\x80|\xff\x80";
        let text = text_of_bytes(input);
        assert!(text.starts_with('a'));
        assert!(text.contains('\u{e9}'));
        assert_eq!(&*output_bytes(&text), &input[..]);
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            output_bytes("abc\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
