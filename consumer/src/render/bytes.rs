//! Byte data as DTrace prints it: the printable test, data that looks like a string
//! printed as one, and the hex dump of everything else (`tracemem()`, `rawbytes`,
//! under which even strings are dumped whole).

use crate::render::c_format::{format_bytes_as_string, CFormatSpec};

/// DTrace's printable test for byte data: `isprint`, `isspace`, backspace or bell.
pub fn is_printable(byte: u8) -> bool {
    matches!(byte, 0x07..=0x0d | 0x20..=0x7e)
}

/// DTrace's `dt_print_bytes`: bytes that are printable characters followed only by NULs
/// print as a string (`"  %-Ns"`, or bare when quiet); printable bytes without a NUL
/// print as `"  %-Ns"` even when quiet; anything else (or `force_raw`, for `tracemem()`
/// and `rawbytes`) prints as a hex dump, 16 bytes per line.
pub fn render_bytes(out: &mut String, bytes: &[u8], width: usize, quiet: bool, force_raw: bool) {
    if bytes.is_empty() {
        return;
    }
    let spec = CFormatSpec {
        left_justify: true,
        width,
        ..CFormatSpec::default()
    };
    if !force_raw {
        match bytes.iter().position(|&byte| !is_printable(byte)) {
            None => {
                out.push_str("  ");
                format_bytes_as_string(out, &spec, bytes);
                return;
            }
            Some(end) if end > 0 && bytes[end] == 0 && bytes[end..].iter().all(|&b| b == 0) => {
                if quiet {
                    crate::render::raw_text::push_bytes(out, &bytes[..end]);
                } else {
                    out.push_str("  ");
                    format_bytes_as_string(out, &spec, &bytes[..end]);
                }
                return;
            }
            Some(_) => {}
        }
    }
    render_hex_dump(out, bytes);
}

/// A string under `rawbytes` (traced, or an aggregation key): DTrace dumps its whole
/// record, the string's `strsize` bytes, which are zero after the string's NUL (its
/// store copies NULs to the end of the record).
pub fn render_raw_string(out: &mut String, text: &[u8], record_size: usize) {
    let mut record = text.to_vec();
    record.resize(record_size.max(text.len()), 0);
    render_hex_dump(out, &record);
}

/// The hex dump: an empty line, the column header, then per 16 bytes the offset, the
/// bytes in hex and the bytes as characters (`.` outside `' '`..`'~'`).
pub fn render_hex_dump(out: &mut String, bytes: &[u8]) {
    out.push_str("\n           ");
    for digit in "0123456789abcdef".chars() {
        out.push_str("  ");
        out.push(digit);
    }
    out.push_str("  0123456789abcdef\n");
    for (line, chunk) in bytes.chunks(16).enumerate() {
        out.push_str(&format!("     {:>5x}:", line * 16));
        for byte in chunk {
            out.push_str(&format!(" {:02x}", byte));
        }
        for _ in chunk.len()..16 {
            out.push_str("   ");
        }
        out.push_str("  ");
        for &byte in chunk {
            out.push(if (b' '..=b'~').contains(&byte) {
                char::from(byte)
            } else {
                '.'
            });
        }
        out.push('\n');
    }
}
