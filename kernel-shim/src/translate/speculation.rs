//! Speculations: `speculation()` claims a free speculation with a compare-and-exchange on
//! its state word in the globals value; `speculate(id)` redirects the clause's record to
//! the CPU's buffer of that speculation (a full buffer counts a speculative drop);
//! `commit(id)` marks it for the end of the clause, when every CPU's buffer is written to
//! the principal buffer (one perf sample per CPU holding whole records) and the
//! speculation is freed; `discard(id)` empties and frees it at once. Speculative data never
//! leaves the kernel unless committed. Ids outside 1..=nspec fault with `illegal
//! operation` outside code, as in the interpreter.

use difvm::object::FaultCode;

use super::emitter::{Emitter, FaultSite, FaultValue};
use super::layout::{
    COUNTER_PRINCIPAL_DROPS, COUNTER_SPECULATION_UNAVAILABLE, COUNTER_SPECULATIVE_DROPS,
};
use super::registers::{CONTEXT, FIRST_VALUE, MAP_KEY, SAVED_0};
use super::TranslateError;
use crate::ebpf::{AluOp, AtomicOp, Helper, Insn, JmpOp, MemSize, Reg};

/// Destination word value meaning "the record goes nowhere".
pub const DESTINATION_DROPPED: i32 = -1;
/// Most (speculation × CPU) buffers a commit or discard is unrolled over.
const MAX_UNROLLED_BUFFERS: u32 = 256;

