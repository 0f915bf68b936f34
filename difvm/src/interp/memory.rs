//! The interpreter's address space: where by-reference values (strings, structs, scratch
//! buffers) live while DIF code runs, and how DIF addresses map onto them.
//!
//! An address is 64 bits: a tag in bits 63–56 naming the kind of memory, a region index in
//! bits 55–32 and a byte offset in bits 31–0.
//!
//! | tag | memory | lifetime |
//! |---|---|---|
//! | `0xd0` | scratch (`alloca`, `allocs`, subroutine results): one bump-allocated region of `scratch_size` bytes, readable and writable up to the allocation pointer | one clause execution |
//! | `0xd1` | session regions: storage of by-reference global, thread-local and associative variables | until the variable is deleted or overwritten by a value of another size |
//! | `0xd2` | firing regions: storage of by-reference clause-local (`this->`) variables | one probe firing |
//! | `0xd3` | clause regions: DIFO string tables (`sets`), built-in strings (`execname`…) | one clause execution |
//!
//! Only scratch, session regions (global variables kept in memory, whose address `&`
//! takes) and firing regions (clause-local arrays and structs) are writable by DIF stores. Address 0 and every address that is not in a
//! live region fault with `invalid address`. Addresses with other tags are outside the
//! interpreter: kernel loads (`ld*`) ask the firing context to read them, restricted loads
//! (`rld*`) refuse them, and user loads (`uld*`, `copyin`) always go to the context.

use super::context::ProbeFiringContext;
use super::fault::RuntimeFault;

const TAG_SHIFT: u32 = 56;
const INDEX_SHIFT: u32 = 32;
const INDEX_LIMIT: usize = 1 << 24;
const OFFSET_MASK: u64 = 0xffff_ffff;
const TAG_SCRATCH: u64 = 0xd0;
const TAG_SESSION: u64 = 0xd1;
const TAG_FIRING: u64 = 0xd2;
const TAG_CLAUSE: u64 = 0xd3;

/// Largest scratch space an engine may configure: offsets must fit in 32 bits, and a
/// larger scratch space would only hide runaway programs.
pub const MAX_SCRATCH_SIZE: usize = 1 << 28;

/// Which regions a mapped value lives in, i.e. how long it stays valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionLifetime {
    /// Variable storage that outlives probe firings.
    Session,
    /// Storage of `this->` variables.
    Firing,
    /// Values valid for the current clause execution only.
    Clause,
}

/// Which memory a read may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `ld*` and subroutine arguments: the interpreter's regions, else the context's
    /// kernel memory.
    Kernel,
    /// `rld*`: the interpreter's regions only.
    Restricted,
    /// `uld*`, `copyin*`: the context's user memory only.
    User,
}

/// Regions of one lifetime, addressed by index; freed indexes are reused.
#[derive(Debug, Default)]
pub struct RegionTable {
    regions: Vec<Option<Vec<u8>>>,
    free: Vec<usize>,
}

impl RegionTable {
    fn allocate(&mut self, bytes: Vec<u8>) -> Option<usize> {
        if let Some(index) = self.free.pop() {
            self.regions[index] = Some(bytes);
            return Some(index);
        }
        if self.regions.len() >= INDEX_LIMIT {
            return None;
        }
        self.regions.push(Some(bytes));
        Some(self.regions.len() - 1)
    }

    fn get(&self, index: usize) -> Option<&Vec<u8>> {
        self.regions.get(index)?.as_ref()
    }

    fn get_mut(&mut self, index: usize) -> Option<&mut Vec<u8>> {
        self.regions.get_mut(index)?.as_mut()
    }

    fn release(&mut self, index: usize) {
        if let Some(slot) = self.regions.get_mut(index) {
            if slot.take().is_some() {
                self.free.push(index);
            }
        }
    }

    fn clear(&mut self) {
        self.regions.clear();
        self.free.clear();
    }
}

/// The whole address space of one engine (or of one stand-alone DIFO run).
#[derive(Debug)]
pub struct AddressSpace {
    scratch: Vec<u8>,
    scratch_used: usize,
    scratch_capacity: usize,
    /// Bytes `alloca()` has allocated in this clause execution, and may allocate.
    alloca_used: u64,
    alloca_capacity: u64,
    session: RegionTable,
    firing: RegionTable,
    clause: RegionTable,
}

fn encode(tag: u64, index: usize, offset: usize) -> u64 {
    tag << TAG_SHIFT | (index as u64) << INDEX_SHIFT | offset as u64
}

