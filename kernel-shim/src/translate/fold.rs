//! Folding of the conditional jumps whose outcome the program's constants decide, before
//! `prune` removes what they leave unreachable (and the `ja +0` they become).
//!
//! The translation emits general code over values it does not inspect: a string constant
//! is a tagged address whose region the address decoding then tests region by region,
//! each test with its bounds checks and fault exits. The kernel's verifier sees those
//! values as constants, finds the other branches dead and removes them itself, but it
//! removes each run of dead code, and each `ja +0`, with one pass over the whole program
//! to adjust its jumps: a clause of a hundred `printf()`s then costs it time in the square
//! of its length. Removing that code here, in one pass, keeps the kernel's work in
//! proportion to the program.
//!
//! The analysis is a forward pass over each function in instruction order, tracking which
//! registers and 8-byte stack slots of the function's own frame hold known constants and
//! which registers point into that frame. Join points take what all their predecessors
//! agree on. It is deliberately conservative: a function with a backward jump, or one that
//! lets a pointer into its frame escape to memory, is left as it is; a helper or a
//! subprogram handed a frame pointer may write any slot; a store through a pointer into
//! the frame at an unknown offset forgets every slot.

use std::collections::{BTreeMap, HashMap};

use crate::ebpf::opcode::{
    class, mode, operation, size, source, BPF_ADD, BPF_ALU, BPF_ALU64, BPF_AND, BPF_ARSH,
    BPF_ATOMIC, BPF_CALL, BPF_DW, BPF_EXIT, BPF_JA, BPF_JEQ, BPF_JGE, BPF_JGT, BPF_JLE, BPF_JLT,
    BPF_JMP, BPF_JMP32, BPF_JNE, BPF_JSET, BPF_JSGE, BPF_JSGT, BPF_JSLE, BPF_JSLT, BPF_LD, BPF_LDX,
    BPF_LSH, BPF_MEM, BPF_MOV, BPF_MUL, BPF_OR, BPF_PSEUDO_CALL, BPF_PSEUDO_FUNC, BPF_RSH, BPF_ST,
    BPF_STX, BPF_SUB, BPF_X, BPF_XOR,
};
use crate::ebpf::Insn;

/// The frame pointer's register number.
const FRAME_POINTER: usize = 10;

/// What is known of a register's or a stack slot's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    /// Nothing, except that it is not derived from this function's frame pointer.
    Unknown,
    Constant(u64),
    /// The frame pointer plus this offset.
    Frame(i64),
    /// Derived from the frame pointer at an unknown offset.
    AnyFrame,
}

impl Value {
    fn is_frame(self) -> bool {
        matches!(self, Value::Frame(_) | Value::AnyFrame)
    }

    fn meet(self, other: Value) -> Value {
        if self == other {
            self
        } else if self.is_frame() || other.is_frame() {
            Value::AnyFrame
        } else {
            Value::Unknown
        }
    }
}

/// What is known before one instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    registers: [Value; 11],
    /// Known 8-byte slots of the frame, by offset from the frame pointer.
    slots: BTreeMap<i64, Value>,
}

impl State {
    fn entry() -> State {
        let mut registers = [Value::Unknown; 11];
        registers[FRAME_POINTER] = Value::Frame(0);
        State {
            registers,
            slots: BTreeMap::new(),
        }
    }

    fn meet(&mut self, other: &State) {
        for (mine, theirs) in self.registers.iter_mut().zip(other.registers) {
            *mine = mine.meet(theirs);
        }
        self.slots
            .retain(|offset, value| other.slots.get(offset) == Some(value));
    }

    /// Forgets the slots `[at, at + bytes)` overlaps.
    fn forget_slots(&mut self, at: i64, bytes: i64) {
        self.slots
            .retain(|&offset, _| offset + 8 <= at || offset >= at + bytes);
    }
}

/// Why a function is left as it is.
struct Unanalysable;

