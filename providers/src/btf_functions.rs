//! Just enough BTF (the kernel's BPF Type Format, `/sys/kernel/btf/vmlinux`) to list the
//! kernel's functions and name their argument types for fbt probes.
//!
//! The parser walks the type section once, keeping for every type its kind, name and
//! referenced type; it does not interpret struct layouts.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use crate::error::ProviderError;

/// The default place of the kernel's BTF.
pub const VMLINUX_BTF_PATH: &str = "/sys/kernel/btf/vmlinux";

const BTF_MAGIC: u16 = 0xeb9f;

/// BTF type kinds this module distinguishes.
const KIND_INT: u32 = 1;
const KIND_PTR: u32 = 2;
const KIND_ARRAY: u32 = 3;
const KIND_STRUCT: u32 = 4;
const KIND_UNION: u32 = 5;
const KIND_ENUM: u32 = 6;
const KIND_FWD: u32 = 7;
const KIND_TYPEDEF: u32 = 8;
const KIND_VOLATILE: u32 = 9;
const KIND_CONST: u32 = 10;
const KIND_RESTRICT: u32 = 11;
const KIND_FUNC: u32 = 12;
const KIND_FUNC_PROTO: u32 = 13;
const KIND_VAR: u32 = 14;
const KIND_DATASEC: u32 = 15;
const KIND_FLOAT: u32 = 16;
const KIND_DECL_TAG: u32 = 17;
const KIND_TYPE_TAG: u32 = 18;
const KIND_ENUM64: u32 = 19;

/// How deep type-name rendering follows references before giving up (malformed BTF
/// could contain a cycle of qualifiers).
const MAXIMUM_TYPE_DEPTH: u32 = 32;

/// One BTF type, reduced to what naming needs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BtfType {
    kind: u32,
    name: String,
    /// The referenced type (pointee, qualified type, return type, element type …).
    referenced: u32,
    /// `kind_flag` (for FWD: union rather than struct).
    kind_flag: bool,
    /// Array element count.
    element_count: u32,
    /// Parameter types of a FUNC_PROTO.
    parameters: Vec<u32>,
}

/// The functions of a BTF blob and their prototypes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BtfFunctions {
    /// `types[id]`; id 0 is `void`.
    types: Vec<BtfType>,
    /// Function name → FUNC_PROTO type id, for every FUNC.
    prototypes: HashMap<String, u32>,
    /// Function names in type order.
    names: Vec<String>,
}

impl BtfFunctions {
    /// Reads and parses the BTF file at `path`.
    pub fn read(path: &Path) -> Result<BtfFunctions, ProviderError> {
        let data = fs::read(path).map_err(|error| ProviderError::io(path, &error))?;
        BtfFunctions::parse(&data).map_err(|message| ProviderError::malformed(path, message))
    }

    /// Parses a BTF blob (little- or big-endian).
    pub fn parse(data: &[u8]) -> Result<BtfFunctions, String> {
        let little_endian = match data.get(..2) {
            Some(&[low, high]) if u16::from_le_bytes([low, high]) == BTF_MAGIC => true,
            Some(&[high, low]) if u16::from_be_bytes([high, low]) == BTF_MAGIC => false,
            _ => return Err("bad BTF magic".to_string()),
        };
        let reader = Reader {
            data,
            little_endian,
        };
        let header_length = reader.u32(4)? as usize;
        let (type_offset, type_length) = (reader.u32(8)? as usize, reader.u32(12)? as usize);
        let (string_offset, string_length) = (reader.u32(16)? as usize, reader.u32(20)? as usize);
        let strings = data
            .get(header_length + string_offset..header_length + string_offset + string_length)
            .ok_or("BTF string section out of bounds")?;
        let type_start = header_length + type_offset;
        let type_end = type_start + type_length;
        if type_end > data.len() {
            return Err("BTF type section out of bounds".to_string());
        }
        let name_at = |offset: u32| -> String {
            let tail = strings.get(offset as usize..).unwrap_or(&[]);
            let end = tail
                .iter()
                .position(|&byte| byte == 0)
                .unwrap_or(tail.len());
            String::from_utf8_lossy(&tail[..end]).into_owned()
        };
        let mut types = vec![BtfType {
            kind: 0,
            name: "void".to_string(),
            referenced: 0,
            kind_flag: false,
            element_count: 0,
            parameters: Vec::new(),
        }];
        let mut position = type_start;
        while position < type_end {
            let (name_offset, info, size_or_type) = (
                reader.u32(position)?,
                reader.u32(position + 4)?,
                reader.u32(position + 8)?,
            );
            position += 12;
            let kind = (info >> 24) & 0x1f;
            let vlen = (info & 0xffff) as usize;
            let mut btf_type = BtfType {
                kind,
                name: name_at(name_offset),
                referenced: size_or_type,
                kind_flag: info >> 31 == 1,
                element_count: 0,
                parameters: Vec::new(),
            };
            let trailing = match kind {
                KIND_INT | KIND_VAR | KIND_DECL_TAG => 4,
                KIND_PTR | KIND_FWD | KIND_TYPEDEF | KIND_VOLATILE | KIND_CONST | KIND_RESTRICT
                | KIND_FUNC | KIND_FLOAT | KIND_TYPE_TAG => 0,
                KIND_ARRAY => {
                    btf_type.referenced = reader.u32(position)?;
                    btf_type.element_count = reader.u32(position + 8)?;
                    12
                }
                KIND_STRUCT | KIND_UNION | KIND_DATASEC | KIND_ENUM64 => 12 * vlen,
                KIND_ENUM => 8 * vlen,
                KIND_FUNC_PROTO => {
                    for parameter in 0..vlen {
                        btf_type
                            .parameters
                            .push(reader.u32(position + parameter * 8 + 4)?);
                    }
                    8 * vlen
                }
                _ => return Err(format!("unknown BTF kind {kind}")),
            };
            position += trailing;
            types.push(btf_type);
        }
        let mut prototypes = HashMap::new();
        let mut names = Vec::new();
        for btf_type in types
            .iter()
            .filter(|btf_type| btf_type.kind == KIND_FUNC && !btf_type.name.is_empty())
        {
            if prototypes
                .insert(btf_type.name.clone(), btf_type.referenced)
                .is_none()
            {
                names.push(btf_type.name.clone());
            }
        }
        Ok(BtfFunctions {
            types,
            prototypes,
            names,
        })
    }

