//! DIF memory in the kernel: tagged addresses turned into real addresses after a bounds
//! check, reads of fixed size and of strings through `bpf_probe_read_*`, the scratch
//! allocator, and writable scratch pointers the kernel's verifier can bound.
//!
//! A tagged address must have zeros in bits 55–32 (the interpreter's region index); its
//! offset is checked against the area it names: scratch up to the bytes the clause has
//! allocated, the others up to their value's size. Strings in an area end where the area
//! (for scratch: the allocated part) ends, as in the interpreter. Every other address is
//! handed to `bpf_probe_read_kernel` (or `_user`) as it is; address 0 always faults.
//!
//! Reads decode their address by calling one global function of the program, the
//! address decoder ([`emit_address_decoder`]), which returns the real address as a
//! number (the read helpers take any number as their source): the kernel's verifier
//! checks it once, where decoding code inlined at every read made it follow a path per
//! area at every read. Writes keep their inline checks, since they need pointers the
//! verifier can bound.

use difvm::object::FaultCode;

use super::code::{FaultSite, FaultValue, ProgramCode};
use super::registers::{SAVED_0, SAVED_1, SPILL_0, SPILL_4, STATE};
use super::translation_context::{Chain, StatementContext};
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::ProgramLayout;
use crate::map_layout::{TAG_CONSTANTS, TAG_GLOBALS, TAG_SCRATCH, TAG_SHIFT, TAG_STATE};

/// Which memory a read may reach (the interpreter's `Access`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Tagged areas, else kernel memory.
    Kernel,
    /// Tagged areas only (`rld*`).
    Restricted,
    /// User memory only (`uld*`, `copyin*`).
    User,
}

/// The value of bits 63–32 of a tagged address with this tag.
fn tag_high(tag: u64) -> i32 {
    (tag << (TAG_SHIFT - 32)) as u32 as i32
}

/// Where a string read puts its bytes.
#[derive(Debug, Clone, Copy)]
pub enum StringDestination {
    /// At this offset of the work area.
    State(u32),
    /// At the pointer held in this callee-saved register (r8 or r9), which has room for
    /// `bound + 1` bytes.
    Pointer(Reg),
}

/// Sets `dst` to a real address from which `size` bytes can be read for the DIF
/// address in `address` (which must be r8 or r9 and is kept), faulting with `invalid
/// address` (reporting the DIF address) when a tagged address is out of its area or
/// when `access` forbids the memory. The address is a number, fit only for the read
/// helpers' source argument. Clobbers r0–r5; `dst` is r3, r4 or r5.
pub fn resolve_address(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    size: u32,
    dst: Reg,
    access: Access,
    site: FaultSite,
) {
    resolve(code, cx, address, Extent::Constant(size), dst, access, site);
}

/// [`resolve_address`] for a read whose size is in the stack slot `size_slot`
/// (`copys`, `bcopy`): a tagged address must have the whole extent in its area.
pub fn resolve_address_extent(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    size_slot: i16,
    dst: Reg,
    access: Access,
    site: FaultSite,
) {
    resolve(
        code,
        cx,
        address,
        Extent::Slot(size_slot),
        dst,
        access,
        site,
    );
}

fn resolve(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    extent: Extent,
    dst: Reg,
    access: Access,
    site: FaultSite,
) {
    if access == Access::User {
        code.mov(dst, address);
        return;
    }
    match extent {
        Extent::Constant(size) => code.load_constant(Reg::R3, size as u64),
        Extent::Slot(slot) => code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::FP, slot)),
    }
    decode_address(code, cx, address, access, site);
    code.mov(dst, Reg::R0);
}

/// r0 = the real address of the DIF address in `address` (r8 or r9), whose area must
/// have the extent in r3 from it on: a call of the address decoder (see
/// [`emit_address_decoder`]), faulting with `invalid address` where it finds none.
/// Clobbers r1–r5.
fn decode_address(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    access: Access,
    site: FaultSite,
) {
    let decoder = code.decoder();
    code.mov(Reg::R1, address);
    code.mov(Reg::R2, STATE);
    code.emit(Insn::mov64_imm(
        Reg::R4,
        (access == Access::Restricted) as i32,
    ));
    code.asm.call_to(decoder);
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Eq,
        Reg::R0,
        0,
        FaultCode::BadAddress,
        FaultValue::Register(address),
        site,
    );
}

