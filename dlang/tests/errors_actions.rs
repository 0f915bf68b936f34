//! Golden tests of errors in actions: aggregations and their functions (lquantize and
//! llquantize parameter rules), printf/printa format checking, trace/tracemem/stack
//! arguments, the aggregation actions, and the speculation ordering rules.

mod compile_support;

use compile_support::error_of;

/// `body` inside `BEGIN { }` must fail with `tag` and exactly `message`.
fn check(body: &str, tag: &str, message: &str) {
    let program = format!("BEGIN {{ {body} }}");
    let (found_tag, found_message) = error_of(&program);
    assert_eq!(
        (found_tag.as_str(), found_message.as_str()),
        (tag, message),
        "program: {program}"
    );
}

#[test]
fn aggregations() {
    check(
        "@a = 1;",
        "D_AGG_FUNC",
        "@a must be assigned the result of an aggregating function",
    );
    check(
        "@a = strlen(\"x\");",
        "D_AGG_FUNC",
        "@a must be assigned the result of an aggregating function",
    );
    check(
        "@a += count();",
        "D_AGG_FUNC",
        "@a must be assigned the result of an aggregating function",
    );
    check("@a;", "D_AGG_NULL", "expression has null effect: @a");
    check("@a[1];", "D_AGG_NULL", "expression has null effect: @a");
    check(
        "@a[1][2] = count();",
        "D_AGG_MDIM",
        "improper attempt to reference @a as a multi-dimensional array",
    );
    check(
        "@a = sum(\"x\");",
        "D_AGG_SCALAR",
        "sum( ) argument #1 must be of scalar type",
    );
    check(
        "@a = count(1);",
        "D_PROTO_LEN",
        "count( ) prototype mismatch: 1 arg passed, 0 expected",
    );
    check(
        "@a = quantize(1, \"x\");",
        "D_PROTO_ARG",
        "quantize( ) increment value (argument #2) must be of scalar type",
    );
    check(
        "@a = quantize(1, 2, 3);",
        "D_PROTO_LEN",
        "quantize( ) prototype mismatch: 3 args passed, at most 2 expected",
    );
    check(
        "@a[bcopy(0, 0, 0)] = count();",
        "D_KEY_TYPE",
        "void expression may not be used as aggregation index: key #1",
    );
    check(
        "@a[1] = count(); @a[1, 2] = count();",
        "D_PROTO_LEN",
        "@a[ ] prototype mismatch: 2 keys passed, 1 expected",
    );
    check(
        "@a[1] = count(); @a[\"x\"] = count();",
        "D_PROTO_ARG",
        "@a[ ] key #1 is incompatible with prototype:\n\tprototype: int\n\t      key: string",
    );
    let (tag, message) = error_of("BEGIN { @a = count(); }\nEND { @a = sum(1); }");
    assert_eq!(tag, "D_AGG_REDEF");
    assert_eq!(
        message,
        "aggregation redefined: @a\n\t current: @a = sum( )\n\tprevious: @a = count( ) : line 1"
    );
}

#[test]
fn lquantize_parameters() {
    check(
        "x = 1; @a = lquantize(1, x, 10);",
        "D_LQUANT_BASETYPE",
        "lquantize( ) argument #1 must be an integer constant",
    );
    check(
        "@a = lquantize(1, 0x100000000, 0x100000001);",
        "D_LQUANT_BASEVAL",
        "lquantize( ) argument #1 must be a 32-bit quantity",
    );
    check(
        "x = 1; @a = lquantize(1, 0, x);",
        "D_LQUANT_LIMTYPE",
        "lquantize( ) argument #2 must be an integer constant",
    );
    check(
        "@a = lquantize(1, 0, 0x100000000);",
        "D_LQUANT_LIMVAL",
        "lquantize( ) argument #2 must be a 32-bit quantity",
    );
    check(
        "@a = lquantize(1, 10, 0);",
        "D_LQUANT_MISMATCH",
        "lquantize( ) base (argument #1) must be less than limit (argument #2)",
    );
    check(
        "@a = lquantize(1, 0, 10, 0);",
        "D_LQUANT_STEPTYPE",
        "lquantize( ) argument #3 must be a non-zero positive integer constant",
    );
    check(
        "@a = lquantize(1, 0, 100000, 70000);",
        "D_LQUANT_STEPVAL",
        "lquantize( ) argument #3 must be a 16-bit quantity",
    );
    check(
        "@a = lquantize(1, 0, 10, 20);",
        "D_LQUANT_STEPLARGE",
        "lquantize( ) step (argument #3) too large: must have at least one quantization level",
    );
    check(
        "@a = lquantize(1, 0, 100000, 1);",
        "D_LQUANT_STEPSMALL",
        "lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity",
    );
    check(
        "@a = lquantize(1, 0, 10); @a = lquantize(1, 1, 10);",
        "D_LQUANT_MATCHBASE",
        "lquantize( ) base (argument #1) doesn't match previous declaration: expected 0, found 1",
    );
    check(
        "@a = lquantize(1, 0, 10); @a = lquantize(1, 0, 20);",
        "D_LQUANT_MATCHLIM",
        "lquantize( ) limit (argument #2) doesn't match previous declaration: expected 10, found 20",
    );
    check(
        "@a = lquantize(1, 0, 10, 1); @a = lquantize(1, 0, 10, 2);",
        "D_LQUANT_MATCHSTEP",
        "lquantize( ) step (argument #3) doesn't match previous declaration: expected 1, found 2",
    );
    check(
        "@a = lquantize(1, 0, 10, 1, 2, 3);",
        "D_PROTO_LEN",
        "lquantize( ) prototype mismatch: 6 args passed, at most 5 expected",
    );
}