/// What the pass decided about a conditional jump.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Always,
    Never,
}

/// `instructions` with every conditional jump whose outcome is known rewritten: one that
/// is always taken becomes `ja`, one that never is becomes `ja +0`.
pub fn fold_known_branches(mut instructions: Vec<Insn>) -> Vec<Insn> {
    let starts = function_starts(&instructions);
    for (index, &start) in starts.iter().enumerate() {
        let end = starts.get(index + 1).copied().unwrap_or(instructions.len());
        if let Ok(decisions) = analyse_function(&instructions, start, end) {
            for (slot, decision) in decisions {
                instructions[slot] = match decision {
                    Decision::Always => Insn::ja(instructions[slot].off),
                    Decision::Never => Insn::ja(0),
                };
            }
        }
    }
    instructions
}

/// The first slot of every function: the entry, local call targets and callbacks.
fn function_starts(instructions: &[Insn]) -> Vec<usize> {
    let mut starts = vec![0];
    let mut slot = 0;
    while slot < instructions.len() {
        let instruction = instructions[slot];
        let local_call = class(instruction.code) == BPF_JMP
            && operation(instruction.code) == BPF_CALL
            && instruction.src == BPF_PSEUDO_CALL;
        let function_address = instruction.is_ld_imm64() && instruction.src == BPF_PSEUDO_FUNC;
        if local_call || function_address {
            if let Ok(target) = usize::try_from(slot as i64 + 1 + instruction.imm as i64) {
                starts.push(target);
            }
        }
        slot += if instruction.is_ld_imm64() { 2 } else { 1 };
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// The decisions for the conditional jumps of the function in `[start, end)`.
fn analyse_function(
    instructions: &[Insn],
    start: usize,
    end: usize,
) -> Result<Vec<(usize, Decision)>, Unanalysable> {
    let mut pending: HashMap<usize, State> = HashMap::new();
    let mut falling: Option<State> = Some(State::entry());
    let mut decisions = Vec::new();
    let mut slot = start;
    while slot < end {
        let instruction = instructions[slot];
        let width = if instruction.is_ld_imm64() { 2 } else { 1 };
        let mut state = match (falling.take(), pending.remove(&slot)) {
            (Some(mut state), Some(other)) => {
                state.meet(&other);
                state
            }
            (Some(state), None) | (None, Some(state)) => state,
            (None, None) => {
                slot += width;
                continue;
            }
        };
        let instruction_class = class(instruction.code);
        if instruction_class == BPF_JMP || instruction_class == BPF_JMP32 {
            let op = operation(instruction.code);
            let is_ja = op == BPF_JA;
            if op == BPF_EXIT {
                slot += 1;
                continue;
            }
            if op == BPF_CALL {
                call(&mut state);
                falling = Some(state);
                slot += 1;
                continue;
            }
            let distance = if is_ja && instruction_class == BPF_JMP32 {
                instruction.imm as i64
            } else {
                instruction.off as i64
            };
            let target = slot as i64 + 1 + distance;
            if target <= slot as i64 || target as usize > end {
                return Err(Unanalysable);
            }
            let target = target as usize;
            let decision = if is_ja {
                Some(Decision::Always)
            } else {
                jump_decision(&state, instruction)
            };
            if !is_ja {
                if let Some(decision) = decision {
                    decisions.push((slot, decision));
                }
            }
            if decision != Some(Decision::Never) {
                match pending.get_mut(&target) {
                    Some(existing) => existing.meet(&state),
                    None => {
                        pending.insert(target, state.clone());
                    }
                }
            }
            if decision != Some(Decision::Always) {
                falling = Some(state);
            }
            slot += 1;
            continue;
        }
        step(&mut state, instructions, slot)?;
        falling = Some(state);
        slot += width;
    }
    Ok(decisions)
}

/// A helper or local call: r0–r5 are lost, and a frame pointer among the arguments lets
/// the callee write any slot.
fn call(state: &mut State) {
    if state.registers[1..=5].iter().any(|value| value.is_frame()) {
        state.slots.clear();
    }
    for register in &mut state.registers[0..=5] {
        *register = Value::Unknown;
    }
}

/// The effect of the non-jump instruction at `slot`.
fn step(state: &mut State, instructions: &[Insn], slot: usize) -> Result<(), Unanalysable> {
    let instruction = instructions[slot];
    let dst = usize::from(instruction.dst).min(10);
    let src = usize::from(instruction.src).min(10);
    match class(instruction.code) {
        BPF_LD => {
            state.registers[dst] = if instruction.is_ld_imm64() && instruction.src == 0 {
                let high = instructions.get(slot + 1).map_or(0, |next| next.imm);
                Value::Constant((instruction.imm as u32 as u64) | ((high as u32 as u64) << 32))
            } else {
                Value::Unknown
            };
        }
        BPF_LDX => {
            let loaded = match state.registers[src] {
                Value::Frame(offset) if mode(instruction.code) == BPF_MEM => {
                    let at = offset + instruction.off as i64;
                    if size(instruction.code) == BPF_DW {
                        state.slots.get(&at).copied().unwrap_or(Value::Unknown)
                    } else {
                        Value::Unknown
                    }
                }
                _ => Value::Unknown,
            };
            state.registers[dst] = loaded;
        }
        BPF_ST | BPF_STX => {
            let stored = if class(instruction.code) == BPF_ST {
                Value::Constant(instruction.imm as i64 as u64)
            } else {
                state.registers[src]
            };
            let atomic = mode(instruction.code) == BPF_ATOMIC;
            match state.registers[dst] {
                Value::Frame(offset) => {
                    let at = offset + instruction.off as i64;
                    let bytes = access_bytes(instruction.code);
                    state.forget_slots(at, bytes);
                    if stored.is_frame() {
                        // A frame pointer kept in the frame could come back as a value
                        // the pass does not know points there.
                        return Err(Unanalysable);
                    }
                    if !atomic && bytes == 8 {
                        state.slots.insert(at, stored);
                    }
                }
                Value::AnyFrame => state.slots.clear(),
                Value::Unknown | Value::Constant(_) => {
                    if stored.is_frame() {
                        return Err(Unanalysable);
                    }
                }
            }
            if atomic {
                // Fetching atomics load into the source register, or r0 (cmpxchg).
                state.registers[src] = Value::Unknown;
                state.registers[0] = Value::Unknown;
            }
        }
        BPF_ALU | BPF_ALU64 => {
            state.registers[dst] = arithmetic(state, instruction);
        }
        _ => return Err(Unanalysable),
    }
    Ok(())
}

/// The bytes a load or store of `code` accesses.
fn access_bytes(code: u8) -> i64 {
    match size(code) {
        BPF_DW => 8,
        0x00 => 4,
        0x08 => 2,
        _ => 1,
    }
}

/// The value an ALU instruction leaves in its destination.
fn arithmetic(state: &State, instruction: Insn) -> Value {
    let wide = class(instruction.code) == BPF_ALU64;
    let op = operation(instruction.code);
    let left = state.registers[usize::from(instruction.dst).min(10)];
    let right = if source(instruction.code) == BPF_X {
        state.registers[usize::from(instruction.src).min(10)]
    } else {
        Value::Constant(instruction.imm as i64 as u64)
    };
    // Sign-extending moves and signed division carry their variant in `off`.
    if instruction.off != 0 {
        return if left.is_frame() || right.is_frame() {
            Value::AnyFrame
        } else {
            Value::Unknown
        };
    }
    if op == BPF_MOV {
        return match right {
            Value::Constant(constant) => Value::Constant(narrow(constant, wide)),
            Value::Frame(_) if wide => right,
            Value::Frame(_) | Value::AnyFrame => Value::AnyFrame,
            Value::Unknown => Value::Unknown,
        };
    }
    match (op, left, right) {
        (BPF_ADD, Value::Frame(offset), Value::Constant(constant)) if wide => {
            Value::Frame(offset.wrapping_add(constant as i64))
        }
        (BPF_SUB, Value::Frame(offset), Value::Constant(constant)) if wide => {
            Value::Frame(offset.wrapping_sub(constant as i64))
        }
        (_, Value::Constant(a), Value::Constant(b)) => match compute(op, a, b, wide) {
            Some(result) => Value::Constant(narrow(result, wide)),
            None => Value::Unknown,
        },
        _ if left.is_frame() || right.is_frame() => Value::AnyFrame,
        _ => Value::Unknown,
    }
}

/// A 32-bit operation's result is zero-extended.
fn narrow(value: u64, wide: bool) -> u64 {
    if wide {
        value
    } else {
        value as u32 as u64
    }
}

/// `a op b` for the operations folded (others are left unknown).
fn compute(op: u8, a: u64, b: u64, wide: bool) -> Option<u64> {
    let (a, b) = if wide {
        (a, b)
    } else {
        (a as u32 as u64, b as u32 as u64)
    };
    let bits = if wide { 64 } else { 32 };
    let shift = (b & (bits - 1)) as u32;
    Some(match op {
        BPF_ADD => a.wrapping_add(b),
        BPF_SUB => a.wrapping_sub(b),
        BPF_MUL => a.wrapping_mul(b),
        BPF_OR => a | b,
        BPF_AND => a & b,
        BPF_XOR => a ^ b,
        BPF_LSH => a << shift,
        BPF_RSH => a >> shift,
        BPF_ARSH if wide => ((a as i64) >> shift) as u64,
        BPF_ARSH => ((a as u32 as i32) >> shift) as u32 as u64,
        _ => return None,
    })
}

/// Whether the conditional jump is always or never taken, when its operands are known,
/// or when one is an unsigned extreme (a DIF test `x < 0u`, which no value passes).
fn jump_decision(state: &State, instruction: Insn) -> Option<Decision> {
    let known = |register: u8| match state.registers[usize::from(register).min(10)] {
        Value::Constant(value) => Some(value),
        _ => None,
    };
    let right = if source(instruction.code) == BPF_X {
        known(instruction.src)
    } else {
        Some(instruction.imm as i64 as u64)
    };
    let Some(left) = known(instruction.dst) else {
        return right.and_then(|right| unsigned_extreme_decision(instruction, right));
    };
    let right = right?;
    let (left, right, signed_left, signed_right) = if class(instruction.code) == BPF_JMP32 {
        let (l, r) = (left as u32, right as u32);
        (l as u64, r as u64, l as i32 as i64, r as i32 as i64)
    } else {
        (left, right, left as i64, right as i64)
    };
    let taken = match operation(instruction.code) {
        BPF_JEQ => left == right,
        BPF_JNE => left != right,
        BPF_JGT => left > right,
        BPF_JGE => left >= right,
        BPF_JLT => left < right,
        BPF_JLE => left <= right,
        BPF_JSET => left & right != 0,
        BPF_JSGT => signed_left > signed_right,
        BPF_JSGE => signed_left >= signed_right,
        BPF_JSLT => signed_left < signed_right,
        BPF_JSLE => signed_left <= signed_right,
        _ => return None,
    };
    Some(if taken {
        Decision::Always
    } else {
        Decision::Never
    })
}

/// The decision of an unsigned comparison of an unknown value with `right` when `right`
/// is 0 or the largest value (in the comparison's width): `x < 0` and `x > max` are never
/// true, `x >= 0` and `x <= max` always. The kernel's verifier knows this, and would find
/// the code such a jump never reaches dead.
fn unsigned_extreme_decision(instruction: Insn, right: u64) -> Option<Decision> {
    let max = if class(instruction.code) == BPF_JMP32 {
        u32::MAX as u64
    } else {
        u64::MAX
    };
    let right = if class(instruction.code) == BPF_JMP32 {
        right as u32 as u64
    } else {
        right
    };
    match operation(instruction.code) {
        BPF_JLT if right == 0 => Some(Decision::Never),
        BPF_JGE if right == 0 => Some(Decision::Always),
        BPF_JGT if right == max => Some(Decision::Never),
        BPF_JLE if right == max => Some(Decision::Always),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ebpf::{JmpOp, MemSize, Reg};

    #[test]
    fn a_branch_on_a_constant_kept_in_the_frame_is_decided() {
        let mut program = Insn::ld_imm64(Reg::R0, 0xd300_0000_0000_0003).to_vec();
        program.extend([
            Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, -16),
            Insn::ldx_mem(MemSize::DW, Reg::R9, Reg::FP, -16),
            Insn::mov64_reg(Reg::R1, Reg::R9),
            Insn::alu64_imm(crate::ebpf::AluOp::Rsh, Reg::R1, 32),
            Insn::jmp_imm(JmpOp::Ne, Reg::R1, 0xd300_0000_u32 as i32, 1),
            Insn::mov64_imm(Reg::R0, 1),
            Insn::jmp_imm(JmpOp::Eq, Reg::R9, 3, 1),
            Insn::mov64_imm(Reg::R0, 2),
            Insn::exit(),
        ]);
        let folded = fold_known_branches(program.clone());
        // r1 = 0xd3000000 (sign-extended immediate compared as 64 bits: not equal).
        assert_eq!(folded[6], Insn::ja(program[6].off));
        // r9's low word is not 3 as a 64-bit value.
        assert_eq!(folded[8], Insn::ja(0));
    }

    #[test]
    fn a_helper_given_a_frame_pointer_forgets_the_frame() {
        let program = vec![
            Insn::st_mem(MemSize::DW, Reg::FP, -8, 5),
            Insn::mov64_reg(Reg::R1, Reg::FP),
            Insn::add64_imm(Reg::R1, -8),
            Insn::call_helper_number(113),
            Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, -8),
            Insn::jmp_imm(JmpOp::Eq, Reg::R2, 5, 1),
            Insn::mov64_imm(Reg::R0, 1),
            Insn::exit(),
        ];
        assert_eq!(fold_known_branches(program.clone()), program);
    }

    #[test]
    fn unsigned_comparisons_with_an_extreme_are_decided() {
        let program = vec![
            Insn::mov64_imm(Reg::R2, 0),
            Insn::jmp_reg(JmpOp::Lt, Reg::R1, Reg::R2, 1),
            Insn::jmp_imm(JmpOp::Ge, Reg::R1, 0, 0),
            Insn::jmp_imm(JmpOp::Gt, Reg::R1, -1, 0),
            Insn::jmp_imm(JmpOp::Gt, Reg::R1, 5, 0),
            Insn::exit(),
        ];
        let folded = fold_known_branches(program.clone());
        assert_eq!(folded[1], Insn::ja(0));
        assert_eq!(folded[2], Insn::ja(program[2].off));
        assert_eq!(folded[3], Insn::ja(0));
        assert_eq!(folded[4], program[4]);
    }

    #[test]
    fn joins_keep_only_what_every_path_agrees_on() {
        let program = vec![
            Insn::mov64_imm(Reg::R2, 7),
            Insn::jmp_imm(JmpOp::Eq, Reg::R1, 0, 1),
            Insn::mov64_imm(Reg::R2, 8),
            Insn::jmp_imm(JmpOp::Eq, Reg::R2, 7, 1),
            Insn::mov64_imm(Reg::R0, 1),
            Insn::exit(),
        ];
        assert_eq!(fold_known_branches(program.clone()), program);
    }
}