/// Emits the address decoder, a global function `(address, work area, extent,
/// restricted)` returning the real address of the DIF address as a number, or 0 when it
/// has none: a tagged address must lie in its area with the extent after it (scratch up
/// to the bytes the clause has allocated), and leaves in the work area's `decoded_span`
/// the bytes its area has from it on; another address is itself (none when
/// `restricted`), with an unbounded span. The kernel's verifier checks it once, where
/// code inlined at every memory access cost it a path per area at every access.
pub fn emit_address_decoder(code: &mut ProgramCode, layout: &ProgramLayout) {
    let Some(label) = code.calls_decoder().then(|| code.decoder()) else {
        return;
    };
    let state = &layout.state;
    let span = state.decoded_span as i16;
    let (address, work_area, extent, restricted) = (Reg::R6, STATE, Reg::R8, Reg::R9);
    let none = code.label();
    code.bind_global(label);
    // The work area is a parameter the verifier takes to be possibly NULL.
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, none);
    code.emit(Insn::mov64_reg(address, Reg::R1));
    code.emit(Insn::mov64_reg(work_area, Reg::R2));
    code.emit(Insn::mov64_reg(extent, Reg::R3));
    code.emit(Insn::mov64_reg(restricted, Reg::R4));
    code.emit(Insn::mov64_reg(Reg::R1, address));
    code.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R1, 32));
    for area in &tagged_areas(layout) {
        let next = code.label();
        code.emit(Insn::mov32_imm(Reg::R2, area.tag_high));
        code.asm.jmp_reg_to(JmpOp::Ne, Reg::R1, Reg::R2, next);
        // r0 = the offset, r5 = the area's end (for scratch, the allocated end).
        code.emit(Insn::mov32_reg(Reg::R0, address));
        if area.is_scratch {
            code.emit(Insn::ldx_mem(
                MemSize::DW,
                Reg::R5,
                work_area,
                state.scratch_used as i16,
            ));
        } else {
            code.load_constant(Reg::R5, area.size as u64);
        }
        code.asm.jmp_reg_to(JmpOp::Gt, extent, Reg::R5, none);
        code.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
        code.alu_reg(AluOp::Sub, Reg::R4, extent);
        code.asm.jmp_reg_to(JmpOp::Gt, Reg::R0, Reg::R4, none);
        // The area's base (the work area is in r7, as `area_base` expects), a pointer,
        // becomes a number through the work area.
        area_base(code, Reg::R3, area);
        code.emit(Insn::stx_mem(MemSize::DW, work_area, Reg::R3, span));
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, work_area, span));
        code.alu_reg(AluOp::Sub, Reg::R5, Reg::R0);
        code.emit(Insn::stx_mem(MemSize::DW, work_area, Reg::R5, span));
        code.alu_reg(AluOp::Add, Reg::R0, Reg::R3);
        code.emit(Insn::exit());
        code.bind(next);
    }
    // Tags outside the areas tried fault; other addresses are themselves.
    code.emit(Insn::mov64_reg(Reg::R1, address));
    code.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R1, TAG_SHIFT as i32));
    let external = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Lt, Reg::R1, TAG_SCRATCH as i32, external);
    code.asm
        .jmp_imm_to(JmpOp::Gt, Reg::R1, TAG_CONSTANTS as i32, external);
    code.asm.ja_to(none);
    code.bind(external);
    code.asm.jmp_imm_to(JmpOp::Ne, restricted, 0, none);
    code.emit(Insn::st_mem(MemSize::DW, work_area, span, -1));
    code.emit(Insn::mov64_reg(Reg::R0, address));
    code.emit(Insn::exit());
    code.bind(none);
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.emit(Insn::exit());
}

