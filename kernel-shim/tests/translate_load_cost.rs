//! What long clauses cost the kernel's verifier: a clause repeating one string-heavy
//! statement N times must translate to code, and be verified in instructions, in
//! proportion to N, and the kernel must not rewrite the code at every repetition (each
//! rewrite is a pass over the whole program). Run `cargo test -p kernel-shim --test
//! translate_load_cost -- --ignored --nocapture` for the table of sizes, verified
//! instructions and load times (`LOAD_COST_ONLY=index` for one kind).

mod translate_common;

use std::time::Instant;

use kernel_shim::sys::BPF_LOG_STATS;
use kernel_shim::translate::ContextKind;
use translate_common::{bpf_available, compile_d, load_kernel_logged, options};

/// A clause of `count` copies of `statement` on the test probe.
fn repeated_clause(statement: &str, count: usize) -> String {
    format!("test:::fire {{ {} }}", statement.repeat(count))
}

/// The statements the measurements repeat.
const STRING_ROUND_TRIP: &str = r#"s["k"] = "v"; self->s = s["k"]; printf("%s\n", self->s); "#;
const INDEX: &str = r#"x = index(probename, "re"); "#;
const CASTS: &str = r#"a["x"] = arg0; self->t = arg1; y = (int8_t)a["x"] + (uint16_t)self->t;
    z = (int)a["x"] * (unsigned int)self->t - (char)(a["x"] >> 3) + (uint64_t)(int32_t)self->t;
    w = z < 0u ? (short)y : (long)(self->t / 3); "#;

/// (translated instructions, instructions the kernel kept, verified instructions, load
/// time in seconds) of `text`.
fn load_cost(text: &str) -> (usize, u32, u64, f64) {
    let program = compile_d(text);
    let started = Instant::now();
    let run = load_kernel_logged(
        &program,
        &options(),
        &ContextKind::RawTracepoint {
            argument_count: 10,
            subject_task_argument: None,
        },
        BPF_LOG_STATS,
    );
    let seconds = started.elapsed().as_secs_f64();
    let log = run.program.verifier_log();
    let processed = log
        .split_whitespace()
        .skip_while(|word| *word != "processed")
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no instruction count in the verifier log:\n{log}"));
    let kept = run
        .program
        .info()
        .expect("program information")
        .translated_length
        / 8;
    (run.instructions.len(), kept, processed, seconds)
}

#[test]
fn long_clauses_are_verified_in_proportion_and_rewritten_once() {
    if !bpf_available("long_clauses_are_verified_in_proportion_and_rewritten_once") {
        return;
    }
    for (statement, rewritten_once) in [(STRING_ROUND_TRIP, true), (INDEX, true), (CASTS, false)] {
        let (short, short_kept, short_verified, _) = load_cost(&repeated_clause(statement, 10));
        let (long, long_kept, long_verified, _) = load_cost(&repeated_clause(statement, 40));
        assert!(
            long <= 4 * short,
            "{long} instructions for 40, {short} for 10: {statement}"
        );
        assert!(
            long_verified <= 4 * short_verified,
            "{long_verified} verified for 40, {short_verified} for 10: {statement}"
        );
        if rewritten_once {
            // What the kernel adds or removes does not grow with the clause (the casts
            // divide by a register, which the kernel guards at each division).
            assert_eq!(
                long_kept as i64 - long as i64,
                short_kept as i64 - short as i64,
                "{statement}"
            );
        }
    }
}

#[test]
#[ignore = "a measurement: prints a table"]
fn print_load_costs() {
    if !bpf_available("print_load_costs") {
        return;
    }
    for (name, statement, counts) in [
        (
            "string round trip",
            STRING_ROUND_TRIP,
            &[20, 80, 120, 200][..],
        ),
        ("index()", INDEX, &[20, 80, 120, 300, 600][..]),
        ("casts", CASTS, &[10, 40, 80][..]),
    ] {
        if std::env::var("LOAD_COST_ONLY").is_ok_and(|only| !name.starts_with(&only)) {
            continue;
        }
        for &count in counts {
            let (size, kept, processed, seconds) = load_cost(&repeated_clause(statement, count));
            println!(
                "{name:>18} ×{count:<4} {size:>7} insns {kept:>7} kept {processed:>8} verified \
                 {seconds:>7.3} s"
            );
        }
    }
}
