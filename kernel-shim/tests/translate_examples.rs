//! Every example D program, compiled and translated for each probe it enables, must be
//! accepted by the kernel's verifier: a program our verifier accepts that the kernel
//! rejects is a bug. Programs using what the kernel engine does not translate yet are
//! listed, not failed.

mod translate_common;

use std::cell::RefCell;
use std::collections::BTreeMap;

use difvm::object::{CompiledProgram, EnabledProbe, ProbeDescription, PROBE_ID_ERROR};
use difvm::verify::verify_program;
use dlang::compile::{compile, CompileOptions, ProgramSource};
use dlang::probes::{ProbeCatalog, ProbeInfo};
use kernel_shim::map_layout::{LayoutOptions, MapFds, ProgramLayout, TaskStructOffsets};
use kernel_shim::sys::bpf_map_create;
use kernel_shim::translate::{translate_probe, ContextKind};
use translate_common::bpf_available;

/// A catalog in which every description names one probe of its own.
#[derive(Default)]
struct EverythingCatalog {
    probes: RefCell<BTreeMap<String, u32>>,
}

impl ProbeCatalog for EverythingCatalog {
    fn matching(&self, description: &ProbeDescription) -> Vec<ProbeInfo> {
        let concrete = |field: &str| field.replace(['*', '?', '[', ']'], "x");
        let description = ProbeDescription {
            provider: concrete(&description.provider),
            module: concrete(&description.module),
            function: concrete(&description.function),
            name: concrete(&description.name),
        };
        let id = match (description.provider.as_str(), description.name.as_str()) {
            ("dtrace", "BEGIN") => 1,
            ("dtrace", "END") => 2,
            ("dtrace", "ERROR") => 3,
            _ => {
                let mut probes = self.probes.borrow_mut();
                let next = 100 + probes.len() as u32;
                *probes.entry(description.to_string()).or_insert(next)
            }
        };
        vec![ProbeInfo {
            id,
            description,
            argument_types: Vec::new(),
            derivation: None,
        }]
    }
}

fn enabled_probes(program: &CompiledProgram, catalog: &EverythingCatalog) -> Vec<EnabledProbe> {
    program
        .statements
        .iter()
        .enumerate()
        .map(|(index, statement)| {
            let probe = catalog.matching(&statement.probe).remove(0);
            EnabledProbe {
                epid: index as u32 + 1,
                probe_id: probe.id,
                probe: probe.description,
                statement: index,
            }
        })
        .collect()
}

/// Loads every probe's program of `program`; returns what could not be translated.
fn load_every_probe(
    name: &str,
    program: &CompiledProgram,
    catalog: &EverythingCatalog,
) -> Vec<String> {
    let verified = verify_program(program).expect("the compiler's output verifies");
    let strsize = program
        .options
        .iter()
        .find(|(option, _)| option == "strsize")
        .and_then(|(_, value)| value.as_deref()?.parse().ok())
        .unwrap_or(256);
    let options = LayoutOptions {
        strsize,
        cpu_count: kernel_shim::sys::possible_cpu_count().unwrap_or(1) as u32,
        task_offsets: Some(TaskStructOffsets::from_running_kernel().expect("task_struct offsets")),
        ..LayoutOptions::default()
    };
    let layout = ProgramLayout::for_program(&verified, &options)
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    let maps: Vec<_> = layout
        .map_specs()
        .into_iter()
        .map(|spec| {
            bpf_map_create(
                spec.map_type,
                spec.key_size,
                spec.value_size,
                spec.max_entries,
                spec.flags,
                spec.name,
            )
            .unwrap_or_else(|error| panic!("{name}: {error}"))
        })
        .collect();
    let fd_of = |wanted: &str| {
        maps.iter()
            .find(|map| map.definition().name == wanted)
            .map(|map| map.raw_fd())
    };
    let fds = MapFds {
        state: fd_of("dtrace_state").unwrap(),
        globals: fd_of("dtrace_globals").unwrap(),
        constants: fd_of("dtrace_consts").unwrap(),
        counters: fd_of("dtrace_counters").unwrap(),
        principal: fd_of("dtrace_buffers").unwrap(),
        dynamic: fd_of("dtrace_dynvars"),
        aggregations: fd_of("dtrace_aggs"),
        aggregation_generations: fd_of("dtrace_agggen"),
        speculations: fd_of("dtrace_specs"),
        vtimestamps: fd_of("dtrace_vtimes"),
        return_exits: None,
    };
    let enabled = enabled_probes(program, catalog);
    let mut probe_ids: Vec<u32> = enabled.iter().map(|probe| probe.probe_id).collect();
    probe_ids.sort();
    probe_ids.dedup();
    let mut unsupported = Vec::new();
    for probe_id in probe_ids {
        if probe_id == PROBE_ID_ERROR {
            continue;
        }
        let context = ContextKind::RawTracepoint {
            argument_count: 6,
            subject_task_argument: None,
        };
        let translated =
            match translate_probe(&layout, &fds, probe_id, &enabled, &verified, &context) {
                Ok(translated) => translated,
                Err(error) => {
                    unsupported.push(format!("{name}: {error}"));
                    continue;
                }
            };
        if let Err(error) = translated.load(context.program_type(), "dtrace_example", 0) {
            let log: Vec<&str> = error.log.lines().collect();
            panic!(
                "{name}, probe {probe_id}: the kernel refused the program: {}\n{}",
                error.error,
                log[log.len().saturating_sub(30)..].join("\n")
            );
        }
    }
    unsupported
}

#[test]
fn every_example_program_loads() {
    if !bpf_available("every_example_program_loads") {
        return;
    }
    let directory = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut entries: Vec<_> = std::fs::read_dir(directory)
        .expect("examples directory")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "d"))
        .collect();
    entries.sort();
    let mut loaded = 0;
    let mut not_compiled = Vec::new();
    let mut unsupported = Vec::new();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let catalog = EverythingCatalog::default();
        let options = CompileOptions {
            macro_arguments: vec!["dtrace".into(), "1".into(), "1".into(), "1".into()],
            default_arguments: true,
            argument_references: true,
            default_error_handler: true,
            ..CompileOptions::default()
        };
        let program = match compile(&[ProgramSource::script(&name, &text)], &options, &catalog) {
            Ok(compilation) => compilation.program,
            Err(error) => {
                not_compiled.push(format!("{name}: {}", error.diagnostic.message));
                continue;
            }
        };
        let missing = load_every_probe(&name, &program, &catalog);
        if missing.is_empty() {
            loaded += 1;
        }
        unsupported.extend(missing);
    }
    eprintln!("{loaded} example programs translated and loaded completely");
    for line in not_compiled {
        eprintln!("not compiled: {line}");
    }
    for line in &unsupported {
        eprintln!("not translated: {line}");
    }
    assert!(loaded > 0);
}
