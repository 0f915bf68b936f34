//! Target processes of a tracing session (`-c cmd`, `-p pid`, D-REFERENCE.md §12.2–§12.4):
//! creating a command held before `exec` until tracing starts, grabbing an existing
//! process, learning without blocking when they have all exited, and the classic
//! `dtrace: pid N has exited` notices.
//!
//! How this differs from dtrace(1), which uses /proc (or ptrace on Linux):
//! * A `-c` child runs under ptrace from its `exec` to its program's entry point and is
//!   held stopped there until tracing starts (`traced_start`), so that its executable
//!   (`a.out`) and shared libraries are mapped when its pid and usdt probes are
//!   resolved. [`TargetProcesses::create`] searches `PATH` in the parent as `execvp`
//!   would, and fails with `failed to execute CMD: No such file or directory` (or
//!   `Permission denied`, or the error `exec` itself returned) before anything is
//!   compiled.
//! * A `-p` process is watched but not stopped: without ptrace there is no stop that its
//!   parent (often a shell doing job control) would not notice.
//! * When dtrace finishes while a process it created is still running (an `exit()`
//!   action, an interrupt, an error), the process is killed with SIGKILL and reaped, as
//!   libdtrace releases created processes with `PRELEASE_KILL`. Grabbed (`-p`) processes
//!   are left alone. A created child that was never released is killed by the kernel
//!   if dtrace dies (`PTRACE_O_EXITKILL`).
//! * Processes should be created from one thread at a time (dtrace does so before
//!   tracing): a held child keeps copies of every descriptor open at its fork, so a
//!   child forked while another is being created can delay that one's release.
//!
//! Exit notices follow classic dtrace(1)'s `prochandler()`: `pid N terminated by SIGKILL`
//! for a signal, `pid N exited with status S` for a non-zero status, and `pid N has
//! exited` otherwise (always for `-p` processes, whose status only their parent sees).

use std::ffi::{CString, OsStr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kernel_shim::sys::errno_description;

use crate::command_environment::CommandEnvironment;
use crate::messages::MessageSink;
use crate::session::TargetWatch;
use crate::traced_start::{bring_traced_child_to_entry, release_traced_child, TracedStart};

/// The search path `execvp` uses when `PATH` is unset (glibc's default).
const DEFAULT_SEARCH_PATH: &str = "/bin:/usr/bin";

/// The status a held child exits with when it does not `exec` (as a shell would for a
/// command it cannot run).
const NOT_EXECUTED_STATUS: libc::c_int = 127;

/// How long [`TargetProcesses::wait_for_exits`] sleeps between checks of processes it
/// cannot watch with a pidfd.
const FALLBACK_POLL_INTERVAL: Duration = Duration::from_millis(20);

/// A failure to create or grab a target process; dtrace prints `dtrace: ` + the message
/// and exits with status 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetProcessError {
    message: String,
}

impl TargetProcessError {
    fn new(message: String) -> TargetProcessError {
        TargetProcessError { message }
    }

    /// The text after `dtrace: `, e.g. `failed to execute nosuch: No such file or
    /// directory`, `invalid pid: 12x` or `failed to grab pid 99999: No such process`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for TargetProcessError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for TargetProcessError {}

/// How a target process ended, as far as dtrace can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetExitStatus {
    /// It called `exit` with this status.
    Exited(i32),
    /// A signal with this number killed it.
    Signaled(i32),
    /// It is gone but its status is not ours to collect (a `-p` process, or a child that
    /// something else reaped).
    Unknown,
}

/// One target process that has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetExit {
    pub pid: u32,
    pub status: TargetExitStatus,
}

impl TargetExit {
    /// The classic notice, without `dtrace: ` and the newline: `pid 42 has exited`,
    /// `pid 42 exited with status 1` or `pid 42 terminated by SIGKILL`.
    pub fn notice(&self) -> String {
        match self.status {
            TargetExitStatus::Signaled(signal) => {
                format!("pid {} terminated by {}", self.pid, signal_name(signal))
            }
            TargetExitStatus::Exited(status) if status != 0 => {
                format!("pid {} exited with status {}", self.pid, status)
            }
            TargetExitStatus::Exited(_) | TargetExitStatus::Unknown => {
                format!("pid {} has exited", self.pid)
            }
        }
    }
}

