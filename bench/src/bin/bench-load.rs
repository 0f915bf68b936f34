//! bench-load: the load program the benchmarks trace. It makes exactly N `getppid()`
//! syscalls (or keyed `close()` calls with `--keyed`) and prints one result line.
//!
//! Usage: `bench-load [--calls N] [--threads T] [--rate R] [--keyed] [--cpu K] [--serve]`
//!
//! With `--serve` it prints `ready`, then reads one request per line from standard input
//! (the same arguments, without `--serve`), runs it and prints its result line, until end
//! of input. The harness uses this to know the load's process ID before a tracer starts
//! (its predicates name the process) and to run several paced steps in one process.

use std::io::{BufRead, Write};

use bench::load_generator::{run_load, LoadRequest};

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let status = match LoadRequest::parse_arguments(&arguments) {
        Ok((request, false)) => run_once(&request),
        Ok((_, true)) => serve(),
        Err(message) => {
            eprintln!("bench-load: {message}");
            eprintln!(
                "usage: bench-load [--calls N] [--threads T] [--rate R] [--keyed] [--cpu K] [--serve]"
            );
            2
        }
    };
    std::process::exit(status);
}

fn run_once(request: &LoadRequest) -> i32 {
    match run_load(request) {
        Ok(result) => {
            println!("{}", result.to_line());
            0
        }
        Err(message) => {
            eprintln!("bench-load: {message}");
            1
        }
    }
}

fn serve() -> i32 {
    let mut output = std::io::stdout().lock();
    if writeln!(output, "ready")
        .and_then(|_| output.flush())
        .is_err()
    {
        return 1;
    }
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else {
            return 1;
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let reply = match LoadRequest::parse_arguments(&words) {
            Ok((request, false)) => match run_load(&request) {
                Ok(result) => result.to_line(),
                Err(message) => format!("error {message}"),
            },
            Ok((_, true)) => "error --serve is not a request".to_string(),
            Err(message) => format!("error {message}"),
        };
        if writeln!(output, "{reply}")
            .and_then(|_| output.flush())
            .is_err()
        {
            return 1;
        }
    }
    0
}
