//! The benchmark command's arguments and the sizes of a full or `--quick` run
//! (repetitions, call counts, step lengths, the time budget).

use std::path::PathBuf;
use std::time::Duration;

use crate::load_generator::parse_count;

/// The groups of rows, in the order they run; `--only` picks some.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Startup,
    EnableAll,
    ProbeEffect,
    Throughput,
    Aggregation,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Startup,
        Group::EnableAll,
        Group::ProbeEffect,
        Group::Throughput,
        Group::Aggregation,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Group::Startup => "startup",
            Group::EnableAll => "enable-all",
            Group::ProbeEffect => "probe-effect",
            Group::Throughput => "throughput",
            Group::Aggregation => "aggregation",
        }
    }

    fn from_name(name: &str) -> Option<Group> {
        Group::ALL.into_iter().find(|group| group.name() == name)
    }
}

/// Everything a run is told.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub quick: bool,
    pub groups: Vec<Group>,
    pub dtrace_path: Option<PathBuf>,
    pub bpftrace_path: Option<PathBuf>,
    /// `-x` options for every dtrace run.
    pub dtrace_options: Vec<String>,
    pub startup_repetitions: u32,
    pub enable_all_repetitions: u32,
    pub probe_effect_repetitions: u32,
    /// getppid() calls per probe-effect run.
    pub probe_effect_calls: u64,
    pub throughput_repetitions: u32,
    /// How long each paced throughput step lasts: at least dtrace's drain period (1 s at
    /// the default `switchrate`), or a whole step fits in the buffer and a rate that
    /// cannot be sustained passes as lossless.
    pub throughput_step: Duration,
    /// The paced rates tried, in calls per second, until one loses records.
    pub throughput_rates: Vec<u64>,
    /// Calls of the unpaced storm on all CPUs.
    pub storm_calls: u64,
    pub aggregation_repetitions: u32,
    /// Distinct keys aggregated.
    pub aggregation_keys: u64,
    /// The whole run stops starting new measurements after this long.
    pub budget: Duration,
}

impl Settings {
    /// The sizes of a full run (`quick == false`, under 10 minutes on 2 cores) or of a
    /// smoke run (`quick`, about a minute).
    pub fn new(quick: bool) -> Settings {
        let rates = |top: u64| {
            let mut rates = Vec::new();
            let mut rate = 25_000;
            while rate <= top {
                rates.push(rate);
                rate *= 2;
            }
            rates
        };
        if quick {
            Settings {
                quick,
                groups: Group::ALL.to_vec(),
                dtrace_path: None,
                bpftrace_path: None,
                dtrace_options: Vec::new(),
                startup_repetitions: 3,
                enable_all_repetitions: 1,
                probe_effect_repetitions: 1,
                probe_effect_calls: 300_000,
                throughput_repetitions: 1,
                throughput_step: Duration::from_secs(1),
                throughput_rates: rates(3_200_000),
                storm_calls: 300_000,
                aggregation_repetitions: 1,
                aggregation_keys: 100_000,
                budget: Duration::from_secs(150),
            }
        } else {
            Settings {
                quick,
                groups: Group::ALL.to_vec(),
                dtrace_path: None,
                bpftrace_path: None,
                dtrace_options: Vec::new(),
                startup_repetitions: 7,
                enable_all_repetitions: 3,
                probe_effect_repetitions: 5,
                probe_effect_calls: 2_000_000,
                throughput_repetitions: 3,
                throughput_step: Duration::from_secs(2),
                throughput_rates: rates(3_200_000),
                storm_calls: 1_000_000,
                aggregation_repetitions: 3,
                aggregation_keys: 1_000_000,
                budget: Duration::from_secs(570),
            }
        }
    }
}

/// What the command line asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Run(Box<Settings>),
    Help,
}

/// The usage text.
pub fn usage() -> String {
    let groups: Vec<&str> = Group::ALL.iter().map(|group| group.name()).collect();
    format!(
        "usage: cargo run --release -p bench -- [options]\n\
         \n\
         Runs dtrace and bpftrace side by side (alternating, several repetitions) and prints\n\
         a table of medians and ratios. Needs root for everything but dtrace's start-up row.\n\
         \n\
         options:\n\
         \x20 --quick                 a smoke run of about a minute\n\
         \x20 --only GROUP[,GROUP]    run only these groups: {}\n\
         \x20 --repetitions N         repetitions of every group\n\
         \x20 --dtrace PATH           the dtrace binary (default: beside this one)\n\
         \x20 --bpftrace PATH         the bpftrace binary (default: from PATH)\n\
         \x20 -x OPTION               a -x option for every dtrace run (e.g. engine=vm)\n\
         \x20 --help                  this text\n",
        groups.join(",")
    )
}

