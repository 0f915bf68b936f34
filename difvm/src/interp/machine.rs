//! The DIFO execution loop: registers, condition codes, the tuple stack, and the meaning of
//! every opcode (§15.3), with the faults of §13.
//!
//! The loop trusts nothing about the DIFO: unknown opcodes, register numbers past `%r7`,
//! table indexes out of range, branches that do not go forward and code that runs off its
//! end all fault with `illegal operation`. Every instruction either faults, returns, or
//! moves the program counter strictly forward, so a DIFO of N instructions executes at
//! most N of them.

use super::context::ProbeFiringContext;
use super::fault::{DifFault, RuntimeFault};
use super::memory::{Access, AddressSpace, RegionLifetime};
use super::speculation::SpeculationTable;
use super::variables::{ClauseLocals, DynamicVariableKey, NewValue, VariableSlot, VariableStore};
use crate::difo::{DifType, DifTypeKind, Difo, VariableScope, DIF_TYPE_FLAG_BY_USER_REFERENCE};
use crate::engine::{EngineOptions, MAX_OBJECT_SIZE};
use crate::isa::{
    builtin_array, builtin_variable, ConditionCodes, Instruction, Opcode, DIF_REGISTER_COUNT,
    DIF_TUPLE_STACK_DEPTH, DIF_TYPE_STRING,
};
use crate::object::{FaultCode, ProbeDescription};

/// Settings of the interpreter that the engine's options decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineOptions {
    /// `strsize`: the size of a string, NUL included (at least 2).
    pub strsize: u32,
    /// Scratch bytes per clause execution.
    pub scratch_size: u32,
    /// Bytes `alloca()` may allocate per clause execution.
    pub alloca_size: u64,
    /// `dynvarsize`: bytes of dynamic-variable space.
    pub dynamic_variable_size: u64,
    /// `nspec`.
    pub speculation_count: u32,
    /// `specsize`, per CPU.
    pub speculation_size: u64,
    /// `cleanrate`'s interval in nanoseconds.
    pub speculation_clean_interval: u64,
    /// Seed of `rand()`.
    pub random_seed: u64,
}

impl MachineOptions {
    /// The interpreter's part of a session's options.
    pub fn from_engine_options(options: &EngineOptions) -> MachineOptions {
        MachineOptions {
            strsize: options.strsize,
            scratch_size: options.scratch_size,
            alloca_size: options.alloca_size,
            dynamic_variable_size: options.dynamic_variable_size,
            speculation_count: options.speculation_count,
            speculation_size: options.speculation_size,
            speculation_clean_interval: options.speculation_clean_interval,
            random_seed: options.random_seed,
        }
    }
}

impl Default for MachineOptions {
    fn default() -> MachineOptions {
        MachineOptions::from_engine_options(&EngineOptions::default())
    }
}

/// Values read once per clause execution, so that they stay constant within it.
#[derive(Debug, Default)]
struct ClauseCache {
    timestamp: Option<u64>,
    walltimestamp: Option<u64>,
    vtimestamp: Option<u64>,
    /// Addresses of built-in strings already mapped: (variable id, address).
    builtin_strings: Vec<(u16, u64)>,
    /// Address of the `cpuinfo_t` `curcpu` points to, once mapped.
    curcpu: Option<u64>,
}

/// Per-firing state set aside while a nested ERROR firing runs.
#[derive(Debug)]
pub struct FiringState {
    locals: ClauseLocals,
    regions: super::memory::RegionTable,
    strtok: Option<u64>,
}

/// Everything DIF execution reads and writes besides the firing context: memory,
/// variables, speculations, the `rand()` state and per-clause caches.
#[derive(Debug)]
pub struct MachineState {
    pub(super) strsize: usize,
    pub memory: AddressSpace,
    pub variables: VariableStore,
    pub speculations: SpeculationTable,
    random: u64,
    clause: ClauseCache,
    /// `strtok()`'s saved position, kept for one firing.
    pub(super) strtok: Option<u64>,
}

impl MachineState {
    /// Fresh state; `types` are the program-wide variable types.
    pub fn new(
        options: &MachineOptions,
        types: std::collections::HashMap<(VariableScope, u16), DifType>,
    ) -> MachineState {
        MachineState {
            strsize: options.strsize.max(2) as usize,
            memory: AddressSpace::new(options.scratch_size as usize)
                .with_alloca_capacity(options.alloca_size),
            variables: VariableStore::new(types, options.dynamic_variable_size),
            speculations: SpeculationTable::new(
                options.speculation_count,
                options.speculation_size,
            )
            .with_clean_interval(options.speculation_clean_interval),
            random: options.random_seed | 1,
            clause: ClauseCache::default(),
            strtok: None,
        }
    }

