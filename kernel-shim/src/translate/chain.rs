//! The program of one probe: its entry (context and work area, the nesting guard, the
//! probe's arguments), the ECB chain (for each enabled statement in EPID order: the
//! `exit()` check, predicate, actions, record), and the ERROR subprogram.
//!
//! A statement's faults jump to its fault handler, which reports the fault (EPID, action
//! index, DIF offset, code, value: the ERROR probe's `arg1`–`arg5`) and calls the ERROR
//! subprogram, then the chain goes on with the next statement, as in the interpreter. A
//! statement that has committed speculations before faulting still finishes its commits
//! (and its record goes where it was headed), as the interpreter does. A fault inside an
//! ERROR statement only counts [`COUNTER_ERROR_IN_ERROR_PROBE`].
//!
//! Nesting: the work area's nesting word is set while a program runs; a program that finds
//! it set (another of ours interrupted on this CPU) counts [`COUNTER_NESTING_DROPS`] and
//! does nothing rather than corrupt the interrupted one's state.

use difvm::isa::{builtin_variable, Opcode};
use difvm::object::{
    ActionKind, CompiledProgram, EnabledProbe, Statement, PROBE_ID_END, PROBE_ID_ERROR,
    RECORD_HEADER_SIZE,
};

use super::artificial_frames::ArtificialFrames;
use super::context::{arguments_read, emit_argument_loading, ContextKind};
use super::emitter::{Chain, Emitter};
use super::instructions::translate_difo;
use super::layout::{
    program_difos, DifoLocation, DifoSlot, MapFds, ProgramLayout, COUNTER_ERROR_IN_ERROR_PROBE,
    COUNTER_FAULTS, COUNTER_NESTING_DROPS, COUNTER_PRINCIPAL_DROPS,
};
use super::program::TranslatedProgram;
use super::registers::{
    AGGREGATION_ARGUMENT, AGGREGATION_INCREMENT, CONTEXT, FIRST_VALUE, MAP_KEY, SAVED_0, STATE,
};
use super::speculation::DESTINATION_DROPPED;
use super::TranslateError;
use crate::ebpf::{Helper, Insn, JmpOp, Label, MemSize, Reg};

