//! End-to-end tests of the kernel engine: real D programs compiled against this machine's
//! probes, run by the consumer's session on the kernel engine. Programs of the dtrace
//! provider print the same output on the kernel engine as on the vm engine; a syscall
//! count is exact; with a one-page buffer the records plus the reported drops equal the
//! calls; and without privileges the engine refuses with dtrace(1)'s message.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use consumer::catalog::RegistryCatalog;
use consumer::engine::{TracingEngine, VirtualMachineEngine};
use consumer::invocation::enable_statements;
use consumer::kernel_engine::{check_tracing_privileges, KernelEngine, EXIT_NO_PRIVILEGE};
use consumer::messages::MessageSink;
use consumer::render::aggregation_sorting::AggregationSortOptions;
use consumer::render::display_options::AggregationDisplayOptions;
use consumer::render::trace::TraceOutputOptions;
use consumer::session::{Session, TargetWatch};
use consumer::settings::SessionSettings;
use difvm::engine::{AggregationEntry, DropCounters, EngineOptions};
use difvm::object::{CompiledProgram, EnabledProbe};
use difvm::verify::{verify_program, VerifiedProgram};
use dlang::compile::{compile, CompileOptions, ProgramSource};
use providers::provider::ProbeEntry;

/// Whether the live tests can run here; prints why not.
fn kernel_available(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipping {test}: not running as root");
        return false;
    }
    if let Err(failure) = check_tracing_privileges() {
        eprintln!("skipping {test}: {}", failure.message);
        return false;
    }
    true
}

struct Compiled {
    verified: VerifiedProgram,
    program: CompiledProgram,
    enabled: Vec<EnabledProbe>,
    entries: Vec<ProbeEntry>,
}

fn compile_on_this_machine(text: &str) -> Compiled {
    let catalog = RegistryCatalog::for_this_machine();
    let options = CompileOptions {
        default_error_handler: true,
        ..CompileOptions::default()
    };
    let program = compile(
        &[ProgramSource::command_line(
            dlang::compile::ProbeSpecifierOption::Name,
            text,
        )],
        &options,
        &catalog,
    )
    .unwrap_or_else(|error| panic!("{:?}\n{text}", error.diagnostic))
    .program;
    let enabled = enable_statements(&program, &catalog);
    let registry = catalog.into_registry();
    let entries = enabled
        .iter()
        .filter_map(|probe| registry.probe(probe.probe_id).cloned())
        .collect();
    Compiled {
        verified: verify_program(&program).expect("verifies"),
        program,
        enabled,
        entries,
    }
}

/// Keeps the calling thread on CPU 0.
fn pin_to_first_cpu() {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(0, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

fn settings(quiet: bool) -> SessionSettings {
    SessionSettings {
        trace: TraceOutputOptions {
            quiet,
            flowindent: false,
            stack_indent: 14,
            raw_bytes: false,
            print_size: 8192,
        },
        sort: AggregationSortOptions {
            sort_by_key: false,
            reverse: false,
            key_position: 0,
            aggregation_position: 0,
        },
        aggregation_display: AggregationDisplayOptions::default(),
        droptags: false,
        switch_interval: Duration::from_millis(20),
        target_pid: None,
    }
}

/// A thread that runs its work once BEGIN has fired. Its thread id is known before the
/// program is compiled, so that clauses can select its system calls alone (the tests of
/// this binary run side by side in one process).
struct Worker {
    tid: u32,
    start: std::sync::mpsc::Sender<()>,
}

impl Worker {
    fn spawn(work: impl FnOnce() + Send + 'static) -> Worker {
        let (tid_sender, tid_receiver) = std::sync::mpsc::channel();
        let (start, start_receiver) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            // SAFETY: gettid has no preconditions.
            let _ = tid_sender.send(unsafe { libc::gettid() } as u32);
            if start_receiver.recv().is_ok() {
                work();
            }
        });
        Worker {
            tid: tid_receiver.recv().expect("worker thread id"),
            start,
        }
    }
}

/// Starts the worker (if any) once BEGIN has fired.
struct StartWork {
    worker: Option<Worker>,
}

impl TargetWatch for StartWork {
    fn tracing_started(&mut self) -> Result<(), String> {
        if let Some(worker) = self.worker.take() {
            let _ = worker.start.send(());
        }
        Ok(())
    }
    fn report_exits(&mut self, _messages: &dyn MessageSink) -> bool {
        false
    }
}

/// An engine that counts the record bytes it hands to the session.
struct Counting<'a> {
    inner: &'a mut dyn TracingEngine,
    record_bytes: usize,
    /// The sum of the first word of every aggregation entry drained.
    aggregated: i64,
    /// When set, the first poll waits (up to [`HOLD_LIMIT`]) until this flag is up, so
    /// that the kernel's buffers fill while nothing drains them.
    hold_until: Option<Arc<AtomicBool>>,
}

/// The longest a held [`Counting`] waits before its first poll.
const HOLD_LIMIT: Duration = Duration::from_secs(20);

