//! The D language front end: lexer, parser, semantic analysis, DIF code generation.