/// Translates the program of `probe_id` (see [`super::translate_probe`]).
pub fn translate(
    layout: &ProgramLayout,
    maps: &MapFds,
    probe_id: u32,
    enabled: &[EnabledProbe],
    program: &CompiledProgram,
    context: &ContextKind,
    artificial_frames: &ArtificialFrames,
) -> Result<TranslatedProgram, TranslateError> {
    let select = |wanted: u32| -> Result<Vec<&EnabledProbe>, TranslateError> {
        let mut selected: Vec<&EnabledProbe> = enabled
            .iter()
            .filter(|probe| probe.probe_id == wanted)
            .collect();
        selected.sort_by_key(|probe| probe.epid);
        for probe in &selected {
            if probe.statement >= program.statements.len() {
                return Err(TranslateError::StatementOutOfRange {
                    epid: probe.epid,
                    statement: probe.statement,
                });
            }
        }
        Ok(selected)
    };
    let main = select(probe_id)?;
    let errors = if probe_id == PROBE_ID_ERROR {
        Vec::new()
    } else {
        select(PROBE_ID_ERROR)?
    };

    let mut emitter = Emitter::new(layout, maps, program);
    emitter.argument_count = context.argument_count();
    emitter.has_errno = context.has_errno();
    emitter.context = context.clone();
    emitter.artificial_frames = artificial_frames.clone();
    let error_subprogram = (!errors.is_empty()).then(|| emitter.label());

    // Entry: the context, the work area, the nesting guard, the arguments.
    let leave = emitter.label();
    let unnest = emitter.label();
    emitter.emit(Insn::mov64_reg(CONTEXT, Reg::R1));
    emit_work_area_lookup(&mut emitter, leave);
    let free = emitter.label();
    emitter.load_state(Reg::R0, layout.state.nesting);
    emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, free);
    emitter.count(COUNTER_NESTING_DROPS);
    emitter.asm.ja_to(leave);
    emitter.bind(free);
    emitter.store_state_imm(layout.state.nesting, 1);
    emitter.reset_tokens();
    let statements: Vec<usize> = main.iter().map(|probe| probe.statement).collect();
    let used = arguments_read(program, &statements);
    emit_argument_loading(&mut emitter, context, used, unnest)?;
    emitter.zero_fill(
        STATE,
        layout.state.clause_locals,
        layout.state.clause_locals_size,
    );
    for enabled_probe in &main {
        emitter.chain = Chain::Main;
        emit_statement(&mut emitter, enabled_probe, error_subprogram)?;
    }
    emitter.bind(unnest);
    emitter.store_state_imm(layout.state.nesting, 0);
    emitter.bind(leave);
    emitter.emit(Insn::mov64_imm(Reg::R0, 0));
    emitter.emit(Insn::exit());

    if let Some(label) = error_subprogram {
        emitter.bind(label);
        let leave = emitter.label();
        emitter.emit(Insn::mov64_reg(CONTEXT, Reg::R1));
        emit_work_area_lookup(&mut emitter, leave);
        emitter.chain = Chain::Error;
        emitter.reset_tokens();
        emitter.zero_fill(
            STATE,
            layout.state.error_clause_locals,
            layout.state.clause_locals_size,
        );
        for enabled_probe in &errors {
            emitter.chain = Chain::Error;
            emit_statement(&mut emitter, enabled_probe, None)?;
        }
        emitter.bind(leave);
        emitter.emit(Insn::mov64_imm(Reg::R0, 0));
        emitter.emit(Insn::exit());
    }
    emitter.emit_callbacks();
    Ok(TranslatedProgram::new(super::prune::prune_unreachable(
        emitter.asm.finish()?,
    )))
}

/// r7 = this CPU's work area; jumps to `leave` when the lookup fails.
fn emit_work_area_lookup(emitter: &mut Emitter<'_>, leave: Label) {
    emitter.call(Helper::GetSmpProcessorId);
    emitter.emit(Insn::stx_mem(MemSize::W, Reg::FP, Reg::R0, MAP_KEY));
    emitter.emit_all(&Insn::ld_map_fd(Reg::R1, emitter.maps.state));
    emitter.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    emitter.emit(Insn::add64_imm(Reg::R2, MAP_KEY as i32));
    emitter.call(Helper::MapLookupElem);
    emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, leave);
    emitter.emit(Insn::mov64_reg(STATE, Reg::R0));
}

