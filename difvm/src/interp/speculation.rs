//! Speculation buffers (§10): `nspec` speculations of `specsize` bytes per CPU, allocated by
//! `speculation()`, filled by clauses that `speculate()`, emptied by `commit()` and
//! `discard()`.
//!
//! The reference engine runs synchronously: a commit copies every CPU's records at once.
//! A committed speculation is free again immediately when no CPU but the committing one
//! holds data in it; otherwise DTrace leaves it "committing" until its cleaner has
//! committed the other CPUs' buffers. A discarded one is free at once only when the
//! discarding CPU alone holds data in it; otherwise (nothing speculated yet, or data on
//! other CPUs) DTrace leaves it "discarding" until its cleaner runs. Until the cleaner
//! has run, at `cleanrate`, `speculation()` fails with the "busy" reason. The cleaner is
//! emulated lazily: such a speculation is free once `cleanrate`'s interval has passed
//! since the commit or discard.

use std::collections::BTreeMap;

use super::fault::RuntimeFault;
use crate::engine::DEFAULT_CLEAN_INTERVAL;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum State {
    #[default]
    Inactive,
    Active,
    /// Committed or discarded at this time (ns), waiting for the cleaner.
    Cleaning {
        since: u64,
    },
}

#[derive(Debug, Default)]
struct Speculation {
    state: State,
    /// Speculated records per CPU.
    buffers: BTreeMap<u32, Vec<u8>>,
    /// Speculative drops not yet reported: DTrace reports them when the speculation is
    /// committed and forgets them when it is discarded.
    drops: u64,
}

/// All speculations of an engine and their counters.
#[derive(Debug)]
pub struct SpeculationTable {
    speculations: Vec<Speculation>,
    size_per_cpu: u64,
    clean_interval: u64,
    unavailable: u64,
    busy: u64,
    drops: u64,
}

impl SpeculationTable {
    /// `count` speculations (`nspec`) holding `size_per_cpu` bytes per CPU (`specsize`).
    pub fn new(count: u32, size_per_cpu: u64) -> SpeculationTable {
        SpeculationTable {
            speculations: (0..count).map(|_| Speculation::default()).collect(),
            size_per_cpu,
            clean_interval: DEFAULT_CLEAN_INTERVAL,
            unavailable: 0,
            busy: 0,
            drops: 0,
        }
    }

    /// Sets how long (ns, `cleanrate`'s interval) a discarded speculation stays busy.
    pub fn with_clean_interval(mut self, interval: u64) -> SpeculationTable {
        self.clean_interval = interval;
        self
    }