    /// The configured string size.
    pub fn strsize(&self) -> usize {
        self.strsize
    }

    /// Starts a probe firing: clause-locals and `strtok()` state are forgotten.
    pub fn begin_firing(&mut self) {
        self.memory.reset_firing();
        self.variables.reset_clause_locals();
        self.strtok = None;
    }

    /// Starts a clause execution: scratch, clause regions and cached built-ins are
    /// forgotten.
    pub fn begin_clause(&mut self) {
        self.memory.reset_clause();
        self.clause = ClauseCache::default();
    }

    /// Sets the current firing's state aside for a nested firing (the ERROR probe).
    pub fn take_firing_state(&mut self) -> FiringState {
        FiringState {
            locals: self.variables.take_clause_locals(),
            regions: self.memory.take_firing_regions(),
            strtok: self.strtok.take(),
        }
    }

    /// Restores state set aside by [`MachineState::take_firing_state`].
    pub fn restore_firing_state(&mut self, state: FiringState) {
        self.variables.restore_clause_locals(state.locals);
        self.memory.restore_firing_regions(state.regions);
        self.strtok = state.strtok;
    }

    /// The next `rand()` value: a non-negative `int` from a xorshift generator.
    pub(super) fn next_random(&mut self) -> u64 {
        let mut x = self.random;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.random = x;
        (x >> 33) & 0x7fff_ffff
    }
}

/// The probe a DIFO runs for, as the engine's enabled-probe table describes it.
#[derive(Debug, Clone, Copy)]
pub struct ProbeIdentity<'a> {
    pub epid: u32,
    pub probe_id: u32,
    pub probe: &'a ProbeDescription,
}

/// What one tuple-stack entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TupleKind {
    /// `pushtv`: an integer.
    Value,
    /// `pushtr` of a string: `size` is its length plus the NUL.
    String,
    /// `pushtr` of another by-reference object of `size` bytes.
    Object,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct TupleEntry {
    pub value: u64,
    pub size: u64,
    pub kind: TupleKind,
}

enum Flow {
    Next,
    Jump(usize),
    Return(u64),
}

/// One DIFO execution in progress.
pub(super) struct Machine<'a> {
    difo: &'a Difo,
    pub(super) state: &'a mut MachineState,
    pub(super) probe: &'a ProbeIdentity<'a>,
    pub(super) context: &'a dyn ProbeFiringContext,
    registers: [u64; DIF_REGISTER_COUNT as usize],
    condition: ConditionCodes,
    pub(super) tuples: Vec<TupleEntry>,
    string_table_address: Option<u64>,
}

/// Runs `difo` and returns its result: the value of `ret`, which is an address for
/// by-reference return types.
pub fn execute_difo(
    difo: &Difo,
    state: &mut MachineState,
    probe: &ProbeIdentity<'_>,
    context: &dyn ProbeFiringContext,
) -> Result<u64, DifFault> {
    let mut machine = Machine {
        difo,
        state,
        probe,
        context,
        registers: [0; DIF_REGISTER_COUNT as usize],
        condition: ConditionCodes::default(),
        tuples: Vec::with_capacity(DIF_TUPLE_STACK_DEPTH),
        string_table_address: None,
    };
    machine.run()
}

fn sign_extend(raw: u64, size: usize) -> u64 {
    let shift = 64 - 8 * size as u32;
    (((raw << shift) as i64) >> shift) as u64
}

impl<'a> Machine<'a> {
    fn run(&mut self) -> Result<u64, DifFault> {
        let difo = self.difo;
        let code = &difo.code;
        let mut pc = 0usize;
        while let Some(&instruction) = code.get(pc) {
            let fault_here = move |fault: RuntimeFault| DifFault {
                code: fault.code,
                value: fault.value,
                instruction: Some(pc as u32),
            };
            match self.step(instruction).map_err(fault_here)? {
                Flow::Next => pc += 1,
                Flow::Jump(target) => {
                    if target <= pc || target >= code.len() {
                        return Err(fault_here(RuntimeFault::illegal_operation(target as u64)));
                    }
                    pc = target;
                }
                Flow::Return(value) => return Ok(value),
            }
        }
        Err(DifFault {
            code: FaultCode::IllegalOperation,
            value: 0,
            instruction: None,
        })
    }

