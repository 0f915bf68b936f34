//! The program of one probe: its entry (context and work area, the nesting guard, the
//! probe's arguments), the ECB chain (for each enabled statement in EPID order: the
//! `exit()` check, predicate, actions, record), the ERROR subprogram, and the
//! subprograms that hold the actions of long clauses (see `statement`).
//!
//! A statement's faults jump to its fault handler, which reports the fault (EPID, action
//! index, DIF offset, code, value: the ERROR probe's `arg1`–`arg5`) and calls the ERROR
//! subprogram, then the chain goes on with the next statement, as in the interpreter. A
//! statement that has committed speculations before faulting still finishes its commits
//! (and its record goes where it was headed), as the interpreter does. A fault inside an
//! ERROR statement only counts `COUNTER_ERROR_IN_ERROR_PROBE`; the statements themselves
//! are translated by `statement`.
//!
//! Nesting: the entry takes one of the CPU's work areas, one per nesting level, unless
//! every one is in use or the program would interrupt one whose shared state it touches
//! (see `nesting`); the ERROR subprogram and the `bpf_loop` callbacks are handed the
//! area the program took.

use difvm::object::{CompiledProgram, EnabledProbe, PROBE_ID_ERROR};

use super::arguments::emit_argument_loading;
use super::artificial_frames::ArtificialFrames;
use super::clean_path::clean_path_iteration;
use super::code::ProgramCode;
use super::context::{arguments_read, ContextKind};
use super::error::TranslateError;
use super::fold::fold_known_branches;
use super::loops::LoopBody;
use super::memory::emit_address_decoder;
use super::nesting::{emit_work_area_claim, NestingFootprint};
use super::program::TranslatedProgram;
use super::prune::prune_unreachable;
use super::registers::{CONTEXT, STATE};
use super::statement::{emit_action_subprogram, emit_statement};
use super::string_search::match_substring_iteration;
use super::string_subroutines::{
    change_case_iteration, find_character_iteration, integer_digit_iteration,
    integer_parse_digit_iteration, scan_back_iteration, skip_blank_iteration,
};
use super::tokens::{
    delimiter_set_iteration, reset_tokens, token_end_iteration, token_start_iteration,
};
use super::translation_context::{Chain, ProbeTranslationContext};
use crate::ebpf::{Helper, Insn, JmpOp, MemSize, Reg};
use crate::map_layout::{MapFds, ProgramLayout};

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

    let probe_context = ProbeTranslationContext {
        layout,
        maps,
        program,
        context,
        artificial_frames,
    };
    let mut code = ProgramCode::new(layout, maps);
    let error_subprogram = (!errors.is_empty()).then(|| code.label());

    // Entry: the context, a free work area (taking it), the arguments.
    let leave = code.label();
    let unnest = code.label();
    let statements: Vec<usize> = main.iter().map(|probe| probe.statement).collect();
    let firing_statements: Vec<usize> = main
        .iter()
        .chain(&errors)
        .map(|probe| probe.statement)
        .collect();
    let footprint = NestingFootprint::of_statements(program, &firing_statements);
    code.emit(Insn::mov64_reg(CONTEXT, Reg::R1));
    if let Some(cpu) = layout.options.only_cpu {
        // `-x cpu`: a firing on another CPU is not traced at all.
        code.call(Helper::GetSmpProcessorId);
        code.asm.jmp_imm_to(JmpOp::Ne, Reg::R0, cpu as i32, leave);
    }
    emit_work_area_claim(&mut code, layout, maps, footprint, leave);
    reset_tokens(&mut code, layout, Chain::Main);
    // The thread the probe is about is read from its argument word (see
    // `subject_task`), so that word is always loaded.
    let subject = context
        .subject_task_argument()
        .map_or(0, |argument| 1u16 << argument);
    let used = arguments_read(program, &statements) | subject;
    emit_argument_loading(&mut code, layout, context, used, unnest)?;
    code.zero_fill(
        STATE,
        layout.state.clause_locals,
        layout.state.clause_locals_size,
    );
    let actions_per_subprogram = actions_per_subprogram(program, &statements);
    let mut action_subprograms = Vec::new();
    for enabled_probe in &main {
        action_subprograms.extend(emit_statement(
            &mut code,
            &probe_context,
            Chain::Main,
            enabled_probe,
            error_subprogram,
            Some(actions_per_subprogram),
        )?);
    }
    code.bind(unnest);
    code.store_state_imm(layout.state.nesting, 0);
    code.bind(leave);
    code.emit(Insn::mov64_imm(Reg::R0, 0));
    code.emit(Insn::exit());

    if let Some(label) = error_subprogram {
        // Called with r1 = ctx and r2 = the work area the program took (see
        // `statement`'s fault handler).
        code.bind(label);
        code.emit(Insn::mov64_reg(CONTEXT, Reg::R1));
        code.emit(Insn::mov64_reg(STATE, Reg::R2));
        reset_tokens(&mut code, layout, Chain::Error);
        code.zero_fill(
            STATE,
            layout.state.error_clause_locals,
            layout.state.clause_locals_size,
        );
        for enabled_probe in &errors {
            emit_statement(
                &mut code,
                &probe_context,
                Chain::Error,
                enabled_probe,
                None,
                None,
            )?;
        }
        code.emit(Insn::mov64_imm(Reg::R0, 0));
        code.emit(Insn::exit());
    }
    for subprogram in &action_subprograms {
        emit_action_subprogram(&mut code, &probe_context, subprogram)?;
    }
    emit_callbacks(&mut code, layout);
    code.emit_lookup_functions();
    emit_address_decoder(&mut code, layout);
    let (instructions, mut global_starts) = code.finish()?;
    let instructions = prune_unreachable(fold_known_branches(instructions), &mut global_starts);
    Ok(TranslatedProgram::new(
        instructions,
        layout.state.size,
        &global_starts,
    ))
}

