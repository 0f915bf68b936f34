//! The proc provider's probes (PROVIDERS-REFERENCE §3): process and thread creation,
//! exec, exit and signals, on the scheduler's and the signal code's raw tracepoints and
//! on system call probes.

use super::ProbeSource::{RawTracepoint, Syscall};
use super::Translation::{Native, To, UserString};
use super::{StableArgument, StableProbe};

/// `sched_process_fork`'s child, the new process or thread.
const FORK_CHILD: &str = "(struct task_struct *)arg1";
/// `signal_generate`'s target task.
const SIGNAL_TARGET: &str = "(struct task_struct *)arg2";

const CHILD_PROCESS: &[StableArgument] = &[StableArgument {
    native_type: "struct task_struct *",
    value: FORK_CHILD,
    translation: To("psinfo_t *"),
}];

const CHILD_THREAD: &[StableArgument] = &[
    StableArgument {
        native_type: "struct task_struct *",
        value: FORK_CHILD,
        translation: To("lwpsinfo_t *"),
    },
    StableArgument {
        native_type: "struct task_struct *",
        value: FORK_CHILD,
        translation: To("psinfo_t *"),
    },
];

/// `signal_generate`'s target and signal (`sig` is its raw argument 0; Oracle's
/// `signal-discard` took the result code by mistake, PROVIDERS-REFERENCE §3.2).
const SIGNAL_TARGET_AND_NUMBER: &[StableArgument] = &[
    StableArgument {
        native_type: "struct task_struct *",
        value: SIGNAL_TARGET,
        translation: To("lwpsinfo_t *"),
    },
    StableArgument {
        native_type: "struct task_struct *",
        value: SIGNAL_TARGET,
        translation: To("psinfo_t *"),
    },
    StableArgument {
        native_type: "int",
        value: "arg0",
        translation: Native,
    },
];

/// The raw `sys_enter`/`sys_exit` tracepoints' syscall number: `sys_enter` passes it
/// as argument 1, `sys_exit` only in the registers' `orig_ax`. execve is 59, execveat
/// 322.
const EXEC_ENTERED: &str = "arg1 == 59 || arg1 == 322";
const EXEC_FAILED: &str = "arg1 != 0 && (((struct pt_regs *)arg0)->orig_ax == 59 || ((struct pt_regs *)arg0)->orig_ax == 322)";

/// `start`: a new process's first return to user space, from clone (56), fork (57),
/// vfork (58) or clone3 (435), which returns 0 in the child. Kernel threads never
/// return there and are missed: exact behaviour needs kprobes on `schedule_tail`.
const PROCESS_STARTED: &str = "pid == tid && arg1 == 0 && (((struct pt_regs *)arg0)->orig_ax == 56 || ((struct pt_regs *)arg0)->orig_ax == 57 || ((struct pt_regs *)arg0)->orig_ax == 58 || ((struct pt_regs *)arg0)->orig_ax == 435)";
/// `lwp-start`: a new thread's first return to user space (threads come from clone and
/// clone3 only).
const THREAD_STARTED: &str = "pid != tid && arg1 == 0 && (((struct pt_regs *)arg0)->orig_ax == 56 || ((struct pt_regs *)arg0)->orig_ax == 435)";

pub(crate) const PROC_PROBES: &[StableProbe] = &[
    StableProbe {
        name: "create",
        function: "",
        source: RawTracepoint("sched_process_fork"),
        guard: Some("((struct task_struct *)arg1)->pid == ((struct task_struct *)arg1)->tgid"),
        arguments: CHILD_PROCESS,
        subject_task_argument: None,
    },
    StableProbe {
        name: "exec",
        function: "",
        source: RawTracepoint("sys_enter"),
        guard: Some(EXEC_ENTERED),
        arguments: &[StableArgument {
            native_type: "uintptr_t",
            // execveat(dirfd, path, …) has the path second.
            value: "arg1 == 322 ? ((struct pt_regs *)arg0)->si : ((struct pt_regs *)arg0)->di",
            translation: UserString,
        }],
        subject_task_argument: None,
    },
    StableProbe {
        name: "exec-failure",
        function: "",
        source: RawTracepoint("sys_exit"),
        guard: Some(EXEC_FAILED),
        arguments: &[StableArgument {
            native_type: "int",
            value: "arg1",
            translation: Native,
        }],
        subject_task_argument: None,
    },
    StableProbe {
        name: "exec-success",
        function: "",
        source: RawTracepoint("sched_process_exec"),
        guard: None,
        arguments: &[],
        subject_task_argument: None,
    },
    StableProbe {
        name: "exit",
        function: "",
        source: RawTracepoint("sched_process_exit"),
        // The last thread of the process: do_exit has counted it out of `live`.
        guard: Some("((struct task_struct *)arg0)->signal->live.counter == 0"),
        arguments: &[StableArgument {
            native_type: "int",
            value: "(((struct task_struct *)arg0)->exit_code & 0x7f) == 0 ? 1 : (((struct task_struct *)arg0)->exit_code & 0x80) != 0 ? 3 : 2",
            translation: Native,
        }],
        subject_task_argument: None,
    },
    StableProbe {
        name: "lwp-create",
        function: "",
        source: RawTracepoint("sched_process_fork"),
        guard: Some("((struct task_struct *)arg1)->pid != ((struct task_struct *)arg1)->tgid"),
        arguments: CHILD_THREAD,
        subject_task_argument: None,
    },
    StableProbe {
        name: "lwp-exit",
        function: "",
        source: RawTracepoint("sched_process_exit"),
        guard: None,
        arguments: &[],
        subject_task_argument: None,
    },
    StableProbe {
        name: "lwp-start",
        function: "",
        source: RawTracepoint("sys_exit"),
        guard: Some(THREAD_STARTED),
        arguments: &[],
        subject_task_argument: None,
    },
    StableProbe {
        name: "signal-clear",
        function: "",
        source: Syscall {
            function: "rt_sigtimedwait",
            is_return: true,
        },
        guard: Some("arg0 > 0"),
        arguments: &[StableArgument {
            native_type: "int",
            value: "arg0",
            translation: Native,
        }],
        subject_task_argument: None,
    },
    StableProbe {
        name: "signal-discard",
        function: "",
        source: RawTracepoint("signal_generate"),
        // TRACE_SIGNAL_IGNORED.
        guard: Some("arg4 == 1"),
        arguments: SIGNAL_TARGET_AND_NUMBER,
        subject_task_argument: None,
    },
    StableProbe {
        name: "signal-handle",
        function: "",
        source: RawTracepoint("signal_deliver"),
        guard: None,
        arguments: &[
            StableArgument {
                native_type: "int",
                value: "arg0",
                translation: Native,
            },
            StableArgument {
                native_type: "struct kernel_siginfo *",
                value: "arg1",
                translation: Native,
            },
            StableArgument {
                native_type: "uintptr_t",
                value: "(uintptr_t)((struct k_sigaction *)arg2)->sa.sa_handler",
                translation: Native,
            },
        ],
        subject_task_argument: None,
    },
    StableProbe {
        name: "signal-send",
        function: "",
        source: RawTracepoint("signal_generate"),
        // TRACE_SIGNAL_DELIVERED or TRACE_SIGNAL_LOSE_INFO: something was queued.
        guard: Some("arg4 == 0 || arg4 == 4"),
        arguments: SIGNAL_TARGET_AND_NUMBER,
        subject_task_argument: None,
    },
    StableProbe {
        name: "start",
        function: "",
        source: RawTracepoint("sys_exit"),
        guard: Some(PROCESS_STARTED),
        arguments: &[],
        subject_task_argument: None,
    },
];
