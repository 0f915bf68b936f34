//! The benchmark command: `cargo run --release -p bench -- [--quick]`. Runs our dtrace and
//! bpftrace side by side and prints the machine description and the results table
//! (Markdown, ready for BENCHMARKS.md) on standard output; progress goes to standard
//! error.

use std::time::Instant;

use bench::harness::{Harness, ToolSlot};
use bench::machine::describe_machine;
use bench::scenarios;
use bench::settings::{parse_arguments, usage, Group, Request};
use bench::table::{render_report, Report};
use bench::tools::{find_bpftrace, find_dtrace, find_load_program, Tool, ToolKind};

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let settings = match parse_arguments(&arguments) {
        Ok(Request::Run(settings)) => *settings,
        Ok(Request::Help) => {
            print!("{}", usage());
            return;
        }
        Err(message) => {
            eprintln!("bench: {message}");
            eprint!("{}", usage());
            std::process::exit(2);
        }
    };
    let load_program = match find_load_program() {
        Ok(path) => path,
        Err(message) => {
            eprintln!("bench: {message}");
            std::process::exit(1);
        }
    };
    // SAFETY: geteuid has no memory effects.
    let is_root = unsafe { libc::geteuid() } == 0;
    if !is_root {
        eprintln!(
            "bench: not running as root: only dtrace's start-up row can run (bpftrace and the kernel engine need root)"
        );
    }
    let ours = match find_dtrace(settings.dtrace_path.as_deref()) {
        Ok(path) => ToolSlot::Ready(Tool {
            kind: ToolKind::Dtrace,
            path,
            dtrace_options: settings.dtrace_options.clone(),
        }),
        Err(message) => {
            eprintln!("bench: dtrace: {message}");
            ToolSlot::Unavailable("dtrace binary not found".to_string())
        }
    };
    let bpftrace = match find_bpftrace(settings.bpftrace_path.as_deref()) {
        Ok(path) => ToolSlot::Ready(Tool {
            kind: ToolKind::Bpftrace,
            path,
            dtrace_options: Vec::new(),
        }),
        Err(message) => {
            eprintln!("bench: {message}");
            ToolSlot::Unavailable("bpftrace not installed".to_string())
        }
    };
    let path_of = |slot: &ToolSlot| match slot {
        ToolSlot::Ready(tool) => Some(tool.path.clone()),
        ToolSlot::Unavailable(_) => None,
    };
    let machine = describe_machine(path_of(&ours).as_deref(), path_of(&bpftrace).as_deref());
    let mut harness = Harness {
        settings,
        ours,
        bpftrace,
        load_program,
        is_root,
        started: Instant::now(),
        report: Report::default(),
    };
    for group in harness.settings.groups.clone() {
        harness.progress(&format!("-- {} --", group.name()));
        match group {
            Group::Startup => scenarios::startup::run(&mut harness),
            Group::EnableAll => scenarios::enable_all::run(&mut harness),
            Group::ProbeEffect => scenarios::probe_effect::run(&mut harness),
            Group::Throughput => scenarios::throughput::run(&mut harness),
            Group::Aggregation => scenarios::aggregation::run(&mut harness),
        }
    }
    let mut command = "cargo run --release -p bench --".to_string();
    for argument in &arguments {
        command.push(' ');
        command.push_str(argument);
    }
    println!("Command: `{}`", command.trim_end_matches(" --"));
    println!();
    println!("Machine:");
    println!();
    for line in machine {
        println!("{line}");
    }
    println!();
    print!("{}", render_report(&harness.report));
    println!();
    println!(
        "Medians over the repetitions, [lowest–highest] in brackets; tools alternated which ran first. Total run time: {:.0} s.",
        harness.started.elapsed().as_secs_f64()
    );
}
