//! The record format of a perf ring buffer (the data pages after `perf_event_mmap_page`)
//! and the two walks over it, wrap-around included: forward from the reader's tail to the
//! kernel's head (a ring the reader frees as it goes), and from the head of an
//! overwritable ring written backward to the oldest record still whole in it.
//!
//! The walks are separate from the mapping so that they can be tested on ordinary memory:
//! a `RingMemory` copies bytes out of the ring at a position taken modulo its size.

/// `perf_event_header.type` of a sample (`PERF_RECORD_SAMPLE`).
pub const PERF_RECORD_SAMPLE: u32 = 9;
/// `perf_event_header.type` of a lost-samples report (`PERF_RECORD_LOST`).
pub const PERF_RECORD_LOST: u32 = 2;
/// Size of `struct perf_event_header` (u32 type, u16 misc, u16 size).
pub const PERF_EVENT_HEADER_SIZE: usize = 8;
/// The longest record that reaches the consumer as one sample: a sample's size is the
/// 16-bit `size` of its header (header, raw size word, raw bytes and padding), so
/// `bpf_perf_event_output` cannot carry much more than 64 KiB. Measured on Linux 6.18,
/// 65,512 bytes arrive whole and 65,516 do not.
pub const LARGEST_SAMPLE_RECORD: u64 = 65_512;

/// One record of the ring, as the reader hands it on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerfRecord<'a> {
    /// A `PERF_SAMPLE_RAW` sample: the bytes `bpf_perf_event_output` wrote, followed by
    /// the kernel's padding to the next 8-byte boundary (at most 7 bytes).
    Sample(&'a [u8]),
    /// The kernel could not store this many samples for lack of room.
    Lost(u64),
    /// A record type the runtime does not use (it never asks for any).
    Other { record_type: u32 },
    /// A record too short for its type: the ring cannot be trusted past it.
    Malformed { record_type: u32, size: usize },
}

/// Ring data that can be copied out by position.
pub trait RingMemory {
    /// The size of the data area in bytes (a power of two).
    fn size(&self) -> usize;
    /// Copies `destination.len()` bytes starting at `offset` (< `size()`), not wrapping.
    fn copy_out(&self, offset: usize, destination: &mut [u8]);
}

impl RingMemory for Vec<u8> {
    fn size(&self) -> usize {
        self.len()
    }

    fn copy_out(&self, offset: usize, destination: &mut [u8]) {
        destination.copy_from_slice(&self[offset..offset + destination.len()]);
    }
}

/// Copies `destination.len()` bytes from ring position `position`, wrapping at the end of
/// the data area.
fn copy_wrapped(ring: &dyn RingMemory, position: u64, destination: &mut [u8]) {
    let size = ring.size();
    let offset = (position % size as u64) as usize;
    let first = destination.len().min(size - offset);
    let (head, tail) = destination.split_at_mut(first);
    ring.copy_out(offset, head);
    if !tail.is_empty() {
        ring.copy_out(0, tail);
    }
}

