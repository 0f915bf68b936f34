//! The DIF assembler: turns a classic `-S` listing (§15.6) back into DIFOs, and accepts a
//! hand-written form of the same text for tests.
//!
//! # Listing form
//!
//! Exactly what [`crate::text::disassemble_difo`] prints. The instruction is rebuilt from
//! its mnemonic text; the raw word column is a cross-check (a mismatch in any field the
//! text shows is an error) and supplies the reserved bits, which the text does not show,
//! so that a DIFO with non-zero reserved bits survives the round trip. `(illegal opcode)`
//! lines take their word from the raw column. The integer table is rebuilt from the
//! `setx … ! 0x…` comments, the string table from the `sets … ! "…"` comments and the
//! variable names, the variable table from its rows, the return type from the header.
//!
//! `assemble(disassemble(d)) == d` holds for every DIFO whose tables hold nothing the
//! listing does not show: every integer-table entry is loaded by some `setx`, every byte
//! of the string table belongs to a string that a `sets` loads from its start or that
//! names a variable (strings are deduplicated, and variable names either follow the
//! strings or fill the holes between them in variable-table order), strings are UTF-8,
//! and return and variable types use at most one of the two by-reference flags.
//!
//! # Hand-written form
//!
//! The same lines without the `OFF` and raw-word columns, plus:
//! * `! comment` lines and trailing comments (a trailing `! 0x…` after a
//!   `setx DT_INTEGER[n]` and `! "…"` after a `sets DT_STRING[n]` define the table entry,
//!   exactly as in the listing; other comments are ignored);
//! * immediate operands: `setx 42, %r1`, `setx -1, %r1`, `sets "a\tb", %r1` (C escapes)
//!   add the value to the table (reusing an equal entry);
//! * names: `ldgs pid, %r1`, `ldga args, %r2, %r1`, `stgs %r1, x` (a built-in, or a row
//!   of the variable table with the scope and kind the opcode addresses),
//!   `call strlen, %r1`, and labels: a line `done:` and `ba done`;
//! * directives: `.returns D type (integer) (size 4)` (the default return type is
//!   `D type (integer) (size 8)`) and `.word 0x…` for a raw instruction word;
//! * the variable table: the `NAME ID KND SCP FLAG TYPE` header line, then one row per
//!   variable, after the code.

use std::collections::{BTreeMap, HashMap};

use crate::difo::{DifType, DifVariable, Difo, VariableKind, VariableScope};
use crate::isa::{subroutine, Instruction, Opcode};
use crate::text::disassemble::ILLEGAL_OPCODE_TEXT;
use crate::text::format::{operand_format, variable_access, OperandFormat};
use crate::text::names::{builtin_array_id, builtin_variable_id};
use crate::text::operands::{
    is_identifier, parse_operand, parse_type_text, parse_unsigned, parse_variable_row,
    split_comment, split_operands, Operand, VariableRow,
};
use crate::text::string_table::StringTableBuilder;

/// An assembly error: the 1-based line it was found on and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembleError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for AssembleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for AssembleError {}

/// One DIFO of a listing, with the label of its `DIFO 0x… returns …` header (`None` for
/// hand-written text without a header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembledDifo {
    pub label: Option<u64>,
    pub difo: Difo,
}

/// Assembles text holding exactly one DIFO (listing or hand-written form).
pub fn assemble(text: &str) -> Result<Difo, AssembleError> {
    let mut difos = assemble_with_first_lines(text)?;
    match difos.len() {
        0 => Err(AssembleError {
            line: 1,
            message: "no DIFO in the text".to_string(),
        }),
        1 => Ok(difos.remove(0).1.difo),
        count => Err(AssembleError {
            line: difos[1].0,
            message: format!("expected one DIFO, found {count}"),
        }),
    }
}

