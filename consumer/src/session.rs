//! The tracing session: drives an engine from BEGIN to END, consumes its buffers in
//! record order, prints per-firing output, applies the consumer-side actions (printa,
//! clear, trunc, normalize, setopt, exit, …), reports drops and runtime errors, and prints
//! the aggregations at the end (D-REFERENCE.md §12.4–§12.6, §8.3).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::time::Duration;

use difvm::aggregation::AggregationRule;
use difvm::interp::engine::{AggregationEntry, DropCounters};
use difvm::object::{ActionKind, CompiledProgram, EnabledProbe, StatementRole};

use crate::aggregation_output::{
    AggregationLayoutOptions, AggregationPrinter, AggregationSortOptions, AggregationTable,
    AggregationView,
};
use crate::engine::TracingEngine;
use crate::messages::{drop_message, DropKind, RuntimeFault};
use crate::printf::symbols::NoSymbols;
use crate::printf::PrintfContext;
use crate::record::{decode_record, EnabledProbeIndex, RecordValue};
use crate::signals::interrupt_count;
use crate::trace_output::{RecordContext, TraceOutputOptions, TraceRenderer};

/// How the session prints and paces itself (from the options in effect).
#[derive(Debug, Clone)]
pub struct SessionSettings {
    pub trace: TraceOutputOptions,
    pub sort: AggregationSortOptions,
    /// Prefix drop messages with `[DTRACEDROP_*]`.
    pub droptags: bool,
    /// How long to wait between buffer reads (`switchrate`).
    pub switch_interval: Duration,
    /// The `-c`/`-p` process, for `%A` and user symbols.
    pub target_pid: Option<u64>,
}

/// The session's view of the `-c`/`-p` processes.
pub trait TargetWatch {
    /// Called once BEGIN has fired: `-c` processes held before `exec` may now run.
    fn tracing_started(&mut self) -> Result<(), String> {
        Ok(())
    }
    /// True once all target processes are gone (always false with no targets).
    fn all_exited(&mut self) -> bool;
}

/// A session without target processes.
pub struct NoTargets;

impl TargetWatch for NoTargets {
    fn all_exited(&mut self) -> bool {
        false
    }
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionOutcome {
    /// The status of the last `exit()` consumed, or 0.
    pub exit_status: i32,
}

/// The consumer side of a session.
pub struct Session<'o> {
    program: CompiledProgram,
    enabled_probes: Vec<EnabledProbe>,
    settings: SessionSettings,
    renderer: TraceRenderer,
    aggregations: BTreeMap<u32, AggregationTable>,
    printed_aggregations: BTreeSet<u32>,
    output: &'o mut dyn Write,
    exit_status: Option<i64>,
    reported_drops: DropCounters,
}

