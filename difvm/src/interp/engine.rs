//! The reference engine: one tracing session run by the interpreter. It owns the compiled
//! program, the enabled-probe table, variables, per-CPU principal buffers, aggregations,
//! speculations and drop counters, and runs a probe's enabled statements when the caller
//! says the probe fired.
//!
//! # Records
//!
//! A statement writes one record per execution — `RECORD_HEADER_SIZE` bytes (EPID u32 and a
//! zero u32, little-endian) then `record_size` bytes of data with every recorded value at
//! its slot — unless all of its actions are aggregations (such clauses print nothing). An
//! empty clause or one made of plain expressions writes a header-only record, so that the
//! consumer prints the probe line. If the principal buffer (`buffer_size` bytes per CPU)
//! cannot hold the record, the statement does not run at all and a principal drop is
//! counted, as in classic DTrace.
//!
//! # Faults
//!
//! A fault aborts the statement: its partial record is discarded (unless a `commit()`
//! already ran, in which case the commit stands, as in classic DTrace) and the ERROR probe
//! fires at once with `arg1` = EPID, `arg2` = action index (0 for the predicate, N for the
//! N-th DIFO of the statement's action values counted from 1), `arg3` = DIF byte offset
//! (instruction index × 4, −1 when the fault happened while recording a value), `arg4` =
//! fault code, `arg5` = address or value. A fault inside an ERROR clause only increments
//! the "error in ERROR probe enabling" counter.
//!
//! # Aggregations
//!
//! For `Aggregate` actions the first `keys.len()` values are the key (written at their
//! slots into a `key_size`-byte buffer; slots default to the aggregation description's),
//! the next value is the function's argument (absent for `count()`) and the one after it,
//! if present, the increment (default 1). Further values are ignored. Each CPU keeps its
//! own values; `aggsize` bytes per CPU bound the number of entries (an entry costs its key,
//! its value words and 64 bytes), and a new entry that does not fit counts an aggregation
//! drop.
//!
//! # exit()
//!
//! `exit()` records its status, and the engine starts draining: later statements of the
//! same firing and later firings do nothing, except for the END and ERROR probes.

use std::collections::{BTreeMap, HashMap};

use super::context::{ErrorProbeContext, ProbeFiringContext};
use super::fault::{DifFault, RuntimeFault};
use super::machine::{execute_difo, MachineOptions, MachineState, ProbeIdentity};
use super::records::{write_value, RecordedValue};
use crate::aggregation::{AggregationError, AggregationRule};
use crate::difo::{DifType, VariableScope};
use crate::engine::{
    AggregationEntry, DropCounters, EngineOptions, AGGREGATION_ENTRY_OVERHEAD,
    MAX_AGGREGATION_KEY_SIZE,
};
use crate::object::{
    Action, ActionKind, ActionValue, AggregationDescription, CompiledProgram, EnabledProbe,
    RecordSlot, Statement, LAST_SIGNAL_NUMBER, PROBE_ID_END, PROBE_ID_ERROR, RECORD_HEADER_SIZE,
    STOP_SIGNAL_NUMBER,
};

