//! What the DIFO-level interpreter tests share: building DIFOs by hand with the
//! `Instruction` constructors, and running them on a machine against an expected result.

#![allow(dead_code, unused_imports)] // Each test file uses the part it needs.

pub use difvm::difo::{DifType, DifVariable, Difo, VariableKind, VariableScope};
pub use difvm::interp::{
    execute_difo, DifFault, MachineOptions, MachineState, ProbeIdentity, SimpleFiringContext,
};
pub use difvm::isa::{
    builtin_variable, subroutine, Instruction, Opcode, DIF_TYPE_CTF, DIF_TYPE_STRING,
};
pub use difvm::object::{FaultCode, ProbeDescription};

// ---------------------------------------------------------------------------------------
// Building DIFOs.

/// A DIFO under construction; constants go into the tables as they are used.
#[derive(Clone)]
pub struct Code(Difo);

pub fn code() -> Code {
    Code(Difo {
        code: Vec::new(),
        integer_table: Vec::new(),
        string_table: Vec::new(),
        variable_table: Vec::new(),
        return_type: DifType::integer(8),
        kernel_relocations: Vec::new(),
    })
}

impl Code {
    pub fn op(mut self, op: Opcode, r1: u8, r2: u8, rd: u8) -> Code {
        self.0.code.push(Instruction::registers(op, r1, r2, rd));
        self
    }
    pub fn indexed(mut self, op: Opcode, index: u16, rd: u8) -> Code {
        self.0.code.push(Instruction::indexed(op, index, rd));
        self
    }
    pub fn branch(mut self, op: Opcode, label: u32) -> Code {
        self.0.code.push(Instruction::branch(op, label));
        self
    }
    pub fn word(mut self, word: u32) -> Code {
        self.0.code.push(Instruction(word));
        self
    }
    pub fn setx(mut self, value: u64, rd: u8) -> Code {
        self.0.integer_table.push(value);
        let index = self.0.integer_table.len() as u16 - 1;
        self.indexed(Opcode::Setx, index, rd)
    }
    pub fn sets(mut self, text: &[u8], rd: u8) -> Code {
        let offset = self.0.string_table.len() as u16;
        self.0.string_table.extend_from_slice(text);
        self.0.string_table.push(0);
        self.indexed(Opcode::Sets, offset, rd)
    }
    pub fn push_value(self, register: u8) -> Code {
        self.op(Opcode::Pushtv, DIF_TYPE_CTF, 0, register)
    }
    pub fn push_string(self, register: u8) -> Code {
        self.op(Opcode::Pushtr, DIF_TYPE_STRING, 0, register)
    }
    pub fn call(self, number: u16, rd: u8) -> Code {
        self.indexed(Opcode::Call, number, rd)
    }
    pub fn ret(self, register: u8) -> Code {
        self.op(Opcode::Ret, 0, 0, register)
    }
    pub fn returns_string(mut self) -> Code {
        self.0.return_type = DifType::string(256);
        self
    }
    pub fn variable(
        mut self,
        id: u16,
        scope: VariableScope,
        kind: VariableKind,
        ty: DifType,
    ) -> Code {
        let name_offset = self.0.string_table.len() as u32;
        self.0
            .string_table
            .extend_from_slice(format!("v{id:x}\0").as_bytes());
        self.0.variable_table.push(DifVariable {
            name_offset,
            id,
            kind,
            scope,
            flags: 3,
            ty,
        });
        self
    }
    pub fn build(self) -> Difo {
        self.0
    }
}

/// `%r1 = left; %r2 = right; op %r1, %r2, %r3; ret %r3`.
pub fn binary(op: Opcode, left: u64, right: u64) -> Difo {
    code()
        .setx(left, 1)
        .setx(right, 2)
        .op(op, 1, 2, 3)
        .ret(3)
        .build()
}

// ---------------------------------------------------------------------------------------
// Running DIFOs.

/// What a DIFO run should give.
#[derive(Debug)]
pub enum Expect<'a> {
    Value(u64),
    Text(&'a str),
    Fault(FaultCode, u64, Option<u32>),
}

pub fn context() -> SimpleFiringContext {
    let mut user_string = b"from user space".to_vec();
    user_string.push(0);
    SimpleFiringContext {
        cpu: 0,
        arguments: vec![10, 20, 30],
        pid: 1234,
        tid: 1235,
        execname: "dtrace-test".to_string(),
        timestamp: 777,
        kernel_memory: vec![
            (0x1000, vec![0x7f, 0, 0, 1, 0xfe, 0x80, 0xff, 0xff]),
            (0x2000, [0u8; 16].to_vec()),
        ],
        user_memory: vec![(0x5000, user_string)],
        ..SimpleFiringContext::default()
    }
}

pub fn run_in(
    state: &mut MachineState,
    difo: &Difo,
    context: &SimpleFiringContext,
) -> (Result<u64, DifFault>, Option<String>) {
    let probe = ProbeDescription {
        provider: "test".into(),
        module: "mod".into(),
        function: "func".into(),
        name: "entry".into(),
    };
    let identity = ProbeIdentity {
        epid: 7,
        probe_id: 99,
        probe: &probe,
    };
    let result = execute_difo(difo, state, &identity, context);
    let text = match result {
        Ok(address) if difo.return_type.is_by_reference() && address != 0 => state
            .memory
            .read_string(
                context,
                address,
                4096,
                difvm::interp::memory::Access::Kernel,
            )
            .ok()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        _ => None,
    };
    (result, text)
}

pub fn check(name: &str, difo: &Difo, expected: Expect) {
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    check_in(&mut state, name, difo, expected);
}

pub fn check_in(state: &mut MachineState, name: &str, difo: &Difo, expected: Expect) {
    state.begin_clause();
    let (result, text) = run_in(state, difo, &context());
    match expected {
        Expect::Value(value) => assert_eq!(result, Ok(value), "{name}"),
        Expect::Text(expected) => {
            assert!(result.is_ok(), "{name}: {result:?}");
            assert_eq!(text.as_deref(), Some(expected), "{name}");
        }
        Expect::Fault(code, value, instruction) => {
            assert_eq!(
                result,
                Err(DifFault {
                    code,
                    value,
                    instruction
                }),
                "{name}"
            )
        }
    }
}