/// The name dtrace prints for a signal: `SIGKILL`, `SIGRTMIN+3`, or `SIG#N` for a
/// number with no name (the forms of illumos `proc_signame()`).
pub fn signal_name(signal: i32) -> String {
    const NAMES: &[(libc::c_int, &str)] = &[
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGSTKFLT, "SIGSTKFLT"),
        (libc::SIGCHLD, "SIGCHLD"),
        (libc::SIGCONT, "SIGCONT"),
        (libc::SIGSTOP, "SIGSTOP"),
        (libc::SIGTSTP, "SIGTSTP"),
        (libc::SIGTTIN, "SIGTTIN"),
        (libc::SIGTTOU, "SIGTTOU"),
        (libc::SIGURG, "SIGURG"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGPROF, "SIGPROF"),
        (libc::SIGWINCH, "SIGWINCH"),
        (libc::SIGIO, "SIGIO"),
        (libc::SIGPWR, "SIGPWR"),
        (libc::SIGSYS, "SIGSYS"),
    ];
    if let Some((_, name)) = NAMES.iter().find(|(number, _)| *number == signal) {
        return (*name).to_string();
    }
    let (minimum, maximum) = (libc::SIGRTMIN(), libc::SIGRTMAX());
    if (minimum..=maximum).contains(&signal) {
        // Like sig2str(3C): the lower half counts up from RTMIN, the upper half down from RTMAX.
        let above_minimum = signal - minimum;
        if above_minimum == 0 {
            return "SIGRTMIN".to_string();
        }
        if signal == maximum {
            return "SIGRTMAX".to_string();
        }
        if above_minimum <= (maximum - minimum) / 2 {
            return format!("SIGRTMIN+{above_minimum}");
        }
        return format!("SIGRTMAX-{}", maximum - signal);
    }
    format!("SIG#{signal}")
}

/// Splits a `-c` command into words at blanks, as dtrace(1)'s `make_argv()` does with
/// `strtok(s, "\f\n\r\t\v ")`: there is no quoting.
pub fn split_command(command: &str) -> Vec<&str> {
    command
        .split([' ', '\t', '\n', '\r', '\x0b', '\x0c'])
        .filter(|word| !word.is_empty())
        .collect()
}

/// Parses a `-p` argument as dtrace(1) does with `strtol(optarg, &end, 10)`: optional
/// leading blanks and sign, decimal digits, nothing after them. Anything else, and values
/// out of range, give `invalid pid: TEXT`.
pub fn parse_pid(text: &str) -> Result<i64, TargetProcessError> {
    let invalid = || TargetProcessError::new(format!("invalid pid: {text}"));
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let digits = trimmed.strip_prefix(['+', '-']).unwrap_or(trimmed);
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(invalid());
    }
    trimmed.parse::<i64>().map_err(|_| invalid())
}

/// The calling thread's `errno` (read directly, so it is also safe in a forked child).
fn last_errno() -> i32 {
    // SAFETY: __errno_location returns the valid address of this thread's errno.
    unsafe { *libc::__errno_location() }
}

/// Whether `path` names something `execve` could run: a regular file (after symlinks)
/// that we may execute. Directories and non-executable files give EACCES, as `execve`
/// does; missing paths give the error `stat` reports.
fn check_executable(path: &Path) -> Result<(), i32> {
    let metadata =
        std::fs::metadata(path).map_err(|error| error.raw_os_error().unwrap_or(libc::ENOENT))?;
    if !metadata.is_file() {
        return Err(libc::EACCES);
    }
    let c_path = CString::new(path.as_os_str().as_bytes()).map_err(|_| libc::ENOENT)?;
    // SAFETY: `c_path` is a valid NUL-terminated string.
    if unsafe { libc::access(c_path.as_ptr(), libc::X_OK) } != 0 {
        return Err(last_errno());
    }
    Ok(())
}

/// Finds the file `execvp(name)` would run: `name` itself if it contains a slash, else
/// the first executable `DIR/name` along `PATH` (an empty entry meaning the current
/// directory). As `execvp` does, a candidate we may not execute is skipped but
/// remembered, so the error is EACCES rather than ENOENT when nothing runnable is found.
fn resolve_executable(name: &str, search_path: Option<&OsStr>) -> Result<PathBuf, i32> {
    if name.is_empty() {
        return Err(libc::ENOENT);
    }
    if name.contains('/') {
        let path = PathBuf::from(name);
        check_executable(&path)?;
        return Ok(path);
    }
    let search_path = search_path.unwrap_or(OsStr::new(DEFAULT_SEARCH_PATH));
    let mut denied = false;
    for directory in search_path.as_bytes().split(|&byte| byte == b':') {
        let directory = if directory.is_empty() {
            Path::new(".")
        } else {
            Path::new(OsStr::from_bytes(directory))
        };
        let candidate = directory.join(name);
        match check_executable(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(libc::EACCES) => denied = true,
            Err(_) => {}
        }
    }
    Err(if denied { libc::EACCES } else { libc::ENOENT })
}

