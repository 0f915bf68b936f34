//! The engine interface the session drives, and the user-space engine that runs the
//! dtrace provider's probes on the reference interpreter (`-x engine=vm`).

use std::time::Duration;

use difvm::interp::engine::{AggregationEntry, DropCounters, Engine, EngineError, EngineOptions};
use difvm::object::{CompiledProgram, EnabledProbe, PROBE_ID_BEGIN, PROBE_ID_END};
use difvm::verify::VerifiedProgram;

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
}

/// The user-space engine: BEGIN, END and ERROR run on the reference interpreter in the
/// dtrace process itself. It has no other probes, so between BEGIN and END it only
/// waits (for `exit()`, a signal, or the end of `-c`/`-p` processes).
pub struct VirtualMachineEngine {
    engine: Engine,
}

impl VirtualMachineEngine {
    /// An engine for `program` enabled on `enabled_probes` (dtrace provider probes only).
    pub fn new(
        program: VerifiedProgram,
        enabled_probes: Vec<EnabledProbe>,
        options: EngineOptions,
    ) -> Result<VirtualMachineEngine, EngineError> {
        let program: CompiledProgram = program.into_program();
        Ok(VirtualMachineEngine {
            engine: Engine::new(program, enabled_probes, options)?,
        })
    }

    fn fire(&mut self, probe_id: u32) {
        let context = dtrace_process_context(Vec::new());
        self.engine.fire(probe_id, &context);
    }

    fn take_buffers(&mut self) -> Vec<(u32, Vec<u8>)> {
        let cpus = self.engine.buffered_cpus();
        cpus.into_iter()
            .map(|cpu| (cpu, self.engine.take_buffer(cpu)))
            .filter(|(_, buffer)| !buffer.is_empty())
            .collect()
    }
}

impl TracingEngine for VirtualMachineEngine {
    fn go(&mut self) -> Result<(), String> {
        self.fire(PROBE_ID_BEGIN);
        Ok(())
    }

    fn poll(&mut self, timeout: Duration) -> Vec<(u32, Vec<u8>)> {
        let buffers = self.take_buffers();
        if buffers.is_empty() && !self.engine.is_draining() {
            std::thread::sleep(timeout);
        }
        buffers
    }

    fn drain_aggregations(&mut self) -> Vec<AggregationEntry> {
        let mut merged: Vec<AggregationEntry> = Vec::new();
        for (_, entries) in self.engine.drain_aggregations() {
            merged.extend(entries);
        }
        merged
    }

    fn exit_requested(&self) -> bool {
        self.engine.is_draining()
    }

    fn stop(&mut self) {
        self.fire(PROBE_ID_END);
    }

    fn drops(&self) -> DropCounters {
        self.engine.drops()
    }
}
