//! Names of DTrace's built-in variables and arrays, by DIF variable id (§15.4), for the
//! listing's `! DT_VAR(n) = "name"` comments, the assembler's named operands and the
//! verifier's "is this id a built-in" rule.

use crate::isa::{builtin_array, builtin_variable};

/// Built-in scalar variables, `(id, name)`, in id order.
const BUILTIN_VARIABLES: &[(u16, &str)] = &[
    (builtin_variable::CURTHREAD, "curthread"),
    (builtin_variable::TIMESTAMP, "timestamp"),
    (builtin_variable::VTIMESTAMP, "vtimestamp"),
    (builtin_variable::IPL, "ipl"),
    (builtin_variable::EPID, "epid"),
    (builtin_variable::ID, "id"),
    (builtin_variable::ARG0, "arg0"),
    (builtin_variable::ARG0 + 1, "arg1"),
    (builtin_variable::ARG0 + 2, "arg2"),
    (builtin_variable::ARG0 + 3, "arg3"),
    (builtin_variable::ARG0 + 4, "arg4"),
    (builtin_variable::ARG0 + 5, "arg5"),
    (builtin_variable::ARG0 + 6, "arg6"),
    (builtin_variable::ARG0 + 7, "arg7"),
    (builtin_variable::ARG0 + 8, "arg8"),
    (builtin_variable::ARG0 + 9, "arg9"),
    (builtin_variable::STACKDEPTH, "stackdepth"),
    (builtin_variable::CALLER, "caller"),
    (builtin_variable::PROBEPROV, "probeprov"),
    (builtin_variable::PROBEMOD, "probemod"),
    (builtin_variable::PROBEFUNC, "probefunc"),
    (builtin_variable::PROBENAME, "probename"),
    (builtin_variable::PID, "pid"),
    (builtin_variable::TID, "tid"),
    (builtin_variable::EXECNAME, "execname"),
    (builtin_variable::ZONENAME, "zonename"),
    (builtin_variable::WALLTIMESTAMP, "walltimestamp"),
    (builtin_variable::USTACKDEPTH, "ustackdepth"),
    (builtin_variable::UCALLER, "ucaller"),
    (builtin_variable::PPID, "ppid"),
    (builtin_variable::UID, "uid"),
    (builtin_variable::GID, "gid"),
    (builtin_variable::ERRNO, "errno"),
    (builtin_variable::CURCPU, "curcpu"),
    (builtin_variable::CPU, "cpu"),
];

/// Built-in arrays (`ldga`), `(id, name)`.
const BUILTIN_ARRAYS: &[(u16, &str)] = &[
    (builtin_array::ARGS, "args"),
    (builtin_array::REGS, "regs"),
    (builtin_array::UREGS, "uregs"),
];

/// The name of the built-in scalar variable `id`, if `id` is one.
pub fn builtin_variable_name(id: u16) -> Option<&'static str> {
    BUILTIN_VARIABLES
        .iter()
        .find(|(candidate, _)| *candidate == id)
        .map(|(_, name)| *name)
}

/// The id of the built-in scalar variable called `name`, if there is one.
pub fn builtin_variable_id(name: &str) -> Option<u16> {
    BUILTIN_VARIABLES
        .iter()
        .find(|(_, candidate)| *candidate == name)
        .map(|(id, _)| *id)
}

/// The name of the built-in array `id` (`args`, `regs`, `uregs`), if `id` is one.
pub fn builtin_array_name(id: u16) -> Option<&'static str> {
    BUILTIN_ARRAYS
        .iter()
        .find(|(candidate, _)| *candidate == id)
        .map(|(_, name)| *name)
}

/// The id of the built-in array called `name`, if there is one.
pub fn builtin_array_id(name: &str) -> Option<u16> {
    BUILTIN_ARRAYS
        .iter()
        .find(|(_, candidate)| *candidate == name)
        .map(|(id, _)| *id)
}