    fn register(&self, register: u8) -> Result<u64, RuntimeFault> {
        match self.registers.get(register as usize) {
            Some(value) => Ok(*value),
            None => Err(RuntimeFault::illegal_operation(register as u64)),
        }
    }

    /// Writes a register; writes to `%r0` are ignored so that it keeps reading 0.
    fn set_register(&mut self, register: u8, value: u64) -> Result<(), RuntimeFault> {
        match self.registers.get_mut(register as usize) {
            Some(slot) => {
                if register != 0 {
                    *slot = value;
                }
                Ok(())
            }
            None => Err(RuntimeFault::illegal_operation(register as u64)),
        }
    }

    fn step(&mut self, instruction: Instruction) -> Result<Flow, RuntimeFault> {
        let opcode = instruction.opcode().ok_or(RuntimeFault::illegal_operation(
            instruction.opcode_byte() as u64,
        ))?;
        let (r1, r2, rd) = (instruction.r1(), instruction.r2(), instruction.rd());
        match opcode {
            Opcode::Or
            | Opcode::Xor
            | Opcode::And
            | Opcode::Sll
            | Opcode::Srl
            | Opcode::Sra
            | Opcode::Sub
            | Opcode::Add
            | Opcode::Mul
            | Opcode::Sdiv
            | Opcode::Udiv
            | Opcode::Srem
            | Opcode::Urem => {
                let (left, right) = (self.register(r1)?, self.register(r2)?);
                let result = self.arithmetic(opcode, rd, left, right)?;
                self.set_register(rd, result)?;
            }
            Opcode::Not => {
                let value = !self.register(r1)?;
                self.set_register(rd, value)?;
            }
            Opcode::Mov => {
                let value = self.register(r1)?;
                self.set_register(rd, value)?;
            }
            Opcode::Cmp => {
                let (left, right) = (self.register(r1)?, self.register(r2)?);
                let difference = left.wrapping_sub(right);
                self.condition = ConditionCodes {
                    negative: (difference as i64) < 0,
                    zero: difference == 0,
                    overflow: false,
                    carry: left < right,
                };
            }
            Opcode::Tst => {
                let value = self.register(r1)?;
                self.condition = ConditionCodes {
                    zero: value == 0,
                    ..ConditionCodes::default()
                };
            }
            Opcode::Scmp => {
                let (left, right) = (self.register(r1)?, self.register(r2)?);
                let left = self.read_string_or_empty(left)?;
                let right = self.read_string_or_empty(right)?;
                let ordering = left.cmp(&right);
                self.condition = ConditionCodes {
                    negative: ordering.is_lt(),
                    zero: ordering.is_eq(),
                    ..ConditionCodes::default()
                };
            }
            Opcode::Ba
            | Opcode::Be
            | Opcode::Bne
            | Opcode::Bg
            | Opcode::Bgu
            | Opcode::Bge
            | Opcode::Bgeu
            | Opcode::Bl
            | Opcode::Blu
            | Opcode::Ble
            | Opcode::Bleu => {
                if self.branch_taken(opcode) {
                    return Ok(Flow::Jump(instruction.label() as usize));
                }
            }
            Opcode::Ldsb => self.load(r1, rd, 1, true, Access::Kernel)?,
            Opcode::Ldsh => self.load(r1, rd, 2, true, Access::Kernel)?,
            Opcode::Ldsw => self.load(r1, rd, 4, true, Access::Kernel)?,
            Opcode::Ldub => self.load(r1, rd, 1, false, Access::Kernel)?,
            Opcode::Lduh => self.load(r1, rd, 2, false, Access::Kernel)?,
            Opcode::Lduw => self.load(r1, rd, 4, false, Access::Kernel)?,
            Opcode::Ldx => self.load(r1, rd, 8, false, Access::Kernel)?,
            Opcode::Uldsb => self.load(r1, rd, 1, true, Access::User)?,
            Opcode::Uldsh => self.load(r1, rd, 2, true, Access::User)?,
            Opcode::Uldsw => self.load(r1, rd, 4, true, Access::User)?,
            Opcode::Uldub => self.load(r1, rd, 1, false, Access::User)?,
            Opcode::Ulduh => self.load(r1, rd, 2, false, Access::User)?,
            Opcode::Ulduw => self.load(r1, rd, 4, false, Access::User)?,
            Opcode::Uldx => self.load(r1, rd, 8, false, Access::User)?,
            Opcode::Rldsb => self.load(r1, rd, 1, true, Access::Restricted)?,
            Opcode::Rldsh => self.load(r1, rd, 2, true, Access::Restricted)?,
            Opcode::Rldsw => self.load(r1, rd, 4, true, Access::Restricted)?,
            Opcode::Rldub => self.load(r1, rd, 1, false, Access::Restricted)?,
            Opcode::Rlduh => self.load(r1, rd, 2, false, Access::Restricted)?,
            Opcode::Rlduw => self.load(r1, rd, 4, false, Access::Restricted)?,
            Opcode::Rldx => self.load(r1, rd, 8, false, Access::Restricted)?,
            Opcode::Stb => self.store(r1, rd, 1)?,
            Opcode::Sth => self.store(r1, rd, 2)?,
            Opcode::Stw => self.store(r1, rd, 4)?,
            Opcode::Stx => self.store(r1, rd, 8)?,
            Opcode::Ret => return Ok(Flow::Return(self.register(rd)?)),
            Opcode::Nop => {}
            Opcode::Setx => {
                let index = instruction.index();
                let value = *self
                    .difo
                    .integer_table
                    .get(index as usize)
                    .ok_or(RuntimeFault::illegal_operation(index as u64))?;
                self.set_register(rd, value)?;
            }
            Opcode::Sets => {
                let index = instruction.index() as u64;
                if index >= self.difo.string_table.len() as u64 {
                    return Err(RuntimeFault::illegal_operation(index));
                }
                let base = self.string_table_base()?;
                self.set_register(rd, base + index)?;
            }
            Opcode::Ldga => {
                let index = self.register(r2)?;
                let value = self.load_builtin_array(r1 as u16, index)?;
                self.set_register(rd, value)?;
            }
            Opcode::Ldta => {
                // Thread-local arrays are reserved in DIF and always read as 0.
                self.register(r2)?;
                self.set_register(rd, 0)?;
            }
            Opcode::Ldgs => {
                let id = instruction.index();
                let value = if id >= builtin_variable::FIRST_USER {
                    self.load_variable(VariableScope::Global, VariableSlot::Global(id), id)?
                } else {
                    self.load_builtin_variable(id)?
                };
                self.set_register(rd, value)?;
            }
            Opcode::Stgs => {
                let id = instruction.index();
                if id < builtin_variable::FIRST_USER {
                    return Err(RuntimeFault::illegal_operation(id as u64));
                }
                self.store_variable(VariableScope::Global, VariableSlot::Global(id), id, rd)?;
            }
            Opcode::Ldts => {
                let id = instruction.index();
                let slot = self.thread_slot(id, Vec::new());
                let value = self.load_variable(VariableScope::ThreadLocal, slot, id)?;
                self.set_register(rd, value)?;
            }
            Opcode::Stts => {
                let id = instruction.index();
                let slot = self.thread_slot(id, Vec::new());
                self.store_variable(VariableScope::ThreadLocal, slot, id, rd)?;
            }
            Opcode::Ldls => {
                let id = instruction.index();
                let slot = VariableSlot::ClauseLocal(id);
                let value = self.load_variable(VariableScope::ClauseLocal, slot, id)?;
                self.set_register(rd, value)?;
            }
            Opcode::Stls => {
                let id = instruction.index();
                let slot = VariableSlot::ClauseLocal(id);
                self.store_variable(VariableScope::ClauseLocal, slot, id, rd)?;
            }
            Opcode::Ldgaa => {
                let id = instruction.index();
                let tuple = self.encode_tuple()?;
                let slot = VariableSlot::Dynamic(DynamicVariableKey {
                    thread: None,
                    id,
                    tuple,
                });
                let value = self.load_variable(VariableScope::Global, slot, id)?;
                self.set_register(rd, value)?;
            }
            Opcode::Stgaa => {
                let id = instruction.index();
                let tuple = self.encode_tuple()?;
                let slot = VariableSlot::Dynamic(DynamicVariableKey {
                    thread: None,
                    id,
                    tuple,
                });
                self.store_variable(VariableScope::Global, slot, id, rd)?;
            }
            Opcode::Ldtaa => {
                let id = instruction.index();
                let tuple = self.encode_tuple()?;
                let slot = self.thread_slot(id, tuple);
                let value = self.load_variable(VariableScope::ThreadLocal, slot, id)?;
                self.set_register(rd, value)?;
            }
            Opcode::Sttaa => {
                let id = instruction.index();
                let tuple = self.encode_tuple()?;
                let slot = self.thread_slot(id, tuple);
                self.store_variable(VariableScope::ThreadLocal, slot, id, rd)?;
            }
            Opcode::Call => {
                if let Some(value) = self.call_subroutine(instruction.index())? {
                    self.set_register(rd, value)?;
                }
            }
            Opcode::Pushtr => {
                let (size, value) = (self.register(r2)?, self.register(rd)?);
                self.push_reference(r1, size, value)?;
            }
            Opcode::Pushtv => {
                let value = self.register(rd)?;
                self.push_tuple(TupleEntry {
                    value,
                    size: 0,
                    kind: TupleKind::Value,
                })?;
            }
            Opcode::Popts => {
                self.tuples.pop();
            }
            Opcode::Flushts => self.tuples.clear(),
            Opcode::Allocs => {
                let size = self.register(r1)?;
                let address = self.state.memory.allocate_scratch(size)?;
                self.set_register(rd, address)?;
            }
            Opcode::Copys => {
                let (source, size, destination) =
                    (self.register(r1)?, self.register(r2)?, self.register(rd)?);
                self.copy_into_scratch(source, destination, size, Access::Kernel)?;
            }
            Opcode::Xlate | Opcode::Xlarg => {
                // Translator references are resolved before a program is loaded.
                return Err(RuntimeFault::illegal_operation(instruction.index() as u64));
            }
        }
        Ok(Flow::Next)
    }

