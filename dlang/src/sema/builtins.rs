//! The built-in variables of §6 with their DIF ids (isa.rs) and D types.

use difvm::isa::{builtin_array, builtin_variable as id};

use super::variables::{VariableShape, VariableTable};
use crate::types::{parse_type_name, TypeTable};

/// Built-in scalars: name, DIF id, type name.
const BUILTIN_SCALARS: &[(&str, u16, &str)] = &[
    ("curthread", id::CURTHREAD, "struct task_struct *"),
    ("timestamp", id::TIMESTAMP, "uint64_t"),
    ("vtimestamp", id::VTIMESTAMP, "uint64_t"),
    ("ipl", id::IPL, "uint_t"),
    ("epid", id::EPID, "uint_t"),
    ("id", id::ID, "uint_t"),
    ("stackdepth", id::STACKDEPTH, "uint32_t"),
    ("caller", id::CALLER, "uintptr_t"),
    ("probeprov", id::PROBEPROV, "string"),
    ("probemod", id::PROBEMOD, "string"),
    ("probefunc", id::PROBEFUNC, "string"),
    ("probename", id::PROBENAME, "string"),
    ("pid", id::PID, "pid_t"),
    ("tid", id::TID, "id_t"),
    ("execname", id::EXECNAME, "string"),
    ("zonename", id::ZONENAME, "string"),
    ("walltimestamp", id::WALLTIMESTAMP, "int64_t"),
    ("ustackdepth", id::USTACKDEPTH, "uint32_t"),
    ("ucaller", id::UCALLER, "uint64_t"),
    ("ppid", id::PPID, "pid_t"),
    ("uid", id::UID, "uid_t"),
    ("gid", id::GID, "gid_t"),
    ("errno", id::ERRNO, "int"),
    ("curcpu", id::CURCPU, "cpuinfo_t *"),
    ("cpu", id::CPU, "processorid_t"),
];

/// Registers every built-in variable in `variables`.
pub fn register_builtins(types: &mut TypeTable, variables: &mut VariableTable) {
    for (name, dif_id, type_name) in BUILTIN_SCALARS {
        // The names are fixed and the types are defined by the intrinsic table, so
        // resolution cannot fail; a failure would only drop the built-in.
        if let Ok(ty) = parse_type_name(types, type_name) {
            variables.add_builtin(name, *dif_id, VariableShape::Scalar, ty);
        }
    }
    let int64 = types.well_known().int64_t;
    for index in 0..10u16 {
        variables.add_builtin(
            &format!("arg{index}"),
            id::ARG0 + index,
            VariableShape::Scalar,
            int64,
        );
    }
    let uint64 = types.well_known().uint64_t;
    let dynamic = types.well_known().dynamic;
    variables.add_builtin(
        "args",
        builtin_array::ARGS,
        VariableShape::BuiltinArray {
            array: builtin_array::ARGS,
        },
        dynamic,
    );
    variables.add_builtin(
        "regs",
        builtin_array::REGS,
        VariableShape::BuiltinArray {
            array: builtin_array::REGS,
        },
        uint64,
    );
    variables.add_builtin(
        "uregs",
        builtin_array::UREGS,
        VariableShape::BuiltinArray {
            array: builtin_array::UREGS,
        },
        uint64,
    );
}