/// Assembles text holding any number of DIFOs, each starting at a `DIFO 0x… returns …`
/// header (as in a whole `-S` listing); lines before the first header form a DIFO of
/// their own if there are any.
pub fn assemble_all(text: &str) -> Result<Vec<AssembledDifo>, AssembleError> {
    Ok(assemble_with_first_lines(text)?
        .into_iter()
        .map(|(_, difo)| difo)
        .collect())
}

/// [`assemble_all`], with the line each DIFO starts on.
fn assemble_with_first_lines(text: &str) -> Result<Vec<(usize, AssembledDifo)>, AssembleError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut difos = Vec::new();
    let mut current: Option<DifoBuilder> = None;
    let mut next = 0;
    while next < lines.len() {
        let number = next + 1;
        let line = lines[next];
        next += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('!') {
            continue;
        }
        if let Some(header) = trimmed.strip_prefix("DIFO ") {
            if let Some(builder) = current.take() {
                difos.push((builder.first_line, builder.finish()?));
            }
            let (label, return_type) =
                parse_difo_header(header).map_err(|message| AssembleError {
                    line: number,
                    message,
                })?;
            let mut builder = DifoBuilder::new(number);
            builder.label = Some(label);
            builder.return_type = Some(return_type);
            current = Some(builder);
            continue;
        }
        let builder = current.get_or_insert_with(|| DifoBuilder::new(number));
        let error = |message: String| AssembleError {
            line: number,
            message,
        };
        if builder.in_variable_table {
            let row = parse_variable_row(line).map_err(error)?;
            builder.variables.push((row, number));
        } else if is_column_header(trimmed) {
            continue;
        } else if is_variable_table_header(trimmed) {
            builder.in_variable_table = true;
        } else if let Some(directive) = trimmed.strip_prefix('.') {
            builder.directive(directive, number).map_err(error)?;
        } else if let Some(label) = trimmed.strip_suffix(':').filter(|name| is_identifier(name)) {
            let target = builder.instructions.len() as u32;
            if builder.labels.insert(label.to_string(), target).is_some() {
                return Err(error(format!("label `{label}` defined twice")));
            }
        } else {
            next = builder.instruction_line(&lines, number, next)?;
        }
    }
    if let Some(builder) = current.take() {
        difos.push((builder.first_line, builder.finish()?));
    }
    Ok(difos)
}

fn is_column_header(trimmed: &str) -> bool {
    trimmed
        .split_whitespace()
        .eq(["OFF", "OPCODE", "INSTRUCTION"])
}

fn is_variable_table_header(trimmed: &str) -> bool {
    trimmed
        .split_whitespace()
        .eq(["NAME", "ID", "KND", "SCP", "FLAG", "TYPE"])
}

/// Parses `0x<label> returns <type>` (the header after `DIFO `).
fn parse_difo_header(header: &str) -> Result<(u64, DifType), String> {
    let (label, type_text) = header
        .split_once(" returns ")
        .ok_or_else(|| format!("invalid DIFO header `DIFO {header}`"))?;
    let label = label
        .trim()
        .strip_prefix("0x")
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        .ok_or_else(|| format!("invalid DIFO label `{}`", label.trim()))?;
    Ok((label, parse_type_text(type_text)?))
}

/// Splits the `OFF: RAWWORD    ` prefix off a listing line. Returns `None` for a
/// hand-written line (one that does not start with a digit).
fn split_listing_prefix(line: &str) -> Result<Option<(u64, u32, &str)>, String> {
    if !line.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(None);
    }
    let bad = || format!("invalid listing line `{}`", line.trim_end());
    let (offset, rest) = line.split_once(':').ok_or_else(bad)?;
    let offset = offset
        .chars()
        .all(|c| c.is_ascii_digit())
        .then(|| offset.parse::<u64>().ok())
        .flatten()
        .ok_or_else(bad)?;
    let rest = rest.trim_start();
    let raw_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (raw, text) = rest.split_at(raw_end);
    if raw.len() != 8 || !raw.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let raw = u32::from_str_radix(raw, 16).map_err(|_| bad())?;
    Ok(Some((offset, raw, text.trim_start())))
}