/// Why a program cannot run on the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// An enabled probe names a statement the program does not have.
    StatementOutOfRange { epid: u32, statement: usize },
    /// Two aggregation descriptions share an id.
    DuplicateAggregation { aggregation: u32 },
    /// An aggregation's histogram parameters are unusable.
    InvalidAggregation {
        aggregation: u32,
        error: AggregationError,
    },
    /// An aggregation key is larger than [`MAX_AGGREGATION_KEY_SIZE`] or a key slot lies
    /// outside it.
    InvalidAggregationKey { aggregation: u32 },
    /// An `Aggregate` action names an aggregation the program does not describe.
    UnknownAggregation { statement: usize, aggregation: u32 },
    /// A recorded value's slot lies outside its statement's record.
    SlotOutOfRange { statement: usize, action: usize },
    /// An action no engine on Linux carries out (see
    /// [`ActionKind::unsupported_on_linux`]).
    UnsupportedAction {
        statement: usize,
        what: &'static str,
    },
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::StatementOutOfRange { epid, statement } => {
                write!(
                    f,
                    "enabled probe {epid} names missing statement {statement}"
                )
            }
            EngineError::DuplicateAggregation { aggregation } => {
                write!(f, "aggregation id {aggregation} is described twice")
            }
            EngineError::InvalidAggregation { aggregation, error } => {
                write!(f, "aggregation id {aggregation}: {error}")
            }
            EngineError::InvalidAggregationKey { aggregation } => {
                write!(f, "aggregation id {aggregation} has an invalid key layout")
            }
            EngineError::UnknownAggregation {
                statement,
                aggregation,
            } => {
                write!(
                    f,
                    "statement {statement} uses undescribed aggregation id {aggregation}"
                )
            }
            EngineError::SlotOutOfRange { statement, action } => {
                write!(
                    f,
                    "statement {statement}, action {action}: record slot out of range"
                )
            }
            EngineError::UnsupportedAction { statement, what } => {
                write!(f, "statement {statement}: {what} is not supported on Linux")
            }
        }
    }
}

impl std::error::Error for EngineError {}

/// One fault reported to the ERROR probe during a firing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultReport {
    pub epid: u32,
    pub probe_id: u32,
    /// 0 for the predicate, N for the N-th action-value DIFO of the statement.
    pub action_index: u32,
    pub fault: DifFault,
}

/// What one call of [`Engine::fire`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FiringOutcome {
    /// Statements whose predicate passed (ERROR statements included).
    pub clauses_executed: u32,
    /// Records appended to principal buffers (committed speculations not counted).
    pub records_written: u32,
    /// Faults reported to the ERROR probe, in order.
    pub faults: Vec<FaultReport>,
    /// An `exit()` action ran.
    pub exit_requested: bool,
    /// Signals `raise()` and `stop()` asked for, in order; the engine's host sends them
    /// (the interpreter itself does no IO).
    pub signals: Vec<SignalRequest>,
}

/// A signal a destructive action asked to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalRequest {
    /// `raise(sig)`: to the thread the probe fired in.
    FiringThread(u64),
    /// `stop()`: to the process the probe fired in.
    FiringProcess(u64),
}

/// The read-only part of a session.
struct Setup {
    program: CompiledProgram,
    enabled_probes: Vec<EnabledProbe>,
    /// Probe id → indexes into `enabled_probes`, in EPID order.
    probes: HashMap<u32, Vec<usize>>,
    /// Aggregation id → (rule, index into `program.aggregations`).
    aggregations: HashMap<u32, (AggregationRule, usize)>,
    buffer_size: u64,
    aggregation_size: u64,
}

#[derive(Debug, Default)]
struct CpuState {
    principal: Vec<u8>,
    principal_drops: u64,
    aggregations: BTreeMap<(u32, Vec<u8>), Vec<i64>>,
    aggregation_bytes: u64,
    aggregation_drops: u64,
}

/// Where a statement's record goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Destination {
    Principal,
    Speculation(usize),
    /// `speculate()` found no room for the record: of 0, of an inactive speculation, or
    /// of a full one. As DTrace's `dtrace_probe()` flags a drop there, which ends the
    /// action loop, the rest of the clause does not run and nothing is recorded.
    Dropped,
}

/// A statement execution in progress.
struct ClauseProgress {
    record: Vec<u8>,
    destination: Destination,
    commits: Vec<usize>,
    difo_ordinal: u32,
}

/// The mutable part of a session.
struct Runtime {
    machine: MachineState,
    cpus: BTreeMap<u32, CpuState>,
    exit_status: Option<i64>,
    draining: bool,
    error_in_error_probe: u64,
}

/// One tracing session on the interpreter.
pub struct Engine {
    setup: Setup,
    runtime: Runtime,
}

fn slot_fits(slot: &RecordSlot, size: u32) -> bool {
    slot.offset
        .checked_add(slot.size)
        .is_some_and(|end| end <= size)
}

