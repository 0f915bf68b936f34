//! The DIF verifier (§15.7): the only way to obtain a [`VerifiedDifo`] or a
//! [`VerifiedProgram`], and so the only gate in front of the engines.
//!
//! It applies classic DTrace's `dtrace_difo_validate` rules (opcodes, reserved bits,
//! registers, writes to `%r0`, branch targets, table references, variable ids, tuple
//! types, the final `ret`, the return size, the variable table), tightened where our
//! engines need it: every variable an instruction names must be a built-in or appear in
//! the DIFO's variable table with the scope and kind the instruction addresses, and
//! `xlate`/`xlarg` are rejected because translators are resolved before loading. Every
//! error is reported, not just the first, with the DIF offset and the disassembled
//! instruction.
//!
//! For a whole [`CompiledProgram`] it also checks what the engines and the consumer rely
//! on outside the DIFOs: record slots, record sizes and aggregation references, and that
//! every DIFO declares a user variable with the same kind, type flags and size.

use std::collections::HashMap;
use std::fmt;

use crate::difo::{
    DifVariable, Difo, VariableKind, VariableScope, DIF_TYPE_FLAG_BY_REFERENCE,
    DIF_TYPE_FLAG_BY_USER_REFERENCE,
};
use crate::engine::difo_is_destructive;
use crate::isa::{
    builtin_variable, subroutine, Instruction, Opcode, DIF_REGISTER_COUNT, DIF_TYPE_CTF,
    DIF_TYPE_STRING,
};
use crate::object::{ActionKind, CompiledProgram, RecordSlot, Statement};
use crate::text::format::{operand_format, variable_access, OperandFormat};
use crate::text::instruction_text;
use crate::text::names::{builtin_array_name, builtin_variable_name};

/// The largest by-reference global or clause-local variable (classic
/// `dtrace_statvar_maxsize`, 16 KiB).
pub const STATIC_VARIABLE_MAX_SIZE: u32 = 16 * 1024;

/// One reason a DIFO or a program was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError {
    /// Where in the program, for errors found by [`verify_program`]: the statement, and
    /// the predicate or action value (`None` for a DIFO verified on its own).
    pub location: Option<String>,
    /// The DIF offset of the offending instruction, if the error is about one.
    pub offset: Option<u32>,
    /// The offending instruction, disassembled.
    pub instruction: Option<String>,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(location) = &self.location {
            write!(f, "{location}: ")?;
        }
        if let Some(offset) = self.offset {
            write!(f, "DIF offset {offset}: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(instruction) = &self.instruction {
            write!(f, " ({instruction})")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyError {}

impl VerifyError {
    fn about_difo(message: String) -> VerifyError {
        VerifyError {
            location: None,
            offset: None,
            instruction: None,
            message,
        }
    }

    fn at(location: &str, message: String) -> VerifyError {
        VerifyError {
            location: Some(location.to_string()),
            offset: None,
            instruction: None,
            message,
        }
    }
}

/// A DIFO that passed [`verify`]. It can be built in no other way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedDifo {
    difo: Difo,
}

impl VerifiedDifo {
    pub fn difo(&self) -> &Difo {
        &self.difo
    }

    pub fn into_difo(self) -> Difo {
        self.difo
    }

    /// True when the DIFO calls `copyout` or `copyoutstr`, which classic DTrace only
    /// allows with destructive actions enabled.
    pub fn is_destructive(&self) -> bool {
        difo_is_destructive(&self.difo)
    }
}

/// A program whose every DIFO, record layout and aggregation reference passed
/// [`verify_program`]. It can be built in no other way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedProgram {
    program: CompiledProgram,
}

impl VerifiedProgram {
    pub fn program(&self) -> &CompiledProgram {
        &self.program
    }

    pub fn into_program(self) -> CompiledProgram {
        self.program
    }
}

