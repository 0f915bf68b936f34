//! Writing the BTF of a program's functions: one `long` integer type, one `void *`
//! pointer type, and for each function a FUNC_PROTO returning `long` with its parameters
//! and a static or global FUNC naming it (a pointer to a memory area of known size, which
//! a global function's parameter must be, is a pointer to a byte array of that size).
//! Loaded with `BPF_BTF_LOAD`, it is what the `func_info` records of a program load point
//! into.

use super::builder::BtfBuilder;
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
    /// A pointer to this many bytes (`unsigned char (*)[N]`).
    Memory(u32),
}

/// A function returning `long`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionType {
    /// A C identifier.
    pub name: String,
    /// Parameter names (C identifiers) and types.
    pub parameters: Vec<(String, ParameterType)>,
    /// Whether the function is global: the kernel's verifier then checks it once, with
    /// its parameters as their types say, rather than once per call with the caller's
    /// values.
    pub global: bool,
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

/// The BTF of `functions`.
pub fn function_btf(functions: &[FunctionType]) -> FunctionBtf {
    let mut builder = BtfBuilder::new();
    builder.add_type("long", KIND_INT, false, 0, 8, &[INT_SIGNED << 24 | 64]);
    builder.add_type("", KIND_PTR, false, 0, 0, &[]);
    let mut function_type_ids = Vec::new();
    for function in functions {
        let mut parameters = Vec::with_capacity(2 * function.parameters.len());
        for (name, parameter_type) in &function.parameters {
            let type_id = match parameter_type {
                ParameterType::Long => LONG_TYPE_ID,
                ParameterType::Pointer => POINTER_TYPE_ID,
                ParameterType::Memory(bytes) => {
                    let byte = builder.add_type("unsigned char", KIND_INT, false, 0, 1, &[8]);
                    let array =
                        builder.add_type("", KIND_ARRAY, false, 0, 0, &[byte, byte, *bytes]);
                    builder.add_type("", KIND_PTR, false, 0, array, &[])
                }
            };
            parameters.push(builder.string(name));
            parameters.push(type_id);
        }
        let prototype_id = builder.add_type(
            "",
            KIND_FUNC_PROTO,
            false,
            function.parameters.len() as u32,
            LONG_TYPE_ID,
            &parameters,
        );
        function_type_ids.push(builder.add_type(
            &function.name,
            KIND_FUNC,
            false,
            if function.global {
                FUNC_GLOBAL
            } else {
                FUNC_STATIC
            },
            prototype_id,
            &[],
        ));
    }
    FunctionBtf {
        blob: builder.finish(),
        function_type_ids,
    }
}

/// `struct bpf_func_info` records for (first instruction, FUNC type id) pairs, in the
/// order the kernel wants them (by instruction, the program's entry first).
pub fn encode_func_info(functions: &[(u32, u32)]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(functions.len() * FUNC_INFO_RECORD_SIZE as usize);
    for &(instruction, type_id) in functions {
        bytes.extend_from_slice(&instruction.to_le_bytes());
        bytes.extend_from_slice(&type_id.to_le_bytes());
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
                global: false,
            },
            FunctionType {
                name: "dtrace_loop_0".into(),
                parameters: vec![
                    ("index".into(), ParameterType::Long),
                    ("context".into(), ParameterType::Pointer),
                ],
                global: false,
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