/// Reads `size` (1, 2, 4 or 8) bytes at the DIF address in `address` (r8 or r9) into
/// r0, zero-extended; faults with `invalid address` when unreadable.
pub fn load_memory(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    size: u32,
    access: Access,
    site: FaultSite,
) {
    let temporary = cx.layout().state.temporary;
    copy_memory_to_state(code, cx, address, size, temporary, access, site);
    let memory_size = MemSize::from_bytes(size as usize).unwrap_or(MemSize::DW);
    code.emit(Insn::ldx_mem(memory_size, Reg::R0, STATE, temporary as i16));
}

/// Copies `size` bytes (a constant no larger than the destination) from the DIF
/// address in `address` (r8 or r9) to the work area at `destination`; faults with
/// `invalid address` when unreadable.
pub fn copy_memory_to_state(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    size: u32,
    destination: u32,
    access: Access,
    site: FaultSite,
) {
    if size == 0 {
        return;
    }
    resolve_address(code, cx, address, size, Reg::R3, access, site);
    code.state_pointer(Reg::R1, destination);
    code.emit(Insn::mov64_imm(Reg::R2, size as i32));
    read_or_fault(code, cx, access, address, site);
}

/// Reads the NUL-terminated string at the DIF address in `address` (r8 or r9): at most
/// `bound` bytes (and at most the run-time bound in `runtime_bound`, a stack slot, when
/// given: a value the kernel's verifier knows is at most `bound`), written with a NUL to `destination`. Leaves the length (without the NUL) in
/// r0. Faults with `invalid address` when unreadable (NULL included).
#[allow(clippy::too_many_arguments)]
pub fn read_string(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    bound: u32,
    runtime_bound: Option<i16>,
    destination: StringDestination,
    access: Access,
    site: FaultSite,
) {
    // r2 = the bytes the string may span, r3 = where it starts.
    if access == Access::User {
        code.load_constant(Reg::R2, bound as u64);
        code.mov(Reg::R3, address);
    } else {
        code.emit(Insn::mov64_imm(Reg::R3, 0));
        decode_address(code, cx, address, access, site);
        code.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        code.load_state(Reg::R2, cx.layout().state.decoded_span);
    }
    // Clamp the span to the bounds, then allow for the NUL. The constant comes first and
    // the run-time bound last. Verifiers before Linux 6.8 or so learn nothing from
    // comparing two registers, so the run-time bound must be one they know is at most
    // `bound` (its callers clamp it with constants); newer ones learn from the comparison,
    // and a constant clamp after it would be code they find dead and remove, each run
    // with a pass over the whole program.
    let clamped = code.label();
    code.asm
        .jmp_imm_to(JmpOp::Le, Reg::R2, bound as i32, clamped);
    code.load_constant(Reg::R2, bound as u64);
    code.bind(clamped);
    if let Some(slot) = runtime_bound {
        let within = code.label();
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R4, Reg::FP, slot));
        code.asm.jmp_reg_to(JmpOp::Le, Reg::R2, Reg::R4, within);
        code.emit(Insn::mov64_reg(Reg::R2, Reg::R4));
        code.bind(within);
    }
    code.emit(Insn::add64_imm(Reg::R2, 1));
    match destination {
        StringDestination::State(offset) => code.state_pointer(Reg::R1, offset),
        StringDestination::Pointer(register) => code.mov(Reg::R1, register),
    }
    let helper = if access == Access::User {
        Helper::ProbeReadUserStr
    } else {
        Helper::ProbeReadKernelStr
    };
    code.call(helper);
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Slt,
        Reg::R0,
        1,
        FaultCode::BadAddress,
        FaultValue::Register(address),
        site,
    );
    code.emit(Insn::add64_imm(Reg::R0, -1));
}

