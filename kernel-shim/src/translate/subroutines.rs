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

use super::clean_path::clean_path;
use super::code::{FaultSite, FaultValue, ProgramCode};
use super::error::TranslateError;
use super::memory::{allocate_scratch, copy_extent_into_scratch, read_string, scratch_address};
use super::memory::{Access, ScratchSize, StringDestination};
use super::network::format_address;
use super::network::AddressFormat;
use super::registers::{SAVED_0, SAVED_1, SPILL_0, SPILL_1, SPILL_2, STATE};
use super::speculation::allocate_speculation;
use super::string_search::search_string;
use super::string_search::Search;
use super::string_subroutines::{
    change_case, find_character, integer_to_string, path_component, process_arguments,
    string_to_integer, substring,
};
use super::strings::{join_strings, string_length};
use super::subject_task::load_current_task;
use super::tokens::tokenize;
use super::translation_context::StatementContext;
use super::tuples::tuple_entry;
use super::tuples::EntryKind;
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, MemSize, Reg, SwapWidth};
use crate::map_layout::ProgramLayout;

/// Ancestors `progenyof()` looks at.
const PROGENY_DEPTH: u32 = 32;

/// The `rand()` seed of the reference engine, so that one CPU's sequence matches it.
const RANDOM_SEED: u64 = 0x2545_f491_4f6c_dd1d;

/// `r0 = tuple entry position's value`.
fn argument(code: &mut ProgramCode, layout: &ProgramLayout, dst: Reg, position: usize) {
    let entry = tuple_entry(layout, position);
    code.load_state(dst, entry);
}

/// What a family's translation of a subroutine call did.
enum Called {
    /// The result is in r0, for DIF `%rd`.
    WithResult,
    /// The call has no result (`bcopy()`, `copyinto()`).
    WithoutResult,
    /// The subroutine is not of the family.
    NotInFamily,
}

/// Translates `call number`, DIF `%rd` receiving the result: checks the arguments'
/// count, then dispatches to the subroutine's family.
pub fn call_subroutine(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
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
        | subroutine::LINK_NTOP
        | subroutine::COPYIN_ARGUMENTS => 2,
        subroutine::BCOPY | subroutine::COPYINTO => 3,
        _ => 1,
    };
    if shape.len() < required {
        code.fault(
            cx.fault_exit,
            FaultCode::IllegalOperation,
            FaultValue::Constant(number as i32),
            site,
        );
        return Ok(());
    }
    let families = [
        call_integer_subroutine,
        call_string_subroutine,
        call_search_subroutine,
        call_memory_subroutine,
    ];
    for family in families {
        match family(code, cx, number, shape, site)? {
            Called::WithResult => {
                code.store_dif(rd, Reg::R0);
                return Ok(());
            }
            Called::WithoutResult => return Ok(()),
            Called::NotInFamily => {}
        }
    }
    match number {
        subroutine::COPYOUT | subroutine::COPYOUTSTR => {
            let name = subroutine::name(number).unwrap_or("copyout");
            Err(cx.unsupported(format!(
                "subroutine {name}() (it writes user memory with bpf_probe_write_user, \
                 which kernels in lockdown refuse, so the kernel engine never uses it)"
            )))
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
        | subroutine::JSON => {
            code.fault(
                cx.fault_exit,
                FaultCode::IllegalOperation,
                FaultValue::Constant(number as i32),
                site,
            );
            Ok(())
        }
        _ => {
            let name = subroutine::name(number).unwrap_or("an unknown subroutine");
            Err(cx.unsupported(format!("subroutine {name}()")))
        }
    }
}

/// The subroutines that compute an integer: `rand()`, `speculation()`, `progenyof()`,
/// device numbers and byte order. They take neither the tuple's shape nor a fault site,
/// which the families' common signature passes.
fn call_integer_subroutine(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    number: u16,
    _shape: &[EntryKind],
    _site: FaultSite,
) -> Result<Called, TranslateError> {
    match number {
        subroutine::RAND => {
            random(code, cx.layout());
        }
        subroutine::SPECULATION => {
            allocate_speculation(code, cx.layout());
        }
        subroutine::PROGENYOF => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
            progeny_of(code, cx)?;
        }
        subroutine::GETMAJOR => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.alu_imm(AluOp::Rsh, Reg::R0, 20);
            code.alu_imm(AluOp::And, Reg::R0, 0xfff);
        }
        subroutine::GETMINOR => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.alu_imm(AluOp::And, Reg::R0, 0xf_ffff);
        }
        subroutine::HTONS | subroutine::NTOHS => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.emit(Insn::to_be(Reg::R0, SwapWidth::W16));
        }
        subroutine::HTONL | subroutine::NTOHL => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.emit(Insn::to_be(Reg::R0, SwapWidth::W32));
        }
        subroutine::HTONLL | subroutine::NTOHLL => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.emit(Insn::to_be(Reg::R0, SwapWidth::W64));
        }
        _ => return Ok(Called::NotInFamily),
    }
    Ok(Called::WithResult)
}