#[test]
fn llquantize_parameters() {
    check(
        "x = 1; @a = llquantize(1, x, 0, 2, 10);",
        "D_LLQUANT_FACTORTYPE",
        "llquantize( ) argument #1 (factor) must be an integer constant",
    );
    check(
        "@a = llquantize(1, 1, 0, 2, 10);",
        "D_LLQUANT_FACTORVAL",
        "llquantize( ) argument #1 (factor) must be two or more",
    );
    check(
        "@a = llquantize(1, 70000, 0, 2, 10);",
        "D_LLQUANT_FACTORVAL",
        "llquantize( ) argument #1 (factor) must be an unsigned 16-bit quantity",
    );
    check(
        "x = 1; @a = llquantize(1, 10, x, 2, 10);",
        "D_LLQUANT_LMAGTYPE",
        "llquantize( ) argument #2 (low magnitude) must be an integer constant",
    );
    check(
        "@a = llquantize(1, 10, -1, 2, 10);",
        "D_LLQUANT_LMAGVAL",
        "llquantize( ) argument #2 (low magnitude) must be an unsigned 16-bit quantity",
    );
    check(
        "x = 1; @a = llquantize(1, 10, 0, x, 10);",
        "D_LLQUANT_HMAGTYPE",
        "llquantize( ) argument #3 (high magnitude) must be an integer constant",
    );
    check(
        "@a = llquantize(1, 10, 3, 2, 10);",
        "D_LLQUANT_HMAGVAL",
        "llquantize( ) argument #3 (high magnitude) must be at least argument #2 (low magnitude)",
    );
    check(
        "x = 1; @a = llquantize(1, 10, 0, 2, x);",
        "D_LLQUANT_STEPTYPE",
        "llquantize( ) argument #4 (steps) must be an integer constant",
    );
    check(
        "@a = llquantize(1, 10, 0, 2, 3);",
        "D_LLQUANT_STEPVAL",
        "llquantize( ) argument #4 (steps) must evenly divide argument #1 (factor) when steps<factor",
    );
    check(
        "@a = llquantize(1, 10, 0, 2, 15);",
        "D_LLQUANT_STEPVAL",
        "llquantize( ) argument #4 (steps) must be a multiple of argument #1 (factor) when steps>factor",
    );
    check(
        "@a = llquantize(1, 10, 0, 40, 10);",
        "D_LLQUANT_MAGTOOBIG",
        "llquantize( ) factor (10) raised to power of high magnitude (40) plus 1 overflows 64-bits",
    );
    check(
        "@a = llquantize(1, 10, 0, 2, 10); @a = llquantize(1, 2, 0, 2, 10);",
        "D_LLQUANT_MATCHFACTOR",
        "llquantize( ) factor (argument #1) doesn't match previous declaration: expected 10, found 2",
    );
    check(
        "@a = llquantize(1, 10, 0, 2, 10); @a = llquantize(1, 10, 1, 2, 10);",
        "D_LLQUANT_MATCHLMAG",
        "llquantize( ) low magnitude (argument #2) doesn't match previous declaration: expected 0, found 1",
    );
    check(
        "@a = llquantize(1, 10, 0, 2, 10); @a = llquantize(1, 10, 0, 3, 10);",
        "D_LLQUANT_MATCHHMAG",
        "llquantize( ) high magnitude (argument #3) doesn't match previous declaration: expected 2, found 3",
    );
    check(
        "@a = llquantize(1, 10, 0, 2, 10); @a = llquantize(1, 10, 0, 2, 5);",
        "D_LLQUANT_MATCHSTEPS",
        "llquantize( ) steps (argument #4) doesn't match previous declaration: expected 10, found 5",
    );
}

