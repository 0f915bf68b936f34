//! Tests of the reference interpreter's variables at the DIFO level: scalars, strings,
//! associative arrays keyed by tuples, and dynamic-variable space exhaustion.

mod interp_common;

use interp_common::*;

// ---------------------------------------------------------------------------------------
// Variables.

const X: u16 = 0x500;
const S: u16 = 0x501;
const A: u16 = 0x502;

fn global_string(difo: Code) -> Code {
    difo.variable(
        S,
        VariableScope::Global,
        VariableKind::Scalar,
        DifType::string(256),
    )
}

#[test]
fn variables_store_load_and_delete() {
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    let scalar = |scope: VariableScope, load: Opcode, store: Opcode, value: u64| {
        let stored = code()
            .variable(X, scope, VariableKind::Scalar, DifType::integer(8))
            .setx(value, 1)
            .indexed(store, X, 1)
            .ret(0)
            .build();
        let loaded = code()
            .variable(X, scope, VariableKind::Scalar, DifType::integer(8))
            .indexed(load, X, 1)
            .ret(1)
            .build();
        (stored, loaded)
    };
    let (store, load) = scalar(VariableScope::Global, Opcode::Ldgs, Opcode::Stgs, 42);
    check_in(&mut state, "global unset", &load, Expect::Value(0));
    check_in(&mut state, "store global", &store, Expect::Value(0));
    check_in(&mut state, "load global", &load, Expect::Value(42));
    let (store, load) = scalar(VariableScope::ThreadLocal, Opcode::Ldts, Opcode::Stts, 9);
    check_in(&mut state, "store self->", &store, Expect::Value(0));
    check_in(&mut state, "load self->", &load, Expect::Value(9));
    assert!(state.variables.dynamic_bytes_used() > 0);
    let (delete, _) = scalar(VariableScope::ThreadLocal, Opcode::Ldts, Opcode::Stts, 0);
    check_in(&mut state, "delete self->", &delete, Expect::Value(0));
    check_in(&mut state, "self-> deleted", &load, Expect::Value(0));
    assert_eq!(state.variables.dynamic_bytes_used(), 0);

    // A by-reference global starts empty, takes a copy of the string stored into it, and
    // is not changed by later changes of the source.
    let load_string = global_string(code())
        .indexed(Opcode::Ldgs, S, 1)
        .ret(1)
        .returns_string()
        .build();
    check_in(&mut state, "string unset", &load_string, Expect::Text(""));
    let store_string = global_string(code())
        .sets(b"copied text", 1)
        .indexed(Opcode::Stgs, S, 1)
        .ret(0)
        .build();
    check_in(&mut state, "store string", &store_string, Expect::Value(0));
    check_in(
        &mut state,
        "load string",
        &load_string,
        Expect::Text("copied text"),
    );
    let store_null = global_string(code())
        .indexed(Opcode::Stgs, S, 0)
        .ret(0)
        .build();
    check_in(&mut state, "store NULL", &store_null, Expect::Value(0));
    check_in(&mut state, "NULL string", &load_string, Expect::Value(0));
}

#[test]
fn associative_arrays_are_keyed_by_the_tuple() {
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    let array = |difo: Code| {
        difo.variable(
            A,
            VariableScope::Global,
            VariableKind::Array,
            DifType::integer(8),
        )
    };
    let keyed = |difo: Code, name: &[u8], number: u64| {
        array(difo)
            .op(Opcode::Flushts, 0, 0, 0)
            .sets(name, 1)
            .push_string(1)
            .setx(number, 1)
            .push_value(1)
    };
    let store = |name: &[u8], number: u64, value: u64| {
        keyed(code(), name, number)
            .setx(value, 2)
            .indexed(Opcode::Stgaa, A, 2)
            .ret(0)
            .build()
    };
    let load = |name: &[u8], number: u64| {
        keyed(code(), name, number)
            .indexed(Opcode::Ldgaa, A, 2)
            .ret(2)
            .build()
    };
    check_in(
        &mut state,
        "store a[\"x\", 1]",
        &store(b"x", 1, 100),
        Expect::Value(0),
    );
    check_in(
        &mut state,
        "store a[\"x\", 2]",
        &store(b"x", 2, 200),
        Expect::Value(0),
    );
    check_in(
        &mut state,
        "store a[\"y\", 1]",
        &store(b"y", 1, 300),
        Expect::Value(0),
    );
    check_in(
        &mut state,
        "a[\"x\", 1]",
        &load(b"x", 1),
        Expect::Value(100),
    );
    check_in(
        &mut state,
        "a[\"x\", 2]",
        &load(b"x", 2),
        Expect::Value(200),
    );
    check_in(
        &mut state,
        "a[\"y\", 1]",
        &load(b"y", 1),
        Expect::Value(300),
    );
    check_in(&mut state, "a[\"z\", 1]", &load(b"z", 1), Expect::Value(0));
    check_in(
        &mut state,
        "delete a[\"x\", 1]",
        &store(b"x", 1, 0),
        Expect::Value(0),
    );
    check_in(&mut state, "deleted", &load(b"x", 1), Expect::Value(0));
    // Thread-local associative arrays are per thread and separate from globals.
    let thread_store = keyed(code(), b"x", 2)
        .variable(
            A,
            VariableScope::ThreadLocal,
            VariableKind::Array,
            DifType::integer(8),
        )
        .setx(5, 2)
        .indexed(Opcode::Sttaa, A, 2)
        .ret(0)
        .build();
    let thread_load = keyed(code(), b"x", 2)
        .variable(
            A,
            VariableScope::ThreadLocal,
            VariableKind::Array,
            DifType::integer(8),
        )
        .indexed(Opcode::Ldtaa, A, 2)
        .ret(2)
        .build();
    check_in(&mut state, "self->a store", &thread_store, Expect::Value(0));
    check_in(&mut state, "self->a load", &thread_load, Expect::Value(5));
    check_in(
        &mut state,
        "a unchanged",
        &load(b"x", 2),
        Expect::Value(200),
    );
}

#[test]
fn dynamic_variable_space_exhaustion_drops_silently() {
    let options = MachineOptions {
        dynamic_variable_size: 100,
        ..MachineOptions::default()
    };
    let mut state = MachineState::new(&options, Default::default());
    let store = |id: u16| {
        code()
            .variable(
                id,
                VariableScope::ThreadLocal,
                VariableKind::Scalar,
                DifType::integer(8),
            )
            .setx(1, 1)
            .indexed(Opcode::Stts, id, 1)
            .ret(0)
            .build()
    };
    let load = code()
        .variable(
            0x501,
            VariableScope::ThreadLocal,
            VariableKind::Scalar,
            DifType::integer(8),
        )
        .indexed(Opcode::Ldts, 0x501, 1)
        .ret(1)
        .build();
    check_in(&mut state, "first fits", &store(0x500), Expect::Value(0));
    check_in(
        &mut state,
        "second is dropped",
        &store(0x501),
        Expect::Value(0),
    );
    check_in(&mut state, "dropped reads 0", &load, Expect::Value(0));
    assert_eq!(state.variables.dynamic_drops(), 1);
}
