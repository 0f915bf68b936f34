//! What long clauses cost the kernel's verifier: a clause repeating one string-heavy
//! statement N times must translate to code, and be verified in instructions, in
//! proportion to N. Run `cargo test -p kernel-shim --test translate_load_cost -- --ignored
//! --nocapture` for the table of sizes, verified instructions and load times.

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

#[test]
#[ignore]
fn dump_dead() {
    let program = compile_d(&repeated_clause(
        &std::env::var("STMT").unwrap_or(STRING_ROUND_TRIP.to_string()),
        std::env::var("COUNT").map_or(2, |count| count.parse().unwrap()),
    ));
    let run = load_kernel_logged(
        &program,
        &options(),
        &ContextKind::RawTracepoint {
            argument_count: 10,
            subject_task_argument: None,
        },
        kernel_shim::sys::BPF_LOG_LEVEL2,
    );
    let log = run.program.verifier_log();
    let mut seen = std::collections::BTreeSet::new();
    for line in log.lines() {
        if let Some((number, _)) = line.split_once(": (") {
            if let Ok(n) = number.trim().parse::<usize>() {
                seen.insert(n);
            }
        }
    }
    let listing = kernel_shim::ebpf::disassemble(&run.instructions);
    let mut out = String::new();
    for line in listing.lines() {
        let number = line.split(':').next().unwrap().trim().parse::<usize>().ok();
        let mark = match number {
            Some(n) if seen.contains(&n) => "   ",
            Some(_) => "XX ",
            None => "   ",
        };
        out.push_str(mark);
        out.push_str(line);
        out.push('\n');
    }
    std::fs::write("/tmp/load-dead.txt", out).unwrap();
    std::fs::write("/tmp/load-log.txt", log).unwrap();
}
