//! `dtrace -S` prints the DIF of every clause, and that listing assembles back into the
//! very DIFOs the compiler produced.

use std::process::Command;

use difvm::text::assemble_all;
use dlang::compile::{compile, CompileOptions, ProbeSpecifierOption, ProgramSource};
use dlang::probes::DtraceProviderCatalog;

const PROGRAMS: &[&str] = &[
    r#"BEGIN { x = 1 + 2 * 3 << 1; printf("%d %s\n", x, "ok"); exit(0); }"#,
    r#"BEGIN /pid == 42/ { trace(pid); }"#,
    r#"BEGIN { self->ts = timestamp; this->s = strjoin("a", "b"); a["k", 1] = 3; trace(a["k", 1]); }"#,
    r#"BEGIN { @c[execname, 7] = count(); @q = quantize(10); @l = lquantize(3, 0, 10, 2); @s = sum(-4); }"#,
    r#"BEGIN { x = 5; y = x > 3 ? "big" : "small"; printf("%s %d\n", y, x ^^ 1); }"#,
    r#"BEGIN { if (timestamp > 0) { trace(1); } else { trace(2); } }"#,
    r#"BEGIN { trace(substr("hello", 1, 3)); trace(strlen("abc")); trace(lltostr(-5, 16)); }"#,
];

/// Every DIFO of `program` assembles back from the -S listing, in order, unchanged.
fn check(program: &str) {
    let sources = [ProgramSource::command_line(
        ProbeSpecifierOption::Name,
        program,
    )];
    let compilation = compile(&sources, &CompileOptions::default(), &DtraceProviderCatalog)
        .unwrap_or_else(|error| panic!("{program}: {}", error.diagnostic.message));
    let expected: Vec<_> = compilation
        .program
        .statements
        .iter()
        .flat_map(|statement| {
            statement.predicate.iter().cloned().chain(
                statement
                    .actions
                    .iter()
                    .flat_map(|action| action.values.iter().filter_map(|value| value.difo.clone())),
            )
        })
        .collect();
    let output = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(["-S", "-e", "-n", program])
        .output()
        .expect("run dtrace");
    assert!(
        output.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listing = String::from_utf8(output.stderr).expect("listing is UTF-8");
    let assembled =
        assemble_all(&listing).unwrap_or_else(|error| panic!("{program}: {error}\n{listing}"));
    let assembled: Vec<_> = assembled.into_iter().map(|difo| difo.difo).collect();
    assert_eq!(
        assembled.len(),
        expected.len(),
        "{program}: DIFO count\n{listing}"
    );
    for (index, (got, want)) in assembled.iter().zip(&expected).enumerate() {
        assert_eq!(
            got, want,
            "{program}: DIFO #{index} differs after the round trip\n{listing}"
        );
    }
}

#[test]
fn listings_round_trip_through_the_assembler() {
    for program in PROGRAMS {
        check(program);
    }
}
