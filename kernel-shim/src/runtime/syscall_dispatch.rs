//! The syscall provider's single attachment per direction: a dispatcher program on the raw
//! tracepoint `sys_enter` (or `sys_exit`) that tail-calls the program of the system call
//! being made, found in a program array indexed by syscall number. Enabling every syscall
//! probe is then two attachments, and a system call nobody traces costs one array lookup.

use super::error::RuntimeError;
use crate::ebpf::{Assembler, Helper, Insn, JmpOp, MemSize, Reg};
use crate::sys::{
    bpf_map_create, bpf_prog_load, MapFd, MapType, ProgFd, ProgramLoadRequest, ProgramType, BPF_ANY,
};

/// Slots of the program arrays: above every syscall number of x86_64 and aarch64.
pub const SYSCALL_SLOTS: u32 = 1024;

/// Offset of `orig_ax` in x86_64 `struct pt_regs`: the syscall number at `sys_exit`.
const PT_REGS_ORIG_AX: i32 = 120;

/// The programs of one direction (entry or return) and their dispatcher.
#[derive(Debug)]
pub struct SyscallDispatch {
    pub is_return: bool,
    programs: MapFd,
    dispatcher: ProgFd,
}

impl SyscallDispatch {
    /// An empty program array and its dispatcher program, loaded but not attached.
    pub fn new(is_return: bool) -> Result<SyscallDispatch, RuntimeError> {
        let name = if is_return {
            "dtrace_sysret"
        } else {
            "dtrace_sysent"
        };
        let programs = bpf_map_create(MapType::ProgArray, 4, 4, SYSCALL_SLOTS, 0, name)?;
        let mut assembler = Assembler::new();
        let done = assembler.new_label();
        assembler.emit(Insn::mov64_reg(Reg::R6, Reg::R1));
        if is_return {
            // args[0] is the pt_regs of the system call; its number is in orig_ax.
            assembler.emit(Insn::st_mem(MemSize::DW, Reg::R10, -8, -1));
            assembler.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R6, 0));
            assembler.emit(Insn::add64_imm(Reg::R3, PT_REGS_ORIG_AX));
            assembler.emit(Insn::mov64_reg(Reg::R1, Reg::R10));
            assembler.emit(Insn::add64_imm(Reg::R1, -8));
            assembler.emit(Insn::mov64_imm(Reg::R2, 8));
            assembler.emit(Insn::call(Helper::ProbeReadKernel));
            assembler.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R10, -8));
        } else {
            // args[1] is the syscall number.
            assembler.emit(Insn::ldx_mem(MemSize::DW, Reg::R3, Reg::R6, 8));
        }
        assembler.jmp_imm_to(JmpOp::Ge, Reg::R3, SYSCALL_SLOTS as i32, done);
        assembler.emit(Insn::mov64_reg(Reg::R1, Reg::R6));
        assembler.emit_all(&Insn::ld_map_fd(Reg::R2, programs.raw_fd()));
        assembler.emit(Insn::call(Helper::TailCall));
        assembler.bind(done);
        assembler.emit(Insn::mov64_imm(Reg::R0, 0));
        assembler.emit(Insn::exit());
        let instructions = assembler.finish().map_err(|error| {
            RuntimeError::invalid("assembling the syscall dispatcher", error.to_string())
        })?;
        let mut request = ProgramLoadRequest::new(ProgramType::RawTracepoint, &instructions);
        request.name = name;
        let dispatcher = bpf_prog_load(&request)
            .map_err(|error| RuntimeError::rejected("the syscall dispatcher", error))?;
        Ok(SyscallDispatch {
            is_return,
            programs,
            dispatcher,
        })
    }

    /// Makes `program` (a raw tracepoint program) run for system call `number`.
    pub fn insert(&self, number: u32, program: &ProgFd) -> Result<(), RuntimeError> {
        if number >= SYSCALL_SLOTS {
            return Err(RuntimeError::invalid(
                format!("enabling system call {number}"),
                format!(
                    "syscall numbers above {} are not supported",
                    SYSCALL_SLOTS - 1
                ),
            ));
        }
        self.programs.update(
            &number.to_ne_bytes(),
            &(program.raw_fd() as u32).to_ne_bytes(),
            BPF_ANY,
        )?;
        Ok(())
    }

    /// The dispatcher, to attach to raw tracepoint `sys_enter` or `sys_exit`.
    pub fn dispatcher(&self) -> &ProgFd {
        &self.dispatcher
    }

    /// The raw tracepoint the dispatcher belongs to.
    pub fn raw_tracepoint(&self) -> &'static str {
        if self.is_return {
            "sys_exit"
        } else {
            "sys_enter"
        }
    }
}
