//! A tracing session in the kernel: the maps of a program's layout, one translated program
//! per enabled probe (its ECB chain), attachment, BEGIN and END run by the consumer (see
//! `markers`), and the consumer's view of what the programs produced — records by CPU,
//! aggregation changes, drop counters and the `exit()` flag.
//!
//! Order of events: `RuntimeSession::new` creates every map and the principal buffers and
//! translates and loads every probe's program, so that a program the kernel refuses is
//! reported before anything runs. `start` fires BEGIN, then attaches every other probe, so BEGIN fires before any other probe; when a program
//! reads `vtimestamp`, the `sched_switch` tracker that keeps the threads' times on CPU is
//! attached first and detached last, after END. `stop` detaches
//! every probe, reads the principal buffers and fires END, so no
//! probe records after END, END finds the buffers empty (classic DTrace reserves room for
//! END's records in a `fill` buffer; here the whole buffer is free for them), and END's
//! records come after every other CPU's, as dtrace(1) consumes the END CPU last.
//!
//! Buffer policies (`bufpolicy`): under `switch` the records are read whenever the
//! consumer asks; under `fill` and `ring` only once tracing has stopped (`take_records`
//! returns nothing before), as classic DTrace snapshots such buffers only then. `fill`
//! rings are ordinary perf rings that nobody empties: the first record that does not fit
//! counts a principal drop, which the consumer sees through `principal_buffer_filled`
//! and treats as `exit()`. `ring` rings are overwritable, and what they hold is trimmed
//! to the most recent records that fit in `bufsize`.
//!
//! A perf ring is a power of two pages and carries each record in a sample with a
//! header and padding, so it cannot hold exactly `bufsize` bytes of records. The rings
//! are therefore made large enough for twice `bufsize`, and under `switch` and `fill`
//! the programs count the bytes of their records against `bufsize` themselves (see
//! `map_layout`); every read tells them how many bytes it took out.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use difvm::aggregation::AggregationRule;
use difvm::engine::{AggregationEntry, BufferPolicy, DropCounters, RecordSizes};
use difvm::isa::builtin_variable;
use difvm::object::{CompiledProgram, EnabledProbe, PROBE_ID_ERROR};
use difvm::verify::VerifiedProgram;

use super::aggregation_snapshot::{AggregationBaseline, EntryWords};
use super::artificial_frames::{
    artificial_frames, machinery_functions, MachineryText, KALLSYMS_PATH,
};
use super::attach::{
    attach, attach_uprobe_group, detach_all, uprobe_multi_links_work, Attachment, UprobeGroup,
};
use super::buffer_size::{
    bytes_of_records_held, granted_speculation_size, record_ring_size, LoweredSize, SizeOption,
};
use super::error::RuntimeError;
use super::markers::Marker;
use super::parallel_load::{load_programs, ProgramToLoad};
use super::perf_buffer::{page_size, BufferEvent, PerfBufferSet};
use super::probe_plan::{ProbeInstrumentation, ProbePlan};
use super::records::append_records;
use super::return_exits::ReturnExitRecorder;
use super::syscall_dispatch::SyscallDispatch;
use crate::map_layout::{
    is_split_into_parts, program_reads_builtin, LayoutOptions, MapFds, ProgramLayout,
    AGGREGATION_PART_WORDS,
};
use crate::map_layout::{
    COUNTERS_KEY_PRINCIPAL_DRAINED, COUNTER_AGGREGATION_DROPS, COUNTER_DYNAMIC_DROPS,
    COUNTER_ERROR_IN_ERROR_PROBE, COUNTER_NESTING_DROPS, COUNTER_PRINCIPAL_DROPS,
    COUNTER_SPECULATION_BUSY, COUNTER_SPECULATION_UNAVAILABLE, COUNTER_SPECULATIVE_DROPS,
};
use crate::sys::{
    bpf_map_create, bpf_prog_load, bpf_raw_tracepoint_open, per_cpu_value_stride,
    physical_package_id, possible_cpu_count, possible_cpus, AttachType, LinkFd, MapFd, ProgFd,
    ProgramLoadRequest, ProgramType, SysError, BPF_ANY, BPF_LOG_LEVEL1,
};
use crate::translate::context::arguments_read;
use crate::translate::{
    program_reads_kernel_stacks, translate_probe_with_artificial_frames, vtimestamp_tracker,
};

/// Sizes and switches of a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeOptions {
    /// The maps' sizes; `cpu_count` is replaced by the possible CPUs of this machine.
    pub layout: LayoutOptions,
    /// `bufsize`: principal buffer bytes per CPU.
    pub buffer_size: u64,
    /// `bufpolicy`: how the principal buffers fill and when they are read.
    pub buffer_policy: BufferPolicy,
    /// Keep the verifier log of every program, not only of refused ones (`-x debug`).
    pub keep_verifier_logs: bool,
}