    fn arithmetic(
        &mut self,
        opcode: Opcode,
        rd: u8,
        left: u64,
        right: u64,
    ) -> Result<u64, RuntimeFault> {
        let divide_by_zero = |machine: &mut Machine| {
            machine.set_register(rd, 0)?;
            Err(RuntimeFault::new(FaultCode::DivideByZero, 0))
        };
        Ok(match opcode {
            Opcode::Or => left | right,
            Opcode::Xor => left ^ right,
            Opcode::And => left & right,
            Opcode::Sll => left.wrapping_shl(right as u32),
            Opcode::Srl => left.wrapping_shr(right as u32),
            Opcode::Sra => (left as i64).wrapping_shr(right as u32) as u64,
            Opcode::Sub => left.wrapping_sub(right),
            Opcode::Add => left.wrapping_add(right),
            Opcode::Mul => left.wrapping_mul(right),
            _ if right == 0 => return divide_by_zero(self),
            Opcode::Sdiv => (left as i64).wrapping_div(right as i64) as u64,
            Opcode::Udiv => left / right,
            Opcode::Srem => (left as i64).wrapping_rem(right as i64) as u64,
            _ => left % right,
        })
    }

    fn branch_taken(&self, opcode: Opcode) -> bool {
        let ConditionCodes {
            negative,
            zero,
            overflow,
            carry,
        } = self.condition;
        match opcode {
            Opcode::Ba => true,
            Opcode::Be => zero,
            Opcode::Bne => !zero,
            Opcode::Bg => !(zero | (negative ^ overflow)),
            Opcode::Bgu => !(carry | zero),
            Opcode::Bge => !(negative ^ overflow),
            Opcode::Bgeu => !carry,
            Opcode::Bl => negative ^ overflow,
            Opcode::Blu => carry,
            Opcode::Ble => zero | (negative ^ overflow),
            _ => carry | zero,
        }
    }

