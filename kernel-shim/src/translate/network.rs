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

use super::emitter::{Emitter, FaultSite, FaultValue};
use super::memory::Access;
use super::registers::{SAVED_1, SPILL_0, STATE};
use crate::ebpf::{AluOp, Insn, JmpOp, MemSize, Reg, SwapWidth};

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

impl Emitter<'_> {
    fn text_end(&self) -> u32 {
        self.string_buffer(0) + TEXT_END
    }

    fn address_byte_offset(&self, index: u32) -> u32 {
        self.layout.state.stack + ADDRESS_OFFSET + index
    }

    /// Adds the character in r3 before the text built so far (clobbers r5).
    fn push_text(&mut self, character: Reg) {
        let end = self.text_end();
        self.push_character(end, self.temporary_word(3), character);
    }

    fn push_text_byte(&mut self, byte: u8) {
        self.emit(Insn::mov64_imm(Reg::R3, byte as i32));
        self.push_text(Reg::R3);
    }

    /// Adds the decimal digits of r4 (below 1000), as classic DTrace does: "0" for zero.
    /// Clobbers r3–r5.
    fn push_decimal(&mut self) {
        let done = self.label();
        let digits = self.label();
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, digits);
        self.push_text_byte(b'0');
        self.asm.ja_to(done);
        self.bind(digits);
        for _ in 0..3 {
            self.asm.jmp_imm_to(JmpOp::Eq, Reg::R4, 0, done);
            self.emit(Insn::mov64_reg(Reg::R3, Reg::R4));
            self.alu_imm(AluOp::Mod, Reg::R3, 10);
            self.alu_imm(AluOp::Add, Reg::R3, b'0' as i32);
            self.push_text(Reg::R3);
            self.alu_imm(AluOp::Div, Reg::R4, 10);
        }
        self.bind(done);
    }

    /// Adds the lower-case hexadecimal digit of r3 (below 16). Clobbers r5.
    fn push_hex_digit(&mut self) {
        let decimal = self.label();
        let ready = self.label();
        self.asm.jmp_imm_to(JmpOp::Lt, Reg::R3, 10, decimal);
        self.alu_imm(AluOp::Add, Reg::R3, b'a' as i32 - 10);
        self.asm.ja_to(ready);
        self.bind(decimal);
        self.alu_imm(AluOp::Add, Reg::R3, b'0' as i32);
        self.bind(ready);
        self.push_text(Reg::R3);
    }

    /// r4 = address byte `index`.
    fn load_address_byte(&mut self, index: u32) {
        self.emit(Insn::ldx_mem(
            MemSize::B,
            Reg::R4,
            STATE,
            self.address_byte_offset(index) as i16,
        ));
    }

    /// Translates an address-formatting subroutine: the address is in r9, and for
    /// `inet_ntop` and `link_ntop` the family or hardware type in r8. r0 = the scratch
    /// string.
    pub fn format_address(&mut self, format: AddressFormat, site: FaultSite) {
        let count = self.temporary_word(3);
        let address = self.address_byte_offset(0);
        self.store_state_imm(count, 0);
        let text_end = self.text_end();
        self.emit(Insn::st_mem(MemSize::B, STATE, text_end as i16, 0));
        let done = self.label();
        match format {
            AddressFormat::Inet4 => {
                self.copy_memory_to_state(SAVED_1, 4, address, Access::Kernel, site);
                self.format_inet4();
            }
            AddressFormat::Inet6 => {
                self.copy_memory_to_state(SAVED_1, 16, address, Access::Kernel, site);
                self.format_inet6(false);
            }
            AddressFormat::InetByFamily => {
                let version6 = self.label();
                self.asm
                    .jmp_imm_to(JmpOp::Eq, super::registers::SAVED_0, AF_INET6, version6);
                self.fault_if_imm(
                    JmpOp::Ne,
                    super::registers::SAVED_0,
                    AF_INET,
                    FaultCode::IllegalOperation,
                    FaultValue::Register(super::registers::SAVED_0),
                    site,
                );
                self.copy_memory_to_state(SAVED_1, 4, address, Access::Kernel, site);
                self.format_inet4();
                self.asm.ja_to(done);
                self.bind(version6);
                self.copy_memory_to_state(SAVED_1, 16, address, Access::Kernel, site);
                self.format_inet6(true);
            }
            AddressFormat::Link => {
                let length = self.temporary_word(6);
                let infiniband = self.label();
                let read = self.label();
                let saved = super::registers::SAVED_0;
                self.asm
                    .jmp_imm_to(JmpOp::Eq, saved, ARPHRD_INFINIBAND, infiniband);
                self.fault_if_imm(
                    JmpOp::Ne,
                    saved,
                    ARPHRD_ETHER,
                    FaultCode::IllegalOperation,
                    FaultValue::Register(saved),
                    site,
                );
                self.store_state_imm(length, ETHER_LENGTH as i32);
                self.copy_memory_to_state(SAVED_1, ETHER_LENGTH, address, Access::Kernel, site);
                self.asm.ja_to(read);
                self.bind(infiniband);
                self.store_state_imm(length, INFINIBAND_LENGTH as i32);
                self.copy_memory_to_state(
                    SAVED_1,
                    INFINIBAND_LENGTH,
                    address,
                    Access::Kernel,
                    site,
                );
                self.bind(read);
                self.format_link();
            }
        }
        self.bind(done);
        self.emit(Insn::mov64_imm(super::registers::SAVED_0, 0));
        // The text starts `count` characters before its end.
        self.load_state(Reg::R1, count);
        self.emit(Insn::mov64_imm(Reg::R0, text_end as i32));
        self.alu_reg(AluOp::Sub, Reg::R0, Reg::R1);
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
        self.work_area_text_to_scratch(SPILL_0, site);
    }

    /// The dotted quad, last byte first.
    fn format_inet4(&mut self) {
        for index in (0..4).rev() {
            self.load_address_byte(index);
            self.push_decimal();
            if index > 0 {
                self.push_text_byte(b'.');
            }
        }
    }

    /// The dotted quad of bytes 12–15.
    fn format_mapped_quad(&mut self) {
        for index in (12..16).rev() {
            self.load_address_byte(index);
            self.push_decimal();
            if index > 12 {
                self.push_text_byte(b'.');
            }
        }
    }

    /// IPv6 text, as the interpreter's `inet_ntoa6` (`for_inet_ntop` as there).
    fn format_inet6(&mut self, for_inet_ntop: bool) {
        let (first_zero, trying, zero_bytes, last_group, run_end) = (
            self.temporary_word(0),
            self.temporary_word(1),
            self.temporary_word(2),
            self.temporary_word(4),
            self.temporary_word(5),
        );
        // The longest run of zero groups, as classic DTrace's scan finds it.
        self.store_state_imm(first_zero, -1);
        self.store_state_imm(trying, -1);
        self.store_state_imm(zero_bytes, 1);
        for index in 0..16u32 {
            let next = self.label();
            self.load_address_byte(index);
            if index % 2 == 0 {
                let not_start = self.label();
                self.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, not_start);
                self.load_state(Reg::R1, trying);
                self.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, -1, not_start);
                self.store_state_imm(trying, index as i32);
                self.asm.ja_to(next);
                self.bind(not_start);
            }
            self.load_state(Reg::R1, trying);
            self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, -1, next);
            if index != 15 {
                self.asm.jmp_imm_to(JmpOp::Eq, Reg::R4, 0, next);
            }
            // r2 = index − trying; a run no longer than the longest so far is dropped.
            let longer = self.label();
            self.emit(Insn::mov64_imm(Reg::R2, index as i32));
            self.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
            self.load_state(Reg::R3, zero_bytes);
            self.asm.jmp_reg_to(JmpOp::Sgt, Reg::R2, Reg::R3, longer);
            self.store_state_imm(trying, -1);
            self.asm.ja_to(next);
            self.bind(longer);
            self.store_state(first_zero, Reg::R1);
            self.emit(Insn::mov64_imm(Reg::R2, (index - index % 2) as i32));
            self.alu_reg(AluOp::Sub, Reg::R2, Reg::R1);
            if index == 15 {
                let nonzero = self.label();
                self.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, nonzero);
                self.alu_imm(AluOp::Add, Reg::R2, 2);
                self.bind(nonzero);
            }
            self.store_state(zero_bytes, Reg::R2);
            self.store_state_imm(trying, -1);
            self.bind(next);
        }
        self.load_state(Reg::R0, first_zero);
        self.load_state(Reg::R1, zero_bytes);
        self.alu_reg(AluOp::Add, Reg::R0, Reg::R1);
        self.alu_imm(AluOp::Sub, Reg::R0, 2);
        self.store_state(run_end, Reg::R0);

        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses end in
        // a dotted quad; inet_ntoa6 gives only that.
        let address = self.address_byte_offset(0) as i16;
        let plain = self.label();
        let groups = self.label();
        let quad = self.label();
        self.store_state_imm(last_group, 14);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, STATE, address));
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, plain);
        self.emit(Insn::ldx_mem(MemSize::H, Reg::R0, STATE, address + 8));
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, plain);
        self.emit(Insn::ldx_mem(MemSize::H, Reg::R0, STATE, address + 10));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0xffff, quad);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, plain);
        self.emit(Insn::ldx_mem(MemSize::W, Reg::R0, STATE, address + 12));
        self.emit(Insn::to_be(Reg::R0, SwapWidth::W32));
        self.asm.jmp_imm_to(JmpOp::Le, Reg::R0, 1, plain);
        self.bind(quad);
        self.format_mapped_quad();
        if !for_inet_ntop {
            self.asm.ja_to(groups);
        }
        self.store_state_imm(last_group, 10);
        self.bind(plain);

        // Groups from the last printed one down to the first; the zero run becomes "::".
        for index in (0..=14i32).rev().step_by(2) {
            let next = self.label();
            let group = self.label();
            self.load_state(Reg::R0, last_group);
            self.asm.jmp_imm_to(JmpOp::Slt, Reg::R0, index, next);
            let not_run_end = self.label();
            self.load_state(Reg::R1, run_end);
            self.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, index, not_run_end);
            self.push_text_byte(b':');
            self.push_text_byte(b':');
            self.asm.ja_to(next);
            self.bind(not_run_end);
            // Inside a run that is reached: nothing.
            self.load_state(Reg::R1, run_end);
            self.asm.jmp_imm_to(JmpOp::Sle, Reg::R1, index, group);
            self.load_state(Reg::R0, last_group);
            self.asm.jmp_reg_to(JmpOp::Sgt, Reg::R1, Reg::R0, group);
            self.load_state(Reg::R1, first_zero);
            self.asm.jmp_imm_to(JmpOp::Sle, Reg::R1, index, next);
            self.bind(group);
            if index < 14 {
                let no_colon = self.label();
                self.load_state(Reg::R1, first_zero);
                // Not before the "::" (the interpreter's `i != first_zero - 2`).
                self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, index + 2, no_colon);
                self.push_text_byte(b':');
                self.bind(no_colon);
            }
            // The group's hexadecimal digits, least significant first; "0" for zero.
            let digits = self.label();
            self.load_address_byte(index as u32);
            self.alu_imm(AluOp::Lsh, Reg::R4, 8);
            self.emit(Insn::ldx_mem(
                MemSize::B,
                Reg::R0,
                STATE,
                self.address_byte_offset(index as u32 + 1) as i16,
            ));
            self.alu_reg(AluOp::Or, Reg::R4, Reg::R0);
            self.asm.jmp_imm_to(JmpOp::Ne, Reg::R4, 0, digits);
            self.push_text_byte(b'0');
            self.asm.ja_to(next);
            self.bind(digits);
            for _ in 0..4 {
                self.asm.jmp_imm_to(JmpOp::Eq, Reg::R4, 0, next);
                self.emit(Insn::mov64_reg(Reg::R3, Reg::R4));
                self.alu_imm(AluOp::And, Reg::R3, 15);
                self.push_hex_digit();
                self.alu_imm(AluOp::Rsh, Reg::R4, 4);
            }
            self.bind(next);
        }
        self.bind(groups);
    }

    /// Colon-separated hexadecimal bytes, the last first; `T6` has the length.
    fn format_link(&mut self) {
        let length = self.temporary_word(6);
        for index in (0..INFINIBAND_LENGTH).rev() {
            let next = self.label();
            self.load_state(Reg::R0, length);
            self.asm.jmp_imm_to(JmpOp::Le, Reg::R0, index as i32, next);
            self.load_address_byte(index);
            self.emit(Insn::mov64_reg(Reg::R3, Reg::R4));
            self.alu_imm(AluOp::And, Reg::R3, 15);
            self.push_hex_digit();
            self.emit(Insn::mov64_reg(Reg::R3, Reg::R4));
            self.alu_imm(AluOp::Rsh, Reg::R3, 4);
            self.push_hex_digit();
            if index > 0 {
                self.push_text_byte(b':');
            }
            self.bind(next);
        }
    }
}
