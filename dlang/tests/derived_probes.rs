//! Clauses on derived probes (the stable providers' way of building a probe on another):
//! the provider's guard decides whether the clause runs, `argN` and `args[N]` are the
//! derived arguments, computed from the underlying probe's, and a clause on probes of
//! several derivations runs each probe's own. Run on the reference interpreter with a
//! catalog of described probes, so no kernel is needed.

mod compile_support;

use std::sync::Arc;

use compile_support::{options, run_firings_in};
use difvm::object::ProbeDescription;
use difvm::probe_derivation::{ArgumentTranslation, DerivedArgument, ProbeDerivation};
use dlang::compile::{compile, ProgramSource};
use dlang::probes::{ListCatalog, ProbeInfo};

fn native(native_type: &str, value: &str) -> DerivedArgument {
    DerivedArgument {
        native_type: native_type.to_string(),
        value: value.to_string(),
        translation: ArgumentTranslation::Native,
    }
}

fn probe(id: u32, name: &str, derivation: ProbeDerivation) -> ProbeInfo {
    let derivation = Arc::new(derivation);
    ProbeInfo {
        id,
        description: ProbeDescription {
            provider: "stable".to_string(),
            module: "vmlinux".to_string(),
            function: String::new(),
            name: name.to_string(),
        },
        argument_types: derivation
            .arguments
            .iter()
            .map(|argument| argument.argument_type().to_string())
            .collect(),
        derivation: Some(derivation),
    }
}

/// `stable:::odd` fires when the underlying probe's arg0 is odd, with arg0 its arg1
/// doubled and arg1 a `char` of its arg2; `stable:::swap` always, with the two first
/// arguments swapped.
fn catalog() -> ListCatalog {
    ListCatalog::with_dtrace_provider(vec![
        probe(
            10,
            "odd",
            ProbeDerivation {
                guard: Some("(arg0 & 1) == 1".to_string()),
                arguments: vec![native("long", "arg1 * 2"), native("char", "arg2")],
                subject_task_argument: None,
            },
        ),
        probe(
            11,
            "swap",
            ProbeDerivation {
                guard: None,
                arguments: vec![native("int", "arg1"), native("int", "arg0")],
                subject_task_argument: None,
            },
        ),
    ])
}

fn run(text: &str, firings: &[(u32, Vec<u64>)]) -> Vec<String> {
    let catalog = catalog();
    let programs = [ProgramSource::script("derived.d", text)];
    let compilation = compile(&programs, &options(), &catalog)
        .unwrap_or_else(|error| panic!("{text}: {}", error.diagnostic.message));
    let result = run_firings_in(compilation.program, &catalog, firings);
    assert!(result.faults.is_empty(), "{:?}", result.faults);
    result.values()
}

#[test]
fn the_guard_decides_and_arguments_are_derived() {
    let values = run(
        "stable:::odd { trace(arg0); trace(args[0]); trace(args[1]); trace(arg2); }",
        &[
            (10, vec![3, 21, 0x141]),
            (10, vec![4, 5, 6]),
            (10, vec![1, -4i64 as u64, 7]),
        ],
    );
    // args[1] is a char: 0x141 narrows to 0x41; arg2 is past the derived arguments.
    assert_eq!(values, ["42", "42", "65", "0", "-8", "-8", "7", "0"]);
}

#[test]
fn a_clause_on_several_derivations_runs_each_probes_own() {
    let values = run(
        "stable:::odd, stable:::swap /arg0 > 0/ { trace(probename); trace(arg0); trace(arg1); }",
        &[
            (10, vec![1, 2, 3]),
            (11, vec![1, 2, 3]),
            (11, vec![5, 0, 3]),
        ],
    );
    assert_eq!(values, ["odd", "4", "3", "swap", "2", "1"]);
}

#[test]
fn derived_argument_indexes_are_checked() {
    let catalog = catalog();
    let programs = [ProgramSource::script(
        "derived.d",
        "stable:::swap { trace(args[2]); }",
    )];
    let error = compile(&programs, &options(), &catalog).unwrap_err();
    assert_eq!(error.diagnostic.tag.name(), "D_ARGS_IDX");
    assert_eq!(
        error.diagnostic.message,
        "index 2 is out of range for stable:vmlinux::swap args[ ]"
    );
}