/// Hands every complete record between `tail` and `head` to `sink`, in ring order, using
/// `scratch` to reassemble records that wrap. Returns the new tail: `head`, or the position
/// of a malformed record after which nothing can be read (reported to `sink` as such).
pub fn walk_records(
    ring: &dyn RingMemory,
    tail: u64,
    head: u64,
    scratch: &mut Vec<u8>,
    sink: &mut dyn FnMut(PerfRecord<'_>),
) -> u64 {
    let mut position = tail;
    let size = ring.size() as u64;
    while position < head {
        let available = head - position;
        if available < PERF_EVENT_HEADER_SIZE as u64 {
            sink(PerfRecord::Malformed {
                record_type: 0,
                size: available as usize,
            });
            return head;
        }
        let (record_type, record_size) = read_header(ring, position);
        if record_size < PERF_EVENT_HEADER_SIZE
            || record_size as u64 > available
            || record_size as u64 > size
        {
            sink(PerfRecord::Malformed {
                record_type,
                size: record_size,
            });
            return head;
        }
        scratch.clear();
        scratch.resize(record_size, 0);
        copy_wrapped(ring, position, scratch);
        let record = parse_record(record_type, scratch);
        let malformed = matches!(record, PerfRecord::Malformed { .. });
        sink(record);
        if malformed {
            return head;
        }
        position += record_size as u64;
    }
    position
}

/// Reads a record's type and size from the header at `position`.
fn read_header(ring: &dyn RingMemory, position: u64) -> (u32, usize) {
    let mut header = [0u8; PERF_EVENT_HEADER_SIZE];
    copy_wrapped(ring, position, &mut header);
    let record_type = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
    let record_size = u16::from_le_bytes([header[6], header[7]]) as usize;
    (record_type, record_size)
}

/// Interprets a whole record (header included) of type `record_type`.
fn parse_record(record_type: u32, record: &[u8]) -> PerfRecord<'_> {
    let record_size = record.len();
    let body = &record[PERF_EVENT_HEADER_SIZE.min(record_size)..];
    let malformed = PerfRecord::Malformed {
        record_type,
        size: record_size,
    };
    match record_type {
        PERF_RECORD_SAMPLE => {
            let Some(length) = body.get(..4) else {
                return malformed;
            };
            let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]) as usize;
            match body.get(4..4 + length) {
                Some(data) => PerfRecord::Sample(data),
                None => malformed,
            }
        }
        // struct { header; u64 id; u64 lost; } (no sample_id: the runtime never asks).
        PERF_RECORD_LOST => match body.get(8..16) {
            Some(lost) => PerfRecord::Lost(u64::from_le_bytes(lost.try_into().unwrap_or([0; 8]))),
            None => malformed,
        },
        other => PerfRecord::Other { record_type: other },
    }
}