#[test]
fn printf_and_printa() {
    check(
        "x = \"a\"; printf(x);",
        "D_PRINTF_ARG_FMT",
        "printf( ) argument #1 is incompatible with prototype:\n\tprototype: string constant\n\t argument: string",
    );
    check(
        "printf(\"\");",
        "D_PRINTF_FMT_EMPTY",
        "printf( ) format string is empty",
    );
    check(
        "system(\"\");",
        "D_PRINTF_FMT_EMPTY",
        "system( ) format string is empty",
    );
    // freopen("") restores the output; the sentinel it compiles to may not be written
    // by hand, and the empty format takes no arguments.
    check(
        "freopen(\"<restore>\");",
        "D_FREOPEN_INVALID",
        "freopen( ) argument #1 cannot be \"<restore>\"",
    );
    check(
        "freopen(\"\", 1);",
        "D_PRINTF_ARG_EXTRA",
        "freopen( ) prototype mismatch: only 1 arguments required by this format string",
    );
    check(
        "printf(\"%s\", 1);",
        "D_PRINTF_ARG_TYPE",
        "printf( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: %s\n\t prototype: char [] or string (or use stringof)\n\t  argument: int",
    );
    check(
        "printf(\"%d %c\", 1, \"x\");",
        "D_PRINTF_ARG_TYPE",
        "printf( ) argument #3 is incompatible with conversion #2 prototype:\n\tconversion: %c\n\t prototype: char, short, or int\n\t  argument: string",
    );
    check("printf(\"%d\");", "D_PRINTF_ARG_PROTO", "printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding value argument");
    check(
        "printf(\"%d\\n\", 1, 2);",
        "D_PRINTF_ARG_EXTRA",
        "printf( ) prototype mismatch: only 2 arguments required by this format string",
    );
    check("printf(\"%*d\");", "D_PRINTF_DYN_PROTO", "printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding \"*\" argument");
    check(
        "printf(\"%*d\", \"a\", 1);",
        "D_PRINTF_DYN_TYPE",
        "printf( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: % *d\n\t prototype: int\n\t  argument: string",
    );
    check(
        "printf(\"%@d\", 1);",
        "D_PRINTF_AGG_CONV",
        "%@ conversion requires an aggregation and is not for use with printf( )",
    );
    check(
        "printf(\"%z\");",
        "D_SYNTAX",
        "format conversion #1 is undefined: %z",
    );
    check(
        "system(\"%s\", 1);",
        "D_PRINTF_ARG_TYPE",
        "system( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: %s\n\t prototype: char [] or string (or use stringof)\n\t  argument: int",
    );
    check(
        "printa();",
        "D_PROTO_LEN",
        "printa( ) prototype mismatch: 0 args passed, at least 1 expected",
    );
    check(
        "printa(\"%d\\n\");",
        "D_PRINTA_PROTO",
        "printa( ) prototype mismatch: 1 args passed, 2 expected",
    );
    check(
        "printa(\"%d\", 1);",
        "D_PRINTA_AGGARG",
        "printa( ) argument #2 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: int",
    );
    check(
        "printa(@nope);",
        "D_PRINTA_AGGBAD",
        "undefined aggregation: @nope",
    );
    check(
        "@a[1] = count(); @b = count(); printa(\"%d %@d %@d\", @a, @b);",
        "D_PRINTA_AGGKEY",
        "printa( ): @a and @b do not have matching key signatures: @a has 1 key, @b has 0 keys",
    );
    check(
        "@a[1] = count(); @b[\"x\"] = count(); printa(\"%@d %@d\", @a, @b);",
        "D_PRINTA_AGGPROTO",
        "printa( ): @b[ ] key #1 is incompatible with @a:\n        a key #1: int\n        b key #1: string",
    );
    check(
        "@a[1] = count(); printa(\"%s %@d\", @a);",
        "D_PRINTF_ARG_TYPE",
        "printa( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: %s\n\t prototype: char [] or string (or use stringof)\n\t  argument: int",
    );
}