/// Verifies one DIFO; on failure returns every error found.
pub fn verify(difo: &Difo) -> Result<VerifiedDifo, Vec<VerifyError>> {
    let errors = check_difo(difo);
    if errors.is_empty() {
        Ok(VerifiedDifo { difo: difo.clone() })
    } else {
        Err(errors)
    }
}

/// Runs every DIFO check; returns the errors.
fn check_difo(difo: &Difo) -> Vec<VerifyError> {
    let mut errors = Vec::new();
    if difo.code.is_empty() {
        errors.push(VerifyError::about_difo(
            "DIFO has no instructions".to_string(),
        ));
    }
    for (offset, instruction) in difo.code.iter().enumerate() {
        let offset = offset as u32;
        let mut messages = Vec::new();
        check_instruction(difo, offset, *instruction, &mut messages);
        if !messages.is_empty() {
            let text = instruction_text(difo, *instruction);
            errors.extend(messages.into_iter().map(|message| VerifyError {
                location: None,
                offset: Some(offset),
                instruction: Some(text.clone()),
                message,
            }));
        }
    }
    if let Some(last) = difo.code.last() {
        if last.opcode() != Some(Opcode::Ret) {
            errors.push(VerifyError {
                location: None,
                offset: Some(difo.code.len() as u32 - 1),
                instruction: Some(instruction_text(difo, *last)),
                message: "expected 'ret' as last DIF instruction".to_string(),
            });
        }
    }
    for relocation in &difo.kernel_relocations {
        if usize::from(relocation.integer_index) >= difo.integer_table.len() {
            errors.push(VerifyError::about_difo(format!(
                "invalid kernel relocation of integer ref {}",
                relocation.integer_index
            )));
        }
    }
    let return_type = &difo.return_type;
    let by_reference =
        return_type.flags & (DIF_TYPE_FLAG_BY_REFERENCE | DIF_TYPE_FLAG_BY_USER_REFERENCE) != 0;
    if !by_reference && !matches!(return_type.size, 0 | 1 | 2 | 4 | 8) {
        errors.push(VerifyError::about_difo("bad return size".to_string()));
    }
    if difo.string_table.last().is_some_and(|&byte| byte != 0) {
        errors.push(VerifyError::about_difo(
            "string table is not NUL-terminated".to_string(),
        ));
    }
    check_variable_table(difo, &mut errors);
    errors
}

