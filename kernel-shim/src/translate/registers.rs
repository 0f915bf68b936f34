//! Where the translated program keeps DIF's machine state: DIF registers `%r1`–`%r7` and
//! the condition-code operands in stack slots, plus the spill slots the translator uses.
//!
//! Condition codes are kept as the two operands of the last comparison rather than as
//! flags: `cmp` stores both registers, `tst` stores (value ≠ 0, 0) and `scmp` stores (the
//! sign of the comparison, 0). Every DIF branch then compares the two operands the way
//! classic DTrace evaluates its flags (overflow is always clear, so "negative" is the sign
//! bit of the difference): `be`/`bne` compare for equality, the unsigned branches compare
//! the operands unsigned, and the signed branches test the sign of their difference.

use crate::ebpf::Reg;

/// The stack offset of DIF register `number` (1–7); `%r0` has no slot.
pub const fn dif_register_slot(number: u8) -> i16 {
    -8 * number as i16
}

/// Left operand of the last comparison.
pub const CONDITION_LEFT: i16 = -64;
/// Right operand of the last comparison.
pub const CONDITION_RIGHT: i16 = -72;
/// The value of an action's first DIFO (the id of `speculate()`, the status of `exit()`).
pub const FIRST_VALUE: i16 = -80;
/// The argument of an aggregating function.
pub const AGGREGATION_ARGUMENT: i16 = -88;
/// The increment of a histogram aggregation.
pub const AGGREGATION_INCREMENT: i16 = -96;
/// General spill slots.
pub const SPILL_0: i16 = -104;
pub const SPILL_1: i16 = -112;
pub const SPILL_2: i16 = -120;
pub const SPILL_3: i16 = -128;
pub const SPILL_4: i16 = -136;
/// A u32 map key (a work area's index, 0) for helper calls.
pub const MAP_KEY: i16 = -144;
/// The work-area pointer, where a `bpf_loop` callback finds it (its context argument):
/// a slot of the frame of the subprogram that calls `bpf_loop` (see `code::run_loop`),
/// which uses no other.
pub const LOOP_CONTEXT: i16 = -8;

/// The context pointer.
pub const CONTEXT: Reg = Reg::R6;
/// The work area the program took (see `chain`).
pub const STATE: Reg = Reg::R7;
/// Callee-saved scratch registers.
pub const SAVED_0: Reg = Reg::R8;
pub const SAVED_1: Reg = Reg::R9;
