//! `-C`: running a D script through the C preprocessor before compiling it
//! (D-REFERENCE.md §1.10), with DTrace's predefined macros and the `-D -U -I -H -X`
//! options (`crate::settings` derives the [`PreprocessorSettings`] from the option set).
//!
//! How cpp is run, and why:
//! * The program is `cpppath`, else `/usr/bin/cpp`, else `cpp` along `PATH`.
//! * The arguments are, in order: the predefined macros (`-D__linux -D__unix -D__SVR4
//!   -D__SUNW_D=1 -D__SUNW_D_64 -D__Linux -D__SUNW_D_VERSION=0x0100d000 -U__GNUC__`, the
//!   sysname coming from uname(2) and the version from the `version` option, encoded as
//!   libdtrace's `DT_VERSION_NUMBER`: major << 24 | minor << 12 | micro, printed with
//!   `%08x`), `-Ulinux -Uunix` (gcc's GNU mode defines these plain names, which D
//!   scripts may use as identifiers), `-traditional-cpp` for `-Xs`, `-H` for `-H`, the
//!   words of `cppargs`, the user's `-D`/`-U`/`-I` in order (so they override the
//!   predefined ones), `-iquote` the script's directory, and the input.
//! * gcc's ISO mode is used except with `-Xs`: it strips `/* */` and `//` comments
//!   before looking at quotes (so apostrophes in comments are harmless), passes `$1`,
//!   `$target`, `@` and `` ` `` through untouched, and defines `__STDC__` as 1, which is
//!   what Linux DTrace gives for `-Xa`, `-Xc` and `-Xt`. `-Xs` selects
//!   `-traditional-cpp`, which does not define `__STDC__`.
//! * Line markers are kept (no `-P`): the script is handed to cpp as `/dev/fd/0` (its
//!   standard input), as libdtrace hands it over as `/dev/fd/N`, so cpp writes
//!   `# N "/dev/fd/0"` lines, which the D lexer takes as "the script itself, line N";
//!   lines from headers carry the header's name, so messages read `"x.h", line N: …`.
//! * Because the main file is `/dev/fd/0`, cpp would look for `#include "local.h"` in
//!   `/dev/fd`; `-iquote DIR` makes it look next to the script too (libdtrace has the
//!   same `/dev/fd` name and no such help, so this only makes more scripts work).
//! * A first line starting with `#!` is blanked (its newline kept, so line numbers stay
//!   right), as libdtrace skips it: cpp would reject it as an invalid directive.
//! * cpp's standard error (warnings, errors, the `-H` header list) is captured and
//!   written to the caller's diagnostics stream, with `/dev/fd/0` replaced by the
//!   script's name so cpp's own messages point at the right file.
//!
//! Failures carry libdtrace's messages (`EDT_CPPENT`, `EDT_CPPEXEC`, `EDT_CPPFORK`,
//! `EDT_CPPERR`); dtrace prints them as `dtrace: failed to compile script NAME: MESSAGE`
//! (after cpp's own messages) and exits with status 1.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::options::{DVersion, DtraceOption};

/// The preprocessor tried first when `cpppath` is not set.
pub const DEFAULT_CPP_PATH: &str = "/usr/bin/cpp";

/// The preprocessor looked up along `PATH` when [`DEFAULT_CPP_PATH`] does not exist.
pub const FALLBACK_CPP_NAME: &str = "cpp";

/// The name cpp gives the script in its line markers and messages.
const SCRIPT_INPUT_PATH: &str = "/dev/fd/0";

/// One of the user's preprocessor options, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreprocessorArgument {
    /// `-D name[=value]` (the text after `-D`).
    Define(String),
    /// `-U name`.
    Undefine(String),
    /// `-I directory`.
    IncludeDirectory(String),
}

impl PreprocessorArgument {
    /// The argument for a preprocessor option setting (`define`, `undef`, `incdir`, as
    /// `-D`, `-U`, `-I` and `-x` set them), or `None` for other options.
    pub fn from_option(option: DtraceOption, value: &str) -> Option<PreprocessorArgument> {
        match option {
            DtraceOption::Define => Some(PreprocessorArgument::Define(value.to_string())),
            DtraceOption::Undef => Some(PreprocessorArgument::Undefine(value.to_string())),
            DtraceOption::IncDir => Some(PreprocessorArgument::IncludeDirectory(value.to_string())),
            _ => None,
        }
    }

    fn command_line_word(&self) -> String {
        match self {
            PreprocessorArgument::Define(definition) => format!("-D{definition}"),
            PreprocessorArgument::Undefine(name) => format!("-U{name}"),
            PreprocessorArgument::IncludeDirectory(directory) => format!("-I{directory}"),
        }
    }
}

