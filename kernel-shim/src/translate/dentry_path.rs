//! `d_path(struct path *)`: the path name of a kernel `struct path`, built by walking
//! from its dentry up `d_parent` to the root of its mount, and across each mount to
//! the dentry it is mounted on in its parent mount, up to the root mount (what the
//! kernel's `prepend_path` does; its `bpf_d_path` helper only works in program types
//! this engine cannot use). The offsets come from BTF (`DentryPathOffsets`).
//!
//! The walk is two bounded loops over the work area. The first goes up and records
//! each component's name pointer, leaf first, in string buffer 1 (at most one per
//! word); the second appends them root first, each after a `/`, to string buffer 0,
//! which then becomes a scratch string. A path deeper than the words of buffer 1 (32
//! components with the default strsize) keeps the 32 components nearest its leaf, so
//! the file's own name survives; a path longer than strsize − 1 is cut there. As in the work area's other loops, what
//! the iterations carry lives in the work area's temporary words, and the loop
//! counter in a callee-saved register counts up, so the verifier sees each iteration
//! make progress and merges the paths through an iteration.

use super::code::{FaultSite, ProgramCode};
use super::error::TranslateError;
use super::memory::{read_or_fault, Access};
use super::registers::{SAVED_0, SAVED_1, SPILL_0, STATE};
use super::string_subroutines::{temporary_word, work_area_text_to_scratch};
use super::strings::string_buffer;
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::{string_buffer_stride, DentryPathOffsets};

/// Temporary words of the walk.
const DENTRY: u32 = 0;
const MOUNT: u32 = 1;
const COUNT: u32 = 2;
const ROOT: u32 = 3;
const PARENT: u32 = 4;
const CURSOR: u32 = 5;

/// Most components a path keeps: the words of string buffer 1, at most 32.
fn component_limit(strsize: u32) -> u32 {
    (string_buffer_stride(strsize) / 8).min(32)
}

/// `d_path(path)` with the `struct path *` in SAVED_1: r0 = the scratch string.
pub fn dentry_path(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    site: FaultSite,
) -> Result<(), TranslateError> {
    let offsets = cx.layout().options.path_offsets.ok_or_else(|| {
        cx.unsupported("d_path() without the kernel's dentry and mount offsets from BTF")
    })?;
    let strsize = cx.layout().options.strsize;
    let word = |index| temporary_word(cx.layout(), index);
    code.zero_fill(
        STATE,
        string_buffer(cx.layout(), 0),
        string_buffer_stride(strsize),
    );
    read_word(code, cx, word(DENTRY), SAVED_1, offsets.path_dentry, site);
    read_word(code, cx, word(MOUNT), SAVED_1, offsets.path_mount, site);
    code.store_state_imm(word(COUNT), 0);
    collect_components(code, cx, &offsets, site);
    append_components(code, cx);
    code.load_constant(Reg::R0, u64::from(string_buffer(cx.layout(), 0)));
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
    work_area_text_to_scratch(code, cx, SPILL_0, site);
    Ok(())
}

/// The temporary word `destination` = the kernel word at `base + offset` (`base` a
/// callee-saved register, reported when the read faults).
fn read_word(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    destination: u32,
    base: Reg,
    offset: u32,
    site: FaultSite,
) {
    code.state_pointer(Reg::R1, destination);
    code.emit(Insn::mov64_imm(Reg::R2, 8));
    code.emit(Insn::mov64_reg(Reg::R3, base));
    code.alu_imm(AluOp::Add, Reg::R3, offset as i32);
    read_or_fault(code, cx, Access::Kernel, base, site);
}