/// True for lines that can follow a complete `sets` comment in a listing: blank lines,
/// instruction lines, DIFO headers and the variable-table header. A `sets` string that
/// contains a newline continues on lines that are not of this kind.
fn is_structural_line(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty()
        || trimmed.starts_with("DIFO ")
        || is_variable_table_header(trimmed)
        || matches!(split_listing_prefix(line), Ok(Some(_)))
}

/// A reference the assembler resolves once the whole DIFO has been read.
#[derive(Debug, Clone)]
enum Fixup {
    /// A branch to a named label.
    Label(String),
    /// An immediate integer: its integer-table index goes in bits 23–8.
    Integer(u64),
    /// An immediate string: its string-table offset goes in bits 23–8.
    String(Vec<u8>),
    /// A named variable of a scalar or associative load or store (bits 23–8).
    Variable {
        name: String,
        scope: VariableScope,
        kind: VariableKind,
    },
    /// A named array of `ldga`/`ldta` (bits 23–16).
    Array { name: String, scope: VariableScope },
}

/// One instruction as read, before fixups and the raw-word cross-check.
#[derive(Debug, Clone)]
struct PendingInstruction {
    line: usize,
    /// The fields the text shows (the whole word for `.word` and illegal opcodes).
    word: u32,
    fixup: Option<Fixup>,
    /// The raw word column of a listing line, and the bits the text shows.
    raw: Option<(u32, u32)>,
}

/// Everything read for one DIFO so far.
struct DifoBuilder {
    first_line: usize,
    label: Option<u64>,
    return_type: Option<DifType>,
    instructions: Vec<PendingInstruction>,
    labels: HashMap<String, u32>,
    /// Integer-table entries stated by `setx` comments: index → (value, line).
    integers: BTreeMap<u16, (u64, usize)>,
    /// Strings stated by `sets` comments: (offset, bytes, line).
    strings: Vec<(u32, Vec<u8>, usize)>,
    variables: Vec<(VariableRow, usize)>,
    in_variable_table: bool,
}

impl DifoBuilder {
    fn new(first_line: usize) -> DifoBuilder {
        DifoBuilder {
            first_line,
            label: None,
            return_type: None,
            instructions: Vec::new(),
            labels: HashMap::new(),
            integers: BTreeMap::new(),
            strings: Vec::new(),
            variables: Vec::new(),
            in_variable_table: false,
        }
    }

    fn directive(&mut self, directive: &str, line: usize) -> Result<(), String> {
        let (name, argument) = directive
            .split_once(char::is_whitespace)
            .unwrap_or((directive, ""));
        match name {
            "returns" => {
                self.return_type = Some(parse_type_text(argument)?);
                Ok(())
            }
            "word" => {
                let word = parse_unsigned(argument.trim())
                    .and_then(|word| u32::try_from(word).ok())
                    .ok_or_else(|| format!("invalid instruction word `{}`", argument.trim()))?;
                // A raw word needs no fixup or cross-check.
                self.instructions.push(PendingInstruction {
                    line,
                    word,
                    fixup: None,
                    raw: None,
                });
                Ok(())
            }
            _ => Err(format!("unknown directive `.{name}`")),
        }
    }

