//! Aggregating actions: the key built in the work area, the entry looked up in the
//! per-CPU aggregation hash (or created, counting an aggregation drop when the map is
//! full), for `min()` and `max()` its words restarted from
//! `AggregationRule::initial_value` when they belong to an older clear generation (see
//! the layout's documentation), then the update rule of
//! `difvm::aggregation::AggregationRule` applied word for word: counts, sums, `min`/`max`,
//! `stddev`'s 128-bit sum of squares, and the buckets of `quantize`, `lquantize` and
//! `llquantize` (the last computed without branches from the bucket bounds). A histogram
//! split into parts (see the layout's documentation) has its bucket computed first, to
//! find the entry of the part that holds it.

use difvm::aggregation::{AggregationRule, QUANTIZE_ZERO_BUCKET};

use super::code::ProgramCode;
use super::error::TranslateError;
use super::registers::{AGGREGATION_ARGUMENT, AGGREGATION_INCREMENT, SAVED_0};
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::ProgramLayout;
use crate::map_layout::{
    is_split_into_parts, restarts_on_new_generation, AGGREGATION_GENERATION_OFFSET,
    AGGREGATION_PART_WORDS, AGGREGATION_WORDS_OFFSET, COUNTER_AGGREGATION_DROPS,
};

/// `BPF_NOEXIST`.
const BPF_NOEXIST: i32 = 1;
/// `-EEXIST`.
const EEXIST: i32 = -17;

/// Offset of word `index` of the aggregating function in an aggregation value.
fn word_offset(index: usize) -> i16 {
    (AGGREGATION_WORDS_OFFSET as usize + 8 * index) as i16
}

/// The ascending lower bounds of `llquantize`'s positive buckets, computed as
/// `difvm::aggregation::LogLinearQuantization` computes them.
fn log_linear_bounds(factor: u16, low: u16, high: u16, steps: u16) -> Option<(i64, i64, Vec<i64>)> {
    let factor = factor as i64;
    let low_bound = factor.checked_pow(low as u32)?;
    let high_bound = factor.checked_pow(high as u32 + 1)?;
    let mut bounds = Vec::new();
    let mut start = low_bound;
    for _ in low..=high {
        let end = start.checked_mul(factor)?;
        let width = (end / steps.max(1) as i64).max(1);
        let mut bound = start;
        while bound < end {
            bounds.push(bound);
            bound += width;
        }
        start = end;
    }
    Some((low_bound, high_bound, bounds))
}

/// Starts an aggregating action: zeroes the key buffer, writes the aggregation id, and
/// sets the argument (0) and increment (1) defaults.
pub fn begin_aggregation(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    aggregation: u32,
) -> Result<u32, TranslateError> {
    let key_layout = layout.aggregation.ok_or(TranslateError::MissingMap {
        map: "aggregations",
    })?;
    let key = layout.state.aggregation_key;
    code.zero_fill(super::registers::STATE, key, key_layout.key_size);
    code.emit(Insn::st_mem(
        MemSize::W,
        super::registers::STATE,
        key as i16,
        aggregation as i32,
    ));
    code.emit(Insn::st_mem(MemSize::DW, Reg::FP, AGGREGATION_ARGUMENT, 0));
    code.emit(Insn::st_mem(MemSize::DW, Reg::FP, AGGREGATION_INCREMENT, 1));
    Ok(key + 8)
}

