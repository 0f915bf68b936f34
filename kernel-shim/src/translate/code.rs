//! The translator's assembler: the instruction buffer and its labels, the code sequences
//! every part of the translation uses (DIF register access, the work area's words,
//! pointers into the maps, per-CPU counters, zero-filling), fault exits, and the
//! `bpf_loop` calls whose callbacks are emitted after the chains. It owns only code
//! emission: what a probe or a statement is comes in as a typed context (see
//! `translation_context`).

use difvm::object::FaultCode;

use super::loops::LoopBody;
use super::registers::{dif_register_slot, LOOP_CONTEXT, MAP_KEY, STATE};
use crate::ebpf::{
    AluOp, AssembleError, Assembler, AtomicOp, Helper, Insn, JmpOp, Label, MemSize, Reg,
};
use crate::map_layout::{MapFds, ProgramLayout};

/// The value a fault reports in `arg5`.
#[derive(Debug, Clone, Copy)]
pub enum FaultValue {
    Constant(i32),
    Register(Reg),
}

/// The DIF offset a fault reports in `arg3`: an instruction's byte offset, or none (−1)
/// for faults outside the DIFO's code (recording a value, an action's own checks).
#[derive(Debug, Clone, Copy)]
pub enum FaultSite {
    Instruction(usize),
    OutsideCode,
}

impl FaultSite {
    fn offset(self) -> i32 {
        match self {
            FaultSite::Instruction(index) => (index * 4) as i32,
            FaultSite::OutsideCode => -1,
        }
    }
}

/// Where the faults of one statement go: its fault handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultExit(pub Label);

/// The work-area words a fault is reported in.
#[derive(Debug, Clone, Copy)]
struct FaultWords {
    value: u32,
    code: u32,
    offset: u32,
}

/// The code of one probe program being assembled.
pub struct ProgramCode {
    pub asm: Assembler,
    maps: MapFds,
    fault_words: FaultWords,
    zero_guard: u32,
    /// The `bpf_loop` callbacks the code refers to, emitted after the chains.
    callbacks: Vec<LoopFunctions>,
    /// The map-lookup subprograms the code calls (by map), emitted after the callbacks.
    lookups: Vec<(Label, i32)>,
    /// The address decoder (see `memory`), once the code calls it.
    decoder: Option<Label>,
    /// Where the global functions other than loop callers start (see `program`).
    global_starts: Vec<usize>,
}

/// The two functions of one kind of loop (see [`ProgramCode::run_loop`]).
#[derive(Debug, Clone, Copy)]
pub struct LoopFunctions {
    /// The subprogram that calls `bpf_loop`.
    pub caller: Label,
    /// The callback: one iteration.
    pub callback: Label,
    pub body: LoopBody,
}

impl ProgramCode {
    /// An empty program using the maps `maps` laid out as `layout` says.
    pub fn new(layout: &ProgramLayout, maps: &MapFds) -> ProgramCode {
        ProgramCode {
            asm: Assembler::new(),
            maps: *maps,
            fault_words: FaultWords {
                value: layout.state.fault_value,
                code: layout.state.fault_code,
                offset: layout.state.fault_offset,
            },
            zero_guard: layout.state.zero_guard,
            callbacks: Vec::new(),
            lookups: Vec::new(),
            decoder: None,
            global_starts: Vec::new(),
        }
    }

    /// The maps the program uses.
    pub fn maps(&self) -> &MapFds {
        &self.maps
    }

    /// The assembled instructions, and where the global functions bound with
    /// [`Self::bind_global`] start in them.
    pub fn finish(self) -> Result<(Vec<Insn>, Vec<usize>), AssembleError> {
        let mut global_starts = self.global_starts;
        let instructions = self.asm.finish_moving(&mut global_starts)?;
        Ok((instructions, global_starts))
    }

    pub fn emit(&mut self, instruction: Insn) {
        self.asm.emit(instruction);
    }

    pub fn emit_all(&mut self, instructions: &[Insn]) {
        self.asm.emit_all(instructions);
    }

    pub fn label(&mut self) -> Label {
        self.asm.new_label()
    }

    pub fn bind(&mut self, label: Label) {
        self.asm.bind(label);
    }

    pub fn call(&mut self, helper: Helper) {
        self.emit(Insn::call(helper));
    }

    /// `dst = DIF %rN` (`%r0` reads as 0).
    pub fn load_dif(&mut self, dst: Reg, number: u8) {
        if number == 0 || number > 7 {
            self.emit(Insn::mov64_imm(dst, 0));
        } else {
            self.emit(Insn::ldx_mem(
                MemSize::DW,
                dst,
                Reg::FP,
                dif_register_slot(number),
            ));
        }
    }

