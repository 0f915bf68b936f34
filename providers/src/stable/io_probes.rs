//! The io provider's probes (PROVIDERS-REFERENCE §5): block I/O submission and
//! completion on the block layer's raw tracepoints, described by `bufinfo_t`,
//! `devinfo_t` and `fileinfo_t` (always the NULL file on Linux, as in Oracle's DTrace).

use super::ProbeSource::RawTracepoint;
use super::Translation::{To, ToFrom};
use super::{StableArgument, StableProbe};

/// `bufinfo_t *`, `devinfo_t *` and `fileinfo_t *` of the I/O at `value` (a
/// `struct bio *` or `struct request *` expression of type `native_type`).
macro_rules! io_arguments {
    ($native_type:expr, $value:expr) => {
        &[
            StableArgument {
                native_type: $native_type,
                value: $value,
                translation: To("bufinfo_t *"),
            },
            StableArgument {
                native_type: $native_type,
                value: $value,
                translation: To("devinfo_t *"),
            },
            StableArgument {
                native_type: "struct file *",
                value: "(struct file *)0",
                translation: To("fileinfo_t *"),
            },
        ]
    };
}

/// `io:::done`'s arguments: `arg0` and `arg1` are the request's first bio (NULL for a
/// flush), so that the key `io:::start`'s `arg0` gave finds its completion
/// (`start[arg0] = timestamp` … `io:::done /start[arg0]/`), as in Oracle's DTrace;
/// `args[0]` and `args[1]` describe the whole request, merged bios included.
const DONE_ARGUMENTS: &[StableArgument] = &[
    StableArgument {
        native_type: "struct bio *",
        value: "((struct request *)arg0)->bio",
        translation: ToFrom {
            translated_type: "bufinfo_t *",
            native_type: "struct request *",
            value: "(struct request *)arg0",
        },
    },
    StableArgument {
        native_type: "struct bio *",
        value: "((struct request *)arg0)->bio",
        translation: ToFrom {
            translated_type: "devinfo_t *",
            native_type: "struct request *",
            value: "(struct request *)arg0",
        },
    },
    StableArgument {
        native_type: "struct file *",
        value: "(struct file *)0",
        translation: To("fileinfo_t *"),
    },
];

pub(crate) const IO_PROBES: &[StableProbe] = &[
    StableProbe {
        // A request completes (blk-mq devices; its first bio would miss merged ones).
        name: "done",
        function: "",
        source: RawTracepoint("block_rq_complete"),
        guard: None,
        arguments: DONE_ARGUMENTS,
        subject_task_argument: None,
    },
    StableProbe {
        name: "start",
        function: "",
        source: RawTracepoint("block_bio_queue"),
        guard: None,
        arguments: io_arguments!("struct bio *", "(struct bio *)arg0"),
        subject_task_argument: None,
    },
];