impl AddressSpace {
    /// An empty address space whose scratch area holds `scratch_capacity` bytes (at most
    /// [`MAX_SCRATCH_SIZE`]).
    pub fn new(scratch_capacity: usize) -> AddressSpace {
        AddressSpace {
            scratch: Vec::new(),
            scratch_used: 0,
            scratch_capacity: scratch_capacity.min(MAX_SCRATCH_SIZE),
            alloca_used: 0,
            alloca_capacity: u64::MAX,
            session: RegionTable::default(),
            firing: RegionTable::default(),
            clause: RegionTable::default(),
        }
    }

    /// The same address space with `alloca()` limited to `capacity` bytes per clause.
    pub fn with_alloca_capacity(mut self, capacity: u64) -> AddressSpace {
        self.alloca_capacity = capacity;
        self
    }

    /// `alloca(size)`: zeroed scratch like [`AddressSpace::allocate_scratch`], but
    /// `out of scratch space` once the clause's allocas (each rounded up to 8 bytes)
    /// would pass the alloca capacity, whatever scratch strings use.
    pub fn allocate_alloca(&mut self, size: u64) -> Result<u64, RuntimeFault> {
        let used = size
            .checked_next_multiple_of(8)
            .and_then(|rounded| self.alloca_used.checked_add(rounded))
            .filter(|&used| used <= self.alloca_capacity)
            .ok_or_else(RuntimeFault::no_scratch)?;
        let address = self.allocate_scratch(size)?;
        self.alloca_used = used;
        Ok(address)
    }

    /// Allocates `size` zeroed bytes of scratch, 8-byte aligned; `out of scratch space`
    /// when the clause has used it up.
    pub fn allocate_scratch(&mut self, size: u64) -> Result<u64, RuntimeFault> {
        let start = self.scratch_used.next_multiple_of(8);
        let end = usize::try_from(size)
            .ok()
            .and_then(|size| start.checked_add(size))
            .filter(|&end| end <= self.scratch_capacity)
            .ok_or_else(RuntimeFault::no_scratch)?;
        if self.scratch.len() < end {
            // Grow lazily in large steps so that small programs never touch the whole area.
            let target = end
                .max(self.scratch.len() * 2)
                .max(4096)
                .min(self.scratch_capacity);
            self.scratch.resize(target, 0);
        }
        self.scratch_used = end;
        Ok(encode(TAG_SCRATCH, 0, start))
    }

    /// Maps `bytes` as a new region of the given lifetime and returns its address.
    pub fn map(&mut self, lifetime: RegionLifetime, bytes: Vec<u8>) -> Result<u64, RuntimeFault> {
        if bytes.len() as u64 > OFFSET_MASK {
            return Err(RuntimeFault::no_scratch());
        }
        let (tag, table) = match lifetime {
            RegionLifetime::Session => (TAG_SESSION, &mut self.session),
            RegionLifetime::Firing => (TAG_FIRING, &mut self.firing),
            RegionLifetime::Clause => (TAG_CLAUSE, &mut self.clause),
        };
        let index = table.allocate(bytes).ok_or_else(RuntimeFault::no_scratch)?;
        Ok(encode(tag, index, 0))
    }

    fn decode(address: u64) -> (u64, usize, usize) {
        (
            address >> TAG_SHIFT,
            ((address >> INDEX_SHIFT) as usize) & (INDEX_LIMIT - 1),
            (address & OFFSET_MASK) as usize,
        )
    }

    /// Whether `address` carries one of the interpreter's tags (mapped or not).
    pub fn is_internal(address: u64) -> bool {
        (TAG_SCRATCH..=TAG_CLAUSE).contains(&(address >> TAG_SHIFT))
    }

    fn table(&self, tag: u64) -> Option<&RegionTable> {
        match tag {
            TAG_SESSION => Some(&self.session),
            TAG_FIRING => Some(&self.firing),
            TAG_CLAUSE => Some(&self.clause),
            _ => None,
        }
    }

    /// The bytes from `address` to the end of its region (for scratch: to the allocation
    /// pointer), if `address` is mapped.
    pub fn internal_tail(&self, address: u64) -> Option<&[u8]> {
        let (tag, index, offset) = Self::decode(address);
        if tag == TAG_SCRATCH {
            if index != 0 {
                return None;
            }
            return self.scratch.get(offset..self.scratch_used);
        }
        self.table(tag)?.get(index)?.get(offset..)
    }

    /// `length` mapped bytes at `address`, if all of them are mapped.
    pub fn internal(&self, address: u64, length: usize) -> Option<&[u8]> {
        self.internal_tail(address)?.get(..length)
    }

