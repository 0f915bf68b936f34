//! Building BTF blobs type by type: the string section, the type section and the header.
//! The writer builds a program's function types with it, and tests build the small
//! kernels (vmlinux and split module BTF) they read back.

use super::format::*;

/// A BTF blob under construction. Type ids are handed out in the order types are added,
/// starting after the base's types for split BTF.
#[derive(Debug, Clone)]
pub struct BtfBuilder {
    strings: Vec<u8>,
    types: Vec<u8>,
    next_id: u32,
    /// Bytes of the base's string section; this blob's string offsets continue from it.
    string_base: u32,
}

impl Default for BtfBuilder {
    fn default() -> BtfBuilder {
        BtfBuilder::new()
    }
}

impl BtfBuilder {
    /// An empty blob of base BTF (its first type is id 1).
    pub fn new() -> BtfBuilder {
        // The string section starts with the empty string, which anonymous types name.
        BtfBuilder {
            strings: vec![0],
            types: Vec::new(),
            next_id: 1,
            string_base: 0,
        }
    }

    /// An empty blob of split BTF on top of a base with `base_type_count` types and a
    /// string section of `base_string_length` bytes.
    pub fn split(base_type_count: u32, base_string_length: u32) -> BtfBuilder {
        BtfBuilder {
            strings: Vec::new(),
            types: Vec::new(),
            next_id: base_type_count + 1,
            string_base: base_string_length,
        }
    }

    /// The offset of `text` in the string section, adding it (`""` is offset 0 of base
    /// BTF, and of split BTF the base's empty string).
    pub fn string(&mut self, text: &str) -> u32 {
        if text.is_empty() {
            return 0;
        }
        let offset = self.string_base + self.strings.len() as u32;
        self.strings.extend_from_slice(text.as_bytes());
        self.strings.push(0);
        offset
    }

    /// Adds a type record (`name`, the `info` word of `kind`, `kind_flag` and `vlen`,
    /// the size-or-type word) followed by its kind's extra words, and returns its id.
    pub fn add_type(
        &mut self,
        name: &str,
        kind: u32,
        kind_flag: bool,
        vlen: u32,
        size_or_type: u32,
        extra: &[u32],
    ) -> u32 {
        let name_offset = self.string(name);
        for word in [name_offset, info(kind, kind_flag, vlen), size_or_type]
            .iter()
            .chain(extra)
        {
            self.types.extend_from_slice(&word.to_le_bytes());
        }
        self.next_id += 1;
        self.next_id - 1
    }

    /// The id the next type added will get.
    pub fn next_id(&self) -> u32 {
        self.next_id
    }

    /// The little-endian blob: header, type section, string section.
    pub fn finish(self) -> Vec<u8> {
        let mut blob =
            Vec::with_capacity(HEADER_SIZE as usize + self.types.len() + self.strings.len());
        blob.extend_from_slice(&MAGIC.to_le_bytes());
        blob.extend_from_slice(&[VERSION, 0]);
        for word in [
            HEADER_SIZE,
            0,
            self.types.len() as u32,
            self.types.len() as u32,
            self.strings.len() as u32,
        ] {
            blob.extend_from_slice(&word.to_le_bytes());
        }
        blob.extend_from_slice(&self.types);
        blob.extend_from_slice(&self.strings);
        blob
    }
}
