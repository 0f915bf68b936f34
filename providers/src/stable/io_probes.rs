//! The io provider's probes (PROVIDERS-REFERENCE §5): block I/O submission and
//! completion on the block layer's raw tracepoints, described by `bufinfo_t`,
//! `devinfo_t` and `fileinfo_t` (always the NULL file on Linux, as in Oracle's DTrace).

use super::ProbeSource::RawTracepoint;
use super::Translation::To;
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

pub(crate) const IO_PROBES: &[StableProbe] = &[
    StableProbe {
        // A request completes (blk-mq devices; its first bio would miss merged ones).
        name: "done",
        function: "",
        source: RawTracepoint("block_rq_complete"),
        guard: None,
        arguments: io_arguments!("struct request *", "(struct request *)arg0"),
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