/// Finds or creates the entry of the key built; for `min()` and `max()`, restarts its
/// words when they belong to an older generation than the aggregation's current one
/// (a `clear()` or `trunc()` since, or a CPU that never updated the entry); applies
/// the rule, then counts the update. A failed creation counts an aggregation drop,
/// so no update is lost silently.
///
/// The update count is written last: the consumer reads a CPU's value from its start
/// while the CPU may be updating it (x86 keeps stores in order, and reads too), so a
/// count it reads covers words that hold at least that many updates, and an
/// unchanged count means nothing is left to deliver.
pub fn update_aggregation(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    aggregation: u32,
) -> Result<(), TranslateError> {
    let fd = cx.maps().aggregations.ok_or(TranslateError::MissingMap {
        map: "aggregations",
    })?;
    let layout = cx.layout().aggregation.ok_or(TranslateError::MissingMap {
        map: "aggregations",
    })?;
    let rule = cx
        .layout()
        .aggregation_rules
        .get(&aggregation)
        .cloned()
        .ok_or_else(|| cx.unsupported(format!("undescribed aggregation {aggregation}")))?;
    let state = &cx.layout().state;
    let (key, value) = (state.aggregation_key, state.aggregation_value);
    let split = is_split_into_parts(&rule);
    if split {
        select_part(code, &rule, key);
    }
    let found = code.label();
    let done = code.label();
    let dropped = code.label();
    lookup_aggregation(code, fd, key);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, found);
    // A new entry: zeroes on this CPU, which is every function's initial value but
    // `min()`'s and `max()`'s, whose words generation 0 makes restart below (as those
    // of any CPU that never updated the entry).
    code.zero_fill(super::registers::STATE, value, layout.value_size);
    code.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
    code.state_pointer(Reg::R2, key);
    code.state_pointer(Reg::R3, value);
    code.emit(Insn::mov64_imm(Reg::R4, BPF_NOEXIST));
    code.call(Helper::MapUpdateElem);
    let created = code.label();
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, created);
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, EEXIST, created);
    code.asm.ja_to(dropped);
    code.bind(created);
    lookup_aggregation(code, fd, key);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, found);
    code.bind(dropped);
    code.count(COUNTER_AGGREGATION_DROPS);
    code.asm.ja_to(done);
    code.bind(found);
    code.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
    if restarts_on_new_generation(&rule) {
        let generations = cx
            .maps()
            .aggregation_generations
            .ok_or(TranslateError::MissingMap {
                map: "aggregation generations",
            })?;
        restart_stale_words(code, generations, key, &rule);
    }
    let applied = code.label();
    if split {
        add_to_part(code, applied);
    } else {
        apply_rule(code, &rule, applied);
    }
    code.bind(applied);
    add_to_word(code, SAVED_0, 0, None);
    code.bind(done);
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    Ok(())
}

/// For a histogram split into parts: computes the bucket of the argument, keeps it in
/// the argument's stack slot (the argument is not needed after), and writes the number
/// of the part holding it into the key at `key` (after the aggregation id).
fn select_part(code: &mut ProgramCode, rule: &AggregationRule, key: u32) {
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R1,
        Reg::FP,
        AGGREGATION_ARGUMENT,
    ));
    histogram_bucket(code, rule);
    // A bucket past the histogram (none is) would select a part the consumer ignores.
    code.emit(Insn::stx_mem(
        MemSize::DW,
        Reg::FP,
        Reg::R3,
        AGGREGATION_ARGUMENT,
    ));
    code.emit(Insn::alu64_imm(
        AluOp::Div,
        Reg::R3,
        AGGREGATION_PART_WORDS as i32,
    ));
    code.emit(Insn::stx_mem(
        MemSize::W,
        super::registers::STATE,
        Reg::R3,
        key as i16 + 4,
    ));
}

/// For a histogram split into parts: adds the increment to the bucket `select_part`
/// kept, in the part's words at r8 + 16.
fn add_to_part(code: &mut ProgramCode, done: crate::ebpf::Label) {
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R3,
        Reg::FP,
        AGGREGATION_ARGUMENT,
    ));
    code.emit(Insn::alu64_imm(
        AluOp::Mod,
        Reg::R3,
        AGGREGATION_PART_WORDS as i32,
    ));
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R2,
        Reg::FP,
        AGGREGATION_INCREMENT,
    ));
    add_to_bucket(code, SAVED_0, AGGREGATION_PART_WORDS, done);
}