/// Checks one instruction, appending one message per problem.
fn check_instruction(
    difo: &Difo,
    offset: u32,
    instruction: Instruction,
    messages: &mut Vec<String>,
) {
    let Some(opcode) = instruction.opcode() else {
        messages.push(format!("invalid opcode {}", instruction.opcode_byte()));
        return;
    };
    let format = operand_format(opcode);
    if format == OperandFormat::Translator {
        // Translator references are resolved by the compiler; none may reach an engine.
        messages.push(format!("invalid opcode {}", instruction.opcode_byte()));
        return;
    }
    if instruction.0 & !format.used_bits() != 0 {
        messages.push("non-zero reserved bits".to_string());
    }
    let (r1, r2, rd) = (instruction.r1(), instruction.r2(), instruction.rd());
    let index = instruction.index();
    let registers = |numbers: &[u8], messages: &mut Vec<String>| {
        for &number in numbers {
            if number >= DIF_REGISTER_COUNT {
                messages.push(format!("invalid register {number}"));
            }
        }
    };
    let writes = |messages: &mut Vec<String>| {
        if rd == 0 {
            messages.push("cannot write to %r0".to_string());
        }
    };
    match format {
        OperandFormat::ThreeRegisters => {
            registers(&[r1, r2, rd], messages);
            writes(messages);
        }
        OperandFormat::Branch => {
            let label = instruction.label();
            if label as usize >= difo.code.len() {
                messages.push(format!("invalid branch target {label}"));
            }
            if label <= offset {
                messages.push(format!("backward branch to {label}"));
            }
        }
        OperandFormat::Load | OperandFormat::RegisterToRegister => {
            registers(&[r1, rd], messages);
            writes(messages);
        }
        OperandFormat::Store => {
            registers(&[r1, rd], messages);
            if rd == 0 {
                messages.push("cannot write to 0 address".to_string());
            }
        }
        OperandFormat::Compare => registers(&[r1, r2], messages),
        OperandFormat::Test => registers(&[r1], messages),
        OperandFormat::Return => registers(&[rd], messages),
        OperandFormat::Bare | OperandFormat::Translator => {}
        OperandFormat::SetInteger => {
            if index as usize >= difo.integer_table.len() {
                messages.push(format!("invalid integer ref {index}"));
            }
            registers(&[rd], messages);
            writes(messages);
        }
        OperandFormat::SetString => {
            if index as usize >= difo.string_table.len() {
                messages.push(format!("invalid string ref {index}"));
            }
            registers(&[rd], messages);
            writes(messages);
        }
        OperandFormat::LoadArray => {
            if !array_is_known(difo, opcode, r1) {
                messages.push(format!("invalid array {r1}"));
            }
            registers(&[r2, rd], messages);
            writes(messages);
        }
        OperandFormat::LoadVariable => {
            if !variable_is_known(difo, opcode, index, false) {
                messages.push(format!("invalid variable {index}"));
            }
            registers(&[rd], messages);
            writes(messages);
        }
        OperandFormat::StoreVariable => {
            if !variable_is_known(difo, opcode, index, true) {
                messages.push(format!("invalid variable {index}"));
            }
            registers(&[rd], messages);
        }
        OperandFormat::Call => {
            if index > subroutine::MAX {
                messages.push(format!("invalid subr {index}"));
            }
            registers(&[rd], messages);
            writes(messages);
        }
        OperandFormat::PushTupleReference => {
            if r1 != DIF_TYPE_CTF && r1 != DIF_TYPE_STRING {
                messages.push(format!("invalid ref type {r1}"));
            }
            registers(&[r2, rd], messages);
        }
        OperandFormat::PushTupleValue => {
            if r1 != DIF_TYPE_CTF {
                messages.push(format!("invalid val type {r1}"));
            }
            registers(&[rd], messages);
        }
    }
}

/// True when `ldga`/`ldta` names an array that exists: a built-in (`args`, `regs`,
/// `uregs`, global only) or an array of the DIFO's variable table with that scope.
fn array_is_known(difo: &Difo, opcode: Opcode, id: u8) -> bool {
    let Some((scope, kind)) = variable_access(opcode) else {
        return false;
    };
    let id = id as u16;
    let builtin = scope == VariableScope::Global && builtin_array_name(id).is_some();
    builtin || is_declared(difo, id, scope, kind)
}

/// True when a scalar or associative load or store names a variable that exists.
///
/// Loads may name ids 0x100–0xffff, stores only user ids (0x500 and up). Beyond the id
/// range, the variable must be a built-in scalar (for global scalar loads) or appear in
/// the variable table with the scope and kind the opcode addresses.
fn variable_is_known(difo: &Difo, opcode: Opcode, id: u16, store: bool) -> bool {
    let Some((scope, kind)) = variable_access(opcode) else {
        return false;
    };
    let lowest = if store {
        builtin_variable::FIRST_USER
    } else {
        builtin_variable::CURTHREAD
    };
    if id < lowest {
        return false;
    }
    let builtin = !store
        && scope == VariableScope::Global
        && kind == VariableKind::Scalar
        && builtin_variable_name(id).is_some();
    builtin || is_declared(difo, id, scope, kind)
}

fn is_declared(difo: &Difo, id: u16, scope: VariableScope, kind: VariableKind) -> bool {
    difo.variable_table
        .iter()
        .any(|variable| variable.id == id && variable.scope == scope && variable.kind == kind)
}

