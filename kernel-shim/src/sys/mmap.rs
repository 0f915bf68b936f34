//! Memory-mapped array maps (`BPF_F_MMAPABLE`): the consumer reads what probe programs write
//! without a system call per read.
//!
//! Programs on other CPUs write the mapped memory at any moment, so it is never exposed as a
//! Rust slice: every access is a volatile or atomic read or write at a checked offset.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::abi::BPF_F_MMAPABLE;
use super::error::SysError;
use super::map::{MapFd, MapType};

/// A shared, read-write mapping of an mmapable array map's values. Element `i` starts at
/// offset `i * value_stride()`. The mapping keeps the map alive on its own, so it may outlive
/// the `MapFd` it came from.
#[derive(Debug)]
pub struct MmapArray {
    base: NonNull<u8>,
    mapped_length: usize,
    data_length: usize,
    value_stride: usize,
}

// SAFETY: the mapping is plain shared memory; all access goes through volatile or atomic
// operations on raw pointers, which are safe to issue from any thread.
unsafe impl Send for MmapArray {}
// SAFETY: as above; `&self` methods never create references into the mapping.
unsafe impl Sync for MmapArray {}

impl MapFd {
    /// Maps the values of an array map created with `BPF_F_MMAPABLE`.
    pub fn mmap(&self) -> Result<MmapArray, SysError> {
        let definition = self.definition();
        let attempted = || self.describe("mmap of");
        if definition.map_type != MapType::Array || definition.flags & BPF_F_MMAPABLE == 0 {
            return Err(SysError::invalid(
                attempted(),
                "only array maps created with BPF_F_MMAPABLE can be mapped",
            ));
        }
        let value_stride = (definition.value_size as usize).div_ceil(8) * 8;
        let data_length = value_stride * definition.max_entries as usize;
        // SAFETY: sysconf has no memory-safety preconditions.
        let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let mapped_length = data_length.div_ceil(page_size.max(1)) * page_size;
        if mapped_length == 0 {
            return Err(SysError::invalid(attempted(), "the map holds no data"));
        }
        // SAFETY: a fresh shared mapping of a descriptor we hold; the kernel checks the
        // length against the map.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped_length,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                self.raw_fd(),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(SysError::last_os_error(attempted()));
        }
        let base = NonNull::new(address.cast::<u8>())
            .ok_or_else(|| SysError::invalid(attempted(), "mmap returned a null address"))?;
        Ok(MmapArray {
            base,
            mapped_length,
            data_length,
            value_stride,
        })
    }
}

impl MmapArray {
    /// The number of data bytes (entries × stride).
    pub fn len(&self) -> usize {
        self.data_length
    }

    pub fn is_empty(&self) -> bool {
        self.data_length == 0
    }

    /// The distance between consecutive elements: the value size rounded up to 8.
    pub fn value_stride(&self) -> usize {
        self.value_stride
    }

