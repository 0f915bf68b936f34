//! The tracing session: drives an engine from BEGIN to END, consumes its buffers in
//! record order, prints per-firing output, applies the consumer-side actions (printa,
//! clear, trunc, normalize, setopt, freopen, ftruncate, system, exit, …), reports drops
//! and runtime errors, and prints the aggregations at the end (D-REFERENCE.md
//! §12.4–§12.6, §8.3).

use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::{Duration, Instant};

use difvm::engine::{AggregationEntry, DropCounters};
use difvm::format::PrintfFormat;
use difvm::object::{
    ActionKind, CompiledProgram, EnabledProbe, StatementRole, FREOPEN_RESTORE_TOKEN,
};

use crate::aggregation_state::table::AggregationTable;
use crate::aggregation_state::AggregationState;
use crate::drop_reports::DropReporter;
use crate::engine::TracingEngine;
use crate::messages::{
    describe_io_error, library_error_message, MessageSink, RuntimeFault, StandardStreams,
};
use crate::options::{OptionOrigin, OptionSet};
use crate::record::{decode_record, EnabledProbeIndex, RecordValue};
use crate::render::aggregation::{AggregationLayoutOptions, AggregationPrinter};
use crate::render::aggregation_view::AggregationView;
use crate::render::printf::PrintfContext;
use crate::render::symbols::SymbolResolver;
use crate::render::trace::{parsed_format, RecordContext, TraceRenderer};
use crate::session_output::{OutputFile, SessionOutput};
use crate::settings::{aggregation_interval, per_cpu_aggregations, SessionSettings};
use crate::signals::interrupt_count;
use crate::symbolize::aggregation_keys::SymbolKeyNormalizer;
use crate::symbolize::{SystemSymbolOptions, SystemSymbols};

/// The session's view of the `-c`/`-p` processes.
pub trait TargetWatch {
    /// Called once BEGIN has fired: `-c` processes held before `exec` may now run.
    fn tracing_started(&mut self) -> Result<(), String> {
        Ok(())
    }
    /// True once all target processes are gone (always false with no targets); the
    /// notices about the processes seen to exit (`pid N has exited`, …) go to
    /// `messages`.
    fn report_exits(&mut self, messages: &dyn MessageSink) -> bool;
    /// Whether there are processes to watch, whose exit ends tracing.
    fn watches_processes(&self) -> bool {
        false
    }
}

/// The longest wait between two checks of the target processes: dtrace(1) wakes as
/// soon as a `-c`/`-p` process ends, before its next buffer switch, so that probes
/// (a `tick-1s` with `exit()`) do not fire on long after the process is gone.
const TARGET_EXIT_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// A session without target processes.
pub struct NoTargets;

impl TargetWatch for NoTargets {
    fn report_exits(&mut self, _messages: &dyn MessageSink) -> bool {
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
    /// The aggregations' merged data (and each CPU's part with `aggpercpu`).
    aggregations: AggregationState,
    /// Rewrites the symbol components of drained keys before they are merged.
    symbol_keys: SymbolKeyNormalizer,
    per_cpu_requested: bool,
    /// How often aggregations are snapshotted while tracing (`aggrate`).
    aggregation_interval: Duration,
    /// The options in effect, which `setopt()` changes while tracing.
    options: OptionSet,
    printed_aggregations: BTreeSet<u32>,
    /// Whether the pass over the buffers now being consumed has its aggregation
    /// snapshot: the first printa() of a pass takes it (so it shows what the probes
    /// aggregated before it fired) unless a clear() or trunc() took it first, and the
    /// actions after it in the pass see that data only, as with dtrace(1)'s one snapshot
    /// per pass: `trunc(@, 3); printa(@);` prints three entries even when a key is
    /// aggregated in between.
    snapshot_taken: bool,
    /// The output the session was made with (standard output or the `-o` file in
    /// dtrace(1)), which `freopen("")` restores.
    output: &'o mut dyn SessionOutput,
    /// The file the last `freopen()` opened, which takes all output until the next
    /// `freopen()`.
    reopened_output: Option<OutputFile>,
    exit_status: Option<i64>,
    /// The drops reported so far.
    drops: DropReporter,
    /// Turns the records' addresses into symbols (shared with the printers).
    symbols: Rc<dyn SymbolResolver + 'o>,
    /// Where drop reports, runtime errors and library errors go.
    messages: Rc<dyn MessageSink + 'o>,
}

impl<'o> Session<'o> {
    /// A session printing `program`'s records to `output`, with the system's symbols
    /// (watching the target process, if any, so that its stacks resolve after it exits).
    pub fn new(
        program: CompiledProgram,
        enabled_probes: Vec<EnabledProbe>,
        settings: SessionSettings,
        output: &'o mut dyn SessionOutput,
    ) -> Session<'o> {
        let symbols = SystemSymbols::new(SystemSymbolOptions::new(settings.target_pid));
        Session::with_symbol_resolver(program, enabled_probes, settings, output, Rc::new(symbols))
    }