/// `"name" (DT_VAR(id))`, for messages about variable-table entries.
fn variable_description(difo: &Difo, variable: &DifVariable) -> String {
    format!(
        "\"{}\" (DT_VAR({}))",
        difo.variable_name(variable),
        variable.id
    )
}

/// The variable-table checks: name offsets, by-reference sizes of user variables, and
/// entries that declare one variable twice with different kind, flags or size.
fn check_variable_table(difo: &Difo, errors: &mut Vec<VerifyError>) {
    for (position, variable) in difo.variable_table.iter().enumerate() {
        let description = variable_description(difo, variable);
        if variable.name_offset as usize >= difo.string_table.len() {
            errors.push(VerifyError::about_difo(format!(
                "invalid variable name offset {} of variable table entry {position}",
                variable.name_offset
            )));
        }
        if variable.id < builtin_variable::FIRST_USER {
            continue;
        }
        if variable.ty.flags & DIF_TYPE_FLAG_BY_REFERENCE != 0 {
            if variable.ty.size == 0 {
                errors.push(VerifyError::about_difo(format!(
                    "zero-sized variable {description}"
                )));
            } else if matches!(
                variable.scope,
                VariableScope::Global | VariableScope::ClauseLocal
            ) && variable.ty.size > STATIC_VARIABLE_MAX_SIZE
            {
                errors.push(VerifyError::about_difo(format!(
                    "oversized by-ref static {description}"
                )));
            }
        }
        let earlier = difo.variable_table[..position]
            .iter()
            .find(|other| other.id == variable.id && other.scope == variable.scope);
        if let Some(earlier) = earlier {
            if let Some(change) = redefinition(earlier, variable) {
                errors.push(VerifyError::about_difo(format!(
                    "variable {description} {change}"
                )));
            }
        }
    }
}

/// How `later` changes the declaration `earlier` of the same variable, if it does
/// (classic DTrace's messages; a size of 0 matches any size).
fn redefinition(earlier: &DifVariable, later: &DifVariable) -> Option<&'static str> {
    if earlier.kind != later.kind {
        Some("changed variable kind")
    } else if earlier.ty.flags != later.ty.flags {
        Some("changed variable type flags")
    } else if later.ty.size != 0 && later.ty.size != earlier.ty.size {
        Some("changed variable type size")
    } else {
        None
    }
}

/// Verifies every DIFO of a program and the layout metadata the engines and the consumer
/// rely on; on failure returns every error found, each saying where it was found.
pub fn verify_program(program: &CompiledProgram) -> Result<VerifiedProgram, Vec<VerifyError>> {
    let mut errors = Vec::new();
    let mut aggregation_key_sizes = HashMap::new();
    for aggregation in &program.aggregations {
        let location = format!("aggregation {} (@{})", aggregation.id, aggregation.name);
        if aggregation_key_sizes
            .insert(aggregation.id, aggregation.key_size)
            .is_some()
        {
            errors.push(VerifyError::at(
                &location,
                format!("duplicate aggregation id {}", aggregation.id),
            ));
        }
        let keys: Vec<PlacedSlot> = aggregation
            .keys
            .iter()
            .enumerate()
            .map(|(position, slot)| PlacedSlot {
                slot,
                location: format!("{location}, key {position}"),
            })
            .collect();
        check_slots(
            &keys,
            SlotArea::AggregationKey,
            aggregation.key_size,
            &mut errors,
        );
    }

    let mut variables = ProgramVariables::default();
    for (statement_index, statement) in program.statements.iter().enumerate() {
        check_statement(
            statement_index,
            statement,
            &aggregation_key_sizes,
            &mut variables,
            &mut errors,
        );
    }
    if errors.is_empty() {
        Ok(VerifiedProgram {
            program: program.clone(),
        })
    } else {
        Err(errors)
    }
}

