//! One enabled statement of a chain: the `exit()` check, the clause's fresh state
//! (scratch, destination, commits, timestamps), the predicate, the actions (each action's
//! values into the record or an aggregation's key and arguments, then what the action
//! does), sending the record (with the room check of `principal_buffer` before the
//! predicate), and the fault handler that reports to the ERROR probe.

use std::ops::Range;

use difvm::isa::{builtin_variable, Opcode};
use difvm::object::{
    Action, ActionKind, AggregationDescription, CompiledProgram, EnabledProbe, Statement,
    PROBE_ID_END, PROBE_ID_ERROR, RECORD_HEADER_SIZE,
};

use super::aggregations::{begin_aggregation, update_aggregation};
use super::code::{FaultExit, ProgramCode};
use super::error::TranslateError;
use super::instructions::translate_difo;
use super::principal_buffer::{count_written, drop_unless_room, PrincipalLength};
use super::records::write_value;
use super::registers::{
    AGGREGATION_ARGUMENT, AGGREGATION_INCREMENT, CONTEXT, FIRST_VALUE, SAVED_0, STATE,
};
use super::signals::{raise_signal, stop_process};
use super::speculation::{append_speculated_record, commit, discard, perform_commits, speculate};
use super::translation_context::{Chain, ProbeTranslationContext, StatementContext};
use crate::ebpf::{AluOp, Helper, Insn, JmpOp, Label, MemSize, Reg};
use crate::map_layout::{
    program_difos, DifoLocation, DifoSlot, COUNTER_ERROR_IN_ERROR_PROBE, COUNTER_FAULTS,
    COUNTER_PRINCIPAL_DROPS,
};

/// What a statement does with its record.
#[derive(Debug, Clone, Copy)]
struct StatementRecord {
    /// Whether it writes one (`Statement::writes_record`).
    records: bool,
    /// Header and data.
    length: u32,
    /// Whether it may go to a speculation.
    speculates: bool,
    /// Whether the statement commits speculations.
    commits: bool,
}

impl StatementRecord {
    fn of(statement: &Statement) -> StatementRecord {
        let has = |kind: ActionKind| statement.actions.iter().any(|action| action.kind == kind);
        StatementRecord {
            records: statement.writes_record(),
            length: RECORD_HEADER_SIZE + statement.record_size,
            speculates: has(ActionKind::Speculate),
            commits: has(ActionKind::Commit),
        }
    }
}

/// Whether any DIFO of `statement` reads built-in variable `id`.
fn statement_reads(program: &CompiledProgram, statement_index: usize, ids: &[u16]) -> bool {
    program_difos(program)
        .iter()
        .filter(|(location, _)| location.statement == statement_index)
        .any(|(_, difo)| {
            difo.code.iter().any(|instruction| {
                instruction.opcode() == Some(Opcode::Ldgs) && ids.contains(&instruction.index())
            })
        })
}

/// A run of a long clause's actions that its statement calls as a subprogram of its own
/// (see [`emit_statement`]); the chain emits it after its own code with
/// [`emit_action_subprogram`].
pub struct ActionSubprogram<'e> {
    pub label: Label,
    pub enabled: &'e EnabledProbe,
    pub actions: Range<usize>,
    /// The fault ordinal of the run's first value (see `emit_action`).
    pub first_ordinal: u32,
}

/// What an action subprogram returns when its `speculate()` found no room for the
/// record (0 is success, 1 a fault).
const SUBPROGRAM_DROPPED: i32 = 2;

/// The context of `enabled`'s statement in `chain`, whose faults go to `fault` and
/// whose dropped `speculate()` goes to `dropped`.
fn statement_context<'a>(
    probe_context: &'a ProbeTranslationContext<'a>,
    chain: Chain,
    in_subprogram: bool,
    enabled: &'a EnabledProbe,
    (fault, dropped): (Label, Label),
) -> StatementContext<'a> {
    let statement_index = enabled.statement;
    let statement = &probe_context.program.statements[statement_index];
    StatementContext {
        probe_context,
        chain,
        in_subprogram,
        fault_exit: FaultExit(fault),
        dropped_exit: dropped,
        location: format!(
            "statement {statement_index} (clause {}, EPID {}, {})",
            statement.clause, enabled.epid, enabled.probe
        ),
        epid: enabled.epid,
        probe_id: enabled.probe_id,
        probe: &enabled.probe,
    }
}