    /// The start of the mapping, for code that needs its own access discipline.
    pub fn as_ptr(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// A pointer to `length` bytes at `offset`, if they lie inside the data and the offset is
    /// aligned to `alignment`.
    fn checked(&self, offset: usize, length: usize, alignment: usize) -> Option<*mut u8> {
        let end = offset.checked_add(length)?;
        if end > self.data_length || !offset.is_multiple_of(alignment) {
            return None;
        }
        // SAFETY: `offset + length` is within the mapping.
        Some(unsafe { self.base.as_ptr().add(offset) })
    }

    /// A volatile read of the byte at `offset`.
    pub fn read_u8(&self, offset: usize) -> Option<u8> {
        let pointer = self.checked(offset, 1, 1)?;
        // SAFETY: in bounds; any byte pattern is a valid u8.
        Some(unsafe { pointer.read_volatile() })
    }

    /// A volatile read of the aligned `u32` at `offset`.
    pub fn read_u32(&self, offset: usize) -> Option<u32> {
        let pointer = self.checked(offset, 4, 4)?;
        // SAFETY: in bounds and aligned.
        Some(unsafe { pointer.cast::<u32>().read_volatile() })
    }

    /// A volatile read of the aligned `u64` at `offset`.
    pub fn read_u64(&self, offset: usize) -> Option<u64> {
        let pointer = self.checked(offset, 8, 8)?;
        // SAFETY: in bounds and aligned.
        Some(unsafe { pointer.cast::<u64>().read_volatile() })
    }

    /// A volatile write of the aligned `u32` at `offset`; `None` if out of range or misaligned.
    pub fn write_u32(&self, offset: usize, value: u32) -> Option<()> {
        let pointer = self.checked(offset, 4, 4)?;
        // SAFETY: in bounds and aligned; the mapping is writable.
        unsafe { pointer.cast::<u32>().write_volatile(value) };
        Some(())
    }

    /// A volatile write of the aligned `u64` at `offset`; `None` if out of range or misaligned.
    pub fn write_u64(&self, offset: usize, value: u64) -> Option<()> {
        let pointer = self.checked(offset, 8, 8)?;
        // SAFETY: in bounds and aligned; the mapping is writable.
        unsafe { pointer.cast::<u64>().write_volatile(value) };
        Some(())
    }

    /// An acquire load of the aligned `u32` at `offset`, pairing with a program's atomic or
    /// release store (a buffer head or record count, say).
    pub fn load_u32_acquire(&self, offset: usize) -> Option<u32> {
        let pointer = self.checked(offset, 4, 4)?;
        // SAFETY: in bounds, aligned, and only ever accessed atomically or volatilely.
        Some(unsafe { AtomicU32::from_ptr(pointer.cast()) }.load(Ordering::Acquire))
    }

    /// An acquire load of the aligned `u64` at `offset`.
    pub fn load_u64_acquire(&self, offset: usize) -> Option<u64> {
        let pointer = self.checked(offset, 8, 8)?;
        // SAFETY: in bounds, aligned, and only ever accessed atomically or volatilely.
        Some(unsafe { AtomicU64::from_ptr(pointer.cast()) }.load(Ordering::Acquire))
    }

    /// A release store of the aligned `u64` at `offset`.
    pub fn store_u64_release(&self, offset: usize, value: u64) -> Option<()> {
        let pointer = self.checked(offset, 8, 8)?;
        // SAFETY: in bounds, aligned, and only ever accessed atomically or volatilely.
        unsafe { AtomicU64::from_ptr(pointer.cast()) }.store(value, Ordering::Release);
        Some(())
    }

    /// An atomic swap of the aligned `u64` at `offset`, returning the old value (the
    /// consumer's side of a buffer switch).
    pub fn swap_u64(&self, offset: usize, value: u64) -> Option<u64> {
        let pointer = self.checked(offset, 8, 8)?;
        // SAFETY: in bounds, aligned, and only ever accessed atomically or volatilely.
        Some(unsafe { AtomicU64::from_ptr(pointer.cast()) }.swap(value, Ordering::AcqRel))
    }

    /// Copies `destination.len()` bytes from `offset` with volatile byte reads.
    pub fn read_bytes(&self, offset: usize, destination: &mut [u8]) -> Option<()> {
        let pointer = self.checked(offset, destination.len(), 1)?;
        for (index, byte) in destination.iter_mut().enumerate() {
            // SAFETY: `offset + index` is in bounds.
            *byte = unsafe { pointer.add(index).read_volatile() };
        }
        Some(())
    }

    /// Writes `source` at `offset` with volatile byte writes.
    pub fn write_bytes(&self, offset: usize, source: &[u8]) -> Option<()> {
        let pointer = self.checked(offset, source.len(), 1)?;
        for (index, byte) in source.iter().enumerate() {
            // SAFETY: `offset + index` is in bounds; the mapping is writable.
            unsafe { pointer.add(index).write_volatile(*byte) };
        }
        Some(())
    }
}

impl Drop for MmapArray {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the region this value mapped; nothing refers into it
        // because no references to the mapping are ever handed out.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.mapped_length);
        }
    }
}