fn variable_types(program: &CompiledProgram) -> HashMap<(VariableScope, u16), DifType> {
    let mut types: HashMap<(VariableScope, u16), DifType> = program
        .variables
        .iter()
        .map(|variable| ((variable.scope, variable.id), variable.ty))
        .collect();
    let difos = program.statements.iter().flat_map(|statement| {
        statement.predicate.iter().chain(
            statement
                .actions
                .iter()
                .flat_map(|action| action.values.iter())
                .filter_map(|value| value.difo.as_ref()),
        )
    });
    for difo in difos {
        for variable in &difo.variable_table {
            types
                .entry((variable.scope, variable.id))
                .or_insert(variable.ty);
        }
    }
    types
}

fn check_aggregations(
    program: &CompiledProgram,
) -> Result<HashMap<u32, (AggregationRule, usize)>, EngineError> {
    let mut aggregations = HashMap::new();
    for (index, description) in program.aggregations.iter().enumerate() {
        let aggregation = description.id;
        let rule = AggregationRule::new(&description.function)
            .map_err(|error| EngineError::InvalidAggregation { aggregation, error })?;
        let keys_fit = description.key_size <= MAX_AGGREGATION_KEY_SIZE
            && description
                .keys
                .iter()
                .all(|slot| slot_fits(slot, description.key_size));
        if !keys_fit {
            return Err(EngineError::InvalidAggregationKey { aggregation });
        }
        if aggregations.insert(aggregation, (rule, index)).is_some() {
            return Err(EngineError::DuplicateAggregation { aggregation });
        }
    }
    Ok(aggregations)
}

fn check_statement(
    statement_index: usize,
    statement: &Statement,
    program: &CompiledProgram,
    aggregations: &HashMap<u32, (AggregationRule, usize)>,
) -> Result<(), EngineError> {
    for (action_index, action) in statement.actions.iter().enumerate() {
        if let Some(what) = action.kind.unsupported_on_linux() {
            return Err(EngineError::UnsupportedAction {
                statement: statement_index,
                what,
            });
        }
        let slot_error = EngineError::SlotOutOfRange {
            statement: statement_index,
            action: action_index,
        };
        let size = match action.kind {
            ActionKind::Aggregate { aggregation } => {
                let (_, index) =
                    aggregations
                        .get(&aggregation)
                        .ok_or(EngineError::UnknownAggregation {
                            statement: statement_index,
                            aggregation,
                        })?;
                program.aggregations[*index].key_size
            }
            _ => statement.record_size,
        };
        let slots_fit = action
            .values
            .iter()
            .filter_map(|value| value.slot.as_ref())
            .all(|slot| slot_fits(slot, size));
        if !slots_fit {
            return Err(slot_error);
        }
    }
    Ok(())
}

impl Engine {
    /// A session running `program` on the probes of `enabled_probes`.
    pub fn new(
        program: CompiledProgram,
        enabled_probes: Vec<EnabledProbe>,
        options: EngineOptions,
    ) -> Result<Engine, EngineError> {
        let aggregations = check_aggregations(&program)?;
        for (index, statement) in program.statements.iter().enumerate() {
            check_statement(index, statement, &program, &aggregations)?;
        }
        let mut probes: HashMap<u32, Vec<usize>> = HashMap::new();
        for (index, enabled) in enabled_probes.iter().enumerate() {
            if enabled.statement >= program.statements.len() {
                return Err(EngineError::StatementOutOfRange {
                    epid: enabled.epid,
                    statement: enabled.statement,
                });
            }
            probes.entry(enabled.probe_id).or_default().push(index);
        }
        for indexes in probes.values_mut() {
            indexes.sort_by_key(|&index| enabled_probes[index].epid);
        }
        let machine_options = MachineOptions::from_engine_options(&options);
        let machine = MachineState::new(&machine_options, variable_types(&program));
        Ok(Engine {
            setup: Setup {
                program,
                enabled_probes,
                probes,
                aggregations,
                buffer_size: options.buffer_size,
                aggregation_size: options.aggregation_size,
            },
            runtime: Runtime {
                machine,
                cpus: BTreeMap::new(),
                exit_status: None,
                draining: false,
                error_in_error_probe: 0,
            },
        })
    }

