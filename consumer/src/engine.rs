//! The engine interface the session drives, and the user-space engine that runs the
//! dtrace provider's probes on the reference interpreter (`-x engine=vm`).

use std::collections::BTreeMap;
use std::time::Duration;

use difvm::engine::{AggregationEntry, BufferPolicy, DropCounters, EngineOptions, RecordSizes};
use difvm::interp::engine::{Engine, EngineError, SignalRequest};
use difvm::object::{CompiledProgram, EnabledProbe, PROBE_ID_BEGIN, PROBE_ID_END};
use difvm::verify::VerifiedProgram;
use kernel_shim::sys::online_cpus;

use crate::cpu_binding::run_on_cpu;
use crate::vm_context::dtrace_process_context;

/// What the session needs of an engine, whichever runs the probes.
pub trait TracingEngine {
    /// Starts tracing: the BEGIN probe fires before anything else.
    fn go(&mut self) -> Result<(), String>;
    /// Waits up to `timeout` for records and returns the filled principal buffers as
    /// (CPU, bytes), in CPU order.
    fn poll(&mut self, timeout: Duration) -> Vec<(u32, Vec<u8>)>;
    /// Moves the aggregation data gathered since the last call to the consumer
    /// (per-CPU values already merged).
    fn drain_aggregations(&mut self) -> Vec<AggregationEntry>;
    /// Whether an `exit()` action ran.
    fn exit_requested(&self) -> bool;
    /// Stops tracing: the END probe fires, and no other probe records after it.
    fn stop(&mut self);
    /// Cumulative drop and error counters.
    fn drops(&self) -> DropCounters;
    /// First step of `clear()` or `trunc()` of `aggregation`: from now on the engine
    /// keeps the aggregation's new data apart from the old, and returns the data
    /// gathered so far (of every aggregation). An engine whose storage restarts at every
    /// drain has nothing to keep apart.
    fn begin_aggregation_generation(
        &mut self,
        _aggregation: u32,
    ) -> Result<Vec<AggregationEntry>, String> {
        Ok(self.drain_aggregations())
    }
    /// Last step of `clear()` or `trunc()` of `aggregation`, once the consumer has
    /// cleared or truncated its table: `kept_keys` are the encoded keys whose data from
    /// before the action still counts (the entries `trunc()` kept; none for `clear()`).
    fn finish_aggregation_generation(&mut self, _aggregation: u32, _kept_keys: &[Vec<u8>]) {}
    /// Asks for each CPU's part of every aggregation entry (`aggpercpu`); returns the
    /// CPUs whose values are printed. Called before `go`.
    fn keep_per_cpu_aggregations(&mut self) -> Vec<u32> {
        vec![0]
    }
    /// The CPU BEGIN fired on, once it has: its buffer is consumed first, as
    /// libdtrace does, so that BEGIN's output (and an ERROR it caused) comes first.
    fn begin_cpu(&self) -> Option<u32> {
        None
    }
    /// The CPU END fired on, once it has: its buffer is consumed last.
    fn end_cpu(&self) -> Option<u32> {
        None
    }
}

/// The user-space engine: BEGIN, END and ERROR run on the reference interpreter in the
/// dtrace process itself. It has no other probes, so between BEGIN and END it only
/// waits (for `exit()`, a signal, or the end of `-c`/`-p` processes).
///
/// Buffer policies, as the kernel engine has them: under `fill`, a principal drop stops
/// tracing as `exit()` would (the buffers were emptied by the consumer before END fires,
/// so END has room). Under `ring`, the interpreter's buffers are unbounded and this
/// engine keeps, per CPU, the most recent whole records that fit in `bufsize` bytes,
/// handing them over only once END has fired.
pub struct VirtualMachineEngine {
    engine: Engine,
    policy: BufferPolicy,
    /// `bufsize`, which bounds the ring kept under the `ring` policy.
    buffer_size: u64,
    /// The record length (header included) of every EPID, to find record boundaries.
    record_sizes: RecordSizes,
    /// Under `ring`, the records kept so far per CPU.
    ring: BTreeMap<u32, Vec<u8>>,
    stopped: bool,
    /// The CPUs BEGIN and END fired on.
    begin_cpu: Option<u32>,
    end_cpu: Option<u32>,
    /// `cpu`: the CPU BEGIN and END fire on, when set.
    only_cpu: Option<u32>,
}

impl VirtualMachineEngine {
    /// An engine for `program` enabled on `enabled_probes` (dtrace provider probes only).
    pub fn new(
        program: VerifiedProgram,
        enabled_probes: Vec<EnabledProbe>,
        options: EngineOptions,
    ) -> Result<VirtualMachineEngine, EngineError> {
        VirtualMachineEngine::with_buffer_policy(
            program,
            enabled_probes,
            options,
            BufferPolicy::Switch,
        )
    }