/// The string subroutines that transform or measure one string.
fn call_string_subroutine(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    number: u16,
    shape: &[EntryKind],
    site: FaultSite,
) -> Result<Called, TranslateError> {
    let strsize = cx.layout().options.strsize;
    match number {
        subroutine::STRLEN => {
            argument(code, cx.layout(), SAVED_1, 0);
            string_length(code, cx, site);
        }
        subroutine::STRJOIN => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
            argument(code, cx.layout(), Reg::R0, 1);
            code.emit(Insn::stx_mem(
                MemSize::DW,
                Reg::FP,
                Reg::R0,
                super::registers::SPILL_3,
            ));
            join_strings(code, cx, SPILL_2, super::registers::SPILL_3, site);
        }
        subroutine::D_PATH => {
            argument(code, cx.layout(), SAVED_1, 0);
            super::dentry_path::dentry_path(code, cx, site)?;
        }
        subroutine::COPYIN_ARGUMENTS => {
            argument(code, cx.layout(), Reg::R0, 1);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
            argument(code, cx.layout(), SAVED_1, 0);
            process_arguments(code, cx, site);
        }
        subroutine::TOUPPER | subroutine::TOLOWER => {
            argument(code, cx.layout(), SAVED_1, 0);
            change_case(code, cx, number == subroutine::TOUPPER, site);
        }
        subroutine::STRCHR | subroutine::STRRCHR => {
            argument(code, cx.layout(), Reg::R0, 1);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
            argument(code, cx.layout(), SAVED_1, 0);
            find_character(code, cx, number == subroutine::STRRCHR, site);
        }
        subroutine::BASENAME | subroutine::DIRNAME => {
            argument(code, cx.layout(), SAVED_1, 0);
            path_component(code, cx, number == subroutine::DIRNAME, site);
        }
        subroutine::STRTOLL => {
            if shape.len() > 1 {
                argument(code, cx.layout(), Reg::R0, 1);
            } else {
                code.emit(Insn::mov64_imm(Reg::R0, 10));
            }
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
            argument(code, cx.layout(), SAVED_1, 0);
            string_to_integer(code, cx, site);
        }
        subroutine::SUBSTR => {
            argument(code, cx.layout(), Reg::R0, 1);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
            if shape.len() > 2 {
                argument(code, cx.layout(), Reg::R0, 2);
            } else {
                code.load_constant(Reg::R0, strsize as u64);
            }
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
            argument(code, cx.layout(), SAVED_1, 0);
            substring(code, cx, site);
        }
        subroutine::LLTOSTR => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
            if shape.len() > 1 {
                argument(code, cx.layout(), Reg::R0, 1);
            } else {
                code.emit(Insn::mov64_imm(Reg::R0, 10));
            }
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
            integer_to_string(code, cx, site);
        }
        _ => return Ok(Called::NotInFamily),
    }
    Ok(Called::WithResult)
}

/// The subroutines that search a string or walk it with loops (`index()`, `strstr()`,
/// `cleanpath()`, `strtok()`), and the network address formatters.
fn call_search_subroutine(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    number: u16,
    shape: &[EntryKind],
    site: FaultSite,
) -> Result<Called, TranslateError> {
    match number {
        subroutine::INDEX | subroutine::RINDEX | subroutine::STRSTR => {
            let search = match number {
                subroutine::INDEX => Search::First,
                subroutine::RINDEX => Search::Last,
                _ => Search::Pointer,
            };
            let has_start = shape.len() > 2 && search != Search::Pointer;
            if has_start {
                argument(code, cx.layout(), Reg::R0, 2);
                code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_2));
            }
            argument(code, cx.layout(), Reg::R0, 0);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
            argument(code, cx.layout(), SAVED_1, 1);
            search_string(code, cx, search, has_start, site);
        }
        subroutine::CLEANPATH => {
            argument(code, cx.layout(), SAVED_1, 0);
            clean_path(code, cx, site);
        }
        subroutine::STRTOK => {
            argument(code, cx.layout(), SAVED_0, 1);
            argument(code, cx.layout(), SAVED_1, 0);
            tokenize(code, cx, site)?;
        }
        subroutine::INET_NTOA | subroutine::INET_NTOA6 => {
            argument(code, cx.layout(), SAVED_1, 0);
            let format = if number == subroutine::INET_NTOA {
                AddressFormat::Inet4
            } else {
                AddressFormat::Inet6
            };
            format_address(code, cx, format, site);
        }
        subroutine::INET_NTOP | subroutine::LINK_NTOP => {
            argument(code, cx.layout(), SAVED_0, 0);
            argument(code, cx.layout(), SAVED_1, 1);
            let format = if number == subroutine::INET_NTOP {
                AddressFormat::InetByFamily
            } else {
                AddressFormat::Link
            };
            format_address(code, cx, format, site);
        }
        _ => return Ok(Called::NotInFamily),
    }
    Ok(Called::WithResult)
}