/// The `-X` conformance modes (the `stdc` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Conformance {
    /// `-Xa` (the default): ISO C plus extensions; `__STDC__` is 1 with gcc's cpp.
    #[default]
    Ansi,
    /// `-Xc`: strict ISO C; `__STDC__` is 1.
    Strict,
    /// `-Xs`: K&R C, run as `-traditional-cpp`; `__STDC__` is not defined.
    Traditional,
    /// `-Xt`: transition mode; `__STDC__` is 1 with gcc's cpp.
    Transition,
}

impl Conformance {
    /// The mode named by a `-X` letter (`a`, `c`, `s`, `t`).
    pub fn from_word(word: &str) -> Option<Conformance> {
        match word {
            "a" => Some(Conformance::Ansi),
            "c" => Some(Conformance::Strict),
            "s" => Some(Conformance::Traditional),
            "t" => Some(Conformance::Transition),
            _ => None,
        }
    }
}

/// The data model programs are compiled for (`-32`/`-64`), which picks `__SUNW_D_32`
/// or `__SUNW_D_64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataModel {
    #[default]
    Lp64,
    Ilp32,
}

/// Everything that shapes the cpp command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreprocessorSettings {
    /// `cpppath`; `None` means [`DEFAULT_CPP_PATH`], else [`FALLBACK_CPP_NAME`].
    pub cpp_path: Option<String>,
    /// `-D`, `-U`, `-I`, in command-line order.
    pub arguments: Vec<PreprocessorArgument>,
    /// `cppargs`: extra words passed before the user's `-D`/`-U`/`-I`.
    pub extra_arguments: Vec<String>,
    /// `-H` (`cpphdrs`): cpp lists the headers it includes on stderr.
    pub print_included_headers: bool,
    /// `-X` (`stdc`).
    pub conformance: Conformance,
    /// The `version` option: `__SUNW_D_VERSION`.
    pub d_version: DVersion,
    pub data_model: DataModel,
}

impl Default for PreprocessorSettings {
    fn default() -> PreprocessorSettings {
        PreprocessorSettings {
            cpp_path: None,
            arguments: Vec::new(),
            extra_arguments: Vec::new(),
            print_included_headers: false,
            conformance: Conformance::Ansi,
            d_version: crate::options::LATEST_D_VERSION,
            data_model: DataModel::Lp64,
        }
    }
}

impl PreprocessorSettings {
    /// The preprocessor program to run.
    pub fn program(&self) -> String {
        match &self.cpp_path {
            Some(path) => path.clone(),
            None if Path::new(DEFAULT_CPP_PATH).exists() => DEFAULT_CPP_PATH.to_string(),
            None => FALLBACK_CPP_NAME.to_string(),
        }
    }

    /// DTrace's predefined macro arguments (§1.10).
    pub fn predefined_arguments(&self) -> Vec<String> {
        let model = match self.data_model {
            DataModel::Lp64 => "-D__SUNW_D_64",
            DataModel::Ilp32 => "-D__SUNW_D_32",
        };
        vec![
            "-D__linux".to_string(),
            "-D__unix".to_string(),
            "-D__SVR4".to_string(),
            "-D__SUNW_D=1".to_string(),
            model.to_string(),
            format!("-D__{}", system_name()),
            format!(
                "-D__SUNW_D_VERSION=0x{:08x}",
                version_number(self.d_version)
            ),
            "-U__GNUC__".to_string(),
            // gcc's default GNU mode also predefines these two names outside the
            // reserved namespace; D scripts may use them as identifiers.
            "-Ulinux".to_string(),
            "-Uunix".to_string(),
        ]
    }

    /// Every argument after the program name, for a script in `script_directory`.
    pub fn command_line_arguments(&self, script_directory: Option<&Path>) -> Vec<String> {
        let mut arguments = self.predefined_arguments();
        if self.conformance == Conformance::Traditional {
            arguments.push("-traditional-cpp".to_string());
        }
        if self.print_included_headers {
            arguments.push("-H".to_string());
        }
        arguments.extend(self.extra_arguments.iter().cloned());
        arguments.extend(
            self.arguments
                .iter()
                .map(PreprocessorArgument::command_line_word),
        );
        if let Some(directory) = script_directory {
            let directory = if directory.as_os_str().is_empty() {
                Path::new(".")
            } else {
                directory
            };
            arguments.push("-iquote".to_string());
            arguments.push(directory.display().to_string());
        }
        arguments.push(SCRIPT_INPUT_PATH.to_string());
        arguments
    }
}

/// libdtrace's `DT_VERSION_NUMBER(major, minor, micro)`.
pub fn version_number(version: DVersion) -> u32 {
    ((version.major & 0xff) << 24) | ((version.minor & 0xfff) << 12) | (version.micro & 0xfff)
}