    /// The program being run.
    pub fn program(&self) -> &CompiledProgram {
        &self.setup.program
    }

    /// The enabled-probe table.
    pub fn enabled_probes(&self) -> &[EnabledProbe] {
        &self.setup.enabled_probes
    }

    /// Probe `probe_id` fired in `context`: runs every statement enabled on it, in EPID
    /// order.
    pub fn fire(&mut self, probe_id: u32, context: &dyn ProbeFiringContext) -> FiringOutcome {
        let mut outcome = FiringOutcome::default();
        self.runtime
            .fire_probe(&self.setup, probe_id, context, false, &mut outcome);
        outcome
    }

    /// Takes everything recorded in `cpu`'s principal buffer so far.
    pub fn take_buffer(&mut self, cpu: u32) -> Vec<u8> {
        match self.runtime.cpus.get_mut(&cpu) {
            Some(state) => std::mem::take(&mut state.principal),
            None => Vec::new(),
        }
    }

    /// CPUs whose principal buffer holds records.
    pub fn buffered_cpus(&self) -> Vec<u32> {
        let cpus = self.runtime.cpus.iter();
        cpus.filter(|(_, state)| !state.principal.is_empty())
            .map(|(cpu, _)| *cpu)
            .collect()
    }

    /// The update and merge rule (and bucket labels) of aggregation `id`.
    pub fn aggregation_rule(&self, id: u32) -> Option<&AggregationRule> {
        self.setup.aggregations.get(&id).map(|(rule, _)| rule)
    }

    /// The description of aggregation `id`.
    pub fn aggregation_description(&self, id: u32) -> Option<&AggregationDescription> {
        let (_, index) = self.setup.aggregations.get(&id)?;
        self.setup.program.aggregations.get(*index)
    }

    /// Every aggregation entry with its per-CPU values merged, sorted by aggregation id
    /// and key bytes. Storage is left as it is.
    pub fn aggregation_snapshot(&self) -> Vec<AggregationEntry> {
        let mut merged: BTreeMap<(u32, Vec<u8>), Vec<i64>> = BTreeMap::new();
        for state in self.runtime.cpus.values() {
            for ((aggregation, key), value) in &state.aggregations {
                match merged.get_mut(&(*aggregation, key.clone())) {
                    Some(into) => {
                        if let Some(rule) = self.aggregation_rule(*aggregation) {
                            rule.merge(into, value);
                        }
                    }
                    None => {
                        merged.insert((*aggregation, key.clone()), value.clone());
                    }
                }
            }
        }
        merged
            .into_iter()
            .map(|((aggregation, key), value)| AggregationEntry {
                aggregation,
                key,
                value,
                per_cpu: Vec::new(),
            })
            .collect()
    }

    /// Every aggregation entry of every CPU, without merging.
    pub fn aggregation_snapshot_per_cpu(&self) -> BTreeMap<u32, Vec<AggregationEntry>> {
        let cpus = self.runtime.cpus.iter();
        cpus.map(|(cpu, state)| (*cpu, entries_of(&state.aggregations)))
            .collect()
    }

    /// Takes every CPU's aggregation entries, leaving the storage empty (as classic
    /// DTrace's aggregation snapshot drains the kernel's buffers).
    pub fn drain_aggregations(&mut self) -> BTreeMap<u32, Vec<AggregationEntry>> {
        let mut drained = BTreeMap::new();
        for (cpu, state) in &mut self.runtime.cpus {
            drained.insert(*cpu, entries_of(&std::mem::take(&mut state.aggregations)));
            state.aggregation_bytes = 0;
        }
        drained
    }