/// Opens a pidfd for `pid`: `Ok(None)` when the kernel or a seccomp filter refuses
/// pidfds (the caller falls back to polling), `Err(errno)` when the process is gone.
fn open_pidfd(pid: libc::pid_t) -> Result<Option<OwnedFd>, i32> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let result = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if result >= 0 {
        // SAFETY: the descriptor was just created and nothing else owns it.
        return Ok(Some(unsafe { OwnedFd::from_raw_fd(result as RawFd) }));
    }
    match last_errno() {
        libc::ESRCH => Err(libc::ESRCH),
        _ => Ok(None),
    }
}

/// A close-on-exec pipe: (read end, write end).
fn close_on_exec_pipe() -> Result<(OwnedFd, OwnedFd), i32> {
    let mut descriptors = [0 as RawFd; 2];
    // SAFETY: `descriptors` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(descriptors.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(last_errno());
    }
    // SAFETY: both descriptors were just created and nothing else owns them.
    unsafe {
        Ok((
            OwnedFd::from_raw_fd(descriptors[0]),
            OwnedFd::from_raw_fd(descriptors[1]),
        ))
    }
}

/// Writes all of `bytes` to `descriptor`, retrying on EINTR (async-signal-safe).
fn write_all_raw(descriptor: RawFd, bytes: &[u8]) -> bool {
    let mut written = 0;
    while written < bytes.len() {
        // SAFETY: the pointer and length describe the unwritten tail of `bytes`.
        let result = unsafe {
            libc::write(
                descriptor,
                bytes[written..].as_ptr().cast(),
                bytes.len() - written,
            )
        };
        if result > 0 {
            written += result as usize;
        } else if result < 0 && last_errno() == libc::EINTR {
            continue;
        } else {
            return false;
        }
    }
    true
}

/// Reads from `descriptor` until `buffer` is full or end-of-file, retrying on EINTR;
/// returns how many bytes were read.
fn read_until_full_or_eof(descriptor: RawFd, buffer: &mut [u8]) -> usize {
    let mut filled = 0;
    while filled < buffer.len() {
        // SAFETY: the pointer and length describe the unfilled tail of `buffer`.
        let result = unsafe {
            libc::read(
                descriptor,
                buffer[filled..].as_mut_ptr().cast(),
                buffer.len() - filled,
            )
        };
        if result > 0 {
            filled += result as usize;
        } else if result < 0 && last_errno() == libc::EINTR {
            continue;
        } else {
            break;
        }
    }
    filled
}

/// What the child of [`TargetProcesses::create`] runs between `fork` and `exec`. Only
/// async-signal-safe calls are made here and nothing is allocated: the program path and
/// argument vector were built before forking.
///
/// # Safety
/// Must only be called in a freshly forked child, with the descriptors of the
/// exec-status pipe and pointers that stay valid until `exec` (`envp` null for dtrace's
/// own environment).
unsafe fn run_traced_child(
    status_read: RawFd,
    status_write: RawFd,
    program: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
) -> ! {
    libc::close(status_read);
    // Caught signals would run dtrace's handlers in the child and so not kill it;
    // restore their defaults (exec would do so anyway). SIGPIPE is reset too, because
    // the Rust runtime ignores it and an ignored signal stays ignored across exec.
    for signal in 1..=64 {
        let mut current: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, std::ptr::null(), &mut current) != 0 {
            continue;
        }
        let caught = current.sa_sigaction != libc::SIG_DFL && current.sa_sigaction != libc::SIG_IGN;
        if caught || signal == libc::SIGPIPE {
            let mut default_action: libc::sigaction = std::mem::zeroed();
            default_action.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &default_action, std::ptr::null_mut());
        }
    }
    let mut empty_mask: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut empty_mask);
    libc::pthread_sigmask(libc::SIG_SETMASK, &empty_mask, std::ptr::null_mut());
    // The kernel stops a traced process right after a successful exec; the parent then
    // brings it to its entry point and holds it there (see `traced_start`).
    if libc::ptrace(libc::PTRACE_TRACEME, 0, 0usize, 0usize) != 0 {
        let errno = last_errno().to_ne_bytes();
        write_all_raw(status_write, &errno);
        libc::_exit(NOT_EXECUTED_STATUS);
    }
    // The program path contains a slash, so execvp does no PATH search; it is used for
    // its fallback of running a script without `#!` through /bin/sh, as dtrace's execvp does.
    if envp.is_null() {
        libc::execvp(program, argv);
    } else {
        libc::execvpe(program, argv, envp);
    }
    let errno = last_errno().to_ne_bytes();
    write_all_raw(status_write, &errno);
    libc::_exit(NOT_EXECUTED_STATUS);
}