/// The operating system name from uname(2) (`Linux`), for the `__<sysname>` macro.
fn system_name() -> String {
    // SAFETY: uname fills the zeroed structure, whose fields are NUL-terminated arrays.
    unsafe {
        let mut names: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut names) == 0 {
            let name = std::ffi::CStr::from_ptr(names.sysname.as_ptr());
            if let Ok(name) = name.to_str() {
                if !name.is_empty() {
                    return name.to_string();
                }
            }
        }
    }
    "Linux".to_string()
}

/// Why preprocessing failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreprocessErrorKind {
    /// The preprocessor program does not exist (`EDT_CPPENT`).
    NotFound,
    /// It exists but could not be executed (`EDT_CPPEXEC`).
    CannotExecute,
    /// No process could be created, or talking to it failed (`EDT_CPPFORK`).
    CannotStart,
    /// cpp ran and failed, e.g. on a missing header or `#error` (`EDT_CPPERR`).
    Failed,
}

/// A preprocessing failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreprocessError {
    pub kind: PreprocessErrorKind,
}

impl PreprocessError {
    /// libdtrace's message for the failure; dtrace prints `dtrace: failed to compile
    /// script NAME: ` followed by it.
    pub fn message(&self) -> &'static str {
        match self.kind {
            PreprocessErrorKind::NotFound => "Preprocessor not found",
            PreprocessErrorKind::CannotExecute => "Failed to exec preprocessor",
            PreprocessErrorKind::CannotStart => "Failed to fork preprocessor",
            PreprocessErrorKind::Failed => "Preprocessor failed to process input program",
        }
    }
}

impl std::fmt::Display for PreprocessError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.message())
    }
}

impl std::error::Error for PreprocessError {}

/// The script text cpp reads: a first line starting with `#!` becomes empty.
fn without_interpreter_line(text: &str) -> &str {
    if text.starts_with("#!") {
        match text.find('\n') {
            Some(newline) => &text[newline..],
            None => "",
        }
    } else {
        text
    }
}

/// Runs `text` (the script `script_path`, if it has one) through cpp as `settings` say
/// and returns cpp's output, line markers included. cpp's standard error is written to
/// `diagnostics` in every case (warnings and the `-H` list as well as errors).
pub fn preprocess(
    text: &str,
    script_path: Option<&Path>,
    settings: &PreprocessorSettings,
    diagnostics: &mut dyn Write,
) -> Result<String, PreprocessError> {
    let program = settings.program();
    let script_directory = script_path.map(|path| path.parent().unwrap_or(Path::new(".")));
    let mut child = Command::new(&program)
        .args(settings.command_line_arguments(script_directory))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| PreprocessError {
            kind: match error.kind() {
                std::io::ErrorKind::NotFound => PreprocessErrorKind::NotFound,
                std::io::ErrorKind::PermissionDenied => PreprocessErrorKind::CannotExecute,
                _ => PreprocessErrorKind::CannotStart,
            },
        })?;
    let cannot_start = PreprocessError {
        kind: PreprocessErrorKind::CannotStart,
    };
    let (Some(mut input), Some(mut output), Some(mut errors)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(cannot_start);
    };
    let script_text = without_interpreter_line(text);
    // The script is written and cpp's two outputs are read at the same time, so none of
    // the pipes can fill up and stall cpp, whatever the sizes involved.
    let (output_bytes, error_bytes) = std::thread::scope(|scope| {
        scope.spawn(move || {
            // cpp may stop reading early (a fatal error); its exit status says so.
            let _ = input.write_all(script_text.as_bytes());
        });
        let error_reader = scope.spawn(move || {
            let mut bytes = Vec::new();
            let _ = errors.read_to_end(&mut bytes);
            bytes
        });
        let mut bytes = Vec::new();
        let output_result = output.read_to_end(&mut bytes);
        let error_bytes = error_reader.join().unwrap_or_default();
        (output_result.map(|_| bytes), error_bytes)
    });
    let status = child.wait().map_err(|_| cannot_start)?;
    if !error_bytes.is_empty() {
        let mut messages = String::from_utf8_lossy(&error_bytes).into_owned();
        if let Some(path) = script_path {
            messages = messages.replace(SCRIPT_INPUT_PATH, &path.display().to_string());
        }
        let _ = diagnostics.write_all(messages.as_bytes());
        let _ = diagnostics.flush();
    }
    let output_bytes = output_bytes.map_err(|_| cannot_start)?;
    if !status.success() {
        return Err(PreprocessError {
            kind: PreprocessErrorKind::Failed,
        });
    }
    Ok(String::from_utf8_lossy(&output_bytes).into_owned())
}