/// Compares the generation of the words at r8 with the aggregation's current
/// generation + 1 (the key buffer starts with the aggregation id, the generations
/// map's key); when they differ, stores it and resets the words to the rule's
/// initial value.
fn restart_stale_words(code: &mut ProgramCode, generations: i32, key: u32, rule: &AggregationRule) {
    let current = code.label();
    let same = code.label();
    code.state_pointer(Reg::R2, key);
    code.map_lookup(generations);
    code.emit(Insn::mov64_imm(Reg::R3, 1));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, current);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R0, 0));
    code.alu_imm(AluOp::Add, Reg::R3, 1);
    code.bind(current);
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R4,
        SAVED_0,
        AGGREGATION_GENERATION_OFFSET as i16,
    ));
    code.asm.jmp_reg_to(JmpOp::Eq, Reg::R4, Reg::R3, same);
    code.emit(Insn::stx_mem(
        MemSize::DW,
        SAVED_0,
        Reg::R3,
        AGGREGATION_GENERATION_OFFSET as i16,
    ));
    code.zero_fill(
        SAVED_0,
        AGGREGATION_WORDS_OFFSET,
        8 * rule.word_count() as u32,
    );
    for (index, word) in rule.initial_value().iter().enumerate() {
        if *word != 0 {
            code.load_constant(Reg::R0, *word as u64);
            code.emit(Insn::stx_mem(
                MemSize::DW,
                SAVED_0,
                Reg::R0,
                word_offset(index),
            ));
        }
    }
    code.bind(same);
}

fn lookup_aggregation(code: &mut ProgramCode, fd: i32, key: u32) {
    code.state_pointer(Reg::R2, key);
    code.map_lookup(fd);
}

/// `[base + offset] += src` (1 when `src` is None).
fn add_to_word(code: &mut ProgramCode, base: Reg, offset: i16, src: Option<Reg>) {
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R5, base, offset));
    match src {
        Some(src) => code.alu_reg(AluOp::Add, Reg::R5, src),
        None => code.alu_imm(AluOp::Add, Reg::R5, 1),
    }
    code.emit(Insn::stx_mem(MemSize::DW, base, Reg::R5, offset));
}

/// Applies `rule` to the words at r8 + 16 with the argument and increment on the
/// stack.
fn apply_rule(code: &mut ProgramCode, rule: &AggregationRule, done: crate::ebpf::Label) {
    let words = SAVED_0;
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R1,
        Reg::FP,
        AGGREGATION_ARGUMENT,
    ));
    code.emit(Insn::ldx_mem(
        MemSize::DW,
        Reg::R2,
        Reg::FP,
        AGGREGATION_INCREMENT,
    ));
    match rule {
        AggregationRule::Count => add_to_word(code, words, word_offset(0), None),
        AggregationRule::Sum => add_to_word(code, words, word_offset(0), Some(Reg::R1)),
        AggregationRule::Average => {
            add_to_word(code, words, word_offset(0), None);
            add_to_word(code, words, word_offset(1), Some(Reg::R1));
        }
        AggregationRule::Minimum | AggregationRule::Maximum => {
            let keep = code.label();
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, words, word_offset(0)));
            let op = if matches!(rule, AggregationRule::Minimum) {
                JmpOp::Sge
            } else {
                JmpOp::Sle
            };
            code.asm.jmp_reg_to(op, Reg::R1, Reg::R3, keep);
            code.emit(Insn::stx_mem(MemSize::DW, words, Reg::R1, word_offset(0)));
            code.bind(keep);
        }
        AggregationRule::StandardDeviation => {
            add_to_word(code, words, word_offset(0), None);
            add_to_word(code, words, word_offset(1), Some(Reg::R1));
            add_square(code, words);
        }
        AggregationRule::Quantize
        | AggregationRule::LinearQuantize(_)
        | AggregationRule::LogLinearQuantize(_) => {
            histogram_bucket(code, rule);
            add_to_bucket(code, words, rule.word_count(), done);
        }
    }
}

