//! The `call` instruction. Arguments are the tuple stack's entries, whose number the
//! static shape gives: a call with too few faults with `illegal operation`, as in the
//! interpreter. Translated: `rand`, `speculation`, `strlen`, `strjoin`, `toupper`,
//! `tolower`, `strchr`, `strrchr`, `lltostr`, `strtoll`, `substr`, `basename`, `dirname` (in
//! [`super::string_subroutines`]), `alloca`, `bcopy`, `copyin`, `copyinto`, `copyinstr`,
//! `getmajor`, `getminor`, `htons`, `htonl`, `htonll`, `ntohs`, `ntohl`, `ntohll`,
//! `progenyof` (given task offsets), `index`, `rindex`, `strstr` (in
//! [`super::string_search`]), `cleanpath` ([`super::clean_path`]), `strtok`
//! ([`super::tokens`]), `inet_ntoa`, `inet_ntoa6`, `inet_ntop` and `link_ntop`
//! ([`super::network`]). Subroutines the interpreter refuses (kernel-only and foreign
//! ones) fault with `illegal operation` as there. `copyout` and `copyoutstr` are reported
//! as unsupported: they need `bpf_probe_write_user`, which kernels in lockdown refuse.

use difvm::isa::subroutine;
use difvm::object::FaultCode;

use super::emitter::{Emitter, FaultSite, FaultValue};
use super::instructions::tuple_entry;
use super::memory::{Access, ScratchSize, StringDestination, WriteSize};
use super::network::AddressFormat;
use super::registers::{SAVED_0, SAVED_1, SPILL_0, SPILL_1, SPILL_2, STATE};
use super::string_search::Search;
use super::tuples::EntryKind;
use super::TranslateError;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg, SwapWidth};

/// Ancestors `progenyof()` looks at.
const PROGENY_DEPTH: u32 = 32;

/// The `rand()` seed of the reference engine, so that one CPU's sequence matches it.
const RANDOM_SEED: u64 = 0x2545_f491_4f6c_dd1d;