impl TracingEngine for Counting<'_> {
    fn go(&mut self) -> Result<(), String> {
        self.inner.go()
    }
    fn poll(&mut self, timeout: Duration) -> Vec<(u32, Vec<u8>)> {
        if let Some(flag) = self.hold_until.take() {
            let deadline = std::time::Instant::now() + HOLD_LIMIT;
            while !flag.load(Ordering::SeqCst) && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let buffers = self.inner.poll(timeout);
        self.record_bytes += buffers.iter().map(|(_, bytes)| bytes.len()).sum::<usize>();
        buffers
    }
    fn drain_aggregations(&mut self) -> Vec<AggregationEntry> {
        let entries = self.inner.drain_aggregations();
        self.aggregated += entries.iter().map(|entry| entry.value[0]).sum::<i64>();
        entries
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
}

fn run(
    compiled: &Compiled,
    engine: &mut dyn TracingEngine,
    quiet: bool,
    worker: Option<Worker>,
) -> (String, i32) {
    let mut output = Vec::new();
    let status = {
        let mut session = Session::new(
            compiled.program.clone(),
            compiled.enabled.clone(),
            settings(quiet),
            &mut output,
        );
        session
            .run(engine, &mut StartWork { worker })
            .unwrap_or_else(|error| panic!("{error}"))
            .exit_status
    };
    (String::from_utf8_lossy(&output).into_owned(), status)
}

fn kernel_engine(compiled: &Compiled, options: &EngineOptions) -> KernelEngine {
    KernelEngine::new(
        &compiled.verified,
        &compiled.enabled,
        &compiled.entries,
        options,
        true,
    )
    .unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn dtrace_provider_programs_print_the_same_on_both_engines() {
    if !kernel_available("dtrace_provider_programs_print_the_same_on_both_engines") {
        return;
    }
    let programs = [
        (r#"BEGIN { printf("hello, %s\n", "world"); exit(0); }"#, true),
        ("BEGIN { trace(1 + 2); trace(\"three\"); exit(0); }", false),
        (
            "BEGIN { @counts[\"a\"] = count(); @counts[\"b\"] = count(); @counts[\"a\"] = count(); \
             @total = sum(40); @total = sum(2); @dist = quantize(5); @dist = quantize(100); exit(0); }",
            false,
        ),
        (
            "BEGIN { x = 3; self->y = 4; this->z = 5; printf(\"%d %d %d\\n\", x, self->y, this->z); exit(7); } \
             END { printf(\"end %d\\n\", x * 2); }",
            true,
        ),
        ("BEGIN { exit(0); } END { trace(\"bye\"); }", false),
    ];
    // The CPU column shows where BEGIN and END fired: this thread, on both engines.
    pin_to_first_cpu();
    for (text, quiet) in programs {
        let compiled = compile_on_this_machine(text);
        let options = EngineOptions::default();
        let mut vm =
            VirtualMachineEngine::new(compiled.verified.clone(), compiled.enabled.clone(), options)
                .expect("vm engine");
        let expected = run(&compiled, &mut vm, quiet, None);
        let mut kernel = kernel_engine(&compiled, &options);
        let actual = run(&compiled, &mut kernel, quiet, None);
        assert_eq!(actual, expected, "{text}");
    }
}

#[test]
fn a_syscall_count_is_exact() {
    if !kernel_available("a_syscall_count_is_exact") {
        return;
    }
    const CALLS: usize = 200_000;
    let worker = Worker::spawn(|| {
        for _ in 0..CALLS {
            // SAFETY: getppid has no preconditions.
            std::hint::black_box(unsafe { libc::getppid() });
        }
        // SAFETY: getpgid of a process that does not exist only fails.
        unsafe { libc::getpgid(424242) };
    });
    let tid = worker.tid;
    let text = format!(
        "syscall::getppid:entry /tid == {tid}/ {{ @ = count(); }} \
         syscall::getpgid:entry /tid == {tid} && arg0 == 424242/ {{ exit(0); }}"
    );
    let compiled = compile_on_this_machine(&text);
    let mut kernel = kernel_engine(&compiled, &EngineOptions::default());
    let (output, status) = run(&compiled, &mut kernel, true, Some(worker));
    assert_eq!(status, 0);
    assert!(output.starts_with('\n'), "{output:?}");
    assert_eq!(output.trim(), CALLS.to_string(), "{output:?}");
}

#[test]
fn system_call_arguments_come_from_their_registers() {
    if !kernel_available("system_call_arguments_come_from_their_registers") {
        return;
    }
    // Each program reads a different set of arguments: the engine copies only those its
    // clauses name, and each must still come from its own register.
    let cases = [
        ("printf(\"%d\\n\", arg5);", "66"),
        ("printf(\"%d %d\\n\", arg3, arg0);", "44 11"),
        (
            "printf(\"%d %d %d %d %d %d\\n\", arg0, arg1, arg2, arg3, arg4, arg5);",
            "11 22 33 44 55 66",
        ),
        (
            "printf(\"%d\\n\", arg1); } syscall::getppid:entry /tid == TID/ { printf(\"%d\\n\", arg4);",
            "22\n55",
        ),
    ];
    for (action, expected) in cases {
        let worker = Worker::spawn(|| {
            // SAFETY: getppid ignores its arguments; they only sit in the registers.
            unsafe { libc::syscall(libc::SYS_getppid, 11, 22, 33, 44, 55, 66) };
            // SAFETY: getpgid of a process that does not exist only fails.
            unsafe { libc::getpgid(434344) };
        });
        let tid = worker.tid;
        let text = format!(
            "syscall::getppid:entry /tid == {tid}/ {{ {action} }} \
             syscall::getpgid:entry /tid == {tid} && arg0 == 434344/ {{ exit(0); }}"
        )
        .replace("TID", &tid.to_string());
        let compiled = compile_on_this_machine(&text);
        let mut kernel = kernel_engine(&compiled, &EngineOptions::default());
        let (output, status) = run(&compiled, &mut kernel, true, Some(worker));
        assert_eq!(status, 0, "{text}");
        assert_eq!(output.trim(), expected, "{text}");
    }
}

#[test]
fn one_page_buffer_records_plus_drops_equal_the_calls() {
    if !kernel_available("one_page_buffer_records_plus_drops_equal_the_calls") {
        return;
    }
    const CALLS: usize = 50_000;
    let finished = Arc::new(AtomicBool::new(false));
    let flag = finished.clone();
    // The consumer drains nothing until every call has been made, so that the one-page
    // buffer must overflow however fast this machine's consumer would otherwise keep up.
    let calls_made = Arc::new(AtomicBool::new(false));
    let calls_made_by_worker = calls_made.clone();
    let worker = Worker::spawn(move || {
        for _ in 0..CALLS {
            // SAFETY: getppid has no preconditions.
            std::hint::black_box(unsafe { libc::getppid() });
        }
        calls_made_by_worker.store(true, Ordering::SeqCst);
        // The exit record may itself be dropped while the buffer is full: repeat.
        while !flag.load(Ordering::SeqCst) {
            // SAFETY: getpgid of a process that does not exist only fails.
            unsafe { libc::getpgid(434343) };
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    let tid = worker.tid;
    let text = format!(
        "syscall::getppid:entry /tid == {tid}/ {{ trace(arg0); }} \
         syscall::getpgid:entry /tid == {tid} && arg0 == 434343/ {{ @exits = count(); exit(0); }}"
    );
    let compiled = compile_on_this_machine(&text);
    let options = EngineOptions {
        buffer_size: 4096,
        ..EngineOptions::default()
    };
    let mut kernel = kernel_engine(&compiled, &options);
    let mut counting = Counting {
        inner: &mut kernel,
        record_bytes: 0,
        aggregated: 0,
        hold_until: Some(calls_made),
    };
    let (_, status) = run(&compiled, &mut counting, true, Some(worker));
    finished.store(true, Ordering::SeqCst);
    assert_eq!(status, 0);
    let trace_record = 8 + compiled.program.statements[0].record_size as usize;
    let exit_record = 8 + compiled.program.statements[1].record_size as usize;
    assert_eq!(
        trace_record, exit_record,
        "both clauses record one 8-byte value"
    );
    // Every firing of either clause wrote a record or counted a drop; @exits counts the
    // firings of the exit() clause.
    let records = (counting.record_bytes / trace_record) as u64;
    let drops: u64 = counting.drops().principal.values().sum();
    let exit_firings = counting.aggregated as u64;
    assert!(exit_firings >= 1);
    assert_eq!(
        records + drops,
        CALLS as u64 + exit_firings,
        "records {records} + drops {drops} for {CALLS} calls and {exit_firings} exits"
    );
    assert!(drops > 0, "a one-page buffer should overflow");
}

#[test]
fn without_privileges_the_engine_refuses_with_dtraces_message() {
    if std::env::var_os("DTRACE_KERNEL_ENGINE_UNPRIVILEGED").is_some() {
        match check_tracing_privileges() {
            Err(failure) => println!("child: {} (exit {})", failure.message, failure.exit_status),
            Ok(()) => println!("child: permitted"),
        }
        return;
    }
    if !kernel_available("without_privileges_the_engine_refuses_with_dtraces_message") {
        return;
    }
    use std::os::unix::process::CommandExt;
    let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "without_privileges_the_engine_refuses_with_dtraces_message",
            "--nocapture",
        ])
        .env("DTRACE_KERNEL_ENGINE_UNPRIVILEGED", "1")
        .uid(65534)
        .gid(65534)
        .output()
        .expect("re-executing the test as nobody");
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() && stdout.is_empty() {
        eprintln!("skipping: the test binary cannot run as nobody");
        return;
    }
    assert!(
        stdout.contains(&format!(
            "child: failed to initialize dtrace: DTrace requires additional privileges (exit {EXIT_NO_PRIVILEGE})"
        )),
        "{stdout}"
    );
}
