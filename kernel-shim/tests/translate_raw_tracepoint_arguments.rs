//! A raw tracepoint's `args[]` past the ten argument words: a program reading the
//! eleventh and twelfth arguments (the most a raw tracepoint passes) from `ctx` passes
//! the kernel's verifier and reads the values it is given.

mod translate_common;

use difvm::object::{ProbeDescription, RECORD_HEADER_SIZE};
use dlang::compile::{compile, CompileOptions, ProgramSource};
use dlang::probes::{ListCatalog, ProbeInfo};
use kernel_shim::sys::TestRunRequest;
use kernel_shim::translate::ContextKind;
use translate_common::{bpf_available, load_kernel_with, options, pin_to_cpu_zero, PROBE};

#[test]
fn twelve_raw_tracepoint_arguments_are_read() {
    if !bpf_available("twelve_raw_tracepoint_arguments_are_read") {
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
        argument_types: vec!["uint64_t".to_string(); 12],
        derivation: None,
    }]);
    let text = "test:::fire { trace(args[0]); trace(args[9]); trace(args[10]); trace(args[11]); \
                trace(arg9); }";
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
    let mut kernel = load_kernel_with(
        &program,
        &options(),
        &ContextKind::RawTracepoint {
            argument_count: 12,
            subject_task_argument: None,
        },
    );
    pin_to_cpu_zero();
    let mut context = [0u8; 96];
    for index in 0..12u64 {
        let at = index as usize * 8;
        context[at..at + 8].copy_from_slice(&(1000 + index).to_ne_bytes());
    }
    kernel
        .program
        .test_run(&TestRunRequest {
            context: &context,
            cpu: Some(0),
            ..TestRunRequest::default()
        })
        .expect("test run");
    let outcome = kernel.outcome(&program);
    let [record] = outcome.records.as_slice() else {
        panic!("one record: {:?}", outcome.records);
    };
    let values: Vec<u64> = record[RECORD_HEADER_SIZE as usize..]
        .chunks_exact(8)
        .map(|word| u64::from_ne_bytes(word.try_into().expect("a 64-bit word")))
        .collect();
    assert_eq!(values, [1000, 1009, 1010, 1011, 1009]);
}
