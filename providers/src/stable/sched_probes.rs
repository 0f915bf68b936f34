//! The sched provider's probes (PROVIDERS-REFERENCE §4): context switches, wakeups,
//! yields, the scheduler tick and priority changes on the scheduler's and timers' raw
//! tracepoints; run-queue enqueue and dequeue on kernel functions where kprobes exist:
//! the fair class's `enqueue_task_fair`/`dequeue_task_fair`, which the scheduler calls
//! through its class table and so are never inlined (`activate_task` is, within the
//! scheduler's core), so real-time and deadline threads are not seen.
//! `on-cpu` fires at `sched_switch` about the thread being switched in, whose task the
//! probe's built-ins describe (`subject_task_argument`).

use super::ProbeSource::{KernelFunction, RawTracepoint, Syscall};
use super::Translation::{Native, To};
use super::{StableArgument, StableProbe};

/// The thread a probe is about, as `lwpsinfo_t *` and `psinfo_t *`, from the D
/// expression `task` of its `struct task_struct *`.
macro_rules! thread_arguments {
    ($task:expr) => {
        &[
            StableArgument {
                native_type: "struct task_struct *",
                value: $task,
                translation: To("lwpsinfo_t *"),
            },
            StableArgument {
                native_type: "struct task_struct *",
                value: $task,
                translation: To("psinfo_t *"),
            },
        ]
    };
}

pub(crate) const SCHED_PROBES: &[StableProbe] = &[
    StableProbe {
        name: "change-pri",
        function: "",
        source: RawTracepoint("sched_pi_setprio"),
        guard: None,
        arguments: &[
            StableArgument {
                native_type: "struct task_struct *",
                value: "(struct task_struct *)arg0",
                translation: To("lwpsinfo_t *"),
            },
            StableArgument {
                native_type: "struct task_struct *",
                value: "(struct task_struct *)arg0",
                translation: To("psinfo_t *"),
            },
            // The priority the task gets: the boosting task's when it is stronger.
            StableArgument {
                native_type: "int",
                value: "arg1 != 0 && ((struct task_struct *)arg1)->prio < ((struct task_struct *)arg0)->normal_prio ? ((struct task_struct *)arg1)->prio : ((struct task_struct *)arg0)->normal_prio",
                translation: Native,
            },
        ],
        subject_task_argument: None,
    },
    StableProbe {
        name: "dequeue",
        function: "",
        source: KernelFunction("dequeue_task_fair"),
        guard: None,
        arguments: thread_arguments!("(struct task_struct *)arg1"),
        subject_task_argument: None,
    },
    StableProbe {
        name: "enqueue",
        function: "",
        source: KernelFunction("enqueue_task_fair"),
        guard: None,
        arguments: thread_arguments!("(struct task_struct *)arg1"),
        subject_task_argument: None,
    },
    StableProbe {
        name: "off-cpu",
        function: "",
        source: RawTracepoint("sched_switch"),
        guard: None,
        // The thread about to run: sched_switch's `next`.
        arguments: thread_arguments!("(struct task_struct *)arg2"),
        subject_task_argument: None,
    },
    StableProbe {
        name: "on-cpu",
        function: "",
        // No tracepoint runs in the incoming thread right after the switch: the probe
        // fires at sched_switch, as the previous thread leaves the CPU, with every
        // thread built-in bound to `next` (PROVIDERS-REFERENCE §4.2).
        source: RawTracepoint("sched_switch"),
        guard: None,
        arguments: &[],
        subject_task_argument: Some(2),
    },
    StableProbe {
        name: "preempt",
        function: "",
        source: RawTracepoint("sched_switch"),
        guard: Some("arg0 != 0"),
        arguments: &[],
        subject_task_argument: None,
    },
    StableProbe {
        name: "sleep",
        function: "",
        source: RawTracepoint("sched_switch"),
        // The thread leaves the CPU to wait (not preempted, not runnable).
        guard: Some("arg0 == 0 && (arg3 & 0xff) != 0"),
        arguments: &[],
        subject_task_argument: None,
    },
    StableProbe {
        name: "surrender",
        function: "",
        source: Syscall {
            function: "sched_yield",
            is_return: false,
        },
        guard: None,
        arguments: thread_arguments!("curthread"),
        subject_task_argument: None,
    },
    StableProbe {
        name: "tick",
        function: "",
        source: RawTracepoint("hrtimer_expire_entry"),
        guard: Some("(uintptr_t)((struct hrtimer *)arg0)->function == {tick_handler}"),
        // The thread the tick interrupted.
        arguments: thread_arguments!("curthread"),
        subject_task_argument: None,
    },
    StableProbe {
        name: "wakeup",
        function: "",
        // sched_waking runs in the waker's context (sched_wakeup may run on the
        // target CPU), as DTrace's wakeup does.
        source: RawTracepoint("sched_waking"),
        guard: None,
        arguments: thread_arguments!("(struct task_struct *)arg0"),
        subject_task_argument: None,
    },
    StableProbe {
        name: "wakeup",
        // A new task's first wakeup (wake_up_new_task) has no sched_waking.
        function: "sched_wakeup_new",
        source: RawTracepoint("sched_wakeup_new"),
        guard: None,
        arguments: thread_arguments!("(struct task_struct *)arg0"),
        subject_task_argument: None,
    },
];