/// Where a target process came from.
#[derive(Debug)]
enum TargetOrigin {
    /// `-c`: our child. Until released it is a stopped tracee (`held`).
    Created { held: bool },
    /// `-p`: someone else's process.
    Grabbed,
}

#[derive(Debug)]
struct TargetProcess {
    pid: libc::pid_t,
    origin: TargetOrigin,
    /// Becomes readable when the process exits; `None` where pidfds are unavailable.
    exit_watch: Option<OwnedFd>,
    exited: bool,
    /// How a created child ended if it did so before reaching its entry point (it was
    /// reaped then, so `waitpid` cannot tell any more).
    ended_before_entry: Option<TargetExitStatus>,
}

impl TargetProcess {
    fn is_created(&self) -> bool {
        matches!(self.origin, TargetOrigin::Created { .. })
    }

    /// Checks, without blocking, whether the process has ended, and reaps our children.
    fn check_exit(&mut self) -> Option<TargetExitStatus> {
        if self.exited {
            return None;
        }
        let status = if let Some(status) = self.ended_before_entry.take() {
            status
        } else if self.is_created() {
            let mut wait_status: libc::c_int = 0;
            // SAFETY: waitpid writes the status of our own child into `wait_status`.
            let result = unsafe { libc::waitpid(self.pid, &mut wait_status, libc::WNOHANG) };
            if result == self.pid && libc::WIFSTOPPED(wait_status) {
                // A held tracee reports the signals sent to it as stops; they are
                // delivered when it is released.
                return None;
            } else if result == self.pid {
                exit_status_of(wait_status)
            } else if result < 0 && last_errno() == libc::ECHILD {
                // Something else reaped it (SIGCHLD ignored, or a stray waitpid(-1)).
                TargetExitStatus::Unknown
            } else {
                return None;
            }
        } else {
            let gone = match &self.exit_watch {
                Some(watch) => is_readable(watch.as_raw_fd()),
                None => !process_exists(self.pid),
            };
            if !gone {
                return None;
            }
            TargetExitStatus::Unknown
        };
        self.mark_exited();
        Some(status)
    }

    fn mark_exited(&mut self) {
        self.exited = true;
        self.exit_watch = None;
        if let TargetOrigin::Created { held } = &mut self.origin {
            *held = false;
        }
    }
}

/// How a raw wait status of an ended child reads.
fn exit_status_of(wait_status: libc::c_int) -> TargetExitStatus {
    if libc::WIFSIGNALED(wait_status) {
        TargetExitStatus::Signaled(libc::WTERMSIG(wait_status))
    } else {
        TargetExitStatus::Exited(libc::WEXITSTATUS(wait_status))
    }
}

/// Whether process `pid` exists, by sending it signal 0 (the fallback where pidfds are
/// unavailable; a zombie still counts as existing).
fn process_exists(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || last_errno() != libc::ESRCH
}