    /// `DIF %rN = src`; writes to `%r0` are dropped as DIF says.
    pub fn store_dif(&mut self, number: u8, src: Reg) {
        if number != 0 && number <= 7 {
            self.emit(Insn::stx_mem(
                MemSize::DW,
                Reg::FP,
                src,
                dif_register_slot(number),
            ));
        }
    }

    /// Zeroes DIF registers `%r1`–`%r7` (a DIFO starts with all registers 0).
    pub fn clear_dif_registers(&mut self) {
        for number in 1..=7 {
            self.emit(Insn::st_mem(
                MemSize::DW,
                Reg::FP,
                dif_register_slot(number),
                0,
            ));
        }
    }

    /// `dst = src` unless they are the same register.
    pub fn mov(&mut self, dst: Reg, src: Reg) {
        if dst != src {
            self.emit(Insn::mov64_reg(dst, src));
        }
    }

    /// `dst = r7 + offset`: a pointer into the work area.
    pub fn state_pointer(&mut self, dst: Reg, offset: u32) {
        self.emit(Insn::mov64_reg(dst, STATE));
        if offset != 0 {
            self.emit(Insn::add64_imm(dst, offset as i32));
        }
    }

    /// `dst = &globals[offset]`.
    pub fn globals_pointer(&mut self, dst: Reg, offset: u32) {
        self.emit_all(&Insn::ld_map_value(dst, self.maps.globals, offset));
    }

    /// `dst = &constants[offset]`.
    pub fn constants_pointer(&mut self, dst: Reg, offset: u32) {
        self.emit_all(&Insn::ld_map_value(dst, self.maps.constants, offset));
    }

    /// Stores a u64 field of the work area from a register.
    pub fn store_state(&mut self, offset: u32, src: Reg) {
        self.emit(Insn::stx_mem(MemSize::DW, STATE, src, offset as i16));
    }

    /// Stores a u64 field of the work area from an immediate.
    pub fn store_state_imm(&mut self, offset: u32, value: i32) {
        self.emit(Insn::st_mem(MemSize::DW, STATE, offset as i16, value));
    }

    /// Stores `src` (`size` bytes) at work-area offset `at`, which may lie beyond the
    /// 16-bit offsets an instruction holds (a record longer than 32 KiB): the address is
    /// then formed in `through`, which must not be `src`.
    pub fn store_state_at(&mut self, size: MemSize, at: u32, src: Reg, through: Reg) {
        match i16::try_from(at) {
            Ok(offset) => self.emit(Insn::stx_mem(size, STATE, src, offset)),
            Err(_) => {
                self.state_pointer(through, at);
                self.emit(Insn::stx_mem(size, through, src, 0));
            }
        }
    }

    /// Stores the immediate `value` (`size` bytes) at work-area offset `at`, forming the
    /// address in `through` when `at` is beyond 16-bit offsets.
    pub fn store_state_imm_at(&mut self, size: MemSize, at: u32, value: i32, through: Reg) {
        match i16::try_from(at) {
            Ok(offset) => self.emit(Insn::st_mem(size, STATE, offset, value)),
            Err(_) => {
                self.state_pointer(through, at);
                self.emit(Insn::st_mem(size, through, 0, value));
            }
        }
    }

    /// Loads a u64 field of the work area.
    pub fn load_state(&mut self, dst: Reg, offset: u32) {
        self.emit(Insn::ldx_mem(MemSize::DW, dst, STATE, offset as i16));
    }

    /// Reports a fault: records code, value and DIF offset in the work area and jumps to
    /// the statement's fault handler `exit`. The value register is read before anything
    /// else.
    pub fn fault(&mut self, exit: FaultExit, code: FaultCode, value: FaultValue, site: FaultSite) {
        let words = self.fault_words;
        match value {
            FaultValue::Constant(constant) => self.store_state_imm(words.value, constant),
            FaultValue::Register(register) => self.store_state(words.value, register),
        }
        self.store_state_imm(words.code, code as i32);
        self.store_state_imm(words.offset, site.offset());
        self.asm.ja_to(exit.0);
    }

    /// Emits `if dst OP imm` → fault, i.e. the fault path for the condition.
    #[allow(clippy::too_many_arguments)]
    pub fn fault_if_imm(
        &mut self,
        exit: FaultExit,
        op: JmpOp,
        dst: Reg,
        imm: i32,
        code: FaultCode,
        value: FaultValue,
        site: FaultSite,
    ) {
        let fine = self.label();
        self.asm.jmp_imm_to(invert(op), dst, imm, fine);
        self.fault(exit, code, value, site);
        self.bind(fine);
    }