fn check_statement(
    statement_index: usize,
    statement: &Statement,
    aggregation_key_sizes: &HashMap<u32, u32>,
    variables: &mut ProgramVariables,
    errors: &mut Vec<VerifyError>,
) {
    let statement_location = format!(
        "statement {statement_index} (clause {}, {})",
        statement.clause, statement.probe
    );
    if !statement.record_size.is_multiple_of(8) {
        errors.push(VerifyError::at(
            &statement_location,
            format!(
                "record size {} is not a multiple of 8",
                statement.record_size
            ),
        ));
    }
    if let Some(predicate) = &statement.predicate {
        let location = format!("{statement_location}, predicate");
        check_program_difo(predicate, &location, variables, errors);
    }
    let mut record_slots = Vec::new();
    for (action_index, action) in statement.actions.iter().enumerate() {
        let action_location = format!(
            "{statement_location}, action {action_index} ({})",
            action_name(&action.kind)
        );
        let referenced: Vec<u32> = match &action.kind {
            ActionKind::Printa { aggregations, .. } => aggregations.clone(),
            ActionKind::Clear { aggregation }
            | ActionKind::Trunc { aggregation }
            | ActionKind::Normalize { aggregation }
            | ActionKind::Denormalize { aggregation }
            | ActionKind::Aggregate { aggregation } => vec![*aggregation],
            _ => Vec::new(),
        };
        for id in &referenced {
            if !aggregation_key_sizes.contains_key(id) {
                errors.push(VerifyError::at(
                    &action_location,
                    format!("unknown aggregation {id}"),
                ));
            }
        }
        let mut key_slots = Vec::new();
        for (value_index, value) in action.values.iter().enumerate() {
            let location = format!("{action_location}, value {value_index}");
            if let Some(difo) = &value.difo {
                check_program_difo(difo, &location, variables, errors);
            }
            if let Some(slot) = &value.slot {
                let placed = PlacedSlot { slot, location };
                if matches!(action.kind, ActionKind::Aggregate { .. }) {
                    key_slots.push(placed);
                } else {
                    record_slots.push(placed);
                }
            }
        }
        if let ActionKind::Aggregate { aggregation } = action.kind {
            if let Some(&key_size) = aggregation_key_sizes.get(&aggregation) {
                check_slots(&key_slots, SlotArea::AggregationKey, key_size, errors);
            }
        }
    }
    check_slots(
        &record_slots,
        SlotArea::Record,
        statement.record_size,
        errors,
    );
}

/// Verifies one DIFO of a program and files its errors under `location`.
fn check_program_difo(
    difo: &Difo,
    location: &str,
    variables: &mut ProgramVariables,
    errors: &mut Vec<VerifyError>,
) {
    let difo_errors = check_difo(difo);
    errors.extend(difo_errors.into_iter().map(|mut error| {
        error.location = Some(location.to_string());
        error
    }));
    variables.check(difo, location, errors);
}

/// The user variables declared by the DIFOs verified so far, to catch DIFOs that
/// declare one variable differently (classic DTrace checks each new DIFO against the
/// variables of the DIFOs already loaded).
#[derive(Default)]
struct ProgramVariables {
    declared: HashMap<(u16, VariableScope), (DifVariable, String)>,
}

impl ProgramVariables {
    fn check(&mut self, difo: &Difo, location: &str, errors: &mut Vec<VerifyError>) {
        let mut added = Vec::new();
        for variable in &difo.variable_table {
            if variable.id < builtin_variable::FIRST_USER {
                continue;
            }
            match self.declared.get(&(variable.id, variable.scope)) {
                Some((earlier, earlier_location)) => {
                    if let Some(change) = redefinition(earlier, variable) {
                        errors.push(VerifyError::at(
                            location,
                            format!(
                                "variable {} {change} (declared differently in {earlier_location})",
                                variable_description(difo, variable)
                            ),
                        ));
                    }
                }
                None => added.push(variable.clone()),
            }
        }
        for variable in added {
            self.declared
                .entry((variable.id, variable.scope))
                .or_insert_with(|| (variable, location.to_string()));
        }
    }
}