/// Parses the benchmark command's arguments (without argv[0]).
pub fn parse_arguments<S: AsRef<str>>(arguments: &[S]) -> Result<Request, String> {
    let quick = arguments
        .iter()
        .any(|argument| argument.as_ref() == "--quick");
    let mut settings = Settings::new(quick);
    let mut index = 0;
    while index < arguments.len() {
        let argument = arguments[index].as_ref();
        let mut value = |name: &str| -> Result<String, String> {
            index += 1;
            arguments
                .get(index)
                .map(|text| text.as_ref().to_string())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match argument {
            "--quick" => {}
            "--help" | "-h" => return Ok(Request::Help),
            "--dtrace" => settings.dtrace_path = Some(PathBuf::from(value("--dtrace")?)),
            "--bpftrace" => settings.bpftrace_path = Some(PathBuf::from(value("--bpftrace")?)),
            "-x" => settings.dtrace_options.push(value("-x")?),
            "--only" => {
                let list = value("--only")?;
                settings.groups = list
                    .split(',')
                    .map(|name| {
                        Group::from_name(name.trim())
                            .ok_or_else(|| format!("--only: unknown group '{name}'"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--repetitions" => {
                let text = value("--repetitions")?;
                let count = parse_count(&text)
                    .filter(|count| (1..=100).contains(count))
                    .ok_or_else(|| format!("--repetitions must be 1 to 100, not '{text}'"))?
                    as u32;
                settings.startup_repetitions = count;
                settings.enable_all_repetitions = count;
                settings.probe_effect_repetitions = count;
                settings.throughput_repetitions = count;
                settings.aggregation_repetitions = count;
            }
            other => return Err(format!("unknown argument '{other}'")),
        }
        index += 1;
    }
    Ok(Request::Run(Box::new(settings)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(arguments: &[&str]) -> Settings {
        match parse_arguments(arguments) {
            Ok(Request::Run(settings)) => *settings,
            other => panic!("{arguments:?} gave {other:?}"),
        }
    }

    #[test]
    fn defaults_and_quick() {
        let full = settings(&[]);
        assert!(!full.quick);
        assert_eq!(full.aggregation_keys, 1_000_000);
        assert_eq!(full.groups, Group::ALL);
        assert_eq!(full.throughput_rates.first(), Some(&25_000));
        assert_eq!(full.throughput_rates.last(), Some(&3_200_000));
        let quick = settings(&["--quick"]);
        assert!(quick.quick);
        assert!(quick.budget < full.budget);
    }

    #[test]
    fn options_parse() {
        let parsed = settings(&[
            "--only",
            "startup,throughput",
            "--repetitions",
            "2",
            "-x",
            "engine=vm",
            "--dtrace",
            "/x/dtrace",
            "--quick",
        ]);
        assert_eq!(parsed.groups, [Group::Startup, Group::Throughput]);
        assert_eq!(parsed.startup_repetitions, 2);
        assert_eq!(parsed.aggregation_repetitions, 2);
        assert_eq!(parsed.dtrace_options, ["engine=vm"]);
        assert_eq!(parsed.dtrace_path, Some(PathBuf::from("/x/dtrace")));
        assert!(parsed.quick);
    }

    #[test]
    fn bad_arguments_are_refused() {
        for (arguments, expected) in [
            (&["--only", "nope"][..], "--only: unknown group 'nope'"),
            (
                &["--repetitions", "0"][..],
                "--repetitions must be 1 to 100, not '0'",
            ),
            (&["--dtrace"][..], "--dtrace needs a value"),
            (&["--fast"][..], "unknown argument '--fast'"),
        ] {
            assert_eq!(parse_arguments(arguments), Err(expected.to_string()));
        }
        assert_eq!(parse_arguments(&["--help"]), Ok(Request::Help));
    }
}
