//! The principal buffers: one `PERF_COUNT_SW_BPF_OUTPUT` event per CPU with its ring
//! mapped into the consumer, registered in the program's `BPF_MAP_TYPE_PERF_EVENT_ARRAY`
//! at that CPU's index so that `bpf_perf_event_output(ctx, map, BPF_F_CURRENT_CPU, …)`
//! writes there.
//!
//! The kernel reserves room for a whole sample before a program writes it, so records
//! are never torn, even when programs nest on one CPU; a sample that does not fit is not
//! written and counted, and the count reaches the reader as a `PERF_RECORD_LOST` record
//! before the next sample that fits. The reader loads `data_head` with acquire ordering
//! (the kernel's samples before it are then visible) and stores `data_tail` with release
//! ordering (the kernel may reuse the space only after the reader is done with it).
//!
//! Under the `ring` buffer policy the rings are overwritable instead: the events write
//! backward and are mapped read-only, so the kernel never runs out of room and replaces
//! the oldest samples; the reader pauses a ring, walks it from `data_head` (the newest
//! sample) to the oldest whole one, and resumes it. It remembers the head it read up to,
//! so that a later read returns only what was written since.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::buffer_size::{ring_data_size, LoweredSize, SizeOption};
use super::error::RuntimeError;
use super::perf_ring::{walk_overwritten_records, walk_records, PerfRecord, RingMemory};
use crate::sys::{
    online_cpus, perf_event_open_bpf_output, perf_event_open_bpf_output_overwritable,
    possible_cpu_count, MapFd, MapType, PerfEventFd, SysError, BPF_ANY,
};
use difvm::engine::BufferPolicy;

/// Offsets in `struct perf_event_mmap_page` (include/uapi/linux/perf_event.h).
const DATA_HEAD_OFFSET: usize = 1024;
const DATA_TAIL_OFFSET: usize = 1032;
const DATA_OFFSET_OFFSET: usize = 1040;
const DATA_SIZE_OFFSET: usize = 1048;

/// The system's page size, the unit of perf ring sizes.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 {
        size as usize
    } else {
        4096
    }
}

/// One CPU's mapped ring: the metadata page and `data_size` bytes of data.
struct MappedRing {
    base: NonNull<u8>,
    mapped_length: usize,
    data_offset: usize,
    data_size: usize,
}

// SAFETY: the mapping is shared memory reached only through raw pointers with atomic or
// byte-copy accesses; nothing in it is tied to the thread that mapped it.
unsafe impl Send for MappedRing {}

impl MappedRing {
    /// Maps the ring of `event`. A read-only mapping makes the kernel overwrite the oldest
    /// samples rather than drop new ones (the reader cannot move `data_tail`).
    fn map(
        event: &PerfEventFd,
        data_size: usize,
        overwritable: bool,
    ) -> Result<MappedRing, SysError> {
        let page = page_size();
        let mapped_length = page + data_size;
        let protection = if overwritable {
            libc::PROT_READ
        } else {
            libc::PROT_READ | libc::PROT_WRITE
        };
        // SAFETY: a fresh shared mapping of a perf event descriptor we own; the kernel
        // checks the length (one metadata page plus a power of two of data pages).
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped_length,
                protection,
                libc::MAP_SHARED,
                event.raw_fd(),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(SysError::last_os_error(format!(
                "mmap of a {data_size}-byte perf ring"
            )));
        }
        let base = NonNull::new(address.cast::<u8>())
            .ok_or_else(|| SysError::invalid("mmap of a perf ring", "null address"))?;
        let mut ring = MappedRing {
            base,
            mapped_length,
            data_offset: page,
            data_size,
        };
        // Kernels since 4.1 say where the data lives; older ones leave these zero.
        let offset = ring.metadata_u64(DATA_OFFSET_OFFSET) as usize;
        let size = ring.metadata_u64(DATA_SIZE_OFFSET) as usize;
        if offset != 0 && size != 0 && offset + size <= mapped_length {
            ring.data_offset = offset;
            ring.data_size = size;
        }
        Ok(ring)
    }

    fn metadata_atomic(&self, offset: usize) -> &AtomicU64 {
        // SAFETY: the offset lies in the first page, 8-byte aligned; the kernel and this
        // reader access these words only atomically.
        unsafe { AtomicU64::from_ptr(self.base.as_ptr().add(offset).cast()) }
    }

    fn metadata_u64(&self, offset: usize) -> u64 {
        self.metadata_atomic(offset).load(Ordering::Relaxed)
    }

    fn head(&self) -> u64 {
        self.metadata_atomic(DATA_HEAD_OFFSET)
            .load(Ordering::Acquire)
    }

    fn tail(&self) -> u64 {
        self.metadata_atomic(DATA_TAIL_OFFSET)
            .load(Ordering::Relaxed)
    }

    fn set_tail(&self, tail: u64) {
        self.metadata_atomic(DATA_TAIL_OFFSET)
            .store(tail, Ordering::Release);
    }
}

