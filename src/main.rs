//! The dtrace command.
fn main() {}