/// Emits the statement `enabled` names, in `chain`; a fault in the main chain calls
/// `error_subprogram` (the ERROR probe's clauses) when there is one.
///
/// With `actions_per_subprogram`, a clause with more actions than that calls them in
/// runs of that many, each a subprogram returning whether it faulted: the kernel's
/// verifier works out which stack slots are live over a whole function at a time, so
/// one function holding a clause of a hundred `printf()`s costs it time in the square
/// of the clause's length, where bounded functions cost time in proportion to it. The
/// runs are returned for the chain to emit after its own code.
pub fn emit_statement<'e>(
    code: &mut ProgramCode,
    probe_context: &ProbeTranslationContext<'_>,
    chain: Chain,
    enabled: &'e EnabledProbe,
    error_subprogram: Option<Label>,
    actions_per_subprogram: Option<usize>,
) -> Result<Vec<ActionSubprogram<'e>>, TranslateError> {
    let program = probe_context.program;
    let statement_index = enabled.statement;
    let statement = &program.statements[statement_index];
    let end = code.label();
    let fault = code.label();
    let in_subprogram = chain == Chain::Error;
    let cx = statement_context(probe_context, chain, in_subprogram, enabled, (fault, end));
    emit_clause_start(code, &cx, statement_index, end);
    let record = StatementRecord::of(statement);
    if record.records {
        // DTrace reserves the record's room before evaluating the predicate: a full
        // buffer drops the firing whatever the predicate says.
        drop_unless_room(code, &cx, PrincipalLength::Fixed(record.length), end);
    }
    let state = &probe_context.layout.state;
    if let Some(predicate) = &statement.predicate {
        code.store_state_imm(state.fault_action, 0);
        let location = DifoLocation {
            statement: statement_index,
            slot: DifoSlot::Predicate,
        };
        translate_difo(code, &cx, predicate, location)?;
        code.asm.jmp_imm_to(JmpOp::Eq, SAVED_0, 0, end);
    }
    if record.records {
        code.zero_fill(STATE, state.record, record.length);
        code.store_state_imm_at(MemSize::W, state.record, enabled.epid as i32, Reg::R1);
    }
    let mut ordinal = 0u32;
    let mut subprograms = Vec::new();
    let run = actions_per_subprogram
        .filter(|&run| run > 0 && statement.actions.len() > run)
        .unwrap_or(statement.actions.len().max(1));
    for first in (0..statement.actions.len()).step_by(run) {
        let actions = first..(first + run).min(statement.actions.len());
        if actions.len() == statement.actions.len() {
            for action_index in actions {
                let action = &statement.actions[action_index];
                emit_action(
                    code,
                    &cx,
                    statement_index,
                    action_index,
                    action,
                    record,
                    &mut ordinal,
                )?;
            }
            continue;
        }
        let label = code.label();
        code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
        code.emit(Insn::mov64_reg(Reg::R2, STATE));
        code.asm.call_to(label);
        if record.speculates {
            code.asm
                .jmp_imm_to(JmpOp::Eq, Reg::R0, SUBPROGRAM_DROPPED, end);
        }
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, fault);
        let first_ordinal = ordinal;
        ordinal += statement.actions[actions.clone()]
            .iter()
            .flat_map(|action| &action.values)
            .filter(|value| value.difo.is_some())
            .count() as u32;
        subprograms.push(ActionSubprogram {
            label,
            enabled,
            actions,
            first_ordinal,
        });
    }
    emit_finish(code, &cx, record)?;
    code.asm.ja_to(end);
    code.bind(fault);
    emit_fault_handler(code, &cx, record, error_subprogram)?;
    code.bind(end);
    Ok(subprograms)
}

/// Emits `subprogram`, called with r1 = ctx and r2 = the work area: its actions, then
/// r0 = 0, or r0 = 1 when one of them faulted (the fault's words are in the work area
/// for the statement's fault handler), or `SUBPROGRAM_DROPPED` when its `speculate()`
/// found no room.
pub fn emit_action_subprogram(
    code: &mut ProgramCode,
    probe_context: &ProbeTranslationContext<'_>,
    subprogram: &ActionSubprogram<'_>,
) -> Result<(), TranslateError> {
    let enabled = subprogram.enabled;
    let statement = &probe_context.program.statements[enabled.statement];
    let fault = code.label();
    let dropped = code.label();
    let cx = statement_context(probe_context, Chain::Main, true, enabled, (fault, dropped));
    let record = StatementRecord::of(statement);
    code.bind(subprogram.label);
    code.emit(Insn::mov64_reg(CONTEXT, Reg::R1));
    code.emit(Insn::mov64_reg(STATE, Reg::R2));
    let mut ordinal = subprogram.first_ordinal;
    for action_index in subprogram.actions.clone() {
        emit_action(
            code,
            &cx,
            enabled.statement,
            action_index,
            &statement.actions[action_index],
            record,
            &mut ordinal,
        )?;
    }
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.emit(Insn::exit());
    code.bind(fault);
    code.emit(Insn::mov64_imm(Reg::R0, 1));
    code.emit(Insn::exit());
    code.bind(dropped);
    code.emit(Insn::mov64_imm(Reg::R0, SUBPROGRAM_DROPPED));
    code.emit(Insn::exit());
    Ok(())
}

