//! BPF maps: creation, element access, iteration and batch lookup, with per-CPU values laid
//! out as the kernel copies them (one 8-byte-aligned slot per possible CPU).
//!
//! A `MapFd` remembers its definition so that every key and value buffer handed to the
//! kernel is checked against the sizes the kernel will read or write; a short buffer is
//! refused with an error instead of letting the kernel read or write past it.

use std::fmt;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use super::abi::*;
use super::cpus::possible_cpu_count;
use super::error::SysError;
use super::syscall::{bpf, bpf_fd, name_from_field, object_name};

/// The map types the kernel engine uses (`enum bpf_map_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapType {
    Hash,
    Array,
    ProgArray,
    PerfEventArray,
    PercpuHash,
    PercpuArray,
    StackTrace,
    LruHash,
    LruPercpuHash,
    Ringbuf,
}

impl MapType {
    /// The kernel's number for this map type.
    pub const fn number(self) -> u32 {
        match self {
            MapType::Hash => 1,
            MapType::Array => 2,
            MapType::ProgArray => 3,
            MapType::PerfEventArray => 4,
            MapType::PercpuHash => 5,
            MapType::PercpuArray => 6,
            MapType::StackTrace => 7,
            MapType::LruHash => 9,
            MapType::LruPercpuHash => 10,
            MapType::Ringbuf => 27,
        }
    }

    /// Whether each element holds one value per possible CPU.
    pub const fn is_per_cpu(self) -> bool {
        matches!(
            self,
            MapType::PercpuHash | MapType::PercpuArray | MapType::LruPercpuHash
        )
    }

    /// The name used in messages, as in the kernel's `BPF_MAP_TYPE_*` without the prefix.
    pub const fn name(self) -> &'static str {
        match self {
            MapType::Hash => "hash",
            MapType::Array => "array",
            MapType::ProgArray => "prog_array",
            MapType::PerfEventArray => "perf_event_array",
            MapType::PercpuHash => "percpu_hash",
            MapType::PercpuArray => "percpu_array",
            MapType::StackTrace => "stack_trace",
            MapType::LruHash => "lru_hash",
            MapType::LruPercpuHash => "lru_percpu_hash",
            MapType::Ringbuf => "ringbuf",
        }
    }
}

impl fmt::Display for MapType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a map was created with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapDefinition {
    pub map_type: MapType,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub flags: u32,
    pub name: String,
}

/// The kernel's view of a map (`struct bpf_map_info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapInfo {
    /// The system-wide map id (what bpftool shows).
    pub id: u32,
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub flags: u32,
    pub name: String,
}

/// One element read from a map: (key bytes, value buffer).
pub type MapElement = (Vec<u8>, Vec<u8>);

/// An owned BPF map file descriptor; the map lives until the last descriptor and the last
/// program using it are gone.
#[derive(Debug)]
pub struct MapFd {
    fd: OwnedFd,
    definition: MapDefinition,
    /// Possible CPUs for a per-CPU map, 1 otherwise.
    value_copies: usize,
}

/// Creates a map. `name` is shortened to the kernel's 15 characters and characters the
/// kernel refuses become `_`.
pub fn bpf_map_create(
    map_type: MapType,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    flags: u32,
    name: &str,
) -> Result<MapFd, SysError> {
    let value_copies = if map_type.is_per_cpu() {
        possible_cpu_count()?
    } else {
        1
    };
    let mut attr = MapCreateAttr {
        map_type: map_type.number(),
        key_size,
        value_size,
        max_entries,
        map_flags: flags,
        map_name: object_name(name),
        ..MapCreateAttr::default()
    };
    // SAFETY: a map-create attribute holds no pointers.
    let fd = unsafe {
        bpf_fd(BPF_MAP_CREATE, &mut attr, || {
            format!(
                "of {map_type} map {name:?} (key {key_size} bytes, value {value_size} bytes, \
                 {max_entries} entries, flags {flags:#x})"
            )
        })?
    };
    Ok(MapFd {
        fd,
        definition: MapDefinition {
            map_type,
            key_size,
            value_size,
            max_entries,
            flags,
            name: name.to_string(),
        },
        value_copies,
    })
}

