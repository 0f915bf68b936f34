//! sdt probes' `args[]` as tracepoint formats type them: `char [N]` arrays usable as
//! strings, `__data_loc` strings, integers, byte arrays and pointers, with the types
//! loaded lazily through `ProbeCatalog::argument_types` (the sdt provider reads a
//! tracepoint's format only when a clause names `args[]`).

use std::cell::Cell;

use difvm::object::ProbeDescription;
use dlang::compile::{compile, CompileOptions, ProgramSource};
use dlang::probes::{description_matches, DtraceProviderCatalog, ProbeCatalog, ProbeInfo};

/// The D types the sdt provider gives these tracepoints' fields.
const SCHED_SWITCH: [&str; 7] = [
    "char [16]",
    "pid_t",
    "int",
    "long",
    "char [16]",
    "pid_t",
    "int",
];
const BLOCK_RQ_ISSUE: [&str; 8] = [
    "dev_t",
    "uint64_t",
    "unsigned int",
    "unsigned int",
    "unsigned short",
    "char [10]",
    "char [16]",
    "string",
];
const MIXED: [&str; 7] = [
    "uint8_t [16]",
    "uint64_t *",
    "unsigned long *",
    "struct file *",
    "void **",
    "char *",
    "long [3]",
];

/// A catalog whose probes carry no argument types until asked through
/// `argument_types`, as the registry's sdt probes do; it counts the loads.
#[derive(Default)]
struct LazyCatalog {
    loads: Cell<usize>,
}

fn sdt(id: u32, module: &str, name: &str) -> ProbeInfo {
    ProbeInfo {
        id,
        description: ProbeDescription {
            provider: "sdt".to_string(),
            module: module.to_string(),
            function: String::new(),
            name: name.to_string(),
        },
        argument_types: Vec::new(),
        derivation: None,
    }
}

impl ProbeCatalog for LazyCatalog {
    fn matching(&self, description: &ProbeDescription) -> Vec<ProbeInfo> {
        let mut probes = DtraceProviderCatalog::probes();
        probes.push(sdt(10, "sched", "sched_switch"));
        probes.push(sdt(11, "block", "block_rq_issue"));
        probes.push(sdt(12, "test", "mixed"));
        probes
            .into_iter()
            .filter(|probe| description_matches(description, &probe.description))
            .collect()
    }

    fn argument_types(&self, probe: &ProbeInfo) -> Vec<String> {
        self.loads.set(self.loads.get() + 1);
        let types: &[&str] = match probe.id {
            10 => &SCHED_SWITCH,
            11 => &BLOCK_RQ_ISSUE,
            12 => &MIXED,
            _ => &[],
        };
        types.iter().map(|name| name.to_string()).collect()
    }
}

fn options() -> CompileOptions {
    CompileOptions {
        default_error_handler: false,
        ..CompileOptions::default()
    }
}

/// Compiles `text`; Ok(number of argument-type loads) or Err(the error message).
fn compile_sdt(text: &str) -> Result<usize, String> {
    let catalog = LazyCatalog::default();
    let programs = [ProgramSource::script("test.d", text)];
    compile(&programs, &options(), &catalog)
        .map(|_| catalog.loads.get())
        .map_err(|error| format!("{error:?}"))
}

#[test]
fn char_arrays_are_strings_in_every_string_context() {
    let text = r#"
        sdt:sched::sched_switch
        /args[0] != "swapper/0" && stringof(args[4]) == "dd"/
        {
            printf("%s -> %s %d\n", stringof(args[0]), args[4], args[5]);
            @[stringof(args[0])] = count();
            @names[args[4]] = sum(args[1]);
            trace(args[0]);
        }
    "#;
    let loads = compile_sdt(text).expect("sched_switch's args compile");
    assert!(loads > 0, "the types were loaded through the catalog");
}

#[test]
fn argument_types_are_the_format_types() {
    let mismatch = |probe: &str, index: usize| {
        compile_sdt(&format!("sdt:{probe} {{ printf(\"%d\", args[{index}]); }}"))
            .expect_err("%d of a non-integer is refused")
    };
    assert!(mismatch("sched::sched_switch", 0).contains("argument: char [16]"));
    assert!(mismatch("block::block_rq_issue", 7).contains("argument: string"));
    assert!(mismatch("test::mixed", 0).contains("argument: uint8_t [16]"));
    let string_of_integer = compile_sdt("sdt:block::block_rq_issue { printf(\"%s\", args[3]); }")
        .expect_err("%s of an integer is refused");
    assert!(
        string_of_integer.contains("argument: unsigned int"),
        "{string_of_integer}"
    );
}

#[test]
fn block_rq_issue_sums_bytes_by_command() {
    compile_sdt("sdt:block::block_rq_issue { @[stringof(args[6])] = sum(args[3]); }")
        .expect("block_rq_issue's comm and bytes compile");
    compile_sdt("sdt:block::block_rq_issue { @[args[7]] = count(); trace(args[7] == \"x\"); }")
        .expect("the __data_loc string compiles");
}

#[test]
fn arrays_and_pointers_index_and_dereference() {
    compile_sdt(
        "sdt:test::mixed { trace(args[0][3]); trace(*args[1]); trace(args[2][0]); \
         trace(args[6][2]); trace((uint64_t)args[3]); trace(args[4]); trace(args[5]); }",
    )
    .expect("every kind of argument compiles");
}

#[test]
fn indices_past_the_fields_are_out_of_range() {
    let error = compile_sdt("sdt:sched::sched_switch { trace(args[7]); }")
        .expect_err("sched_switch has seven arguments");
    assert!(error.contains("index 7 is out of range"), "{error}");
}

#[test]
fn a_clause_that_names_no_args_loads_no_types() {
    assert_eq!(
        compile_sdt("sdt:sched::sched_switch { trace(arg0); }"),
        Ok(0)
    );
}