    /// Cumulative drop and error counters.
    pub fn drops(&self) -> DropCounters {
        let runtime = &self.runtime;
        let per_cpu = |count: fn(&CpuState) -> u64| {
            let cpus = runtime.cpus.iter();
            cpus.filter(|(_, state)| count(state) != 0)
                .map(|(cpu, state)| (*cpu, count(state)))
                .collect()
        };
        DropCounters {
            principal: per_cpu(|state| state.principal_drops),
            aggregation: per_cpu(|state| state.aggregation_drops),
            dynamic: runtime.machine.variables.dynamic_drops(),
            speculative: runtime.machine.speculations.drops(),
            speculation_unavailable: runtime.machine.speculations.unavailable(),
            speculation_busy: runtime.machine.speculations.busy(),
            error_in_error_probe: runtime.error_in_error_probe,
        }
    }

    /// The status of the last `exit()` action, if one ran.
    pub fn exit_status(&self) -> Option<i64> {
        self.runtime.exit_status
    }

    /// Whether `exit()` ran: only END and ERROR still fire.
    pub fn is_draining(&self) -> bool {
        self.runtime.draining
    }
}

fn entries_of(aggregations: &BTreeMap<(u32, Vec<u8>), Vec<i64>>) -> Vec<AggregationEntry> {
    aggregations
        .iter()
        .map(|((aggregation, key), value)| AggregationEntry {
            aggregation: *aggregation,
            key: key.clone(),
            value: value.clone(),
            per_cpu: Vec::new(),
        })
        .collect()
}

impl Runtime {
    fn may_fire(&self, probe_id: u32) -> bool {
        !self.draining || probe_id == PROBE_ID_END || probe_id == PROBE_ID_ERROR
    }

    fn fire_probe(
        &mut self,
        setup: &Setup,
        probe_id: u32,
        context: &dyn ProbeFiringContext,
        in_error_firing: bool,
        outcome: &mut FiringOutcome,
    ) {
        let Some(enablings) = setup.probes.get(&probe_id) else {
            return;
        };
        self.machine.begin_firing();
        for &index in enablings {
            if !self.may_fire(probe_id) {
                break;
            }
            self.run_statement(setup, index, context, in_error_firing, outcome);
        }
    }

    fn run_statement(
        &mut self,
        setup: &Setup,
        enabled_index: usize,
        context: &dyn ProbeFiringContext,
        in_error_firing: bool,
        outcome: &mut FiringOutcome,
    ) {
        let enabled = &setup.enabled_probes[enabled_index];
        let statement = &setup.program.statements[enabled.statement];
        let identity = ProbeIdentity {
            epid: enabled.epid,
            probe_id: enabled.probe_id,
            probe: &enabled.probe,
        };
        let cpu = context.cpu();
        self.machine.begin_clause();

        let records = statement.writes_record();
        let record_length = RECORD_HEADER_SIZE as u64 + statement.record_size as u64;
        if records {
            let state = self.cpus.entry(cpu).or_default();
            if state.principal.len() as u64 + record_length > setup.buffer_size {
                state.principal_drops += 1;
                return;
            }
        }
        if let Some(predicate) = &statement.predicate {
            match execute_difo(predicate, &mut self.machine, &identity, context) {
                Ok(0) => return,
                Ok(_) => {}
                Err(fault) => {
                    self.report_fault(
                        setup,
                        &identity,
                        0,
                        fault,
                        context,
                        in_error_firing,
                        outcome,
                    );
                    return;
                }
            }
        }
        outcome.clauses_executed += 1;

        let mut record = Vec::new();
        if records {
            record.resize(record_length as usize, 0);
            record[..4].copy_from_slice(&enabled.epid.to_le_bytes());
        }
        let mut progress = ClauseProgress {
            record,
            destination: Destination::Principal,
            commits: Vec::new(),
            difo_ordinal: 0,
        };
        for action in &statement.actions {
            if progress.destination == Destination::Dropped {
                return;
            }
            if let Err(fault) =
                self.run_action(setup, action, &identity, context, &mut progress, outcome)
            {
                let action_index = progress.difo_ordinal;
                if !progress.commits.is_empty() {
                    self.finish_statement(setup, (cpu, context.timestamp()), progress, outcome);
                }
                self.report_fault(
                    setup,
                    &identity,
                    action_index,
                    fault,
                    context,
                    in_error_firing,
                    outcome,
                );
                return;
            }
        }
        self.finish_statement(setup, (cpu, context.timestamp()), progress, outcome);
    }