impl Emitter<'_> {
    fn speculation_count(&self) -> u32 {
        self.layout.options.speculation_count
    }

    /// `speculation()`: r0 = the id of a newly claimed speculation, or 0 (counted).
    pub fn allocate_speculation(&mut self) {
        let states = self.layout.globals.speculation_states;
        let done = self.label();
        for index in 0..self.speculation_count() {
            let next = self.label();
            self.globals_pointer(Reg::R1, states + 8 * index);
            self.emit(Insn::mov64_imm(Reg::R0, 0));
            self.emit(Insn::mov64_imm(Reg::R2, 1));
            self.emit(Insn::atomic(
                MemSize::DW,
                AtomicOp::CmpXchg,
                Reg::R1,
                Reg::R2,
                0,
            ));
            self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, next);
            self.emit(Insn::mov64_imm(Reg::R0, index as i32 + 1));
            self.asm.ja_to(done);
            self.bind(next);
        }
        self.count(COUNTER_SPECULATION_UNAVAILABLE);
        self.emit(Insn::mov64_imm(Reg::R0, 0));
        self.bind(done);
    }

    /// Checks the id in the `FIRST_VALUE` slot: jumps to `none` for 0, faults for ids past
    /// nspec, and leaves the id in r1 otherwise.
    fn speculation_id(&mut self, none: crate::ebpf::Label) {
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, FIRST_VALUE));
        // `id < 1` rather than `id == 0`: older verifiers (6.1) learn `id >= 1` only from
        // an ordered comparison, and need it to bound the index computed from the id.
        self.asm.jmp_imm_to(JmpOp::Lt, Reg::R1, 1, none);
        self.fault_if_imm(
            JmpOp::Gt,
            Reg::R1,
            self.speculation_count() as i32,
            FaultCode::IllegalOperation,
            FaultValue::Register(Reg::R1),
            FaultSite::OutsideCode,
        );
    }

    /// `speculate(id)`: sets the clause's destination.
    pub fn speculate(&mut self) -> Result<(), TranslateError> {
        self.require_speculations()?;
        let destination = self.layout.state.destination;
        let dropped = self.label();
        let done = self.label();
        self.speculation_id(dropped);
        // An inactive speculation drops the data too.
        self.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
        self.alu_imm(AluOp::Sub, Reg::R2, 1);
        self.alu_imm(AluOp::Lsh, Reg::R2, 3);
        self.globals_pointer(Reg::R3, self.layout.globals.speculation_states);
        self.alu_reg(AluOp::Add, Reg::R3, Reg::R2);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R3, 0));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R3, 0, dropped);
        self.store_state(destination, Reg::R1);
        self.asm.ja_to(done);
        self.bind(dropped);
        self.store_state_imm(destination, DESTINATION_DROPPED);
        self.bind(done);
        Ok(())
    }

    /// `commit(id)`: remembers the speculation for the end of the clause.
    pub fn commit(&mut self) -> Result<(), TranslateError> {
        self.require_speculations()?;
        let commits = self.layout.state.commits;
        let none = self.label();
        self.speculation_id(none);
        self.alu_imm(AluOp::Sub, Reg::R1, 1);
        self.emit(Insn::mov64_imm(Reg::R2, 1));
        self.alu_reg(AluOp::Lsh, Reg::R2, Reg::R1);
        self.load_state(Reg::R3, commits);
        self.alu_reg(AluOp::Or, Reg::R3, Reg::R2);
        self.store_state(commits, Reg::R3);
        self.bind(none);
        Ok(())
    }

    /// `discard(id)`: empties every CPU's buffer of the speculation and frees it.
    pub fn discard(&mut self) -> Result<(), TranslateError> {
        self.require_speculations()?;
        let none = self.label();
        self.speculation_id(none);
        for index in 0..self.speculation_count() {
            let next = self.label();
            self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, FIRST_VALUE));
            self.asm
                .jmp_imm_to(JmpOp::Ne, Reg::R1, index as i32 + 1, next);
            for cpu in 0..self.layout.options.cpu_count {
                let skip = self.label();
                self.lookup_speculation_buffer(index, cpu)?;
                self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, skip);
                self.emit(Insn::st_mem(MemSize::DW, Reg::R0, 0, 0));
                self.bind(skip);
            }
            self.globals_pointer(Reg::R1, self.layout.globals.speculation_states + 8 * index);
            self.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 0));
            self.bind(next);
        }
        self.bind(none);
        Ok(())
    }

    fn require_speculations(&self) -> Result<i32, TranslateError> {
        let fd = self.maps.speculations.ok_or(TranslateError::MissingMap {
            map: "speculations",
        })?;
        let buffers = self.speculation_count() * self.layout.options.cpu_count;
        if buffers > MAX_UNROLLED_BUFFERS {
            return Err(self.unsupported(format!(
                "speculation with {buffers} speculation buffers (nspec × CPUs) over {MAX_UNROLLED_BUFFERS}"
            )));
        }
        Ok(fd)
    }

    /// r0 = the buffer of speculation `index` (from 0) on `cpu`, or NULL.
    fn lookup_speculation_buffer(&mut self, index: u32, cpu: u32) -> Result<(), TranslateError> {
        let fd = self.require_speculations()?;
        let key = index * self.layout.options.cpu_count + cpu;
        self.emit(Insn::st_mem(MemSize::W, Reg::FP, MAP_KEY, key as i32));
        self.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
        self.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
        self.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
        self.call(Helper::MapLookupElem);
        Ok(())
    }

    /// Appends the record (`length` bytes) to this CPU's buffer of the speculation whose
    /// id is the destination word (1..=nspec).
    pub fn append_speculated_record(&mut self, length: u32) -> Result<(), TranslateError> {
        let fd = self.require_speculations()?;
        let state = &self.layout.state;
        let (destination, record) = (state.destination, state.record);
        let specsize = self.layout.options.speculation_size;
        let done = self.label();
        // Only while the speculation is active.
        self.load_state(Reg::R1, destination);
        self.alu_imm(AluOp::Sub, Reg::R1, 1);
        self.asm
            .jmp_imm_to(JmpOp::Ge, Reg::R1, self.speculation_count() as i32, done);
        self.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
        self.alu_imm(AluOp::Lsh, Reg::R2, 3);
        self.globals_pointer(Reg::R3, self.layout.globals.speculation_states);
        self.alu_reg(AluOp::Add, Reg::R3, Reg::R2);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R3, 0));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R3, 0, done);
        // key = index × cpus + cpu.
        self.emit(Insn::mov64_reg(SAVED_0, Reg::R1));
        self.call(Helper::GetSmpProcessorId);
        self.alu_imm(AluOp::Mul, SAVED_0, self.layout.options.cpu_count as i32);
        self.alu_reg(AluOp::Add, SAVED_0, Reg::R0);
        self.emit(Insn::stx_mem(MemSize::W, Reg::FP, SAVED_0, MAP_KEY));
        self.emit_all(&Insn::ld_map_fd(Reg::R1, fd));
        self.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
        self.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
        self.call(Helper::MapLookupElem);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
        self.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
        let fits = self.label();
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, SAVED_0, 0));
        self.asm.jmp_imm_to(
            JmpOp::Le,
            Reg::R1,
            specsize.saturating_sub(length) as i32,
            fits,
        );
        self.count(COUNTER_SPECULATIVE_DROPS);
        self.asm.ja_to(done);
        self.bind(fits);
        if length > specsize {
            self.asm.ja_to(done);
        } else {
            self.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
            self.alu_imm(AluOp::Add, Reg::R2, length as i32);
            self.emit(Insn::stx_mem(MemSize::DW, SAVED_0, Reg::R2, 0));
            self.alu_imm(AluOp::Add, Reg::R1, 8);
            self.alu_reg(AluOp::Add, Reg::R1, SAVED_0);
            self.emit(Insn::mov64_imm(Reg::R2, length as i32));
            self.state_pointer(Reg::R3, record);
            self.call(Helper::ProbeReadKernel);
        }
        self.bind(done);
        self.emit(Insn::mov64_imm(SAVED_0, 0));
        Ok(())
    }

    /// Performs the commits the clause asked for: every CPU's buffer of each speculation is
    /// written to the principal buffer and emptied, and the speculation freed.
    pub fn perform_commits(&mut self) -> Result<(), TranslateError> {
        self.require_speculations()?;
        let commits = self.layout.state.commits;
        let specsize = self.layout.options.speculation_size;
        for index in 0..self.speculation_count() {
            let next = self.label();
            self.load_state(Reg::R1, commits);
            self.alu_imm(AluOp::Rsh, Reg::R1, index as i32);
            self.alu_imm(AluOp::And, Reg::R1, 1);
            self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, next);
            let state_offset = self.layout.globals.speculation_states + 8 * index;
            self.globals_pointer(Reg::R1, state_offset);
            self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R1, 0));
            self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, next);
            for cpu in 0..self.layout.options.cpu_count {
                let skip = self.label();
                self.lookup_speculation_buffer(index, cpu)?;
                self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, skip);
                self.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
                self.emit(Insn::ldx_mem(MemSize::DW, Reg::R5, SAVED_0, 0));
                self.emit(Insn::st_mem(MemSize::DW, SAVED_0, 0, 0));
                self.asm.jmp_imm_to(JmpOp::Eq, Reg::R5, 0, skip);
                self.asm
                    .jmp_imm_to(JmpOp::Gt, Reg::R5, specsize as i32, skip);
                self.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
                self.emit_all(&Insn::ld_map_fd(Reg::R2, self.maps.principal));
                self.emit(Insn::mov32_imm(Reg::R3, -1));
                self.emit(Insn::mov64_reg(Reg::R4, SAVED_0));
                self.alu_imm(AluOp::Add, Reg::R4, 8);
                self.call(Helper::PerfEventOutput);
                self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, skip);
                self.count(COUNTER_PRINCIPAL_DROPS);
                self.bind(skip);
            }
            self.globals_pointer(Reg::R1, state_offset);
            self.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 0));
            self.bind(next);
        }
        self.emit(Insn::mov64_imm(SAVED_0, 0));
        Ok(())
    }
}
