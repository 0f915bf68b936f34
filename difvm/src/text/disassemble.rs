//! The classic `dtrace -S` DIF listing (§15.6), byte for byte: the DIFO header with its
//! return type, one line per instruction, and the variable table.

use std::fmt::Write;

use crate::difo::{
    DifType, DifTypeKind, DifVariable, Difo, VariableKind, VariableScope,
    DIF_TYPE_FLAG_BY_REFERENCE, DIF_TYPE_FLAG_BY_USER_REFERENCE, DIF_VARIABLE_FLAG_READ,
    DIF_VARIABLE_FLAG_WRITE,
};
use crate::isa::{subroutine, Instruction, DIF_TYPE_CTF, DIF_TYPE_STRING};
use crate::text::format::{operand_format, variable_access, OperandFormat};
use crate::text::names::{builtin_array_name, builtin_variable_name};

/// What the listing prints for an opcode byte that is not a DIF opcode.
pub const ILLEGAL_OPCODE_TEXT: &str = "(illegal opcode)";

/// The listing of one DIFO, exactly as classic `dtrace -S` prints it.
///
/// Classic DTrace prints the DIFO's address in the header (`DIFO 0x8a3c10 returns …`);
/// we have no stable address, so the caller passes `label` (for example the DIFO's
/// index in the program) and the header reads `DIFO 0x{label:x} returns …`.
pub fn disassemble_difo(difo: &Difo, label: u64) -> String {
    let mut listing = String::new();
    let _ = writeln!(
        listing,
        "\nDIFO 0x{:x} returns {}",
        label,
        type_text(&difo.return_type)
    );
    let _ = writeln!(listing, "{:<3} {:<8}    INSTRUCTION", "OFF", "OPCODE");
    for (offset, instruction) in difo.code.iter().enumerate() {
        let _ = writeln!(
            listing,
            "{:02}: {:08x}    {}",
            offset,
            instruction.0,
            instruction_text(difo, *instruction)
        );
    }
    if !difo.variable_table.is_empty() {
        let _ = writeln!(
            listing,
            "\n{:<16} {:<4} {:<3} {:<3} {:<4} TYPE",
            "NAME", "ID", "KND", "SCP", "FLAG"
        );
        for variable in &difo.variable_table {
            listing.push_str(&variable_row_text(difo, variable));
            listing.push('\n');
        }
    }
    listing
}

/// The text of one instruction as the listing prints it after the raw word, including
/// the trailing `! …` comment where the format has one (no newline).
pub fn instruction_text(difo: &Difo, instruction: Instruction) -> String {
    let Some(opcode) = instruction.opcode() else {
        return ILLEGAL_OPCODE_TEXT.to_string();
    };
    let name = opcode.mnemonic();
    let (r1, r2, rd) = (instruction.r1(), instruction.r2(), instruction.rd());
    let index = instruction.index();
    match operand_format(opcode) {
        OperandFormat::ThreeRegisters => format!("{name:<4} %r{r1}, %r{r2}, %r{rd}"),
        OperandFormat::Branch => format!("{name:<4} {}", instruction.label()),
        OperandFormat::Load => format!("{name:<4} [%r{r1}], %r{rd}"),
        OperandFormat::Store => format!("{name:<4} %r{r1}, [%r{rd}]"),
        OperandFormat::RegisterToRegister => format!("{name:<4} %r{r1}, %r{rd}"),
        OperandFormat::Compare => format!("{name:<4} %r{r1}, %r{r2}"),
        OperandFormat::Test => format!("{name:<4} %r{r1}"),
        OperandFormat::Return => format!("{name:<4} %r{rd}"),
        OperandFormat::Bare => name.to_string(),
        OperandFormat::SetInteger => {
            let mut text = format!("{name:<4} DT_INTEGER[{index}], %r{rd}");
            if let Some(value) = difo.integer_table.get(index as usize) {
                let _ = write!(text, "\t\t! 0x{value:x}");
            }
            text
        }
        OperandFormat::SetString => {
            let mut text = format!("{name:<4} DT_STRING[{index}], %r{rd}");
            if (index as usize) < difo.string_table.len() {
                let string = difo.string_at(index as u32).unwrap_or_default();
                let _ = write!(text, "\t\t! \"{}\"", String::from_utf8_lossy(string));
            }
            text
        }
        OperandFormat::LoadArray => {
            let mut text = format!("{name:<4} DT_VAR({r1}), %r{r2}, %r{rd}");
            push_variable_comment(&mut text, difo, opcode, r1 as u16);
            text
        }
        OperandFormat::LoadVariable => {
            let mut text = format!("{name:<4} DT_VAR({index}), %r{rd}");
            push_variable_comment(&mut text, difo, opcode, index);
            text
        }
        OperandFormat::StoreVariable => {
            let mut text = format!("{name:<4} %r{rd}, DT_VAR({index})");
            push_variable_comment(&mut text, difo, opcode, index);
            text
        }
        OperandFormat::Call => format!(
            "{name:<4} DIF_SUBR({index}), %r{rd}\t\t! {}",
            subroutine::name(index).unwrap_or("unknown")
        ),
        OperandFormat::PushTupleReference => {
            let mut text = format!("{name:<4} DT_TYPE({r1}), %r{r2}, %r{rd}");
            if let Some(type_name) = tuple_type_name(r1) {
                let _ = write!(text, "\t! DT_TYPE({r1}) = {type_name}");
            }
            text
        }
        OperandFormat::PushTupleValue => {
            let mut text = format!("{name:<4} DT_TYPE({r1}), %r{rd}");
            if let Some(type_name) = tuple_type_name(r1) {
                let _ = write!(text, "\t\t! DT_TYPE({r1}) = {type_name}");
            }
            text
        }
        OperandFormat::Translator => format!("{name:<4} DT_XLREF[{index}], %r{rd}"),
    }
}

