//! eBPF disassembler printing the kernel verifier log's syntax (kernel/bpf/disasm.c), for
//! `-x debug` output and for reading verifier logs side by side with the code we generated.
//!
//! A program listing has one line per instruction, `PC: (OPCODE) TEXT`, exactly as the
//! verifier prints at log level 2; a two-slot `ld_imm64` is one line and the next line's
//! PC skips its second slot. Map references, which the kernel prints as raw addresses, are
//! printed as `map[fd:N]` (or whatever the caller's naming function says, e.g. `map[id:N]`),
//! and direct map-value loads as `map[fd:N][0]+OFFSET`, as bpftool does.

use std::fmt::Write;

use super::helpers::Helper;
use super::insn::Insn;
use super::opcode::*;

/// The default rendering of a map file descriptor in `ld_imm64`.
pub fn default_map_name(map_fd: i32) -> String {
    format!("map[fd:{map_fd}]")
}

/// The listing of a whole program with maps shown by file descriptor.
pub fn disassemble(instructions: &[Insn]) -> String {
    disassemble_with(instructions, &default_map_name)
}

/// The listing of a whole program, naming maps with `map_name(fd)`.
pub fn disassemble_with(instructions: &[Insn], map_name: &dyn Fn(i32) -> String) -> String {
    let mut listing = String::new();
    let mut pc = 0;
    while pc < instructions.len() {
        let instruction = &instructions[pc];
        let next = instructions.get(pc + 1);
        let text = instruction_text_with(instruction, next, map_name);
        // Writing to a String cannot fail.
        let _ = writeln!(listing, "{pc}: ({:02x}) {text}", instruction.code);
        pc += if instruction.is_ld_imm64() { 2 } else { 1 };
    }
    listing
}

/// The text of one instruction without the PC and opcode prefix, e.g. `r1 += -8`.
/// `next` is the following slot, which completes an `ld_imm64`.
pub fn instruction_text(instruction: &Insn, next: Option<&Insn>) -> String {
    instruction_text_with(instruction, next, &default_map_name)
}

/// As `instruction_text`, naming maps with `map_name(fd)`.
pub fn instruction_text_with(
    instruction: &Insn,
    next: Option<&Insn>,
    map_name: &dyn Fn(i32) -> String,
) -> String {
    let code = instruction.code;
    match class(code) {
        BPF_ALU | BPF_ALU64 => alu_text(instruction),
        BPF_STX => stx_text(instruction),
        BPF_ST => {
            if mode(code) == BPF_MEM {
                format!(
                    "*({} *)(r{} {:+}) = {}",
                    unsigned_size_name(code),
                    instruction.dst,
                    instruction.off,
                    instruction.imm
                )
            } else {
                format!("BUG_st_{code:02x}")
            }
        }
        BPF_LDX => match mode(code) {
            BPF_MEM => format!(
                "r{} = *({} *)(r{} {:+})",
                instruction.dst,
                unsigned_size_name(code),
                instruction.src,
                instruction.off
            ),
            BPF_MEMSX => format!(
                "r{} = *({} *)(r{} {:+})",
                instruction.dst,
                signed_size_name(code),
                instruction.src,
                instruction.off
            ),
            _ => format!("BUG_ldx_{code:02x}"),
        },
        BPF_LD => ld_text(instruction, next, map_name),
        _ => jmp_text(instruction),
    }
}

fn register_prefix(code: u8) -> char {
    match class(code) {
        BPF_ALU | BPF_JMP32 => 'w',
        _ => 'r',
    }
}

fn unsigned_size_name(code: u8) -> &'static str {
    match size(code) {
        BPF_W => "u32",
        BPF_H => "u16",
        BPF_B => "u8",
        _ => "u64",
    }
}

fn signed_size_name(code: u8) -> &'static str {
    match size(code) {
        BPF_W => "s32",
        BPF_H => "s16",
        BPF_B => "s8",
        _ => "s64",
    }
}

fn alu_operator(operation: u8) -> Option<&'static str> {
    Some(match operation {
        BPF_ADD => "+=",
        BPF_SUB => "-=",
        BPF_MUL => "*=",
        BPF_DIV => "/=",
        BPF_OR => "|=",
        BPF_AND => "&=",
        BPF_LSH => "<<=",
        BPF_RSH => ">>=",
        BPF_MOD => "%=",
        BPF_XOR => "^=",
        BPF_MOV => "=",
        BPF_ARSH => "s>>=",
        _ => return None,
    })
}

fn alu_text(instruction: &Insn) -> String {
    let code = instruction.code;
    let prefix = register_prefix(code);
    let dst = instruction.dst;
    let operation = operation(code);
    if operation == BPF_END {
        return if class(code) == BPF_ALU64 {
            format!("r{dst} = bswap{} r{dst}", instruction.imm)
        } else {
            let order = if source(code) == BPF_TO_BE {
                "be"
            } else {
                "le"
            };
            format!("r{dst} = {order}{} r{dst}", instruction.imm)
        };
    }
    if operation == BPF_NEG {
        return format!("{prefix}{dst} = -{prefix}{dst}");
    }
    let signed = matches!(operation, BPF_DIV | BPF_MOD) && instruction.off == 1;
    let operator = match (signed, operation) {
        (true, BPF_DIV) => "s/=",
        (true, _) => "s%=",
        (false, _) => match alu_operator(operation) {
            Some(operator) => operator,
            None => return format!("BUG_alu_{code:02x}"),
        },
    };
    if source(code) == BPF_X {
        let extension = if operation == BPF_MOV {
            match instruction.off {
                8 => "(s8)",
                16 => "(s16)",
                32 => "(s32)",
                _ => "",
            }
        } else {
            ""
        };
        format!(
            "{prefix}{dst} {operator} {extension}{prefix}{}",
            instruction.src
        )
    } else {
        format!("{prefix}{dst} {operator} {}", instruction.imm)
    }
}

