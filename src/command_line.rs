//! dtrace(1) argument parsing: turns argv into a typed command line, keeping the order of
//! program-specifying and option-setting arguments as dtrace(1) does.

use clap::{Arg, ArgAction, ArgMatches, Command};
use consumer::invocation::{
    Invocation, Mode, OptionSetting, ProgramArgument, ProgramKind, TargetArgument,
};

/// Why the command line was refused; the caller prints the message and the usage text
/// (when `show_usage`) and exits with status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError {
    pub message: Option<String>,
    pub show_usage: bool,
}

/// The usage text printed for `dtrace` with no arguments or a bad option.
pub fn usage_text(program_name: &str) -> String {
    format!(
        "Usage: {program_name} [-32|-64] [-aACeFGhHlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]\n\
         \t[-I path] [-L path] [-o output] [-p pid] [-s script] [-U name]\n\
         \t[-x opt[=val]] [-X a|c|s|t]\n\n\
         \t[-P provider [[ predicate ] action ]]\n\
         \t[-m [ provider: ] module [[ predicate ] action ]]\n\
         \t[-f [[ provider: ] module: ] func [[ predicate ] action ]]\n\
         \t[-n [[[ provider: ] module: ] func: ] name [[ predicate ] action ]]\n\
         \t[-i probe-id [[ predicate ] action ]] [ args ... ]\n\n\
         \tpredicate -> '/' D-expression '/'\n\
         \t   action -> '{{' D-statements '}}'\n\n\
         \t-32 generate 32-bit D programs and ELF files\n\
         \t-64 generate 64-bit D programs and ELF files\n\n\
         \t-a  claim anonymous tracing state\n\
         \t-A  generate driver.conf(4) directives for anonymous tracing\n\
         \t-b  set trace buffer size\n\
         \t-c  run specified command and exit upon its completion\n\
         \t-C  run cpp(1) preprocessor on script files\n\
         \t-D  define symbol when invoking preprocessor\n\
         \t-e  exit after compiling request but prior to enabling probes\n\
         \t-f  enable or list probes matching the specified function name\n\
         \t-F  coalesce trace output by function\n\
         \t-G  generate an ELF file containing embedded dtrace program\n\
         \t-h  generate a header file with definitions for static probes\n\
         \t-H  print included files when invoking preprocessor\n\
         \t-i  enable or list probes matching the specified probe id\n\
         \t-I  add include directory to preprocessor search path\n\
         \t-l  list probes matching specified criteria\n\
         \t-L  add library directory to library search path\n\
         \t-m  enable or list probes matching the specified module name\n\
         \t-n  enable or list probes matching the specified probe name\n\
         \t-o  set output file\n\
         \t-p  grab specified process-ID and cache its symbol tables\n\
         \t-P  enable or list probes matching the specified provider name\n\
         \t-q  set quiet mode (only output explicitly traced data)\n\
         \t-s  enable or list probes according to the specified D script\n\
         \t-S  print D compiler intermediate code\n\
         \t-U  undefine symbol when invoking preprocessor\n\
         \t-v  set verbose mode (report stability attributes, arguments)\n\
         \t-V  report DTrace API version\n\
         \t-w  permit destructive actions\n\
         \t-x  enable or modify compiler and tracing options\n\
         \t-X  specify ISO C conformance settings for preprocessor\n\
         \t-Z  permit probe descriptions that match zero probes\n"
    )
}

/// Options that take a value, with the option each stands for (`None` when it is not
/// an option setting but part of the command line itself).
const VALUE_FLAGS: &[(char, &str)] = &[
    ('b', "bufsize"),
    ('c', ""),
    ('D', "define"),
    ('f', ""),
    ('i', ""),
    ('I', "incdir"),
    ('L', "libdir"),
    ('m', ""),
    ('n', ""),
    ('o', ""),
    ('p', ""),
    ('P', ""),
    ('s', ""),
    ('U', "undef"),
    ('x', ""),
    ('X', "stdc"),
];

/// Flags without a value, with the boolean option each sets ("" when none).
const BOOLEAN_FLAGS: &[(char, &str)] = &[
    ('a', ""),
    ('A', ""),
    ('B', ""),
    ('C', "cpp"),
    ('e', ""),
    ('F', "flowindent"),
    ('G', ""),
    ('h', ""),
    ('H', "cpphdrs"),
    ('l', ""),
    ('q', "quiet"),
    ('S', "verbose"),
    ('v', ""),
    ('V', ""),
    ('w', "destructive"),
    ('Z', "zdefs"),
];

