//! What the caller tells the compiler: the programs (text plus where each came from)
//! and the compile options (macro values, strsize, defaultargs, argref, zdefs, …).
//! Semantic analysis and the compiler's entry point both read them, so they live below
//! both; `dlang::compile` re-exports them for callers.

pub use crate::parse::ProbeSpecifierOption;

/// Where a program's text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramOrigin {
    /// A `-s` script file.
    Script { name: String },
    /// A `-n`, `-P`, `-m`, `-f` or `-i` argument.
    CommandLine(ProbeSpecifierOption),
}

/// One program to compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramSource {
    pub text: String,
    pub origin: ProgramOrigin,
}

impl ProgramSource {
    /// A `-s` script.
    pub fn script(name: &str, text: &str) -> ProgramSource {
        ProgramSource {
            text: text.to_string(),
            origin: ProgramOrigin::Script {
                name: name.to_string(),
            },
        }
    }

    /// A command-line program (`-n` and friends).
    pub fn command_line(option: ProbeSpecifierOption, text: &str) -> ProgramSource {
        ProgramSource {
            text: text.to_string(),
            origin: ProgramOrigin::CommandLine(option),
        }
    }
}

/// Values of the `$name` macro variables (§1.6). `target` is the pid of the first
/// `-c`/`-p` process (0 if none); the others describe the dtrace process itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MacroVariables {
    pub target: u32,
    pub pid: u32,
    pub ppid: u32,
    pub uid: u32,
    pub gid: u32,
    pub euid: u32,
    pub egid: u32,
    pub pgid: u32,
    pub sid: u32,
    pub projid: u32,
    pub taskid: u32,
}

impl MacroVariables {
    /// The value of `$name`, if `name` is a macro variable.
    pub fn value(&self, name: &str) -> Option<u32> {
        Some(match name {
            "target" => self.target,
            "pid" => self.pid,
            "ppid" => self.ppid,
            "uid" => self.uid,
            "gid" => self.gid,
            "euid" => self.euid,
            "egid" => self.egid,
            "pgid" => self.pgid,
            "sid" => self.sid,
            "projid" => self.projid,
            "taskid" => self.taskid,
            _ => return None,
        })
    }
}

/// Checks one `#pragma D option name[=value]` setting against the caller's option table
/// and returns libdtrace's error text (`Invalid option name`, `Invalid value for
/// specified option`, …) when the option cannot be set. The option table belongs to the
/// consumer, which passes this in; without it the compiler checks only the options it
/// reads itself.
pub type OptionCheck = fn(name: &str, value: Option<&str>) -> Result<(), String>;

/// Options that affect compilation. `#pragma D option` lines may change the
/// compile-time ones (strsize, defaultargs, argref, zdefs, empty, stack depths, printsize)
/// for the rest of the compilation.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    /// `$0`, `$1`, …: the script name (or dtrace's `argv[0]` for `-n`), then the operands.
    pub macro_arguments: Vec<String>,
    pub macro_variables: MacroVariables,
    /// Size of the `string` type (`strsize`).
    pub string_size: u32,
    /// `-xdefaultargs`: an undefined `$N` is 0 and `$$N` is "".
    pub default_arguments: bool,
    /// `-xargref`: operands need not be referenced.
    pub argument_references: bool,
    /// `-Z` / `-xzdefs`: descriptions may match zero probes.
    pub zero_matches_allowed: bool,
    /// `-xempty`: an empty program is not an error.
    pub empty_programs_allowed: bool,
    /// Default depth of `stack()` (`stackframes`).
    pub stack_frames: u32,
    /// Default depth of `ustack()` (`ustackframes`).
    pub user_stack_frames: u32,
    /// Default depth of `jstack()` (`jstackframes`).
    pub java_stack_frames: u32,
    /// Default string space of `jstack()` (`jstackstrsize`).
    pub java_stack_string_size: u32,
    /// `maxframes` (Linux): the deepest stack `stack()`, `ustack()` and `jstack()`
    /// record; deeper requests are cut to it. None: no bound but the kernel's.
    pub max_frames: Option<u32>,
    /// Scratch space per firing (`scratchsize`), for the constant `alloca()` check.
    pub scratch_size: u64,
    /// The most bytes of a struct, union or array `print()` records (`printsize`).
    pub print_size: u64,
    /// A `-p`/`-c` process exists, so `%A` accepts plain pointers and integers.
    pub user_process_attached: bool,
    /// Append the consumer's default `dtrace:::ERROR` statement.
    pub default_error_handler: bool,
    /// `-xpspec`: every word in probe-description position is a probe description.
    pub probe_descriptions_only: bool,
    /// Resolve the names of the system library's inlines (errno and signal names);
    /// `-x nolibs` turns this off.
    pub system_library: bool,
    /// Validates each `#pragma D option` as it is applied (D_PRAGMA_OPTSET on failure).
    pub option_check: Option<OptionCheck>,
    /// The user's D library files (every `*.d` file of the `-L` directories, in
    /// directory order and by name within one), loaded before the programs unless
    /// `system_library` is off (`-x nolibs` leaves out every library).
    pub user_libraries: Vec<LibraryFileSource>,
    /// `-x amin`: the lowest attributes an identifier the program uses may have.
    pub minimum_attributes: Option<difvm::stability::Attribute>,
}

/// One file of a user D library directory: its path (the directory, `/`, the file
/// name) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryFileSource {
    pub path: String,
    pub text: String,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            macro_arguments: vec!["dtrace".to_string()],
            macro_variables: MacroVariables::default(),
            string_size: 256,
            default_arguments: false,
            argument_references: false,
            zero_matches_allowed: false,
            empty_programs_allowed: false,
            stack_frames: 20,
            user_stack_frames: 20,
            java_stack_frames: 50,
            java_stack_string_size: 512,
            max_frames: None,
            scratch_size: 256 + 8,
            print_size: 8192,
            user_process_attached: false,
            default_error_handler: true,
            probe_descriptions_only: false,
            system_library: true,
            option_check: None,
            user_libraries: Vec::new(),
            minimum_attributes: None,
        }
    }
}
