//! Golden tests of the option table, option value parsing and dtrace(1)'s option
//! failure messages (D-REFERENCE.md §11, §12.2).

use consumer::options::{
    shorthand_option, split_option_assignment, DVersion, DtraceOption, OptionClass, OptionOrigin,
    OptionSet, OptionValue, OPTION_TABLE,
};

/// Sets `assignment` (`name` or `name=value`) from `origin` on a fresh option set and
/// renders the outcome: the option's effective value (`Debug` of `OptionSet::value`)
/// on success, the full failure message otherwise.
fn outcome(origin: OptionOrigin, assignment: &str) -> String {
    let mut options = OptionSet::new();
    match options.set_assignment(assignment, origin) {
        Ok(()) => {
            let (name, _) = split_option_assignment(assignment);
            let option = DtraceOption::from_name(name).expect("a set option has a name");
            format!("{:?}", options.value(option))
        }
        Err(failure) => failure.message(),
    }
}

/// Checks every `(assignment, expected outcome)` pair for one origin, reporting all
/// mismatches at once.
fn check(origin: OptionOrigin, cases: &[(&str, &str)]) {
    let mismatches: Vec<String> = cases
        .iter()
        .filter_map(|(assignment, expected)| {
            let actual = outcome(origin, assignment);
            (actual != *expected)
                .then(|| format!("{assignment:?}:\n  expected {expected}\n  actual   {actual}"))
        })
        .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

const BAD_VALUE: &str = "Invalid value for specified option";

fn command_line_invalid(name: &str) -> String {
    format!("failed to set -x {name}: {BAD_VALUE}")
}

#[test]
fn boolean_and_runtime_integer_values() {
    let invalid_quiet = command_line_invalid("quiet");
    let invalid_nspec = command_line_invalid("nspec");
    check(
        OptionOrigin::CommandLine,
        &[
            ("quiet", "Some(Integer(1))"),
            ("quiet=", "None"),
            ("quiet=yes", "Some(Integer(1))"),
            ("quiet=YES", "Some(Integer(1))"),
            ("quiet=no", "None"),
            ("quiet=Enable", "Some(Integer(1))"),
            ("quiet=disable", "None"),
            ("quiet=enabled", "Some(Integer(1))"),
            ("quiet=DISABLED", "None"),
            ("quiet=true", "Some(Integer(1))"),
            ("quiet=False", "None"),
            ("quiet=on", "Some(Integer(1))"),
            ("quiet=off", "None"),
            ("quiet=set", "Some(Integer(1))"),
            ("quiet=unset", "None"),
            ("quiet=0", "Some(Integer(0))"),
            ("quiet=7", "Some(Integer(7))"),
            ("quiet=0x1f", "Some(Integer(31))"),
            ("quiet=0X1F", "Some(Integer(31))"),
            ("quiet=010", "Some(Integer(8))"),
            (
                "quiet=9223372036854775807",
                "Some(Integer(9223372036854775807))",
            ),
            ("quiet=9223372036854775808", &invalid_quiet),
            ("quiet=-1", &invalid_quiet),
            ("quiet=+1", &invalid_quiet),
            ("quiet= 1", &invalid_quiet),
            ("quiet=08", &invalid_quiet),
            ("quiet=0x", &invalid_quiet),
            ("quiet=1k", &invalid_quiet),
            ("quiet=maybe", &invalid_quiet),
            ("nspec=4", "Some(Integer(4))"),
            ("nspec=yes", "Some(Integer(1))"),
            // Unsetting an integer brings back its default.
            ("nspec=", "Some(Integer(1))"),
            ("nspec=no", "Some(Integer(1))"),
            ("nspec=four", &invalid_nspec),
            // CPU 0 is always online; a CPU that is not is an invalid value.
            ("cpu=0", "Some(Integer(0))"),
            ("cpu=", "None"),
            ("cpu=100000", &command_line_invalid("cpu")),
            ("stackindent=4", "Some(Integer(4))"),
            ("aggsortpos=1", "Some(Integer(1))"),
        ],
    );
}

#[test]
fn size_values() {
    let invalid_bufsize = command_line_invalid("bufsize");
    check(
        OptionOrigin::CommandLine,
        &[
            ("bufsize=4m", "Some(Integer(4194304))"),
            ("bufsize=4M", "Some(Integer(4194304))"),
            ("bufsize=512k", "Some(Integer(524288))"),
            ("bufsize=512K", "Some(Integer(524288))"),
            ("bufsize=1g", "Some(Integer(1073741824))"),
            ("bufsize=2T", "Some(Integer(2199023255552))"),
            ("bufsize=0x1000", "Some(Integer(4096))"),
            ("bufsize=0x10k", "Some(Integer(16384))"),
            ("bufsize=010", "Some(Integer(8))"),
            ("bufsize=1234", "Some(Integer(1234))"),
            ("bufsize=0", "Some(Integer(0))"),
            // libdtrace stores 0 when a size is named without a value.
            ("bufsize", "Some(Integer(0))"),
            ("bufsize=", &invalid_bufsize),
            ("bufsize=m", &invalid_bufsize),
            ("bufsize=4mb", &invalid_bufsize),
            ("bufsize=4 m", &invalid_bufsize),
            ("bufsize=4p", &invalid_bufsize),
            ("bufsize=-4m", &invalid_bufsize),
            ("bufsize=yes", &invalid_bufsize),
            ("bufsize=8388608t", &invalid_bufsize),
            ("bufsize=8388607t", "Some(Integer(9223370937343148032))"),
            ("aggsize=8m", "Some(Integer(8388608))"),
            ("dynvarsize=16m", "Some(Integer(16777216))"),
            ("specsize=64k", "Some(Integer(65536))"),
            ("strsize=1024", "Some(Integer(1024))"),
            ("jstackstrsize=1k", "Some(Integer(1024))"),
            ("scratchsize=4k", "Some(Integer(4096))"),
            ("printsize=16k", "Some(Integer(16384))"),
            ("pcapsize=65535", "Some(Integer(65535))"),
            ("pcapsize=64k", &command_line_invalid("pcapsize")),
            ("lockmem=unlimited", "Some(Unlimited)"),
            ("lockmem=64m", "Some(Integer(67108864))"),
            ("lockmem=Unlimited", &command_line_invalid("lockmem")),
            ("lockmem", &command_line_invalid("lockmem")),
        ],
    );
}

#[test]
fn time_and_rate_values() {
    let invalid_switchrate = command_line_invalid("switchrate");
    check(
        OptionOrigin::CommandLine,
        &[
            ("switchrate=10hz", "Some(Integer(100000000))"),
            ("switchrate=10Hz", "Some(Integer(100000000))"),
            ("switchrate=1hz", "Some(Integer(1000000000))"),
            ("switchrate=3hz", "Some(Integer(333333333))"),
            ("switchrate=0hz", "Some(Integer(0))"),
            ("switchrate=2000000000hz", "Some(Integer(0))"),
            ("switchrate=250", "Some(Integer(250))"),
            ("switchrate=250ns", "Some(Integer(250))"),
            ("switchrate=250nsec", "Some(Integer(250))"),
            ("switchrate=5us", "Some(Integer(5000))"),
            ("switchrate=5usec", "Some(Integer(5000))"),
            ("switchrate=1ms", "Some(Integer(1000000))"),
            ("switchrate=1MSEC", "Some(Integer(1000000))"),
            ("switchrate=1s", "Some(Integer(1000000000))"),
            ("switchrate=2sec", "Some(Integer(2000000000))"),
            ("switchrate=2m", "Some(Integer(120000000000))"),
            ("switchrate=2min", "Some(Integer(120000000000))"),
            ("switchrate=1h", "Some(Integer(3600000000000))"),
            ("switchrate=1hour", "Some(Integer(3600000000000))"),
            ("switchrate=1d", "Some(Integer(86400000000000))"),
            ("switchrate=1day", "Some(Integer(86400000000000))"),
            ("switchrate=0x10", "Some(Integer(16))"),
            ("switchrate=0x1d", "Some(Integer(29))"),
            ("switchrate", "Some(Integer(0))"),
            ("switchrate=", &invalid_switchrate),
            ("switchrate=hz", &invalid_switchrate),
            ("switchrate=10 hz", &invalid_switchrate),
            ("switchrate=10parsecs", &invalid_switchrate),
            ("switchrate=1w", &invalid_switchrate),
            ("switchrate=-1s", &invalid_switchrate),
            ("switchrate=200000000000d", &invalid_switchrate),
            ("aggrate=1ms", "Some(Integer(1000000))"),
            ("cleanrate=3000hz", "Some(Integer(333333))"),
            ("statusrate=1s", "Some(Integer(1000000000))"),
        ],
    );
}

#[test]
fn word_flag_text_and_compiler_values() {
    check(
        OptionOrigin::CommandLine,
        &[
            ("bufpolicy=switch", "Some(Word(\"switch\"))"),
            ("bufpolicy=fill", "Some(Word(\"fill\"))"),
            ("bufpolicy=ring", "Some(Word(\"ring\"))"),
            ("bufpolicy=Ring", &command_line_invalid("bufpolicy")),
            ("bufpolicy", &command_line_invalid("bufpolicy")),
            ("bufresize=manual", "Some(Word(\"manual\"))"),
            ("bufresize=never", &command_line_invalid("bufresize")),
            ("evaltime=preinit", "Some(Word(\"preinit\"))"),
            ("linkmode=primary", "Some(Word(\"primary\"))"),
            ("linktype=dof", "Some(Word(\"dof\"))"),
            ("late=dynamic", "Some(Word(\"dynamic\"))"),
            ("encoding=utf8", "Some(Word(\"utf8\"))"),
            ("stdc=t", "Some(Word(\"t\"))"),
            ("stdc=x", &command_line_invalid("stdc")),
            ("zdefs", "Some(Flag(true))"),
            ("zdefs=1", &command_line_invalid("zdefs")),
            ("zdefs=", &command_line_invalid("zdefs")),
            ("cpp", "Some(Flag(true))"),
            ("errtags", "Some(Flag(true))"),
            ("kdefs", "Some(Flag(true))"),
            ("knodefs", "Some(Flag(true))"),
            ("kdefs=yes", &command_line_invalid("kdefs")),
            ("define=DEBUG=1", "Some(Text([\"DEBUG=1\"]))"),
            ("define", &command_line_invalid("define")),
            ("cpppath=/usr/bin/cpp", "Some(Text([\"/usr/bin/cpp\"]))"),
            ("setenv=LANG=C", "Some(Text([\"LANG=C\"]))"),
            ("unsetenv=LANG", "Some(Text([\"LANG\"]))"),
            ("unsetenv=LANG=C", &command_line_invalid("unsetenv")),
            ("iregs=16", "Some(Integer(16))"),
            ("iregs=0", &command_line_invalid("iregs")),
            ("iregs", &command_line_invalid("iregs")),
            ("tregs=0x10", "Some(Integer(16))"),
            ("pgmax=0", "Some(Integer(0))"),
            (
                "amin=Evolving/Evolving/Common",
                "Some(Text([\"Evolving/Evolving/Common\"]))",
            ),
            ("amin=stable", "Some(Text([\"stable\"]))"),
            (
                "amin=Private/unstable/isa",
                "Some(Text([\"Private/unstable/isa\"]))",
            ),
            ("amin=Solid", &command_line_invalid("amin")),
            ("amin=Stable/Stable/Stable", &command_line_invalid("amin")),
            ("amin=Stable/Stable/ISA/ISA", &command_line_invalid("amin")),
        ],
    );
}

#[test]
fn version_option() {
    let malformed = "failed to set -x version: Version is not properly formatted or is too large";
    let unsupported = "failed to set -x version: Requested version is not supported by compiler";
    check(
        OptionOrigin::CommandLine,
        &[
            (
                "version=1.5",
                "Some(Version(DVersion { major: 1, minor: 5, micro: 0 }))",
            ),
            (
                "version=1.2.1",
                "Some(Version(DVersion { major: 1, minor: 2, micro: 1 }))",
            ),
            (
                "version=1.13",
                "Some(Version(DVersion { major: 1, minor: 13, micro: 0 }))",
            ),
            (
                "version=1",
                "Some(Version(DVersion { major: 1, minor: 0, micro: 0 }))",
            ),
            (
                "version=1.",
                "Some(Version(DVersion { major: 1, minor: 0, micro: 0 }))",
            ),
            ("version=1.14", unsupported),
            ("version=2.0", unsupported),
            ("version=1.2.3", unsupported),
            ("version=", unsupported),
            ("version=1.x", malformed),
            ("version=v1.0", malformed),
            ("version=1.2.3.4", malformed),
            ("version=256.0", malformed),
            ("version=1.4096", malformed),
            ("version=99999999999999999999", malformed),
            ("version", &command_line_invalid("version")),
        ],
    );
    let mut options = OptionSet::new();
    assert_eq!(options.d_version(), DVersion::new(1, 13, 0));
    options
        .set("version", Some("1.6.3"), OptionOrigin::CommandLine)
        .unwrap();
    assert_eq!(options.d_version().to_string(), "1.6.3");
    assert_eq!(DVersion::new(1, 10, 0).to_string(), "1.10");
}

#[test]
fn command_line_messages() {
    check(
        OptionOrigin::CommandLine,
        &[
            ("bogus", "failed to set -x bogus: Invalid option name"),
            // dtrace(1) reports only the name: it cut the argument at '=' already.
            ("bogus=1", "failed to set -x bogus: Invalid option name"),
            ("Quiet", "failed to set -x Quiet: Invalid option name"),
            (
                "bufsize=4x",
                "failed to set -x bufsize: Invalid value for specified option",
            ),
            // The command line may set every class of option.
            ("define=X", "Some(Text([\"X\"]))"),
            ("cpphdrs", "Some(Flag(true))"),
        ],
    );
}

#[test]
fn pragma_messages() {
    let not_from_program = "Option cannot be used from within a D program";
    check(
        OptionOrigin::Pragma,
        &[
            ("bogus", "failed to set option 'bogus': Invalid option name"),
            (
                "bogus=3",
                "failed to set option 'bogus' to '3': Invalid option name",
            ),
            (
                "bufsize=4x",
                "failed to set option 'bufsize' to '4x': Invalid value for specified option",
            ),
            (
                "bufpolicy",
                "failed to set option 'bufpolicy': Invalid value for specified option",
            ),
            ("quiet", "Some(Integer(1))"),
            ("nspec=4", "Some(Integer(4))"),
            ("zdefs", "Some(Flag(true))"),
            (
                "version=1.0",
                "Some(Version(DVersion { major: 1, minor: 0, micro: 0 }))",
            ),
            (
                "define=X",
                &format!("failed to set option 'define' to 'X': {not_from_program}"),
            ),
            (
                "undef=X",
                &format!("failed to set option 'undef' to 'X': {not_from_program}"),
            ),
            (
                "incdir=/tmp",
                &format!("failed to set option 'incdir' to '/tmp': {not_from_program}"),
            ),
            (
                "cpppath=/bin/cpp",
                &format!("failed to set option 'cpppath' to '/bin/cpp': {not_from_program}"),
            ),
            (
                "ldpath=/bin/ld",
                &format!("failed to set option 'ldpath' to '/bin/ld': {not_from_program}"),
            ),
            (
                "stdc=a",
                &format!("failed to set option 'stdc' to 'a': {not_from_program}"),
            ),
            (
                "cpphdrs",
                &format!("failed to set option 'cpphdrs': {not_from_program}"),
            ),
            (
                "setenv",
                &format!("failed to set option 'setenv': {not_from_program}"),
            ),
            (
                "unsetenv=A=B",
                &format!("failed to set option 'unsetenv' to 'A=B': {not_from_program}"),
            ),
            // For the preprocessor options a missing value is reported before the context.
            (
                "define",
                &format!("failed to set option 'define': {BAD_VALUE}"),
            ),
            ("stdc", &format!("failed to set option 'stdc': {BAD_VALUE}")),
        ],
    );
}

#[test]
fn setopt_messages() {
    let active = "Operation illegal when tracing is active";
    check(
        OptionOrigin::Setopt,
        &[
            ("quiet", "Some(Integer(1))"),
            ("quiet=no", "None"),
            ("aggsortkey=1", "Some(Integer(1))"),
            ("switchrate=10hz", "Some(Integer(100000000))"),
            ("stackindent=8", "Some(Integer(8))"),
            (
                "bufsize=8m",
                &format!("couldn't set option \"bufsize\" to \"8m\": {active}"),
            ),
            (
                "nspec",
                &format!("couldn't set option \"nspec\" to \"\": {active}"),
            ),
            (
                "destructive",
                &format!("couldn't set option \"destructive\" to \"\": {active}"),
            ),
            // Runtime options are refused whatever their value.
            (
                "strsize=junk",
                &format!("couldn't set option \"strsize\" to \"junk\": {active}"),
            ),
            (
                "aggrate=often",
                &format!("couldn't set option \"aggrate\" to \"often\": {BAD_VALUE}"),
            ),
            (
                "bogus=1",
                "couldn't set option \"bogus\" to \"1\": Invalid option name",
            ),
        ],
    );
}

#[test]
fn environment_origin_messages() {
    check(
        OptionOrigin::Environment,
        &[
            ("bufsize=8m", "Some(Integer(8388608))"),
            (
                "bufsize=8x",
                "failed to set option 'bufsize' to '8x' (from DTRACE_OPT_BUFSIZE): Invalid value for specified option",
            ),
            (
                "bufpolicy",
                "failed to set option 'bufpolicy' (from DTRACE_OPT_BUFPOLICY): Invalid value for specified option",
            ),
            // The environment is not a D program.
            ("define=X", "Some(Text([\"X\"]))"),
        ],
    );
}

#[test]
fn environment_variables_are_applied_and_then_overridden() {
    let mut options = OptionSet::new();
    options
        .apply_environment([
            ("PATH", "/usr/bin"),
            ("DTRACE_OPT_BUFSIZE", "8m"),
            ("DTRACE_OPT_QUIET", ""),
            ("DTRACE_OPT_NSPEC", "4"),
            ("DTRACE_OPT_ZDEFS", ""),
            ("dtrace_opt_strsize", "1k"),
        ])
        .unwrap();
    assert_eq!(options.size(DtraceOption::BufSize), Some(8 << 20));
    assert!(options.boolean(DtraceOption::Quiet));
    assert_eq!(options.integer(DtraceOption::Nspec), Some(4));
    assert!(options.boolean(DtraceOption::Zdefs));
    // Only the upper-case prefix counts.
    assert_eq!(options.size(DtraceOption::StrSize), Some(256));
    options
        .set_assignment("bufsize=16m", OptionOrigin::CommandLine)
        .unwrap();
    options
        .set_assignment("quiet=no", OptionOrigin::Pragma)
        .unwrap();
    assert_eq!(options.size(DtraceOption::BufSize), Some(16 << 20));
    assert!(!options.boolean(DtraceOption::Quiet));

    let failure = OptionSet::new()
        .apply_environment(vec![
            ("DTRACE_OPT_BOGUS".to_string(), "1".to_string()),
            ("DTRACE_OPT_QUIET".to_string(), String::new()),
        ])
        .unwrap_err();
    assert_eq!(
        failure.message(),
        "failed to set option 'bogus' to '1' (from DTRACE_OPT_BOGUS): Invalid option name"
    );
}

#[test]
fn shorthand_flags() {
    let mut options = OptionSet::new();
    for (flag, argument) in [
        ('b', Some("16m")),
        ('q', None),
        ('w', None),
        ('F', None),
        ('Z', None),
        ('C', None),
        ('S', None),
        ('D', Some("A=1")),
        ('D', Some("B")),
        ('U', Some("C")),
        ('I', Some("/opt/include")),
        ('H', None),
        ('X', Some("s")),
        ('L', Some("/opt/lib/dtrace")),
        ('a', None),
    ] {
        options.set_shorthand(flag, argument).unwrap();
    }
    assert_eq!(options.size(DtraceOption::BufSize), Some(16 << 20));
    for option in [
        DtraceOption::Quiet,
        DtraceOption::Destructive,
        DtraceOption::FlowIndent,
        DtraceOption::Zdefs,
        DtraceOption::Cpp,
        DtraceOption::Verbose,
        DtraceOption::CppHdrs,
        DtraceOption::GrabAnon,
    ] {
        assert!(options.boolean(option), "{option:?} should be on");
    }
    assert_eq!(options.texts(DtraceOption::Define), ["A=1", "B"]);
    assert_eq!(options.text(DtraceOption::Undef), Some("C"));
    assert_eq!(options.text(DtraceOption::IncDir), Some("/opt/include"));
    assert_eq!(options.word(DtraceOption::Stdc), Some("s"));
    assert_eq!(options.text(DtraceOption::LibDir), Some("/opt/lib/dtrace"));

    let failure_messages: Vec<String> = [
        ('b', Some("4x")),
        ('X', Some("q")),
        ('D', None),
        ('k', None),
    ]
    .into_iter()
    .map(
        |(flag, argument)| match OptionSet::new().set_shorthand(flag, argument) {
            Ok(()) => "accepted".to_string(),
            Err(failure) => failure.message(),
        },
    )
    .collect();
    assert_eq!(
        failure_messages,
        [
            "failed to set -b 4x: Invalid value for specified option",
            "failed to set -X q: Invalid value for specified option",
            "failed to set -D: Invalid value for specified option",
            "failed to set -k: Invalid option name",
        ]
    );
    let mut quiet_once_more = OptionSet::new();
    quiet_once_more.set_shorthand('q', None).unwrap();
    assert_eq!(
        quiet_once_more.value(DtraceOption::Quiet),
        Some(OptionValue::Integer(1))
    );
}

#[test]
fn shorthand_mapping() {
    let mapping: Vec<String> = "bqwFZCSDUIHXLa"
        .chars()
        .map(|flag| {
            format!(
                "-{flag} {}",
                shorthand_option(flag).map_or("-", DtraceOption::name)
            )
        })
        .collect();
    assert_eq!(
        mapping,
        [
            "-b bufsize",
            "-q quiet",
            "-w destructive",
            "-F flowindent",
            "-Z zdefs",
            "-C cpp",
            "-S verbose",
            "-D define",
            "-U undef",
            "-I incdir",
            "-H cpphdrs",
            "-X stdc",
            "-L libdir",
            "-a grabanon",
        ]
    );
    assert_eq!(shorthand_option('x'), None);
    assert_eq!(
        split_option_assignment("define=A=1"),
        ("define", Some("A=1"))
    );
    assert_eq!(split_option_assignment("quiet"), ("quiet", None));
    assert_eq!(split_option_assignment("quiet="), ("quiet", Some("")));
}

#[test]
fn defaults() {
    let options = OptionSet::new();
    let rendered: Vec<String> = [
        "bufsize",
        "bufpolicy",
        "bufresize",
        "aggsize",
        "dynvarsize",
        "specsize",
        "nspec",
        "strsize",
        "stackframes",
        "ustackframes",
        "jstackframes",
        "jstackstrsize",
        "cleanrate",
        "statusrate",
        "cpu",
        "destructive",
        "switchrate",
        "aggrate",
        "aggsortpos",
        "stackindent",
        "printsize",
        "quiet",
        "flowindent",
        "zdefs",
        "kdefs",
        "evaltime",
        "iregs",
        "tregs",
        "stdc",
        "linkmode",
        "version",
    ]
    .iter()
    .map(|name| {
        let option = DtraceOption::from_name(name).unwrap();
        format!("{name} {:?}", options.value(option))
    })
    .collect();
    assert_eq!(
        rendered,
        [
            "bufsize Some(Integer(4194304))",
            "bufpolicy Some(Word(\"switch\"))",
            "bufresize Some(Word(\"auto\"))",
            "aggsize Some(Integer(4194304))",
            "dynvarsize Some(Integer(1048576))",
            "specsize Some(Integer(32768))",
            "nspec Some(Integer(1))",
            "strsize Some(Integer(256))",
            "stackframes Some(Integer(20))",
            "ustackframes Some(Integer(20))",
            "jstackframes Some(Integer(50))",
            "jstackstrsize Some(Integer(512))",
            "cleanrate Some(Integer(9900990))",
            "statusrate Some(Integer(1000000000))",
            "cpu None",
            "destructive None",
            "switchrate Some(Integer(1000000000))",
            "aggrate Some(Integer(1000000000))",
            "aggsortpos Some(Integer(0))",
            "stackindent Some(Integer(14))",
            "printsize Some(Integer(8192))",
            "quiet None",
            "flowindent None",
            "zdefs None",
            "kdefs Some(Flag(true))",
            "evaltime Some(Word(\"postinit\"))",
            "iregs Some(Integer(8))",
            "tregs Some(Integer(8))",
            "stdc Some(Word(\"a\"))",
            "linkmode Some(Word(\"kernel\"))",
            "version None",
        ]
    );
    assert!(OPTION_TABLE
        .iter()
        .all(|description| !options.is_set(description.option)));
}

#[test]
fn typed_getters() {
    let mut options = OptionSet::new();
    assert_eq!(options.size(DtraceOption::StrSize), Some(256));
    assert_eq!(
        options.rate_ns(DtraceOption::SwitchRate),
        Some(1_000_000_000)
    );
    assert_eq!(options.integer(DtraceOption::Nspec), Some(1));
    assert_eq!(options.word(DtraceOption::BufPolicy), Some("switch"));
    // Getters of another kind find nothing.
    assert_eq!(options.size(DtraceOption::SwitchRate), None);
    assert_eq!(options.rate_ns(DtraceOption::StrSize), None);
    assert_eq!(options.word(DtraceOption::Quiet), None);
    assert_eq!(options.text(DtraceOption::CppPath), None);
    assert!(options.texts(DtraceOption::Define).is_empty());
    assert!(!options.boolean(DtraceOption::Quiet));

    // As in DTrace, a boolean holding any integer is on, even 0.
    options
        .set("quiet", Some("0"), OptionOrigin::CommandLine)
        .unwrap();
    assert!(options.boolean(DtraceOption::Quiet));
    assert!(options.is_set(DtraceOption::Quiet));
    options
        .set("quiet", Some("off"), OptionOrigin::Setopt)
        .unwrap();
    assert!(!options.boolean(DtraceOption::Quiet));
    assert!(!options.is_set(DtraceOption::Quiet));

    // kdefs and knodefs are two names for one flag.
    options
        .set("knodefs", None, OptionOrigin::CommandLine)
        .unwrap();
    assert!(options.boolean(DtraceOption::Knodefs));
    assert!(!options.boolean(DtraceOption::Kdefs));
    options.set("kdefs", None, OptionOrigin::Pragma).unwrap();
    assert!(!options.boolean(DtraceOption::Knodefs));
    assert!(options.boolean(DtraceOption::Kdefs));
    assert!(options.is_set(DtraceOption::Kdefs));

    // Single-valued text options keep the last value; lists keep all.
    options
        .set("cpppath", Some("/a/cpp"), OptionOrigin::CommandLine)
        .unwrap();
    options
        .set("cpppath", Some("/b/cpp"), OptionOrigin::CommandLine)
        .unwrap();
    assert_eq!(options.texts(DtraceOption::CppPath), ["/b/cpp"]);
    options
        .set("incdir", Some("/a"), OptionOrigin::CommandLine)
        .unwrap();
    options
        .set("incdir", Some("/b"), OptionOrigin::CommandLine)
        .unwrap();
    assert_eq!(options.texts(DtraceOption::IncDir), ["/a", "/b"]);

    options
        .set("lockmem", Some("unlimited"), OptionOrigin::CommandLine)
        .unwrap();
    assert_eq!(options.size(DtraceOption::LockMem), None);
    assert_eq!(
        options.value(DtraceOption::LockMem),
        Some(OptionValue::Unlimited)
    );
    options
        .set("lockmem", Some("1m"), OptionOrigin::CommandLine)
        .unwrap();
    assert_eq!(options.size(DtraceOption::LockMem), Some(1 << 20));

    // A failed setting leaves the previous value alone.
    options
        .set("bufsize", Some("2m"), OptionOrigin::CommandLine)
        .unwrap();
    assert!(options
        .set("bufsize", Some("2q"), OptionOrigin::CommandLine)
        .is_err());
    assert_eq!(options.size(DtraceOption::BufSize), Some(2 << 20));
}

/// The option names of D-REFERENCE.md §11.2 (runtime), §11.3 (dynamic) and §11.4
/// (compile time); the table must hold exactly these, each in its class.
#[test]
fn table_matches_the_reference() {
    let runtime = "bufsize bufpolicy bufresize aggsize dynvarsize specsize nspec strsize \
                   stackframes ustackframes jstackframes jstackstrsize cleanrate statusrate cpu \
                   destructive grabanon temporal lockmem maxframes scratchsize pcapsize \
                   noresolve bpflog bpflogsize";
    let dynamic = "quiet flowindent switchrate aggrate aggsortkey aggsortrev aggsortpos \
                   aggsortkeypos aggzoom agghist aggpack rawbytes stackindent quietresize \
                   printsize";
    let compile_time = "aggpercpu amin argref core cpp cppargs cpphdrs cpppath ctypes dtypes \
                        ctfpath debug defaultargs define undef incdir disasm droptags empty \
                        encoding errtags evaltime iregs tregs kdefs knodefs udefs unodefs late \
                        lazyload ldpath libdir syslibdir modpath procfspath dofstashpath \
                        sysslice useruid linkmode linktype nolibs pgmax pspec setenv unsetenv \
                        stdc strip tree verbose version zdefs";
    let mut expected: Vec<(String, OptionClass)> = Vec::new();
    for (names, class) in [
        (runtime, OptionClass::Runtime),
        (dynamic, OptionClass::DynamicRuntime),
        (compile_time, OptionClass::CompileTime),
        // Options of this implementation that DTrace does not have.
        ("engine", OptionClass::Runtime),
    ] {
        expected.extend(
            names
                .split_whitespace()
                .map(|name| (name.to_string(), class)),
        );
    }
    let actual: Vec<(String, OptionClass)> = OPTION_TABLE
        .iter()
        .map(|description| (description.name.to_string(), description.class))
        .collect();
    assert_eq!(actual, expected);
    for (index, description) in OPTION_TABLE.iter().enumerate() {
        assert_eq!(
            description.option as usize, index,
            "{} is out of place",
            description.name
        );
        assert_eq!(
            DtraceOption::from_name(description.name),
            Some(description.option)
        );
        assert_eq!(description.option.name(), description.name);
    }
}
