//! What long clauses cost the kernel's verifier: a clause repeating one string-heavy
//! statement N times must translate to code, and be verified in instructions, in
//! proportion to N, and the kernel must not rewrite the code at every repetition (each
//! rewrite is a pass over the whole program). Nothing here is timed.

mod translate_common;

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

/// (translated instructions, instructions the kernel kept, verified instructions) of
/// `text`.
fn load_cost(text: &str) -> (usize, u32, u64) {
    let program = compile_d(text);
    let run = load_kernel_logged(
        &program,
        &options(),
        &ContextKind::RawTracepoint {
            argument_count: 10,
            subject_task_argument: None,
        },
        BPF_LOG_STATS,
    );
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
    (run.instructions.len(), kept, processed)
}

#[test]
fn long_clauses_are_verified_in_proportion_and_rewritten_once() {
    if !bpf_available("long_clauses_are_verified_in_proportion_and_rewritten_once") {
        return;
    }
    for (statement, rewritten_once) in [(STRING_ROUND_TRIP, true), (INDEX, true), (CASTS, false)] {
        let (short, short_kept, short_verified) = load_cost(&repeated_clause(statement, 10));
        let (long, long_kept, long_verified) = load_cost(&repeated_clause(statement, 40));
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