    /// `speculation()` at time `now` (ns): the id (from 1) of a newly activated
    /// speculation, or 0 when none is free, counted as busy when one is waiting for the
    /// cleaner and as unavailable otherwise.
    pub fn allocate(&mut self, now: u64) -> u64 {
        let clean_interval = self.clean_interval;
        let mut busy = false;
        for (index, speculation) in self.speculations.iter_mut().enumerate() {
            let free = match speculation.state {
                State::Inactive => true,
                State::Active => false,
                State::Cleaning { since } => {
                    let cleaned = now.saturating_sub(since) >= clean_interval;
                    busy |= !cleaned;
                    cleaned
                }
            };
            if free {
                speculation.state = State::Active;
                return index as u64 + 1;
            }
        }
        if busy {
            self.busy += 1;
        } else {
            self.unavailable += 1;
        }
        0
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

    /// `speculate()` on `cpu` of a clause whose record is `length` bytes: whether
    /// speculation `index` is active and its buffer on `cpu` has room for the record.
    /// DTrace reserves the room at the `speculate()`, so a full buffer counts a
    /// speculative drop there, reported when the speculation is committed.
    pub fn reserve(&mut self, index: usize, cpu: u32, length: u64) -> bool {
        let size_per_cpu = self.size_per_cpu;
        let Some(speculation) = self.speculations.get_mut(index) else {
            return false;
        };
        if speculation.state != State::Active {
            return false;
        }
        let used = speculation.buffers.get(&cpu).map_or(0, Vec::len) as u64;
        if used + length > size_per_cpu {
            speculation.drops += 1;
            return false;
        }
        true
    }

    /// Appends a record to speculation `index` on `cpu`, which [`Self::reserve`] found
    /// room for. Records for speculations no longer active vanish.
    pub fn append(&mut self, index: usize, cpu: u32, record: &[u8]) {
        let Some(speculation) = self.speculations.get_mut(index) else {
            return;
        };
        if speculation.state != State::Active {
            return;
        }
        speculation
            .buffers
            .entry(cpu)
            .or_default()
            .extend_from_slice(record);
    }

    /// `commit()` on `cpu` at time `now` (ns): reports speculation `index`'s drops and
    /// returns its records per CPU. It is free at once unless another CPU holds data in
    /// it, and busy until the cleaner otherwise, as in DTrace.
    pub fn commit(&mut self, index: usize, cpu: u32, now: u64) -> BTreeMap<u32, Vec<u8>> {
        match self.speculations.get_mut(index) {
            Some(speculation) if speculation.state == State::Active => {
                let elsewhere = speculation
                    .buffers
                    .iter()
                    .any(|(each, buffer)| *each != cpu && !buffer.is_empty());
                speculation.state = if elsewhere {
                    State::Cleaning { since: now }
                } else {
                    State::Inactive
                };
                self.drops += std::mem::take(&mut speculation.drops);
                std::mem::take(&mut speculation.buffers)
            }
            _ => BTreeMap::new(),
        }
    }

    /// `discard()` on `cpu` at time `now` (ns): drops speculation `index`'s records. It
    /// is free at once when `cpu` alone holds data in it, and busy until the cleaner
    /// otherwise, as in DTrace.
    pub fn discard(&mut self, index: usize, cpu: u32, now: u64) {
        let Some(speculation) = self.speculations.get_mut(index) else {
            return;
        };
        if speculation.state != State::Active {
            return;
        }
        let holds_data = |each: &u32| {
            speculation
                .buffers
                .get(each)
                .is_some_and(|buffer| !buffer.is_empty())
        };
        let only_here = holds_data(&cpu)
            && !speculation
                .buffers
                .keys()
                .any(|each| *each != cpu && holds_data(each));
        speculation.state = if only_here {
            State::Inactive
        } else {
            State::Cleaning { since: now }
        };
        speculation.buffers.clear();
        speculation.drops = 0;
    }

    /// Failed `speculation()` calls (no speculative buffer available).
    pub fn unavailable(&self) -> u64 {
        self.unavailable
    }

    /// Failed `speculation()` calls (available buffers still busy).
    pub fn busy(&self) -> u64 {
        self.busy
    }

    /// Records dropped because a speculation buffer was full, in speculations since
    /// committed.
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
        assert_eq!(table.allocate(0), 1);
        assert_eq!(table.allocate(0), 2);
        assert_eq!(table.allocate(0), 0);
        assert_eq!(table.unavailable(), 1);
        assert_eq!(table.index_of(0).unwrap(), None);
        assert_eq!(table.index_of(2).unwrap(), Some(1));
        assert_eq!(
            table.index_of(3).unwrap_err().code,
            FaultCode::IllegalOperation
        );
        for (cpu, byte) in [(0, 1), (1, 2), (0, 3)] {
            assert!(table.reserve(0, cpu, 8));
            table.append(0, cpu, &[byte; 8]);
        }
        assert!(!table.reserve(0, 0, 8), "no room left on CPU 0");
        assert_eq!(table.drops(), 0, "reported at the commit");
        let committed = table.commit(0, 0, 0);
        assert_eq!(table.drops(), 1);
        assert_eq!(committed[&0], [[1u8; 8], [3u8; 8]].concat());
        assert_eq!(committed[&1], vec![2u8; 8]);
        assert!(!table.reserve(0, 0, 0), "committed: inactive");
        assert_eq!(
            table.allocate(0),
            0,
            "CPU 1 held data: busy until the cleaner"
        );
        assert_eq!(table.drops(), 1, "an inactive speculation is no drop");
        assert_eq!(table.allocate(DEFAULT_CLEAN_INTERVAL), 1, "cleaned");
        table.append(1, 0, &[5; 8]);
        assert!(!table.reserve(1, 0, 16));
        table.discard(1, 0, 0);
        assert!(table.commit(1, 0, 0).is_empty());
        assert_eq!(
            table.allocate(0),
            2,
            "discarded on the only CPU with data: free"
        );
        assert_eq!(
            table.drops(),
            1,
            "a discarded speculation's drops are forgotten"
        );
    }

    #[test]
    fn a_discard_without_data_here_is_busy_until_the_cleaner() {
        let mut table = SpeculationTable::new(1, 64).with_clean_interval(1000);
        assert_eq!(table.allocate(0), 1);
        table.discard(0, 0, 10);
        assert_eq!(table.allocate(500), 0);
        assert_eq!((table.busy(), table.unavailable()), (1, 0));
        assert_eq!(table.allocate(1010), 1, "the cleaner has run");
        table.append(0, 1, &[1; 8]);
        table.discard(0, 0, 2000);
        assert_eq!(table.allocate(2000), 0, "data on another CPU: busy");
        assert_eq!(table.busy(), 2);
        assert_eq!(table.allocate(3000), 1);
        assert_eq!(table.allocate(3000), 0);
        assert_eq!(table.unavailable(), 1, "active, not busy");
    }
}
