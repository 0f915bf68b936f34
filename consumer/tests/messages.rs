//! Tests of the drop reports, the classic runtime error messages and the message sink.

use std::rc::Rc;

use consumer::invocation::{run_with_messages, Invocation, Mode, EXIT_USAGE};
use consumer::messages::{
    drop_message, library_error_message, CapturedMessages, DropKind, MessageSink, RuntimeFault,
};
use consumer::record::RecordValue;
use difvm::object::{FaultCode, ProbeDescription};

#[test]
fn drop_messages() {
    let cases = [
        (DropKind::Principal, 1, false, "1 drop on CPU 3"),
        (DropKind::Principal, 5, false, "5 drops on CPU 3"),
        (
            DropKind::Principal,
            5,
            true,
            "[DTRACEDROP_PRINCIPAL] 5 drops on CPU 3",
        ),
        (
            DropKind::Aggregation,
            2,
            false,
            "2 aggregation drops on CPU 3",
        ),
        (
            DropKind::Aggregation,
            1,
            true,
            "[DTRACEDROP_AGGREGATION] 1 aggregation drop on CPU 3",
        ),
        (DropKind::Dynamic, 1, false, "1 dynamic variable drop"),
        (
            DropKind::Dynamic,
            7,
            true,
            "[DTRACEDROP_DYNAMIC] 7 dynamic variable drops",
        ),
        (
            DropKind::DynamicRinsing,
            2,
            false,
            "2 dynamic variable drops with non-empty rinsing list",
        ),
        (
            DropKind::DynamicDirty,
            1,
            false,
            "1 dynamic variable drop with non-empty dirty list",
        ),
        (DropKind::Speculative, 3, false, "3 speculative drops"),
        (
            DropKind::SpeculationBusy,
            1,
            false,
            "1 failed speculation (available buffer(s) still busy)",
        ),
        (
            DropKind::SpeculationUnavailable,
            4,
            true,
            "[DTRACEDROP_SPECUNAVAIL] 4 failed speculations (no speculative buffer available)",
        ),
        (
            DropKind::StackStringOverflow,
            2,
            false,
            "2 jstack()/ustack() string table overflows",
        ),
        (
            DropKind::DoubleError,
            1,
            false,
            "1 error in ERROR probe enabling",
        ),
        (
            DropKind::DoubleError,
            2,
            true,
            "[DTRACEDROP_DBLERROR] 2 errors in ERROR probe enabling",
        ),
    ];
    for (kind, count, droptags, expected) in cases {
        assert_eq!(
            drop_message(kind, count, 3, droptags),
            expected,
            "{:?}",
            kind
        );
    }
    assert_eq!(DropKind::DynamicRinsing.tag(), "DTRACEDROP_DYNRINSE");
    assert_eq!(
        DropKind::StackStringOverflow.tag(),
        "DTRACEDROP_STKSTROVERFLOW"
    );
}

fn begin() -> ProbeDescription {
    ProbeDescription {
        provider: "dtrace".into(),
        module: String::new(),
        function: String::new(),
        name: "BEGIN".into(),
    }
}

fn fault(action: i64, dif_offset: i64, fault: FaultCode, address: u64) -> RuntimeFault {
    RuntimeFault {
        epid: 1,
        probe_id: 1,
        probe: begin(),
        action,
        dif_offset,
        fault,
        address,
    }
}

#[test]
fn runtime_error_messages() {
    assert_eq!(
        fault(1, 28, FaultCode::BadAddress, 0).message(),
        "error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x0) in action #1 at DIF offset 28"
    );
    assert_eq!(
        fault(0, 12, FaultCode::DivideByZero, 99).message(),
        "error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): divide-by-zero in predicate at DIF offset 12"
    );
    assert_eq!(
        fault(2, -1, FaultCode::BadAlignment, 0xffff0001).message(),
        "error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid alignment (0xffff0001) in action #2"
    );
    assert_eq!(
        fault(3, 4, FaultCode::BadStack, 0x10).message(),
        "error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): bad stack (0x10) in action #3 at DIF offset 4"
    );
    assert_eq!(
        fault(1, 0, FaultCode::IllegalOperation, 5).message(),
        "error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): illegal operation in action #1 at DIF offset 0"
    );
    assert_eq!(
        library_error_message(4, 2, &begin(), "couldn't set option \"x\" to \"1\": Invalid option name"),
        "error on enabled probe ID 4 (ID 2: dtrace:::BEGIN): couldn't set option \"x\" to \"1\": Invalid option name"
    );
}

#[test]
fn faults_from_the_error_handler_record() {
    let word = |value: i64| RecordValue::Integer {
        bits: value as u64,
        size: 8,
        signed: true,
    };
    let values = [word(7), word(2), word(-1), word(1), word(0x1234)];
    let probe_of = |epid: u32| (epid == 7).then(|| (42, begin()));
    let fault = RuntimeFault::from_error_record(&values, probe_of).unwrap();
    assert_eq!(
        fault.message(),
        "error on enabled probe ID 7 (ID 42: dtrace:::BEGIN): invalid address (0x1234) in action #2"
    );
    assert_eq!(
        RuntimeFault::from_error_record(&values[..4], probe_of),
        None
    );
    let unknown = [word(8), word(2), word(-1), word(1), word(0)];
    assert_eq!(RuntimeFault::from_error_record(&unknown, probe_of), None);
    let strange = [word(7), word(0), word(5), word(77), word(0)];
    assert_eq!(
        RuntimeFault::from_error_record(&strange, probe_of).unwrap().message(),
        "error on enabled probe ID 7 (ID 42: dtrace:::BEGIN): unknown fault in predicate at DIF offset 5"
    );
}

fn invocation(mode: Mode) -> Invocation {
    Invocation {
        mode,
        programs: Vec::new(),
        options: Vec::new(),
        operands: Vec::new(),
        targets: Vec::new(),
        output_file: None,
        compile_only: false,
        verbose: false,
        anonymous: false,
    }
}

#[test]
fn a_run_writes_its_reports_and_messages_to_its_sink() {
    let messages = Rc::new(CapturedMessages::new());
    assert_eq!(
        run_with_messages(&invocation(Mode::Version), messages.clone()),
        0
    );
    assert_eq!(messages.reports(), "dtrace: Sun D 1.13\n");
    assert_eq!(messages.diagnostics(), "");
    let anonymous = Invocation {
        anonymous: true,
        ..invocation(Mode::Execute)
    };
    assert_eq!(run_with_messages(&anonymous, messages.clone()), EXIT_USAGE);
    assert_eq!(
        messages.diagnostics(),
        "dtrace: anonymous tracing (-a, -A) is not supported\n"
    );
}

#[test]
fn captured_messages_keep_the_two_streams_apart() {
    let messages = CapturedMessages::new();
    messages.message("no probes matched");
    messages.report("listing\n");
    messages.diagnostic_text("raw text");
    assert_eq!(
        messages.diagnostics(),
        "dtrace: no probes matched\nraw text"
    );
    assert_eq!(messages.reports(), "listing\n");
}
