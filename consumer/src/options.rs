//! DTrace's option table and the parsing of option values, whether they come from
//! `DTRACE_OPT_*` environment variables, `-x name=value` and its shorthands, `#pragma D
//! option` lines or the `setopt()` action (D-REFERENCE.md §11 and §12.2).
//!
//! Every option is a [`DtraceOption`] key. Its [`OptionDescription`] gives the name as
//! users write it, the [`OptionClass`] (compile-time, runtime, dynamic runtime), the
//! [`OptionKind`] that decides how a value is parsed, and the default. An [`OptionSet`]
//! holds the values that were set explicitly; its typed getters (`size`, `rate_ns`,
//! `boolean`, …) return the explicit value or else the default.
//!
//! Defaults follow Appendix A's choices (classic): `specsize` 32k, `switchrate` and
//! `aggrate` 1hz, `ustackframes` 20. `bufsize` and `aggsize` default to the 4m that
//! dtrace(1) sets before it processes its arguments.
//!
//! Value parsing mirrors libdtrace:
//! * boolean and runtime-integer options: no value means on (1); `""` and the negative
//!   words (`no`, `disable`, `disabled`, `false`, `off`, `unset`) unset the option (its
//!   default applies again); the positive words (`yes`, `enable`, `enabled`, `true`,
//!   `on`, `set`) mean 1; anything else must be an unsigned C integer. As in DTrace a
//!   boolean counts as on whenever it holds any integer, so `quiet=0` turns quiet on.
//! * sizes: a C integer with an optional `k`, `m`, `g` or `t` suffix (powers of 1024).
//! * times and rates: a C integer with an optional duration suffix (`ns` … `day`) or
//!   `hz`; stored as nanoseconds, no suffix meaning nanoseconds.
//! * compile-time flags (`zdefs`, `cpp`, …) take no value at all, as in libdtrace.
//!
//! Sizes and rates given without a value are stored as 0, which is what libdtrace does.

use std::fmt;

mod error;
mod value_syntax;

pub use error::OptionError;

use value_syntax::{parse_c_integer, LARGEST_OPTION_VALUE, NANOSECONDS_PER_SECOND};
pub use value_syntax::{
    parse_rate_nanoseconds, parse_runtime_integer, parse_size, DVersion, DEFINED_D_VERSIONS,
    LATEST_D_VERSION,
};

/// When an option may be changed (D-REFERENCE.md §11.2–§11.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionClass {
    /// Affects compilation only (§11.4).
    CompileTime,
    /// Read when tracing starts and fixed from then on (§11.2).
    Runtime,
    /// May be changed while tracing, for example by `setopt()` (§11.3).
    DynamicRuntime,
}

/// How the value text of an option is parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A runtime on/off option: no value, a yes/no word or an unsigned C integer.
    Boolean,
    /// A runtime integer, parsed exactly like a boolean (`nspec=yes` is 1).
    Integer,
    /// A runtime integer naming a CPU (`cpu`), parsed like `Integer`; a CPU that is not
    /// online is an invalid value when the option is set, as in DTrace, rather than a
    /// session that waits for firings that can never come.
    Cpu,
    /// A byte count with an optional k/m/g/t suffix, from `minimum` to `maximum`.
    Size { minimum: u64, maximum: u64 },
    /// A byte count, or the word `unlimited` (Linux `lockmem`).
    SizeOrUnlimited,
    /// A time interval or a rate, stored as nanoseconds.
    Rate,
    /// A compile-time flag that is switched on by naming it and takes no value.
    Flag,
    /// A compile-time flag that switches the named flag off (`kdefs` undoes `knodefs`).
    InverseFlag(DtraceOption),
    /// A compile-time integer that must be given and be at least `minimum`.
    CompilerInteger { minimum: u64 },
    /// A string that must be given. `accumulates` options collect every value given
    /// (`define`, `incdir`, …); the others keep the last one. `forbids_equals` options
    /// reject a value containing `=` (`unsetenv` names a variable, it does not set one).
    Text {
        accumulates: bool,
        forbids_equals: bool,
    },
    /// One of a fixed list of words, compared case-sensitively.
    Words(&'static [&'static str]),
    /// A D language version `MAJOR.MINOR[.MICRO]` that the compiler knows.
    Version,
    /// A stability attribute triple `Name/Data/Class` (each part optional).
    Attributes,
}

