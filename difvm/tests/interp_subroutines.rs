//! Tests of the reference interpreter's subroutines at the DIFO level: string, number
//! and network subroutines, their faults, and §7.3's edge cases.

mod interp_common;

use interp_common::*;

// ---------------------------------------------------------------------------------------
// Subroutines.

#[derive(Clone, Copy)]
enum Arg<'a> {
    Str(&'a str),
    Int(i64),
}

/// Pushes the arguments, calls `number`, returns its result.
fn subroutine_call(number: u16, args: &[Arg], returns_string: bool) -> Difo {
    let mut difo = code();
    for arg in args {
        difo = match arg {
            Arg::Str(text) => difo.sets(text.as_bytes(), 1).push_string(1),
            Arg::Int(value) => difo.setx(*value as u64, 1).push_value(1),
        };
    }
    difo = difo.call(number, 1).ret(1);
    if returns_string {
        difo = difo.returns_string();
    }
    difo.build()
}

fn check_text(number: u16, args: &[Arg], expected: &str) {
    let name = subroutine::name(number).unwrap();
    check(
        name,
        &subroutine_call(number, args, true),
        Expect::Text(expected),
    );
}

fn check_value(number: u16, args: &[Arg], expected: i64) {
    let name = subroutine::name(number).unwrap();
    check(
        name,
        &subroutine_call(number, args, false),
        Expect::Value(expected as u64),
    );
}

#[test]
fn string_subroutines() {
    use Arg::{Int, Str};
    check_value(subroutine::STRLEN, &[Str("hello")], 5);
    check_value(subroutine::STRLEN, &[Str("")], 0);
    check_text(subroutine::STRJOIN, &[Str("foo"), Str("bar")], "foobar");
    check_text(subroutine::SUBSTR, &[Str("hello world"), Int(6)], "world");
    check_text(
        subroutine::SUBSTR,
        &[Str("hello world"), Int(-5), Int(2)],
        "wo",
    );
    check_text(
        subroutine::SUBSTR,
        &[Str("hello world"), Int(3), Int(-3)],
        "lo wo",
    );
    check_text(subroutine::SUBSTR, &[Str("hello"), Int(5)], "");
    check_value(subroutine::INDEX, &[Str("hello hello"), Str("llo")], 2);
    check_value(
        subroutine::INDEX,
        &[Str("hello hello"), Str("llo"), Int(3)],
        8,
    );
    check_value(subroutine::INDEX, &[Str(""), Str("")], 0);
    check_value(subroutine::INDEX, &[Str("abc"), Str(""), Int(7)], 3);
    check_value(subroutine::RINDEX, &[Str("hello hello"), Str("llo")], 8);
    check_value(subroutine::RINDEX, &[Str("hello"), Str(""), Int(-1)], 0);
    check_value(subroutine::RINDEX, &[Str("hello"), Str("l"), Int(-1)], -1);
    check_text(subroutine::STRCHR, &[Str("a/b/c"), Int('/' as i64)], "/b/c");
    check_text(subroutine::STRRCHR, &[Str("a/b/c"), Int('/' as i64)], "/c");
    check_value(subroutine::STRCHR, &[Str("abc"), Int('z' as i64)], 0);
    check_text(subroutine::STRSTR, &[Str("haystack"), Str("st")], "stack");
    check_value(subroutine::STRSTR, &[Str("haystack"), Str("needle")], 0);
    check_text(subroutine::LLTOSTR, &[Int(-42)], "-42");
    check_text(subroutine::LLTOSTR, &[Int(255), Int(16)], "0xff");
    check_text(subroutine::LLTOSTR, &[Int(0), Int(16)], "0x0");
    check_text(subroutine::LLTOSTR, &[Int(8), Int(8)], "010");
    check_value(subroutine::STRTOLL, &[Str("  -123abc")], -123);
    check_value(subroutine::STRTOLL, &[Str("0x1F"), Int(16)], 31);
    check_text(subroutine::TOUPPER, &[Str("MiXed 1")], "MIXED 1");
    check_text(subroutine::TOLOWER, &[Str("MiXed 1")], "mixed 1");
    check_text(subroutine::BASENAME, &[Str("/usr/lib/")], "lib");
    check_text(subroutine::BASENAME, &[Str("")], ".");
    check_text(subroutine::DIRNAME, &[Str("/usr/lib/")], "/usr");
    check_text(subroutine::DIRNAME, &[Str("file")], ".");
    check_text(subroutine::DIRNAME, &[Str("/")], "/");
    check_text(subroutine::CLEANPATH, &[Str("/a//b/./c/../d")], "/a/b/d");
}