impl RingMemory for MappedRing {
    fn size(&self) -> usize {
        self.data_size
    }

    fn copy_out(&self, offset: usize, destination: &mut [u8]) {
        if offset + destination.len() > self.data_size {
            return;
        }
        // SAFETY: in bounds of the data area; the bytes between tail and head are not
        // written by the kernel until the tail moves past them, and an overwritable ring
        // is paused while it is read. Either way the copy is of plain bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.base.as_ptr().add(self.data_offset + offset),
                destination.as_mut_ptr(),
                destination.len(),
            );
        }
    }
}

impl Drop for MappedRing {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what `map` mapped; no references into it remain.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.mapped_length);
        }
    }
}

struct CpuRing {
    cpu: u32,
    ring: MappedRing,
    /// Declared after the ring so that the mapping goes first (either order is valid).
    event: PerfEventFd,
    /// For an overwritable ring, the head the last read started from: the next read
    /// stops there. The kernel's head starts at 0.
    read_head: u64,
    lost: u64,
    malformed: u64,
}

/// What one CPU's ring produced during a drain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferEvent<'a> {
    /// One sample as the program wrote it, plus up to 7 bytes of the kernel's padding.
    Sample(&'a [u8]),
    /// The kernel reports this many samples lost for lack of room.
    Lost(u64),
}

/// The principal buffers of every CPU.
pub struct PerfBufferSet {
    rings: Vec<CpuRing>,
    /// The perf event array. The kernel empties its slots when the descriptor through
    /// which they were filled closes, so the set keeps it for as long as the rings live.
    map: MapFd,
    epoll: OwnedFd,
    policy: BufferPolicy,
    requested_size: u64,
    granted_size: u64,
    scratch: Vec<u8>,
}

impl std::fmt::Debug for PerfBufferSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerfBufferSet")
            .field("cpus", &self.cpus())
            .field("granted_size", &self.granted_size)
            .field("policy", &self.policy)
            .finish()
    }
}

impl PerfBufferSet {
    /// Opens a ring of about `requested_size` bytes (rounded down to a power of two pages)
    /// on every online CPU and stores each event in `map` (a `PERF_EVENT_ARRAY` with a slot
    /// per possible CPU) at its CPU's index. When the kernel refuses the memory, the size
    /// is halved until it fits (`bufresize=auto`). The set keeps `map`: its slots stay
    /// filled only while the descriptor that filled them is open. The rings are those of
    /// the `switch` policy.
    pub fn open(map: MapFd, requested_size: u64) -> Result<PerfBufferSet, RuntimeError> {
        PerfBufferSet::open_with_policy(map, requested_size, BufferPolicy::Switch)
    }