/// Whether an option may be set by a `#pragma D option` line inside a D program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramUse {
    /// Allowed from a D program.
    Allowed,
    /// Refused with `Option cannot be used from within a D program` before the value is
    /// looked at (libdtrace checks the context first for `setenv`, `unsetenv`, `cpphdrs`).
    RefusedBeforeValueCheck,
    /// Refused with the same error, but a missing value is reported first (the
    /// preprocessor options `cpppath`, `define`, `undef`, `incdir`, `stdc`, …).
    RefusedAfterValueCheck,
}

/// The default an option has when nothing set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionDefault {
    /// No value: booleans and flags are off, other options are absent.
    Absent,
    /// An integer (a size in bytes, a rate in nanoseconds, a count).
    Integer(u64),
    /// One of the option's words.
    Word(&'static str),
}

/// One row of the option table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionDescription {
    pub option: DtraceOption,
    /// The name as written after `-x` or in `#pragma D option`.
    pub name: &'static str,
    pub class: OptionClass,
    pub kind: OptionKind,
    pub default: OptionDefault,
    pub program_use: ProgramUse,
}

/// Where an option setting came from; this decides which settings are legal and how a
/// failure is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionOrigin {
    /// A `DTRACE_OPT_<NAME>` environment variable, applied before the command line.
    Environment,
    /// `-x name[=value]` (or a shorthand such as `-q`, see [`OptionSet::set_shorthand`]).
    CommandLine,
    /// `#pragma D option name[=value]` while a program is compiled.
    Pragma,
    /// The `setopt()` action, processed by the consumer while tracing is active.
    Setopt,
}

/// How the failed setting was written, which selects the message form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionSpelling {
    /// `-x name[=value]`.
    ExtendedOption,
    /// A dtrace(1) shorthand flag such as `-b 4m` or `-q`.
    ShorthandFlag(char),
    /// `#pragma D option name[=value]`.
    Pragma,
    /// `setopt("name", "value")`.
    Setopt,
    /// An environment variable, named in full (`DTRACE_OPT_BUFSIZE`).
    EnvironmentVariable(String),
}

/// A failed option setting with everything needed to print DTrace's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionFailure {
    pub error: OptionError,
    /// The option name as written (it may be unknown).
    pub name: String,
    /// The value as written, if one was given.
    pub value: Option<String>,
    pub spelling: OptionSpelling,
}

impl OptionFailure {
    /// The message dtrace(1) prints, without the leading `dtrace: ` program-name prefix
    /// (the caller adds it; for pragmas the compiler adds the location and the
    /// D_PRAGMA_OPTSET tag instead):
    /// * `-x`: `failed to set -x NAME: ERROR` (only the name, as dtrace(1) cuts the
    ///   argument at `=` before reporting it);
    /// * shorthands: `failed to set -b 4m: ERROR`, `failed to set -q: ERROR`;
    /// * pragmas: `failed to set option 'NAME': ERROR` or
    ///   `failed to set option 'NAME' to 'VALUE': ERROR`;
    /// * `setopt()`: `couldn't set option "NAME" to "VALUE": ERROR`;
    /// * environment (our own wording; DTrace's is unverified): the pragma forms followed
    ///   by ` (from DTRACE_OPT_NAME)` before the colon.
    pub fn message(&self) -> String {
        let error = self.error.message();
        match &self.spelling {
            OptionSpelling::ExtendedOption => format!("failed to set -x {}: {}", self.name, error),
            OptionSpelling::ShorthandFlag(letter) => match &self.value {
                Some(value) => format!("failed to set -{letter} {value}: {error}"),
                None => format!("failed to set -{letter}: {error}"),
            },
            OptionSpelling::Pragma => match &self.value {
                Some(value) => {
                    format!(
                        "failed to set option '{}' to '{}': {}",
                        self.name, value, error
                    )
                }
                None => format!("failed to set option '{}': {}", self.name, error),
            },
            OptionSpelling::Setopt => format!(
                "couldn't set option \"{}\" to \"{}\": {}",
                self.name,
                self.value.as_deref().unwrap_or(""),
                error
            ),
            OptionSpelling::EnvironmentVariable(variable) => match &self.value {
                Some(value) => format!(
                    "failed to set option '{}' to '{}' (from {}): {}",
                    self.name, value, variable, error
                ),
                None => format!(
                    "failed to set option '{}' (from {}): {}",
                    self.name, variable, error
                ),
            },
        }
    }
}

impl fmt::Display for OptionFailure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message())
    }
}

impl std::error::Error for OptionFailure {}

