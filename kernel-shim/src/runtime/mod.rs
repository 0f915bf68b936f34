//! The kernel engine's runtime: principal buffers (perf rings), probe attachment, and the
//! session that creates a program's maps, loads and attaches its probe programs, fires
//! BEGIN and END, and drains records, aggregations and drop counters for the consumer.

pub mod aggregation_snapshot;
pub mod artificial_frames;
pub mod attach;
pub mod buffer_size;
pub mod error;
pub mod markers;
pub mod parallel_load;
pub mod perf_buffer;
pub mod perf_ring;
pub mod probe_plan;
pub mod records;
pub mod return_exits;
pub mod session;
pub mod syscall_dispatch;

pub use attach::{attach, AttachTarget, Attachment, ClockCpus};
pub use buffer_size::{ring_data_size, LoweredSize, SizeOption};
pub use error::RuntimeError;
pub use markers::Marker;
pub use perf_buffer::{BufferEvent, PerfBufferSet};
pub use perf_ring::{
    walk_overwritten_records, walk_records, PerfRecord, RingMemory, LARGEST_SAMPLE_RECORD,
};
pub use probe_plan::{ProbeInstrumentation, ProbePlan};
pub use session::{RuntimeOptions, RuntimeSession};
pub use syscall_dispatch::SyscallDispatch;