/// r3 = the bucket of the value in r1 under histogram `rule` (keeps r2; nothing for
/// the other rules). A bucket past the words leaves the words as they are.
fn histogram_bucket(code: &mut ProgramCode, rule: &AggregationRule) {
    match rule {
        AggregationRule::Quantize => quantize_bucket(code),
        AggregationRule::LinearQuantize(linear) => {
            let (low, step, levels) = (linear.low, linear.step, linear.levels);
            let bucket_done = code.label();
            let above = code.label();
            // The value is truncated to 32 bits first.
            code.alu_imm(AluOp::Lsh, Reg::R1, 32);
            code.alu_imm(AluOp::Arsh, Reg::R1, 32);
            code.emit(Insn::mov64_imm(Reg::R3, 0));
            code.asm
                .jmp_imm_to(JmpOp::Slt, Reg::R1, low as i32, bucket_done);
            code.alu_imm(AluOp::Sub, Reg::R1, low as i32);
            code.emit(Insn::mov64_reg(Reg::R3, Reg::R1));
            code.emit(Insn::alu64_imm(AluOp::Div, Reg::R3, step as i32));
            code.asm
                .jmp_imm_to(JmpOp::Ge, Reg::R3, levels as i32, above);
            code.alu_imm(AluOp::Add, Reg::R3, 1);
            code.asm.ja_to(bucket_done);
            code.bind(above);
            code.emit(Insn::mov64_imm(Reg::R3, levels as i32 + 1));
            code.bind(bucket_done);
        }
        AggregationRule::LogLinearQuantize(log_linear) => {
            match log_linear_bounds(
                log_linear.factor,
                log_linear.low,
                log_linear.high,
                log_linear.steps,
            ) {
                Some((low_bound, high_bound, bounds)) => {
                    log_linear_bucket(code, low_bound, high_bound, &bounds)
                }
                None => code.emit(Insn::mov64_imm(Reg::R3, i32::MAX)),
            }
        }
        _ => {}
    }
}

/// `words[r3] += increment (r2)`, with r3 checked against the word count.
fn add_to_bucket(code: &mut ProgramCode, words: Reg, word_count: usize, done: crate::ebpf::Label) {
    code.asm
        .jmp_imm_to(JmpOp::Ge, Reg::R3, word_count as i32, done);
    code.alu_imm(AluOp::Lsh, Reg::R3, 3);
    code.alu_reg(AluOp::Add, Reg::R3, words);
    add_to_word(code, Reg::R3, word_offset(0), Some(Reg::R2));
}

/// r3 = the `quantize` bucket of r1 (keeps r2).
fn quantize_bucket(code: &mut ProgramCode) {
    let zero = QUANTIZE_ZERO_BUCKET as i32;
    let done = code.label();
    let negative = code.label();
    code.emit(Insn::mov64_imm(Reg::R3, zero));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, done);
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, negative);
    floor_log2(code);
    code.emit(Insn::mov64_imm(Reg::R3, zero + 1));
    code.alu_reg(AluOp::Add, Reg::R3, Reg::R5);
    code.asm.ja_to(done);
    code.bind(negative);
    code.emit(Insn::neg64(Reg::R4));
    floor_log2(code);
    let clamped = code.label();
    code.asm.jmp_imm_to(JmpOp::Le, Reg::R5, 62, clamped);
    code.emit(Insn::mov64_imm(Reg::R5, 62));
    code.bind(clamped);
    code.emit(Insn::mov64_imm(Reg::R3, zero - 1));
    code.alu_reg(AluOp::Sub, Reg::R3, Reg::R5);
    code.bind(done);
}

/// r5 = floor(log2(r4)) for a non-zero unsigned r4 (clobbers r0 and r4).
fn floor_log2(code: &mut ProgramCode) {
    code.emit(Insn::mov64_imm(Reg::R5, 0));
    for shift in [32, 16, 8, 4, 2, 1] {
        let skip = code.label();
        code.emit(Insn::mov64_reg(Reg::R0, Reg::R4));
        code.alu_imm(AluOp::Rsh, Reg::R0, shift);
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, skip);
        code.emit(Insn::mov64_reg(Reg::R4, Reg::R0));
        code.alu_imm(AluOp::Add, Reg::R5, shift);
        code.bind(skip);
    }
}