#[test]
fn recording_actions() {
    check(
        "trace(bcopy(0, 0, 0));",
        "D_TRACE_VOID",
        "trace( ) may not be applied to a void expression",
    );
    check(
        "@a = count(); trace(@a);",
        "D_TRACE_AGG",
        "trace( ) may not be applied to an aggregation",
    );
    check(
        "print(bcopy(0, 0, 0));",
        "D_PRINT_VOID",
        "print( ) may not be applied to a void expression",
    );
    check(
        "@a = count(); print(@a);",
        "D_PRINT_AGG",
        "print( ) may not be applied to an aggregation",
    );
    check(
        "trace(1, 2);",
        "D_PROTO_LEN",
        "trace( ) prototype mismatch: 2 args passed, 1 expected",
    );
    check(
        "tracemem(\"x\", 10);",
        "D_TRACEMEM_ADDR",
        "tracemem( ) argument #1 is incompatible with prototype:\n\tprototype: pointer or integer\n\t argument: string",
    );
    check(
        "tracemem(arg0, 0);",
        "D_TRACEMEM_SIZE",
        "tracemem( ) argument #2 must be a non-zero positive integer constant",
    );
    check(
        "tracemem(arg0);",
        "D_TRACEMEM_ARGS",
        "tracemem( ) prototype mismatch: 1 arg passed, at least 2 expected",
    );
    check(
        "tracemem(arg0, 10, \"x\");",
        "D_TRACEMEM_DYNSIZE",
        "tracemem( ) argument #3 must be a scalar",
    );
    check(
        "stack(0);",
        "D_STACK_SIZE",
        "stack( ) size must be a non-zero positive integral constant expression",
    );
    check(
        "stack(1, 2);",
        "D_STACK_PROTO",
        "stack( ) prototype mismatch: too many arguments",
    );
    check(
        "ustack(0);",
        "D_USTACK_FRAMES",
        "ustack( ) argument #1 must be a non-zero positive integer constant",
    );
    check(
        "ustack(1, -1);",
        "D_USTACK_STRSIZE",
        "ustack( ) argument #2 must be a positive integer constant",
    );
    check(
        "ustack(1, 2, 3);",
        "D_USTACK_PROTO",
        "ustack( ) prototype mismatch: too many arguments",
    );
    check("setopt(\"quiet\", 1);", "D_PROTO_ARG", "setopt( ) argument #2 is incompatible with prototype:\n\tprototype: const char *\n\t argument: int");
}

#[test]
fn aggregation_actions() {
    check(
        "clear();",
        "D_CLEAR_PROTO",
        "clear( ) prototype mismatch: 0 args passed, 1 expected",
    );
    check(
        "clear(1);",
        "D_CLEAR_AGGARG",
        "clear( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: int",
    );
    check(
        "clear(@nope);",
        "D_CLEAR_AGGBAD",
        "undefined aggregation: @nope",
    );
    check(
        "@a = count(); normalize(@a);",
        "D_NORMALIZE_PROTO",
        "normalize( ) prototype mismatch: 1 args passed, 2 expected",
    );
    check(
        "@a = count(); normalize(@a, \"x\");",
        "D_NORMALIZE_SCALAR",
        "normalize( ) argument #2 must be of scalar type",
    );
    check(
        "denormalize(2);",
        "D_NORMALIZE_AGGARG",
        "denormalize( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: int",
    );
    check(
        "normalize(@nope, 2);",
        "D_NORMALIZE_AGGBAD",
        "undefined aggregation: @nope",
    );
    check(
        "@a = count(); trunc(@a, 1, 2);",
        "D_TRUNC_PROTO",
        "trunc( ) prototype mismatch: 3 args passed, no more than 2 expected",
    );
    check(
        "@a = count(); trunc(@a, \"x\");",
        "D_TRUNC_SCALAR",
        "trunc( ) argument #2 must be of scalar type",
    );
    check(
        "trunc(1);",
        "D_TRUNC_AGGARG",
        "trunc( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: int",
    );
    check(
        "trunc(@nope);",
        "D_TRUNC_AGGBAD",
        "undefined aggregation: @nope",
    );
}

#[test]
fn speculation_ordering() {
    check(
        "trace(1); speculate(1);",
        "D_SPEC_DREC",
        "speculate( ) may not follow data-recording action(s)",
    );
    check(
        "speculate(1); speculate(1);",
        "D_SPEC_SPEC",
        "speculate( ) may not follow speculate( )",
    );
    check(
        "commit(1); speculate(1);",
        "D_SPEC_COMM",
        "speculate( ) may not follow commit( )",
    );
    check(
        "speculate(1); @a = count();",
        "D_AGG_SPEC",
        "aggregating actions may not follow speculate( )",
    );
    check(
        "speculate(1); stop();",
        "D_ACT_SPEC",
        "destructive actions may not follow speculate( )",
    );
    check(
        "speculate(1); exit(0);",
        "D_EXIT_SPEC",
        "exit( ) may not follow speculate( )",
    );
    check(
        "trace(1); commit(1);",
        "D_COMM_DREC",
        "commit( ) may not follow data-recording action(s)",
    );
    check(
        "speculate(1); trace(2); commit(1);",
        "D_COMM_DREC",
        "commit( ) may not follow data-recording action(s)",
    );
    check(
        "@a = count(); commit(1);",
        "D_COMM_DREC",
        "commit( ) may not follow data-recording action(s)",
    );
    check(
        "commit(1); @a = count();",
        "D_AGG_COMM",
        "aggregating actions may not follow commit( )",
    );
    check(
        "commit(1); trace(1);",
        "D_DREC_COMM",
        "data-recording actions may not follow commit( )",
    );
}
