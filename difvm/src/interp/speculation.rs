//! Speculation buffers (§10): `nspec` speculations of `specsize` bytes per CPU, allocated by
//! `speculation()`, filled by clauses that `speculate()`, emptied by `commit()` and
//! `discard()`.
//!
//! The reference engine runs synchronously, so a committed or discarded speculation is
//! free again immediately: `speculation()` never fails with the "busy" reason, only with
//! "no speculative buffer available" when every speculation is in use.

use std::collections::BTreeMap;

use super::fault::RuntimeFault;

#[derive(Debug, Default)]
struct Speculation {
    active: bool,
    /// Speculated records per CPU.
    buffers: BTreeMap<u32, Vec<u8>>,
}

/// All speculations of an engine and their counters.
#[derive(Debug)]
pub struct SpeculationTable {
    speculations: Vec<Speculation>,
    size_per_cpu: u64,
    unavailable: u64,
    drops: u64,
}

impl SpeculationTable {
    /// `count` speculations (`nspec`) holding `size_per_cpu` bytes per CPU (`specsize`).
    pub fn new(count: u32, size_per_cpu: u64) -> SpeculationTable {
        SpeculationTable {
            speculations: (0..count).map(|_| Speculation::default()).collect(),
            size_per_cpu,
            unavailable: 0,
            drops: 0,
        }
    }

    /// `speculation()`: the id (from 1) of a newly activated speculation, or 0 when none is
    /// free (counted as a failed speculation).
    pub fn allocate(&mut self) -> u64 {
        match self
            .speculations
            .iter()
            .position(|speculation| !speculation.active)
        {
            Some(index) => {
                self.speculations[index].active = true;
                index as u64 + 1
            }
            None => {
                self.unavailable += 1;
                0
            }
        }
    }

    /// Checks a speculation id given to `speculate()`, `commit()` or `discard()`: `None`
    /// for 0 (no speculation), the index for 1..=nspec, an `illegal operation` fault for
    /// anything else.
    pub fn index_of(&self, id: u64) -> Result<Option<usize>, RuntimeFault> {
        if id == 0 {
            return Ok(None);
        }
        if id > self.speculations.len() as u64 {
            return Err(RuntimeFault::illegal_operation(id));
        }
        Ok(Some(id as usize - 1))
    }

    /// Whether speculation `index` is allocated.
    pub fn is_active(&self, index: usize) -> bool {
        self.speculations
            .get(index)
            .is_some_and(|speculation| speculation.active)
    }

    /// Appends a record to speculation `index` on `cpu`; a full buffer counts a
    /// speculative drop. Records for inactive speculations vanish.
    pub fn append(&mut self, index: usize, cpu: u32, record: &[u8]) {
        let size_per_cpu = self.size_per_cpu;
        let Some(speculation) = self.speculations.get_mut(index) else {
            return;
        };
        if !speculation.active {
            return;
        }
        let buffer = speculation.buffers.entry(cpu).or_default();
        if buffer.len() as u64 + record.len() as u64 > size_per_cpu {
            self.drops += 1;
            return;
        }
        buffer.extend_from_slice(record);
    }

    /// `commit()`: frees speculation `index` and returns its records per CPU.
    pub fn commit(&mut self, index: usize) -> BTreeMap<u32, Vec<u8>> {
        match self.speculations.get_mut(index) {
            Some(speculation) if speculation.active => {
                speculation.active = false;
                std::mem::take(&mut speculation.buffers)
            }
            _ => BTreeMap::new(),
        }
    }

    /// `discard()`: frees speculation `index`, dropping its records.
    pub fn discard(&mut self, index: usize) {
        if let Some(speculation) = self.speculations.get_mut(index) {
            speculation.active = false;
            speculation.buffers.clear();
        }
    }

    /// Failed `speculation()` calls (no speculative buffer available).
    pub fn unavailable(&self) -> u64 {
        self.unavailable
    }

    /// Records dropped because a speculation buffer was full.
    pub fn drops(&self) -> u64 {
        self.drops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::FaultCode;

    #[test]
    fn allocate_speculate_commit_and_discard() {
        let mut table = SpeculationTable::new(2, 16);
        assert_eq!(table.allocate(), 1);
        assert_eq!(table.allocate(), 2);
        assert_eq!(table.allocate(), 0);
        assert_eq!(table.unavailable(), 1);
        assert_eq!(table.index_of(0).unwrap(), None);
        assert_eq!(table.index_of(2).unwrap(), Some(1));
        assert_eq!(
            table.index_of(3).unwrap_err().code,
            FaultCode::IllegalOperation
        );
        table.append(0, 0, &[1; 8]);
        table.append(0, 1, &[2; 8]);
        table.append(0, 0, &[3; 8]);
        table.append(0, 0, &[4; 8]);
        assert_eq!(table.drops(), 1);
        let committed = table.commit(0);
        assert_eq!(committed[&0], [[1u8; 8], [3u8; 8]].concat());
        assert_eq!(committed[&1], vec![2u8; 8]);
        assert!(!table.is_active(0));
        assert_eq!(table.allocate(), 1);
        table.append(1, 0, &[5; 8]);
        table.discard(1);
        assert!(table.commit(1).is_empty());
    }
}