fn stx_text(instruction: &Insn) -> String {
    let code = instruction.code;
    let size_name = unsigned_size_name(code);
    let (dst, src, off) = (instruction.dst, instruction.src, instruction.off);
    match mode(code) {
        BPF_MEM => format!("*({size_name} *)(r{dst} {off:+}) = r{src}"),
        BPF_ATOMIC => {
            let width = if size(code) == BPF_DW { "64" } else { "" };
            let imm = instruction.imm;
            let plain_operation = u8::try_from(imm & !BPF_FETCH)
                .ok()
                .filter(|operation| matches!(*operation, BPF_ADD | BPF_AND | BPF_OR | BPF_XOR));
            match (plain_operation, imm & BPF_FETCH != 0) {
                (Some(operation), false) => {
                    let operator = alu_operator(operation).unwrap_or("?=");
                    format!("lock *({size_name} *)(r{dst} {off:+}) {operator} r{src}")
                }
                (Some(operation), true) => {
                    let name = match operation {
                        BPF_ADD => "add",
                        BPF_AND => "and",
                        BPF_OR => "or",
                        _ => "xor",
                    };
                    format!(
                        "r{src} = atomic{width}_fetch_{name}(({size_name} *)(r{dst} {off:+}), r{src})"
                    )
                }
                (None, _) if imm == BPF_CMPXCHG => format!(
                    "r0 = atomic{width}_cmpxchg(({size_name} *)(r{dst} {off:+}), r0, r{src})"
                ),
                (None, _) if imm == BPF_XCHG => {
                    format!("r{src} = atomic{width}_xchg(({size_name} *)(r{dst} {off:+}), r{src})")
                }
                _ => format!("BUG_{code:02x}"),
            }
        }
        _ => format!("BUG_{code:02x}"),
    }
}

fn ld_text(instruction: &Insn, next: Option<&Insn>, map_name: &dyn Fn(i32) -> String) -> String {
    let code = instruction.code;
    match mode(code) {
        BPF_ABS => format!(
            "r0 = *({} *)skb[{}]",
            unsigned_size_name(code),
            instruction.imm
        ),
        BPF_IND => format!(
            "r0 = *({} *)skb[r{} + {}]",
            unsigned_size_name(code),
            instruction.src,
            instruction.imm
        ),
        BPF_IMM if size(code) == BPF_DW => {
            let Some(next) = next else {
                return format!("BUG_ld_{code:02x}");
            };
            let dst = instruction.dst;
            match instruction.src {
                BPF_PSEUDO_MAP_FD => format!("r{dst} = {}", map_name(instruction.imm)),
                BPF_PSEUDO_MAP_VALUE => format!(
                    "r{dst} = {}[0]+{}",
                    map_name(instruction.imm),
                    next.imm as u32
                ),
                BPF_PSEUDO_FUNC => format!("r{dst} = subprog[{:+}]", instruction.imm),
                BPF_PSEUDO_BTF_ID => format!("r{dst} = btf_var[{}]", instruction.imm),
                _ => {
                    let value = ((next.imm as u32 as u64) << 32) | instruction.imm as u32 as u64;
                    format!("r{dst} = 0x{value:x}")
                }
            }
        }
        _ => format!("BUG_ld_{code:02x}"),
    }
}

fn jmp_operator(operation: u8) -> Option<&'static str> {
    Some(match operation {
        BPF_JEQ => "==",
        BPF_JGT => ">",
        BPF_JLT => "<",
        BPF_JGE => ">=",
        BPF_JLE => "<=",
        BPF_JSET => "&",
        BPF_JNE => "!=",
        BPF_JSGT => "s>",
        BPF_JSLT => "s<",
        BPF_JSGE => "s>=",
        BPF_JSLE => "s<=",
        _ => return None,
    })
}

fn jmp_text(instruction: &Insn) -> String {
    let code = instruction.code;
    let operation = operation(code);
    let is_jmp64 = class(code) == BPF_JMP;
    match operation {
        BPF_CALL if is_jmp64 => match instruction.src {
            BPF_PSEUDO_CALL => format!("call pc{:+}", instruction.imm),
            BPF_PSEUDO_KFUNC_CALL => format!("call kernel-function#{}", instruction.imm),
            _ => {
                let name = u32::try_from(instruction.imm)
                    .ok()
                    .and_then(Helper::from_number)
                    .map(Helper::kernel_name)
                    .unwrap_or_else(|| "unknown".to_string());
                format!("call {name}#{}", instruction.imm)
            }
        },
        BPF_EXIT if is_jmp64 => "exit".to_string(),
        BPF_JA if is_jmp64 => format!("goto pc{:+}", instruction.off),
        BPF_JA => format!("gotol pc{:+}", instruction.imm),
        BPF_JCOND if is_jmp64 && instruction.src == 0 => {
            format!("may_goto pc{:+}", instruction.off)
        }
        _ => {
            let Some(operator) = jmp_operator(operation) else {
                return format!("BUG_{code:02x}");
            };
            let prefix = register_prefix(code);
            let dst = instruction.dst;
            if source(code) == BPF_X {
                format!(
                    "if {prefix}{dst} {operator} {prefix}{} goto pc{:+}",
                    instruction.src, instruction.off
                )
            } else {
                format!(
                    "if {prefix}{dst} {operator} 0x{:x} goto pc{:+}",
                    instruction.imm as u32, instruction.off
                )
            }
        }
    }
}