/// Allocates `size` zeroed bytes of scratch, 8-byte aligned; the size is a constant or
/// in the stack slot `size_slot`. Faults with `out of scratch space`. Leaves the
/// allocation's scratch offset in r0 and in the spill slot `SPILL_4`.
pub fn allocate_scratch(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    size: ScratchSize,
    site: FaultSite,
) {
    let state = &cx.layout().state;
    let (used, scratch, scratch_size) = (state.scratch_used, state.scratch, state.scratch_size);
    match size {
        ScratchSize::Constant(bytes) => code.load_constant(Reg::R2, bytes as u64),
        ScratchSize::Slot(slot) => code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, slot)),
    }
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Gt,
        Reg::R2,
        scratch_size as i32,
        FaultCode::NoScratch,
        FaultValue::Constant(0),
        site,
    );
    code.load_state(Reg::R1, used);
    code.emit(Insn::add64_imm(Reg::R1, 7));
    code.emit(Insn::alu64_imm(AluOp::And, Reg::R1, -8));
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Gt,
        Reg::R1,
        scratch_size as i32,
        FaultCode::NoScratch,
        FaultValue::Constant(0),
        site,
    );
    code.emit(Insn::mov64_reg(Reg::R3, Reg::R1));
    code.emit(Insn::alu64_reg(AluOp::Add, Reg::R3, Reg::R2));
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Gt,
        Reg::R3,
        scratch_size as i32,
        FaultCode::NoScratch,
        FaultValue::Constant(0),
        site,
    );
    code.store_state(used, Reg::R3);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R1, SPILL_4));
    // Zero the allocation (an earlier clause may have left bytes there).
    let skip = code.label();
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, skip);
    code.state_pointer(Reg::R3, state_zero_guard(cx.layout()));
    code.emit(Insn::add64_imm(Reg::R1, scratch as i32));
    code.emit(Insn::alu64_reg(AluOp::Add, Reg::R1, STATE));
    code.call(Helper::ProbeReadKernel);
    code.bind(skip);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::FP, SPILL_4));
}

/// `dst = TAG_SCRATCH address of the scratch offset in src`.
pub fn scratch_address(code: &mut ProgramCode, dst: Reg, src: Reg) {
    code.emit_all(&Insn::ld_imm64(dst, TAG_SCRATCH << TAG_SHIFT));
    code.emit(Insn::alu64_reg(AluOp::Or, dst, src));
}

/// Sets `dst` (r8 or r9) to a writable pointer to `size` bytes of allocated scratch
/// at the DIF address in `address` (r8 or r9), the size being a constant or in the
/// register `size_register` (bounded by the scratch size, checked here). Faults with
/// `invalid address` unless the whole range is allocated scratch. Clobbers r1–r3.
pub fn writable_scratch(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    size: WriteSize,
    dst: Reg,
    site: FaultSite,
) {
    let state = &cx.layout().state;
    let (used, scratch, scratch_size) = (state.scratch_used, state.scratch, state.scratch_size);
    let bad =
        |code: &mut ProgramCode, op: JmpOp, left: Reg, right: Option<Reg>, imm: i32| match right {
            Some(right) => code.fault_if_reg(
                cx.fault_exit,
                op,
                left,
                right,
                FaultCode::BadAddress,
                FaultValue::Register(address),
                site,
            ),
            None => code.fault_if_imm(
                cx.fault_exit,
                op,
                left,
                imm,
                FaultCode::BadAddress,
                FaultValue::Register(address),
                site,
            ),
        };
    code.emit(Insn::mov64_reg(Reg::R1, address));
    code.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R1, 32));
    code.emit(Insn::mov32_imm(Reg::R2, tag_high(TAG_SCRATCH)));
    bad(code, JmpOp::Ne, Reg::R1, Some(Reg::R2), 0);
    code.emit(Insn::mov32_reg(Reg::R1, address));
    match size {
        WriteSize::Constant(bytes) => {
            bad(
                code,
                JmpOp::Gt,
                Reg::R1,
                None,
                scratch_size.saturating_sub(bytes) as i32,
            );
            code.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
            code.emit(Insn::add64_imm(Reg::R2, bytes as i32));
        }
        WriteSize::Register(register) => {
            bad(code, JmpOp::Gt, Reg::R1, None, scratch_size as i32);
            bad(code, JmpOp::Gt, register, None, scratch_size as i32);
            code.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
            code.emit(Insn::alu64_reg(AluOp::Add, Reg::R2, register));
        }
    }
    code.load_state(Reg::R3, used);
    bad(code, JmpOp::Gt, Reg::R2, Some(Reg::R3), 0);
    code.emit(Insn::mov64_reg(dst, STATE));
    code.emit(Insn::add64_imm(dst, scratch as i32));
    code.emit(Insn::alu64_reg(AluOp::Add, dst, Reg::R1));
}