/// The most actions a long clause's subprograms hold (see `statement::emit_statement`):
/// few enough that each is a short function, more when the probe's clauses are so long
/// that the kernel's limit of 256 functions a program (callbacks and the ERROR
/// subprogram included) would be reached.
fn actions_per_subprogram(program: &CompiledProgram, statements: &[usize]) -> usize {
    /// Actions of one subprogram.
    const ACTIONS: usize = 8;
    /// Functions left for action subprograms.
    const SUBPROGRAMS: usize = 200;
    let actions: usize = statements
        .iter()
        .map(|&statement| program.statements[statement].actions.len())
        .filter(|&count| count > ACTIONS)
        .sum();
    ACTIONS.max(actions.div_ceil(SUBPROGRAMS))
}

/// Emits every callback `run_loop` asked for (callbacks may ask for more).
fn emit_callbacks(code: &mut ProgramCode, layout: &ProgramLayout) {
    let mut index = 0;
    while let Some(functions) = code.callback(index) {
        code.emit_loop_caller(functions);
        code.bind(functions.callback);
        let body = functions.body;
        code.emit(Insn::ldx_mem(MemSize::DW, STATE, Reg::R2, 0));
        match body {
            LoopBody::MatchSubstring { reverse } => {
                match_substring_iteration(code, layout, reverse)
            }
            LoopBody::CleanPathStep => clean_path_iteration(code, layout),
            LoopBody::DelimiterSet => delimiter_set_iteration(code, layout),
            LoopBody::TokenStart { copy } => token_start_iteration(code, layout, copy),
            LoopBody::TokenEnd { copy } => token_end_iteration(code, layout, copy),
            LoopBody::ChangeCase { upper } => change_case_iteration(code, layout, upper),
            LoopBody::IntegerDigit => integer_digit_iteration(code, layout),
            LoopBody::SkipBlank => skip_blank_iteration(code, layout),
            LoopBody::IntegerParseDigit => integer_parse_digit_iteration(code, layout),
            LoopBody::FindCharacter { last } => find_character_iteration(code, layout, last),
            LoopBody::ScanBack { cursor, slash } => {
                scan_back_iteration(code, layout, cursor, slash)
            }
        }
        index += 1;
    }
}
