//! The kernel engine (`-x engine=kernel`): the session's `TracingEngine` on top of
//! `kernel_shim::runtime`. Every enabled probe's clauses are translated to one eBPF
//! program attached where the probe lives (the providers' attachment plan says where), BEGIN
//! and END fire through marker functions of this process, and records, aggregations and
//! drop counters come back from the kernel's maps and perf rings.
//!
//! Buffer policies (`bufpolicy`, see `difvm::engine::BufferPolicy`): under `fill`
//! the first record a CPU's buffer refuses stops tracing as `exit()` does — the session
//! then stops, END fires into emptied buffers and prints, and every refused record is
//! reported as a drop. Under `fill` and `ring` the records are printed only once tracing
//! has stopped.

use std::rc::Rc;
use std::time::Duration;

use difvm::engine::{AggregationEntry, BufferPolicy, DropCounters, EngineOptions};
use difvm::object::EnabledProbe;
use difvm::verify::VerifiedProgram;
use kernel_shim::map_layout::{kernel_offsets_for, MAX_KERNEL_STRSIZE};
use kernel_shim::runtime::{ProbePlan, RuntimeOptions, RuntimeSession, LARGEST_SAMPLE_RECORD};
use kernel_shim::sys::{check_bpf_access, online_cpus, BpfAccessError};
use providers::attachment::plan_enabled_probes;
use providers::provider::ProbeEntry;

use crate::cpu_binding::run_on_cpu;
use crate::engine::TracingEngine;
use crate::messages::{MessageSink, StandardStreams};
use crate::options::OptionError;
use crate::settings::runtime_options;
use crate::size_minimums::{largest_record, BUFFER_TOO_SMALL};
use crate::size_notices::kernel_lowered_size_notice;

/// Exit status when this process may not trace (dtrace(1)'s status for Linux non-root).
pub const EXIT_NO_PRIVILEGE: i32 = 2;

/// Why the kernel engine cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivilegeFailure {
    /// The text after `dtrace: `.
    pub message: String,
    /// The exit status to leave with.
    pub exit_status: i32,
}

/// Checks that this process may load and attach BPF programs. The failure's message is
/// what dtrace(1) prints after `dtrace: `.
pub fn check_tracing_privileges() -> Result<(), PrivilegeFailure> {
    check_bpf_access().map_err(|error| PrivilegeFailure {
        message: match &error {
            BpfAccessError::NotPermitted(_) => {
                "failed to initialize dtrace: DTrace requires additional privileges".to_string()
            }
            BpfAccessError::Unavailable(cause) => {
                format!("failed to initialize dtrace: BPF is not available: {cause}")
            }
        },
        exit_status: EXIT_NO_PRIVILEGE,
    })
}

/// The engine the session drives when probes run in the kernel.
pub struct KernelEngine {
    session: RuntimeSession,
    exiting: bool,
    /// The CPUs the BEGIN and END markers fired on.
    begin_cpu: Option<u32>,
    end_cpu: Option<u32>,
    /// `cpu`: the CPU BEGIN and END fire on, when set.
    only_cpu: Option<u32>,
    /// The last counters read, for when reading fails.
    last_drops: std::cell::RefCell<DropCounters>,
    /// Where a failed aggregation snapshot is reported.
    messages: Rc<dyn MessageSink>,
}

impl std::fmt::Debug for KernelEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelEngine")
            .field("session", &self.session)
            .field("exiting", &self.exiting)
            .finish()
    }
}

/// `runtime` with the kernel facts from BTF that `program` needs (`task_struct` offsets,
/// the per-CPU area's), read only for a program that needs them; a probe of `plans`
/// about another thread than the one it fires in (`sched:::on-cpu`) reads its thread's
/// built-ins through `task_struct` offsets.
fn with_kernel_offsets(
    program: &VerifiedProgram,
    plans: &[ProbePlan],
    runtime: &RuntimeOptions,
) -> RuntimeOptions {
    let mut runtime = runtime.clone();
    let about_other_threads = plans.iter().any(|plan| {
        plan.instrumentation
            .context()
            .subject_task_argument()
            .is_some()
    });
    let offsets = kernel_offsets_for(program.program(), about_other_threads);
    runtime.layout.task_offsets = runtime.layout.task_offsets.or(offsets.task);
    runtime.layout.per_cpu_base = runtime.layout.per_cpu_base.or(offsets.per_cpu_base);
    runtime.layout.path_offsets = runtime.layout.path_offsets.or(offsets.path);
    runtime
}

impl KernelEngine {
    /// Translates and loads `program`'s probes (nothing is attached until `go`).
    /// `probes` holds the registry entry of every probe id in `enabled_probes`. Errors
    /// are the text after `dtrace: could not enable tracing: `; a program the kernel's
    /// verifier refused carries the verifier log when `debug` is set (`-x debug`).
    pub fn new(
        program: &VerifiedProgram,
        enabled_probes: &[EnabledProbe],
        probes: &[ProbeEntry],
        options: &EngineOptions,
        debug: bool,
    ) -> Result<KernelEngine, String> {
        KernelEngine::with_runtime_options(
            program,
            enabled_probes,
            probes,
            &runtime_options(options, BufferPolicy::Switch, debug),
        )
    }

