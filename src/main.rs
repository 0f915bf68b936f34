//! The dtrace command.
mod command_line;
fn main() {}