    /// As [`PerfBufferSet::open`], with rings suited to `policy`: overwritable ones for
    /// `ring`, which wake no reader; the others wake a waiting reader when a quarter full.
    pub fn open_with_policy(
        map: MapFd,
        requested_size: u64,
        policy: BufferPolicy,
    ) -> Result<PerfBufferSet, RuntimeError> {
        let definition = map.definition();
        if definition.map_type != MapType::PerfEventArray {
            return Err(RuntimeError::invalid(
                "opening the principal buffers",
                format!("map {:?} is not a perf event array", definition.name),
            ));
        }
        let possible = possible_cpu_count()? as u32;
        if definition.max_entries < possible {
            return Err(RuntimeError::invalid(
                "opening the principal buffers",
                format!(
                    "map {:?} has {} slots for {possible} possible CPUs",
                    definition.name, definition.max_entries
                ),
            ));
        }
        let page = page_size() as u64;
        let mut data_size = ring_data_size(requested_size, page);
        loop {
            match PerfBufferSet::open_sized(&map, data_size, policy) {
                Ok(rings) => {
                    // SAFETY: epoll_create1 takes no pointers.
                    let epoll = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
                    if epoll < 0 {
                        return Err(SysError::last_os_error("epoll_create1").into());
                    }
                    // SAFETY: a descriptor the kernel just returned to us.
                    let epoll = unsafe { OwnedFd::from_raw_fd(epoll) };
                    // Overwritable rings are read only at the end, so waiting on them
                    // would only wake the reader for nothing; `wait` then just sleeps.
                    let waited_on = if policy == BufferPolicy::Ring {
                        &rings[..0]
                    } else {
                        &rings[..]
                    };
                    for (index, ring) in waited_on.iter().enumerate() {
                        let mut event = libc::epoll_event {
                            events: libc::EPOLLIN as u32,
                            u64: index as u64,
                        };
                        // SAFETY: both descriptors are ours; `event` is a valid epoll_event.
                        let result = unsafe {
                            libc::epoll_ctl(
                                epoll.as_raw_fd(),
                                libc::EPOLL_CTL_ADD,
                                ring.event.raw_fd(),
                                &mut event,
                            )
                        };
                        if result < 0 {
                            return Err(SysError::last_os_error(format!(
                                "epoll_ctl(EPOLL_CTL_ADD) of the buffer of CPU {}",
                                ring.cpu
                            ))
                            .into());
                        }
                    }
                    return Ok(PerfBufferSet {
                        rings,
                        map,
                        epoll,
                        policy,
                        requested_size,
                        granted_size: data_size,
                        scratch: Vec::new(),
                    });
                }
                Err(error)
                    if matches!(
                        error.errno(),
                        Some(libc::ENOMEM) | Some(libc::EPERM) | Some(libc::ENOSPC)
                    ) && data_size > page =>
                {
                    data_size /= 2;
                }
                Err(error) => return Err(error.into()),
            }
        }
    }

    fn open_sized(
        map: &MapFd,
        data_size: u64,
        policy: BufferPolicy,
    ) -> Result<Vec<CpuRing>, SysError> {
        let mut rings = Vec::new();
        let data_size = usize::try_from(data_size)
            .map_err(|_| SysError::invalid("sizing the principal buffers", "too large"))?;
        // Wake a waiting reader when a ring is a quarter full (half of `bufsize`: the
        // session's rings hold twice that, see `buffer_size`); otherwise it reads at its own
        // pace (`switchrate`).
        let watermark = u32::try_from(data_size / 4).unwrap_or(u32::MAX);
        let overwritable = policy == BufferPolicy::Ring;
        for cpu in online_cpus()? {
            let event = if overwritable {
                perf_event_open_bpf_output_overwritable(cpu)?
            } else {
                perf_event_open_bpf_output(cpu, watermark)?
            };
            let ring = MappedRing::map(&event, data_size, overwritable)?;
            map.update(
                &cpu.to_ne_bytes(),
                &(event.raw_fd() as u32).to_ne_bytes(),
                BPF_ANY,
            )?;
            rings.push(CpuRing {
                cpu,
                ring,
                event,
                read_head: 0,
                lost: 0,
                malformed: 0,
            });
        }
        Ok(rings)
    }

    /// The perf event array programs write to (`bpf_perf_event_output`'s map argument).
    pub fn map(&self) -> &MapFd {
        &self.map
    }