    /// As [`KernelEngine::new`], with the runtime options `runtime` (sizes, buffer
    /// policy, and `debug` as `keep_verifier_logs`).
    pub fn with_runtime_options(
        program: &VerifiedProgram,
        enabled_probes: &[EnabledProbe],
        probes: &[ProbeEntry],
        runtime: &RuntimeOptions,
    ) -> Result<KernelEngine, String> {
        // The kernel engine's work area bounds `strsize`; beyond it the value is one
        // this engine cannot use, which DTrace words as an invalid option value.
        if runtime.layout.strsize > MAX_KERNEL_STRSIZE {
            return Err(OptionError::InvalidValue.message().to_string());
        }
        // A record goes to the principal buffer as one perf sample, which cannot be
        // longer: the buffer cannot take the enabling, as DTrace says of a record larger
        // than its buffer.
        if largest_record(program.program(), enabled_probes) > LARGEST_SAMPLE_RECORD {
            return Err(BUFFER_TOO_SMALL.to_string());
        }
        let plans = plan_enabled_probes(enabled_probes, probes)?;
        let runtime = &with_kernel_offsets(program, &plans, runtime);
        let session =
            RuntimeSession::new(program, enabled_probes, &plans, runtime).map_err(|error| {
                let log = error.verifier_log();
                if runtime.keep_verifier_logs && !log.is_empty() {
                    format!("{error}\nverifier log:\n{}", log.trim_end())
                } else {
                    error.to_string()
                }
            })?;
        Ok(KernelEngine {
            session,
            exiting: false,
            begin_cpu: None,
            end_cpu: None,
            only_cpu: runtime.layout.only_cpu,
            last_drops: std::cell::RefCell::new(DropCounters::default()),
            messages: Rc::new(StandardStreams),
        })
    }

    /// Reports failed aggregation snapshots to `messages` (standard error by default).
    pub fn set_message_sink(&mut self, messages: Rc<dyn MessageSink>) {
        self.messages = messages;
    }

    /// Notices (the text after `dtrace: `) about sizes the kernel engine lowered, to
    /// print once tracing starts unless `quietresize` is set.
    pub fn resize_notices(&self) -> Vec<String> {
        self.session
            .lowered_sizes()
            .iter()
            .filter_map(kernel_lowered_size_notice)
            .collect()
    }

    /// The verifier logs of every loaded program, kept when `debug` was set.
    pub fn verifier_logs(&self) -> &[(String, String)] {
        self.session.verifier_logs()
    }

    /// Notices an `exit()`, or under the `fill` policy a full buffer, which stops tracing
    /// the same way.
    fn refresh_exit_flag(&mut self) {
        if !self.exiting {
            self.exiting = self.session.exit_requested().unwrap_or(false)
                || (self.session.buffer_policy() == BufferPolicy::Fill
                    && self.session.principal_buffer_filled().unwrap_or(false));
        }
    }
}

impl TracingEngine for KernelEngine {
    fn go(&mut self) -> Result<(), String> {
        let session = &mut self.session;
        let (cpu, started) = run_on_cpu(self.only_cpu, || session.start());
        started.map_err(|error| format!("could not enable tracing: {error}"))?;
        self.begin_cpu = cpu;
        self.refresh_exit_flag();
        Ok(())
    }

    fn poll(&mut self, timeout: Duration) -> Vec<(u32, Vec<u8>)> {
        if !self.exiting && !timeout.is_zero() {
            // An interrupted or failed wait only shortens the pause.
            let _ = self.session.wait(timeout);
        }
        let records = self.session.take_records();
        self.refresh_exit_flag();
        records
    }

    fn drain_aggregations(&mut self) -> Vec<AggregationEntry> {
        // A failed read leaves the baseline as it was, so the next drain delivers what
        // this one could not; it is reported all the same, since the last drain has no
        // next one.
        self.session.take_aggregations().unwrap_or_else(|error| {
            self.messages
                .message(&format!("failed to snapshot aggregations: {error}"));
            Vec::new()
        })
    }

    fn begin_aggregation_generation(
        &mut self,
        aggregation: u32,
    ) -> Result<Vec<AggregationEntry>, String> {
        self.session
            .begin_aggregation_generation(aggregation)
            .map_err(|error| format!("processing aborted: {error}"))
    }

    fn finish_aggregation_generation(&mut self, aggregation: u32, kept_keys: &[Vec<u8>]) {
        self.session
            .finish_aggregation_generation(aggregation, kept_keys);
    }

    fn keep_per_cpu_aggregations(&mut self) -> Vec<u32> {
        self.session.keep_per_cpu_aggregations(true);
        // Linux DTrace prints the online CPUs; per-CPU values exist for every possible one.
        let possible = self.session.possible_cpus();
        match online_cpus() {
            Ok(online) => online
                .into_iter()
                .filter(|cpu| possible.contains(cpu))
                .collect(),
            Err(_) => possible.to_vec(),
        }
    }

    fn exit_requested(&self) -> bool {
        self.exiting
    }

    fn stop(&mut self) {
        let session = &mut self.session;
        let (cpu, stopped) = run_on_cpu(self.only_cpu, || session.stop());
        self.end_cpu = cpu;
        if let Err(error) = stopped {
            self.messages
                .message(&format!("could not fire END: {error}"));
        }
    }

    fn begin_cpu(&self) -> Option<u32> {
        self.begin_cpu
    }

    fn end_cpu(&self) -> Option<u32> {
        self.end_cpu
    }

    fn drops(&self) -> DropCounters {
        match self.session.drop_counters() {
            Ok(drops) => {
                *self.last_drops.borrow_mut() = drops.clone();
                drops
            }
            Err(_) => self.last_drops.borrow().clone(),
        }
    }
}
