//! DIF: instruction set, DIFO container, textual form, verifier and reference interpreter.
