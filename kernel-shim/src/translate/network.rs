//! The network formatting subroutines: `inet_ntoa`, `inet_ntoa6`, `inet_ntop` and
//! `link_ntop`, as the interpreter ports them from classic DTrace. The address's bytes
//! are copied into the work area's stack area; the text is built backwards, one
//! character at a time, ending at a fixed place after string buffer 0 (as classic DTrace
//! builds it and then reverses it), and copied from there into a scratch string. The
//! address has at most 20 bytes, so every loop over it is unrolled here and only the
//! tests on its bytes happen at run time.
//!
//! Temporary words: `T0` the first zero group, `T1` a zero run being looked at, `T2` the
//! zero run's length in bytes, `T3` the characters built, `T4` the last group printed in
//! hexadecimal, `T5` where the zero run's `::` goes, `T6` the length of a link address.

use difvm::object::FaultCode;

use super::code::{FaultSite, FaultValue, ProgramCode};
use super::memory::copy_memory_to_state;
use super::memory::Access;
use super::registers::{SAVED_1, SPILL_0, STATE};
use super::string_subroutines::{push_character, temporary_word, work_area_text_to_scratch};
use super::strings::string_buffer;
use super::translation_context::StatementContext;
use crate::ebpf::{AluOp, Insn, JmpOp, Label, MemSize, Reg, SwapWidth};
use crate::map_layout::ProgramLayout;

/// Linux `AF_INET` and `AF_INET6`.
const AF_INET: i32 = 2;
const AF_INET6: i32 = 10;
/// Linux `ARPHRD_ETHER` and `ARPHRD_INFINIBAND`, and their address lengths.
const ARPHRD_ETHER: i32 = 1;
const ARPHRD_INFINIBAND: i32 = 32;
const ETHER_LENGTH: u32 = 6;
const INFINIBAND_LENGTH: u32 = 20;
/// Where the text ends, after string buffer 0 (the longest text has 59 characters).
const TEXT_END: u32 = 80;
/// Where the address's bytes go in the stack area, clear of the text for any strsize.
const ADDRESS_OFFSET: u32 = 128;

/// Which address text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressFormat {
    /// `inet_ntoa(ipaddr_t *)`.
    Inet4,
    /// `inet_ntoa6(in6_addr_t *)`.
    Inet6,
    /// `inet_ntop(family, address)`.
    InetByFamily,
    /// `link_ntop(hardware type, address)`.
    Link,
}

fn text_end(layout: &ProgramLayout) -> u32 {
    string_buffer(layout, 0) + TEXT_END
}

fn address_byte_offset(layout: &ProgramLayout, index: u32) -> u32 {
    layout.state.stack + ADDRESS_OFFSET + index
}

/// Adds the character in r3 before the text built so far (clobbers r5).
fn push_text(code: &mut ProgramCode, layout: &ProgramLayout, character: Reg) {
    let end = text_end(layout);
    push_character(code, end, temporary_word(layout, 3), character);
}

fn push_text_byte(code: &mut ProgramCode, layout: &ProgramLayout, byte: u8) {
    code.emit(Insn::mov64_imm(Reg::R3, byte as i32));
    push_text(code, layout, Reg::R3);
}

/// Adds the decimal digits of r4 (below 1000), as classic DTrace does: "0" for zero.
/// Clobbers r3–r5.
fn push_decimal(code: &mut ProgramCode, layout: &ProgramLayout) {
    let done = code.label();
    let digits = code.label();
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, digits);
    push_text_byte(code, layout, b'0');
    code.asm.ja_to(done);
    code.bind(digits);
    for _ in 0..3 {
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R4, 0, done);
        code.emit(Insn::mov64_reg(Reg::R3, Reg::R4));
        code.alu_imm(AluOp::Mod, Reg::R3, 10);
        code.alu_imm(AluOp::Add, Reg::R3, b'0' as i32);
        push_text(code, layout, Reg::R3);
        code.alu_imm(AluOp::Div, Reg::R4, 10);
    }
    code.bind(done);
}

/// Adds the lower-case hexadecimal digit of r3 (below 16). Clobbers r5.
fn push_hex_digit(code: &mut ProgramCode, layout: &ProgramLayout) {
    let decimal = code.label();
    let ready = code.label();
    code.asm.jmp_imm_to(JmpOp::Lt, Reg::R3, 10, decimal);
    code.alu_imm(AluOp::Add, Reg::R3, b'a' as i32 - 10);
    code.asm.ja_to(ready);
    code.bind(decimal);
    code.alu_imm(AluOp::Add, Reg::R3, b'0' as i32);
    code.bind(ready);
    push_text(code, layout, Reg::R3);
}