fn command() -> Command {
    let mut command = Command::new("dtrace")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .allow_negative_numbers(false)
        .arg(
            Arg::new("operands")
                .num_args(0..)
                .action(ArgAction::Append)
                .allow_hyphen_values(false),
        );
    for &(letter, _) in VALUE_FLAGS {
        command = command.arg(
            Arg::new(letter.to_string())
                .short(letter)
                .num_args(1)
                .allow_hyphen_values(true)
                .action(ArgAction::Append),
        );
    }
    for &(letter, _) in BOOLEAN_FLAGS {
        command = command.arg(
            Arg::new(letter.to_string())
                .short(letter)
                .action(ArgAction::Count),
        );
    }
    command
}

/// Parses `args` (without argv[0]).
pub fn parse_command_line(args: &[String]) -> Result<Invocation, UsageError> {
    if args.is_empty() {
        return Err(UsageError {
            message: None,
            show_usage: true,
        });
    }
    // -32 and -64 are two-character flags that getopt sees as -3/-6 with the digit as
    // value; clap has no such form, so they are taken out before clap sees the rest.
    let mut data_model = None;
    let mut remaining = Vec::with_capacity(args.len() + 1);
    remaining.push("dtrace".to_string());
    let mut after_double_dash = false;
    for argument in args {
        if !after_double_dash {
            if argument == "--" {
                after_double_dash = true;
            } else if argument == "-32" || argument == "-64" {
                data_model = Some(if argument == "-32" { 32 } else { 64 });
                continue;
            } else if argument.starts_with("-3") || argument.starts_with("-6") {
                return Err(UsageError {
                    message: Some(format!("illegal option -- {}", &argument[1..])),
                    show_usage: true,
                });
            }
        }
        remaining.push(argument.clone());
    }
    let matches = command()
        .try_get_matches_from(&remaining)
        .map_err(|error| UsageError {
            message: Some(describe_clap_error(&error, &remaining)),
            show_usage: true,
        })?;
    if data_model == Some(32) {
        return Err(UsageError {
            message: Some(
                "the 32-bit data model (-32) is not supported on this system".to_string(),
            ),
            show_usage: false,
        });
    }
    build_command_line(&matches)
}

/// Turns clap's error into getopt-style text (`illegal option -- z`, `option requires an
/// argument -- n`).
fn describe_clap_error(error: &clap::Error, args: &[String]) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let argument = match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(text)) => text.clone(),
        _ => String::new(),
    };
    let letter = argument.trim_start_matches('-').chars().next();
    match error.kind() {
        ErrorKind::InvalidValue | ErrorKind::WrongNumberOfValues => match letter {
            Some(letter) => format!("option requires an argument -- {letter}"),
            None => "option requires an argument".to_string(),
        },
        _ => {
            // clap reports an unknown short flag as the whole word; getopt names the
            // first letter it does not know.
            let unknown = args
                .iter()
                .skip(1)
                .filter(|a| a.starts_with('-') && !a.starts_with("--"))
                .flat_map(|a| a.chars().skip(1))
                .find(|c| {
                    !VALUE_FLAGS.iter().any(|(l, _)| l == c)
                        && !BOOLEAN_FLAGS.iter().any(|(l, _)| l == c)
                });
            match unknown.or(letter) {
                Some(letter) => format!("illegal option -- {letter}"),
                None => "illegal option".to_string(),
            }
        }
    }
}