/// Whether `descriptor` polls readable right now.
fn is_readable(descriptor: RawFd) -> bool {
    let mut entry = libc::pollfd {
        fd: descriptor,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd entry, no waiting.
    let result = unsafe { libc::poll(&mut entry, 1, 0) };
    result > 0 && entry.revents != 0
}

/// The `-c` and `-p` processes of one dtrace run, in command-line order.
#[derive(Debug, Default)]
pub struct TargetProcesses {
    targets: Vec<TargetProcess>,
    environment: CommandEnvironment,
}

impl TargetProcesses {
    pub fn new() -> TargetProcesses {
        TargetProcesses::default()
    }

    /// Processes whose `-c` commands run in `environment`.
    pub fn with_environment(environment: CommandEnvironment) -> TargetProcesses {
        TargetProcesses {
            targets: Vec::new(),
            environment,
        }
    }

    /// `-c command`: splits `command` at blanks, finds the program along `PATH`, and
    /// forks a child that waits, before `exec`, until [`TargetProcesses::release`].
    /// Returns the child's pid. Errors: `failed to execute NAME: No such file or
    /// directory` (or `Permission denied`, or the `fork`/`pipe` error), where NAME is
    /// the first word of the command, as in dtrace(1).
    pub fn create(&mut self, command: &str) -> Result<u32, TargetProcessError> {
        let words = split_command(command);
        let program_name = words.first().copied().unwrap_or("");
        let failure = |errno: i32| {
            TargetProcessError::new(format!(
                "failed to execute {}: {}",
                program_name,
                errno_description(errno)
            ))
        };
        let search_path = std::env::var_os("PATH");
        let program_path =
            resolve_executable(program_name, search_path.as_deref()).map_err(failure)?;
        // Everything the child needs is built now: it may not allocate after fork.
        let program =
            CString::new(program_path.as_os_str().as_bytes()).map_err(|_| failure(libc::ENOENT))?;
        let arguments: Vec<CString> = words
            .iter()
            .map(|word| CString::new(*word))
            .collect::<Result<_, _>>()
            .map_err(|_| failure(libc::EINVAL))?;
        let mut argv: Vec<*const libc::c_char> =
            arguments.iter().map(|argument| argument.as_ptr()).collect();
        argv.push(std::ptr::null());
        let environment = self.environment.entries();
        let envp: Option<Vec<*const libc::c_char>> = environment.as_ref().map(|entries| {
            let mut envp: Vec<*const libc::c_char> =
                entries.iter().map(|entry| entry.as_ptr()).collect();
            envp.push(std::ptr::null());
            envp
        });
        let (status_read, status_write) = close_on_exec_pipe().map_err(failure)?;
        // SAFETY: the child only runs `run_traced_child`, which is async-signal-safe, and
        // never returns into Rust code.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(failure(last_errno()));
        }
        if pid == 0 {
            // SAFETY: we are the freshly forked child; the pointers stay valid until exec.
            unsafe {
                run_traced_child(
                    status_read.as_raw_fd(),
                    status_write.as_raw_fd(),
                    program.as_ptr(),
                    argv.as_ptr(),
                    envp.as_ref().map_or(std::ptr::null(), |envp| envp.as_ptr()),
                )
            }
        }
        drop(status_write);
        // The pipe closes at a successful exec; a failed one writes its errno first.
        let mut errno_bytes = [0u8; 4];
        if read_until_full_or_eof(status_read.as_raw_fd(), &mut errno_bytes) == errno_bytes.len() {
            let mut wait_status = 0;
            // SAFETY: reaping our own child, which exits right after reporting.
            unsafe { libc::waitpid(pid, &mut wait_status, 0) };
            return Err(failure(i32::from_ne_bytes(errno_bytes)));
        }
        let start = bring_traced_child_to_entry(pid).map_err(|error| {
            // SAFETY: killing and reaping our own child, which is of no use now.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            failure(error.raw_os_error().unwrap_or(libc::EIO))
        })?;
        let ended_before_entry = match start {
            TracedStart::StoppedAtEntry => None,
            TracedStart::Ended(wait_status) => Some(exit_status_of(wait_status)),
        };
        // A child that already ended has no pidfd; waitpid and `ended_before_entry`
        // then serve alone.
        let exit_watch = open_pidfd(pid).unwrap_or(None);
        self.targets.push(TargetProcess {
            pid,
            origin: TargetOrigin::Created {
                held: ended_before_entry.is_none(),
            },
            exit_watch,
            exited: false,
            ended_before_entry,
        });
        Ok(pid as u32)
    }

    /// `-p pid`: checks the argument (`invalid pid: TEXT`) and that the process exists
    /// (`failed to grab pid N: No such process`), and watches it. Returns the pid.
    pub fn grab(&mut self, pid_text: &str) -> Result<u32, TargetProcessError> {
        let value = parse_pid(pid_text)?;
        let no_such_process = || {
            TargetProcessError::new(format!(
                "failed to grab pid {}: {}",
                value,
                errno_description(libc::ESRCH)
            ))
        };
        let pid = match libc::pid_t::try_from(value) {
            Ok(pid) if pid > 0 => pid,
            _ => return Err(no_such_process()),
        };
        let exit_watch = match open_pidfd(pid) {
            Ok(watch) => watch,
            Err(_) => return Err(no_such_process()),
        };
        if exit_watch.is_none() && !process_exists(pid) {
            return Err(no_such_process());
        }
        self.targets.push(TargetProcess {
            pid,
            origin: TargetOrigin::Grabbed,
            exit_watch,
            exited: false,
            ended_before_entry: None,
        });
        Ok(pid as u32)
    }

    /// Whether there are no `-c`/`-p` processes.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// The pids, in the order the processes were created or grabbed.
    pub fn pids(&self) -> Vec<u32> {
        self.targets
            .iter()
            .map(|target| target.pid as u32)
            .collect()
    }

    /// `$target`: the pid of the first process, if any.
    pub fn target_pid(&self) -> Option<u32> {
        self.targets.first().map(|target| target.pid as u32)
    }

    /// Lets every held `-c` child run on from its entry point (dtrace does this once
    /// tracing has started). A child killed from outside while held is reported by
    /// [`TargetProcesses::poll_exits`] as usual.
    pub fn release(&mut self) {
        for target in &mut self.targets {
            if let TargetOrigin::Created { held } = &mut target.origin {
                if std::mem::take(held) {
                    release_traced_child(target.pid);
                }
            }
        }
    }

    /// The processes that ended since the last call, without blocking. Children are
    /// reaped. A process is reported once.
    pub fn poll_exits(&mut self) -> Vec<TargetExit> {
        self.targets
            .iter_mut()
            .filter_map(|target| {
                target.check_exit().map(|status| TargetExit {
                    pid: target.pid as u32,
                    status,
                })
            })
            .collect()
    }

    /// Like [`TargetProcesses::poll_exits`], but first waits up to `timeout` for some
    /// still-running process to end.
    pub fn wait_for_exits(&mut self, timeout: Duration) -> Vec<TargetExit> {
        let deadline = Instant::now() + timeout;
        loop {
            let exits = self.poll_exits();
            let now = Instant::now();
            if !exits.is_empty() || now >= deadline || self.all_exited() || self.targets.is_empty()
            {
                return exits;
            }
            let running: Vec<&TargetProcess> = self
                .targets
                .iter()
                .filter(|target| !target.exited)
                .collect();
            let mut entries: Vec<libc::pollfd> = running
                .iter()
                .filter_map(|target| target.exit_watch.as_ref())
                .map(|watch| libc::pollfd {
                    fd: watch.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            let mut wait = deadline - now;
            if entries.len() < running.len() {
                wait = wait.min(FALLBACK_POLL_INTERVAL);
            }
            let milliseconds = wait.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
            // SAFETY: `entries` is a valid array of pollfd of the given length.
            unsafe {
                libc::poll(
                    entries.as_mut_ptr(),
                    entries.len() as libc::nfds_t,
                    milliseconds,
                )
            };
        }
    }

    /// True when there are processes and all of them have been seen to exit (always
    /// false without processes). Call [`TargetProcesses::poll_exits`] to update.
    pub fn all_exited(&self) -> bool {
        !self.targets.is_empty() && self.targets.iter().all(|target| target.exited)
    }

    /// Kills (SIGKILL) and reaps every `-c` process still running or held, as dtrace
    /// does when it finishes before them. `-p` processes are left alone. Also done when
    /// the set is dropped.
    pub fn kill_created(&mut self) {
        for target in &mut self.targets {
            if target.exited || !target.is_created() {
                continue;
            }
            // SAFETY: the pid is our own unreaped child, so it cannot have been reused.
            unsafe {
                libc::kill(target.pid, libc::SIGKILL);
                let mut wait_status = 0;
                while libc::waitpid(target.pid, &mut wait_status, 0) < 0
                    && last_errno() == libc::EINTR
                {}
            }
            target.mark_exited();
        }
    }
}

impl Drop for TargetProcesses {
    fn drop(&mut self) {
        self.kill_created();
    }
}

/// The session's view of the target processes: each check reaps what exited and
/// reports the classic notice (`dtrace: pid N has exited`, …) unless `quiet`, to the
/// session's message sink.
pub struct TargetExitReporter<'t> {
    pub targets: &'t mut TargetProcesses,
    pub quiet: bool,
}

impl TargetWatch for TargetExitReporter<'_> {
    fn tracing_started(&mut self) -> Result<(), String> {
        self.targets.release();
        Ok(())
    }

    fn report_exits(&mut self, messages: &dyn MessageSink) -> bool {
        let exits = self.targets.poll_exits();
        if !self.quiet {
            for exit in exits {
                messages.message(&exit.notice());
            }
        }
        self.targets.all_exited()
    }

    fn watches_processes(&self) -> bool {
        !self.targets.is_empty()
    }
}