/// A probe's loaded program and, once started, its attachment.
struct LoadedProbe {
    plan: ProbePlan,
    program: ProgFd,
    attachment: Option<Attachment>,
    /// The probe's uprobes, when its program was loaded to attach them all through one
    /// multi-link.
    uprobe_group: Option<UprobeGroup>,
}

/// The maps of a session, by role.
struct SessionMaps {
    globals: MapFd,
    counters: MapFd,
    aggregations: Option<MapFd>,
    /// The aggregations' clear generations, which `clear()` and `trunc()` advance.
    aggregation_generations: Option<MapFd>,
    /// Every other map; kept open for as long as the programs may run.
    _others: Vec<MapFd>,
}

/// Probes translated before their programs are loaded together: enough to keep every
/// loader thread busy, few enough that the translations held at once stay small.
const LOAD_BATCH: usize = 256;

/// A running (or ready) kernel tracing session.
pub struct RuntimeSession {
    program: CompiledProgram,
    layout: ProgramLayout,
    maps: SessionMaps,
    buffers: PerfBufferSet,
    record_sizes: RecordSizes,
    probes: Vec<LoadedProbe>,
    dispatchers: Vec<SyscallDispatch>,
    dispatcher_links: Vec<LinkFd>,
    /// The `sched_switch` program that keeps the threads' times on CPU for
    /// `vtimestamp`, when a program reads it, and once started its link.
    vtimestamp_tracker: Option<ProgFd>,
    vtimestamp_tracker_link: Option<LinkFd>,
    /// The recorder of where pid return probes' functions were left, when some probe
    /// has exits to record, and once started its attachments.
    exit_recorder: Option<ReturnExitRecorder>,
    exit_recorder_attachments: Vec<Attachment>,
    baseline: AggregationBaseline,
    /// The possible CPUs, in the order of per-CPU map values.
    possible_cpus: Vec<u32>,
    /// Bytes of samples that no known record explained (never expected).
    unexplained_bytes: u64,
    /// Records read before END fired, handed over by the next `take_records`.
    records_before_end: Vec<(u32, Vec<u8>)>,
    /// `bufsize` as asked for.
    requested_buffer_size: u64,
    /// `specsize` as asked for and as granted (`granted_speculation_size`).
    requested_speculation_size: u32,
    speculation_size: u32,
    /// `bufsize` as granted: the bytes of records a principal buffer holds, to which
    /// the `ring` policy trims each CPU's records.
    buffer_size: u64,
    /// The bytes of records read from each CPU's buffer, by possible-CPU index, which
    /// the programs learn when they count the principal buffer's bytes.
    principal_drained: Vec<u64>,
    started: bool,
    stopped: bool,
    verifier_logs: Vec<(String, String)>,
}

impl std::fmt::Debug for RuntimeSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeSession")
            .field("probes", &self.probes.len())
            .field("started", &self.started)
            .field("stopped", &self.stopped)
            .finish()
    }
}

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec.
    unsafe { libc::clock_gettime(clock, &mut time) };
    (time.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(time.tv_nsec as u64)
}