/// Whether a statement writes a record: unless all of its actions are aggregations.
fn statement_records(statement: &Statement) -> bool {
    statement.actions.is_empty()
        || statement
            .actions
            .iter()
            .any(|action| !matches!(action.kind, ActionKind::Aggregate { .. }))
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

fn emit_statement(
    emitter: &mut Emitter<'_>,
    enabled: &EnabledProbe,
    error_subprogram: Option<Label>,
) -> Result<(), TranslateError> {
    let program = emitter.program;
    let layout = emitter.layout;
    let statement_index = enabled.statement;
    let statement = &program.statements[statement_index];
    emitter.epid = enabled.epid;
    emitter.probe_id = enabled.probe_id;
    emitter.probe = enabled.probe.clone();
    emitter.location = format!(
        "statement {statement_index} (clause {}, EPID {}, {})",
        statement.clause, enabled.epid, enabled.probe
    );
    let end = emitter.label();
    let fault = emitter.label();
    emitter.fault_label = fault;
    let state = &layout.state;

    // After exit(), only END and ERROR still fire.
    if emitter.chain == Chain::Main
        && enabled.probe_id != PROBE_ID_END
        && enabled.probe_id != PROBE_ID_ERROR
    {
        emitter.globals_pointer(Reg::R1, layout.globals.exiting);
        emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R1, 0));
        emitter.asm.jmp_imm_to(JmpOp::Ne, Reg::R1, 0, end);
    }

    // A clause starts with empty scratch, the principal destination, no commits.
    emitter.store_state_imm(state.scratch_used, 0);
    emitter.store_state_imm(state.destination, 0);
    emitter.store_state_imm(state.commits, 0);
    if statement_reads(
        program,
        statement_index,
        &[
            builtin_variable::TIMESTAMP,
            builtin_variable::WALLTIMESTAMP,
            builtin_variable::VTIMESTAMP,
        ],
    ) {
        emitter.call(Helper::KtimeGetNs);
        emitter.store_state(state.timestamp, Reg::R0);
        emitter.call(Helper::KtimeGetBootNs);
        emitter.globals_pointer(Reg::R1, layout.globals.wall_clock_offset);
        emitter.emit(Insn::ldx_mem(MemSize::DW, Reg::R1, Reg::R1, 0));
        emitter.emit(Insn::alu64_reg(crate::ebpf::AluOp::Add, Reg::R0, Reg::R1));
        emitter.store_state(state.walltimestamp, Reg::R0);
    }

    if let Some(predicate) = &statement.predicate {
        emitter.store_state_imm(state.fault_action, 0);
        let location = DifoLocation {
            statement: statement_index,
            slot: DifoSlot::Predicate,
        };
        translate_difo(emitter, predicate, location)?;
        emitter.asm.jmp_imm_to(JmpOp::Eq, SAVED_0, 0, end);
    }

    let records = statement_records(statement);
    let record_length = RECORD_HEADER_SIZE + statement.record_size;
    if records {
        emitter.zero_fill(STATE, state.record, record_length);
        emitter.emit(Insn::st_mem(
            MemSize::W,
            STATE,
            state.record as i16,
            enabled.epid as i32,
        ));
    }
    let data = state.record + RECORD_HEADER_SIZE;
    let mut ordinal = 0u32;
    for (action_index, action) in statement.actions.iter().enumerate() {
        emitter.emit(Insn::st_mem(MemSize::DW, Reg::FP, FIRST_VALUE, 0));
        let aggregation = match action.kind {
            ActionKind::Aggregate { aggregation } => Some(aggregation),
            _ => None,
        };
        let description = aggregation.and_then(|id| {
            program
                .aggregations
                .iter()
                .find(|description| description.id == id)
        });
        let key_base = match aggregation {
            Some(id) => Some(emitter.begin_aggregation(id)?),
            None => None,
        };
        for (value_index, value) in action.values.iter().enumerate() {
            match &value.difo {
                Some(difo) => {
                    ordinal += 1;
                    emitter.store_state_imm(state.fault_action, ordinal as i32);
                    let location = DifoLocation {
                        statement: statement_index,
                        slot: DifoSlot::ActionValue {
                            action: action_index,
                            value: value_index,
                        },
                    };
                    translate_difo(emitter, difo, location)?;
                }
                None => emitter.emit(Insn::mov64_imm(SAVED_0, 0)),
            }
            let ty = value.difo.as_ref().map(|difo| difo.return_type);
            match (key_base, description) {
                (Some(key_base), Some(description)) => {
                    let keys = description.keys.len();
                    if value_index < keys {
                        if let Some(slot) =
                            value.slot.as_ref().or(description.keys.get(value_index))
                        {
                            emitter.write_value(key_base, slot, ty);
                        }
                    } else if value_index == keys {
                        emitter.emit(Insn::stx_mem(
                            MemSize::DW,
                            Reg::FP,
                            SAVED_0,
                            AGGREGATION_ARGUMENT,
                        ));
                    } else if value_index == keys + 1 {
                        emitter.emit(Insn::stx_mem(
                            MemSize::DW,
                            Reg::FP,
                            SAVED_0,
                            AGGREGATION_INCREMENT,
                        ));
                    }
                }
                _ => {
                    if value_index == 0 {
                        emitter.emit(Insn::stx_mem(MemSize::DW, Reg::FP, SAVED_0, FIRST_VALUE));
                    }
                    if let Some(slot) = &value.slot {
                        if records {
                            emitter.write_value(data, slot, ty);
                        }
                    }
                }
            }
        }
        match action.kind {
            ActionKind::Aggregate { aggregation } if description.is_some() => {
                emitter.update_aggregation(aggregation)?;
            }
            ActionKind::Exit => {
                emitter.globals_pointer(Reg::R1, layout.globals.exiting);
                emitter.emit(Insn::st_mem(MemSize::DW, Reg::R1, 0, 1));
            }
            ActionKind::Speculate => emitter.speculate()?,
            ActionKind::Commit => emitter.commit()?,
            ActionKind::Discard => emitter.discard()?,
            ActionKind::Raise => emitter.raise_signal(),
            ActionKind::Stop => emitter.stop_process(),
            ref kind => {
                if let Some(reason) = kind.unsupported_on_linux() {
                    return Err(emitter.unsupported(reason));
                }
            }
        }
    }
    let speculates = statement
        .actions
        .iter()
        .any(|action| action.kind == ActionKind::Speculate);
    let commits = statement
        .actions
        .iter()
        .any(|action| action.kind == ActionKind::Commit);
    emit_finish(emitter, records, record_length, speculates, commits)?;
    emitter.asm.ja_to(end);

    emitter.bind(fault);
    if commits {
        let none = emitter.label();
        emitter.load_state(Reg::R0, state.commits);
        emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, none);
        emit_finish(emitter, records, record_length, speculates, commits)?;
        emitter.bind(none);
    }
    match emitter.chain {
        Chain::Error => emitter.count(COUNTER_ERROR_IN_ERROR_PROBE),
        Chain::Main => {
            emitter.count(COUNTER_FAULTS);
            let arguments = state.error_arguments;
            emitter.zero_fill(STATE, arguments, 80);
            emitter.store_state_imm(arguments + 8, enabled.epid as i32);
            for (index, field) in [
                (2, state.fault_action),
                (3, state.fault_offset),
                (4, state.fault_code),
                (5, state.fault_value),
            ] {
                emitter.load_state(Reg::R0, field);
                emitter.store_state(arguments + 8 * index, Reg::R0);
            }
            if let Some(label) = error_subprogram {
                emitter.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
                emitter.asm.call_to(label);
            }
        }
    }
    emitter.bind(end);
    Ok(())
}