    fn load(
        &mut self,
        r1: u8,
        rd: u8,
        size: usize,
        signed: bool,
        access: Access,
    ) -> Result<(), RuntimeFault> {
        let address = self.register(r1)?;
        if access != Access::User && address % size as u64 != 0 {
            return Err(RuntimeFault::bad_alignment(address));
        }
        let mut bytes = [0u8; 8];
        self.state
            .memory
            .read(self.context, address, &mut bytes[..size], access)?;
        let raw = u64::from_le_bytes(bytes);
        let value = if signed { sign_extend(raw, size) } else { raw };
        self.set_register(rd, value)
    }

    fn store(&mut self, r1: u8, rd: u8, size: usize) -> Result<(), RuntimeFault> {
        let (value, address) = (self.register(r1)?, self.register(rd)?);
        if address % size as u64 != 0 {
            return Err(RuntimeFault::bad_alignment(address));
        }
        let target = self
            .state
            .memory
            .writable(address, size)
            .ok_or(RuntimeFault::bad_address(address))?;
        target.copy_from_slice(&value.to_le_bytes()[..size]);
        Ok(())
    }

    /// The address of this DIFO's string table, mapped on first use.
    fn string_table_base(&mut self) -> Result<u64, RuntimeFault> {
        if let Some(address) = self.string_table_address {
            return Ok(address);
        }
        let address = self
            .state
            .memory
            .map(RegionLifetime::Clause, self.difo.string_table.clone())?;
        self.string_table_address = Some(address);
        Ok(address)
    }

