//! A translated probe program: its instructions, the functions they form (the probe's
//! chain, the subprograms it calls, the `bpf_loop` callbacks), and its loading. The
//! kernel requires BTF function information (`func_info`) of a program with callbacks or
//! global functions (the loop callers and the address decoder), so such a program is
//! loaded together with a BTF blob typing its functions.

use std::os::fd::AsFd;

use crate::btf::{
    encode_func_info, function_btf, FunctionType, ParameterType, FUNC_INFO_RECORD_SIZE,
};
use crate::ebpf::opcode::{class, operation, BPF_CALL, BPF_JMP, BPF_PSEUDO_CALL, BPF_PSEUDO_FUNC};
use crate::ebpf::Insn;
use crate::sys::btf_load::bpf_btf_load;
use crate::sys::{bpf_prog_load, AttachType, LoadError, ProgFd, ProgramLoadRequest, ProgramType};

/// What a function of the program is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    /// The program's entry: the probe's ECB chain.
    Probe,
    /// A subprogram it calls (the ERROR probe's clauses, a long clause's actions, a
    /// loop's call to `bpf_loop`).
    Subprogram,
    /// A `bpf_loop` callback.
    LoopCallback,
    /// The subprogram that calls `bpf_loop` with a callback (see `code::run_loop`): a
    /// global function, given the iteration count and the work area, which the kernel's
    /// verifier checks once (and its callback with it) rather than at every call.
    LoopCaller,
    /// The address decoder (see `memory`), a global function the verifier checks once.
    AddressDecoder,
}

/// One function: where it starts (an instruction slot) and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgramFunction {
    pub start: usize,
    pub kind: FunctionKind,
}

/// The result of translating one probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslatedProgram {
    pub instructions: Vec<Insn>,
    /// In instruction order, the entry first.
    pub functions: Vec<ProgramFunction>,
    /// The bytes of the work area, which loop callers are handed.
    pub work_area_size: u32,
}

impl TranslatedProgram {
    /// Finds the functions of `instructions` as the kernel does: the entry, and every
    /// target of a local call or of a function-address load; a subprogram that loads a
    /// function's address is a loop caller, handed a work area of `work_area_size` bytes,
    /// and the one starting at a slot of `decoder_starts` the address decoder.
    pub fn new(
        instructions: Vec<Insn>,
        work_area_size: u32,
        decoder_starts: &[usize],
    ) -> TranslatedProgram {
        let mut functions = vec![ProgramFunction {
            start: 0,
            kind: FunctionKind::Probe,
        }];
        let mut slot = 0;
        while slot < instructions.len() {
            let instruction = instructions[slot];
            let target = slot as i64 + 1 + instruction.imm as i64;
            let kind = if instruction.is_ld_imm64() && instruction.src == BPF_PSEUDO_FUNC {
                Some(FunctionKind::LoopCallback)
            } else if class(instruction.code) == BPF_JMP
                && operation(instruction.code) == BPF_CALL
                && instruction.src == BPF_PSEUDO_CALL
            {
                Some(FunctionKind::Subprogram)
            } else {
                None
            };
            if let (Some(kind), Ok(start)) = (kind, usize::try_from(target)) {
                if !functions.iter().any(|function| function.start == start) {
                    functions.push(ProgramFunction { start, kind });
                }
            }
            slot += if instruction.is_ld_imm64() { 2 } else { 1 };
        }
        functions.sort_by_key(|function| function.start);
        let ends: Vec<usize> = functions
            .iter()
            .skip(1)
            .map(|function| function.start)
            .chain([instructions.len()])
            .collect();
        for (function, end) in functions.iter_mut().zip(ends) {
            let loads_function = instructions[function.start..end]
                .iter()
                .any(|instruction| instruction.is_ld_imm64() && instruction.src == BPF_PSEUDO_FUNC);
            if function.kind == FunctionKind::Subprogram && loads_function {
                function.kind = FunctionKind::LoopCaller;
            }
            if function.kind == FunctionKind::Subprogram && decoder_starts.contains(&function.start)
            {
                function.kind = FunctionKind::AddressDecoder;
            }
        }
        TranslatedProgram {
            instructions,
            functions,
            work_area_size,
        }
    }