/// r3 = the `llquantize` bucket of r1 (keeps r2).
fn log_linear_bucket(code: &mut ProgramCode, low_bound: i64, high_bound: i64, bounds: &[i64]) {
    let count = bounds.len() as i32;
    let centre = count + 1;
    let done = code.label();
    let overflow = code.label();
    let negative = code.label();
    // r4 = |value| (2^63 for i64::MIN, which lands in an overflow bucket).
    code.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
    let positive = code.label();
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R4, 0, positive);
    code.emit(Insn::neg64(Reg::R4));
    code.bind(positive);
    code.emit(Insn::mov64_imm(Reg::R3, centre));
    code.load_constant(Reg::R5, low_bound as u64);
    code.asm.jmp_reg_to(JmpOp::Lt, Reg::R4, Reg::R5, done);
    code.load_constant(Reg::R5, high_bound as u64);
    code.asm.jmp_reg_to(JmpOp::Ge, Reg::R4, Reg::R5, overflow);
    // r3 = how many bounds after the first lie above the magnitude.
    code.emit(Insn::mov64_imm(Reg::R3, 0));
    for bound in bounds.iter().skip(1) {
        code.emit(Insn::mov64_reg(Reg::R0, Reg::R4));
        code.load_constant(Reg::R5, *bound as u64);
        code.alu_reg(AluOp::Sub, Reg::R0, Reg::R5);
        code.alu_imm(AluOp::Rsh, Reg::R0, 63);
        code.alu_reg(AluOp::Add, Reg::R3, Reg::R0);
    }
    // r5 = position among the positive buckets.
    code.emit(Insn::mov64_imm(Reg::R5, count - 1));
    code.alu_reg(AluOp::Sub, Reg::R5, Reg::R3);
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, negative);
    code.emit(Insn::mov64_imm(Reg::R3, centre + 1));
    code.alu_reg(AluOp::Add, Reg::R3, Reg::R5);
    code.asm.ja_to(done);
    code.bind(negative);
    code.emit(Insn::mov64_imm(Reg::R3, centre - 1));
    code.alu_reg(AluOp::Sub, Reg::R3, Reg::R5);
    code.asm.ja_to(done);
    code.bind(overflow);
    code.emit(Insn::mov64_imm(Reg::R3, 0));
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, done);
    code.emit(Insn::mov64_imm(Reg::R3, 2 * count + 2));
    code.bind(done);
}

/// Adds |r1|² to the 128-bit sum of squares in words 2 and 3 (at r8 + 32, r8 + 40).
fn add_square(code: &mut ProgramCode, words: Reg) {
    // r3 = |value|.
    code.emit(Insn::mov64_reg(Reg::R3, Reg::R1));
    let positive = code.label();
    code.asm.jmp_imm_to(JmpOp::Sge, Reg::R3, 0, positive);
    code.emit(Insn::neg64(Reg::R3));
    code.bind(positive);
    // r4 = low half, r5 = high half; r0 = lo·lo (low), r1 = hi·hi (high), r2 = lo·hi.
    code.emit(Insn::mov32_reg(Reg::R4, Reg::R3));
    code.emit(Insn::mov64_reg(Reg::R5, Reg::R3));
    code.alu_imm(AluOp::Rsh, Reg::R5, 32);
    code.emit(Insn::mov64_reg(Reg::R0, Reg::R4));
    code.alu_reg(AluOp::Mul, Reg::R0, Reg::R4);
    code.emit(Insn::mov64_reg(Reg::R1, Reg::R5));
    code.alu_reg(AluOp::Mul, Reg::R1, Reg::R5);
    code.emit(Insn::mov64_reg(Reg::R2, Reg::R4));
    code.alu_reg(AluOp::Mul, Reg::R2, Reg::R5);
    // Add (lo·hi) << 32 twice to the low word, carrying into the high word.
    code.emit(Insn::mov64_reg(Reg::R3, Reg::R2));
    code.alu_imm(AluOp::Lsh, Reg::R3, 32);
    for _ in 0..2 {
        let no_carry = code.label();
        code.alu_reg(AluOp::Add, Reg::R0, Reg::R3);
        code.asm.jmp_reg_to(JmpOp::Ge, Reg::R0, Reg::R3, no_carry);
        code.alu_imm(AluOp::Add, Reg::R1, 1);
        code.bind(no_carry);
    }
    code.alu_imm(AluOp::Rsh, Reg::R2, 32);
    code.alu_reg(AluOp::Add, Reg::R1, Reg::R2);
    code.alu_reg(AluOp::Add, Reg::R1, Reg::R2);
    // Words 2 (low) and 3 (high) += (r0, r1).
    let no_carry = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R4, words, word_offset(2)));
    code.alu_reg(AluOp::Add, Reg::R4, Reg::R0);
    code.emit(Insn::stx_mem(MemSize::DW, words, Reg::R4, word_offset(2)));
    code.asm.jmp_reg_to(JmpOp::Ge, Reg::R4, Reg::R0, no_carry);
    code.alu_imm(AluOp::Add, Reg::R1, 1);
    code.bind(no_carry);
    add_to_word(code, words, word_offset(3), Some(Reg::R1));
}