/// Charges `alloca(n)` (n in r0) to the clause's alloca space, rounded up to 8 bytes,
/// faulting with `out of scratch space` past `alloca_size` as the interpreter does.
/// Clobbers r1 and r2.
fn charge_alloca(code: &mut ProgramCode, cx: &StatementContext<'_>, site: FaultSite) {
    let limit = cx.layout().options.alloca_size.min(i32::MAX as u64) as i32;
    let used = cx.layout().state.alloca_used;
    let out_of_space = |code: &mut ProgramCode, register: Reg| {
        code.fault_if_imm(
            cx.fault_exit,
            JmpOp::Gt,
            register,
            limit,
            FaultCode::NoScratch,
            FaultValue::Constant(0),
            site,
        )
    };
    out_of_space(code, Reg::R0);
    code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
    code.emit(Insn::add64_imm(Reg::R1, 7));
    code.emit(Insn::alu64_imm(AluOp::And, Reg::R1, -8));
    code.load_state(Reg::R2, used);
    code.emit(Insn::alu64_reg(AluOp::Add, Reg::R2, Reg::R1));
    out_of_space(code, Reg::R2);
    code.store_state(used, Reg::R2);
}

/// The subroutines that allocate scratch or copy memory into it.
fn call_memory_subroutine(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    number: u16,
    shape: &[EntryKind],
    site: FaultSite,
) -> Result<Called, TranslateError> {
    let strsize = cx.layout().options.strsize;
    match number {
        subroutine::ALLOCA => {
            argument(code, cx.layout(), Reg::R0, 0);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
            charge_alloca(code, cx, site);
            allocate_scratch(code, cx, ScratchSize::Slot(SPILL_0), site);
            code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
            scratch_address(code, Reg::R0, Reg::R1);
        }
        subroutine::BCOPY | subroutine::COPYINTO => {
            // bcopy(source, destination, size); copyinto(user source, size, destination).
            let (destination, size, access) = if number == subroutine::BCOPY {
                (1, 2, Access::Kernel)
            } else {
                (2, 1, Access::User)
            };
            argument(code, cx.layout(), SAVED_1, destination);
            argument(code, cx.layout(), Reg::R4, size);
            copy_to_scratch(code, cx, access, site);
            return Ok(Called::WithoutResult);
        }
        subroutine::COPYIN => {
            argument(code, cx.layout(), Reg::R0, 1);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
            allocate_scratch(code, cx, ScratchSize::Slot(SPILL_0), site);
            code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
            scratch_address(code, SAVED_1, Reg::R1);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, SAVED_1, SPILL_1));
            argument(code, cx.layout(), Reg::R4, 1);
            copy_to_scratch(code, cx, Access::User, site);
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R0, Reg::FP, SPILL_1));
        }
        subroutine::COPYINSTR => {
            // The bound is strsize − 1, or the optional maximum when smaller (clamped
            // with a constant, so that every verifier knows the run-time bound's range).
            if shape.len() > 1 {
                let keep = code.label();
                argument(code, cx.layout(), Reg::R0, 1);
                code.asm
                    .jmp_imm_to(JmpOp::Le, Reg::R0, strsize as i32 - 1, keep);
                code.load_constant(Reg::R0, strsize as u64 - 1);
                code.bind(keep);
            } else {
                code.load_constant(Reg::R0, strsize as u64 - 1);
            }
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_0));
            allocate_scratch(code, cx, ScratchSize::Constant(strsize), site);
            code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, Reg::R0, SPILL_1));
            code.emit(Insn::mov64_reg(SAVED_0, STATE));
            code.alu_imm(AluOp::Add, SAVED_0, cx.layout().state.scratch as i32);
            code.alu_reg(AluOp::Add, SAVED_0, Reg::R0);
            argument(code, cx.layout(), SAVED_1, 0);
            read_string(
                code,
                cx,
                SAVED_1,
                strsize - 1,
                Some(SPILL_0),
                StringDestination::Pointer(SAVED_0),
                Access::User,
                site,
            );
            code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::FP, SPILL_1));
            scratch_address(code, Reg::R0, Reg::R1);
            code.emit(Insn::mov64_imm(SAVED_0, 0));
        }
        _ => return Ok(Called::NotInFamily),
    }
    Ok(Called::WithResult)
}