    fn load_builtin_array(&mut self, array: u16, index: u64) -> Result<u64, RuntimeFault> {
        let value = match array {
            builtin_array::ARGS => self.context.argument(index),
            builtin_array::REGS => self.context.kernel_register(index),
            builtin_array::UREGS => self.context.user_register(index),
            _ => None,
        };
        value.ok_or(RuntimeFault::illegal_operation(index))
    }

    fn load_builtin_variable(&mut self, id: u16) -> Result<u64, RuntimeFault> {
        use builtin_variable as variable;
        let context = self.context;
        let cache = &mut self.state.clause;
        Ok(match id {
            variable::CURTHREAD => context.curthread(),
            variable::TIMESTAMP => *cache.timestamp.get_or_insert_with(|| context.timestamp()),
            variable::VTIMESTAMP => match cache.vtimestamp {
                Some(value) => value,
                None => {
                    let value = context
                        .vtimestamp()
                        .ok_or(RuntimeFault::illegal_operation(id as u64))?;
                    *cache.vtimestamp.insert(value)
                }
            },
            variable::WALLTIMESTAMP => *cache
                .walltimestamp
                .get_or_insert_with(|| context.walltimestamp()),
            variable::IPL => context
                .ipl()
                .ok_or(RuntimeFault::illegal_operation(id as u64))?,
            variable::EPID => self.probe.epid as u64,
            variable::ID => self.probe.probe_id as u64,
            _ if (variable::ARG0..variable::ARG0 + 10).contains(&id) => {
                context.argument((id - variable::ARG0) as u64).unwrap_or(0)
            }
            variable::STACKDEPTH => context.stackdepth(),
            variable::CALLER => context.caller(),
            variable::USTACKDEPTH => context.ustackdepth(),
            variable::UCALLER => context.ucaller(),
            variable::PID => context.pid(),
            variable::TID => context.tid(),
            variable::PPID => context.ppid(),
            variable::UID => context.uid(),
            variable::GID => context.gid(),
            variable::ERRNO => context.errno(),
            variable::CURCPU => self.curcpu()?,
            variable::CPU => context.cpu() as u64,
            variable::PROBEPROV
            | variable::PROBEMOD
            | variable::PROBEFUNC
            | variable::PROBENAME
            | variable::EXECNAME
            | variable::ZONENAME => self.builtin_string(id)?,
            _ => return Err(RuntimeFault::illegal_operation(id as u64)),
        })
    }

    /// `curcpu`: maps the `cpuinfo_t` of the firing's CPU (once per clause) and returns
    /// its address: `cpu_id`, `cpu_pset` (0: Linux has no processor sets), `cpu_chip`,
    /// `cpu_lgrp` as 32-bit integers, then a NULL `void *cpu_info`. It lives as long as
    /// the firing, so a clause-local copy of the pointer serves later clauses too.
    fn curcpu(&mut self) -> Result<u64, RuntimeFault> {
        if let Some(address) = self.state.clause.curcpu {
            return Ok(address);
        }
        let mut bytes = Vec::with_capacity(24);
        for word in [
            self.context.cpu(),
            0,
            self.context.cpu_chip(),
            self.context.cpu_lgrp(),
        ] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes.extend_from_slice(&0u64.to_le_bytes());
        let address = self.state.memory.map(RegionLifetime::Firing, bytes)?;
        self.state.clause.curcpu = Some(address);
        Ok(address)
    }

