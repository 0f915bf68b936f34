//! Removal of unreachable instructions and of no-op jumps. The kernel's verifier refuses programs with
//! instructions no path reaches, and translation naturally leaves some (a fault handler
//! of a statement that cannot fault, the code after a DIF instruction that always
//! faults). Reachability starts at the entry and at every subprogram a reachable call or
//! function-address load names; jump and call distances are recomputed afterwards.

use crate::ebpf::opcode::{
    class, operation, BPF_CALL, BPF_EXIT, BPF_JA, BPF_JMP, BPF_JMP32, BPF_PSEUDO_CALL,
    BPF_PSEUDO_FUNC,
};
use crate::ebpf::Insn;

/// What an instruction slot refers to besides the next slot.
enum Flow {
    /// Falls through only.
    Next,
    /// Jumps to the target only.
    Jump(usize),
    /// Falls through and may jump to the target.
    Branch(usize),
    /// Falls through; the target starts a subprogram (a local call, a function address).
    Subprogram(usize),
    /// Leaves the (sub)program.
    Exit,
}

fn flow(instructions: &[Insn], index: usize) -> Flow {
    let instruction = instructions[index];
    let target = |distance: i64| (index as i64 + 1 + distance).max(0) as usize;
    if instruction.is_ld_imm64() {
        if instruction.src == BPF_PSEUDO_FUNC {
            return Flow::Subprogram(target(instruction.imm as i64));
        }
        return Flow::Next;
    }
    let instruction_class = class(instruction.code);
    if instruction_class != BPF_JMP && instruction_class != BPF_JMP32 {
        return Flow::Next;
    }
    match operation(instruction.code) {
        BPF_EXIT => Flow::Exit,
        BPF_CALL if instruction.src == BPF_PSEUDO_CALL => {
            Flow::Subprogram(target(instruction.imm as i64))
        }
        BPF_CALL => Flow::Next,
        BPF_JA if instruction_class == BPF_JMP => Flow::Jump(target(instruction.off as i64)),
        // `gotol`: the distance is in the immediate.
        BPF_JA => Flow::Jump(target(instruction.imm as i64)),
        _ => Flow::Branch(target(instruction.off as i64)),
    }
}

/// Whether `instruction` is `gotol` (`BPF_JMP32 | BPF_JA`, distance in the immediate).
fn is_gotol(instruction: Insn) -> bool {
    class(instruction.code) == BPF_JMP32 && operation(instruction.code) == BPF_JA
}

/// The width of the instruction at `index` in slots.
fn width(instructions: &[Insn], index: usize) -> usize {
    if instructions[index].is_ld_imm64() {
        2
    } else {
        1
    }
}

/// Marks as dropped (in `kept`) every unconditional jump whose target is the next slot
/// kept: `ja +0` and `gotol +0`, and the jumps that only skipped code which is now
/// dropped (a folded region test's jump to the next region, past the removed test).
/// Going backwards, the slots a forward jump skips are decided before the jump is.
fn drop_no_op_jumps(instructions: &[Insn], kept: &mut [bool]) {
    let count = instructions.len();
    // The first kept slot at or after each slot (`count` when there is none).
    let mut next_kept = vec![count; count + 1];
    for index in (0..count).rev() {
        if kept[index] {
            let target = match flow(instructions, index) {
                Flow::Jump(target) => Some(target.min(count)),
                _ => None,
            };
            let skips_nothing =
                target.is_some_and(|target| target > index && next_kept[index + 1] >= target);
            if skips_nothing {
                kept[index] = false;
            }
        }
        next_kept[index] = if kept[index] {
            index
        } else {
            next_kept[index + 1]
        };
    }
}

