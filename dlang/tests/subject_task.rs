//! Clauses of a probe about another thread than the one it fires in (a derivation with
//! `subject_task_argument`, as `sched:::on-cpu` at `sched_switch`): what can only refer
//! to the thread the probe fires in — user memory, the user stack and registers,
//! `errno`, signals — is refused at compile time with a message naming the probe, while
//! the thread built-ins compile; a clause on such a probe and an ordinary derived probe
//! is analysed once per derivation.

use std::sync::Arc;

use difvm::object::ProbeDescription;
use difvm::probe_derivation::ProbeDerivation;
use dlang::compile::{compile, Compilation, CompileError, CompileOptions, ProgramSource};
use dlang::probes::{ListCatalog, ProbeInfo};

fn sched_probe(id: u32, name: &str, subject_task_argument: Option<u8>) -> ProbeInfo {
    ProbeInfo {
        id,
        description: ProbeDescription {
            provider: "sched".to_string(),
            module: "vmlinux".to_string(),
            function: String::new(),
            name: name.to_string(),
        },
        argument_types: Vec::new(),
        derivation: Some(Arc::new(ProbeDerivation {
            guard: None,
            arguments: Vec::new(),
            subject_task_argument,
        })),
    }
}

fn catalog() -> ListCatalog {
    ListCatalog::with_dtrace_provider(vec![
        sched_probe(20, "on-cpu", Some(2)),
        sched_probe(21, "off-cpu", None),
    ])
}

fn compile_text(text: &str) -> Result<Compilation, CompileError> {
    let options = CompileOptions {
        default_error_handler: false,
        ..CompileOptions::default()
    };
    let compilation = compile(
        &[ProgramSource::script("test.d", text)],
        &options,
        &catalog(),
    )?;
    if let Err(errors) = difvm::verify::verify_program(&compilation.program) {
        panic!("verifier rejected {text:?}: {errors:?}");
    }
    Ok(compilation)
}

/// The bodies refused in `sched:::on-cpu`, with the name each message gives.
const REFUSED: &[(&str, &str)] = &[
    ("ustack();", "ustack( )"),
    ("jstack();", "jstack( )"),
    ("@[ustack()] = count();", "ustack( )"),
    ("trace(copyin(arg1, 8));", "copyin( )"),
    ("trace(copyinstr(arg1));", "copyinstr( )"),
    ("copyinto(arg1, 8, alloca(8));", "copyinto( )"),
    ("copyout(alloca(8), arg1, 8);", "copyout( )"),
    ("copyoutstr(\"x\", arg1, 2);", "copyoutstr( )"),
    ("raise(9);", "raise( )"),
    ("stop();", "stop( )"),
    ("trace(uregs[0]);", "uregs[ ]"),
    ("trace(errno);", "errno"),
    ("trace(ustackdepth);", "ustackdepth"),
    ("trace(ucaller);", "ucaller"),
];

#[test]
fn what_cannot_reach_the_thread_the_probe_is_about_is_refused_in_on_cpu() {
    for (body, name) in REFUSED {
        let text = format!("sched:::on-cpu {{ {body} }}");
        let error = match compile_text(&text) {
            Ok(_) => panic!("{text:?} compiled"),
            Err(error) => error.diagnostic,
        };
        assert_eq!(error.tag.name(), "D_VAR_UNSUP", "{text}");
        assert_eq!(
            error.message,
            format!(
                "{name} may not be used in sched:vmlinux::on-cpu: the probe fires in another \
                 thread's context, and {name} can only refer to that thread, not to the thread \
                 the probe is about"
            ),
            "{text}"
        );
    }
}

#[test]
fn the_same_uses_compile_in_a_probe_about_its_own_thread() {
    for (body, _) in REFUSED {
        let text = format!("sched:::off-cpu {{ {body} }}");
        if let Err(error) = compile_text(&text) {
            panic!("{text:?}: {}", error.diagnostic.message);
        }
    }
}

#[test]
fn thread_built_ins_and_kernel_stacks_compile_in_on_cpu() {
    let text = "sched:::on-cpu /pid == 1/ { self->ts = timestamp; \
                @[tid, ppid, uid, gid, execname, curthread, vtimestamp, progenyof(1)] = count(); \
                trace(stack()); trace(stackdepth); trace(caller); }";
    if let Err(error) = compile_text(text) {
        panic!("{}", error.diagnostic.message);
    }
}

#[test]
fn a_clause_on_on_cpu_and_off_cpu_is_analysed_once_per_derivation() {
    let compilation = compile_text(
        "self uint64_t ts; sched:::on-cpu, sched:::off-cpu { @[probename, tid] = sum(timestamp - self->ts); self->ts = timestamp; }",
    )
    .unwrap();
    let program = &compilation.program;
    assert_eq!(program.statements.len(), 2);
    let names: Vec<&str> = program
        .statements
        .iter()
        .map(|statement| statement.probe.name.as_str())
        .collect();
    assert_eq!(names, ["on-cpu", "off-cpu"]);
    // Refused in the on-cpu analysis even though off-cpu alone would accept it.
    let error = compile_text("sched:::off-cpu, sched:::on-cpu { trace(errno); }").unwrap_err();
    assert!(
        error.diagnostic.message.contains("sched:vmlinux::on-cpu"),
        "{}",
        error.diagnostic.message
    );
}