/// Hands the records of an overwritable ring that the kernel writes backward to `sink`,
/// oldest first, using `scratch` for their bytes. The kernel's `data_head` starts at 0
/// and goes down by each record's size, so the newest record starts at `head` and each
/// record is followed by the one written before it. The walk covers the stream from
/// `head` up to `limit` (the head of the previous walk, or 0 for the first one), or the
/// ring's size when more than that was written: the record that straddles the ring's size
/// from `head` has had its end overwritten by the newest records and is left out, as is
/// anything after it. Returns the number of bytes of whole records walked. Positions wrap
/// around 2⁶⁴ like the kernel's.
///
/// The kernel must not write the ring during the walk (`PERF_EVENT_IOC_PAUSE_OUTPUT`).
pub fn walk_overwritten_records(
    ring: &dyn RingMemory,
    head: u64,
    limit: u64,
    scratch: &mut Vec<u8>,
    sink: &mut dyn FnMut(PerfRecord<'_>),
) -> u64 {
    let size = ring.size() as u64;
    let written = limit.wrapping_sub(head);
    let window = written.min(size);
    // The records' offsets from `head`, newest first; the walk ends at the first header
    // that is not whole in the window, or at a size of zero (never-written memory).
    let mut offsets = Vec::new();
    let mut offset = 0u64;
    while window - offset >= PERF_EVENT_HEADER_SIZE as u64 {
        let (_, record_size) = read_header(ring, head.wrapping_add(offset));
        if record_size < PERF_EVENT_HEADER_SIZE || record_size as u64 > window - offset {
            break;
        }
        offsets.push((offset, record_size));
        offset += record_size as u64;
    }
    for &(offset, record_size) in offsets.iter().rev() {
        scratch.clear();
        scratch.resize(record_size, 0);
        copy_wrapped(ring, head.wrapping_add(offset), scratch);
        let record_type = u32::from_le_bytes([scratch[0], scratch[1], scratch[2], scratch[3]]);
        sink(parse_record(record_type, scratch));
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a sample record as the kernel lays it out: header, u32 raw size, raw data
    /// padded so that the whole record is a multiple of 8 bytes.
    fn sample(data: &[u8]) -> Vec<u8> {
        let raw_size = (data.len() + 4).div_ceil(8) * 8 - 4;
        let total = PERF_EVENT_HEADER_SIZE + 4 + raw_size;
        let mut record = Vec::new();
        record.extend_from_slice(&PERF_RECORD_SAMPLE.to_le_bytes());
        record.extend_from_slice(&0u16.to_le_bytes());
        record.extend_from_slice(&(total as u16).to_le_bytes());
        record.extend_from_slice(&(raw_size as u32).to_le_bytes());
        record.extend_from_slice(data);
        record.resize(total, 0);
        record
    }

    fn lost(count: u64) -> Vec<u8> {
        let mut record = Vec::new();
        record.extend_from_slice(&PERF_RECORD_LOST.to_le_bytes());
        record.extend_from_slice(&0u16.to_le_bytes());
        record.extend_from_slice(&24u16.to_le_bytes());
        record.extend_from_slice(&7u64.to_le_bytes());
        record.extend_from_slice(&count.to_le_bytes());
        record
    }

    #[derive(Debug, PartialEq, Eq)]
    enum Seen {
        Sample(Vec<u8>),
        Lost(u64),
        Other(u32),
        Malformed,
    }

    /// Writes `records` into a ring of `size` bytes starting at stream position `start`
    /// and walks them back.
    fn check(size: usize, start: u64, records: &[Vec<u8>], expected: &[Seen]) {
        let mut ring = vec![0xAAu8; size];
        let mut position = start;
        for record in records {
            for byte in record {
                ring[(position % size as u64) as usize] = *byte;
                position += 1;
            }
        }
        let mut seen = Vec::new();
        let mut scratch = Vec::new();
        let end = walk_records(&ring, start, position, &mut scratch, &mut |record| {
            seen.push(match record {
                PerfRecord::Sample(data) => Seen::Sample(data.to_vec()),
                PerfRecord::Lost(count) => Seen::Lost(count),
                PerfRecord::Other { record_type } => Seen::Other(record_type),
                PerfRecord::Malformed { .. } => Seen::Malformed,
            })
        });
        assert_eq!(seen, expected, "size {size}, start {start}");
        assert_eq!(end, position);
    }

    #[test]
    fn records_are_walked_in_order_across_the_wrap() {
        let first: Vec<u8> = (1..=16).collect();
        let second: Vec<u8> = (100..=123).collect();
        let records = [sample(&first), lost(5), sample(&second)];
        let expected = |padding_first: usize, padding_second: usize| {
            let mut a = first.clone();
            a.resize(first.len() + padding_first, 0);
            let mut b = second.clone();
            b.resize(second.len() + padding_second, 0);
            vec![Seen::Sample(a), Seen::Lost(5), Seen::Sample(b)]
        };
        // 16 data bytes + 4 size bytes pad to 24: 4 bytes of padding, as for every
        // DTrace record (whose length is a multiple of 8).
        for start in [0u64, 8, 56, 64, 120, 4096 - 8, (1 << 40) + 40] {
            check(128, start, &records, &expected(4, 4));
        }
    }

    /// Writes `records` into a ring of `size` bytes as the kernel writes a backward ring,
    /// starting from stream position `head` (each record goes just below the previous
    /// head), and returns the new head.
    fn write_backward(ring: &mut [u8], mut head: u64, records: &[Vec<u8>]) -> u64 {
        let size = ring.len() as u64;
        for record in records {
            head = head.wrapping_sub(record.len() as u64);
            for (index, byte) in record.iter().enumerate() {
                ring[(head.wrapping_add(index as u64) % size) as usize] = *byte;
            }
        }
        head
    }

    fn walk_back(ring: &Vec<u8>, head: u64, limit: u64) -> (Vec<Seen>, u64) {
        let mut seen = Vec::new();
        let mut scratch = Vec::new();
        let walked = walk_overwritten_records(ring, head, limit, &mut scratch, &mut |record| {
            seen.push(match record {
                PerfRecord::Sample(data) => Seen::Sample(data[..4].to_vec()),
                PerfRecord::Lost(count) => Seen::Lost(count),
                PerfRecord::Other { record_type } => Seen::Other(record_type),
                PerfRecord::Malformed { .. } => Seen::Malformed,
            })
        });
        (seen, walked)
    }

    /// A 24-byte sample record whose first four data bytes are `number`.
    fn numbered(number: u32) -> Vec<u8> {
        let mut data = number.to_le_bytes().to_vec();
        data.resize(12, 0);
        sample(&data)
    }

    fn numbers(range: std::ops::RangeInclusive<u32>) -> Vec<Seen> {
        range
            .map(|number| Seen::Sample(number.to_le_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn overwritten_ring_keeps_the_newest_whole_records_oldest_first() {
        // 24-byte records in a 128-byte ring: five fit whole (120 bytes).
        let all: Vec<Vec<u8>> = (1..=40).map(numbered).collect();
        // Cases: records written, records expected back.
        let cases: &[(usize, std::ops::RangeInclusive<u32>)] = &[
            (1, 1..=1),
            (3, 1..=3),
            (5, 1..=5),
            (6, 2..=6),
            (40, 36..=40),
        ];
        for (count, expected) in cases {
            let mut ring = vec![0u8; 128];
            let head = write_backward(&mut ring, 0, &all[..*count]);
            let (seen, walked) = walk_back(&ring, head, 0);
            assert_eq!(seen, numbers(expected.clone()), "{count} records");
            assert_eq!(walked, 24 * seen.len() as u64, "{count} records");
        }
        // Nothing written: nothing read.
        assert_eq!(walk_back(&vec![0u8; 128], 0, 0), (Vec::new(), 0));
    }

    #[test]
    fn overwritten_ring_with_mixed_sizes_and_a_limit() {
        // A 16-byte lost record among samples; the oldest whole record is kept only if
        // it fits entirely in the 128 bytes below the head.
        let records = vec![numbered(1), numbered(2), lost(3), numbered(4), numbered(5)];
        let mut ring = vec![0u8; 128];
        let head = write_backward(&mut ring, 0, &records);
        let (seen, _) = walk_back(&ring, head, 0);
        assert_eq!(
            seen,
            vec![
                Seen::Sample(1u32.to_le_bytes().to_vec()),
                Seen::Sample(2u32.to_le_bytes().to_vec()),
                Seen::Lost(3),
                Seen::Sample(4u32.to_le_bytes().to_vec()),
                Seen::Sample(5u32.to_le_bytes().to_vec()),
            ]
        );
        // A second walk covers only what was written since the first one.
        let later = write_backward(&mut ring, head, &[numbered(6), numbered(7)]);
        assert_eq!(walk_back(&ring, later, head).0, numbers(6..=7));
        // Wrapped so far that the ring holds only newer records than the limit.
        let much_later = write_backward(
            &mut ring,
            later,
            &(8..=20).map(numbered).collect::<Vec<_>>(),
        );
        assert_eq!(walk_back(&ring, much_later, later).0, numbers(16..=20));
    }

    #[test]
    fn unknown_and_malformed_records() {
        let mut other = lost(1);
        other[0] = 3;
        check(64, 0, &[other], &[Seen::Other(3)]);
        let mut short = sample(&[1, 2, 3, 4]);
        short[6] = 4;
        short[7] = 0;
        check(64, 0, &[short], &[Seen::Malformed]);
        let mut overlong = sample(&[1, 2, 3, 4]);
        overlong[8] = 200;
        check(64, 0, &[overlong], &[Seen::Malformed]);
    }
}