    /// Maps a built-in string variable for this clause (once) and returns its address.
    fn builtin_string(&mut self, id: u16) -> Result<u64, RuntimeFault> {
        if let Some(&(_, address)) = self
            .state
            .clause
            .builtin_strings
            .iter()
            .find(|(cached, _)| *cached == id)
        {
            return Ok(address);
        }
        let probe = self.probe.probe;
        let mut bytes = match id {
            builtin_variable::PROBEPROV => probe.provider.as_bytes().to_vec(),
            builtin_variable::PROBEMOD => probe.module.as_bytes().to_vec(),
            builtin_variable::PROBEFUNC => probe.function.as_bytes().to_vec(),
            builtin_variable::PROBENAME => probe.name.as_bytes().to_vec(),
            builtin_variable::EXECNAME => self.context.execname(),
            _ => self
                .context
                .zonename()
                .ok_or(RuntimeFault::illegal_operation(id as u64))?,
        };
        bytes.truncate(self.state.strsize - 1);
        bytes.push(0);
        let address = self.state.memory.map(RegionLifetime::Clause, bytes)?;
        self.state.clause.builtin_strings.push((id, address));
        Ok(address)
    }

    fn thread_slot(&self, id: u16, tuple: Vec<u8>) -> VariableSlot {
        VariableSlot::Dynamic(DynamicVariableKey {
            thread: Some(self.context.tid()),
            id,
            tuple,
        })
    }

    /// The type of variable `id`: this DIFO's variable table first, then the program's.
    fn variable_type(&self, scope: VariableScope, id: u16) -> Option<DifType> {
        self.difo
            .variable_table
            .iter()
            .find(|variable| variable.scope == scope && variable.id == id)
            .map(|variable| variable.ty)
            .or_else(|| self.state.variables.declared_type(scope, id))
    }

    /// The type and size of a by-reference variable, or `None` for integers.
    fn by_reference_type(
        &self,
        scope: VariableScope,
        id: u16,
    ) -> Result<Option<(DifType, usize)>, RuntimeFault> {
        match self.variable_type(scope, id) {
            Some(ty) if ty.is_by_reference() => {
                let size = ty.size as usize;
                if size == 0 || size > MAX_OBJECT_SIZE {
                    return Err(RuntimeFault::bad_size(ty.size as u64));
                }
                Ok(Some((ty, size)))
            }
            _ => Ok(None),
        }
    }

    fn load_variable(
        &mut self,
        scope: VariableScope,
        slot: VariableSlot,
        id: u16,
    ) -> Result<u64, RuntimeFault> {
        let size = self.by_reference_type(scope, id)?.map(|(_, size)| size);
        let state = &mut *self.state;
        state.variables.load(&mut state.memory, &slot, size)
    }

    fn store_variable(
        &mut self,
        scope: VariableScope,
        slot: VariableSlot,
        id: u16,
        source: u8,
    ) -> Result<(), RuntimeFault> {
        let value = self.register(source)?;
        let new = match self.by_reference_type(scope, id)? {
            None => NewValue::Integer(value),
            Some(_) if value == 0 => NewValue::Null,
            Some((ty, size)) => NewValue::Bytes(self.copy_object(value, &ty, size)?),
        };
        let state = &mut *self.state;
        state.variables.store(&mut state.memory, slot, new)
    }

    /// The `size` bytes of a by-reference value of type `ty` at `address`; a string is
    /// copied up to its NUL and zero-filled.
    fn copy_object(
        &self,
        address: u64,
        ty: &DifType,
        size: usize,
    ) -> Result<Vec<u8>, RuntimeFault> {
        let access = if ty.flags & DIF_TYPE_FLAG_BY_USER_REFERENCE != 0 {
            Access::User
        } else {
            Access::Kernel
        };
        if ty.kind == DifTypeKind::String {
            let mut bytes =
                self.state
                    .memory
                    .read_string(self.context, address, size - 1, access)?;
            bytes.resize(size, 0);
            return Ok(bytes);
        }
        let mut bytes = vec![0; size];
        self.state
            .memory
            .read(self.context, address, &mut bytes, access)?;
        Ok(bytes)
    }

    fn push_tuple(&mut self, entry: TupleEntry) -> Result<(), RuntimeFault> {
        if self.tuples.len() >= DIF_TUPLE_STACK_DEPTH {
            return Err(RuntimeFault::new(FaultCode::TupleOverflow, 0));
        }
        self.tuples.push(entry);
        Ok(())
    }

    fn push_reference(&mut self, kind: u8, size: u64, value: u64) -> Result<(), RuntimeFault> {
        if self.tuples.len() >= DIF_TUPLE_STACK_DEPTH {
            return Err(RuntimeFault::new(FaultCode::TupleOverflow, 0));
        }
        let entry = if kind == DIF_TYPE_STRING {
            let strsize = self.state.strsize;
            let bound = if size == 0 || size > strsize as u64 {
                strsize
            } else {
                size as usize
            };
            let length = self.read_string_bounded(value, bound)?.len();
            TupleEntry {
                value,
                size: length as u64 + 1,
                kind: TupleKind::String,
            }
        } else {
            if size > MAX_OBJECT_SIZE as u64 {
                return Err(RuntimeFault::bad_size(size));
            }
            TupleEntry {
                value,
                size,
                kind: TupleKind::Object,
            }
        };
        self.push_tuple(entry)
    }