/// An option's value as held by an [`OptionSet`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// Booleans (any integer means on), integers, sizes in bytes and rates in ns.
    Integer(u64),
    /// A compile-time flag.
    Flag(bool),
    /// One of the option's words.
    Word(&'static str),
    /// String values; single-valued options hold exactly one.
    Text(Vec<String>),
    Version(DVersion),
    /// `lockmem=unlimited`.
    Unlimited,
}

/// The option values of one dtrace session: what was set explicitly, over the defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSet {
    /// Indexed by `DtraceOption as usize`; `None` means "not set, the default applies".
    explicit: Vec<Option<OptionValue>>,
}

impl Default for OptionSet {
    fn default() -> OptionSet {
        OptionSet::new()
    }
}

impl OptionSet {
    /// A set with every option at its default.
    pub fn new() -> OptionSet {
        OptionSet {
            explicit: vec![None; OPTION_TABLE.len()],
        }
    }

    /// Sets option `name` to `value` (`None` when written without `=value`), applying the
    /// rules of `origin`: pragmas may not set preprocessor options, and `setopt()` may not
    /// change runtime options that are fixed once tracing is active. As in libdtrace,
    /// `setopt()` may name a compile-time option (it is accepted and has no effect), and
    /// the environment and the command line may set every option.
    pub fn set(
        &mut self,
        name: &str,
        value: Option<&str>,
        origin: OptionOrigin,
    ) -> Result<(), OptionFailure> {
        let spelling = match origin {
            OptionOrigin::Environment => {
                OptionSpelling::EnvironmentVariable(environment_variable_name(name))
            }
            OptionOrigin::CommandLine => OptionSpelling::ExtendedOption,
            OptionOrigin::Pragma => OptionSpelling::Pragma,
            OptionOrigin::Setopt => OptionSpelling::Setopt,
        };
        self.set_spelled(name, value, origin, spelling)
    }

    /// Sets an option from `name=value` or `name` text, as written after `-x` or in
    /// `#pragma D option`.
    pub fn set_assignment(
        &mut self,
        text: &str,
        origin: OptionOrigin,
    ) -> Result<(), OptionFailure> {
        let (name, value) = split_option_assignment(text);
        self.set(name, value, origin)
    }

    /// Applies a dtrace(1) shorthand flag (`-b 4m`, `-q`, `-w`, `-F`, `-Z`, `-C`, `-S`,
    /// `-D`, `-U`, `-I`, `-H`, `-X`, `-L`, `-a`) given on the command line.
    pub fn set_shorthand(
        &mut self,
        flag: char,
        argument: Option<&str>,
    ) -> Result<(), OptionFailure> {
        let Some(option) = shorthand_option(flag) else {
            return Err(OptionFailure {
                error: OptionError::InvalidOptionName,
                name: flag.to_string(),
                value: argument.map(str::to_string),
                spelling: OptionSpelling::ShorthandFlag(flag),
            });
        };
        self.set_spelled(
            option.name(),
            argument,
            OptionOrigin::CommandLine,
            OptionSpelling::ShorthandFlag(flag),
        )
    }