#[test]
fn subroutine_faults() {
    use Arg::{Int, Str};
    let fault = |number: u16, args: &[Arg], code: FaultCode, value: u64| {
        let at = Some(args.len() as u32 * 2);
        check(
            subroutine::name(number).unwrap(),
            &subroutine_call(number, args, false),
            Expect::Fault(code, value, at),
        );
    };
    fault(
        subroutine::LLTOSTR,
        &[Int(1), Int(1)],
        FaultCode::IllegalOperation,
        1,
    );
    fault(
        subroutine::LLTOSTR,
        &[Int(1), Int(37)],
        FaultCode::IllegalOperation,
        37,
    );
    fault(
        subroutine::INET_NTOP,
        &[Int(99), Int(0x1000)],
        FaultCode::IllegalOperation,
        99,
    );
    fault(
        subroutine::MUTEX_OWNED,
        &[Int(0x1000)],
        FaultCode::IllegalOperation,
        subroutine::MUTEX_OWNED as u64,
    );
    fault(
        subroutine::D_PATH,
        &[Int(0x1000)],
        FaultCode::IllegalOperation,
        subroutine::D_PATH as u64,
    );
    fault(subroutine::STRLEN, &[Int(0)], FaultCode::BadAddress, 0);
    fault(
        subroutine::COPYIN,
        &[Int(0x1000), Int(4)],
        FaultCode::BadAddress,
        0x1000,
    );
    fault(
        subroutine::BCOPY,
        &[Int(0x1000), Int(0x2000), Int(4)],
        FaultCode::BadAddress,
        0x2000,
    );
    let long = "x".repeat(200);
    fault(
        subroutine::STRJOIN,
        &[Str(&long), Str(&long)],
        FaultCode::NoScratch,
        0,
    );
    // A string pushed with pushtr is measured at push time: NULL faults there.
    let null_string = code().setx(0, 1).push_string(1).ret(0).build();
    check(
        "pushtr NULL",
        &null_string,
        Expect::Fault(FaultCode::BadAddress, 0, Some(1)),
    );
}

#[test]
fn number_and_network_subroutines() {
    use Arg::Int;
    check_value(subroutine::HTONS, &[Int(0x1234)], 0x3412);
    check_value(subroutine::NTOHL, &[Int(0x1234_5678)], 0x7856_3412);
    check_value(
        subroutine::HTONLL,
        &[Int(0x0102_0304_0506_0708)],
        0x0807_0605_0403_0201,
    );
    check_value(subroutine::GETMAJOR, &[Int((8 << 20) | 3)], 8);
    check_value(subroutine::GETMINOR, &[Int((8 << 20) | 3)], 3);
    check_value(subroutine::PROGENYOF, &[Int(1234)], 1);
    check_value(subroutine::PROGENYOF, &[Int(1)], 0);
    check_text(subroutine::INET_NTOA, &[Int(0x1000)], "127.0.0.1");
    check_text(subroutine::INET_NTOP, &[Int(2), Int(0x1000)], "127.0.0.1");
    check_text(subroutine::INET_NTOA6, &[Int(0x2000)], "::");
    check_text(subroutine::INET_NTOP, &[Int(10), Int(0x2000)], "::");
    check_text(subroutine::COPYINSTR, &[Int(0x5000)], "from user space");
    check_text(subroutine::COPYINSTR, &[Int(0x5000), Int(4)], "from");
    let rand = subroutine_call(subroutine::RAND, &[], false);
    let value = difvm::interp::evaluate_difo(&rand, &context()).unwrap();
    assert!(value <= i32::MAX as u64);
    let copied = code()
        .setx(0x5005, 1)
        .push_value(1)
        .setx(4, 1)
        .push_value(1)
        .call(subroutine::COPYIN, 2)
        .op(Opcode::Lduw, 2, 0, 3)
        .ret(3)
        .build();
    check(
        "copyin",
        &copied,
        Expect::Value(u32::from_le_bytes(*b"user") as u64),
    );
}

#[test]
fn strtok_continues_within_a_firing() {
    use Arg::{Int, Str};
    let mut state = MachineState::new(&MachineOptions::default(), Default::default());
    state.begin_firing();
    check_in(
        &mut state,
        "first token",
        &subroutine_call(subroutine::STRTOK, &[Str(",,a,bc,"), Str(",")], true),
        Expect::Text("a"),
    );
    let next = subroutine_call(subroutine::STRTOK, &[Int(0), Str(",")], true);
    check_in(&mut state, "second token", &next, Expect::Text("bc"));
    check_in(&mut state, "end", &next, Expect::Value(0));
    // With no saved position, DTrace's strtok() finds no token: NULL, not a fault.
    check_in(&mut state, "after the end", &next, Expect::Value(0));
    state.begin_firing();
    check_in(&mut state, "new firing", &next, Expect::Value(0));
}