impl RuntimeSession {
    /// Creates the maps and buffers of `program` and loads one program per enabled probe.
    /// `plans` must cover every probe id of `enabled` except ERROR's.
    pub fn new(
        program: &VerifiedProgram,
        enabled: &[EnabledProbe],
        plans: &[ProbePlan],
        options: &RuntimeOptions,
    ) -> Result<RuntimeSession, RuntimeError> {
        let mut layout_options = options.layout.clone();
        layout_options.cpu_count = possible_cpu_count()? as u32;

        if program_reads_builtin(program.program(), builtin_variable::CURCPU) {
            let last = possible_cpus()?.last().copied().unwrap_or(0);
            layout_options.cpu_chips = (0..=last).map(physical_package_id).collect();
        }
        let mut layout = ProgramLayout::for_program(program, &layout_options).map_err(|error| {
            RuntimeError::invalid("laying out the program's maps", error.to_string())
        })?;
        let requested_speculation_size = layout.options.speculation_size;
        if layout.speculates {
            layout.options.speculation_size =
                granted_speculation_size(requested_speculation_size.into()) as u32;
        }
        let granted_speculation_size = layout.options.speculation_size;
        let (maps, buffers, mut fds, buffer_size) = create_maps_and_buffers(&mut layout, options)?;
        // A return probe's exits are recorded only when its clauses read arg0.
        let records_exits = |plan: &ProbePlan| {
            let statements: Vec<usize> = enabled
                .iter()
                .filter(|probe| probe.probe_id == plan.probe_id)
                .map(|probe| probe.statement)
                .collect();
            !plan.exit_recorders.is_empty()
                && arguments_read(program.program(), &statements) & 1 != 0
        };
        let exit_recorder = if plans.iter().any(records_exits) {
            Some(ReturnExitRecorder::new()?)
        } else {
            None
        };
        fds.return_exits = exit_recorder.as_ref().map(ReturnExitRecorder::map_fd);

        let mut probe_ids: Vec<u32> = enabled
            .iter()
            .map(|probe| probe.probe_id)
            .filter(|&id| id != PROBE_ID_ERROR)
            .collect();
        probe_ids.sort_unstable();
        probe_ids.dedup();
        let plans_by_id: HashMap<u32, &ProbePlan> =
            plans.iter().map(|plan| (plan.probe_id, plan)).collect();
        let possible_cpus = possible_cpus()?;
        // The machinery functions' addresses, when kernel stacks are looked at; without
        // them (kallsyms unreadable), stacks skip fixed counts of artificial frames.
        let machinery_text = if program_reads_kernel_stacks(program.program()) {
            let wanted = probe_ids
                .iter()
                .filter_map(|probe_id| plans_by_id.get(probe_id))
                .flat_map(|plan| machinery_functions(&plan.instrumentation))
                .collect();
            MachineryText::read(std::path::Path::new(KALLSYMS_PATH), &wanted).ok()
        } else {
            None
        };
        let mut probes = Vec::new();
        let mut verifier_logs = Vec::new();
        let log_level = if options.keep_verifier_logs {
            BPF_LOG_LEVEL1
        } else {
            0
        };
        // Translated a batch at a time and each batch loaded on several threads (see
        // `parallel_load`); batches bound the translations held at once.
        for batch in probe_ids.chunks(LOAD_BATCH) {
            let mut batch_plans = Vec::with_capacity(batch.len());
            let mut to_load = Vec::with_capacity(batch.len());
            for &probe_id in batch {
                let plan = *plans_by_id.get(&probe_id).ok_or_else(|| {
                    RuntimeError::invalid(
                        format!("enabling probe {probe_id}"),
                        "no instrumentation was given for it",
                    )
                })?;
                let context = plan.instrumentation.context();
                let frames =
                    artificial_frames(&plan.instrumentation, &context, machinery_text.as_ref());
                let translated = translate_probe_with_artificial_frames(
                    &layout, &fds, probe_id, enabled, program, &context, &frames,
                )
                .map_err(|error| RuntimeError::Translate {
                    probe: plan.name.clone(),
                    reason: error.to_string(),
                })?;
                // Uprobes are attached through one multi-link per probe where the kernel
                // has them: closing perf-event uprobes is serialized in the kernel and
                // takes a tenth of a second each, too slow for a probe on every
                // instruction.
                let uprobe_group = match &plan.instrumentation {
                    ProbeInstrumentation::Targets { targets, .. } => {
                        UprobeGroup::of(targets).filter(|_| uprobe_multi_links_work())
                    }
                    _ => None,
                };
                to_load.push(ProgramToLoad {
                    translated,
                    program_type: context.program_type(),
                    attach_type: uprobe_group.as_ref().map(|_| AttachType::TraceUprobeMulti),
                    name: format!("dtrace_{probe_id}"),
                });
                batch_plans.push((plan, uprobe_group));
            }
            let loaded_batch = load_programs(&to_load, log_level);
            for ((plan, uprobe_group), loaded) in batch_plans.into_iter().zip(loaded_batch) {
                let loaded =
                    loaded.map_err(|error| RuntimeError::rejected(plan.name.clone(), error))?;
                if options.keep_verifier_logs {
                    verifier_logs.push((plan.name.clone(), loaded.verifier_log().to_string()));
                }
                probes.push(LoadedProbe {
                    plan: ProbePlan {
                        exit_recorders: if records_exits(plan) {
                            plan.exit_recorders.clone()
                        } else {
                            Vec::new()
                        },
                        ..plan.clone()
                    },
                    program: loaded,
                    attachment: None,
                    uprobe_group,
                });
            }
        }
        let vtimestamp_tracker = if layout.tracks_vtimestamps {
            let instructions =
                vtimestamp_tracker(&layout, &fds).map_err(|error| RuntimeError::Translate {
                    probe: "the vtimestamp tracker".to_string(),
                    reason: error.to_string(),
                })?;
            let mut request = ProgramLoadRequest::new(ProgramType::RawTracepoint, &instructions);
            request.name = "dtrace_vtime";
            Some(
                bpf_prog_load(&request)
                    .map_err(|error| RuntimeError::rejected("the vtimestamp tracker", error))?,
            )
        } else {
            None
        };
        let cpu_slots = possible_cpus.len();
        Ok(RuntimeSession {
            program: program.program().clone(),
            record_sizes: RecordSizes::new(program.program(), enabled),
            layout,
            maps,
            buffers,
            probes,
            dispatchers: Vec::new(),
            dispatcher_links: Vec::new(),
            vtimestamp_tracker,
            vtimestamp_tracker_link: None,
            exit_recorder,
            exit_recorder_attachments: Vec::new(),
            baseline: AggregationBaseline::new(possible_cpus.clone()),
            possible_cpus,
            unexplained_bytes: 0,
            records_before_end: Vec::new(),
            requested_buffer_size: options.buffer_size,
            requested_speculation_size,
            speculation_size: granted_speculation_size,
            buffer_size,
            principal_drained: vec![0; cpu_slots],
            started: false,
            stopped: false,
            verifier_logs,
        })
    }