/// r4 = address byte `index`.
fn load_address_byte(code: &mut ProgramCode, layout: &ProgramLayout, index: u32) {
    code.emit(Insn::ldx_mem(
        MemSize::B,
        Reg::R4,
        STATE,
        address_byte_offset(layout, index) as i16,
    ));
}

/// Translates an address-formatting subroutine: the address is in r9, and for
/// `inet_ntop` and `link_ntop` the family or hardware type in r8. r0 = the scratch
/// string.
pub fn format_address(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    format: AddressFormat,
    site: FaultSite,
) {
    let count = temporary_word(cx.layout(), 3);
    let address = address_byte_offset(cx.layout(), 0);
    code.store_state_imm(count, 0);
    let text_end = text_end(cx.layout());
    code.emit(Insn::st_mem(MemSize::B, STATE, text_end as i16, 0));
    let done = code.label();
    match format {
        AddressFormat::Inet4 => {
            copy_memory_to_state(code, cx, SAVED_1, 4, address, Access::Kernel, site);
            format_inet4(code, cx.layout());
        }
        AddressFormat::Inet6 => {
            copy_memory_to_state(code, cx, SAVED_1, 16, address, Access::Kernel, site);
            format_inet6(code, cx.layout(), false);
        }
        AddressFormat::InetByFamily => {
            let version6 = code.label();
            code.asm
                .jmp_imm_to(JmpOp::Eq, super::registers::SAVED_0, AF_INET6, version6);
            code.fault_if_imm(
                cx.fault_exit,
                JmpOp::Ne,
                super::registers::SAVED_0,
                AF_INET,
                FaultCode::IllegalOperation,
                FaultValue::Register(super::registers::SAVED_0),
                site,
            );
            copy_memory_to_state(code, cx, SAVED_1, 4, address, Access::Kernel, site);
            format_inet4(code, cx.layout());
            code.asm.ja_to(done);
            code.bind(version6);
            copy_memory_to_state(code, cx, SAVED_1, 16, address, Access::Kernel, site);
            format_inet6(code, cx.layout(), true);
        }
        AddressFormat::Link => {
            let length = temporary_word(cx.layout(), 6);
            let infiniband = code.label();
            let read = code.label();
            let saved = super::registers::SAVED_0;
            code.asm
                .jmp_imm_to(JmpOp::Eq, saved, ARPHRD_INFINIBAND, infiniband);
            code.fault_if_imm(
                cx.fault_exit,
                JmpOp::Ne,
                saved,
                ARPHRD_ETHER,
                FaultCode::IllegalOperation,
                FaultValue::Register(saved),
                site,
            );
            code.store_state_imm(length, ETHER_LENGTH as i32);
            copy_memory_to_state(
                code,
                cx,
                SAVED_1,
                ETHER_LENGTH,
                address,
                Access::Kernel,
                site,
            );
            code.asm.ja_to(read);
            code.bind(infiniband);
            code.store_state_imm(length, INFINIBAND_LENGTH as i32);
            copy_memory_to_state(
                code,
                cx,
                SAVED_1,
                INFINIBAND_LENGTH,
                address,
                Access::Kernel,
                site,
            );
            code.bind(read);
            format_link(code, cx.layout());
        }
    }
    code.bind(done);
    code.emit(Insn::mov64_imm(super::registers::SAVED_0, 0));
    // The text starts `count` characters before its end.
    code.load_state(Reg::R1, count);
    code.emit(Insn::mov64_imm(Reg::R0, text_end as i32));
    code.alu_reg(AluOp::Sub, Reg::R0, Reg::R1);
    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
    work_area_text_to_scratch(code, cx, SPILL_0, site);
}

/// The dotted quad, last byte first.
fn format_inet4(code: &mut ProgramCode, layout: &ProgramLayout) {
    for index in (0..4).rev() {
        load_address_byte(code, layout, index);
        push_decimal(code, layout);
        if index > 0 {
            push_text_byte(code, layout, b'.');
        }
    }
}

