//! The D language front end: lexer, parser, semantic analysis and DIF code generation.
//! It knows nothing of eBPF and makes no system calls; it only reads the script text it
//! is given.

pub mod ast;
pub mod cg;
pub mod compile;
pub mod diagnostics;
pub mod format;
pub mod kernel_types;
pub mod lex;
pub mod options;
pub mod parse;
pub mod probes;
pub mod report;
pub mod sema;
pub mod types;