/// Sets `dst` (r8 or r9) to a writable pointer to the `size` bytes a DIF store
/// (`stb`…`stx`) at the DIF address in `address` (r8 or r9) writes: allocated scratch
/// ([`writable_scratch`]), or the storage of the global variables in the globals value
/// ([`writable_globals`]). Faults with `invalid address` otherwise. Clobbers r1–r3.
pub fn writable_store_target(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    size: u32,
    dst: Reg,
    site: FaultSite,
) {
    let not_globals = code.label();
    let done = code.label();
    jump_unless_tagged(code, address, TAG_GLOBALS, not_globals);
    writable_globals(code, cx, address, WriteSize::Constant(size), dst, site);
    code.asm.ja_to(done);
    code.bind(not_globals);
    // Only by-reference clause-locals (arrays, structs) have storage a store can reach.
    if clause_local_slack(cx) > 0 {
        let not_clause_locals = code.label();
        jump_unless_tagged(code, address, TAG_STATE, not_clause_locals);
        writable_clause_locals(code, cx, address, WriteSize::Constant(size), dst, site);
        code.asm.ja_to(done);
        code.bind(not_clause_locals);
    }
    writable_scratch(code, cx, address, WriteSize::Constant(size), dst, site);
    code.bind(done);
}

/// Jumps to `target` unless the DIF address in `address` has the tag `tag`.
/// Clobbers r1 and r2.
fn jump_unless_tagged(code: &mut ProgramCode, address: Reg, tag: u64, target: Label) {
    code.emit(Insn::mov64_reg(Reg::R1, address));
    code.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R1, 32));
    code.emit(Insn::mov32_imm(Reg::R2, tag_high(tag)));
    code.asm.jmp_reg_to(JmpOp::Ne, Reg::R1, Reg::R2, target);
}

/// The bytes of by-reference clause-locals a copy of a run-time size may write: the
/// largest one (0 when the program has none).
fn clause_local_slack(cx: &StatementContext<'_>) -> u32 {
    let locals = cx.layout().clause_locals.values();
    let sizes = locals.filter_map(|slot| slot.by_reference_size);
    sizes
        .map(|size| size.next_multiple_of(8))
        .max()
        .unwrap_or(0)
}

/// Sets `dst` (r8 or r9) to a writable pointer to `size` bytes of this chain's
/// clause-local storage (a clause-local array's or struct's elements) at the work-area
/// address in `address` (r8 or r9). A size in a register is at most the largest
/// by-reference clause-local. Faults with `invalid address` otherwise. Clobbers r1–r3.
fn writable_clause_locals(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    size: WriteSize,
    dst: Reg,
    site: FaultSite,
) {
    let state = &cx.layout().state;
    let start = match cx.chain {
        Chain::Main => state.clause_locals,
        Chain::Error => state.error_clause_locals,
    };
    let end = start + state.clause_locals_size;
    let fault = |code: &mut ProgramCode, op: JmpOp, register: Reg, bound: u32| {
        code.fault_if_imm(
            cx.fault_exit,
            op,
            register,
            bound as i32,
            FaultCode::BadAddress,
            FaultValue::Register(address),
            site,
        );
    };
    code.emit(Insn::mov32_reg(Reg::R1, address));
    fault(code, JmpOp::Lt, Reg::R1, start);
    match size {
        WriteSize::Constant(bytes) => fault(code, JmpOp::Gt, Reg::R1, end.saturating_sub(bytes)),
        WriteSize::Register(register) => {
            fault(code, JmpOp::Gt, Reg::R1, end);
            fault(code, JmpOp::Gt, register, clause_local_slack(cx));
            code.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
            code.emit(Insn::alu64_reg(AluOp::Add, Reg::R2, register));
            fault(code, JmpOp::Gt, Reg::R2, end);
        }
    }
    code.emit(Insn::mov64_reg(dst, STATE));
    code.emit(Insn::alu64_reg(AluOp::Add, dst, Reg::R1));
}

