//! `print()`'s structural layout (D-REFERENCE.md §7.1, DTrace for Linux's form): the
//! recorded bytes of a value laid out by the description of its type that the compiled
//! program carries ([`PrintedType`]), with no access to the compiler's type table.
//!
//! A scalar prints as `(type)value`. A struct or union prints as `(struct name) {`, one
//! `.member = (type)value,` line per member (nested structs and unions, and arrays,
//! opened the same way one space further in), and `}`; an array as `(type [n]) [`, one
//! `(type)value,` line per element, and `]`. Integers print in decimal with their
//! signedness, bit-fields as integers of their declared type, enums by enumerator name
//! when one has the value, pointers as `(type *)0x…`, and char arrays (and `string`s)
//! that hold printable text as `(char [n])"text"`. A member whose bytes lie beyond the
//! recorded bytes (the `printsize` limit) prints as `...` and ends the layout, after
//! which the open braces are closed.

use difvm::printed_type::{PrintedMember, PrintedShape, PrintedType, PrintedTypeEntry};

use crate::render::bytes::is_printable;

/// Appends the layout of the value whose recorded bytes are `bytes` (at most `limit` of
/// them are shown) to `out`, each line ending with a newline.
pub fn render_print_layout(
    out: &mut String,
    printed_type: &PrintedType,
    bytes: &[u8],
    limit: usize,
) {
    let shown = &bytes[..bytes.len().min(limit)];
    let mut writer = LayoutWriter {
        out,
        printed_type,
        bytes: shown,
        truncated: false,
    };
    writer.value(0, None, 0, 0, None);
}

/// Where a line is being written and whether the bytes have already run out.
struct LayoutWriter<'o, 't> {
    out: &'o mut String,
    printed_type: &'t PrintedType,
    bytes: &'t [u8],
    /// Set once a value did not fit in the shown bytes: nothing more is printed but the
    /// closing braces.
    truncated: bool,
}

/// The text that ends a member or element line; the outermost value has no comma.
fn separator(depth: usize) -> &'static str {
    if depth == 0 {
        "\n"
    } else {
        ",\n"
    }
}

impl LayoutWriter<'_, '_> {
    /// One value at `depth` (one space of indentation per level): `label` is the member
    /// name, `bit_offset` is from the start of the recorded bytes, `bit_width` is set
    /// for a bit-field.
    fn value(
        &mut self,
        depth: usize,
        label: Option<&str>,
        index: u32,
        bit_offset: u64,
        bit_width: Option<u32>,
    ) {
        let Some(entry) = self.printed_type.entry(index) else {
            return;
        };
        let end_bit = match bit_width {
            Some(width) => bit_offset.saturating_add(u64::from(width)),
            None => bit_offset.saturating_add(entry.size.saturating_mul(8)),
        };
        // A string's record holds its bytes up to the NUL, so it always fits.
        let fits =
            entry.shape == PrintedShape::String || end_bit.div_ceil(8) <= self.bytes.len() as u64;
        let opens_block = matches!(
            entry.shape,
            PrintedShape::Struct { .. } | PrintedShape::Union { .. } | PrintedShape::Array { .. }
        ) && bit_width.is_none()
            && !self.is_text(entry, bit_offset);
        // A struct, union or array whose start was recorded opens, and shows the part
        // of it that fits; anything else must fit whole.
        let started = opens_block && bit_offset / 8 < self.bytes.len() as u64;
        if !(fits || started) {
            self.truncated = true;
            self.indent(depth);
            self.out.push_str("...\n");
            return;
        }
        self.indent(depth);
        if let Some(name) = label.filter(|name| !name.is_empty()) {
            self.out.push('.');
            self.out.push_str(name);
            self.out.push_str(" = ");
        }
        self.out.push('(');
        self.out.push_str(&entry.name);
        self.out.push(')');
        match &entry.shape {
            PrintedShape::Struct { members } | PrintedShape::Union { members } if opens_block => {
                self.out.push_str(" {\n");
                self.members(depth + 1, members, bit_offset);
                self.indent(depth);
                self.out.push('}');
            }
            PrintedShape::Array { element, count } if opens_block => {
                self.out.push_str(" [\n");
                self.elements(depth + 1, *element, *count, bit_offset);
                self.indent(depth);
                self.out.push(']');
            }
            _ => self.scalar_text(entry, bit_offset, bit_width),
        }
        self.out.push_str(separator(depth));
    }

    fn members(&mut self, depth: usize, members: &[PrintedMember], base_bits: u64) {
        for member in members {
            if self.truncated {
                return;
            }
            self.value(
                depth,
                Some(&member.name),
                member.ty,
                base_bits.saturating_add(member.bit_offset),
                member.bit_width,
            );
        }
    }

    fn elements(&mut self, depth: usize, element: u32, count: u64, base_bits: u64) {
        let element_bits = self
            .printed_type
            .entry(element)
            .map_or(0, |entry| entry.size.saturating_mul(8));
        for position in 0..count {
            if self.truncated {
                return;
            }
            let offset = base_bits.saturating_add(position.saturating_mul(element_bits));
            self.value(depth, None, element, offset, None);
        }
    }

    fn indent(&mut self, depth: usize) {
        self.out.extend(std::iter::repeat_n(' ', depth));
    }