    /// Reads the instruction on line `number` (plus the continuation lines of a
    /// multi-line `sets` string) and returns the index of the next unread line.
    fn instruction_line(
        &mut self,
        lines: &[&str],
        number: usize,
        mut next: usize,
    ) -> Result<usize, AssembleError> {
        let error = |message: String| AssembleError {
            line: number,
            message,
        };
        let line = lines[number - 1];
        let (prefix, body) = match split_listing_prefix(line).map_err(error)? {
            Some((offset, raw, body)) => (Some((offset, raw)), body),
            None => (None, line.trim()),
        };
        if let Some((offset, _)) = prefix {
            if offset != self.instructions.len() as u64 {
                return Err(error(format!(
                    "offset {offset:02} does not follow the {} instructions before it",
                    self.instructions.len()
                )));
            }
        }
        let (code, comment) = split_comment(body);
        let code = code.trim();
        if code == ILLEGAL_OPCODE_TEXT {
            let Some((_, raw)) = prefix else {
                return Err(error(
                    "an illegal opcode needs the raw word column (or use `.word`)".to_string(),
                ));
            };
            if Opcode::from_u8((raw >> 24) as u8).is_some() {
                return Err(error(format!("raw word {raw:08x} has a valid opcode")));
            }
            self.instructions.push(PendingInstruction {
                line: number,
                word: raw,
                fixup: None,
                raw: None,
            });
            return Ok(next);
        }
        let (mnemonic, operands) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
        let opcode = Opcode::from_mnemonic(mnemonic)
            .ok_or_else(|| error(format!("unknown mnemonic `{mnemonic}`")))?;
        let mut comment = comment.map(str::to_string);
        if opcode == Opcode::Sets && prefix.is_some() {
            if let Some(text) = comment
                .as_mut()
                .filter(|text| text.trim_start().starts_with('"'))
            {
                // A listing prints the string raw, so a string holding a newline carries
                // on over the following lines until it closes before a structural line.
                loop {
                    let closed = text.trim_start().len() >= 2 && text.ends_with('"');
                    if closed && lines.get(next).is_none_or(|line| is_structural_line(line)) {
                        break;
                    }
                    let Some(continuation) = lines.get(next) else {
                        return Err(error("unterminated string in `sets` comment".to_string()));
                    };
                    text.push('\n');
                    text.push_str(continuation);
                    next += 1;
                }
            }
        }
        let operands = split_operands(operands)
            .into_iter()
            .map(parse_operand)
            .collect::<Result<Vec<_>, _>>()
            .map_err(error)?;
        let (word, fixup) = self
            .encode(opcode, &operands, comment.as_deref(), number)
            .map_err(error)?;
        let used_bits = operand_format(opcode).used_bits();
        self.instructions.push(PendingInstruction {
            line: number,
            word,
            fixup,
            raw: prefix.map(|(_, raw)| (raw, used_bits)),
        });
        Ok(next)
    }