    /// `length` writable bytes at `address`: allocated scratch, session regions (the
    /// storage of global variables, which `&x` and scalar arrays point into) and firing
    /// regions (clause-locals of array or struct type, whose elements are stored into),
    /// as classic DTrace lets stores reach scratch and static variables.
    pub fn writable(&mut self, address: u64, length: usize) -> Option<&mut [u8]> {
        let (tag, index, offset) = Self::decode(address);
        let end = offset.checked_add(length)?;
        match tag {
            TAG_SCRATCH if index == 0 && end <= self.scratch_used => {
                self.scratch.get_mut(offset..end)
            }
            TAG_SESSION => self.session.get_mut(index)?.get_mut(offset..end),
            TAG_FIRING => self.firing.get_mut(index)?.get_mut(offset..end),
            _ => None,
        }
    }

    /// The whole region whose first byte is `address` (variable storage the engine
    /// itself rewrites), if `address` starts a session or firing region.
    pub fn region_mut(&mut self, address: u64) -> Option<&mut Vec<u8>> {
        let (tag, index, offset) = Self::decode(address);
        if offset != 0 {
            return None;
        }
        match tag {
            TAG_SESSION => self.session.get_mut(index),
            TAG_FIRING => self.firing.get_mut(index),
            _ => None,
        }
    }

    /// Frees the session or firing region starting at `address`.
    pub fn unmap(&mut self, address: u64) {
        let (tag, index, offset) = Self::decode(address);
        if offset != 0 {
            return;
        }
        match tag {
            TAG_SESSION => self.session.release(index),
            TAG_FIRING => self.firing.release(index),
            _ => {}
        }
    }

    /// Forgets the clause's scratch allocations and clause regions.
    pub fn reset_clause(&mut self) {
        let used = self.scratch_used.min(self.scratch.len());
        self.scratch[..used].fill(0);
        self.scratch_used = 0;
        self.alloca_used = 0;
        self.clause.clear();
    }

    /// Sets the firing regions aside (for a nested ERROR firing) and starts empty ones.
    pub fn take_firing_regions(&mut self) -> RegionTable {
        std::mem::take(&mut self.firing)
    }

    /// Puts firing regions set aside by [`AddressSpace::take_firing_regions`] back.
    pub fn restore_firing_regions(&mut self, regions: RegionTable) {
        self.firing = regions;
    }

    /// Drops every firing region (a new probe firing starts).
    pub fn reset_firing(&mut self) {
        self.firing.clear();
    }

    /// Reads `buffer.len()` bytes at `address`.
    pub fn read(
        &self,
        context: &dyn ProbeFiringContext,
        address: u64,
        buffer: &mut [u8],
        access: Access,
    ) -> Result<(), RuntimeFault> {
        if address == 0 {
            return Err(RuntimeFault::bad_address(0));
        }
        let from_context = match access {
            Access::User => context.read_user_memory(address, buffer),
            Access::Kernel | Access::Restricted if Self::is_internal(address) => {
                match self.internal(address, buffer.len()) {
                    Some(bytes) => {
                        buffer.copy_from_slice(bytes);
                        true
                    }
                    None => false,
                }
            }
            Access::Kernel => context.read_kernel_memory(address, buffer),
            Access::Restricted => false,
        };
        if from_context {
            Ok(())
        } else {
            Err(RuntimeFault::bad_address(address))
        }
    }

    /// Reads the NUL-terminated string at `address`: at most `bound` bytes, without the
    /// NUL. A string in the interpreter's memory also ends where its region ends.
    pub fn read_string(
        &self,
        context: &dyn ProbeFiringContext,
        address: u64,
        bound: usize,
        access: Access,
    ) -> Result<Vec<u8>, RuntimeFault> {
        if address == 0 {
            return Err(RuntimeFault::bad_address(0));
        }
        if access != Access::User && Self::is_internal(address) {
            let tail = self
                .internal_tail(address)
                .ok_or(RuntimeFault::bad_address(address))?;
            let tail = &tail[..tail.len().min(bound)];
            let end = tail
                .iter()
                .position(|&byte| byte == 0)
                .unwrap_or(tail.len());
            return Ok(tail[..end].to_vec());
        }
        if access == Access::Restricted {
            return Err(RuntimeFault::bad_address(address));
        }
        read_external_string(context, address, bound, access)
    }
}