    /// Applies the `DTRACE_OPT_<NAME>` variables among `variables` (other variables are
    /// ignored), in the order given, stopping at the first failure. The option name is
    /// the rest of the variable name in lower case. An empty value counts as no value, so
    /// `DTRACE_OPT_QUIET=` turns quiet on.
    pub fn apply_environment<I, K, V>(&mut self, variables: I) -> Result<(), OptionFailure>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        for (key, value) in variables {
            let key = key.as_ref();
            let Some(suffix) = key.strip_prefix(ENVIRONMENT_PREFIX) else {
                continue;
            };
            let name = suffix.to_ascii_lowercase();
            let value = Some(value.as_ref()).filter(|text| !text.is_empty());
            self.set_spelled(
                &name,
                value,
                OptionOrigin::Environment,
                OptionSpelling::EnvironmentVariable(key.to_string()),
            )?;
        }
        Ok(())
    }

    fn set_spelled(
        &mut self,
        name: &str,
        value: Option<&str>,
        origin: OptionOrigin,
        spelling: OptionSpelling,
    ) -> Result<(), OptionFailure> {
        let failure = |error| OptionFailure {
            error,
            name: name.to_string(),
            value: value.map(str::to_string),
            spelling: spelling.clone(),
        };
        let option =
            DtraceOption::from_name(name).ok_or_else(|| failure(OptionError::InvalidOptionName))?;
        self.set_option(option, value, origin).map_err(failure)
    }

    /// Sets an option given by key; the error carries no message context.
    pub fn set_option(
        &mut self,
        option: DtraceOption,
        value: Option<&str>,
        origin: OptionOrigin,
    ) -> Result<(), OptionError> {
        let description = option.description();
        if origin == OptionOrigin::Setopt && description.class == OptionClass::Runtime {
            return Err(OptionError::TracingActive);
        }
        let from_program = origin == OptionOrigin::Pragma;
        if from_program && description.program_use == ProgramUse::RefusedBeforeValueCheck {
            return Err(OptionError::NotFromProgram);
        }
        if value.is_none() && requires_value(description.kind) {
            return Err(OptionError::InvalidValue);
        }
        if from_program && description.program_use == ProgramUse::RefusedAfterValueCheck {
            return Err(OptionError::NotFromProgram);
        }
        let index = option as usize;
        match description.kind {
            OptionKind::Boolean | OptionKind::Integer => {
                self.explicit[index] = parse_runtime_integer(value)?.map(OptionValue::Integer);
            }
            OptionKind::Cpu => {
                let cpu = parse_runtime_integer(value)?;
                if cpu.is_some_and(|cpu| !is_online_cpu(cpu)) {
                    return Err(OptionError::InvalidValue);
                }
                self.explicit[index] = cpu.map(OptionValue::Integer);
            }
            OptionKind::Size { minimum, maximum } => {
                let bytes = value.map_or(Ok(0), parse_size)?;
                if bytes < minimum || bytes > maximum {
                    return Err(OptionError::InvalidValue);
                }
                self.explicit[index] = Some(OptionValue::Integer(bytes));
            }
            OptionKind::SizeOrUnlimited => {
                let text = value.ok_or(OptionError::InvalidValue)?;
                self.explicit[index] = Some(if text == "unlimited" {
                    OptionValue::Unlimited
                } else {
                    OptionValue::Integer(parse_size(text)?)
                });
            }
            OptionKind::Rate => {
                let nanoseconds = value.map_or(Ok(0), parse_rate_nanoseconds)?;
                self.explicit[index] = Some(OptionValue::Integer(nanoseconds));
            }
            OptionKind::Flag => {
                if value.is_some() {
                    return Err(OptionError::InvalidValue);
                }
                self.explicit[index] = Some(OptionValue::Flag(true));
            }
            OptionKind::InverseFlag(target) => {
                if value.is_some() {
                    return Err(OptionError::InvalidValue);
                }
                self.explicit[target as usize] = Some(OptionValue::Flag(false));
            }
            OptionKind::CompilerInteger { minimum } => {
                let number = value
                    .and_then(parse_c_integer)
                    .filter(|number| *number >= minimum)
                    .ok_or(OptionError::InvalidValue)?;
                self.explicit[index] = Some(OptionValue::Integer(number));
            }
            OptionKind::Text {
                accumulates,
                forbids_equals,
            } => {
                let text = value.ok_or(OptionError::InvalidValue)?;
                if forbids_equals && text.contains('=') {
                    return Err(OptionError::InvalidValue);
                }
                match (&mut self.explicit[index], accumulates) {
                    (Some(OptionValue::Text(values)), true) => values.push(text.to_string()),
                    (slot, _) => *slot = Some(OptionValue::Text(vec![text.to_string()])),
                }
            }
            OptionKind::Words(words) => {
                let text = value.ok_or(OptionError::InvalidValue)?;
                let word = words
                    .iter()
                    .find(|word| **word == text)
                    .ok_or(OptionError::InvalidValue)?;
                self.explicit[index] = Some(OptionValue::Word(word));
            }
            OptionKind::Version => {
                let text = value.ok_or(OptionError::InvalidValue)?;
                let version = DVersion::parse(text)?;
                if !version.is_defined() {
                    return Err(OptionError::UnsupportedVersion);
                }
                self.explicit[index] = Some(OptionValue::Version(version));
            }
            OptionKind::Attributes => {
                let text = value.ok_or(OptionError::InvalidValue)?;
                // dtrace_str2attr() decides, as for `#pragma D attributes`.
                if difvm::stability::Attribute::parse(text).is_none() {
                    return Err(OptionError::InvalidValue);
                }
                self.explicit[index] = Some(OptionValue::Text(vec![text.to_string()]));
            }
        }
        Ok(())
    }

    /// Whether the option holds an explicitly set value (rather than its default).
    pub fn is_set(&self, option: DtraceOption) -> bool {
        match option.description().kind {
            OptionKind::InverseFlag(target) => self.explicit[target as usize].is_some(),
            _ => self.explicit[option as usize].is_some(),
        }
    }

    /// The option's effective value: the explicit one, else the default, else `None`.
    pub fn value(&self, option: DtraceOption) -> Option<OptionValue> {
        if let OptionKind::InverseFlag(target) = option.description().kind {
            return Some(OptionValue::Flag(!self.boolean(target)));
        }
        if let Some(value) = &self.explicit[option as usize] {
            return Some(value.clone());
        }
        match option.description().default {
            OptionDefault::Absent => None,
            OptionDefault::Integer(number) => Some(OptionValue::Integer(number)),
            OptionDefault::Word(word) => Some(OptionValue::Word(word)),
        }
    }

    /// Whether a boolean option or flag is on. Following DTrace, a boolean holding any
    /// integer is on; an option of another kind is "on" when it has a value.
    pub fn boolean(&self, option: DtraceOption) -> bool {
        match self.value(option) {
            None | Some(OptionValue::Flag(false)) => false,
            Some(_) => true,
        }
    }

    /// The value of an integer-valued option (boolean, integer, size, rate, compiler
    /// integer), or `None` when it has none.
    pub fn integer(&self, option: DtraceOption) -> Option<u64> {
        match self.value(option) {
            Some(OptionValue::Integer(number)) => Some(number),
            _ => None,
        }
    }

    /// The value in bytes of a size option (`None` for options of other kinds, and for
    /// `lockmem=unlimited`).
    pub fn size(&self, option: DtraceOption) -> Option<u64> {
        match option.description().kind {
            OptionKind::Size { .. } | OptionKind::SizeOrUnlimited => self.integer(option),
            _ => None,
        }
    }

    /// The value in nanoseconds of a time/rate option (`None` for other kinds). A rate
    /// of 0 means "as often as possible".
    pub fn rate_ns(&self, option: DtraceOption) -> Option<u64> {
        match option.description().kind {
            OptionKind::Rate => self.integer(option),
            _ => None,
        }
    }

    /// The word chosen for a word option (`bufpolicy`, `evaltime`, …).
    pub fn word(&self, option: DtraceOption) -> Option<&'static str> {
        match self.value(option) {
            Some(OptionValue::Word(word)) => Some(word),
            _ => None,
        }
    }

    /// The last string given to a string option.
    pub fn text(&self, option: DtraceOption) -> Option<&str> {
        self.texts(option).last().map(String::as_str)
    }

    /// Every string given to a string option, in order (`define`, `incdir`, … collect
    /// them all; other string options hold at most one).
    pub fn texts(&self, option: DtraceOption) -> &[String] {
        match &self.explicit[option as usize] {
            Some(OptionValue::Text(values)) => values,
            _ => &[],
        }
    }

    /// The D version requested with `version`, or the latest one.
    pub fn d_version(&self) -> DVersion {
        match self.explicit[DtraceOption::Version as usize] {
            Some(OptionValue::Version(version)) => version,
            _ => LATEST_D_VERSION,
        }
    }
}