    /// Emits `if dst OP src` → fault.
    #[allow(clippy::too_many_arguments)]
    pub fn fault_if_reg(
        &mut self,
        exit: FaultExit,
        op: JmpOp,
        dst: Reg,
        src: Reg,
        code: FaultCode,
        value: FaultValue,
        site: FaultSite,
    ) {
        let fine = self.label();
        self.asm.jmp_reg_to(invert(op), dst, src, fine);
        self.fault(exit, code, value, site);
        self.bind(fine);
    }

    /// r0 = `bpf_map_lookup_elem(map, r2)`: the value of the key r2 points to in the map
    /// whose descriptor is `map`, or NULL. Clobbers r1–r5. The lookup is made in a
    /// subprogram, one per map and program: the kernel's verifier inlines every lookup in
    /// a map that lets it, each with a pass over the whole program, so a lookup per use
    /// would cost it time in the square of the number of uses.
    pub fn map_lookup(&mut self, map: i32) {
        let label = match self.lookups.iter().find(|(_, fd)| *fd == map) {
            Some((label, _)) => *label,
            None => {
                let label = self.label();
                self.lookups.push((label, map));
                label
            }
        };
        self.asm.call_to(label);
    }

    /// The label of the address decoder, which the chain emits after the other functions
    /// when the code has asked for it.
    pub fn decoder(&mut self) -> Label {
        match self.decoder {
            Some(label) => label,
            None => {
                let label = self.label();
                self.decoder = Some(label);
                label
            }
        }
    }

    /// Whether the code calls the address decoder.
    pub fn calls_decoder(&self) -> bool {
        self.decoder.is_some()
    }

    /// Starts the global function at `label` here.
    pub fn bind_global(&mut self, label: Label) {
        self.global_starts.push(self.asm.position());
        self.bind(label);
    }

    /// Emits the subprograms [`Self::map_lookup`] calls.
    pub fn emit_lookup_functions(&mut self) {
        for (label, map) in std::mem::take(&mut self.lookups) {
            self.bind(label);
            self.emit_all(&Insn::ld_map_fd(Reg::R1, map));
            self.call(Helper::MapLookupElem);
            self.emit(Insn::exit());
        }
    }

    /// Adds 1 to per-CPU counter `counter` (clobbers r0–r5).
    pub fn count(&mut self, counter: usize) {
        self.add_to_counter(counter, Insn::mov64_imm(Reg::R1, 1));
    }