/// The `exit()` check (after `exit()`, only END and ERROR still fire; others jump to
/// `end`), then the clause's fresh state: empty scratch, the principal destination, no
/// commits, and the timestamps when the statement reads them.
fn emit_clause_start(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    statement_index: usize,
    end: Label,
) {
    let layout = cx.layout();
    let state = &layout.state;
    if cx.chain == Chain::Main && cx.probe_id != PROBE_ID_END && cx.probe_id != PROBE_ID_ERROR {
        code.globals_pointer(Reg::R1, layout.globals.exiting);
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R1, 0));
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, end);
    }
    code.store_state_imm(state.scratch_used, 0);
    code.store_state_imm(state.alloca_used, 0);
    code.store_state_imm(state.destination, 0);
    code.store_state_imm(state.commits, 0);
    if statement_reads(
        cx.program(),
        statement_index,
        &[
            builtin_variable::TIMESTAMP,
            builtin_variable::WALLTIMESTAMP,
            builtin_variable::VTIMESTAMP,
        ],
    ) {
        code.call(Helper::KtimeGetNs);
        code.store_state(state.timestamp, Reg::R0);
        code.call(Helper::KtimeGetBootNs);
        code.globals_pointer(Reg::R1, layout.globals.wall_clock_offset);
        code.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R1, 0));
        code.emit(Insn::alu64_reg(AluOp::Add, Reg::R0, Reg::R1));
        code.store_state(state.walltimestamp, Reg::R0);
    }
}

/// One action: its values (numbered from 1 across the statement by `ordinal`, for the
/// fault's action index), then what it does.
fn emit_action(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    statement_index: usize,
    action_index: usize,
    action: &Action,
    record: StatementRecord,
    ordinal: &mut u32,
) -> Result<(), TranslateError> {
    let state = &cx.layout().state;
    code.emit(Insn::st_mem(MemSize::DW, Reg::FP, FIRST_VALUE, 0));
    let aggregation = match action.kind {
        ActionKind::Aggregate { aggregation } => Some(aggregation),
        _ => None,
    };
    let description = aggregation.and_then(|id| {
        cx.program()
            .aggregations
            .iter()
            .find(|description| description.id == id)
    });
    let key_base = match aggregation {
        Some(id) => Some(begin_aggregation(code, cx.layout(), id)?),
        None => None,
    };
    for (value_index, value) in action.values.iter().enumerate() {
        match &value.difo {
            Some(difo) => {
                *ordinal += 1;
                code.store_state_imm(state.fault_action, *ordinal as i32);
                let location = DifoLocation {
                    statement: statement_index,
                    slot: DifoSlot::ActionValue {
                        action: action_index,
                        value: value_index,
                    },
                };
                translate_difo(code, cx, difo, location)?;
            }
            None => code.emit(Insn::mov64_imm(SAVED_0, 0)),
        }
        let ty = value.difo.as_ref().map(|difo| difo.return_type);
        match (key_base, description) {
            (Some(key_base), Some(description)) => {
                let slot = value.slot.as_ref().or(description.keys.get(value_index));
                store_aggregation_value(code, cx, description, key_base, value_index, slot, ty)?;
            }
            _ => {
                if value_index == 0 {
                    code.emit(Insn::stx_mem(MemSize::DW, Reg::FP, SAVED_0, FIRST_VALUE));
                }
                if let Some(slot) = &value.slot {
                    if record.records {
                        write_value(code, cx, state.record + RECORD_HEADER_SIZE, slot, ty)?;
                    }
                }
            }
        }
    }
    emit_action_kind(code, cx, action, record, description.is_some())
}