/// A record or key slot with where it came from, for messages.
struct PlacedSlot<'a> {
    slot: &'a RecordSlot,
    location: String,
}

/// Which buffer a set of slots lays out.
#[derive(Clone, Copy)]
enum SlotArea {
    Record,
    AggregationKey,
}

impl SlotArea {
    fn slot_word(self) -> &'static str {
        match self {
            SlotArea::Record => "record slot",
            SlotArea::AggregationKey => "key slot",
        }
    }

    fn size_word(self) -> &'static str {
        match self {
            SlotArea::Record => "record size",
            SlotArea::AggregationKey => "key size",
        }
    }
}

/// Checks that every slot is aligned, lies within `size` bytes and overlaps no other.
fn check_slots(slots: &[PlacedSlot], area: SlotArea, size: u32, errors: &mut Vec<VerifyError>) {
    let slot_word = area.slot_word();
    for (position, placed) in slots.iter().enumerate() {
        let slot = placed.slot;
        let end = slot.offset as u64 + slot.size as u64;
        if !matches!(slot.alignment, 1 | 2 | 4 | 8) {
            errors.push(VerifyError::at(
                &placed.location,
                format!(
                    "{slot_word} at offset {} has invalid alignment {}",
                    slot.offset, slot.alignment
                ),
            ));
        } else if !slot.offset.is_multiple_of(slot.alignment) {
            errors.push(VerifyError::at(
                &placed.location,
                format!(
                    "{slot_word} at offset {} is not aligned to {}",
                    slot.offset, slot.alignment
                ),
            ));
        }
        if end > size as u64 {
            errors.push(VerifyError::at(
                &placed.location,
                format!(
                    "{slot_word} at offset {} (size {}) runs past the {} {size}",
                    slot.offset,
                    slot.size,
                    area.size_word()
                ),
            ));
        }
        for other in &slots[..position] {
            let other_end = other.slot.offset as u64 + other.slot.size as u64;
            let overlaps = (slot.offset as u64) < other_end && (other.slot.offset as u64) < end;
            if overlaps {
                errors.push(VerifyError::at(
                    &placed.location,
                    format!(
                        "{slot_word} at offset {} (size {}) overlaps the {slot_word} of {} at offset {} (size {})",
                        slot.offset, slot.size, other.location, other.slot.offset, other.slot.size
                    ),
                ));
            }
        }
    }
}

/// The D name of an action, for locations in messages.
fn action_name(kind: &ActionKind) -> &'static str {
    match kind {
        ActionKind::Expression => "expression",
        ActionKind::Trace => "trace",
        ActionKind::Print { .. } => "print",
        ActionKind::TraceMemory => "tracemem",
        ActionKind::Printf { .. } => "printf",
        ActionKind::Printa { .. } => "printa",
        ActionKind::System { .. } => "system",
        ActionKind::Freopen { .. } => "freopen",
        ActionKind::Ftruncate => "ftruncate",
        ActionKind::Setopt { .. } => "setopt",
        ActionKind::RecordSymbolic => "stack or symbol",
        ActionKind::Exit => "exit",
        ActionKind::Speculate => "speculate",
        ActionKind::Commit => "commit",
        ActionKind::Discard => "discard",
        ActionKind::Clear { .. } => "clear",
        ActionKind::Trunc { .. } => "trunc",
        ActionKind::Normalize { .. } => "normalize",
        ActionKind::Denormalize { .. } => "denormalize",
        ActionKind::Raise => "raise",
        ActionKind::Stop => "stop",
        ActionKind::Chill => "chill",
        ActionKind::Breakpoint => "breakpoint",
        ActionKind::Panic => "panic",
        ActionKind::Aggregate { .. } => "aggregation",
    }
}