/// Walks up from the dentry and mount in the temporary words, recording each
/// component's name pointer in string buffer 1 and counting them in `COUNT`.
fn collect_components(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    offsets: &DentryPathOffsets,
    site: FaultSite,
) {
    let layout = cx.layout();
    let word = |index| temporary_word(layout, index);
    let limit = component_limit(layout.options.strsize);
    let names = string_buffer(layout, 1) as i16;
    let (top, next, done) = (code.label(), code.label(), code.label());
    let not_mount_root = code.label();
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    code.bind(top);
    // Each iteration records a component or crosses a mount: twice the limit bounds
    // any path the limit lets through.
    code.asm
        .jmp_imm_to(JmpOp::Ge, SAVED_0, (2 * limit) as i32, done);
    code.load_state(SAVED_1, word(MOUNT));
    read_word(code, cx, word(ROOT), SAVED_1, offsets.mount_root, site);
    code.load_state(Reg::R1, word(DENTRY));
    code.load_state(Reg::R2, word(ROOT));
    code.asm
        .jmp_reg_to(JmpOp::Ne, Reg::R1, Reg::R2, not_mount_root);
    // The root of its mount: continue from the dentry the mount is mounted on, in the
    // parent mount; the root mount is its own parent.
    code.alu_imm(AluOp::Sub, SAVED_1, offsets.mount_vfsmount as i32);
    read_word(code, cx, word(PARENT), SAVED_1, offsets.mount_parent, site);
    code.load_state(Reg::R1, word(PARENT));
    code.asm.jmp_reg_to(JmpOp::Eq, Reg::R1, SAVED_1, done);
    read_word(
        code,
        cx,
        word(DENTRY),
        SAVED_1,
        offsets.mount_mountpoint,
        site,
    );
    code.load_state(Reg::R1, word(PARENT));
    code.alu_imm(AluOp::Add, Reg::R1, offsets.mount_vfsmount as i32);
    code.store_state(word(MOUNT), Reg::R1);
    code.asm.ja_to(next);
    code.bind(not_mount_root);
    // A dentry that is its own parent is the root of a file system not mounted here.
    code.load_state(SAVED_1, word(DENTRY));
    read_word(code, cx, word(PARENT), SAVED_1, offsets.dentry_parent, site);
    code.load_state(Reg::R1, word(PARENT));
    code.asm.jmp_reg_to(JmpOp::Eq, Reg::R1, SAVED_1, done);
    code.load_state(Reg::R1, word(COUNT));
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, limit as i32, done);
    code.alu_imm(AluOp::Lsh, Reg::R1, 3);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.alu_imm(AluOp::Add, Reg::R1, i32::from(names));
    code.emit(Insn::mov64_imm(Reg::R2, 8));
    code.emit(Insn::mov64_reg(Reg::R3, SAVED_1));
    code.alu_imm(AluOp::Add, Reg::R3, offsets.dentry_name as i32);
    read_or_fault(code, cx, Access::Kernel, SAVED_1, site);
    code.load_state(Reg::R1, word(COUNT));
    code.alu_imm(AluOp::Add, Reg::R1, 1);
    code.store_state(word(COUNT), Reg::R1);
    code.load_state(Reg::R1, word(PARENT));
    code.store_state(word(DENTRY), Reg::R1);
    code.bind(next);
    code.alu_imm(AluOp::Add, SAVED_0, 1);
    code.asm.ja_to(top);
    code.bind(done);
    code.emit(Insn::mov64_imm(SAVED_1, 0));
}

/// Appends the recorded components to string buffer 0, root first, each after a `/`;
/// a path of no component is `/`.
fn append_components(code: &mut ProgramCode, cx: &StatementContext<'_>) {
    let layout = cx.layout();
    let word = |index| temporary_word(layout, index);
    let strsize = layout.options.strsize;
    let limit = component_limit(strsize);
    let path = string_buffer(layout, 0) as i16;
    let names = string_buffer(layout, 1) as i16;
    let (top, done, some) = (code.label(), code.label(), code.label());
    code.store_state_imm(word(CURSOR), 0);
    code.load_state(Reg::R1, word(COUNT));
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, some);
    code.emit(Insn::st_mem(MemSize::B, STATE, path, i32::from(b'/')));
    code.asm.ja_to(done);
    code.bind(some);
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    code.bind(top);
    code.asm.jmp_imm_to(JmpOp::Ge, SAVED_0, limit as i32, done);
    // The component index count − 1 − i, root first.
    code.load_state(Reg::R1, word(COUNT));
    code.alu_imm(AluOp::Sub, Reg::R1, 1);
    code.alu_reg(AluOp::Sub, Reg::R1, SAVED_0);
    code.asm.jmp_imm_to(JmpOp::Slt, Reg::R1, 0, done);
    code.asm.jmp_imm_to(JmpOp::Ge, Reg::R1, limit as i32, done);
    code.alu_imm(AluOp::Lsh, Reg::R1, 3);
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R1, names));
    // The `/`, then the name after it, up to the end of the buffer.
    code.load_state(Reg::R4, word(CURSOR));
    code.asm
        .jmp_imm_to(JmpOp::Ge, Reg::R4, strsize as i32 - 1, done);
    code.emit(Insn::mov64_reg(Reg::R1, Reg::R4));
    code.alu_reg(AluOp::Add, Reg::R1, STATE);
    code.emit(Insn::st_mem(MemSize::B, Reg::R1, path, i32::from(b'/')));
    code.alu_imm(AluOp::Add, Reg::R1, i32::from(path) + 1);
    code.load_constant(Reg::R2, u64::from(strsize) - 1);
    code.alu_reg(AluOp::Sub, Reg::R2, Reg::R4);
    code.call(Helper::ProbeReadKernelStr);
    // A name that cannot be read ends the path where it is.
    code.asm.jmp_imm_to(JmpOp::Sle, Reg::R0, 0, done);
    code.load_state(Reg::R1, word(CURSOR));
    code.alu_reg(AluOp::Add, Reg::R1, Reg::R0);
    code.store_state(word(CURSOR), Reg::R1);
    code.alu_imm(AluOp::Add, SAVED_0, 1);
    code.asm.ja_to(top);
    code.bind(done);
    code.emit(Insn::mov64_imm(SAVED_0, 0));
}