    /// The size options the engine granted smaller than asked for.
    pub fn lowered_sizes(&self) -> Vec<LoweredSize> {
        [
            LoweredSize::new(
                SizeOption::BufferSize,
                self.requested_buffer_size,
                self.buffer_size,
            ),
            LoweredSize::new(
                SizeOption::SpeculationSize,
                self.requested_speculation_size.into(),
                self.speculation_size.into(),
            ),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The verifier logs kept with `keep_verifier_logs`, as (probe, log).
    pub fn verifier_logs(&self) -> &[(String, String)] {
        &self.verifier_logs
    }

    /// The probes' program descriptors, as (probe id, program).
    pub fn programs(&self) -> impl Iterator<Item = (u32, &ProgFd)> {
        self.probes
            .iter()
            .map(|probe| (probe.plan.probe_id, &probe.program))
    }

    /// Attaches BEGIN and END, fires BEGIN, then attaches every other probe.
    pub fn start(&mut self) -> Result<(), RuntimeError> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        // Threads' times are tracked before any probe can read them.
        if let Some(tracker) = &self.vtimestamp_tracker {
            self.vtimestamp_tracker_link = Some(bpf_raw_tracepoint_open("sched_switch", tracker)?);
        }
        self.fire(Marker::Begin)?;
        // Exits are recorded before the return probes that read the records fire.
        if let Some(recorder) = &self.exit_recorder {
            for probe in &self.probes {
                if probe.plan.exit_recorders.is_empty() {
                    continue;
                }
                let attachment = recorder
                    .attach(&probe.plan.exit_recorders)
                    .map_err(|error| {
                        RuntimeError::invalid(
                            format!("enabling {}", probe.plan.name),
                            error.to_string(),
                        )
                    })?;
                self.exit_recorder_attachments.push(attachment);
            }
        }
        // The kernel runs the uprobes placed on one instruction newest first, so they
        // are attached in reverse: probes at one address (a function's entry and its
        // offset 0) fire in the order they were created, as DTrace for Linux runs the
        // probes it lays over one uprobe.
        for probe in self.probes.iter_mut().rev() {
            if let Some(group) = &probe.uprobe_group {
                probe.attachment =
                    Some(attach_uprobe_group(&probe.program, group).map_err(|error| {
                        RuntimeError::invalid(
                            format!("enabling {}", probe.plan.name),
                            error.to_string(),
                        )
                    })?);
            }
        }
        for probe in &mut self.probes {
            if probe.uprobe_group.is_some() {
                continue;
            }
            match &probe.plan.instrumentation {
                ProbeInstrumentation::Marker(_) => {}
                ProbeInstrumentation::Targets { targets, .. } => {
                    let mut combined: Option<Attachment> = None;
                    for target in targets {
                        let target = &target.for_only_cpu(self.layout.options.only_cpu);
                        let attachment = attach(&probe.program, target, 0).map_err(|error| {
                            RuntimeError::invalid(
                                format!("enabling {}", probe.plan.name),
                                error.to_string(),
                            )
                        })?;
                        match &mut combined {
                            Some(all) => all.merge(attachment),
                            None => combined = Some(attachment),
                        }
                    }
                    probe.attachment = combined;
                }
                ProbeInstrumentation::Syscall { number, is_return } => {
                    let dispatch = match self
                        .dispatchers
                        .iter()
                        .position(|dispatch| dispatch.is_return == *is_return)
                    {
                        Some(index) => &self.dispatchers[index],
                        None => {
                            self.dispatchers.push(SyscallDispatch::new(*is_return)?);
                            &self.dispatchers[self.dispatchers.len() - 1]
                        }
                    };
                    dispatch.insert(*number, &probe.program)?;
                }
            }
        }
        for dispatch in &self.dispatchers {
            self.dispatcher_links.push(bpf_raw_tracepoint_open(
                dispatch.raw_tracepoint(),
                dispatch.dispatcher(),
            )?);
        }
        Ok(())
    }

    /// Runs the programs of `marker`'s probe (BEGIN or END), if the program enables it,
    /// in this thread.
    fn fire(&self, marker: Marker) -> Result<(), RuntimeError> {
        self.probes
            .iter()
            .filter(|probe| probe.plan.instrumentation == ProbeInstrumentation::Marker(marker))
            .try_for_each(|probe| marker.fire(&probe.program))
    }

    /// Detaches every probe, reads the principal buffers (kept for the next
    /// `take_records`), then fires END. An error is END's: everything else was done.
    pub fn stop(&mut self) -> Result<(), RuntimeError> {
        if self.stopped || !self.started {
            self.stopped = true;
            return Ok(());
        }
        self.stopped = true;
        self.dispatcher_links.clear();
        self.dispatchers.clear();
        let mut attachments: Vec<Attachment> = self
            .probes
            .iter_mut()
            .filter_map(|probe| probe.attachment.take())
            .collect();
        attachments.append(&mut self.exit_recorder_attachments);
        detach_all(attachments);
        let mut records = self.read_records();
        if self.buffers.policy() == BufferPolicy::Ring {
            self.trim_to_buffer_size(&mut records, &[]);
        }
        self.records_before_end.extend(records);
        let fired = self.fire(Marker::End);
        self.vtimestamp_tracker_link = None;
        fired
    }

    /// Waits up to `timeout` for a buffer to fill (at least half of `bufsize`), without
    /// reading.
    pub fn wait(&self, timeout: Duration) -> Result<(), RuntimeError> {
        self.buffers.wait(timeout).map(|_| ())
    }

    /// The buffer policy of the principal buffers.
    pub fn buffer_policy(&self) -> BufferPolicy {
        self.buffers.policy()
    }

    /// The records written since the last call, as (CPU, bytes) in CPU order — except
    /// that after `stop`, those read before END fired come first, then END's; each CPU's
    /// bytes are whole records back to back, in the order the CPU wrote them. Under the
    /// `fill` and `ring` policies nothing is read before `stop`.
    pub fn take_records(&mut self) -> Vec<(u32, Vec<u8>)> {
        if self.buffers.policy().reads_only_at_end() && !self.stopped {
            return Vec::new();
        }
        let mut records = std::mem::take(&mut self.records_before_end);
        let mut newest = self.read_records();
        if self.buffers.policy() == BufferPolicy::Ring {
            self.trim_to_buffer_size(&mut newest, &[]);
            self.trim_to_buffer_size(&mut records, &newest);
        }
        records.extend(newest);
        records
    }

    /// Under the `ring` policy, keeps of each CPU's `records` the most recent whole
    /// records that fit in `bufsize` together with the same CPU's `newer` ones (the
    /// perf ring holds at least a page, which may be more than `bufsize`).
    fn trim_to_buffer_size(&self, records: &mut Vec<(u32, Vec<u8>)>, newer: &[(u32, Vec<u8>)]) {
        for (cpu, bytes) in records.iter_mut() {
            let newer_length: u64 = newer
                .iter()
                .filter(|(newer_cpu, _)| newer_cpu == cpu)
                .map(|(_, newer_bytes)| newer_bytes.len() as u64)
                .sum();
            let budget = self.buffer_size.saturating_sub(newer_length);
            let excess = (bytes.len() as u64).saturating_sub(budget);
            let cut = self.record_sizes.oldest_records_length(bytes, excess);
            bytes.drain(..cut);
        }
        records.retain(|(_, bytes)| !bytes.is_empty());
    }

    /// Whether some CPU's principal buffer has refused a record for lack of room (the
    /// `fill` policy's signal to stop tracing). Firings skipped by the nesting guard do
    /// not count: the buffer did not refuse them.
    pub fn principal_buffer_filled(&self) -> Result<bool, RuntimeError> {
        let values = self
            .maps
            .counters
            .lookup_per_cpu(&0u32.to_ne_bytes())?
            .unwrap_or_default();
        let offset = COUNTER_PRINCIPAL_DROPS * 8;
        Ok(values.iter().any(|value| {
            value
                .get(offset..offset + 8)
                .is_some_and(|word| word.iter().any(|byte| *byte != 0))
        }))
    }

    /// Reads the principal buffers: what they hold now, grouped by CPU in CPU order.
    fn read_records(&mut self) -> Vec<(u32, Vec<u8>)> {
        let mut by_cpu: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
        let sizes = &self.record_sizes;
        let mut unexplained = 0u64;
        self.buffers.drain(&mut |cpu, event| {
            if let BufferEvent::Sample(sample) = event {
                let buffer = by_cpu.entry(cpu).or_default();
                unexplained += append_records(sizes, sample, buffer) as u64;
            }
        });
        self.unexplained_bytes += unexplained;
        let records: Vec<(u32, Vec<u8>)> = by_cpu
            .into_iter()
            .filter(|(_, bytes)| !bytes.is_empty())
            .collect();
        if self.layout.options.principal_buffer_limit.is_some() && !records.is_empty() {
            self.report_drained(&records);
        }
        records
    }

    /// Tells the programs, which count the principal buffers' bytes, that `records`
    /// have been read: their room is free again. A failed update only leaves the
    /// buffers fuller than they are, so it is not reported.
    fn report_drained(&mut self, records: &[(u32, Vec<u8>)]) {
        for (cpu, bytes) in records {
            if let Some(index) = self
                .possible_cpus
                .iter()
                .position(|possible| possible == cpu)
            {
                self.principal_drained[index] += bytes.len() as u64;
            }
        }
        let value_size = self.maps.counters.definition().value_size as usize;
        let values: Vec<Vec<u8>> = self
            .principal_drained
            .iter()
            .map(|drained| {
                let mut value = vec![0u8; value_size];
                value[..8].copy_from_slice(&drained.to_le_bytes());
                value
            })
            .collect();
        let _ = self.maps.counters.update_per_cpu(
            &COUNTERS_KEY_PRINCIPAL_DRAINED.to_ne_bytes(),
            &values,
            BPF_ANY,
        );
    }

    /// Whether an `exit()` action has run.
    pub fn exit_requested(&self) -> Result<bool, RuntimeError> {
        let offset = self.layout.globals.exiting as usize;
        let value = self
            .maps
            .globals
            .lookup(&0u32.to_ne_bytes())?
            .unwrap_or_default();
        Ok(value
            .get(offset..offset + 8)
            .is_some_and(|word| word.iter().any(|byte| *byte != 0)))
    }

    /// What the aggregations gathered since the last call, per-CPU values merged (each
    /// entry also carries its per-CPU parts after `keep_per_cpu_aggregations(true)`), in
    /// no particular order except that a key's changes come in the order they happened.
    pub fn take_aggregations(&mut self) -> Result<Vec<AggregationEntry>, RuntimeError> {
        let Some(map) = &self.maps.aggregations else {
            return Ok(Vec::new());
        };
        let reader = AggregationReader {
            rules: &self.layout.aggregation_rules,
            key_sizes: self
                .program
                .aggregations
                .iter()
                .map(|description| (description.id, description.key_size as usize))
                .collect(),
            stride: per_cpu_value_stride(map.definition().value_size).max(1),
        };
        // Changes held back by the last clear() or trunc() come before the new ones, so
        // that the consumer merges every key's changes in the order they happened;
        // changes this snapshot holds back wait for the next one.
        let mut entries = self.baseline.take_held();
        let baseline = &mut self.baseline;
        let mut visited = 0usize;
        // Elements are compared with the baseline as they are read, so that a failure
        // part way leaves the baseline matching what is delivered: the rest comes with
        // the next snapshot.
        let batch = map.lookup_batch_each(&mut |map_key, value| {
            visited += 1;
            reader.element_change(baseline, map_key, value, &mut entries);
        });
        if let Err(error) = batch {
            if visited > 0 {
                return Ok(entries);
            }
            // No batch lookups for this map here: one key at a time.
            let keys = match map.keys() {
                Ok(keys) => keys,
                Err(_) => {
                    self.baseline.restore_held(entries);
                    return Err(error.into());
                }
            };
            for key in keys {
                match map.lookup(&key) {
                    Ok(Some(value)) => {
                        reader.element_change(&mut self.baseline, &key, &value, &mut entries)
                    }
                    Ok(None) => {}
                    Err(_) => break,
                }
            }
        }
        Ok(entries)
    }

    /// Whether aggregation entries carry their per-CPU parts (`aggpercpu`).
    pub fn keep_per_cpu_aggregations(&mut self, keep: bool) {
        self.baseline.set_keep_per_cpu(keep);
    }

    /// The possible CPUs, whose values per-CPU aggregation parts report.
    pub fn possible_cpus(&self) -> &[u32] {
        &self.possible_cpus
    }

    /// First step of `clear()` or `trunc()` of `aggregation`: starts a new generation in
    /// the kernel, after which programs restart the words of the aggregation's entries
    /// as they next update them, and returns what every aggregation gathered before it
    /// (later changes of `aggregation` are held back until
    /// [`finish_aggregation_generation`]). See `aggregation_snapshot` for why this is
    /// exact.
    ///
    /// [`finish_aggregation_generation`]: RuntimeSession::finish_aggregation_generation
    pub fn begin_aggregation_generation(
        &mut self,
        aggregation: u32,
    ) -> Result<Vec<AggregationEntry>, RuntimeError> {
        let Some(generations) = &self.maps.aggregation_generations else {
            return Ok(Vec::new());
        };
        let generation = self.baseline.current_generation(aggregation) + 1;
        generations.update(
            &aggregation.to_ne_bytes(),
            &generation.to_ne_bytes(),
            BPF_ANY,
        )?;
        self.baseline.begin_generation(aggregation, generation);
        self.take_aggregations()
    }

    /// Last step of `clear()` or `trunc()` of `aggregation`: `kept_keys` are the encoded
    /// keys the consumer kept (those `trunc()` left; none for `clear()`), whose changes
    /// from before the new generation still count.
    pub fn finish_aggregation_generation(&mut self, aggregation: u32, kept_keys: &[Vec<u8>]) {
        let kept_map_keys: Vec<Vec<u8>> = kept_keys
            .iter()
            .filter_map(|key| self.layout.aggregation_key(aggregation, key))
            .collect();
        self.baseline.finish_generation(aggregation, &kept_map_keys);
    }

    /// Cumulative drop and error counters. Principal drops per CPU are the records the
    /// perf ring had no room for, plus firings the programs' nesting guard skipped (every
    /// work area of the CPU in use, or in use by a program sharing state with the firing's
    /// program); the kernel's own count of
    /// skipped runs (`recursion_misses`, not per CPU) is added to the first CPU.
    pub fn drop_counters(&self) -> Result<DropCounters, RuntimeError> {
        let mut drops = DropCounters::default();
        let values = self
            .maps
            .counters
            .lookup_per_cpu(&0u32.to_ne_bytes())?
            .unwrap_or_default();
        let counter = |value: &[u8], index: usize| {
            value
                .get(index * 8..index * 8 + 8)
                .and_then(|word| word.try_into().ok())
                .map(u64::from_le_bytes)
                .unwrap_or(0)
        };
        let lost: HashMap<u32, u64> = self.buffers.lost_counts().into_iter().collect();
        for (cpu, value) in values.iter().enumerate() {
            let cpu = cpu as u32;
            let principal = counter(value, COUNTER_PRINCIPAL_DROPS)
                .max(lost.get(&cpu).copied().unwrap_or(0))
                + counter(value, COUNTER_NESTING_DROPS);
            if principal > 0 {
                drops.principal.insert(cpu, principal);
            }
            let aggregation = counter(value, COUNTER_AGGREGATION_DROPS);
            if aggregation > 0 {
                drops.aggregation.insert(cpu, aggregation);
            }
            drops.dynamic += counter(value, COUNTER_DYNAMIC_DROPS);
            drops.speculative += counter(value, COUNTER_SPECULATIVE_DROPS);
            drops.speculation_unavailable += counter(value, COUNTER_SPECULATION_UNAVAILABLE);
            drops.speculation_busy += counter(value, COUNTER_SPECULATION_BUSY);
            drops.error_in_error_probe += counter(value, COUNTER_ERROR_IN_ERROR_PROBE);
        }
        let mut recursion_misses = 0;
        for probe in &self.probes {
            recursion_misses += probe.program.info()?.recursion_misses;
        }
        for dispatch in &self.dispatchers {
            recursion_misses += dispatch.dispatcher().info()?.recursion_misses;
        }
        if recursion_misses > 0 {
            let first = self.buffers.cpus().first().copied().unwrap_or(0);
            *drops.principal.entry(first).or_default() += recursion_misses;
        }
        Ok(drops)
    }

    /// Bytes of samples that no known record explained; non-zero means a bug.
    pub fn unexplained_bytes(&self) -> u64 {
        self.unexplained_bytes + self.buffers.malformed_count()
    }
}

/// What reading the aggregation hash needs of a session's layout.
struct AggregationReader<'a> {
    rules: &'a BTreeMap<u32, AggregationRule>,
    /// The encoded key size of every aggregation, by id.
    key_sizes: HashMap<u32, usize>,
    /// The distance between two CPUs' values in a per-CPU value buffer.
    stride: usize,
}

