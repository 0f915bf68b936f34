//! Recording where functions are left, for pid return probes' `arg0`. A return probe is
//! a uretprobe, which fires once its function has returned, when which instruction it
//! left by is no longer known. For a function with several exits (rets, tail calls'
//! jumps, indirect jumps) the provider asks for a recorder at each: a small program
//! that writes, per thread and return probe, the exit's offset (the low half of its
//! cookie) and the stack pointer there into the `return_exits` map, keyed by the
//! thread and the return probe's own cookie (the high half). The return probe takes
//! the entry written at the stack it returned from (see `map_layout::return_exits`).

use super::attach::{
    attach, attach_uprobe_group, uprobe_multi_links_work, AttachTarget, Attachment, UprobeGroup,
};
use super::error::RuntimeError;
use crate::ebpf::{AluOp, Assembler, Helper, Insn, MemSize, Reg};
use crate::map_layout::{ReturnExitLayout, RETURN_EXIT_ENTRIES};
use crate::sys::{
    bpf_map_create, bpf_prog_load, AttachType, MapFd, MapType, ProgFd, ProgramLoadRequest,
    ProgramType, BPF_ANY,
};

/// `struct pt_regs`'s `sp` on x86_64.
const PT_REGS_SP: i16 = 152;

/// The `return_exits` map and the recorder program that writes it.
#[derive(Debug)]
pub struct ReturnExitRecorder {
    map: MapFd,
    program: ProgFd,
    /// Whether the program attaches through uprobe multi-links.
    multi_link: bool,
}

impl ReturnExitRecorder {
    /// Creates the map and loads the recorder (not attached).
    pub fn new() -> Result<ReturnExitRecorder, RuntimeError> {
        let map = bpf_map_create(
            MapType::LruHash,
            ReturnExitLayout::KEY_SIZE,
            ReturnExitLayout::VALUE_SIZE,
            RETURN_EXIT_ENTRIES,
            0,
            "dtrace_retexits",
        )?;
        let instructions = recorder_instructions(map.raw_fd()).map_err(|error| {
            RuntimeError::invalid("assembling the return exit recorder", error.to_string())
        })?;
        let multi_link = uprobe_multi_links_work();
        let mut request = ProgramLoadRequest::new(ProgramType::Kprobe, &instructions);
        if multi_link {
            request.expected_attach_type = Some(AttachType::TraceUprobeMulti);
        }
        request.name = "dtrace_retexit";
        let program = bpf_prog_load(&request)
            .map_err(|error| RuntimeError::rejected("the return exit recorder", error))?;
        Ok(ReturnExitRecorder {
            map,
            program,
            multi_link,
        })
    }

    /// The map's descriptor, for the return probes' programs.
    pub fn map_fd(&self) -> i32 {
        self.map.raw_fd()
    }

    /// Attaches the recorder at `targets` (one probe's exits, uprobes with cookies).
    pub fn attach(&self, targets: &[AttachTarget]) -> Result<Attachment, RuntimeError> {
        if self.multi_link {
            if let Some(group) = UprobeGroup::of(targets) {
                return attach_uprobe_group(&self.program, &group);
            }
        }
        let mut combined: Option<Attachment> = None;
        for target in targets {
            let attachment = attach(&self.program, target, 0)?;
            match &mut combined {
                Some(all) => all.merge(attachment),
                None => combined = Some(attachment),
            }
        }
        combined.ok_or_else(|| {
            RuntimeError::invalid("attaching the return exit recorder", "no exits were given")
        })
    }
}

/// `return_exits[(pid_tgid, cookie >> 32)] = (sp, cookie & 0xffffffff)`.
fn recorder_instructions(map: i32) -> Result<Vec<Insn>, crate::ebpf::AssembleError> {
    const KEY: i16 = -16;
    const VALUE: i16 = -32;
    let mut asm = Assembler::new();
    asm.emit(Insn::mov64_reg(Reg::R6, Reg::R1));
    asm.emit(Insn::call(Helper::GetCurrentPidTgid));
    asm.emit(Insn::stx_mem(MemSize::DW, Reg::R10, Reg::R0, KEY));
    asm.emit(Insn::mov64_reg(Reg::R1, Reg::R6));
    asm.emit(Insn::call(Helper::GetAttachCookie));
    asm.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
    asm.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R1, 32));
    asm.emit(Insn::stx_mem(MemSize::DW, Reg::R10, Reg::R1, KEY + 8));
    asm.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
    asm.emit(Insn::stx_mem(
        MemSize::DW,
        Reg::R10,
        Reg::R0,
        VALUE + ReturnExitLayout::OFFSET as i16,
    ));
    asm.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R6, PT_REGS_SP));
    asm.emit(Insn::stx_mem(
        MemSize::DW,
        Reg::R10,
        Reg::R1,
        VALUE + ReturnExitLayout::STACK_POINTER as i16,
    ));
    asm.emit_all(&Insn::ld_map_fd(Reg::R1, map));
    asm.emit(Insn::mov64_reg(Reg::R2, Reg::R10));
    asm.emit(Insn::add64_imm(Reg::R2, KEY as i32));
    asm.emit(Insn::mov64_reg(Reg::R3, Reg::R10));
    asm.emit(Insn::add64_imm(Reg::R3, VALUE as i32));
    asm.emit(Insn::mov64_imm(Reg::R4, BPF_ANY as i32));
    asm.emit(Insn::call(Helper::MapUpdateElem));
    asm.emit(Insn::mov64_imm(Reg::R0, 0));
    asm.emit(Insn::exit());
    asm.finish()
}