    /// Every function name, in type order.
    pub fn function_names(&self) -> &[String] {
        &self.names
    }

    /// The C types of `function`'s parameters, or None when BTF does not know it. A
    /// type that cannot be named is an empty string; a trailing `...` is left out.
    pub fn argument_types(&self, function: &str) -> Option<Vec<String>> {
        let prototype = self.types.get(*self.prototypes.get(function)? as usize)?;
        if prototype.kind != KIND_FUNC_PROTO {
            return None;
        }
        let mut parameters = prototype.parameters.as_slice();
        if parameters.last() == Some(&0) {
            parameters = &parameters[..parameters.len() - 1];
        }
        Some(
            parameters
                .iter()
                .map(|&id| self.type_name(id, 0).unwrap_or_default())
                .collect(),
        )
    }

    /// The C name of type `id` (`const char *`, `struct file *`, `u32 [4]`).
    fn type_name(&self, id: u32, depth: u32) -> Option<String> {
        if depth > MAXIMUM_TYPE_DEPTH {
            return None;
        }
        let btf_type = self.types.get(id as usize)?;
        let named = |prefix: &str| {
            (!btf_type.name.is_empty()).then(|| format!("{prefix}{}", btf_type.name))
        };
        match btf_type.kind {
            0 => Some("void".to_string()),
            KIND_INT | KIND_FLOAT | KIND_TYPEDEF => named(""),
            KIND_STRUCT => named("struct "),
            KIND_UNION => named("union "),
            KIND_ENUM | KIND_ENUM64 => named("enum "),
            KIND_FWD => named(if btf_type.kind_flag {
                "union "
            } else {
                "struct "
            }),
            KIND_PTR => {
                let pointee = self.types.get(btf_type.referenced as usize)?;
                if pointee.kind == KIND_FUNC_PROTO {
                    return Some("void *".to_string());
                }
                let target = self.type_name(btf_type.referenced, depth + 1)?;
                Some(if target.ends_with('*') {
                    format!("{target}*")
                } else {
                    format!("{target} *")
                })
            }
            KIND_CONST => Some(format!(
                "const {}",
                self.type_name(btf_type.referenced, depth + 1)?
            )),
            KIND_VOLATILE => Some(format!(
                "volatile {}",
                self.type_name(btf_type.referenced, depth + 1)?
            )),
            KIND_RESTRICT | KIND_TYPE_TAG => self.type_name(btf_type.referenced, depth + 1),
            KIND_ARRAY => Some(format!(
                "{} [{}]",
                self.type_name(btf_type.referenced, depth + 1)?,
                btf_type.element_count
            )),
            _ => None,
        }
    }
}

/// Bounds-checked integer reads in the blob's byte order.
struct Reader<'a> {
    data: &'a [u8],
    little_endian: bool,
}

impl Reader<'_> {
    fn u32(&self, offset: usize) -> Result<u32, String> {
        let bytes: [u8; 4] = self
            .data
            .get(offset..offset + 4)
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(|| format!("BTF truncated at offset {offset}"))?;
        Ok(if self.little_endian {
            u32::from_le_bytes(bytes)
        } else {
            u32::from_be_bytes(bytes)
        })
    }
}