    /// Encodes the fields an instruction's text shows; records table entries stated by
    /// `setx`/`sets` comments.
    fn encode(
        &mut self,
        opcode: Opcode,
        operands: &[Operand],
        comment: Option<&str>,
        line: usize,
    ) -> Result<(u32, Option<Fixup>), String> {
        let format = operand_format(opcode);
        let expected = match format {
            OperandFormat::Bare => 0,
            OperandFormat::Branch | OperandFormat::Test | OperandFormat::Return => 1,
            OperandFormat::ThreeRegisters
            | OperandFormat::LoadArray
            | OperandFormat::PushTupleReference => 3,
            _ => 2,
        };
        if operands.len() != expected {
            return Err(format!(
                "`{}` takes {expected} operand{}, found {}",
                opcode.mnemonic(),
                if expected == 1 { "" } else { "s" },
                operands.len()
            ));
        }
        let op = (opcode as u32) << 24;
        let r1 = |value: u32| value << 16;
        let r2 = |value: u32| value << 8;
        let index = |value: u32| value << 8;
        let mut fixup = None;
        let word = match format {
            OperandFormat::ThreeRegisters => {
                op | r1(register(&operands[0])?)
                    | r2(register(&operands[1])?)
                    | register(&operands[2])?
            }
            OperandFormat::Branch => match &operands[0] {
                Operand::Number(target) => {
                    op | number_field(*target, 0x00ff_ffff, "branch target")?
                }
                Operand::Name(name) => {
                    fixup = Some(Fixup::Label(name.clone()));
                    op
                }
                other => return Err(unexpected(other, "a branch target")),
            },
            OperandFormat::Load => op | r1(address(&operands[0])?) | register(&operands[1])?,
            OperandFormat::Store => op | r1(register(&operands[0])?) | address(&operands[1])?,
            OperandFormat::RegisterToRegister => {
                op | r1(register(&operands[0])?) | register(&operands[1])?
            }
            OperandFormat::Compare => {
                op | r1(register(&operands[0])?) | r2(register(&operands[1])?)
            }
            OperandFormat::Test => op | r1(register(&operands[0])?),
            OperandFormat::Return => op | register(&operands[0])?,
            OperandFormat::Bare => op,
            OperandFormat::SetInteger => {
                let target = register(&operands[1])?;
                match &operands[0] {
                    Operand::IntegerReference(reference) => {
                        let position = bounded(*reference, 0xffff, "integer table index")?;
                        if let Some(value) = comment.and_then(parse_integer_comment) {
                            self.state_integer(position as u16, value, line)?;
                        }
                        op | index(position) | target
                    }
                    Operand::Number(value) => {
                        let value = immediate_integer(*value)?;
                        fixup = Some(Fixup::Integer(value));
                        op | target
                    }
                    other => return Err(unexpected(other, "DT_INTEGER[n] or an integer")),
                }
            }
            OperandFormat::SetString => {
                let target = register(&operands[1])?;
                match &operands[0] {
                    Operand::StringReference(reference) => {
                        let offset = bounded(*reference, 0xffff, "string table offset")?;
                        if let Some(string) = comment.and_then(parse_string_comment) {
                            self.strings.push((offset, string, line));
                        }
                        op | index(offset) | target
                    }
                    Operand::Text(string) => {
                        fixup = Some(Fixup::String(string.clone()));
                        op | target
                    }
                    other => return Err(unexpected(other, "DT_STRING[n] or a string")),
                }
            }
            OperandFormat::LoadArray => {
                let array = match &operands[0] {
                    Operand::Variable(id) => bounded(*id, 0xff, "array id")?,
                    Operand::Name(name) => {
                        let (scope, _) = variable_access(opcode)
                            .unwrap_or((VariableScope::Global, VariableKind::Array));
                        fixup = Some(Fixup::Array {
                            name: name.clone(),
                            scope,
                        });
                        0
                    }
                    other => return Err(unexpected(other, "DT_VAR(n) or an array name")),
                };
                op | r1(array) | r2(register(&operands[1])?) | register(&operands[2])?
            }
            OperandFormat::LoadVariable | OperandFormat::StoreVariable => {
                let (variable, value) = if format == OperandFormat::LoadVariable {
                    (&operands[0], register(&operands[1])?)
                } else {
                    (&operands[1], register(&operands[0])?)
                };
                let id = match variable {
                    Operand::Variable(id) => bounded(*id, 0xffff, "variable id")?,
                    Operand::Name(name) => {
                        let (scope, kind) = variable_access(opcode)
                            .unwrap_or((VariableScope::Global, VariableKind::Scalar));
                        fixup = Some(Fixup::Variable {
                            name: name.clone(),
                            scope,
                            kind,
                        });
                        0
                    }
                    other => return Err(unexpected(other, "DT_VAR(n) or a variable name")),
                };
                op | index(id) | value
            }
            OperandFormat::Call => {
                let number = match &operands[0] {
                    Operand::Subroutine(number) => bounded(*number, 0xffff, "subroutine")?,
                    Operand::Number(number) => number_field(*number, 0xffff, "subroutine")?,
                    Operand::Name(name) => subroutine::NAMES
                        .iter()
                        .position(|candidate| candidate == name)
                        .map(|position| position as u32)
                        .ok_or_else(|| format!("unknown subroutine `{name}`"))?,
                    other => return Err(unexpected(other, "DIF_SUBR(n) or a subroutine name")),
                };
                op | index(number) | register(&operands[1])?
            }
            OperandFormat::PushTupleReference | OperandFormat::PushTupleValue => {
                let tuple_type = match &operands[0] {
                    Operand::TupleType(code) => bounded(*code, 0xff, "tuple type")?,
                    Operand::Number(code) => number_field(*code, 0xff, "tuple type")?,
                    other => return Err(unexpected(other, "DT_TYPE(n)")),
                };
                if format == OperandFormat::PushTupleReference {
                    op | r1(tuple_type) | r2(register(&operands[1])?) | register(&operands[2])?
                } else {
                    op | r1(tuple_type) | register(&operands[1])?
                }
            }
            OperandFormat::Translator => match &operands[0] {
                Operand::TranslatorReference(reference) => {
                    op | index(bounded(*reference, 0xffff, "translator reference")?)
                        | register(&operands[1])?
                }
                other => return Err(unexpected(other, "DT_XLREF[n]")),
            },
        };
        Ok((word, fixup))
    }