/// `instructions` without the unreachable ones and the no-op jumps (which the kernel
/// would remove one at a time, each with a pass over the whole program), with distances
/// fixed; the slots in `kept_starts` (functions' starts) become their new positions.
pub fn prune_unreachable(instructions: Vec<Insn>, kept_starts: &mut [usize]) -> Vec<Insn> {
    let count = instructions.len();
    let mut reachable = vec![false; count];
    let mut work = vec![0usize];
    while let Some(index) = work.pop() {
        if index >= count || reachable[index] {
            continue;
        }
        reachable[index] = true;
        let next = index + width(&instructions, index);
        if instructions[index].is_ld_imm64() && next - 1 < count {
            reachable[next - 1] = true;
        }
        match flow(&instructions, index) {
            Flow::Next => work.push(next),
            Flow::Jump(target) => work.push(target),
            Flow::Branch(target) | Flow::Subprogram(target) => {
                work.push(next);
                work.push(target);
            }
            Flow::Exit => {}
        }
    }
    drop_no_op_jumps(&instructions, &mut reachable);
    // New position of every old slot (of the next kept slot for removed ones).
    let mut positions = vec![0usize; count + 1];
    let mut kept = 0;
    for index in 0..count {
        positions[index] = kept;
        if reachable[index] {
            kept += 1;
        }
    }
    positions[count] = kept;
    for start in kept_starts.iter_mut() {
        *start = positions[(*start).min(count)];
    }
    let mut pruned = Vec::with_capacity(kept);
    let mut index = 0;
    while index < count {
        let slots = width(&instructions, index);
        if !reachable[index] {
            index += 1;
            continue;
        }
        let mut instruction = instructions[index];
        let new_index = positions[index] as i64;
        match flow(&instructions, index) {
            Flow::Jump(target) if is_gotol(instruction) => {
                instruction.imm = (positions[target.min(count)] as i64 - new_index - 1) as i32;
            }
            // Removing slots only shortens distances, so an offset that held one still does.
            Flow::Jump(target) | Flow::Branch(target) => {
                instruction.off = (positions[target.min(count)] as i64 - new_index - 1) as i16;
            }
            Flow::Subprogram(target) => {
                instruction.imm = (positions[target.min(count)] as i64 - new_index - 1) as i32;
            }
            Flow::Next | Flow::Exit => {}
        }
        pruned.push(instruction);
        for extra in 1..slots {
            pruned.push(instructions[index + extra]);
        }
        index += slots;
    }
    pruned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ebpf::{JmpOp, Reg};

    #[test]
    fn jumps_left_with_nothing_to_skip_are_dropped() {
        // A folded test: `ja +2` skips code no path reaches, so it is a no-op once that
        // code is gone; `ja +0` is one already; the forward branch is kept.
        let program = vec![
            Insn::mov64_imm(Reg::R0, 0),
            Insn::ja(2),
            Insn::mov64_imm(Reg::R0, 1),
            Insn::ja(0),
            Insn::ja(0),
            Insn::jmp_imm(JmpOp::Eq, Reg::R1, 0, 1),
            Insn::mov64_imm(Reg::R0, 2),
            Insn::exit(),
        ];
        let pruned = prune_unreachable(program.clone(), &mut []);
        assert_eq!(pruned, vec![program[0], program[5], program[6], program[7]]);
    }

    #[test]
    fn jumps_over_kept_code_stay_with_shorter_distances() {
        let program = vec![
            Insn::jmp_imm(JmpOp::Eq, Reg::R1, 0, 3),
            Insn::ja(1),
            Insn::mov64_imm(Reg::R0, 1),
            Insn::ja(1),
            Insn::mov64_imm(Reg::R0, 2),
            Insn::exit(),
        ];
        let pruned = prune_unreachable(program.clone(), &mut []);
        // Slot 2 is unreachable; the first `ja` then skips nothing, the second still
        // skips `r0 = 2`.
        assert_eq!(
            pruned,
            vec![
                Insn::jmp_imm(JmpOp::Eq, Reg::R1, 0, 1),
                Insn::ja(1),
                program[4],
                program[5],
            ]
        );
    }
}
