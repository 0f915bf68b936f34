//! The compiler sees sdt probes' argument types through the consumer's registry catalog:
//! the sdt provider reads a tracepoint's `format` (here a scratch tracefs holding the
//! real sched_switch and block_rq_issue formats) only when a clause names `args[]`.

use std::path::PathBuf;

use consumer::catalog::RegistryCatalog;
use dlang::compile::{compile, CompileOptions, ProgramSource};
use providers::registry::ProbeRegistry;
use providers::sdt_provider::SdtProvider;
use providers::tracefs::Tracefs;

const SCHED_SWITCH: &str = "name: sched_switch\nID: 372\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\
\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n\
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n\
\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n\
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\
\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n\
print fmt: \"prev_comm=%s\", REC->prev_comm\n";

const BLOCK_RQ_ISSUE: &str = "name: block_rq_issue\nID: 2104\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n\
\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n\
\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n\
\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n\
\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n\
\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n\
\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\n\
print fmt: \"%s\", REC->comm\n";

/// A scratch tracefs with the two events, removed when dropped.
struct ScratchTracefs {
    root: PathBuf,
}

impl ScratchTracefs {
    fn new() -> ScratchTracefs {
        let root = std::env::temp_dir().join(format!(
            "consumer-sdt-arguments-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        for (group, event, text) in [
            ("sched", "sched_switch", SCHED_SWITCH),
            ("block", "block_rq_issue", BLOCK_RQ_ISSUE),
        ] {
            let directory = root.join("events").join(group).join(event);
            std::fs::create_dir_all(&directory).expect("create event directory");
            std::fs::write(directory.join("format"), text).expect("write format");
        }
        ScratchTracefs { root }
    }

    fn catalog(&self) -> RegistryCatalog {
        RegistryCatalog::new(ProbeRegistry::new(vec![Box::new(SdtProvider::new(Some(
            Tracefs::at(&self.root),
        )))]))
    }
}

impl Drop for ScratchTracefs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn compile_with_registry(text: &str) -> Result<(), String> {
    let tracefs = ScratchTracefs::new();
    let catalog = tracefs.catalog();
    let options = CompileOptions {
        default_error_handler: false,
        ..CompileOptions::default()
    };
    compile(&[ProgramSource::script("test.d", text)], &options, &catalog)
        .map(|_| ())
        .map_err(|error| format!("{error:?}"))
}

#[test]
fn sched_switch_task_names_compile_as_strings() {
    compile_with_registry(
        r#"sdt:sched::sched_switch { printf("%s -> %s\n", stringof(args[0]), stringof(args[4])); exit(0); }"#,
    )
    .expect("sched_switch's prev_comm and next_comm are strings");
}

#[test]
fn block_rq_issue_bytes_by_command_compile() {
    compile_with_registry("sdt:block::block_rq_issue { @[stringof(args[6])] = sum(args[3]); }")
        .expect("block_rq_issue's comm and bytes compile");
}

#[test]
fn the_registry_gives_the_format_types() {
    let error = compile_with_registry("sdt:block::block_rq_issue { printf(\"%d\", args[7]); }")
        .expect_err("the __data_loc cmd is a string");
    assert!(error.contains("argument: string"), "{error}");
    let error = compile_with_registry("sdt:sched::sched_switch { printf(\"%s\", args[1]); }")
        .expect_err("prev_pid is an integer");
    assert!(error.contains("argument: pid_t"), "{error}");
    let error = compile_with_registry("sdt:sched::sched_switch { trace(args[7]); }")
        .expect_err("sched_switch has seven fields");
    assert!(error.contains("index 7 is out of range"), "{error}");
}

#[test]
fn every_argument_of_every_tracepoint_of_this_kernel_has_a_d_type() {
    let Some(tracefs) = Tracefs::find().filter(|tracefs| tracefs.groups().is_ok()) else {
        println!("skipping: no readable tracefs");
        return;
    };
    let provider = SdtProvider::new(Some(tracefs.clone()));
    let everything = difvm::object::ProbeDescription {
        provider: "sdt".to_string(),
        ..Default::default()
    };
    let probes = providers::provider::Provider::probes(&provider, &everything).expect("sdt probes");
    assert!(!probes.is_empty(), "tracefs lists no tracepoints");
    let options = CompileOptions {
        default_error_handler: false,
        ..CompileOptions::default()
    };
    let catalog = RegistryCatalog::new(ProbeRegistry::new(vec![Box::new(SdtProvider::new(Some(
        tracefs,
    )))]));
    let mut failures = Vec::new();
    let mut arguments = 0;
    for probe in &probes {
        let Ok(types) = providers::provider::Provider::argument_types(&provider, probe) else {
            continue;
        };
        if types.is_empty() {
            continue;
        }
        arguments += types.len();
        let traces: String = (0..types.len())
            .map(|index| format!("trace(args[{index}]);"))
            .collect();
        let text = format!("{} {{ {traces} }}", probe.description);
        if let Err(error) = compile(
            &[ProgramSource::script("test.d", &text)],
            &options,
            &catalog,
        ) {
            failures.push(format!("{} {types:?}: {error:?}", probe.description));
        }
    }
    assert!(arguments > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