    fn state_integer(&mut self, position: u16, value: u64, line: usize) -> Result<(), String> {
        match self.integers.get(&position) {
            Some(&(existing, existing_line)) if existing != value => Err(format!(
                "DT_INTEGER[{position}] is 0x{existing:x} on line {existing_line} but 0x{value:x} here"
            )),
            Some(_) => Ok(()),
            None => {
                self.integers.insert(position, (value, line));
                Ok(())
            }
        }
    }

    /// Builds the tables, resolves fixups, cross-checks raw words and returns the DIFO.
    fn finish(self) -> Result<AssembledDifo, AssembleError> {
        let mut integer_table = Vec::new();
        if let Some((&last, _)) = self.integers.last_key_value() {
            integer_table = vec![0u64; last as usize + 1];
            for (&position, &(value, _)) in &self.integers {
                integer_table[position as usize] = value;
            }
        }

        let mut strings = StringTableBuilder::default();
        for (offset, bytes, line) in &self.strings {
            strings
                .place(*offset, bytes)
                .map_err(|message| AssembleError {
                    line: *line,
                    message,
                })?;
        }

        let mut code = Vec::with_capacity(self.instructions.len());
        let mut deferred_variables = Vec::new();
        for instruction in &self.instructions {
            let line = instruction.line;
            let error = |message: String| AssembleError { line, message };
            let mut word = instruction.word;
            match &instruction.fixup {
                None => {}
                Some(Fixup::Label(name)) => {
                    let target = self
                        .labels
                        .get(name)
                        .ok_or_else(|| error(format!("undefined label `{name}`")))?;
                    word |= target & 0x00ff_ffff;
                }
                Some(Fixup::Integer(value)) => {
                    let position = match integer_table.iter().position(|entry| entry == value) {
                        Some(position) => position,
                        None => {
                            integer_table.push(*value);
                            integer_table.len() - 1
                        }
                    };
                    word |= u32::try_from(position)
                        .ok()
                        .filter(|position| *position <= 0xffff)
                        .ok_or_else(|| error("integer table is full".to_string()))?
                        << 8;
                }
                Some(Fixup::String(bytes)) => {
                    let offset = strings.locate(bytes);
                    if offset > 0xffff {
                        return Err(error("string table offset exceeds 0xffff".to_string()));
                    }
                    word |= offset << 8;
                }
                Some(Fixup::Variable { .. }) | Some(Fixup::Array { .. }) => {
                    // Resolved after the variable table is built, below.
                    deferred_variables.push(code.len());
                }
            }
            code.push(word);
        }

        let mut variable_table = Vec::with_capacity(self.variables.len());
        for (row, _) in &self.variables {
            let name_offset = strings.locate(row.name.as_bytes());
            variable_table.push(DifVariable {
                name_offset,
                id: row.id,
                kind: row.kind,
                scope: row.scope,
                flags: row.flags,
                ty: row.ty,
            });
        }

        for position in deferred_variables {
            let instruction = &self.instructions[position];
            let line = instruction.line;
            let error = |message: String| AssembleError { line, message };
            match &instruction.fixup {
                Some(Fixup::Variable { name, scope, kind }) => {
                    let id = self
                        .variables
                        .iter()
                        .find(|(row, _)| {
                            row.name == *name && row.scope == *scope && row.kind == *kind
                        })
                        .map(|(row, _)| row.id)
                        .or_else(|| {
                            (*scope == VariableScope::Global && *kind == VariableKind::Scalar)
                                .then(|| builtin_variable_id(name))
                                .flatten()
                        })
                        .ok_or_else(|| error(format!("unknown variable `{name}`")))?;
                    code[position] |= (id as u32) << 8;
                }
                Some(Fixup::Array { name, scope }) => {
                    let id = self
                        .variables
                        .iter()
                        .find(|(row, _)| {
                            row.name == *name
                                && row.scope == *scope
                                && row.kind == VariableKind::Array
                        })
                        .map(|(row, _)| row.id)
                        .or_else(|| {
                            (*scope == VariableScope::Global)
                                .then(|| builtin_array_id(name))
                                .flatten()
                        })
                        .ok_or_else(|| error(format!("unknown array `{name}`")))?;
                    let id = u8::try_from(id)
                        .map_err(|_| error(format!("array `{name}` has id {id}, above 255")))?;
                    code[position] |= (id as u32) << 16;
                }
                _ => {}
            }
        }

        for (position, instruction) in self.instructions.iter().enumerate() {
            if let Some((raw, used_bits)) = instruction.raw {
                if raw & used_bits != code[position] {
                    return Err(AssembleError {
                        line: instruction.line,
                        message: format!(
                            "raw word {raw:08x} does not match the instruction text ({:08x})",
                            code[position]
                        ),
                    });
                }
                // The raw word carries the reserved bits the text cannot show.
                code[position] = raw;
            }
        }

        Ok(AssembledDifo {
            label: self.label,
            difo: Difo {
                code: code.into_iter().map(Instruction).collect(),
                integer_table,
                string_table: strings.into_bytes(),
                variable_table,
                return_type: self.return_type.unwrap_or_else(|| DifType::integer(8)),
                kernel_relocations: Vec::new(),
            },
        })
    }
}