    /// The CPUs that have a buffer, in order.
    pub fn cpus(&self) -> Vec<u32> {
        self.rings.iter().map(|ring| ring.cpu).collect()
    }

    /// The buffer policy the rings were opened for.
    pub fn policy(&self) -> BufferPolicy {
        self.policy
    }

    /// The per-CPU size asked for.
    pub fn requested_size(&self) -> u64 {
        self.requested_size
    }

    /// The per-CPU size of each ring's data area.
    pub fn granted_size(&self) -> u64 {
        self.granted_size
    }

    /// The buffer size, when the rings are smaller than `bufsize`.
    pub fn lowered_size(&self) -> Option<LoweredSize> {
        LoweredSize::new(
            SizeOption::BufferSize,
            self.requested_size,
            self.granted_size,
        )
    }

    /// Waits up to `timeout` until some ring is at least a quarter full (or `timeout` passes);
    /// true when woken by a ring. Interrupted waits return false.
    pub fn wait(&self, timeout: Duration) -> Result<bool, RuntimeError> {
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; 8];
        let milliseconds = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: `events` has room for the number of events given.
        let ready = unsafe {
            libc::epoll_wait(
                self.epoll.as_raw_fd(),
                events.as_mut_ptr(),
                events.len() as i32,
                milliseconds,
            )
        };
        if ready < 0 {
            let error = SysError::last_os_error("epoll_wait on the principal buffers");
            if error.errno() == Some(libc::EINTR) {
                return Ok(false);
            }
            return Err(error.into());
        }
        Ok(ready > 0)
    }

    /// Reads everything the rings hold now, CPU by CPU, handing each sample and each lost
    /// count to `sink` with its CPU, and frees the space for the kernel. An overwritable
    /// ring (`ring` policy) is paused while it is read and hands over, oldest first, the
    /// whole samples it still holds among those written since the previous read.
    pub fn drain(&mut self, sink: &mut dyn FnMut(u32, BufferEvent<'_>)) {
        let overwritable = self.policy == BufferPolicy::Ring;
        for ring in &mut self.rings {
            let cpu = ring.cpu;
            let mut lost = 0;
            let mut malformed = 0;
            let mut deliver = |record: PerfRecord<'_>| match record {
                PerfRecord::Sample(data) => sink(cpu, BufferEvent::Sample(data)),
                PerfRecord::Lost(count) => {
                    lost += count;
                    sink(cpu, BufferEvent::Lost(count));
                }
                PerfRecord::Other { .. } => {}
                PerfRecord::Malformed { .. } => malformed += 1,
            };
            if overwritable {
                let head = ring.ring.head();
                if head == ring.read_head {
                    continue;
                }
                // A failed pause leaves the ring writable during the walk; the session
                // reads these rings only once its probes are detached, so nothing writes
                // them then anyway.
                let paused = ring.event.pause_output(true).is_ok();
                let head = ring.ring.head();
                walk_overwritten_records(
                    &ring.ring,
                    head,
                    ring.read_head,
                    &mut self.scratch,
                    &mut deliver,
                );
                ring.read_head = head;
                if paused {
                    let _ = ring.event.pause_output(false);
                }
            } else {
                let head = ring.ring.head();
                let tail = ring.ring.tail();
                if head == tail {
                    continue;
                }
                let new_tail =
                    walk_records(&ring.ring, tail, head, &mut self.scratch, &mut deliver);
                ring.ring.set_tail(new_tail);
            }
            ring.lost += lost;
            ring.malformed += malformed;
        }
    }

    /// Samples each CPU's kernel has reported lost so far, by CPU.
    pub fn lost_counts(&self) -> Vec<(u32, u64)> {
        self.rings
            .iter()
            .map(|ring| (ring.cpu, ring.lost))
            .collect()
    }

    /// Rings abandoned past a malformed record (never expected; counted, not hidden).
    pub fn malformed_count(&self) -> u64 {
        self.rings.iter().map(|ring| ring.malformed).sum()
    }
}