impl Emitter<'_> {
    /// `r0 = tuple entry position's value`.
    fn argument(&mut self, dst: Reg, position: usize) {
        let entry = tuple_entry(self, position);
        self.load_state(dst, entry);
    }

    /// Translates `call number`, DIF `%rd` receiving the result.
    pub fn call_subroutine(
        &mut self,
        number: u16,
        rd: u8,
        shape: &[EntryKind],
        site: FaultSite,
    ) -> Result<(), TranslateError> {
        let required = match number {
            subroutine::RAND | subroutine::SPECULATION => 0,
            subroutine::STRJOIN
            | subroutine::COPYIN
            | subroutine::STRCHR
            | subroutine::STRRCHR
            | subroutine::STRSTR
            | subroutine::INDEX
            | subroutine::RINDEX
            | subroutine::STRTOK
            | subroutine::INET_NTOP
            | subroutine::LINK_NTOP => 2,
            subroutine::BCOPY | subroutine::COPYINTO => 3,
            _ => 1,
        };
        if shape.len() < required {
            self.fault(
                FaultCode::IllegalOperation,
                FaultValue::Constant(number as i32),
                site,
            );
            return Ok(());
        }
        let strsize = self.layout.options.strsize;
        match number {
            subroutine::RAND => self.random(),
            subroutine::SPECULATION => self.allocate_speculation(),
            subroutine::STRLEN => {
                self.argument(SAVED_1, 0);
                self.string_length(site);
            }
            subroutine::STRJOIN => {
                self.argument(Reg::R0, 0);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
                self.argument(Reg::R0, 1);
                self.emit(Insn::stx_mem(
                    MemSize::DW,
                    Reg::FP,
                    Reg::R0,
                    super::registers::SPILL_3,
                ));
                self.join_strings(SPILL_2, super::registers::SPILL_3, site);
            }
            subroutine::TOUPPER | subroutine::TOLOWER => {
                self.argument(SAVED_1, 0);
                self.change_case(number == subroutine::TOUPPER, site);
            }
            subroutine::STRCHR | subroutine::STRRCHR => {
                self.argument(Reg::R0, 1);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
                self.argument(SAVED_1, 0);
                self.find_character(number == subroutine::STRRCHR, site);
            }
            subroutine::BASENAME | subroutine::DIRNAME => {
                self.argument(SAVED_1, 0);
                self.path_component(number == subroutine::DIRNAME, site);
            }
            subroutine::PROGENYOF => {
                self.argument(Reg::R0, 0);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
                self.progeny_of()?;
            }
            subroutine::STRTOLL => {
                if shape.len() > 1 {
                    self.argument(Reg::R0, 1);
                } else {
                    self.emit(Insn::mov64_imm(Reg::R0, 10));
                }
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
                self.argument(SAVED_1, 0);
                self.string_to_integer(site);
            }
            subroutine::SUBSTR => {
                self.argument(Reg::R0, 1);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
                if shape.len() > 2 {
                    self.argument(Reg::R0, 2);
                } else {
                    self.load_constant(Reg::R0, strsize as u64);
                }
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
                self.argument(SAVED_1, 0);
                self.substring(site);
            }
            subroutine::LLTOSTR => {
                self.argument(Reg::R0, 0);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
                if shape.len() > 1 {
                    self.argument(Reg::R0, 1);
                } else {
                    self.emit(Insn::mov64_imm(Reg::R0, 10));
                }
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
                self.integer_to_string(site);
            }
            subroutine::GETMAJOR => {
                self.argument(Reg::R0, 0);
                self.alu_imm(AluOp::Rsh, Reg::R0, 20);
                self.alu_imm(AluOp::And, Reg::R0, 0xfff);
            }
            subroutine::GETMINOR => {
                self.argument(Reg::R0, 0);
                self.alu_imm(AluOp::And, Reg::R0, 0xf_ffff);
            }
            subroutine::HTONS | subroutine::NTOHS => {
                self.argument(Reg::R0, 0);
                self.emit(Insn::to_be(Reg::R0, SwapWidth::W16));
            }
            subroutine::HTONL | subroutine::NTOHL => {
                self.argument(Reg::R0, 0);
                self.emit(Insn::to_be(Reg::R0, SwapWidth::W32));
            }
            subroutine::HTONLL | subroutine::NTOHLL => {
                self.argument(Reg::R0, 0);
                self.emit(Insn::to_be(Reg::R0, SwapWidth::W64));
            }
            subroutine::ALLOCA => {
                self.argument(Reg::R0, 0);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
                self.allocate_scratch(ScratchSize::Slot(SPILL_0), site);
                self.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
                self.scratch_address(Reg::R0, Reg::R1);
            }
            subroutine::BCOPY | subroutine::COPYINTO => {
                // bcopy(source, destination, size); copyinto(user source, size, destination).
                let (destination, size, access) = if number == subroutine::BCOPY {
                    (1, 2, Access::Kernel)
                } else {
                    (2, 1, Access::User)
                };
                self.argument(SAVED_1, destination);
                self.argument(Reg::R4, size);
                self.copy_to_scratch(access, site);
                return Ok(());
            }
            subroutine::COPYIN => {
                self.argument(Reg::R0, 1);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
                self.allocate_scratch(ScratchSize::Slot(SPILL_0), site);
                self.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
                self.scratch_address(SAVED_1, Reg::R1);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, SAVED_1, SPILL_1));
                self.argument(Reg::R4, 1);
                self.copy_to_scratch(Access::User, site);
                self.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::FP, SPILL_1));
            }
            subroutine::COPYINSTR => {
                // The bound is strsize − 1, or the optional maximum when smaller.
                self.load_constant(Reg::R0, strsize as u64 - 1);
                if shape.len() > 1 {
                    let keep = self.label();
                    self.argument(Reg::R1, 1);
                    self.asm.jmp_reg_to(JmpOp::Le, Reg::R0, Reg::R1, keep);
                    self.emit(Insn::mov64_reg(Reg::R0, Reg::R1));
                    self.bind(keep);
                }
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
                self.allocate_scratch(ScratchSize::Constant(strsize), site);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
                self.emit(Insn::mov64_reg(SAVED_0, STATE));
                self.alu_imm(AluOp::Add, SAVED_0, self.layout.state.scratch as i32);
                self.alu_reg(AluOp::Add, SAVED_0, Reg::R0);
                self.argument(SAVED_1, 0);
                self.read_string(
                    SAVED_1,
                    strsize - 1,
                    Some(SPILL_0),
                    StringDestination::Pointer(SAVED_0),
                    Access::User,
                    site,
                );
                self.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
                self.scratch_address(Reg::R0, Reg::R1);
                self.emit(Insn::mov64_imm(SAVED_0, 0));
            }
            subroutine::INDEX | subroutine::RINDEX | subroutine::STRSTR => {
                let search = match number {
                    subroutine::INDEX => Search::First,
                    subroutine::RINDEX => Search::Last,
                    _ => Search::Pointer,
                };
                let has_start = shape.len() > 2 && search != Search::Pointer;
                if has_start {
                    self.argument(Reg::R0, 2);
                    self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
                }
                self.argument(Reg::R0, 0);
                self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
                self.argument(SAVED_1, 1);
                self.search_string(search, has_start, site);
            }
            subroutine::CLEANPATH => {
                self.argument(SAVED_1, 0);
                self.clean_path(site);
            }
            subroutine::STRTOK => {
                self.argument(SAVED_0, 1);
                self.argument(SAVED_1, 0);
                self.tokenize(site)?;
            }
            subroutine::INET_NTOA | subroutine::INET_NTOA6 => {
                self.argument(SAVED_1, 0);
                let format = if number == subroutine::INET_NTOA {
                    AddressFormat::Inet4
                } else {
                    AddressFormat::Inet6
                };
                self.format_address(format, site);
            }
            subroutine::INET_NTOP | subroutine::LINK_NTOP => {
                self.argument(SAVED_0, 0);
                self.argument(SAVED_1, 1);
                let format = if number == subroutine::INET_NTOP {
                    AddressFormat::InetByFamily
                } else {
                    AddressFormat::Link
                };
                self.format_address(format, site);
            }
            subroutine::COPYOUT | subroutine::COPYOUTSTR => {
                let name = subroutine::name(number).unwrap_or("copyout");
                return Err(self.unsupported(format!(
                    "subroutine {name}() (it writes user memory with bpf_probe_write_user, \
                     which kernels in lockdown refuse, so the kernel engine never uses it)"
                )));
            }
            subroutine::MUTEX_OWNED
            | subroutine::MUTEX_OWNER
            | subroutine::MUTEX_TYPE_ADAPTIVE
            | subroutine::MUTEX_TYPE_SPIN
            | subroutine::RW_READ_HELD
            | subroutine::RW_WRITE_HELD
            | subroutine::RW_ISWRITER
            | subroutine::MSGDSIZE
            | subroutine::MSGSIZE
            | subroutine::DDI_PATHNAME
            | subroutine::MEMREF
            | subroutine::SX_SHARED_HELD
            | subroutine::SX_EXCLUSIVE_HELD
            | subroutine::SX_ISEXCLUSIVE
            | subroutine::MEMSTR
            | subroutine::GETF
            | subroutine::JSON
            | subroutine::D_PATH => {
                self.fault(
                    FaultCode::IllegalOperation,
                    FaultValue::Constant(number as i32),
                    site,
                );
                return Ok(());
            }
            _ => {
                let name = subroutine::name(number).unwrap_or("an unknown subroutine");
                return Err(self.unsupported(format!("subroutine {name}()")));
            }
        }
        self.store_dif(rd, Reg::R0);
        Ok(())
    }

    /// Copies the size in r4 bytes from the address in tuple entry 0 to the scratch at
    /// the DIF address in r9 (bcopy, copyin, copyinto).
    fn copy_to_scratch(&mut self, access: Access, site: FaultSite) {
        self.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R4, SPILL_0));
        self.writable_scratch(SAVED_1, WriteSize::Register(Reg::R4), SAVED_0, site);
        let done = self.label();
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_0));
        self.asm.jmp_imm_to(JmpOp::Eq, Reg::R2, 0, done);
        self.argument(SAVED_1, 0);
        self.resolve_address_extent(SAVED_1, SPILL_0, Reg::R3, access, site);
        self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_0));
        self.fault_if_imm(
            JmpOp::Gt,
            Reg::R2,
            self.layout.state.scratch_size as i32,
            FaultCode::BadAddress,
            FaultValue::Register(SAVED_1),
            site,
        );
        self.mov(Reg::R1, SAVED_0);
        let helper = if access == Access::User {
            Helper::ProbeReadUser
        } else {
            Helper::ProbeReadKernel
        };
        self.call(helper);
        self.fault_if_imm(
            JmpOp::Ne,
            Reg::R0,
            0,
            FaultCode::BadAddress,
            FaultValue::Register(SAVED_1),
            site,
        );
        self.bind(done);
        self.emit(Insn::mov64_imm(SAVED_0, 0));
    }

    /// `progenyof(pid)` with the pid in `SPILL_1`: r0 = 1 when the current process or
    /// one of its first [`PROGENY_DEPTH`] ancestors has that pid (following
    /// `task->real_parent`), else 0.
    fn progeny_of(&mut self) -> Result<(), TranslateError> {
        let offsets =
            self.layout.options.task_offsets.ok_or_else(|| {
                self.unsupported("progenyof() without task_struct offsets from BTF")
            })?;
        let temporary = self.layout.state.temporary;
        let found = self.label();
        let done = self.label();
        self.call(Helper::GetCurrentTask);
        self.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
        for _ in 0..PROGENY_DEPTH {
            // tgid of the task in r8.
            self.store_state_imm(temporary, 0);
            self.state_pointer(Reg::R1, temporary);
            self.emit(Insn::mov64_imm(Reg::R2, 4));
            self.emit(Insn::mov64_reg(Reg::R3, SAVED_0));
            self.alu_imm(AluOp::Add, Reg::R3, offsets.tgid as i32);
            self.call(Helper::ProbeReadKernel);
            self.emit(Insn::ldx_mem(MemSize::W, Reg::R1, STATE, temporary as i16));
            self.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_1));
            self.asm.jmp_reg_to(JmpOp::Eq, Reg::R1, Reg::R2, found);
            // Its parent; the chain ends at a task that is its own parent.
            self.store_state_imm(temporary, 0);
            self.state_pointer(Reg::R1, temporary);
            self.emit(Insn::mov64_imm(Reg::R2, 8));
            self.emit(Insn::mov64_reg(Reg::R3, SAVED_0));
            self.alu_imm(AluOp::Add, Reg::R3, offsets.real_parent as i32);
            self.call(Helper::ProbeReadKernel);
            self.load_state(Reg::R1, temporary);
            self.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, done);
            self.asm.jmp_reg_to(JmpOp::Eq, Reg::R1, SAVED_0, done);
            self.emit(Insn::mov64_reg(SAVED_0, Reg::R1));
        }
        self.asm.ja_to(done);
        self.bind(found);
        self.emit(Insn::mov64_imm(SAVED_0, 1));
        let finished = self.label();
        self.asm.ja_to(finished);
        self.bind(done);
        self.emit(Insn::mov64_imm(SAVED_0, 0));
        self.bind(finished);
        self.emit(Insn::mov64_reg(Reg::R0, SAVED_0));
        self.emit(Insn::mov64_imm(SAVED_0, 0));
        Ok(())
    }

    /// `rand()`: the reference engine's xorshift, one state per CPU.
    fn random(&mut self) {
        let random = self.layout.state.random;
        let seeded = self.label();
        self.load_state(Reg::R0, random);
        self.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, seeded);
        self.load_constant(Reg::R0, RANDOM_SEED | 1);
        self.bind(seeded);
        for (op, shift) in [(AluOp::Lsh, 13), (AluOp::Rsh, 7), (AluOp::Lsh, 17)] {
            self.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
            self.alu_imm(op, Reg::R1, shift);
            self.alu_reg(AluOp::Xor, Reg::R0, Reg::R1);
        }
        self.store_state(random, Reg::R0);
        self.alu_imm(AluOp::Rsh, Reg::R0, 33);
        self.alu_imm(AluOp::And, Reg::R0, 0x7fff_ffff);
    }
}
