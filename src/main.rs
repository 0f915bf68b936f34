//! The dtrace command: parses dtrace(1)'s arguments and exits with its status; the work
//! itself is the consumer's.

mod command_line;

use command_line::{parse_command_line, usage_text};
use consumer::invocation::{run, EXIT_USAGE};

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let status = match parse_command_line(&arguments) {
        Ok(invocation) => run(&invocation),
        Err(error) => {
            if let Some(message) = &error.message {
                eprintln!("dtrace: {message}");
            }
            if error.show_usage {
                eprint!("{}", usage_text("dtrace"));
            }
            EXIT_USAGE
        }
    };
    std::process::exit(status);
}