    /// The recorded bytes of a value that is not a bit-field: `size` bytes at
    /// `bit_offset / 8`, or fewer where the recorded bytes end.
    fn bytes_at(&self, bit_offset: u64, size: u64) -> &[u8] {
        let start = ((bit_offset / 8) as usize).min(self.bytes.len());
        let end = start
            .saturating_add(size.min(usize::MAX as u64) as usize)
            .min(self.bytes.len());
        &self.bytes[start..end]
    }

    /// Whether `entry` is a char array holding printable text, which prints as a string.
    fn is_text(&self, entry: &PrintedTypeEntry, bit_offset: u64) -> bool {
        let PrintedShape::Array { element, .. } = entry.shape else {
            return false;
        };
        let character = matches!(
            self.printed_type
                .entry(element)
                .map(|element| &element.shape),
            Some(PrintedShape::Integer {
                character: true,
                ..
            })
        );
        character && printable_text(self.bytes_at(bit_offset, entry.size)).is_some()
    }

    /// The value part of a line for everything but an opened struct, union or array.
    fn scalar_text(&mut self, entry: &PrintedTypeEntry, bit_offset: u64, bit_width: Option<u32>) {
        let text = match &entry.shape {
            PrintedShape::Integer { signed, .. } => {
                integer_text(self.integer_bits(entry, bit_offset, bit_width), *signed)
            }
            PrintedShape::Enum { enumerators } => {
                let bits = self.integer_bits(entry, bit_offset, bit_width);
                enum_text(enumerators, bits)
            }
            PrintedShape::Pointer => {
                let bits = self.integer_bits(entry, bit_offset, None);
                format!("0x{:x}", bits.bits)
            }
            PrintedShape::Float => float_text(self.bytes_at(bit_offset, entry.size)),
            PrintedShape::String | PrintedShape::Array { .. } => {
                let bytes = self.bytes_at(bit_offset, entry.size);
                let text = printable_text(bytes).unwrap_or_default();
                format!("\"{}\"", crate::render::raw_text::text_of_bytes(text))
            }
            PrintedShape::Struct { .. } | PrintedShape::Union { .. } | PrintedShape::Opaque => {
                String::new()
            }
        };
        self.out.push_str(&text);
    }

    /// The integer at `bit_offset`: the whole `entry.size` bytes, or `bit_width` bits of
    /// a bit-field.
    fn integer_bits(
        &self,
        entry: &PrintedTypeEntry,
        bit_offset: u64,
        bit_width: Option<u32>,
    ) -> IntegerBits {
        let width = match bit_width {
            Some(width) => u64::from(width).min(128),
            None => entry.size.saturating_mul(8).min(128),
        };
        let shift = bit_offset % 8;
        let bytes = self.bytes_at(bit_offset, (shift + width).div_ceil(8));
        let mut value: u128 = 0;
        for (position, byte) in bytes.iter().take(16).enumerate() {
            value |= u128::from(*byte) << (8 * position);
        }
        value >>= shift;
        if width < 128 {
            value &= (1u128 << width) - 1;
        }
        IntegerBits {
            bits: value,
            width: width as u32,
        }
    }
}

/// An integer read from the recorded bytes: its `width` low bits, zero-extended.
#[derive(Debug, Clone, Copy)]
struct IntegerBits {
    bits: u128,
    width: u32,
}

impl IntegerBits {
    /// The value sign-extended from its width.
    fn signed(self) -> i128 {
        if self.width == 0 || self.width >= 128 {
            return self.bits as i128;
        }
        let unused = 128 - self.width;
        ((self.bits << unused) as i128) >> unused
    }
}

fn integer_text(bits: IntegerBits, signed: bool) -> String {
    if signed {
        bits.signed().to_string()
    } else {
        bits.bits.to_string()
    }
}

/// The enumerator whose value the bits hold (compared at the enum's width), else the
/// value as a signed number.
fn enum_text(enumerators: &[(String, i64)], bits: IntegerBits) -> String {
    let mask = if bits.width >= 128 {
        u128::MAX
    } else {
        (1u128 << bits.width) - 1
    };
    enumerators
        .iter()
        .find(|(_, value)| (*value as i128 as u128) & mask == bits.bits)
        .map_or_else(|| bits.signed().to_string(), |(name, _)| name.clone())
}

/// `float` and `double` as Rust prints them; other sizes as their bytes in hex.
fn float_text(bytes: &[u8]) -> String {
    match bytes.len() {
        4 => f32::from_le_bytes(bytes.try_into().expect("4 bytes")).to_string(),
        8 => f64::from_le_bytes(bytes.try_into().expect("8 bytes")).to_string(),
        _ => {
            let digits: String = bytes
                .iter()
                .rev()
                .map(|byte| format!("{byte:02x}"))
                .collect();
            format!("0x{digits}")
        }
    }
}

/// The text before the first NUL of `bytes` when it is all printable (the whole of
/// `bytes` when there is no NUL).
fn printable_text(bytes: &[u8]) -> Option<&[u8]> {
    let end = bytes
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(bytes.len());
    let text = &bytes[..end];
    text.iter().all(|&byte| is_printable(byte)).then_some(text)
}