    /// Stores the statement's record where it belongs, then performs its commits (on
    /// `cpu` at time `now`, ns).
    fn finish_statement(
        &mut self,
        setup: &Setup,
        (cpu, now): (u32, u64),
        progress: ClauseProgress,
        outcome: &mut FiringOutcome,
    ) {
        if !progress.record.is_empty() {
            match progress.destination {
                Destination::Principal => {
                    if self.append_principal(setup, cpu, &progress.record) {
                        outcome.records_written += 1;
                    }
                }
                Destination::Speculation(index) => {
                    self.machine
                        .speculations
                        .append(index, cpu, &progress.record)
                }
                Destination::Dropped => {}
            }
        }
        for index in progress.commits {
            let committed = self.machine.speculations.commit(index, cpu, now);
            for (speculation_cpu, records) in committed {
                self.append_principal(setup, speculation_cpu, &records);
            }
        }
    }

    /// Appends to a principal buffer, or counts a drop when it is full.
    fn append_principal(&mut self, setup: &Setup, cpu: u32, bytes: &[u8]) -> bool {
        let state = self.cpus.entry(cpu).or_default();
        if state.principal.len() as u64 + bytes.len() as u64 > setup.buffer_size {
            state.principal_drops += 1;
            return false;
        }
        state.principal.extend_from_slice(bytes);
        true
    }

    fn evaluate(
        &mut self,
        value: &ActionValue,
        identity: &ProbeIdentity<'_>,
        context: &dyn ProbeFiringContext,
        progress: &mut ClauseProgress,
    ) -> Result<RecordedValue, DifFault> {
        match &value.difo {
            Some(difo) => {
                progress.difo_ordinal += 1;
                let result = execute_difo(difo, &mut self.machine, identity, context)?;
                Ok(RecordedValue::Computed {
                    value: result,
                    ty: difo.return_type,
                })
            }
            None => Ok(RecordedValue::Captured),
        }
    }

    fn run_action(
        &mut self,
        setup: &Setup,
        action: &Action,
        identity: &ProbeIdentity<'_>,
        context: &dyn ProbeFiringContext,
        progress: &mut ClauseProgress,
        outcome: &mut FiringOutcome,
    ) -> Result<(), DifFault> {
        if let ActionKind::Aggregate { aggregation } = action.kind {
            return self.run_aggregation(setup, aggregation, action, identity, context, progress);
        }
        let mut first_value = None;
        for value in &action.values {
            let recorded = self.evaluate(value, identity, context, progress)?;
            if first_value.is_none() {
                first_value = Some(match recorded {
                    RecordedValue::Computed { value, .. } => value,
                    RecordedValue::Captured => 0,
                });
            }
            if let (Some(slot), Some(data)) = (
                &value.slot,
                progress.record.get_mut(RECORD_HEADER_SIZE as usize..),
            ) {
                write_value(data, slot, recorded, &self.machine.memory, context)
                    .map_err(DifFault::outside_code)?;
            }
        }
        let first_value = first_value.unwrap_or(0);
        let speculations = &mut self.machine.speculations;
        match action.kind {
            ActionKind::Exit => {
                self.exit_status = Some(first_value as i64);
                self.draining = true;
                outcome.exit_requested = true;
            }
            ActionKind::Speculate => {
                let length = progress.record.len() as u64;
                progress.destination = match speculations
                    .index_of(first_value)
                    .map_err(DifFault::outside_code)?
                {
                    Some(index) if speculations.reserve(index, context.cpu(), length) => {
                        Destination::Speculation(index)
                    }
                    _ => Destination::Dropped,
                };
            }
            ActionKind::Commit => {
                if let Some(index) = speculations
                    .index_of(first_value)
                    .map_err(DifFault::outside_code)?
                {
                    progress.commits.push(index);
                }
            }
            ActionKind::Discard => {
                if let Some(index) = speculations
                    .index_of(first_value)
                    .map_err(DifFault::outside_code)?
                {
                    // DTrace copies a speculation at its commit(), so a discard() later
                    // in the same clause finds it inactive: the commit stands.
                    if !progress.commits.contains(&index) {
                        speculations.discard(index, context.cpu(), context.timestamp());
                    }
                }
            }
            ActionKind::Raise => {
                if first_value > LAST_SIGNAL_NUMBER {
                    return Err(DifFault::outside_code(RuntimeFault::illegal_operation(
                        first_value,
                    )));
                }
                if first_value != 0 {
                    outcome
                        .signals
                        .push(SignalRequest::FiringThread(first_value));
                }
            }
            ActionKind::Stop => {
                outcome
                    .signals
                    .push(SignalRequest::FiringProcess(STOP_SIGNAL_NUMBER));
            }
            _ => {}
        }
        Ok(())
    }