/// Whether `#pragma D option name[=value]` names an option a program may set, with a
/// value it accepts; the error is libdtrace's text. The compiler calls this as it meets
/// each pragma (see `dlang::compile::OptionCheck`), so a bad pragma is a compile error
/// at its line, before anything after it in the program is looked at.
pub fn check_pragma_option(name: &str, value: Option<&str>) -> Result<(), String> {
    OptionSet::new()
        .set(name, value, OptionOrigin::Pragma)
        .map_err(|failure| failure.error.message().to_string())
}

/// The environment-variable prefix of options (`DTRACE_OPT_BUFSIZE=8m`).
pub const ENVIRONMENT_PREFIX: &str = "DTRACE_OPT_";

fn environment_variable_name(option_name: &str) -> String {
    format!("{ENVIRONMENT_PREFIX}{}", option_name.to_ascii_uppercase())
}

/// Splits `name=value` at the first `=`; text without `=` is a name with no value.
pub fn split_option_assignment(text: &str) -> (&str, Option<&str>) {
    match text.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (text, None),
    }
}

/// The option a dtrace(1) shorthand flag sets: `-b` bufsize, `-q` quiet, `-w`
/// destructive, `-F` flowindent, `-Z` zdefs, `-C` cpp, `-S` verbose, `-D` define, `-U`
/// undef, `-I` incdir, `-H` cpphdrs, `-X` stdc, `-L` libdir, `-a` grabanon.
pub fn shorthand_option(flag: char) -> Option<DtraceOption> {
    Some(match flag {
        'b' => DtraceOption::BufSize,
        'q' => DtraceOption::Quiet,
        'w' => DtraceOption::Destructive,
        'F' => DtraceOption::FlowIndent,
        'Z' => DtraceOption::Zdefs,
        'C' => DtraceOption::Cpp,
        'S' => DtraceOption::Verbose,
        'D' => DtraceOption::Define,
        'U' => DtraceOption::Undef,
        'I' => DtraceOption::IncDir,
        'H' => DtraceOption::CppHdrs,
        'X' => DtraceOption::Stdc,
        'L' => DtraceOption::LibDir,
        'a' => DtraceOption::GrabAnon,
        _ => return None,
    })
}

