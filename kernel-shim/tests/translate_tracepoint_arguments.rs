//! A tracepoint program that reads every kind of field the sdt provider presents — an
//! integer, a `char [16]` array and a `__data_loc` string as `argN`, `args[]` past the
//! ten argument words, and a misaligned field of a packed record — translates and passes the kernel's verifier (which must
//! accept the trace entry's address turned into a plain number).

mod translate_common;

use difvm::object::ProbeDescription;
use dlang::compile::{compile, CompileOptions, ProgramSource};
use dlang::probes::{ListCatalog, ProbeInfo};
use kernel_shim::translate::{ContextKind, TracepointField, TracepointValue};
use translate_common::{bpf_available, load_kernel_with, options, PROBE};

/// Thirteen fields: a string array at 8, a `__data_loc` string at 24, then integers of
/// each size and sign, another `__data_loc` field, and a misaligned integer.
fn fields() -> Vec<TracepointField> {
    let integer = |offset: u16, size: u8, signed: bool| TracepointField {
        offset,
        value: TracepointValue::Integer { size, signed },
    };
    let mut fields = vec![
        TracepointField {
            offset: 8,
            value: TracepointValue::Address,
        },
        TracepointField {
            offset: 24,
            value: TracepointValue::DataLocation,
        },
    ];
    for (index, size) in [1u8, 2, 4, 8, 1, 2, 4, 8, 4].into_iter().enumerate() {
        fields.push(integer(32 + 8 * index as u16, size, index % 2 == 0));
    }
    fields.push(TracepointField {
        offset: 104,
        value: TracepointValue::DataLocation,
    });
    // A packed record's misaligned field, which the verifier does not let the program
    // read from `ctx` directly.
    fields.push(integer(109, 8, true));
    fields
}

fn types() -> Vec<String> {
    let mut types = vec!["char [16]".to_string(), "string".to_string()];
    types.extend(
        [
            "int8_t", "uint16_t", "int32_t", "uint64_t", "int8_t", "uint16_t", "int32_t",
            "uint64_t", "int32_t",
        ]
        .map(String::from),
    );
    types.push("string".to_string());
    types.push("int64_t".to_string());
    types
}

#[test]
fn every_kind_of_tracepoint_field_passes_the_verifier() {
    if !bpf_available("every_kind_of_tracepoint_field_passes_the_verifier") {
        return;
    }
    let catalog = ListCatalog::with_dtrace_provider(vec![ProbeInfo {
        id: PROBE,
        description: ProbeDescription {
            provider: "test".into(),
            module: "mod".into(),
            function: "func".into(),
            name: "fire".into(),
        },
        argument_types: types(),
        derivation: None,
    }]);
    let text = r#"test:::fire /args[0] != "x"/ {
        trace(stringof(args[0])); trace(args[1]); trace(arg0); trace(arg1); trace(arg2);
        trace(args[9]); trace(args[10]); trace(args[11]); @[args[11]] = count();
        trace(args[12]); trace(arg9);
    }"#;
    let compile_options = CompileOptions {
        default_error_handler: true,
        ..CompileOptions::default()
    };
    let program = compile(
        &[ProgramSource::script("test.d", text)],
        &compile_options,
        &catalog,
    )
    .unwrap_or_else(|error| panic!("{:?}", error.diagnostic))
    .program;
    load_kernel_with(
        &program,
        &options(),
        &ContextKind::Tracepoint { fields: fields() },
    );
}