/// Reads a string from the context in chunks that do not cross 64-byte boundaries, falling
/// back to single bytes when a chunk fails, so that a string ending just before unreadable
/// memory still reads.
fn read_external_string(
    context: &dyn ProbeFiringContext,
    address: u64,
    bound: usize,
    access: Access,
) -> Result<Vec<u8>, RuntimeFault> {
    let read = |at: u64, buffer: &mut [u8]| match access {
        Access::User => context.read_user_memory(at, buffer),
        _ => context.read_kernel_memory(at, buffer),
    };
    let mut string = Vec::new();
    let mut chunk = [0u8; 64];
    while string.len() < bound {
        let at = address.wrapping_add(string.len() as u64);
        let length = (64 - (at % 64) as usize).min(bound - string.len());
        let buffer = &mut chunk[..length];
        if !read(at, buffer) {
            // Find the first unreadable byte, keeping what precedes it.
            for position in 0..length {
                let byte_address = at.wrapping_add(position as u64);
                let mut byte = [0u8; 1];
                if !read(byte_address, &mut byte) {
                    return Err(RuntimeFault::bad_address(byte_address));
                }
                if byte[0] == 0 {
                    return Ok(string);
                }
                string.push(byte[0]);
            }
            continue;
        }
        if let Some(end) = buffer.iter().position(|&byte| byte == 0) {
            string.extend_from_slice(&buffer[..end]);
            return Ok(string);
        }
        string.extend_from_slice(buffer);
    }
    Ok(string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::context::SimpleFiringContext;
    use crate::object::FaultCode;

    #[test]
    fn scratch_is_aligned_bounded_and_reset() {
        let mut space = AddressSpace::new(64);
        let first = space.allocate_scratch(3).unwrap();
        let second = space.allocate_scratch(8).unwrap();
        assert_eq!(second - first, 8);
        assert!(space.writable(first, 3).is_some());
        assert!(space.writable(first, 17).is_none());
        space
            .writable(second, 8)
            .unwrap()
            .copy_from_slice(b"abcdefgh");
        assert_eq!(
            space.allocate_scratch(64).unwrap_err().code,
            FaultCode::NoScratch
        );
        space.reset_clause();
        assert!(space.writable(first, 1).is_none());
        let again = space.allocate_scratch(16).unwrap();
        assert_eq!(space.internal(again, 16).unwrap(), &[0; 16]);
    }

    #[test]
    fn regions_are_addressed_and_released() {
        let mut space = AddressSpace::new(0);
        let address = space
            .map(RegionLifetime::Session, b"hello\0".to_vec())
            .unwrap();
        assert_eq!(space.internal(address + 1, 4).unwrap(), b"ello");
        assert!(space.internal(address + 1, 6).is_none());
        // Session regions (global variables, which `&x` points into) are writable
        // within their bounds; clause regions (string tables) never are.
        assert!(space.writable(address, 6).is_some());
        assert!(space.writable(address + 1, 6).is_none());
        let constant = space
            .map(RegionLifetime::Clause, b"abc\0".to_vec())
            .unwrap();
        assert!(space.writable(constant, 1).is_none());
        // Firing regions (clause-local arrays and structs) are writable too.
        let local = space.map(RegionLifetime::Firing, vec![0; 12]).unwrap();
        assert!(space.writable(local + 8, 4).is_some());
        assert!(space.writable(local + 8, 5).is_none());
        let context = SimpleFiringContext::default();
        assert_eq!(
            space
                .read_string(&context, address, 256, Access::Kernel)
                .unwrap(),
            b"hello"
        );
        assert_eq!(
            space
                .read_string(&context, address, 3, Access::Kernel)
                .unwrap(),
            b"hel"
        );
        space.unmap(address);
        assert_eq!(
            space
                .read_string(&context, address, 256, Access::Kernel)
                .unwrap_err(),
            RuntimeFault::bad_address(address)
        );
        let clause = space.map(RegionLifetime::Clause, vec![1]).unwrap();
        space.reset_clause();
        assert!(space.internal(clause, 1).is_none());
    }

    #[test]
    fn external_reads_go_through_the_context() {
        let mut string = b"external string".to_vec();
        string.push(0);
        let context = SimpleFiringContext {
            kernel_memory: vec![(0x1000_0030, string)],
            ..SimpleFiringContext::default()
        };
        let space = AddressSpace::new(0);
        assert_eq!(
            space
                .read_string(&context, 0x1000_0030, 256, Access::Kernel)
                .unwrap(),
            b"external string"
        );
        assert!(space
            .read_string(&context, 0x1000_0030, 256, Access::Restricted)
            .is_err());
        assert!(space
            .read_string(&context, 0x1000_0030, 256, Access::User)
            .is_err());
        let mut buffer = [0u8; 4];
        space
            .read(&context, 0x1000_0031, &mut buffer, Access::Kernel)
            .unwrap();
        assert_eq!(&buffer, b"xter");
        assert_eq!(
            space
                .read(&context, 0, &mut buffer, Access::Kernel)
                .unwrap_err(),
            RuntimeFault::bad_address(0)
        );
    }
}