/// Whether CPU `cpu` is online (taken as true when the kernel's list cannot be read, so
/// the option still works where sysfs is missing).
fn is_online_cpu(cpu: u64) -> bool {
    kernel_shim::sys::cpus::online_cpus().map_or(true, |online| {
        online.iter().any(|&online| u64::from(online) == cpu)
    })
}

fn requires_value(kind: OptionKind) -> bool {
    matches!(
        kind,
        OptionKind::SizeOrUnlimited
            | OptionKind::CompilerInteger { .. }
            | OptionKind::Text { .. }
            | OptionKind::Words(_)
            | OptionKind::Version
            | OptionKind::Attributes
    )
}

/// Declares the [`DtraceOption`] enum and the option table from one list, so the two
/// cannot drift apart: each row is `Variant "name" class kind default program-use`.
macro_rules! option_table {
    ($($variant:ident $name:literal $class:ident $kind:expr, $default:expr, $program_use:ident;)*) => {
        /// Every option DTrace knows (D-REFERENCE.md §11.2–§11.4), named after the
        /// option; `name()` gives the spelling users write.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DtraceOption {
            $($variant,)*
        }

        /// The option table, in the order of [`DtraceOption`].
        pub const OPTION_TABLE: &[OptionDescription] = &[
            $(OptionDescription {
                option: DtraceOption::$variant,
                name: $name,
                class: OptionClass::$class,
                kind: $kind,
                default: $default,
                program_use: ProgramUse::$program_use,
            },)*
        ];
    };
}

const ANY_SIZE: OptionKind = OptionKind::Size {
    minimum: 0,
    maximum: LARGEST_OPTION_VALUE,
};
/// `strsize`: a string holds at least one character and its NUL, so 0 and 1 are
/// refused as invalid values when set.
const STRING_SIZE: OptionKind = OptionKind::Size {
    minimum: 2,
    maximum: LARGEST_OPTION_VALUE,
};
const TEXT: OptionKind = OptionKind::Text {
    accumulates: false,
    forbids_equals: false,
};
const TEXT_LIST: OptionKind = OptionKind::Text {
    accumulates: true,
    forbids_equals: false,
};
const NONE: OptionDefault = OptionDefault::Absent;
const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

const fn integer(number: u64) -> OptionDefault {
    OptionDefault::Integer(number)
}

const fn hertz(frequency: u64) -> OptionDefault {
    OptionDefault::Integer(NANOSECONDS_PER_SECOND / frequency)
}

