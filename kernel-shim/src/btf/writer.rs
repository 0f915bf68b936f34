//! Writing the BTF of a program's functions: one `long` integer type, one `void *`
//! pointer type, and for each function a FUNC_PROTO returning `long` with its parameters
//! and a static FUNC naming it. Loaded with `BPF_BTF_LOAD`, it is what the `func_info`
//! records of a program load point into.

use super::format::*;

/// Bytes of one `struct bpf_func_info` record (instruction offset, FUNC type id).
pub const FUNC_INFO_RECORD_SIZE: u32 = 8;

/// The type of one function parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterType {
    /// A 64-bit signed integer.
    Long,
    /// `void *`.
    Pointer,
}

/// A function returning `long`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionType {
    /// A C identifier.
    pub name: String,
    /// Parameter names (C identifiers) and types.
    pub parameters: Vec<(String, ParameterType)>,
}

/// A BTF blob and the FUNC type id of each function, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionBtf {
    pub blob: Vec<u8>,
    pub function_type_ids: Vec<u32>,
}

/// Type id of `long` in the blob.
const LONG_TYPE_ID: u32 = 1;
/// Type id of `void *` in the blob.
const POINTER_TYPE_ID: u32 = 2;

struct StringSection {
    bytes: Vec<u8>,
}

impl StringSection {
    fn add(&mut self, text: &str) -> u32 {
        let offset = self.bytes.len() as u32;
        self.bytes.extend_from_slice(text.as_bytes());
        self.bytes.push(0);
        offset
    }
}

fn push_u32(bytes: &mut Vec<u8>, value: u32) {
    bytes.extend_from_slice(&value.to_le_bytes());
}

fn push_type(types: &mut Vec<u8>, name_offset: u32, info: u32, size_or_type: u32) {
    push_u32(types, name_offset);
    push_u32(types, info);
    push_u32(types, size_or_type);
}

/// The BTF of `functions`.
pub fn function_btf(functions: &[FunctionType]) -> FunctionBtf {
    // The string section starts with the empty string, which anonymous types name.
    let mut strings = StringSection { bytes: vec![0] };
    let mut types = Vec::new();
    let long_name = strings.add("long");
    push_type(&mut types, long_name, info(KIND_INT, false, 0), 8);
    push_u32(&mut types, INT_SIGNED << 24 | 64);
    push_type(&mut types, 0, info(KIND_PTR, false, 0), 0);
    let mut next_id = POINTER_TYPE_ID + 1;
    let mut function_type_ids = Vec::new();
    for function in functions {
        let prototype_id = next_id;
        push_type(
            &mut types,
            0,
            info(KIND_FUNC_PROTO, false, function.parameters.len() as u32),
            LONG_TYPE_ID,
        );
        for (name, parameter_type) in &function.parameters {
            push_u32(&mut types, strings.add(name));
            push_u32(
                &mut types,
                match parameter_type {
                    ParameterType::Long => LONG_TYPE_ID,
                    ParameterType::Pointer => POINTER_TYPE_ID,
                },
            );
        }
        let name = strings.add(&function.name);
        push_type(
            &mut types,
            name,
            info(KIND_FUNC, false, FUNC_STATIC),
            prototype_id,
        );
        function_type_ids.push(prototype_id + 1);
        next_id += 2;
    }
    let mut blob = Vec::new();
    blob.extend_from_slice(&MAGIC.to_le_bytes());
    blob.push(VERSION);
    blob.push(0);
    push_u32(&mut blob, HEADER_SIZE);
    push_u32(&mut blob, 0);
    push_u32(&mut blob, types.len() as u32);
    push_u32(&mut blob, types.len() as u32);
    push_u32(&mut blob, strings.bytes.len() as u32);
    blob.extend_from_slice(&types);
    blob.extend_from_slice(&strings.bytes);
    FunctionBtf {
        blob,
        function_type_ids,
    }
}

/// `struct bpf_func_info` records for (first instruction, FUNC type id) pairs, in the
/// order the kernel wants them (by instruction, the program's entry first).
pub fn encode_func_info(functions: &[(u32, u32)]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(functions.len() * FUNC_INFO_RECORD_SIZE as usize);
    for &(instruction, type_id) in functions {
        push_u32(&mut bytes, instruction);
        push_u32(&mut bytes, type_id);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::btf::Btf;

    #[test]
    fn written_btf_reads_back() {
        let functions = [
            FunctionType {
                name: "dtrace_probe".into(),
                parameters: vec![("context".into(), ParameterType::Pointer)],
            },
            FunctionType {
                name: "dtrace_loop_0".into(),
                parameters: vec![
                    ("index".into(), ParameterType::Long),
                    ("context".into(), ParameterType::Pointer),
                ],
            },
        ];
        let written = function_btf(&functions);
        assert_eq!(written.function_type_ids, [4, 6]);
        let btf = Btf::parse(written.blob).expect("parses");
        assert_eq!(btf.type_count(), 6);
        assert_eq!(btf.type_name(1), "long");
        assert_eq!(btf.type_name(4), "dtrace_probe");
        assert_eq!(btf.type_name(6), "dtrace_loop_0");
        assert_eq!(
            encode_func_info(&[(0, 4), (17, 6)]),
            [0, 0, 0, 0, 4, 0, 0, 0, 17, 0, 0, 0, 6, 0, 0, 0]
        );
    }
}