    /// The key of an associative-array element: the tuple stack's entries in order,
    /// integers as 8 little-endian bytes, strings (at most strsize − 1 characters, what a
    /// string variable holds, so that `a[s]` and `a["literal"]` are one element after
    /// `s = "literal"` whatever its length) zero-filled to strsize, other objects as
    /// their bytes zero-filled to a multiple of 8.
    fn encode_tuple(&self) -> Result<Vec<u8>, RuntimeFault> {
        let strsize = self.state.strsize;
        let mut key = Vec::new();
        for entry in &self.tuples {
            match entry.kind {
                TupleKind::Value => key.extend_from_slice(&entry.value.to_le_bytes()),
                TupleKind::String => {
                    let bound =
                        (entry.size.saturating_sub(1) as usize).min(strsize.saturating_sub(1));
                    let string = self.read_string_bounded(entry.value, bound)?;
                    let start = key.len();
                    key.extend_from_slice(&string);
                    key.resize(start + strsize.max(string.len()), 0);
                }
                TupleKind::Object => {
                    let start = key.len();
                    key.resize(start + entry.size as usize, 0);
                    self.state.memory.read(
                        self.context,
                        entry.value,
                        &mut key[start..],
                        Access::Kernel,
                    )?;
                    key.resize(start + (entry.size as usize).next_multiple_of(8), 0);
                }
            }
        }
        Ok(key)
    }

    /// Copies `size` bytes from `source` into scratch at `destination`: `invalid
    /// address` unless the whole destination is allocated scratch.
    pub(super) fn copy_into_scratch(
        &mut self,
        source: u64,
        destination: u64,
        size: u64,
        access: Access,
    ) -> Result<(), RuntimeFault> {
        let size = usize::try_from(size).map_err(|_| RuntimeFault::bad_address(destination))?;
        if self.state.memory.writable(destination, size).is_none() {
            return Err(RuntimeFault::bad_address(destination));
        }
        let mut bytes = vec![0; size];
        if size > 0 {
            self.state
                .memory
                .read(self.context, source, &mut bytes, access)?;
        }
        if let Some(target) = self.state.memory.writable(destination, size) {
            target.copy_from_slice(&bytes);
        }
        Ok(())
    }

    /// The string at `address`, at most strsize bytes (NULL faults).
    pub(super) fn read_string(&self, address: u64) -> Result<Vec<u8>, RuntimeFault> {
        self.read_string_bounded(address, self.state.strsize)
    }

    pub(super) fn read_string_bounded(
        &self,
        address: u64,
        bound: usize,
    ) -> Result<Vec<u8>, RuntimeFault> {
        self.state
            .memory
            .read_string(self.context, address, bound, Access::Kernel)
    }

    /// `scmp` reads a NULL pointer as the empty string.
    fn read_string_or_empty(&self, address: u64) -> Result<Vec<u8>, RuntimeFault> {
        if address == 0 {
            return Ok(Vec::new());
        }
        self.read_string(address)
    }

    /// Puts a subroutine's string result in a strsize-byte scratch buffer (at most
    /// strsize − 1 characters and the NUL) and returns its address.
    pub(super) fn allocate_string(&mut self, string: &[u8]) -> Result<u64, RuntimeFault> {
        let strsize = self.state.strsize;
        let address = self.state.memory.allocate_scratch(strsize as u64)?;
        let length = string.len().min(strsize - 1);
        if let Some(target) = self.state.memory.writable(address, length) {
            target.copy_from_slice(&string[..length]);
        }
        Ok(address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_extension() {
        assert_eq!(sign_extend(0x80, 1), 0xffff_ffff_ffff_ff80);
        assert_eq!(sign_extend(0x7f, 1), 0x7f);
        assert_eq!(sign_extend(0x8000, 2), 0xffff_ffff_ffff_8000);
        assert_eq!(sign_extend(0x8000_0000, 4), 0xffff_ffff_8000_0000);
        assert_eq!(sign_extend(u64::MAX, 8), u64::MAX);
    }
}