/// Sets `dst` (r8 or r9) to a writable pointer to `size` bytes of the global variables'
/// storage at the globals address in `address` (r8 or r9): global variables kept in
/// memory, which `&x` and scalar arrays point into, and by-reference globals (a string
/// array's element), never the engine's own words before them. A size in a register
/// is at most the globals' store slack. Faults with `invalid address` otherwise.
/// Clobbers r1–r3.
fn writable_globals(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    address: Reg,
    size: WriteSize,
    dst: Reg,
    site: FaultSite,
) {
    let globals = &cx.layout().globals;
    let variables_start = globals
        .variables
        .values()
        .map(|slot| slot.offset)
        .min()
        .unwrap_or(globals.variables_end);
    let fault = |code: &mut ProgramCode, op: JmpOp, register: Reg, bound: u32| {
        code.fault_if_imm(
            cx.fault_exit,
            op,
            register,
            bound as i32,
            FaultCode::BadAddress,
            FaultValue::Register(address),
            site,
        );
    };
    code.emit(Insn::mov32_reg(Reg::R1, address));
    fault(code, JmpOp::Lt, Reg::R1, variables_start);
    match size {
        WriteSize::Constant(bytes) => {
            fault(
                code,
                JmpOp::Gt,
                Reg::R1,
                globals.variables_end.saturating_sub(bytes),
            );
        }
        WriteSize::Register(register) => {
            fault(code, JmpOp::Gt, Reg::R1, globals.variables_end);
            fault(code, JmpOp::Gt, register, globals.store_slack);
            code.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
            code.emit(Insn::alu64_reg(AluOp::Add, Reg::R2, register));
            fault(code, JmpOp::Gt, Reg::R2, globals.variables_end);
        }
    }
    code.globals_pointer(dst, 0);
    code.emit(Insn::alu64_reg(AluOp::Add, dst, Reg::R1));
}

/// The tagged areas and their sizes.
fn tagged_areas(layout: &ProgramLayout) -> Vec<TaggedArea> {
    let state = &layout.state;
    vec![
        TaggedArea {
            tag_high: tag_high(TAG_SCRATCH),
            size: state.scratch_size,
            is_scratch: true,
            base: AreaBase::State(state.scratch),
        },
        TaggedArea {
            tag_high: tag_high(TAG_GLOBALS),
            size: layout.globals.size,
            is_scratch: false,
            base: AreaBase::Globals,
        },
        TaggedArea {
            tag_high: tag_high(TAG_STATE),
            size: state.size,
            is_scratch: false,
            base: AreaBase::State(0),
        },
        TaggedArea {
            tag_high: tag_high(TAG_CONSTANTS),
            size: layout.constants_image().len() as u32,
            is_scratch: false,
            base: AreaBase::Constants,
        },
    ]
}

fn area_base(code: &mut ProgramCode, dst: Reg, area: &TaggedArea) {
    match area.base {
        AreaBase::State(offset) => code.state_pointer(dst, offset),
        AreaBase::Globals => code.globals_pointer(dst, 0),
        AreaBase::Constants => code.constants_pointer(dst, 0),
    }
}

fn state_zero_guard(layout: &ProgramLayout) -> u32 {
    layout.state.zero_guard
}

/// How many bytes a resolved address must have in its area.
#[derive(Debug, Clone, Copy)]
enum Extent {
    Constant(u32),
    /// In this stack slot.
    Slot(i16),
}

/// The size of a scratch allocation.
#[derive(Debug, Clone, Copy)]
pub enum ScratchSize {
    Constant(u32),
    /// In this stack slot.
    Slot(i16),
}