    /// A session printing `program`'s records to `output`, resolving addresses with
    /// `symbols`.
    pub fn with_symbol_resolver(
        program: CompiledProgram,
        enabled_probes: Vec<EnabledProbe>,
        settings: SessionSettings,
        output: &'o mut dyn SessionOutput,
        symbols: Rc<dyn SymbolResolver + 'o>,
    ) -> Session<'o> {
        let renderer = TraceRenderer::new(settings.trace);
        let settings_droptags = settings.droptags;
        let aggregations = AggregationState::new(&program.aggregations);
        let symbol_keys = SymbolKeyNormalizer::new(&program.aggregations);
        Session {
            program,
            enabled_probes,
            settings,
            renderer,
            aggregations,
            symbol_keys,
            per_cpu_requested: false,
            aggregation_interval: Duration::from_secs(1),
            options: OptionSet::new(),
            printed_aggregations: BTreeSet::new(),
            snapshot_taken: false,
            output,
            reopened_output: None,
            exit_status: None,
            drops: DropReporter::new(settings_droptags),
            symbols,
            messages: Rc::new(StandardStreams),
        }
    }

    /// Reports drops, runtime errors, library errors and target exits to `messages`
    /// (standard error by default).
    pub fn set_message_sink(&mut self, messages: Rc<dyn MessageSink + 'o>) {
        self.messages = messages;
    }

    /// How often aggregations are snapshotted from the engine while tracing (`aggrate`,
    /// 1hz by default), besides `printa()`, `clear()`, `trunc()` and the end. Zero
    /// snapshots them at every buffer read.
    pub fn set_aggregation_rate(&mut self, interval: Duration) {
        self.aggregation_interval = interval;
    }

    /// Runs the session under `options`: the settings, the aggregation rate and
    /// `aggpercpu` follow them, and `setopt()` changes them while tracing. Without this
    /// call the session runs with the settings it was made with, and a `setopt()`
    /// starts from the default options.
    pub fn set_options(&mut self, options: OptionSet) {
        self.per_cpu_requested = per_cpu_aggregations(&options);
        self.follow_options(options);
    }

    /// Takes the dynamic settings from `options`: output, sorting, display, the switch
    /// and aggregation rates. (`aggpercpu` is not among them: per-CPU tables are laid
    /// out when tracing starts.)
    fn follow_options(&mut self, options: OptionSet) {
        self.settings = SessionSettings::from_options(&options, self.settings.target_pid);
        self.drops.set_droptags(self.settings.droptags);
        self.renderer.options = self.settings.trace;
        self.aggregation_interval = aggregation_interval(&options);
        self.options = options;
    }

    /// `setopt(name[, value])`, processed in buffer order: a dynamic option takes effect
    /// from the next record on; a failure is reported as a library error on the enabled
    /// probe that recorded it (tracing goes on), as `dt_setopt()` does.
    fn set_option_while_tracing(
        &mut self,
        record: &RecordContext<'_>,
        name: &str,
        value: Option<&str>,
    ) {
        let mut options = self.options.clone();
        match options.set(name, value, OptionOrigin::Setopt) {
            Ok(()) => self.follow_options(options),
            Err(failure) => self.report(&library_error_message(
                record.epid,
                record.probe_id,
                record.probe,
                &failure.message(),
            )),
        }
    }

    /// Keeps and prints each CPU's part of every aggregation entry (`aggpercpu`).
    pub fn set_per_cpu_aggregations(&mut self, keep: bool) {
        self.per_cpu_requested = keep;
    }

    /// Runs the session to its end: BEGIN, consume until `exit()`, a signal or the end of
    /// the target processes, END, the final consumption and the aggregation report.
    pub fn run(
        &mut self,
        engine: &mut dyn TracingEngine,
        targets: &mut dyn TargetWatch,
    ) -> Result<SessionOutcome, String> {
        if self.per_cpu_requested {
            self.aggregations
                .keep_per_cpu_values(engine.keep_per_cpu_aggregations());
        }
        engine.go()?;
        targets.tracing_started()?;
        let mut last_aggregation_snapshot = Instant::now();
        let mut first_poll = true;
        let wait = if targets.watches_processes() {
            self.settings
                .switch_interval
                .min(TARGET_EXIT_CHECK_INTERVAL)
        } else {
            self.settings.switch_interval
        };
        loop {
            let mut buffers = engine.poll(wait);
            if std::mem::take(&mut first_poll) {
                consume_cpu_first(&mut buffers, engine.begin_cpu());
            }
            // dtrace(1)'s work loop: the status, the aggregation snapshot, then the
            // buffers (each CPU's principal drops after its records). The counters are
            // read once per pass.
            let drops = engine.drops();
            self.report_status_drops(&drops);
            self.report_aggregation_drops(&drops);
            self.consume(engine, buffers, &drops)?;
            self.report_principal_drops(&drops, None);
            // Aggregations are snapshotted at `aggrate` (after the records read, so that
            // the clear()s and trunc()s they carry come first), which keeps the per-CPU
            // parts and the kernel's baseline current between printa()s.
            if last_aggregation_snapshot.elapsed() >= self.aggregation_interval {
                self.absorb_aggregations(engine.drain_aggregations());
                last_aggregation_snapshot = Instant::now();
            }
            if interrupt_count() > 0 {
                // dtrace(1) prints a newline when interrupted, to leave the ^C on its own line.
                self.write("\n")?;
                break;
            }
            if engine.exit_requested() || targets.report_exits(&*self.messages) {
                break;
            }
        }
        engine.stop();
        // dtrace_stop() reads the status one last time (END's drops), before the final
        // consumption.
        self.report_status_drops(&engine.drops());
        let mut buffers = engine.poll(Duration::ZERO);
        consume_cpu_last(&mut buffers, engine.end_cpu());
        let drops = engine.drops();
        self.report_aggregation_drops(&drops);
        self.consume(engine, buffers, &drops)?;
        self.report_principal_drops(&drops, None);
        // dtrace(1) always writes a newline once tracing has stopped, quiet or not, before
        // the aggregations (§12.4 step 8, §8.3).
        self.write("\n")?;
        // A second signal makes dtrace impatient: it skips the aggregation report.
        if interrupt_count() < 2 {
            self.absorb_aggregations(engine.drain_aggregations());
            self.print_unprinted_aggregations()?;
        }
        self.current_output()
            .flush()
            .map_err(|error| format!("failed to write output: {error}"))?;
        Ok(SessionOutcome {
            exit_status: self.exit_status.unwrap_or(0) as i32,
        })
    }

    /// Writes `dtrace: MESSAGE` to the message sink, after what the session has printed.
    fn report(&mut self, message: &str) {
        let _ = self.current_output().flush();
        self.messages.message(message);
    }

    fn write(&mut self, text: &str) -> Result<(), String> {
        self.current_output()
            .write_all(&crate::render::raw_text::output_bytes(text))
            .map_err(|error| format!("failed to write output: {error}"))
    }

    /// Writes what a record has printed so far, before an action that acts on the output
    /// (`system()`, `freopen()`, `ftruncate()`), and leaves `text` empty for the rest.
    fn write_pending(&mut self, text: &mut String) -> Result<(), String> {
        self.write(text)?;
        text.clear();
        Ok(())
    }

    /// Where output goes now: the file of the last `freopen()`, or the original output.
    fn current_output(&mut self) -> &mut dyn SessionOutput {
        match &mut self.reopened_output {
            Some(file) => file,
            None => &mut *self.output,
        }
    }

    /// `freopen(path)`, processed in buffer order: later output goes to `path`, opened
    /// for appending, or back to the original output for the restore sentinel of
    /// `freopen("")`. The file is opened before the current output is given up, so a
    /// file that cannot be opened is reported as a library error on the enabled probe
    /// that recorded the action (as `dt_freopen()` does) and tracing goes on writing
    /// where it was.
    fn reopen_output(&mut self, record: &RecordContext<'_>, path: &str) -> Result<(), String> {
        let reopened = if path == FREOPEN_RESTORE_TOKEN {
            None
        } else {
            // The path is bytes, like the output: a raw byte in it names that byte.
            let path_bytes = crate::render::raw_text::output_bytes(path);
            let file_path =
                <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&path_bytes);
            match OutputFile::open_for_appending(file_path) {
                Ok(file) => Some(file),
                Err(error) => {
                    // Messages are text: a raw byte of the path shows as U+FFFD there.
                    let message = format!(
                        "couldn't freopen() \"{}\": {}",
                        String::from_utf8_lossy(&path_bytes),
                        describe_io_error(&error)
                    );
                    self.report(&library_error_message(
                        record.epid,
                        record.probe_id,
                        record.probe,
                        &message,
                    ));
                    return Ok(());
                }
            }
        };
        self.current_output()
            .flush()
            .map_err(|error| format!("failed to write output: {error}"))?;
        self.reopened_output = reopened;
        Ok(())
    }

    /// Merges drained aggregation data, its symbol keys first made one per function or
    /// module as DTrace makes them.
    fn absorb_aggregations(&mut self, mut entries: Vec<AggregationEntry>) {
        self.symbol_keys.normalize(&*self.symbols, &mut entries);
        self.aggregations.absorb(entries);
    }

    /// `clear(@a)`: the values gathered so far become zero (the keys stay), and only
    /// later data counts, for every function (`min()` and `max()` included).
    fn clear_aggregation(
        &mut self,
        engine: &mut dyn TracingEngine,
        aggregation: u32,
    ) -> Result<(), String> {
        let before = engine.begin_aggregation_generation(aggregation)?;
        self.absorb_aggregations(before);
        self.snapshot_taken = true;
        self.aggregations.clear(aggregation);
        engine.finish_aggregation_generation(aggregation, &[]);
        Ok(())
    }

    /// `trunc(@a)` or `trunc(@a, n)`: removes the entries not kept; a removed key that
    /// comes back starts from nothing.
    fn truncate_aggregation(
        &mut self,
        engine: &mut dyn TracingEngine,
        aggregation: u32,
        keep: Option<i64>,
    ) -> Result<(), String> {
        let before = engine.begin_aggregation_generation(aggregation)?;
        self.absorb_aggregations(before);
        self.snapshot_taken = true;
        let kept = self.aggregations.truncate(aggregation, keep);
        engine.finish_aggregation_generation(aggregation, &kept);
        Ok(())
    }

    /// Processes buffers record by record, in buffer order.
    fn consume(
        &mut self,
        engine: &mut dyn TracingEngine,
        buffers: Vec<(u32, Vec<u8>)>,
        drops: &DropCounters,
    ) -> Result<(), String> {
        self.snapshot_taken = false;
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
                let context = RecordContext {
                    cpu,
                    epid: record.epid,
                    probe_id: enabled.probe_id,
                    probe: &enabled.probe,
                    next_record,
                };
                self.renderer.begin_record(&mut text, &context);
                for (action, action_values) in statement.actions.iter().zip(values.iter()) {
                    self.apply_action(engine, &mut text, &context, action, action_values)?;
                }
                self.renderer.end_record(&mut text);
                self.write(&text)?;
            }
            self.report_principal_drops(drops, Some(cpu));
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
            self.report(&fault.message());
        }
    }

    fn apply_action(
        &mut self,
        engine: &mut dyn TracingEngine,
        text: &mut String,
        record: &RecordContext<'_>,
        action: &difvm::object::Action,
        values: &[RecordValue<'_>],
    ) -> Result<(), String> {
        let resolver = Rc::clone(&self.symbols);
        let context = PrintfContext {
            resolver: &*resolver,
            target_pid: self.settings.target_pid,
        };
        match &action.kind {
            ActionKind::Exit => {
                if let Some(status) = values.first().and_then(RecordValue::as_i64) {
                    self.exit_status = Some(status);
                }
            }
            ActionKind::Printa {
                format,
                aggregations,
            } => {
                if !std::mem::replace(&mut self.snapshot_taken, true) {
                    self.absorb_aggregations(engine.drain_aggregations());
                }
                self.print_aggregations(text, format.as_ref(), aggregations)?;
            }
            ActionKind::Clear { aggregation } => {
                self.clear_aggregation(engine, *aggregation)?;
            }
            ActionKind::Trunc { aggregation } => {
                let keep = values.first().and_then(RecordValue::as_i64);
                self.truncate_aggregation(engine, *aggregation, keep)?;
            }
            ActionKind::Normalize { aggregation } => {
                let divisor = values.first().and_then(RecordValue::as_i64).unwrap_or(1);
                self.aggregations.normalize(*aggregation, divisor as u64);
            }
            ActionKind::Denormalize { aggregation } => {
                self.aggregations.denormalize(*aggregation);
            }
            ActionKind::Setopt { name, value } => {
                self.set_option_while_tracing(record, name, value.as_deref());
            }
            ActionKind::System { .. } => {
                if let Some(command) = self
                    .renderer
                    .format_action_string(action, values, &context)
                    .map_err(|e| e.to_string())?
                {
                    self.write_pending(text)?;
                    let _ = self.current_output().flush();
                    // The command is bytes, as the output is: a raw byte in it reaches the
                    // shell unchanged.
                    let command = crate::render::raw_text::output_bytes(&command);
                    let _ = std::process::Command::new("/bin/sh")
                        .arg("-c")
                        .arg(
                            <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&command),
                        )
                        .status();
                }
            }
            ActionKind::Freopen { .. } => {
                if let Some(path) = self
                    .renderer
                    .format_action_string(action, values, &context)
                    .map_err(|e| e.to_string())?
                {
                    // What the record printed before the freopen() belongs to the
                    // destination it was printed for.
                    self.write_pending(text)?;
                    self.reopen_output(record, &path)?;
                }
            }
            ActionKind::Ftruncate => {
                // The record's text so far is written first, so that the truncation
                // removes everything printed before the action, as dtrace(1) flushes
                // its output before truncating it.
                self.write_pending(text)?;
                // ftruncate(2) failing (on a terminal or pipe, or for any other
                // reason) is ignored by dtrace(1), and so it is here.
                let _ = self.current_output().truncate_output();
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
        format: Option<&PrintfFormat>,
        ids: &[u32],
    ) -> Result<(), String> {
        let resolver = Rc::clone(&self.symbols);
        let printer = AggregationPrinter {
            sort: self.settings.sort,
            layout: AggregationLayoutOptions {
                stack_indent: self.settings.trace.stack_indent,
                raw_bytes: self.settings.trace.raw_bytes,
                display: self.settings.aggregation_display,
            },
            resolver: &*resolver,
        };
        let empty = AggregationTable::new();
        let mut views = Vec::new();
        for id in ids {
            let Some(description) = self.program.aggregations.iter().find(|a| a.id == *id) else {
                continue;
            };
            let table = self.aggregations.table(*id).unwrap_or(&empty);
            let per_cpu = self.aggregations.per_cpu_values(*id);
            views.push(
                AggregationView::new(description, table)
                    .map_err(|e| e.to_string())?
                    .with_per_cpu(per_cpu),
            );
        }
        let printed = match format {
            None => printer.render_printa(text, &views),
            Some(format) => {
                let parsed = parsed_format(format).map_err(|e| e.to_string())?;
                printer
                    .render_printa_formatted(text, parsed, &views, self.settings.target_pid)
                    .map_err(|e| e.to_string())?
            }
        };
        // dtrace(1) flags an aggregation as printed as it prints one of its entries
        // (dt_fprinta(), dt_print_aggs()): a printa() that found no entry leaves it to
        // be printed at exit if it has entries by then.
        if printed {
            self.printed_aggregations.extend(ids.iter().copied());
        }
        Ok(())
    }

    fn print_unprinted_aggregations(&mut self) -> Result<(), String> {
        let resolver = Rc::clone(&self.symbols);
        let printer = AggregationPrinter {
            sort: self.settings.sort,
            layout: AggregationLayoutOptions {
                stack_indent: self.settings.trace.stack_indent,
                raw_bytes: self.settings.trace.raw_bytes,
                display: self.settings.aggregation_display,
            },
            resolver: &*resolver,
        };
        let mut views = Vec::new();
        for description in &self.program.aggregations {
            if self.printed_aggregations.contains(&description.id) {
                continue;
            }
            let Some(table) = self.aggregations.table(description.id) else {
                continue;
            };
            if table.entries.is_empty() {
                continue;
            }
            let per_cpu = self.aggregations.per_cpu_values(description.id);
            views.push(
                AggregationView::new(description, table)
                    .map_err(|e| e.to_string())?
                    .with_per_cpu(per_cpu),
            );
        }
        if views.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        printer.render_unprinted(&mut text, &views, |_| false);
        self.write(&text)
    }

    /// Reports the status counters' drops (dynamic variables, speculations, errors in
    /// ERROR enablings), as dtrace(1) does at each status check.
    fn report_status_drops(&mut self, drops: &DropCounters) {
        let messages = self.drops.status(drops);
        self.report_all(messages);
    }

    /// Reports aggregation drops, as dtrace(1) does at each aggregation snapshot.
    fn report_aggregation_drops(&mut self, drops: &DropCounters) {
        let messages = self.drops.aggregation(drops);
        self.report_all(messages);
    }

    /// Reports the principal-buffer drops of `cpu` (every CPU when `None`), as dtrace(1)
    /// does after consuming a CPU's buffer.
    fn report_principal_drops(&mut self, drops: &DropCounters, cpu: Option<u32>) {
        let messages = self.drops.principal(drops, cpu);
        self.report_all(messages);
    }

    fn report_all(&mut self, messages: Vec<String>) {
        for message in messages {
            self.report(&message);
        }
    }
}

/// Moves the buffers of `cpu` to the front, keeping every other order: libdtrace
/// consumes the buffer of the CPU that BEGIN fired on first, so BEGIN's output leads
/// even when other CPUs have records too.
fn consume_cpu_first(buffers: &mut [(u32, Vec<u8>)], cpu: Option<u32>) {
    buffers.sort_by_key(|(each, _)| Some(*each) != cpu);
}

/// Moves the buffers of `cpu` to the back, keeping every other order: the CPU that END
/// fired on is consumed last. A CPU may deliver two buffers at the end (what it wrote
/// before END, then END's records); both move, in that order.
fn consume_cpu_last(buffers: &mut [(u32, Vec<u8>)], cpu: Option<u32>) {
    buffers.sort_by_key(|(each, _)| Some(*each) == cpu);
}

#[cfg(test)]
mod tests {
    use super::{consume_cpu_first, consume_cpu_last};

    fn order(buffers: &[(u32, Vec<u8>)]) -> Vec<u32> {
        buffers.iter().map(|(cpu, _)| *cpu).collect()
    }

    #[test]
    fn begin_cpu_is_consumed_first_and_end_cpu_last() {
        let buffers = || vec![(0, vec![]), (1, vec![]), (2, vec![]), (3, vec![])];
        let mut first = buffers();
        consume_cpu_first(&mut first, Some(2));
        assert_eq!(order(&first), [2, 0, 1, 3]);
        let mut last = buffers();
        consume_cpu_last(&mut last, Some(1));
        assert_eq!(order(&last), [0, 2, 3, 1]);
        // A CPU without a buffer, or none known, leaves the order alone.
        // A CPU's two buffers (before END, then END's) both move and keep their order.
        let mut twice = vec![(0, vec![1]), (1, vec![]), (0, vec![2])];
        consume_cpu_last(&mut twice, Some(0));
        assert_eq!(twice, [(1, vec![]), (0, vec![1]), (0, vec![2])]);
        let mut unchanged = buffers();
        consume_cpu_first(&mut unchanged, Some(7));
        consume_cpu_last(&mut unchanged, None);
        assert_eq!(order(&unchanged), [0, 1, 2, 3]);
    }
}