/// Copies the size in r4 bytes from the address in tuple entry 0 to the scratch at
/// the DIF address in r9 (bcopy, copyin, copyinto).
fn copy_to_scratch(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    access: Access,
    site: FaultSite,
) {
    let layout = cx.layout();
    copy_extent_into_scratch(
        code,
        cx,
        |code| argument(code, layout, SAVED_1, 0),
        access,
        site,
    );
}

/// `progenyof(pid)` with the pid in `SPILL_1`: r0 = 1 when the current process or
/// one of its first [`PROGENY_DEPTH`] ancestors has that pid (following
/// `task->real_parent`), else 0.
fn progeny_of(code: &mut ProgramCode, cx: &StatementContext<'_>) -> Result<(), TranslateError> {
    let offsets = cx
        .layout()
        .options
        .task_offsets
        .ok_or_else(|| cx.unsupported("progenyof() without task_struct offsets from BTF"))?;
    let temporary = cx.layout().state.temporary;
    let found = code.label();
    let done = code.label();
    load_current_task(code, cx);
    code.emit(Insn::mov64_reg(SAVED_0, Reg::R0));
    for _ in 0..PROGENY_DEPTH {
        // tgid of the task in r8.
        code.store_state_imm(temporary, 0);
        code.state_pointer(Reg::R1, temporary);
        code.emit(Insn::mov64_imm(Reg::R2, 4));
        code.emit(Insn::mov64_reg(Reg::R3, SAVED_0));
        code.alu_imm(AluOp::Add, Reg::R3, offsets.tgid as i32);
        code.call(Helper::ProbeReadKernel);
        code.emit(Insn::ldx_mem(MemSize::W, Reg::R1, STATE, temporary as i16));
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R2, Reg::FP, SPILL_1));
        code.asm.jmp_reg_to(JmpOp::Eq, Reg::R1, Reg::R2, found);
        // Its parent; the chain ends at a task that is its own parent.
        code.store_state_imm(temporary, 0);
        code.state_pointer(Reg::R1, temporary);
        code.emit(Insn::mov64_imm(Reg::R2, 8));
        code.emit(Insn::mov64_reg(Reg::R3, SAVED_0));
        code.alu_imm(AluOp::Add, Reg::R3, offsets.real_parent as i32);
        code.call(Helper::ProbeReadKernel);
        code.load_state(Reg::R1, temporary);
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, done);
        code.asm.jmp_reg_to(JmpOp::Eq, Reg::R1, SAVED_0, done);
        code.emit(Insn::mov64_reg(SAVED_0, Reg::R1));
    }
    code.asm.ja_to(done);
    code.bind(found);
    code.emit(Insn::mov64_imm(SAVED_0, 1));
    let finished = code.label();
    code.asm.ja_to(finished);
    code.bind(done);
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    code.bind(finished);
    code.emit(Insn::mov64_reg(Reg::R0, SAVED_0));
    code.emit(Insn::mov64_imm(SAVED_0, 0));
    Ok(())
}

/// `rand()`: the reference engine's xorshift, one state per CPU.
fn random(code: &mut ProgramCode, layout: &ProgramLayout) {
    let random = layout.state.random;
    let seeded = code.label();
    code.load_state(Reg::R0, random);
    code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, seeded);
    code.load_constant(Reg::R0, RANDOM_SEED | 1);
    code.bind(seeded);
    for (op, shift) in [(AluOp::Lsh, 13), (AluOp::Rsh, 7), (AluOp::Lsh, 17)] {
        code.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
        code.alu_imm(op, Reg::R1, shift);
        code.alu_reg(AluOp::Xor, Reg::R0, Reg::R1);
    }
    code.store_state(random, Reg::R0);
    code.alu_imm(AluOp::Rsh, Reg::R0, 33);
    code.alu_imm(AluOp::And, Reg::R0, 0x7fff_ffff);
}