impl AggregationReader<'_> {
    /// Compares one element (hash key, per-CPU value buffer) with the baseline and
    /// appends its change, if any, to `changes`.
    fn element_change(
        &self,
        baseline: &mut AggregationBaseline,
        map_key: &[u8],
        value: &[u8],
        changes: &mut Vec<AggregationEntry>,
    ) {
        let Some(id) = map_key
            .get(..4)
            .and_then(|id| id.try_into().ok())
            .map(u32::from_le_bytes)
        else {
            return;
        };
        let (Some(rule), Some(&key_size)) = (self.rules.get(&id), self.key_sizes.get(&id)) else {
            return;
        };
        let Some(key) = map_key.get(8..8 + key_size) else {
            return;
        };
        let part = if is_split_into_parts(rule) {
            let number = map_key
                .get(4..8)
                .and_then(|bytes| bytes.try_into().ok())
                .map_or(0, u32::from_le_bytes) as usize;
            EntryWords::Part {
                first: number * AGGREGATION_PART_WORDS,
                count: AGGREGATION_PART_WORDS,
            }
        } else {
            EntryWords::Whole
        };
        // Per-CPU values come back one `stride` apart, in possible-CPU order.
        baseline.entry_part_change(
            id,
            rule,
            part,
            map_key,
            key,
            value.chunks(self.stride),
            changes,
        );
    }
}