/// The size of a scratch write.
#[derive(Debug, Clone, Copy)]
pub enum WriteSize {
    Constant(u32),
    Register(Reg),
}

#[derive(Debug, Clone, Copy)]
enum AreaBase {
    State(u32),
    Globals,
    Constants,
}

#[derive(Debug, Clone, Copy)]
struct TaggedArea {
    tag_high: i32,
    size: u32,
    is_scratch: bool,
    base: AreaBase,
}

/// Copies the size in r4 bytes into the scratch at the DIF address in `SAVED_1` (`copys`,
/// `bcopy`, `copyin`, `copyinto`), or into global or clause-local variables' storage
/// where DTrace lets a store go (a string array's element): the destination is checked writable first, a
/// zero size copies nothing, `load_source` then puts the source address in `SAVED_1`,
/// and the read goes through the kernel- or user-read helper by `access`. Leaves 0 in
/// `SAVED_0`.
pub fn copy_extent_into_scratch(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    load_source: impl Fn(&mut ProgramCode),
    access: Access,
    site: FaultSite,
) {
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R4, SPILL_0));
    let done = code.label();
    let slack = cx.layout().globals.store_slack;
    if slack > 0 {
        // Each destination has its own path, so that the size the read helper gets is
        // bounded by what its destination has room for.
        let not_globals = code.label();
        jump_unless_tagged(code, SAVED_1, TAG_GLOBALS, not_globals);
        writable_globals(
            code,
            cx,
            SAVED_1,
            WriteSize::Register(Reg::R4),
            SAVED_0,
            site,
        );
        copy_checked_extent(code, cx, &load_source, access, slack, site);
        code.asm.ja_to(done);
        code.bind(not_globals);
    }
    let slack = clause_local_slack(cx);
    if slack > 0 {
        let not_clause_locals = code.label();
        jump_unless_tagged(code, SAVED_1, TAG_STATE, not_clause_locals);
        let size = WriteSize::Register(Reg::R4);
        writable_clause_locals(code, cx, SAVED_1, size, SAVED_0, site);
        copy_checked_extent(code, cx, &load_source, access, slack, site);
        code.asm.ja_to(done);
        code.bind(not_clause_locals);
    }
    writable_scratch(
        code,
        cx,
        SAVED_1,
        WriteSize::Register(Reg::R4),
        SAVED_0,
        site,
    );
    let scratch_size = cx.layout().state.scratch_size;
    copy_checked_extent(code, cx, &load_source, access, scratch_size, site);
    code.bind(done);
    code.emit(Insn::mov64_imm(SAVED_0, 0));
}

/// The copy of [`copy_extent_into_scratch`] once the destination in `SAVED_0` is known
/// writable for the size in `SPILL_0`, which is at most `bound`.
fn copy_checked_extent(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    load_source: &impl Fn(&mut ProgramCode),
    access: Access,
    bound: u32,
    site: FaultSite,
) {
    let done = code.label();
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_0));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, done);
    load_source(code);
    resolve_address_extent(code, cx, SAVED_1, SPILL_0, Reg::R3, access, site);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_0));
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Gt,
        Reg::R2,
        bound as i32,
        FaultCode::BadAddress,
        FaultValue::Register(SAVED_1),
        site,
    );
    code.mov(Reg::R1, SAVED_0);
    read_or_fault(code, cx, access, SAVED_1, site);
    code.bind(done);
}

/// Calls the helper that reads `access`'s memory (`bpf_probe_read_user` for user memory,
/// `bpf_probe_read_kernel` otherwise) with its arguments already in r1–r3, and faults
/// with `invalid address`, reporting the DIF address in `address`, when the read fails.
pub fn read_or_fault(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    access: Access,
    address: Reg,
    site: FaultSite,
) {
    let helper = if access == Access::User {
        Helper::ProbeReadUser
    } else {
        Helper::ProbeReadKernel
    };
    code.call(helper);
    code.fault_if_imm(
        cx.fault_exit,
        JmpOp::Ne,
        Reg::R0,
        0,
        FaultCode::BadAddress,
        FaultValue::Register(address),
        site,
    );
}