    /// An engine whose principal buffers follow `policy` (`bufpolicy`).
    pub fn with_buffer_policy(
        program: VerifiedProgram,
        enabled_probes: Vec<EnabledProbe>,
        options: EngineOptions,
        policy: BufferPolicy,
    ) -> Result<VirtualMachineEngine, EngineError> {
        let program: CompiledProgram = program.into_program();
        let record_sizes = RecordSizes::new(&program, &enabled_probes);
        let buffer_size = options.buffer_size;
        let only_cpu = options.only_cpu;
        let mut interpreter_options = options;
        if policy == BufferPolicy::Ring {
            // The ring is trimmed here, newest records kept; the interpreter itself would
            // keep the oldest ones and drop the rest.
            interpreter_options.buffer_size = u64::MAX;
        }
        Ok(VirtualMachineEngine {
            engine: Engine::new(program, enabled_probes, interpreter_options)?,
            policy,
            buffer_size,
            record_sizes,
            ring: BTreeMap::new(),
            stopped: false,
            begin_cpu: None,
            end_cpu: None,
            only_cpu,
        })
    }

    fn fire(&mut self, probe_id: u32) {
        // The context is read bound to the CPU the probe fires on (the `cpu` option's).
        let (_, context) = run_on_cpu(self.only_cpu, || dtrace_process_context(Vec::new()));
        match probe_id {
            PROBE_ID_BEGIN => self.begin_cpu = Some(context.cpu),
            PROBE_ID_END => self.end_cpu = Some(context.cpu),
            _ => {}
        }
        let outcome = self.engine.fire(probe_id, &context);
        for request in outcome.signals {
            send_signal(request);
        }
    }

    fn take_buffers(&mut self) -> Vec<(u32, Vec<u8>)> {
        let cpus = self.engine.buffered_cpus();
        cpus.into_iter()
            .map(|cpu| (cpu, self.engine.take_buffer(cpu)))
            .filter(|(_, buffer)| !buffer.is_empty())
            .collect()
    }

    /// Moves the interpreter's new records into the ring, then drops the oldest whole
    /// records of each CPU until the rest fits in `bufsize`.
    fn absorb_into_ring(&mut self) {
        for (cpu, records) in self.take_buffers() {
            let ring = self.ring.entry(cpu).or_default();
            ring.extend_from_slice(&records);
            let excess = ring.len() as u64 - self.buffer_size.min(ring.len() as u64);
            let cut = self.record_sizes.oldest_records_length(ring, excess);
            ring.drain(..cut);
        }
    }
}

/// Sends what `raise()` or `stop()` asked for. The interpreter's probes (BEGIN, END,
/// ERROR) fire in the consumer's own thread, so that thread and process are the firing
/// ones, as they are for the kernel engine, whose BEGIN and END are uprobes on dtrace.
fn send_signal(request: SignalRequest) {
    // SAFETY: raise(3) and kill(2) take plain integers; the numbers are at most
    // LAST_SIGNAL_NUMBER, checked by the interpreter.
    unsafe {
        match request {
            SignalRequest::FiringThread(signal) => {
                libc::raise(signal as libc::c_int);
            }
            SignalRequest::FiringProcess(signal) => {
                libc::kill(libc::getpid(), signal as libc::c_int);
            }
        }
    }
}

impl TracingEngine for VirtualMachineEngine {
    fn go(&mut self) -> Result<(), String> {
        self.fire(PROBE_ID_BEGIN);
        Ok(())
    }

    fn poll(&mut self, timeout: Duration) -> Vec<(u32, Vec<u8>)> {
        if self.policy == BufferPolicy::Ring {
            if self.stopped {
                self.absorb_into_ring();
                return std::mem::take(&mut self.ring)
                    .into_iter()
                    .filter(|(_, records)| !records.is_empty())
                    .collect();
            }
            self.absorb_into_ring();
            if !self.exit_requested() {
                std::thread::sleep(timeout);
            }
            return Vec::new();
        }
        let buffers = self.take_buffers();
        if buffers.is_empty() && !self.exit_requested() {
            std::thread::sleep(timeout);
        }
        buffers
    }

    fn drain_aggregations(&mut self) -> Vec<AggregationEntry> {
        let mut merged: Vec<AggregationEntry> = Vec::new();
        for (cpu, entries) in self.engine.drain_aggregations() {
            // Each drained entry is one CPU's value, which is also its per-CPU part.
            merged.extend(entries.into_iter().map(|mut entry| {
                entry.per_cpu = vec![(cpu, entry.value.clone())];
                entry
            }));
        }
        merged
    }

    fn keep_per_cpu_aggregations(&mut self) -> Vec<u32> {
        // Probes fire on the CPU the dtrace process runs on, which may be any of them.
        online_cpus().unwrap_or_else(|_| vec![0])
    }

    fn begin_cpu(&self) -> Option<u32> {
        self.begin_cpu
    }

    fn end_cpu(&self) -> Option<u32> {
        self.end_cpu
    }

    fn exit_requested(&self) -> bool {
        self.engine.is_draining()
            || (self.policy == BufferPolicy::Fill && !self.engine.drops().principal.is_empty())
    }

    fn stop(&mut self) {
        self.fire(PROBE_ID_END);
        self.stopped = true;
    }

    fn drops(&self) -> DropCounters {
        self.engine.drops()
    }
}