option_table! {
    // Runtime options, fixed once tracing starts (§11.2).
    BufSize "bufsize" Runtime ANY_SIZE, integer(4 * MIB), Allowed;
    BufPolicy "bufpolicy" Runtime OptionKind::Words(&["switch", "fill", "ring"]), OptionDefault::Word("switch"), Allowed;
    BufResize "bufresize" Runtime OptionKind::Words(&["auto", "manual"]), OptionDefault::Word("auto"), Allowed;
    AggSize "aggsize" Runtime ANY_SIZE, integer(4 * MIB), Allowed;
    DynVarSize "dynvarsize" Runtime ANY_SIZE, integer(MIB), Allowed;
    SpecSize "specsize" Runtime ANY_SIZE, integer(32 * KIB), Allowed;
    Nspec "nspec" Runtime OptionKind::Integer, integer(1), Allowed;
    StrSize "strsize" Runtime STRING_SIZE, integer(256), Allowed;
    StackFrames "stackframes" Runtime OptionKind::Integer, integer(20), Allowed;
    UstackFrames "ustackframes" Runtime OptionKind::Integer, integer(20), Allowed;
    JstackFrames "jstackframes" Runtime OptionKind::Integer, integer(50), Allowed;
    JstackStrSize "jstackstrsize" Runtime ANY_SIZE, integer(512), Allowed;
    CleanRate "cleanrate" Runtime OptionKind::Rate, hertz(101), Allowed;
    StatusRate "statusrate" Runtime OptionKind::Rate, hertz(1), Allowed;
    Cpu "cpu" Runtime OptionKind::Cpu, NONE, Allowed;
    Destructive "destructive" Runtime OptionKind::Boolean, NONE, Allowed;
    GrabAnon "grabanon" Runtime OptionKind::Boolean, NONE, Allowed;
    Temporal "temporal" Runtime OptionKind::Boolean, NONE, Allowed;
    LockMem "lockmem" Runtime OptionKind::SizeOrUnlimited, NONE, Allowed;
    MaxFrames "maxframes" Runtime OptionKind::Integer, NONE, Allowed;
    ScratchSize "scratchsize" Runtime ANY_SIZE, integer(256 + 8), Allowed;
    PcapSize "pcapsize" Runtime OptionKind::Size { minimum: 0, maximum: 65535 }, integer(1514), Allowed;
    NoResolve "noresolve" Runtime OptionKind::Boolean, NONE, Allowed;
    BpfLog "bpflog" Runtime OptionKind::Boolean, NONE, Allowed;
    BpfLogSize "bpflogsize" Runtime ANY_SIZE, NONE, Allowed;
    // Dynamic runtime options, changeable while tracing (§11.3).
    Quiet "quiet" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    FlowIndent "flowindent" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    SwitchRate "switchrate" DynamicRuntime OptionKind::Rate, hertz(1), Allowed;
    AggRate "aggrate" DynamicRuntime OptionKind::Rate, hertz(1), Allowed;
    AggSortKey "aggsortkey" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    AggSortRev "aggsortrev" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    AggSortPos "aggsortpos" DynamicRuntime OptionKind::Integer, integer(0), Allowed;
    AggSortKeyPos "aggsortkeypos" DynamicRuntime OptionKind::Integer, integer(0), Allowed;
    AggZoom "aggzoom" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    AggHist "agghist" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    AggPack "aggpack" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    RawBytes "rawbytes" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    StackIndent "stackindent" DynamicRuntime OptionKind::Integer, integer(14), Allowed;
    QuietResize "quietresize" DynamicRuntime OptionKind::Boolean, NONE, Allowed;
    PrintSize "printsize" DynamicRuntime ANY_SIZE, integer(8192), Allowed;
    // Compile-time options (§11.4).
    AggPerCpu "aggpercpu" CompileTime OptionKind::Flag, NONE, Allowed;
    Amin "amin" CompileTime OptionKind::Attributes, NONE, Allowed;
    ArgRef "argref" CompileTime OptionKind::Flag, NONE, Allowed;
    Core "core" CompileTime OptionKind::Flag, NONE, Allowed;
    Cpp "cpp" CompileTime OptionKind::Flag, NONE, Allowed;
    CppArgs "cppargs" CompileTime TEXT_LIST, NONE, RefusedAfterValueCheck;
    CppHdrs "cpphdrs" CompileTime OptionKind::Flag, NONE, RefusedBeforeValueCheck;
    CppPath "cpppath" CompileTime TEXT, NONE, RefusedAfterValueCheck;
    Ctypes "ctypes" CompileTime TEXT, NONE, Allowed;
    Dtypes "dtypes" CompileTime TEXT, NONE, Allowed;
    CtfPath "ctfpath" CompileTime TEXT, NONE, Allowed;
    Debug "debug" CompileTime OptionKind::Flag, NONE, Allowed;
    DefaultArgs "defaultargs" CompileTime OptionKind::Flag, NONE, Allowed;
    Define "define" CompileTime TEXT_LIST, NONE, RefusedAfterValueCheck;
    Undef "undef" CompileTime TEXT_LIST, NONE, RefusedAfterValueCheck;
    IncDir "incdir" CompileTime TEXT_LIST, NONE, RefusedAfterValueCheck;
    Disasm "disasm" CompileTime OptionKind::CompilerInteger { minimum: 0 }, NONE, Allowed;
    DropTags "droptags" CompileTime OptionKind::Flag, NONE, Allowed;
    Empty "empty" CompileTime OptionKind::Flag, NONE, Allowed;
    Encoding "encoding" CompileTime OptionKind::Words(&["ascii", "utf8"]), NONE, Allowed;
    ErrTags "errtags" CompileTime OptionKind::Flag, NONE, Allowed;
    EvalTime "evaltime" CompileTime OptionKind::Words(&["exec", "preinit", "postinit", "main"]), OptionDefault::Word("postinit"), Allowed;
    Iregs "iregs" CompileTime OptionKind::CompilerInteger { minimum: 1 }, integer(8), Allowed;
    Tregs "tregs" CompileTime OptionKind::CompilerInteger { minimum: 1 }, integer(8), Allowed;
    Kdefs "kdefs" CompileTime OptionKind::InverseFlag(DtraceOption::Knodefs), NONE, Allowed;
    Knodefs "knodefs" CompileTime OptionKind::Flag, NONE, Allowed;
    Udefs "udefs" CompileTime OptionKind::InverseFlag(DtraceOption::Unodefs), NONE, Allowed;
    Unodefs "unodefs" CompileTime OptionKind::Flag, NONE, Allowed;
    Late "late" CompileTime OptionKind::Words(&["static", "dynamic"]), NONE, Allowed;
    LazyLoad "lazyload" CompileTime OptionKind::Flag, NONE, Allowed;
    LdPath "ldpath" CompileTime TEXT, NONE, RefusedAfterValueCheck;
    LibDir "libdir" CompileTime TEXT_LIST, NONE, Allowed;
    SysLibDir "syslibdir" CompileTime TEXT, NONE, Allowed;
    ModPath "modpath" CompileTime TEXT, NONE, Allowed;
    ProcfsPath "procfspath" CompileTime TEXT, NONE, Allowed;
    DofStashPath "dofstashpath" CompileTime TEXT, NONE, Allowed;
    SysSlice "sysslice" CompileTime TEXT, NONE, Allowed;
    UserUid "useruid" CompileTime TEXT, NONE, Allowed;
    LinkMode "linkmode" CompileTime OptionKind::Words(&["kernel", "static", "dynamic", "primary"]), OptionDefault::Word("kernel"), Allowed;
    LinkType "linktype" CompileTime OptionKind::Words(&["elf", "dof"]), OptionDefault::Word("elf"), Allowed;
    NoLibs "nolibs" CompileTime OptionKind::Flag, NONE, Allowed;
    PgMax "pgmax" CompileTime OptionKind::CompilerInteger { minimum: 0 }, NONE, Allowed;
    Pspec "pspec" CompileTime OptionKind::Flag, NONE, Allowed;
    SetEnv "setenv" CompileTime TEXT_LIST, NONE, RefusedBeforeValueCheck;
    UnsetEnv "unsetenv" CompileTime OptionKind::Text { accumulates: true, forbids_equals: true }, NONE, RefusedBeforeValueCheck;
    Stdc "stdc" CompileTime OptionKind::Words(&["a", "c", "s", "t"]), OptionDefault::Word("a"), RefusedAfterValueCheck;
    Strip "strip" CompileTime OptionKind::Flag, NONE, Allowed;
    Tree "tree" CompileTime OptionKind::CompilerInteger { minimum: 1 }, NONE, Allowed;
    Verbose "verbose" CompileTime OptionKind::Flag, NONE, Allowed;
    Version "version" CompileTime OptionKind::Version, NONE, Allowed;
    Zdefs "zdefs" CompileTime OptionKind::Flag, NONE, Allowed;

    // Extensions of this implementation, after the reference's options.
    // Our own: which engine runs the probes. `kernel` translates DIF to eBPF; `vm` runs
    // the dtrace provider's probes on the reference interpreter without privileges;
    // `auto` picks `vm` when every enabled probe belongs to the dtrace provider.
    Engine "engine" Runtime OptionKind::Words(&["auto", "kernel", "vm"]), OptionDefault::Word("auto"), Allowed;
}

impl DtraceOption {
    /// Looks an option up by the name users write (case-sensitive, as in DTrace).
    pub fn from_name(name: &str) -> Option<DtraceOption> {
        OPTION_TABLE
            .iter()
            .find(|description| description.name == name)
            .map(|description| description.option)
    }

    /// This option's row of the table.
    pub fn description(self) -> &'static OptionDescription {
        &OPTION_TABLE[self as usize]
    }

    /// The name users write (`bufsize`, `quiet`, …).
    pub fn name(self) -> &'static str {
        self.description().name
    }

    pub fn class(self) -> OptionClass {
        self.description().class
    }

    pub fn kind(self) -> OptionKind {
        self.description().kind
    }

    pub fn default_value(self) -> OptionDefault {
        self.description().default
    }
}
