//! What the runtime-session tests share to run real D programs: compiling a program
//! against the dtrace provider and getppid's syscall probes, enabling it as dtrace(1)
//! does, and the probe plans and options of the sessions that run it.

use difvm::engine::BufferPolicy;
use difvm::object::{CompiledProgram, EnabledProbe, ProbeDescription};
use difvm::verify::{verify_program, VerifiedProgram};
use dlang::compile::{compile, CompileOptions, ProgramSource};
use dlang::probes::{ListCatalog, ProbeCatalog, ProbeInfo};
use kernel_shim::map_layout::LayoutOptions;
use kernel_shim::runtime::{Marker, ProbeInstrumentation, ProbePlan, RuntimeOptions};

/// The probe id of `syscall::getppid:entry` in these tests' catalogs.
pub const GETPPID_ENTRY: u32 = 500;
/// The probe id of `syscall::getppid:return` in these tests' catalogs.
pub const GETPPID_RETURN: u32 = 501;

/// The probe id and name of getppid's syscall entry or return probe.
fn getppid_probe_id_and_name(is_return: bool) -> (u32, &'static str) {
    if is_return {
        (GETPPID_RETURN, "return")
    } else {
        (GETPPID_ENTRY, "entry")
    }
}

/// The catalog entry of getppid's syscall entry ([`GETPPID_ENTRY`]) or return
/// ([`GETPPID_RETURN`]) probe.
pub fn getppid_probe(is_return: bool) -> ProbeInfo {
    let (id, name) = getppid_probe_id_and_name(is_return);
    ProbeInfo {
        id,
        description: ProbeDescription {
            provider: "syscall".into(),
            module: String::new(),
            function: "getppid".into(),
            name: name.into(),
        },
        argument_types: Vec::new(),
        derivation: None,
    }
}

/// Compiles `text` against the dtrace provider and `probes`, with a default ERROR handler
/// as dtrace(1) has, and enables it as dtrace(1) does: statement order, then probe id
/// order.
pub fn compile_d(text: &str, probes: Vec<ProbeInfo>) -> (VerifiedProgram, Vec<EnabledProbe>) {
    let catalog = ListCatalog::with_dtrace_provider(probes);
    let options = CompileOptions {
        default_error_handler: true,
        ..CompileOptions::default()
    };
    let program: CompiledProgram =
        compile(&[ProgramSource::script("test.d", text)], &options, &catalog)
            .unwrap_or_else(|error| panic!("{:?}\n{text}", error.diagnostic))
            .program;
    let enabled = difvm::engine::enable_statements(&program, |description| {
        catalog
            .matching(description)
            .into_iter()
            .map(|probe| (probe.id, probe.description))
            .collect()
    });
    (verify_program(&program).expect("verifies"), enabled)
}

/// The plan of the BEGIN or END marker, under the dtrace provider's probe id (1 or 2).
pub fn marker_plan(marker: Marker) -> ProbePlan {
    let (probe_id, name) = match marker {
        Marker::Begin => (1, "dtrace:::BEGIN"),
        Marker::End => (2, "dtrace:::END"),
    };
    ProbePlan {
        probe_id,
        name: name.to_string(),
        instrumentation: ProbeInstrumentation::Marker(marker),
        exit_recorders: Vec::new(),
    }
}

/// The plan of getppid's syscall entry ([`GETPPID_ENTRY`]) or return
/// ([`GETPPID_RETURN`]) probe.
pub fn getppid_plan(is_return: bool) -> ProbePlan {
    let (probe_id, name) = getppid_probe_id_and_name(is_return);
    ProbePlan {
        probe_id,
        name: format!("syscall::getppid:{name}"),
        instrumentation: ProbeInstrumentation::Syscall {
            number: libc::SYS_getppid as u32,
            is_return,
        },
        exit_recorders: Vec::new(),
    }
}

/// The options of a session with a 4096-byte scratch area, `buffer_size` bytes of
/// principal buffer per CPU under `buffer_policy`, and no verifier logs kept.
pub fn session_options(buffer_size: u64, buffer_policy: BufferPolicy) -> RuntimeOptions {
    RuntimeOptions {
        layout: LayoutOptions {
            scratch_size: 4096,
            ..LayoutOptions::default()
        },
        buffer_size,
        buffer_policy,
        keep_verifier_logs: false,
    }
}