    fn run_aggregation(
        &mut self,
        setup: &Setup,
        aggregation: u32,
        action: &Action,
        identity: &ProbeIdentity<'_>,
        context: &dyn ProbeFiringContext,
        progress: &mut ClauseProgress,
    ) -> Result<(), DifFault> {
        let Some((rule, index)) = setup.aggregations.get(&aggregation) else {
            return Ok(());
        };
        let description = &setup.program.aggregations[*index];
        let mut key = vec![0u8; description.key_size as usize];
        let mut arguments = Vec::new();
        for (position, value) in action.values.iter().enumerate() {
            let recorded = self.evaluate(value, identity, context, progress)?;
            match value.slot.as_ref().or(description.keys.get(position)) {
                Some(slot) if position < description.keys.len() => {
                    write_value(&mut key, slot, recorded, &self.machine.memory, context)
                        .map_err(DifFault::outside_code)?;
                }
                _ => arguments.push(match recorded {
                    RecordedValue::Computed { value, .. } => value as i64,
                    RecordedValue::Captured => 0,
                }),
            }
        }
        let argument = arguments.first().copied().unwrap_or(0);
        let increment = arguments.get(1).copied().unwrap_or(1);
        let state = self.cpus.entry(context.cpu()).or_default();
        let entry_key = (aggregation, key);
        if let Some(words) = state.aggregations.get_mut(&entry_key) {
            rule.update(words, argument, increment);
            return Ok(());
        }
        let cost =
            AGGREGATION_ENTRY_OVERHEAD + entry_key.1.len() as u64 + 8 * rule.word_count() as u64;
        // The buffer always holds one entry, however small `aggsize` is (the kernel
        // engine's map holds at least one entry too); the enabling refuses an `aggsize`
        // smaller than the entry's key and value.
        if state.aggregation_bytes > 0
            && state.aggregation_bytes.saturating_add(cost) > setup.aggregation_size
        {
            state.aggregation_drops += 1;
            return Ok(());
        }
        let mut words = rule.initial_value();
        rule.update(&mut words, argument, increment);
        state.aggregations.insert(entry_key, words);
        state.aggregation_bytes += cost;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn report_fault(
        &mut self,
        setup: &Setup,
        identity: &ProbeIdentity<'_>,
        action_index: u32,
        fault: DifFault,
        context: &dyn ProbeFiringContext,
        in_error_firing: bool,
        outcome: &mut FiringOutcome,
    ) {
        if in_error_firing {
            self.error_in_error_probe += 1;
            return;
        }
        outcome.faults.push(FaultReport {
            epid: identity.epid,
            probe_id: identity.probe_id,
            action_index,
            fault,
        });
        let error_context = ErrorProbeContext::new(
            context,
            [
                0,
                identity.epid as u64,
                action_index as u64,
                fault.dif_offset() as u64,
                fault.code as u32 as u64,
                fault.value,
            ],
        );
        let saved = self.machine.take_firing_state();
        self.fire_probe(setup, PROBE_ID_ERROR, &error_context, true, outcome);
        self.machine.restore_firing_state(saved);
    }
}