    /// Whether the kernel needs the functions' BTF to load the program: callbacks and
    /// global functions must have it.
    pub fn needs_function_info(&self) -> bool {
        self.functions.iter().any(|function| {
            matches!(
                function.kind,
                FunctionKind::LoopCallback | FunctionKind::AddressDecoder
            )
        })
    }

    /// The BTF types of the functions, in order.
    pub fn function_types(&self) -> Vec<FunctionType> {
        let mut callbacks = 0;
        self.functions
            .iter()
            .map(|function| match function.kind {
                FunctionKind::Probe | FunctionKind::Subprogram => FunctionType {
                    name: if function.kind == FunctionKind::Probe {
                        "dtrace_probe".to_string()
                    } else {
                        format!("dtrace_function_{}", function.start)
                    },
                    parameters: vec![("context".to_string(), ParameterType::Pointer)],
                    global: false,
                },
                FunctionKind::LoopCallback => {
                    callbacks += 1;
                    FunctionType {
                        name: format!("dtrace_loop_{}", callbacks - 1),
                        parameters: vec![
                            ("index".to_string(), ParameterType::Long),
                            ("context".to_string(), ParameterType::Pointer),
                        ],
                        global: false,
                    }
                }
                FunctionKind::LoopCaller => FunctionType {
                    name: format!("dtrace_loop_caller_{}", function.start),
                    parameters: vec![
                        ("count".to_string(), ParameterType::Long),
                        (
                            "work_area".to_string(),
                            ParameterType::Memory(self.work_area_size),
                        ),
                    ],
                    global: true,
                },
                FunctionKind::AddressDecoder => FunctionType {
                    name: "dtrace_decode_address".to_string(),
                    parameters: vec![
                        ("address".to_string(), ParameterType::Long),
                        (
                            "work_area".to_string(),
                            ParameterType::Memory(self.work_area_size),
                        ),
                        ("extent".to_string(), ParameterType::Long),
                        ("restricted".to_string(), ParameterType::Long),
                    ],
                    global: true,
                },
            })
            .collect()
    }

    /// Loads the program as `program_type` named `name` (with `log_level` as in
    /// [`ProgramLoadRequest`]), with its functions' BTF when it needs it.
    pub fn load(
        &self,
        program_type: ProgramType,
        name: &str,
        log_level: u32,
    ) -> Result<ProgFd, LoadError> {
        self.load_for_attach_type(program_type, None, name, log_level)
    }

    /// As [`load`](Self::load), declaring the attach type the program will be attached
    /// with when the kernel needs it at load time (uprobe multi-links).
    pub fn load_for_attach_type(
        &self,
        program_type: ProgramType,
        expected_attach_type: Option<AttachType>,
        name: &str,
        log_level: u32,
    ) -> Result<ProgFd, LoadError> {
        let mut request = ProgramLoadRequest::new(program_type, &self.instructions);
        request.expected_attach_type = expected_attach_type;
        request.name = name;
        request.log_level = log_level;
        if !self.needs_function_info() {
            return bpf_prog_load(&request);
        }
        let btf = function_btf(&self.function_types());
        let records: Vec<(u32, u32)> = self
            .functions
            .iter()
            .zip(&btf.function_type_ids)
            .map(|(function, &type_id)| (function.start as u32, type_id))
            .collect();
        let func_info = encode_func_info(&records);
        let btf_fd = bpf_btf_load(&btf.blob)?;
        request.btf = Some(btf_fd.as_fd());
        request.func_info = &func_info;
        request.func_info_rec_size = FUNC_INFO_RECORD_SIZE;
        bpf_prog_load(&request)
    }
}