/// Rounds a per-CPU value size up to the 8-byte slot the kernel gives each CPU.
pub const fn per_cpu_value_stride(value_size: u32) -> usize {
    (value_size as usize).div_ceil(8) * 8
}

impl MapFd {
    /// The descriptor number, for `Insn::ld_map_fd`.
    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    pub fn definition(&self) -> &MapDefinition {
        &self.definition
    }

    /// The number of CPUs a per-CPU value covers (1 for other maps).
    pub fn value_copies(&self) -> usize {
        self.value_copies
    }

    /// The size of the buffer a lookup fills: the value size, or for per-CPU maps one
    /// 8-byte-aligned slot per possible CPU.
    pub fn value_buffer_size(&self) -> usize {
        if self.definition.map_type.is_per_cpu() {
            per_cpu_value_stride(self.definition.value_size) * self.value_copies
        } else {
            self.definition.value_size as usize
        }
    }

    /// Looks `key` up; `None` if there is no such element.
    pub fn lookup(&self, key: &[u8]) -> Result<Option<Vec<u8>>, SysError> {
        let mut value = vec![0u8; self.value_buffer_size()];
        Ok(self.lookup_into(key, &mut value)?.then_some(value))
    }

    /// Looks `key` up into `value` (exactly `value_buffer_size()` bytes); false if there is
    /// no such element.
    pub fn lookup_into(&self, key: &[u8], value: &mut [u8]) -> Result<bool, SysError> {
        self.check_key(key, "lookup")?;
        self.check_value(value.len(), "lookup")?;
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: key.as_ptr() as u64,
            value: value.as_mut_ptr() as u64,
            ..MapElemAttr::default()
        };
        // SAFETY: key and value were checked to be as long as the map's key and value.
        let result = unsafe {
            bpf(BPF_MAP_LOOKUP_ELEM, &mut attr, || {
                self.describe("lookup in")
            })
        };
        not_found_as_false(result)
    }

    /// Stores `value` (exactly `value_buffer_size()` bytes) under `key`. `flags` is
    /// `BPF_ANY`, `BPF_NOEXIST` or `BPF_EXIST`.
    pub fn update(&self, key: &[u8], value: &[u8], flags: u64) -> Result<(), SysError> {
        self.check_key(key, "update")?;
        self.check_value(value.len(), "update")?;
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: key.as_ptr() as u64,
            value: value.as_ptr() as u64,
            flags,
            ..MapElemAttr::default()
        };
        // SAFETY: key and value were checked to be as long as the map's key and value; the
        // kernel only reads them.
        unsafe {
            bpf(BPF_MAP_UPDATE_ELEM, &mut attr, || {
                self.describe("update of")
            })?
        };
        Ok(())
    }

    /// Deletes `key`; false if there was no such element.
    pub fn delete(&self, key: &[u8]) -> Result<bool, SysError> {
        self.check_key(key, "delete")?;
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: key.as_ptr() as u64,
            ..MapElemAttr::default()
        };
        // SAFETY: the key was checked to be as long as the map's key.
        let result = unsafe {
            bpf(BPF_MAP_DELETE_ELEM, &mut attr, || {
                self.describe("delete in")
            })
        };
        not_found_as_false(result)
    }

    /// The key after `key` in the map's iteration order, or the first key when `key` is
    /// `None`; `None` at the end. (A key no longer in a hash map restarts from the first.)
    pub fn next_key(&self, key: Option<&[u8]>) -> Result<Option<Vec<u8>>, SysError> {
        if let Some(key) = key {
            self.check_key(key, "next-key")?;
        }
        let mut next = vec![0u8; self.definition.key_size as usize];
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: key.map_or(0, |key| key.as_ptr() as u64),
            value: next.as_mut_ptr() as u64,
            ..MapElemAttr::default()
        };
        // SAFETY: the key (if any) and the next-key buffer are as long as the map's key.
        let result = unsafe {
            bpf(BPF_MAP_GET_NEXT_KEY, &mut attr, || {
                self.describe("next-key in")
            })
        };
        Ok(not_found_as_false(result)?.then_some(next))
    }

    /// Every key, by `next_key` iteration.
    pub fn keys(&self) -> Result<Vec<Vec<u8>>, SysError> {
        let mut keys = Vec::new();
        let mut current = self.next_key(None)?;
        while let Some(key) = current {
            current = self.next_key(Some(&key))?;
            keys.push(key);
        }
        Ok(keys)
    }

    /// Every element as (key, value buffer), by `BPF_MAP_LOOKUP_BATCH` (kernel 5.6 and
    /// later for hash maps, 5.10 for arrays). Values are `value_buffer_size()` bytes.
    pub fn lookup_batch_all(&self) -> Result<Vec<MapElement>, SysError> {
        let mut elements = Vec::new();
        self.lookup_batch_each(&mut |key, value| elements.push((key.to_vec(), value.to_vec())))?;
        Ok(elements)
    }

    /// Visits every element as (key, value buffer) by `BPF_MAP_LOOKUP_BATCH`, a batch at a
    /// time, without keeping them: reading a map of a million elements then costs no
    /// copy of it. On an error, the elements visited so far were visited once each.
    pub fn lookup_batch_each(&self, visit: &mut dyn FnMut(&[u8], &[u8])) -> Result<(), SysError> {
        let key_size = self.definition.key_size as usize;
        let value_size = self.value_buffer_size();
        // The batch token is opaque: a bucket number for hash maps, an index for arrays.
        // Eight bytes or a key's worth, whichever is larger, holds either.
        let token_size = key_size.max(8);
        let mut in_token = vec![0u8; token_size];
        let mut out_token = vec![0u8; token_size];
        let mut capacity: usize = 256;
        let mut first = true;
        let mut keys = vec![0u8; key_size * capacity];
        let mut values = vec![0u8; value_size * capacity];
        loop {
            let mut attr = MapBatchAttr {
                in_batch: if first { 0 } else { in_token.as_ptr() as u64 },
                out_batch: out_token.as_mut_ptr() as u64,
                keys: keys.as_mut_ptr() as u64,
                values: values.as_mut_ptr() as u64,
                count: capacity as u32,
                map_fd: self.fd.as_raw_fd() as u32,
                ..MapBatchAttr::default()
            };
            // SAFETY: the key and value buffers hold `count` keys and values; the tokens are
            // at least as large as the kernel's batch token.
            let result = unsafe {
                bpf(BPF_MAP_LOOKUP_BATCH, &mut attr, || {
                    self.describe("batch lookup in")
                })
            };
            let finished = match result {
                Ok(_) => false,
                Err(error) if error.errno() == Some(libc::ENOENT) => true,
                // A hash bucket holds more elements than `count`: retry with more room.
                Err(error) if error.errno() == Some(libc::ENOSPC) && capacity < 1 << 20 => {
                    capacity *= 4;
                    keys = vec![0u8; key_size * capacity];
                    values = vec![0u8; value_size * capacity];
                    continue;
                }
                Err(error) => return Err(error),
            };
            let returned = attr.count as usize;
            for index in 0..returned.min(capacity) {
                visit(
                    &keys[index * key_size..(index + 1) * key_size],
                    &values[index * value_size..(index + 1) * value_size],
                );
            }
            if finished {
                return Ok(());
            }
            in_token.copy_from_slice(&out_token);
            first = false;
        }
    }

    /// Looks `key` up in a per-CPU map and splits the value into one `value_size`-byte
    /// vector per possible CPU, in CPU order.
    pub fn lookup_per_cpu(&self, key: &[u8]) -> Result<Option<Vec<Vec<u8>>>, SysError> {
        self.check_per_cpu("per-CPU lookup")?;
        Ok(self
            .lookup(key)?
            .map(|buffer| self.split_per_cpu_value(&buffer)))
    }

    /// Splits a per-CPU lookup buffer into one `value_size`-byte vector per possible CPU.
    pub fn split_per_cpu_value(&self, buffer: &[u8]) -> Vec<Vec<u8>> {
        let stride = per_cpu_value_stride(self.definition.value_size);
        let value_size = self.definition.value_size as usize;
        buffer
            .chunks(stride.max(1))
            .map(|slot| slot[..value_size.min(slot.len())].to_vec())
            .collect()
    }

    /// Stores one value per possible CPU (each `value_size` bytes, CPU order) under `key`.
    pub fn update_per_cpu(
        &self,
        key: &[u8],
        values: &[Vec<u8>],
        flags: u64,
    ) -> Result<(), SysError> {
        self.check_per_cpu("per-CPU update")?;
        if values.len() != self.value_copies {
            return Err(SysError::invalid(
                self.describe("per-CPU update of"),
                format!(
                    "{} values given, the system has {} possible CPUs",
                    values.len(),
                    self.value_copies
                ),
            ));
        }
        let stride = per_cpu_value_stride(self.definition.value_size);
        let mut buffer = vec![0u8; stride * self.value_copies];
        for (slot, value) in buffer.chunks_mut(stride).zip(values) {
            self.check_value_length(value.len(), self.definition.value_size as usize, "update")?;
            slot[..value.len()].copy_from_slice(value);
        }
        self.update(key, &buffer, flags)
    }

    /// The kernel's view of the map, including its system-wide id.
    pub fn info(&self) -> Result<MapInfo, SysError> {
        let mut raw = MapInfoRaw::default();
        let mut attr = InfoAttr {
            bpf_fd: self.fd.as_raw_fd() as u32,
            info_len: std::mem::size_of::<MapInfoRaw>() as u32,
            info: &mut raw as *mut MapInfoRaw as u64,
        };
        // SAFETY: `info` points to a `MapInfoRaw` of the length given in `info_len`.
        unsafe {
            bpf(BPF_OBJ_GET_INFO_BY_FD, &mut attr, || {
                self.describe("information about")
            })?
        };
        Ok(MapInfo {
            id: raw.id,
            map_type: raw.map_type,
            key_size: raw.key_size,
            value_size: raw.value_size,
            max_entries: raw.max_entries,
            flags: raw.map_flags,
            name: name_from_field(&raw.name),
        })
    }

    pub(crate) fn describe(&self, operation: &str) -> String {
        format!(
            "{operation} {} map {:?}",
            self.definition.map_type, self.definition.name
        )
    }

    fn check_key(&self, key: &[u8], operation: &str) -> Result<(), SysError> {
        if key.len() == self.definition.key_size as usize {
            Ok(())
        } else {
            Err(SysError::invalid(
                self.describe(&format!("{operation} in")),
                format!(
                    "key is {} bytes, the map's keys are {}",
                    key.len(),
                    self.definition.key_size
                ),
            ))
        }
    }

    fn check_value(&self, length: usize, operation: &str) -> Result<(), SysError> {
        self.check_value_length(length, self.value_buffer_size(), operation)
    }

    fn check_value_length(
        &self,
        length: usize,
        expected: usize,
        operation: &str,
    ) -> Result<(), SysError> {
        if length == expected {
            Ok(())
        } else {
            Err(SysError::invalid(
                self.describe(&format!("{operation} in")),
                format!("value buffer is {length} bytes, {expected} are needed"),
            ))
        }
    }

    fn check_per_cpu(&self, operation: &str) -> Result<(), SysError> {
        if self.definition.map_type.is_per_cpu() {
            Ok(())
        } else {
            Err(SysError::invalid(
                self.describe(&format!("{operation} in")),
                "not a per-CPU map",
            ))
        }
    }
}

impl AsFd for MapFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Turns ENOENT into `false`, other results into `true` or the error.
fn not_found_as_false(result: Result<libc::c_long, SysError>) -> Result<bool, SysError> {
    match result {
        Ok(_) => Ok(true),
        Err(error) if error.errno() == Some(libc::ENOENT) => Ok(false),
        Err(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_cpu_strides_round_to_eight() {
        let cases = [(1, 8), (8, 8), (9, 16), (24, 24), (0, 0)];
        for (value_size, stride) in cases {
            assert_eq!(per_cpu_value_stride(value_size), stride, "{value_size}");
        }
    }
}
