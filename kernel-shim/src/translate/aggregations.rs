//! Aggregating actions: the key built in the work area, the entry looked up in the
//! per-CPU aggregation hash (or created, counting an aggregation drop when the map is
//! full), for `min()` and `max()` its words restarted from
//! `AggregationRule::initial_value` when they belong to an older clear generation (see
//! the layout's documentation), then the update rule of
//! `difvm::aggregation::AggregationRule` applied word for word: counts, sums, `min`/`max`,
//! `stddev`'s 128-bit sum of squares, and the buckets of `quantize`, `lquantize` and
//! `llquantize` (the last computed without branches from the bucket bounds).

use difvm::aggregation::{AggregationRule, QUANTIZE_ZERO_BUCKET};

use super::emitter::Emitter;
use super::layout::{
    restarts_on_new_generation, AGGREGATION_GENERATION_OFFSET, AGGREGATION_WORDS_OFFSET,
    COUNTER_AGGREGATION_DROPS,
};
use super::registers::{AGGREGATION_ARGUMENT, AGGREGATION_INCREMENT, SAVED_0};
use super::TranslateError;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};

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

impl Emitter<'_> {
    /// Starts an aggregating action: zeroes the key buffer, writes the aggregation id, and
    /// sets the argument (0) and increment (1) defaults.
    pub fn begin_aggregation(&mut self, aggregation: u32) -> Result<u32, TranslateError> {
        let layout = self.layout.aggregation.ok_or(TranslateError::MissingMap {
            map: "aggregations",
        })?;
        let key = self.layout.state.aggregation_key;
        self.zero_fill(super::registers::STATE, key, layout.key_size);
        self.emit(Insn::st_mem(
            MemSize::W,
            super::registers::STATE,
            key as i16,
            aggregation as i32,
        ));
        self.emit(Insn::st_mem(MemSize::DW, Reg::FP, AGGREGATION_ARGUMENT, 0));
        self.emit(Insn::st_mem(MemSize::DW, Reg::FP, AGGREGATION_INCREMENT, 1));
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
    pub fn update_aggregation(&mut self, aggregation: u32) -> Result<(), TranslateError> {
        let fd = self.maps.aggregations.ok_or(TranslateError::MissingMap {
            map: "aggregations",
        })?;
        let layout = self.layout.aggregation.ok_or(TranslateError::MissingMap {
            map: "aggregations",
        })?;
        let rule = self
            .layout
            .aggregation_rules
            .get(&aggregation)
            .cloned()
            .ok_or_else(|| self.unsupported(format!("undescribed aggregation {aggregation}")))?;
        let state = &self.layout.state;
        let (key, value) = (state.aggregation_key, state.aggregation_value);
        let found = self.label();
        let done = self.label();
        let dropped = self.label();
        self.lookup_aggregation(fd, key);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, found);
        // A new entry: zeroes on this CPU, which is every function's initial value but
        // `min()`'s and `max()`'s, whose words generation 0 makes restart below (as those
        // of any CPU that never updated the entry).
        self.zero_fill(super::registers::STATE, value, layout.value_size);
        self.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
        self.state_pointer(Reg::R2, key);
        self.state_pointer(Reg::R3, value);
        self.emit(Insn::mov64_imm(Reg::R4, BPF_NOEXIST));
        self.call(Helper::MapUpdateElem);
        let created = self.label();
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, created);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, EEXIST, created);
        self.asm.ja_to(dropped);
        self.bind(created);
        self.lookup_aggregation(fd, key);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, found);
        self.bind(dropped);
        self.count(COUNTER_AGGREGATION_DROPS);
        self.asm.ja_to(done);
        self.bind(found);
        self.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
        if restarts_on_new_generation(&rule) {
            let generations =
                self.maps
                    .aggregation_generations
                    .ok_or(TranslateError::MissingMap {
                        map: "aggregation generations",
                    })?;
            self.restart_stale_words(generations, key, &rule);
        }
        let applied = self.label();
        self.apply_rule(&rule, applied);
        self.bind(applied);
        self.add_to_word(SAVED_0, 0, None);
        self.bind(done);
        self.emit(Insn::mov64_imm(SAVED_0, 0));
        Ok(())
    }

    /// Compares the generation of the words at r8 with the aggregation's current
    /// generation + 1 (the key buffer starts with the aggregation id, the generations
    /// map's key); when they differ, stores it and resets the words to the rule's
    /// initial value.
    fn restart_stale_words(&mut self, generations: i32, key: u32, rule: &AggregationRule) {
        let current = self.label();
        let same = self.label();
        self.emit_all(&Insn::ld_map_fd(Reg::R1, generations));
        self.state_pointer(Reg::R2, key);
        self.call(Helper::MapLookupElem);
        self.emit(Insn::mov64_imm(Reg::R3, 1));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, current);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R0, 0));
        self.alu_imm(AluOp::Add, Reg::R3, 1);
        self.bind(current);
        self.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R4,
            SAVED_0,
            AGGREGATION_GENERATION_OFFSET as i16,
        ));
        self.asm.jmp_reg_to(JmpOp::Eq, Reg::R4, Reg::R3, same);
        self.emit(Insn::stx_mem(
            MemSize::DW,
            SAVED_0,
            Reg::R3,
            AGGREGATION_GENERATION_OFFSET as i16,
        ));
        self.zero_fill(
            SAVED_0,
            AGGREGATION_WORDS_OFFSET,
            8 * rule.word_count() as u32,
        );
        for (index, word) in rule.initial_value().iter().enumerate() {
            if *word != 0 {
                self.load_constant(Reg::R0, *word as u64);
                self.emit(Insn::stx_mem(
                    MemSize::DW,
                    SAVED_0,
                    Reg::R0,
                    word_offset(index),
                ));
            }
        }
        self.bind(same);
    }

    fn lookup_aggregation(&mut self, fd: i32, key: u32) {
        self.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
        self.state_pointer(Reg::R2, key);
        self.call(Helper::MapLookupElem);
    }

    /// `[base + offset] += src` (1 when `src` is None).
    fn add_to_word(&mut self, base: Reg, offset: i16, src: Option<Reg>) {
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R5, base, offset));
        match src {
            Some(src) => self.alu_reg(AluOp::Add, Reg::R5, src),
            None => self.alu_imm(AluOp::Add, Reg::R5, 1),
        }
        self.emit(Insn::stx_mem(MemSize::DW, base, Reg::R5, offset));
    }

    /// Applies `rule` to the words at r8 + 16 with the argument and increment on the
    /// stack.
    fn apply_rule(&mut self, rule: &AggregationRule, done: crate::ebpf::Label) {
        let words = SAVED_0;
        self.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R1,
            Reg::FP,
            AGGREGATION_ARGUMENT,
        ));
        self.emit(Insn::ldx_mem(
            MemSize::DW,
            Reg::R2,
            Reg::FP,
            AGGREGATION_INCREMENT,
        ));
        match rule {
            AggregationRule::Count => self.add_to_word(words, word_offset(0), None),
            AggregationRule::Sum => self.add_to_word(words, word_offset(0), Some(Reg::R1)),
            AggregationRule::Average => {
                self.add_to_word(words, word_offset(0), None);
                self.add_to_word(words, word_offset(1), Some(Reg::R1));
            }
            AggregationRule::Minimum | AggregationRule::Maximum => {
                let keep = self.label();
                self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, words, word_offset(0)));
                let op = if matches!(rule, AggregationRule::Minimum) {
                    JmpOp::Sge
                } else {
                    JmpOp::Sle
                };
                self.asm.jmp_reg_to(op, Reg::R1, Reg::R3, keep);
                self.emit(Insn::stx_mem(MemSize::DW, words, Reg::R1, word_offset(0)));
                self.bind(keep);
            }
            AggregationRule::StandardDeviation => {
                self.add_to_word(words, word_offset(0), None);
                self.add_to_word(words, word_offset(1), Some(Reg::R1));
                self.add_square(words);
            }
            AggregationRule::Quantize => {
                self.quantize_bucket();
                self.add_to_bucket(words, rule.word_count(), done);
            }
            AggregationRule::LinearQuantize(linear) => {
                let (low, step, levels) = (linear.low, linear.step, linear.levels);
                let bucket_done = self.label();
                let above = self.label();
                // The value is truncated to 32 bits first.
                self.alu_imm(AluOp::Lsh, Reg::R1, 32);
                self.alu_imm(AluOp::Arsh, Reg::R1, 32);
                self.emit(Insn::mov64_imm(Reg::R3, 0));
                self.asm
                    .jmp_imm_to(JmpOp::Slt, Reg::R1, low as i32, bucket_done);
                self.alu_imm(AluOp::Sub, Reg::R1, low as i32);
                self.emit(Insn::mov64_reg(Reg::R3, Reg::R1));
                self.emit(Insn::alu64_imm(AluOp::Div, Reg::R3, step as i32));
                self.asm
                    .jmp_imm_to(JmpOp::Ge, Reg::R3, levels as i32, above);
                self.alu_imm(AluOp::Add, Reg::R3, 1);
                self.asm.ja_to(bucket_done);
                self.bind(above);
                self.emit(Insn::mov64_imm(Reg::R3, levels as i32 + 1));
                self.bind(bucket_done);
                self.add_to_bucket(words, rule.word_count(), done);
            }
            AggregationRule::LogLinearQuantize(log_linear) => {
                let Some((low_bound, high_bound, bounds)) = log_linear_bounds(
                    log_linear.factor,
                    log_linear.low,
                    log_linear.high,
                    log_linear.steps,
                ) else {
                    return;
                };
                self.log_linear_bucket(low_bound, high_bound, &bounds);
                self.add_to_bucket(words, rule.word_count(), done);
            }
        }
    }

    /// `words[r3] += increment (r2)`, with r3 checked against the word count.
    fn add_to_bucket(&mut self, words: Reg, word_count: usize, done: crate::ebpf::Label) {
        self.asm
            .jmp_imm_to(JmpOp::Ge, Reg::R3, word_count as i32, done);
        self.alu_imm(AluOp::Lsh, Reg::R3, 3);
        self.alu_reg(AluOp::Add, Reg::R3, words);
        self.add_to_word(Reg::R3, word_offset(0), Some(Reg::R2));
    }

    /// r3 = the `quantize` bucket of r1 (keeps r2).
    fn quantize_bucket(&mut self) {
        let zero = QUANTIZE_ZERO_BUCKET as i32;
        let done = self.label();
        let negative = self.label();
        self.emit(Insn::mov64_imm(Reg::R3, zero));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, done);
        self.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
        self.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, negative);
        self.floor_log2();
        self.emit(Insn::mov64_imm(Reg::R3, zero + 1));
        self.alu_reg(AluOp::Add, Reg::R3, Reg::R5);
        self.asm.ja_to(done);
        self.bind(negative);
        self.emit(Insn::neg64(Reg::R4));
        self.floor_log2();
        let clamped = self.label();
        self.asm.jmp_imm_to(JmpOp::Le, Reg::R5, 62, clamped);
        self.emit(Insn::mov64_imm(Reg::R5, 62));
        self.bind(clamped);
        self.emit(Insn::mov64_imm(Reg::R3, zero - 1));
        self.alu_reg(AluOp::Sub, Reg::R3, Reg::R5);
        self.bind(done);
    }

    /// r5 = floor(log2(r4)) for a non-zero unsigned r4 (clobbers r0 and r4).
    fn floor_log2(&mut self) {
        self.emit(Insn::mov64_imm(Reg::R5, 0));
        for shift in [32, 16, 8, 4, 2, 1] {
            let skip = self.label();
            self.emit(Insn::mov64_reg(Reg::R0, Reg::R4));
            self.alu_imm(AluOp::Rsh, Reg::R0, shift);
            self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, skip);
            self.emit(Insn::mov64_reg(Reg::R4, Reg::R0));
            self.alu_imm(AluOp::Add, Reg::R5, shift);
            self.bind(skip);
        }
    }

    /// r3 = the `llquantize` bucket of r1 (keeps r2).
    fn log_linear_bucket(&mut self, low_bound: i64, high_bound: i64, bounds: &[i64]) {
        let count = bounds.len() as i32;
        let centre = count + 1;
        let done = self.label();
        let overflow = self.label();
        let negative = self.label();
        // r4 = |value| (2^63 for i64::MIN, which lands in an overflow bucket).
        self.emit(Insn::mov64_reg(Reg::R4, Reg::R1));
        let positive = self.label();
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R4, 0, positive);
        self.emit(Insn::neg64(Reg::R4));
        self.bind(positive);
        self.emit(Insn::mov64_imm(Reg::R3, centre));
        self.load_constant(Reg::R5, low_bound as u64);
        self.asm.jmp_reg_to(JmpOp::Lt, Reg::R4, Reg::R5, done);
        self.load_constant(Reg::R5, high_bound as u64);
        self.asm.jmp_reg_to(JmpOp::Ge, Reg::R4, Reg::R5, overflow);
        // r3 = how many bounds after the first lie above the magnitude.
        self.emit(Insn::mov64_imm(Reg::R3, 0));
        for bound in bounds.iter().skip(1) {
            self.emit(Insn::mov64_reg(Reg::R0, Reg::R4));
            self.load_constant(Reg::R5, *bound as u64);
            self.alu_reg(AluOp::Sub, Reg::R0, Reg::R5);
            self.alu_imm(AluOp::Rsh, Reg::R0, 63);
            self.alu_reg(AluOp::Add, Reg::R3, Reg::R0);
        }
        // r5 = position among the positive buckets.
        self.emit(Insn::mov64_imm(Reg::R5, count - 1));
        self.alu_reg(AluOp::Sub, Reg::R5, Reg::R3);
        self.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, negative);
        self.emit(Insn::mov64_imm(Reg::R3, centre + 1));
        self.alu_reg(AluOp::Add, Reg::R3, Reg::R5);
        self.asm.ja_to(done);
        self.bind(negative);
        self.emit(Insn::mov64_imm(Reg::R3, centre - 1));
        self.alu_reg(AluOp::Sub, Reg::R3, Reg::R5);
        self.asm.ja_to(done);
        self.bind(overflow);
        self.emit(Insn::mov64_imm(Reg::R3, 0));
        self.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, done);
        self.emit(Insn::mov64_imm(Reg::R3, 2 * count + 2));
        self.bind(done);
    }

    /// Adds |r1|² to the 128-bit sum of squares in words 2 and 3 (at r8 + 32, r8 + 40).
    fn add_square(&mut self, words: Reg) {
        // r3 = |value|.
        self.emit(Insn::mov64_reg(Reg::R3, Reg::R1));
        let positive = self.label();
        self.asm.jmp_imm_to(JmpOp::Sge, Reg::R3, 0, positive);
        self.emit(Insn::neg64(Reg::R3));
        self.bind(positive);
        // r4 = low half, r5 = high half; r0 = lo·lo (low), r1 = hi·hi (high), r2 = lo·hi.
        self.emit(Insn::mov32_reg(Reg::R4, Reg::R3));
        self.emit(Insn::mov64_reg(Reg::R5, Reg::R3));
        self.alu_imm(AluOp::Rsh, Reg::R5, 32);
        self.emit(Insn::mov64_reg(Reg::R0, Reg::R4));
        self.alu_reg(AluOp::Mul, Reg::R0, Reg::R4);
        self.emit(Insn::mov64_reg(Reg::R1, Reg::R5));
        self.alu_reg(AluOp::Mul, Reg::R1, Reg::R5);
        self.emit(Insn::mov64_reg(Reg::R2, Reg::R4));
        self.alu_reg(AluOp::Mul, Reg::R2, Reg::R5);
        // Add (lo·hi) << 32 twice to the low word, carrying into the high word.
        self.emit(Insn::mov64_reg(Reg::R3, Reg::R2));
        self.alu_imm(AluOp::Lsh, Reg::R3, 32);
        for _ in 0..2 {
            let no_carry = self.label();
            self.alu_reg(AluOp::Add, Reg::R0, Reg::R3);
            self.asm.jmp_reg_to(JmpOp::Ge, Reg::R0, Reg::R3, no_carry);
            self.alu_imm(AluOp::Add, Reg::R1, 1);
            self.bind(no_carry);
        }
        self.alu_imm(AluOp::Rsh, Reg::R2, 32);
        self.alu_reg(AluOp::Add, Reg::R1, Reg::R2);
        self.alu_reg(AluOp::Add, Reg::R1, Reg::R2);
        // Words 2 (low) and 3 (high) += (r0, r1).
        let no_carry = self.label();
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R4, words, word_offset(2)));
        self.alu_reg(AluOp::Add, Reg::R4, Reg::R0);
        self.emit(Insn::stx_mem(MemSize::DW, words, Reg::R4, word_offset(2)));
        self.asm.jmp_reg_to(JmpOp::Ge, Reg::R4, Reg::R0, no_carry);
        self.alu_imm(AluOp::Add, Reg::R1, 1);
        self.bind(no_carry);
        self.add_to_word(words, word_offset(3), Some(Reg::R1));
    }
}