fn register(operand: &Operand) -> Result<u32, String> {
    match operand {
        Operand::Register(number) => bounded(*number, 0xff, "register"),
        other => Err(unexpected(other, "a register")),
    }
}

fn address(operand: &Operand) -> Result<u32, String> {
    match operand {
        Operand::Address(number) => bounded(*number, 0xff, "register"),
        other => Err(unexpected(other, "an address operand [%rN]")),
    }
}

fn bounded(value: u64, maximum: u32, what: &str) -> Result<u32, String> {
    u32::try_from(value)
        .ok()
        .filter(|value| *value <= maximum)
        .ok_or_else(|| format!("{what} {value} is above {maximum}"))
}

fn number_field(value: i128, maximum: u32, what: &str) -> Result<u32, String> {
    u64::try_from(value)
        .map_err(|_| format!("{what} {value} is negative"))
        .and_then(|value| bounded(value, maximum, what))
}

/// An immediate `setx` value: any 64-bit pattern, written signed or unsigned.
fn immediate_integer(value: i128) -> Result<u64, String> {
    if value < i64::MIN as i128 || value > u64::MAX as i128 {
        return Err(format!("integer {value} does not fit in 64 bits"));
    }
    Ok(value as u64)
}

fn unexpected(operand: &Operand, wanted: &str) -> String {
    format!("expected {wanted}, found {}", operand.description())
}

/// The value a `setx` comment states: `0x…` and nothing else.
fn parse_integer_comment(comment: &str) -> Option<u64> {
    let comment = comment.trim();
    comment.strip_prefix("0x")?;
    parse_unsigned(comment)
}

/// The string a `sets` comment states: everything between the first and the last `"`,
/// raw (the listing prints strings without escapes).
fn parse_string_comment(comment: &str) -> Option<Vec<u8>> {
    let comment = comment.trim();
    let inner = comment.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.as_bytes().to_vec())
}