/// The dotted quad of bytes 12–15.
fn format_mapped_quad(code: &mut ProgramCode, layout: &ProgramLayout) {
    for index in (12..16).rev() {
        load_address_byte(code, layout, index);
        push_decimal(code, layout);
        if index > 12 {
            push_text_byte(code, layout, b'.');
        }
    }
}

/// The work-area words `inet_ntoa6` and `inet_ntop` keep while formatting an IPv6
/// address.
#[derive(Debug, Clone, Copy)]
struct Inet6Words {
    /// Where the longest run of zero groups starts (a byte index), −1 when none.
    first_zero: u32,
    /// Where the run being measured starts, −1 when none.
    trying: u32,
    /// How many bytes the longest run covers.
    zero_bytes: u32,
    /// The byte index of the last group printed as hexadecimal.
    last_group: u32,
    /// The byte index of the last group of the longest run.
    run_end: u32,
}

impl Inet6Words {
    fn new(layout: &ProgramLayout) -> Inet6Words {
        Inet6Words {
            first_zero: temporary_word(layout, 0),
            trying: temporary_word(layout, 1),
            zero_bytes: temporary_word(layout, 2),
            last_group: temporary_word(layout, 4),
            run_end: temporary_word(layout, 5),
        }
    }
}

/// IPv6 text, as the interpreter's `inet_ntoa6` (`for_inet_ntop` as there).
fn format_inet6(code: &mut ProgramCode, layout: &ProgramLayout, for_inet_ntop: bool) {
    let words = Inet6Words::new(layout);
    find_longest_zero_run(code, layout, &words);
    let groups = code.label();
    format_ipv4_tail(code, layout, &words, for_inet_ntop, groups);
    format_groups(code, layout, &words);
    code.bind(groups);
}

/// Finds the longest run of zero groups, as classic DTrace's scan finds it.
fn find_longest_zero_run(code: &mut ProgramCode, layout: &ProgramLayout, words: &Inet6Words) {
    let Inet6Words {
        first_zero,
        trying,
        zero_bytes,
        run_end,
        ..
    } = *words;
    code.store_state_imm(first_zero, -1);
    code.store_state_imm(trying, -1);
    code.store_state_imm(zero_bytes, 1);
    for index in 0..16u32 {
        let next = code.label();
        load_address_byte(code, layout, index);
        if index % 2 == 0 {
            let not_start = code.label();
            code.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, not_start);
            code.load_state(Reg::R1, trying);
            code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, -1, not_start);
            code.store_state_imm(trying, index as i32);
            code.asm.ja_to(next);
            code.bind(not_start);
        }
        code.load_state(Reg::R1, trying);
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, -1, next);
        if index != 15 {
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R4, 0, next);
        }
        // r2 = index − trying; a run no longer than the longest so far is dropped.
        let longer = code.label();
        code.emit(Insn::mov64_imm(Reg::R2, index as i32));
        code.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
        code.load_state(Reg::R3, zero_bytes);
        code.asm.jmp_reg_to(JmpOp::Sgt, Reg::R2, Reg::R3, longer);
        code.store_state_imm(trying, -1);
        code.asm.ja_to(next);
        code.bind(longer);
        code.store_state(first_zero, Reg::R1);
        code.emit(Insn::mov64_imm(Reg::R2, (index - index % 2) as i32));
        code.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
        if index == 15 {
            let nonzero = code.label();
            code.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, nonzero);
            code.alu_imm(AluOp::Add, Reg::R2, 2);
            code.bind(nonzero);
        }
        code.store_state(zero_bytes, Reg::R2);
        code.store_state_imm(trying, -1);
        code.bind(next);
    }
    code.load_state(Reg::R0, first_zero);
    code.load_state(Reg::R1, zero_bytes);
    code.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
    code.alu_imm(AluOp::Sub, Reg::R0, 2);
    code.store_state(run_end, Reg::R0);
}

/// IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses end in a
/// dotted quad; `inet_ntoa6` gives only that (and goes on at `groups`), `inet_ntop` the
/// groups before it too.
fn format_ipv4_tail(
    code: &mut ProgramCode,
    layout: &ProgramLayout,
    words: &Inet6Words,
    for_inet_ntop: bool,
    groups: Label,
) {
    let last_group = words.last_group;
    let address = address_byte_offset(layout, 0) as i16;
    let plain = code.label();
    let quad = code.label();
    code.store_state_imm(last_group, 14);
    code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, STATE, address));
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, plain);
    code.emit(Insn::ldx_mem(MemSize::H, Reg::R0, STATE, address + 8));
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, plain);
    code.emit(Insn::ldx_mem(MemSize::H, Reg::R0, STATE, address + 10));
    code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0xffff, quad);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, plain);
    code.emit(Insn::ldx_mem(MemSize::W, Reg::R0, STATE, address + 12));
    code.emit(Insn::to_be(Reg::R0, SwapWidth::W32));
    code.asm.jmp_imm_to(JmpOp::Le, Reg::R0, 1, plain);
    code.bind(quad);
    format_mapped_quad(code, layout);
    if !for_inet_ntop {
        code.asm.ja_to(groups);
    }
    code.store_state_imm(last_group, 10);
    code.bind(plain);
}

/// The groups from the last printed one down to the first; the zero run becomes "::".
fn format_groups(code: &mut ProgramCode, layout: &ProgramLayout, words: &Inet6Words) {
    let Inet6Words {
        first_zero,
        last_group,
        run_end,
        ..
    } = *words;
    for index in (0..=14i32).rev().step_by(2) {
        let next = code.label();
        let group = code.label();
        code.load_state(Reg::R0, last_group);
        code.asm.jmp_imm_to(JmpOp::Slt, Reg::R0, index, next);
        let not_run_end = code.label();
        code.load_state(Reg::R1, run_end);
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, index, not_run_end);
        push_text_byte(code, layout, b':');
        push_text_byte(code, layout, b':');
        code.asm.ja_to(next);
        code.bind(not_run_end);
        // Inside a run that is reached: nothing.
        code.load_state(Reg::R1, run_end);
        code.asm.jmp_imm_to(JmpOp::Sle, Reg::R1, index, group);
        code.load_state(Reg::R0, last_group);
        code.asm.jmp_reg_to(JmpOp::Sgt, Reg::R1, Reg::R0, group);
        code.load_state(Reg::R1, first_zero);
        code.asm.jmp_imm_to(JmpOp::Sle, Reg::R1, index, next);
        code.bind(group);
        if index < 14 {
            let no_colon = code.label();
            code.load_state(Reg::R1, first_zero);
            // Not before the "::" (the interpreter's `i != first_zero - 2`).
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, index + 2, no_colon);
            push_text_byte(code, layout, b':');
            code.bind(no_colon);
        }
        // The group's hexadecimal digits, least significant first; "0" for zero.
        let digits = code.label();
        load_address_byte(code, layout, index as u32);
        code.alu_imm(AluOp::Lsh, Reg::R4, 8);
        code.emit(Insn::ldx_mem(
            MemSize::B,
            Reg::R0,
            STATE,
            address_byte_offset(layout, index as u32 + 1) as i16,
        ));
        code.alu_reg(AluOp::Or, Reg::R4, Reg::R0);
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, digits);
        push_text_byte(code, layout, b'0');
        code.asm.ja_to(next);
        code.bind(digits);
        for _ in 0..4 {
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R4, 0, next);
            code.emit(Insn::mov64_reg(Reg::R3, Reg::R4));
            code.alu_imm(AluOp::And, Reg::R3, 15);
            push_hex_digit(code, layout);
            code.alu_imm(AluOp::Rsh, Reg::R4, 4);
        }
        code.bind(next);
    }
}

/// Colon-separated hexadecimal bytes, the last first; `T6` has the length.
fn format_link(code: &mut ProgramCode, layout: &ProgramLayout) {
    let length = temporary_word(layout, 6);
    for index in (0..INFINIBAND_LENGTH).rev() {
        let next = code.label();
        code.load_state(Reg::R0, length);
        code.asm.jmp_imm_to(JmpOp::Le, Reg::R0, index as i32, next);
        load_address_byte(code, layout, index);
        code.emit(Insn::mov64_reg(Reg::R3, Reg::R4));
        code.alu_imm(AluOp::And, Reg::R3, 15);
        push_hex_digit(code, layout);
        code.emit(Insn::mov64_reg(Reg::R3, Reg::R4));
        code.alu_imm(AluOp::Rsh, Reg::R3, 4);
        push_hex_digit(code, layout);
        if index > 0 {
            push_text_byte(code, layout, b':');
        }
        code.bind(next);
    }
}