impl<'o> Session<'o> {
    /// A session printing `program`'s records to `output`.
    pub fn new(
        program: CompiledProgram,
        enabled_probes: Vec<EnabledProbe>,
        settings: SessionSettings,
        output: &'o mut dyn Write,
    ) -> Session<'o> {
        let renderer = TraceRenderer::new(settings.trace);
        let aggregations = program
            .aggregations
            .iter()
            .map(|aggregation| (aggregation.id, AggregationTable::new()))
            .collect();
        Session {
            program,
            enabled_probes,
            settings,
            renderer,
            aggregations,
            printed_aggregations: BTreeSet::new(),
            output,
            exit_status: None,
            reported_drops: DropCounters::default(),
        }
    }

    /// Runs the session to its end: BEGIN, consume until `exit()`, a signal or the end of
    /// the target processes, END, the final consumption and the aggregation report.
    pub fn run(
        &mut self,
        engine: &mut dyn TracingEngine,
        targets: &mut dyn TargetWatch,
    ) -> Result<SessionOutcome, String> {
        engine.go()?;
        targets.tracing_started()?;
        loop {
            let buffers = engine.poll(self.settings.switch_interval);
            self.consume(engine, buffers)?;
            self.report_drops(engine);
            if interrupt_count() > 0 {
                // dtrace(1) prints a newline when interrupted, to leave the ^C on its own line.
                self.write("\n")?;
                break;
            }
            if engine.exit_requested() || targets.all_exited() {
                break;
            }
        }
        engine.stop();
        let buffers = engine.poll(Duration::ZERO);
        self.consume(engine, buffers)?;
        self.report_drops(engine);
        // dtrace(1) always writes a newline once tracing has stopped, quiet or not, before
        // the aggregations (§12.4 step 8, §8.3).
        self.write("\n")?;
        // A second signal makes dtrace impatient: it skips the aggregation report.
        if interrupt_count() < 2 {
            self.absorb_aggregations(engine.drain_aggregations());
            self.print_unprinted_aggregations()?;
        }
        self.output
            .flush()
            .map_err(|error| format!("failed to write output: {error}"))?;
        Ok(SessionOutcome {
            exit_status: self.exit_status.unwrap_or(0) as i32,
        })
    }

    fn write(&mut self, text: &str) -> Result<(), String> {
        self.output
            .write_all(text.as_bytes())
            .map_err(|error| format!("failed to write output: {error}"))
    }

    /// Merges drained per-CPU aggregation data into the consumer's tables.
    fn absorb_aggregations(&mut self, entries: Vec<AggregationEntry>) {
        for entry in entries {
            let Some(description) = self
                .program
                .aggregations
                .iter()
                .find(|a| a.id == entry.aggregation)
            else {
                continue;
            };
            let Ok(rule) = AggregationRule::new(&description.function) else {
                continue;
            };
            let table = self.aggregations.entry(entry.aggregation).or_default();
            match table.entries.get_mut(&entry.key) {
                Some(words) => rule.merge(words, &entry.value),
                None => {
                    table.entries.insert(entry.key, entry.value);
                }
            }
        }
    }

    /// Processes buffers record by record, in buffer order.
    fn consume(
        &mut self,
        engine: &mut dyn TracingEngine,
        buffers: Vec<(u32, Vec<u8>)>,
    ) -> Result<(), String> {
        for (cpu, buffer) in buffers {
            let statements = self.program.statements.clone();
            let enabled_probes = self.enabled_probes.clone();
            let index = EnabledProbeIndex::new(&enabled_probes, &statements);
            let records = index
                .split(&buffer)
                .map_err(|error| format!("processing aborted: {error}"))?;
            for (position, record) in records.iter().enumerate() {
                let Some((enabled, statement)) = index.lookup(record.epid) else {
                    return Err(format!(
                        "processing aborted: unknown enabled probe id {}",
                        record.epid
                    ));
                };
                let values = decode_record(statement, record.data)
                    .map_err(|error| format!("processing aborted: {error}"))?;
                if statement.role == StatementRole::DefaultErrorHandler {
                    self.report_runtime_error(&index, &values);
                    continue;
                }
                let next_record = records.get(position + 1).and_then(|next| {
                    index
                        .lookup(next.epid)
                        .map(|(next_enabled, _)| (next.epid, next_enabled.probe_id))
                });
                let mut text = String::new();
                self.renderer.begin_record(
                    &mut text,
                    &RecordContext {
                        cpu,
                        epid: record.epid,
                        probe_id: enabled.probe_id,
                        probe: &enabled.probe,
                        next_record,
                    },
                );
                for (action, action_values) in statement.actions.iter().zip(values.iter()) {
                    self.apply_action(engine, &mut text, &action.kind, action, action_values)?;
                }
                self.renderer.end_record(&mut text);
                self.write(&text)?;
            }
        }
        Ok(())
    }

    fn report_runtime_error(
        &mut self,
        index: &EnabledProbeIndex<'_>,
        values: &[Vec<RecordValue<'_>>],
    ) {
        let flat: Vec<RecordValue<'_>> = values.iter().flatten().cloned().collect();
        let fault = RuntimeFault::from_error_record(&flat, |epid| {
            index
                .lookup(epid)
                .map(|(enabled, _)| (enabled.probe_id, enabled.probe.clone()))
        });
        if let Some(fault) = fault {
            let _ = self.output.flush();
            eprintln!("dtrace: {}", fault.message());
        }
    }

    fn apply_action(
        &mut self,
        engine: &mut dyn TracingEngine,
        text: &mut String,
        kind: &ActionKind,
        action: &difvm::object::Action,
        values: &[RecordValue<'_>],
    ) -> Result<(), String> {
        let resolver = NoSymbols;
        let context = PrintfContext {
            resolver: &resolver,
            target_pid: self.settings.target_pid,
        };
        match kind {
            ActionKind::Exit => {
                if let Some(status) = values.first().and_then(RecordValue::as_i64) {
                    self.exit_status = Some(status);
                }
            }
            ActionKind::Printa {
                format,
                aggregations,
            } => {
                self.absorb_aggregations(engine.drain_aggregations());
                self.print_aggregations(text, format.as_deref(), aggregations)?;
            }
            ActionKind::Clear { aggregation } => {
                self.absorb_aggregations(engine.drain_aggregations());
                if let Some(table) = self.aggregations.get_mut(aggregation) {
                    table.clear_values();
                }
            }
            ActionKind::Trunc { aggregation } => {
                self.absorb_aggregations(engine.drain_aggregations());
                let keep = values.first().and_then(RecordValue::as_i64);
                if let (Some(table), Some(description)) = (
                    self.aggregations.get_mut(aggregation),
                    self.program
                        .aggregations
                        .iter()
                        .find(|a| a.id == *aggregation),
                ) {
                    if let Ok(rule) = AggregationRule::new(&description.function) {
                        table.truncate(&rule, description, keep);
                    }
                }
            }
            ActionKind::Normalize { aggregation } => {
                let divisor = values.first().and_then(RecordValue::as_i64).unwrap_or(1);
                if let Some(table) = self.aggregations.get_mut(aggregation) {
                    table.normalize(divisor as u64);
                }
            }
            ActionKind::Denormalize { aggregation } => {
                if let Some(table) = self.aggregations.get_mut(aggregation) {
                    table.denormalize();
                }
            }
            ActionKind::System { .. } => {
                if let Some(command) = self
                    .renderer
                    .format_action_string(action, values, &context)
                    .map_err(|e| e.to_string())?
                {
                    self.write(text)?;
                    text.clear();
                    let _ = self.output.flush();
                    let _ = std::process::Command::new("/bin/sh")
                        .arg("-c")
                        .arg(&command)
                        .status();
                }
            }
            _ => {
                self.renderer
                    .render_action(text, action, values, &context)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    fn print_aggregations(
        &mut self,
        text: &mut String,
        format: Option<&str>,
        ids: &[u32],
    ) -> Result<(), String> {
        let resolver = NoSymbols;
        let printer = AggregationPrinter {
            sort: self.settings.sort,
            layout: AggregationLayoutOptions {
                stack_indent: self.settings.trace.stack_indent,
                raw_bytes: self.settings.trace.raw_bytes,
            },
            resolver: &resolver,
        };
        let empty = AggregationTable::new();
        let mut views = Vec::new();
        for id in ids {
            let Some(description) = self.program.aggregations.iter().find(|a| a.id == *id) else {
                continue;
            };
            let table = self.aggregations.get(id).unwrap_or(&empty);
            views.push(AggregationView::new(description, table).map_err(|e| e.to_string())?);
        }
        let printed = match format {
            None => printer.render_printa(text, &views),
            Some(format) => {
                let parsed = self
                    .renderer
                    .parsed_format(format)
                    .map_err(|e| e.to_string())?
                    .clone();
                printer
                    .render_printa_formatted(text, &parsed, &views, self.settings.target_pid)
                    .map_err(|e| e.to_string())?
            }
        };
        if printed || !views.is_empty() {
            self.printed_aggregations.extend(ids.iter().copied());
        }
        Ok(())
    }

    fn print_unprinted_aggregations(&mut self) -> Result<(), String> {
        let resolver = NoSymbols;
        let printer = AggregationPrinter {
            sort: self.settings.sort,
            layout: AggregationLayoutOptions {
                stack_indent: self.settings.trace.stack_indent,
                raw_bytes: self.settings.trace.raw_bytes,
            },
            resolver: &resolver,
        };
        let mut views = Vec::new();
        for description in &self.program.aggregations {
            if self.printed_aggregations.contains(&description.id) {
                continue;
            }
            let Some(table) = self.aggregations.get(&description.id) else {
                continue;
            };
            if table.entries.is_empty() {
                continue;
            }
            views.push(AggregationView::new(description, table).map_err(|e| e.to_string())?);
        }
        if views.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        printer.render_unprinted(&mut text, &views, |_| false);
        self.write(&text)
    }

    /// Prints the drops counted since the last report, as dtrace(1) does at each status check.
    fn report_drops(&mut self, engine: &dyn TracingEngine) {
        let current = engine.drops();
        let droptags = self.settings.droptags;
        let mut messages = Vec::new();
        for (cpu, count) in &current.principal {
            let delta = count - self.reported_drops.principal.get(cpu).copied().unwrap_or(0);
            if delta > 0 {
                messages.push(drop_message(DropKind::Principal, delta, *cpu, droptags));
            }
        }
        for (cpu, count) in &current.aggregation {
            let delta = count
                - self
                    .reported_drops
                    .aggregation
                    .get(cpu)
                    .copied()
                    .unwrap_or(0);
            if delta > 0 {
                messages.push(drop_message(DropKind::Aggregation, delta, *cpu, droptags));
            }
        }
        let scalar_counters = [
            (
                DropKind::Dynamic,
                current.dynamic,
                self.reported_drops.dynamic,
            ),
            (
                DropKind::Speculative,
                current.speculative,
                self.reported_drops.speculative,
            ),
            (
                DropKind::SpeculationBusy,
                current.speculation_busy,
                self.reported_drops.speculation_busy,
            ),
            (
                DropKind::SpeculationUnavailable,
                current.speculation_unavailable,
                self.reported_drops.speculation_unavailable,
            ),
            (
                DropKind::DoubleError,
                current.error_in_error_probe,
                self.reported_drops.error_in_error_probe,
            ),
        ];
        for (kind, now, before) in scalar_counters {
            if now > before {
                messages.push(drop_message(kind, now - before, 0, droptags));
            }
        }
        if !messages.is_empty() {
            let _ = self.output.flush();
            for message in messages {
                eprintln!("dtrace: {message}");
            }
        }
        self.reported_drops = current;
    }
}