/// Sends the record where it belongs, then performs the clause's commits.
fn emit_finish(
    emitter: &mut Emitter<'_>,
    records: bool,
    record_length: u32,
    speculates: bool,
    commits: bool,
) -> Result<(), TranslateError> {
    let state = &emitter.layout.state;
    if records {
        let done = emitter.label();
        if speculates {
            let principal = emitter.label();
            emitter.load_state(Reg::R1, state.destination);
            emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R1, 0, principal);
            emitter
                .asm
                .jmp_imm_to(JmpOp::Eq, Reg::R1, DESTINATION_DROPPED, done);
            emitter.append_speculated_record(record_length)?;
            emitter.asm.ja_to(done);
            emitter.bind(principal);
        }
        emitter.emit(Insn::mov64_reg(Reg::R1, CONTEXT));
        emitter.emit_all(&Insn::ld_map_fd(Reg::R2, emitter.maps.principal));
        emitter.emit(Insn::mov32_imm(Reg::R3, -1));
        emitter.state_pointer(Reg::R4, state.record);
        emitter.emit(Insn::mov64_imm(Reg::R5, record_length as i32));
        emitter.call(Helper::PerfEventOutput);
        emitter.asm.jmp_imm_to(JmpOp::Eq, Reg::R0, 0, done);
        emitter.count(COUNTER_PRINCIPAL_DROPS);
        emitter.bind(done);
    }
    if commits {
        emitter.perform_commits()?;
    }
    Ok(())
}