/// Puts the value of an aggregating action in r8 where it belongs: a key into the key
/// being built at `key_base`, then the function's argument and increment.
fn store_aggregation_value(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    description: &AggregationDescription,
    key_base: u32,
    value_index: usize,
    slot: Option<&difvm::object::RecordSlot>,
    ty: Option<difvm::difo::DifType>,
) -> Result<(), TranslateError> {
    let keys = description.keys.len();
    if value_index < keys {
        if let Some(slot) = slot {
            write_value(code, cx, key_base, slot, ty)?;
        }
    } else if value_index == keys {
        code.emit(Insn::stx_mem(
            MemSize::DW,
            Reg::FP,
            SAVED_0,
            AGGREGATION_ARGUMENT,
        ));
    } else if value_index == keys + 1 {
        code.emit(Insn::stx_mem(
            MemSize::DW,
            Reg::FP,
            SAVED_0,
            AGGREGATION_INCREMENT,
        ));
    }
    Ok(())
}

/// What an action does once its values are in place.
fn emit_action_kind(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    action: &Action,
    record: StatementRecord,
    aggregation_described: bool,
) -> Result<(), TranslateError> {
    match action.kind {
        ActionKind::Aggregate { aggregation } if aggregation_described => {
            update_aggregation(code, cx, aggregation)?;
        }
        ActionKind::Exit => {
            code.globals_pointer(Reg::R1, cx.layout().globals.exiting);
            code.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 1));
        }
        ActionKind::Speculate => speculate(code, cx, record.records.then_some(record.length))?,
        ActionKind::Commit => commit(code, cx)?,
        ActionKind::Discard => discard(code, cx)?,
        ActionKind::Raise => raise_signal(code, cx),
        ActionKind::Stop => stop_process(code),
        ref kind => {
            if let Some(reason) = kind.unsupported_on_linux() {
                return Err(cx.unsupported(reason));
            }
        }
    }
    Ok(())
}

/// The fault handler: a statement that committed finishes its commits; then the fault
/// is counted and, in the main chain, reported to the ERROR subprogram.
fn emit_fault_handler(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    record: StatementRecord,
    error_subprogram: Option<Label>,
) -> Result<(), TranslateError> {
    let state = &cx.layout().state;
    if record.commits {
        let none = code.label();
        code.load_state(Reg::R0, state.commits);
        code.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, none);
        emit_finish(code, cx, record)?;
        code.bind(none);
    }
    match cx.chain {
        Chain::Error => code.count(COUNTER_ERROR_IN_ERROR_PROBE),
        Chain::Main => {
            code.count(COUNTER_FAULTS);
            let arguments = state.error_arguments;
            code.zero_fill(STATE, arguments, 80);
            code.store_state_imm(arguments + 8, cx.epid as i32);
            for (index, field) in [
                (2, state.fault_action),
                (3, state.fault_offset),
                (4, state.fault_code),
                (5, state.fault_value),
            ] {
                code.load_state(Reg::R0, field);
                code.store_state(arguments + 8 * index, Reg::R0);
            }
            if let Some(label) = error_subprogram {
                // The ERROR clauses run in the work area this firing took.
                code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
                code.emit(Insn::mov64_reg(Reg::R2, STATE));
                code.asm.call_to(label);
            }
        }
    }
    Ok(())
}

/// Sends the record where it belongs, then performs the clause's commits.
fn emit_finish(
    code: &mut ProgramCode,
    cx: &StatementContext<'_>,
    record: StatementRecord,
) -> Result<(), TranslateError> {
    let state = &cx.layout().state;
    if record.records {
        let done = code.label();
        if record.speculates {
            let principal = code.label();
            code.load_state(Reg::R1, state.destination);
            code.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, principal);
            append_speculated_record(code, cx, record.length)?;
            code.asm.ja_to(done);
            code.bind(principal);
        }
        code.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
        code.emit_all(&Insn::ld_map_fd(Reg::R2, cx.maps().principal));
        code.emit(Insn::mov32_imm(Reg::R3, -1));
        code.state_pointer(Reg::R4, state.record);
        code.emit(Insn::mov64_imm(Reg::R5, record.length as i32));
        code.call(Helper::PerfEventOutput);
        let refused = code.label();
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, 0, refused);
        count_written(code, cx, PrincipalLength::Fixed(record.length));
        code.asm.ja_to(done);
        code.bind(refused);
        code.count(COUNTER_PRINCIPAL_DROPS);
        code.bind(done);
    }
    if record.commits {
        perform_commits(code, cx)?;
    }
    Ok(())
}