    /// Adds the u64 in stack slot `slot` to per-CPU counter `counter` (clobbers r0–r5).
    pub fn count_from_stack(&mut self, counter: usize, slot: i16) {
        self.add_to_counter(counter, Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, slot));
    }

    /// Adds r1, as `load_addend` sets it after the lookup, to per-CPU counter `counter`.
    fn add_to_counter(&mut self, counter: usize, load_addend: Insn) {
        let skip = self.label();
        self.emit(Insn::st_mem(MemSize::W, Reg::FP, MAP_KEY, 0));
        self.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
        self.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
        self.map_lookup(self.maps.counters);
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, skip);
        self.emit(load_addend);
        self.emit(Insn::atomic(
            MemSize::DW,
            AtomicOp::Add,
            Reg::R0,
            Reg::R1,
            (counter * 8) as i16,
        ));
        self.bind(skip);
    }

    /// Zeroes `size` bytes at `base + offset`, `base` being r7, r8 or r9 (clobbers
    /// r0–r5). Small areas are stored directly; larger ones are copied from the work
    /// area's zero guard.
    pub fn zero_fill(&mut self, base: Reg, offset: u32, size: u32) {
        if size == 0 {
            return;
        }
        let short = i16::try_from(offset + size).is_ok();
        if short && size <= 128 && offset.is_multiple_of(8) && size.is_multiple_of(8) {
            for word in 0..size / 8 {
                self.emit(Insn::st_mem(
                    MemSize::DW,
                    base,
                    (offset + word * 8) as i16,
                    0,
                ));
            }
            return;
        }
        self.emit(Insn::mov64_reg(Reg::R1, base));
        self.emit(Insn::add64_imm(Reg::R1, offset as i32));
        self.emit(Insn::mov64_imm(Reg::R2, size as i32));
        self.state_pointer(Reg::R3, self.zero_guard);
        self.call(Helper::ProbeReadKernel);
    }

    /// `dst = value`, as short as the constant allows.
    pub fn load_constant(&mut self, dst: Reg, value: u64) {
        if value as i64 >= i32::MIN as i64 && value as i64 <= i32::MAX as i64 {
            self.emit(Insn::mov64_imm(dst, value as i64 as i32));
        } else {
            self.emit_all(&Insn::ld_imm64(dst, value));
        }
    }

    /// `dst = dst OP imm` (64-bit).
    pub fn alu_imm(&mut self, op: AluOp, dst: Reg, imm: i32) {
        self.emit(Insn::alu64_imm(op, dst, imm));
    }

    /// `dst = dst OP src` (64-bit).
    pub fn alu_reg(&mut self, op: AluOp, dst: Reg, src: Reg) {
        self.emit(Insn::alu64_reg(op, dst, src));
    }

    /// Calls `bpf_loop(r1, body, &work area pointer, 0)`: `body` runs r1 times unless it
    /// stops early. r1 must be the iteration count (at most 2^23; the kernel runs nothing
    /// for more). Clobbers r0–r5. Each body is emitted once per program, however often
    /// it is used (see [`Self::callback`]), and so is the call to `bpf_loop` itself, in a
    /// subprogram of its own: the kernel's verifier rewrites every `bpf_loop` call (it
    /// inlines the loop), each rewrite with a pass over the whole program, so a call per
    /// use would cost it time in the square of the number of uses.
    pub fn run_loop(&mut self, body: LoopBody) {
        let caller = match self
            .callbacks
            .iter()
            .find(|functions| functions.body == body)
        {
            Some(functions) => functions.caller,
            None => {
                let functions = LoopFunctions {
                    caller: self.label(),
                    callback: self.label(),
                    body,
                };
                self.callbacks.push(functions);
                functions.caller
            }
        };
        self.emit(Insn::mov64_reg(Reg::R2, STATE));
        self.asm.call_to(caller);
    }

    /// The `index`th loop [`Self::run_loop`] asked for; its functions are emitted by
    /// [`Self::emit_loop_caller`] and the body's code, and callbacks may ask for more
    /// while they are emitted.
    pub fn callback(&self, index: usize) -> Option<LoopFunctions> {
        self.callbacks.get(index).copied()
    }

    /// Emits the subprogram of `functions` that runs its loop: called with r1 = the
    /// iteration count and r2 = the work area, it calls `bpf_loop` with the callback and,
    /// as its context, a pointer to the work-area pointer kept in its own frame. It is
    /// loaded as a global function (see `program`), whose pointer parameter the verifier
    /// takes to be possibly NULL.
    pub fn emit_loop_caller(&mut self, functions: LoopFunctions) {
        let run = self.label();
        self.bind(functions.caller);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R2, 0, run);
        self.emit(Insn::mov64_imm(Reg::R0, 0));
        self.emit(Insn::exit());
        self.bind(run);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R2, LOOP_CONTEXT));
        self.asm.ld_function_address(Reg::R2, functions.callback);
        self.emit(Insn::mov64_reg(Reg::R3, Reg::FP));
        self.emit(Insn::add64_imm(Reg::R3, LOOP_CONTEXT as i32));
        self.emit(Insn::mov64_imm(Reg::R4, 0));
        self.call(Helper::Loop);
        self.emit(Insn::exit());
    }

    /// Leaves a callback: 0 goes on with the next iteration, 1 stops the loop.
    pub fn loop_return(&mut self, stop: bool) {
        self.emit(Insn::mov64_imm(Reg::R0, stop as i32));
        self.emit(Insn::exit());
    }
}

/// The jump that is taken exactly when `op` is not.
pub fn invert(op: JmpOp) -> JmpOp {
    match op {
        JmpOp::Eq => JmpOp::Ne,
        JmpOp::Ne => JmpOp::Eq,
        JmpOp::Gt => JmpOp::Le,
        JmpOp::Ge => JmpOp::Lt,
        JmpOp::Lt => JmpOp::Ge,
        JmpOp::Le => JmpOp::Gt,
        JmpOp::Sgt => JmpOp::Sle,
        JmpOp::Sge => JmpOp::Slt,
        JmpOp::Slt => JmpOp::Sge,
        JmpOp::Sle => JmpOp::Sgt,
        // `Set` has no inverse jump, so the translator never uses it in a fault check;
        // `Eq` on the same operands would be wrong, which is why no caller passes it.
        JmpOp::Set => JmpOp::Set,
    }
}