fn build_command_line(matches: &ArgMatches) -> Result<Invocation, UsageError> {
    // Collect every value-carrying occurrence with its index so program and option
    // arguments keep their command-line order.
    let mut ordered: Vec<(usize, char, String)> = Vec::new();
    for &(letter, _) in VALUE_FLAGS {
        let id = letter.to_string();
        if let (Some(values), Some(indices)) =
            (matches.get_many::<String>(&id), matches.indices_of(&id))
        {
            for (value, index) in values.zip(indices) {
                ordered.push((index, letter, value.clone()));
            }
        }
    }
    for &(letter, option) in BOOLEAN_FLAGS {
        if option.is_empty() {
            continue;
        }
        let id = letter.to_string();
        // A counted flag has a default of zero with an index even when absent.
        if matches.get_count(&id) == 0 {
            continue;
        }
        if let Some(indices) = matches.indices_of(&id) {
            for index in indices {
                ordered.push((index, letter, String::new()));
            }
        }
    }
    ordered.sort_by_key(|(index, _, _)| *index);

    let flag = |letter: char| matches.get_count(&letter.to_string()) > 0;
    let mode_flags = [flag('G'), flag('h'), flag('l'), flag('V')];
    if mode_flags.iter().filter(|&&set| set).count() > 1 {
        return Err(UsageError {
            message: Some("only one of the [-GhlV] options can be specified at a time".to_string()),
            show_usage: false,
        });
    }
    let mode = if flag('V') {
        Mode::Version
    } else if flag('l') {
        Mode::List
    } else if flag('G') {
        Mode::GenerateElf
    } else if flag('h') {
        Mode::GenerateHeader
    } else {
        Mode::Execute
    };

    let mut line = Invocation {
        mode,
        programs: Vec::new(),
        options: Vec::new(),
        operands: matches
            .get_many::<String>("operands")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        targets: Vec::new(),
        output_file: None,
        compile_only: flag('e'),
        verbose: flag('v'),
        anonymous: flag('a') || flag('A'),
    };
    for (_, letter, value) in ordered {
        let program = |kind| ProgramArgument {
            kind,
            text: value.clone(),
        };
        match letter {
            's' => line.programs.push(program(ProgramKind::Script)),
            'n' => line.programs.push(program(ProgramKind::Name)),
            'P' => line.programs.push(program(ProgramKind::Provider)),
            'm' => line.programs.push(program(ProgramKind::Module)),
            'f' => line.programs.push(program(ProgramKind::Function)),
            'i' => line.programs.push(program(ProgramKind::ProbeId)),
            'c' => line.targets.push(TargetArgument::Command(value)),
            'p' => line.targets.push(TargetArgument::Pid(value)),
            'o' => line.output_file = Some(value),
            'x' => {
                let (name, option_value) = match value.split_once('=') {
                    Some((name, v)) => (name.to_string(), Some(v.to_string())),
                    None => (value.clone(), None),
                };
                line.options.push(OptionSetting::Extended {
                    name,
                    value: option_value,
                });
            }
            _ => {
                let option = VALUE_FLAGS
                    .iter()
                    .chain(BOOLEAN_FLAGS.iter())
                    .find(|(l, _)| *l == letter)
                    .map(|(_, option)| *option)
                    .unwrap_or("");
                if option.is_empty() {
                    continue;
                }
                let value = if value.is_empty() { None } else { Some(value) };
                line.options.push(OptionSetting::Shorthand {
                    flag: letter,
                    value,
                });
            }
        }
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Invocation, UsageError> {
        parse_command_line(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn keeps_program_order_and_operands() {
        let line = parse(&[
            "-q",
            "-n",
            "BEGIN",
            "-s",
            "x.d",
            "-xstrsize=64",
            "42",
            "-n",
            "END",
            "foo",
        ])
        .unwrap();
        assert_eq!(
            line.programs,
            vec![
                ProgramArgument {
                    kind: ProgramKind::Name,
                    text: "BEGIN".into()
                },
                ProgramArgument {
                    kind: ProgramKind::Script,
                    text: "x.d".into()
                },
                ProgramArgument {
                    kind: ProgramKind::Name,
                    text: "END".into()
                },
            ]
        );
        assert_eq!(line.operands, vec!["42", "foo"]);
        assert_eq!(
            line.options,
            vec![
                OptionSetting::Shorthand {
                    flag: 'q',
                    value: None
                },
                OptionSetting::Extended {
                    name: "strsize".into(),
                    value: Some("64".into())
                },
            ]
        );
    }

    #[test]
    fn combined_flags_and_attached_values() {
        let line = parse(&["-qeZn", "BEGIN", "-b", "8m", "-x", "engine=vm"]).unwrap();
        assert!(line.compile_only);
        assert_eq!(line.programs.len(), 1);
        assert_eq!(
            line.options,
            vec![
                OptionSetting::Shorthand {
                    flag: 'q',
                    value: None
                },
                OptionSetting::Shorthand {
                    flag: 'Z',
                    value: None
                },
                OptionSetting::Shorthand {
                    flag: 'b',
                    value: Some("8m".into())
                },
                OptionSetting::Extended {
                    name: "engine".into(),
                    value: Some("vm".into())
                },
            ]
        );
    }

    #[test]
    fn usage_errors() {
        assert_eq!(
            parse(&[]).unwrap_err(),
            UsageError {
                message: None,
                show_usage: true
            }
        );
        assert_eq!(
            parse(&["-z"]).unwrap_err().message.as_deref(),
            Some("illegal option -- z")
        );
        assert_eq!(
            parse(&["-n"]).unwrap_err().message.as_deref(),
            Some("option requires an argument -- n")
        );
        assert_eq!(
            parse(&["-l", "-V"]).unwrap_err().message.as_deref(),
            Some("only one of the [-GhlV] options can be specified at a time")
        );
        assert_eq!(
            parse(&["-33"]).unwrap_err().message.as_deref(),
            Some("illegal option -- 33")
        );
        assert_eq!(parse(&["-64", "-V"]).unwrap().mode, Mode::Version);
    }

    #[test]
    fn negative_operand_values_are_operands() {
        let line = parse(&["-n", "BEGIN { trace($1); }", "--", "-5"]).unwrap();
        assert_eq!(line.operands, vec!["-5"]);
    }
}