/// The listing's text for a DIF type: `<kind> (<ctf kind>) [by ref |by user ref ](size N)`.
pub fn type_text(ty: &DifType) -> String {
    let kind = match ty.kind {
        DifTypeKind::Ctf => "D type",
        DifTypeKind::String => "string",
    };
    // Classic DTrace prints "by user ref" whenever the user-reference bit is set, even
    // when the plain by-reference bit is set too.
    let reference = if ty.flags & DIF_TYPE_FLAG_BY_USER_REFERENCE != 0 {
        "by user ref "
    } else if ty.flags & DIF_TYPE_FLAG_BY_REFERENCE != 0 {
        "by ref "
    } else {
        ""
    };
    format!(
        "{kind} ({}) {reference}(size {})",
        ty.ctf_kind.word(),
        ty.size
    )
}

/// The three-letter kind column of the variable table.
pub fn variable_kind_text(kind: VariableKind) -> &'static str {
    match kind {
        VariableKind::Array => "arr",
        VariableKind::Scalar => "scl",
    }
}

/// The three-letter scope column of the variable table.
pub fn variable_scope_text(scope: VariableScope) -> &'static str {
    match scope {
        VariableScope::Global => "glb",
        VariableScope::ThreadLocal => "tls",
        VariableScope::ClauseLocal => "loc",
    }
}

/// The flag column of the variable table: `r`, `w`, `r/w`, with unknown bits first as
/// `0x…` (classic DTrace's format), or empty.
pub fn variable_flags_text(flags: u8) -> String {
    let mut parts = Vec::new();
    let unknown = flags & !(DIF_VARIABLE_FLAG_READ | DIF_VARIABLE_FLAG_WRITE);
    if unknown != 0 {
        parts.push(format!("0x{unknown:x}"));
    }
    if flags & DIF_VARIABLE_FLAG_READ != 0 {
        parts.push("r".to_string());
    }
    if flags & DIF_VARIABLE_FLAG_WRITE != 0 {
        parts.push("w".to_string());
    }
    parts.join("/")
}

/// One row of the variable table (no newline).
fn variable_row_text(difo: &Difo, variable: &DifVariable) -> String {
    format!(
        "{:<16} {:<4} {:<3} {:<3} {:<4} {}",
        difo.variable_name(variable),
        variable.id,
        variable_kind_text(variable.kind),
        variable_scope_text(variable.scope),
        variable_flags_text(variable.flags),
        type_text(&variable.ty)
    )
}

/// Appends `\t\t! DT_VAR(id) = "name"` when the variable is in the DIFO's variable table
/// (same id and the scope the opcode addresses) or is a built-in of that scope.
fn push_variable_comment(text: &mut String, difo: &Difo, opcode: crate::isa::Opcode, id: u16) {
    if let Some(name) = variable_comment_name(difo, opcode, id) {
        let _ = write!(text, "\t\t! DT_VAR({id}) = \"{name}\"");
    }
}

fn variable_comment_name(difo: &Difo, opcode: crate::isa::Opcode, id: u16) -> Option<String> {
    let (scope, kind) = variable_access(opcode)?;
    let declared = difo
        .variable_table
        .iter()
        .find(|variable| variable.id == id && variable.scope == scope)
        .filter(|variable| (variable.name_offset as usize) < difo.string_table.len());
    if let Some(variable) = declared {
        return Some(difo.variable_name(variable));
    }
    if scope != VariableScope::Global {
        return None;
    }
    let builtin = match (kind, operand_format(opcode)) {
        (VariableKind::Array, OperandFormat::LoadArray) => builtin_array_name(id),
        (VariableKind::Scalar, _) => builtin_variable_name(id),
        _ => None,
    };
    builtin.map(str::to_string)
}

/// The name classic DTrace gives a tuple entry type in `pushtr`/`pushtv` comments.
fn tuple_type_name(type_code: u8) -> Option<&'static str> {
    match type_code {
        DIF_TYPE_CTF => Some("D type"),
        DIF_TYPE_STRING => Some("string"),
        _ => None,
    }
}