impl Drop for RuntimeSession {
    fn drop(&mut self) {
        // Nobody is left to hear of a failure to run END here; stopping detaches the
        // probes either way.
        let _ = self.stop();
    }
}

/// Creates the maps of `layout` with principal buffers for `options`' `bufsize` and
/// policy, and returns them with the `bufsize` granted. Under `switch` and `fill` the
/// programs are to count the bytes of their records against it (`layout`'s
/// `principal_buffer_limit`), which the perf rings alone cannot do exactly.
fn create_maps_and_buffers(
    layout: &mut ProgramLayout,
    options: &RuntimeOptions,
) -> Result<(SessionMaps, PerfBufferSet, MapFds, u64), RuntimeError> {
    let ring_size = record_ring_size(options.buffer_size, page_size() as u64);
    let (maps, buffers, fds) = create_maps(layout, ring_size, options.buffer_policy)?;
    let buffer_size = options
        .buffer_size
        .min(bytes_of_records_held(buffers.granted_size()));
    if options.buffer_policy != BufferPolicy::Ring {
        layout.options.principal_buffer_limit = Some(buffer_size);
    }
    Ok((maps, buffers, fds, buffer_size))
}

/// Creates the maps of `layout` (the principal one inside the buffer set), fills the
/// constants and the wall-clock offset, and returns the descriptors for the translator.
fn create_maps(
    layout: &ProgramLayout,
    buffer_size: u64,
    buffer_policy: BufferPolicy,
) -> Result<(SessionMaps, PerfBufferSet, MapFds), RuntimeError> {
    let mut by_name: HashMap<&'static str, MapFd> = HashMap::new();
    for spec in layout.map_specs() {
        let map = bpf_map_create(
            spec.map_type,
            spec.key_size,
            spec.value_size,
            spec.max_entries,
            spec.flags,
            spec.name,
        )?;
        by_name.insert(spec.name, map);
    }
    let mut take = |name: &'static str| {
        by_name.remove(name).ok_or_else(|| {
            RuntimeError::invalid(
                "creating the program's maps",
                format!("the layout has no {name} map"),
            )
        })
    };
    let state = take("dtrace_state")?;
    let globals = take("dtrace_globals")?;
    let constants = take("dtrace_consts")?;
    let counters = take("dtrace_counters")?;
    let principal = take("dtrace_buffers")?;
    let dynamic = take("dtrace_dynvars").ok();
    let aggregations = take("dtrace_aggs").ok();
    let aggregation_generations = take("dtrace_agggen").ok();
    let speculations = take("dtrace_specs").ok();
    let vtimestamps = take("dtrace_vtimes").ok();

    constants.update(&0u32.to_ne_bytes(), layout.constants_image(), BPF_ANY)?;
    let mut globals_value = vec![0u8; globals.value_buffer_size()];
    let offset = layout.globals.wall_clock_offset as usize;
    let wall_clock_offset =
        clock_ns(libc::CLOCK_REALTIME).wrapping_sub(clock_ns(libc::CLOCK_BOOTTIME));
    globals_value
        .get_mut(offset..offset + 8)
        .ok_or_else(|| SysError::invalid("initialising the globals", "value too small"))?
        .copy_from_slice(&wall_clock_offset.to_le_bytes());
    globals.update(&0u32.to_ne_bytes(), &globals_value, BPF_ANY)?;

    let fds = MapFds {
        state: state.raw_fd(),
        globals: globals.raw_fd(),
        constants: constants.raw_fd(),
        counters: counters.raw_fd(),
        principal: principal.raw_fd(),
        dynamic: dynamic.as_ref().map(MapFd::raw_fd),
        aggregations: aggregations.as_ref().map(MapFd::raw_fd),
        aggregation_generations: aggregation_generations.as_ref().map(MapFd::raw_fd),
        speculations: speculations.as_ref().map(MapFd::raw_fd),
        vtimestamps: vtimestamps.as_ref().map(MapFd::raw_fd),
        return_exits: None,
    };
    let buffers = PerfBufferSet::open_with_policy(principal, buffer_size, buffer_policy)?;
    let others = [
        Some(state),
        Some(constants),
        dynamic,
        speculations,
        vtimestamps,
    ]
    .into_iter()
    .flatten()
    .collect();
    Ok((
        SessionMaps {
            globals,
            counters,
            aggregations,
            aggregation_generations,
            _others: others,
        },
        buffers,
        fds,
    ))
}
