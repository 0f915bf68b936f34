//! The session's side of aggregations, on the reference interpreter (no privileges
//! needed): snapshots at `aggrate` while tracing, the two steps of `clear()` and
//! `trunc()` with the keys `trunc()` kept, `min()` restarting after `clear()`, and the
//! per-CPU values of `aggpercpu`.

use std::time::Duration;

use consumer::engine::{TracingEngine, VirtualMachineEngine};
use consumer::messages::MessageSink;
use consumer::render::aggregation_sorting::AggregationSortOptions;
use consumer::render::display_options::AggregationDisplayOptions;
use consumer::render::trace::TraceOutputOptions;
use consumer::session::{Session, TargetWatch};
use consumer::settings::SessionSettings;
use difvm::engine::{AggregationEntry, DropCounters, EngineOptions};
use difvm::object::{CompiledProgram, EnabledProbe};
use difvm::verify::verify_program;
use dlang::compile::{compile, CompileOptions, ProgramSource};
use dlang::probes::ListCatalog;

fn settings() -> SessionSettings {
    SessionSettings {
        trace: TraceOutputOptions {
            quiet: true,
            ..TraceOutputOptions::default()
        },
        sort: AggregationSortOptions::default(),
        aggregation_display: AggregationDisplayOptions::default(),
        droptags: false,
        switch_interval: Duration::from_millis(1),
        target_pid: None,
    }
}

/// The interpreter with a record of what the session asked of it.
struct Recording {
    inner: VirtualMachineEngine,
    drains: usize,
    /// (aggregation, kept keys) of every finished generation.
    generations: Vec<(u32, Vec<Vec<u8>>)>,
}

impl TracingEngine for Recording {
    fn go(&mut self) -> Result<(), String> {
        self.inner.go()
    }
    fn poll(&mut self, timeout: Duration) -> Vec<(u32, Vec<u8>)> {
        self.inner.poll(timeout)
    }
    fn drain_aggregations(&mut self) -> Vec<AggregationEntry> {
        self.drains += 1;
        self.inner.drain_aggregations()
    }
    fn exit_requested(&self) -> bool {
        self.inner.exit_requested()
    }
    fn stop(&mut self) {
        self.inner.stop()
    }
    fn drops(&self) -> DropCounters {
        self.inner.drops()
    }
    fn begin_aggregation_generation(
        &mut self,
        aggregation: u32,
    ) -> Result<Vec<AggregationEntry>, String> {
        self.inner.begin_aggregation_generation(aggregation)
    }
    fn finish_aggregation_generation(&mut self, aggregation: u32, kept_keys: &[Vec<u8>]) {
        self.generations.push((aggregation, kept_keys.to_vec()));
    }
    fn keep_per_cpu_aggregations(&mut self) -> Vec<u32> {
        vec![0, 1]
    }
}

/// Ends the session after `polls` buffer reads.
struct StopAfter {
    polls: usize,
}

impl TargetWatch for StopAfter {
    fn report_exits(&mut self, _messages: &dyn MessageSink) -> bool {
        self.polls = self.polls.saturating_sub(1);
        self.polls == 0
    }
}

fn compiled(text: &str) -> (CompiledProgram, Vec<EnabledProbe>, Recording) {
    let catalog = ListCatalog::with_dtrace_provider(Vec::new());
    let program = compile(
        &[ProgramSource::script("test.d", text)],
        &CompileOptions::default(),
        &catalog,
    )
    .unwrap_or_else(|error| panic!("{:?}\n{text}", error.diagnostic))
    .program;
    let enabled = consumer::invocation::enable_statements(&program, &catalog);
    let verified = verify_program(&program).expect("verifies");
    let engine = VirtualMachineEngine::new(verified, enabled.clone(), EngineOptions::default())
        .expect("vm engine");
    let recording = Recording {
        inner: engine,
        drains: 0,
        generations: Vec::new(),
    };
    (program, enabled, recording)
}

/// Runs `text` for `polls` buffer reads (or until `exit()`), with `configure` applied to
/// the session; returns the output and the engine.
fn run(text: &str, polls: usize, configure: impl Fn(&mut Session<'_>)) -> (String, Recording) {
    let (program, enabled, mut engine) = compiled(text);
    let mut output = Vec::new();
    {
        let mut session = Session::new(program, enabled, settings(), &mut output);
        configure(&mut session);
        session
            .run(&mut engine, &mut StopAfter { polls })
            .unwrap_or_else(|error| panic!("{error}"));
    }
    (String::from_utf8(output).expect("text"), engine)
}

#[test]
fn aggregations_are_snapshotted_at_aggrate() {
    let text = "BEGIN { @calls = count(); }";
    let (output, every_read) = run(text, 5, |session| {
        session.set_aggregation_rate(Duration::ZERO)
    });
    assert_eq!(output, "\n                1\n");
    // One snapshot after each of the five reads, and the last one at the end.
    assert_eq!(every_read.drains, 6);
    let (_, hourly) = run(text, 5, |session| {
        session.set_aggregation_rate(Duration::from_secs(3600))
    });
    assert_eq!(hourly.drains, 1);
}

#[test]
fn clear_and_trunc_run_in_two_steps_and_min_restarts() {
    let (output, engine) = run(
        "BEGIN { @low[1] = min(5); @low[2] = min(9); @low[3] = min(7); trunc(@low, 2); }
         BEGIN { clear(@low); exit(0); }
         END { @low[3] = min(8); }",
        1000,
        |_| {},
    );
    // trunc() kept the two largest (keys 2 and 3); clear() zeroed them; only key 3 was
    // set again, to exactly the value after the clear.
    assert_eq!(
        output,
        "\n        2                0\n        3                8\n"
    );
    let key = |value: i64| value.to_le_bytes().to_vec();
    assert_eq!(
        engine.generations,
        vec![(1, vec![key(2), key(3)]), (1, Vec::new())]
    );
}

#[test]
fn aggpercpu_keeps_each_cpus_part() {
    // The interpreter fires BEGIN on the CPU this thread runs on: CPU 0.
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(0, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
    let (output, _) = run(
        "BEGIN { @total = sum(7); @total = sum(3); exit(0); }",
        1000,
        |session| session.set_per_cpu_aggregations(true),
    );
    let parts = format!("\n    [CPU 0] {:>16}\n    [CPU 1] {:>16}", 10, 0);
    assert_eq!(output, format!("\n {:>16}{parts}\n", 10));
}
