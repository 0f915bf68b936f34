//! DIF: instruction set, DIFO container, compiled-program object (with its parsed printf
//! formats and `print()`'s type descriptions), textual form, verifier and reference
//! interpreter. This crate does no IO and depends on no other project crate.

pub mod aggregation;
pub mod difo;
pub mod engine;
pub mod format;
pub mod glob;
pub mod interp;
pub mod isa;
pub mod object;
pub mod printed_type;
pub mod probe_derivation;
pub mod provider_attributes;
pub mod stability;
pub mod text;
pub mod verify;
