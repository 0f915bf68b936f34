//! Storage of D variables: global scalars, clause-locals (`this->`), and the dynamic
//! variables — thread-locals (`self->`) and associative-array elements — with the
//! dynamic-variable space budget (`dynvarsize`) and its drop counter.
//!
//! Integers are stored by value. By-reference values (strings, structs) are stored in
//! regions of the address space, and loading such a variable yields the region's address:
//! session regions for globals and dynamic variables, firing regions for clause-locals.
//! As in classic DTrace, storing a NULL pointer into a by-reference global or clause-local
//! makes later loads yield 0, while a never-assigned one reads as zero-filled storage
//! (the empty string). Storing 0 (or NULL) into a dynamic variable deletes it, and a
//! missing dynamic variable loads as 0.

use std::collections::HashMap;

use super::fault::RuntimeFault;
use super::memory::{AddressSpace, RegionLifetime};
use crate::difo::{DifType, VariableScope};
use crate::engine::DYNAMIC_VARIABLE_OVERHEAD;

/// What a variable holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StoredValue {
    Integer(u64),
    /// Address of the session or firing region holding the bytes.
    Reference(u64),
    /// A by-reference variable assigned a NULL pointer.
    NullReference,
}

/// Identity of one dynamic variable: a thread-local (`thread` set, empty tuple unless it is
/// a thread-local associative array) or a global associative-array element.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DynamicVariableKey {
    pub thread: Option<u64>,
    pub id: u16,
    /// The encoded key tuple (empty for thread-local scalars).
    pub tuple: Vec<u8>,
}

/// Which variable a load or store names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariableSlot {
    Global(u16),
    ClauseLocal(u16),
    Dynamic(DynamicVariableKey),
}

/// A value to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewValue {
    Integer(u64),
    /// The bytes of a by-reference value, already copied from its source and sized to the
    /// variable's type.
    Bytes(Vec<u8>),
    /// A NULL pointer stored into a by-reference variable.
    Null,
}

/// The clause-local variables of one firing, set aside while a nested ERROR firing runs.
#[derive(Debug, Default)]
pub struct ClauseLocals(HashMap<u16, StoredValue>);

/// All variable storage of an engine.
#[derive(Debug)]
pub struct VariableStore {
    /// Types of the program's variables, for DIFOs whose own table does not list one.
    types: HashMap<(VariableScope, u16), DifType>,
    globals: HashMap<u16, StoredValue>,
    clause_locals: ClauseLocals,
    dynamic: HashMap<DynamicVariableKey, (StoredValue, u64)>,
    dynamic_bytes_used: u64,
    dynamic_capacity: u64,
    dynamic_drops: u64,
}

impl VariableStore {
    /// Storage with `dynamic_capacity` bytes of dynamic-variable space and the given
    /// program-wide variable types.
    pub fn new(
        types: HashMap<(VariableScope, u16), DifType>,
        dynamic_capacity: u64,
    ) -> VariableStore {
        VariableStore {
            types,
            globals: HashMap::new(),
            clause_locals: ClauseLocals::default(),
            dynamic: HashMap::new(),
            dynamic_bytes_used: 0,
            dynamic_capacity,
            dynamic_drops: 0,
        }
    }

    /// The program-wide type of a variable, if the program declares one.
    pub fn declared_type(&self, scope: VariableScope, id: u16) -> Option<DifType> {
        self.types.get(&(scope, id)).copied()
    }

    /// Dynamic-variable drops so far (stores refused for lack of space).
    pub fn dynamic_drops(&self) -> u64 {
        self.dynamic_drops
    }

    /// Bytes of dynamic-variable space in use.
    pub fn dynamic_bytes_used(&self) -> u64 {
        self.dynamic_bytes_used
    }

    /// Forgets the clause-locals of the previous firing (their regions go with the
    /// address space's firing regions).
    pub fn reset_clause_locals(&mut self) {
        self.clause_locals.0.clear();
    }

    /// Sets the current clause-locals aside and starts with none.
    pub fn take_clause_locals(&mut self) -> ClauseLocals {
        std::mem::take(&mut self.clause_locals)
    }

    /// Puts clause-locals set aside by [`VariableStore::take_clause_locals`] back.
    pub fn restore_clause_locals(&mut self, locals: ClauseLocals) {
        self.clause_locals = locals;
    }

    /// Loads a variable. `by_reference_size` is the size of the variable's by-reference
    /// type, or `None` for integers; a never-assigned by-reference global or clause-local
    /// gets zero-filled storage of that size.
    pub fn load(
        &mut self,
        memory: &mut AddressSpace,
        slot: &VariableSlot,
        by_reference_size: Option<usize>,
    ) -> Result<u64, RuntimeFault> {
        let (map, lifetime, id) = match slot {
            VariableSlot::Dynamic(key) => {
                return Ok(match self.dynamic.get(key) {
                    Some((value, _)) => value_of(*value),
                    None => 0,
                })
            }
            VariableSlot::Global(id) => (&mut self.globals, RegionLifetime::Session, *id),
            VariableSlot::ClauseLocal(id) => {
                (&mut self.clause_locals.0, RegionLifetime::Firing, *id)
            }
        };
        if let Some(value) = map.get(&id) {
            return Ok(value_of(*value));
        }
        match by_reference_size {
            Some(size) => {
                let address = memory.map(lifetime, vec![0; size])?;
                map.insert(id, StoredValue::Reference(address));
                Ok(address)
            }
            None => Ok(0),
        }
    }

    /// Stores a variable. Storing into a dynamic variable that does not exist yet may be
    /// refused for lack of dynamic-variable space; that counts a drop and is not a fault.
    pub fn store(
        &mut self,
        memory: &mut AddressSpace,
        slot: VariableSlot,
        value: NewValue,
    ) -> Result<(), RuntimeFault> {
        match slot {
            VariableSlot::Global(id) => store_static(
                &mut self.globals,
                memory,
                RegionLifetime::Session,
                id,
                value,
            ),
            VariableSlot::ClauseLocal(id) => store_static(
                &mut self.clause_locals.0,
                memory,
                RegionLifetime::Firing,
                id,
                value,
            ),
            VariableSlot::Dynamic(key) => self.store_dynamic(memory, key, value),
        }
    }

    fn store_dynamic(
        &mut self,
        memory: &mut AddressSpace,
        key: DynamicVariableKey,
        value: NewValue,
    ) -> Result<(), RuntimeFault> {
        let old = self.dynamic.get(&key).copied();
        let bytes = match value {
            NewValue::Integer(0) | NewValue::Null => {
                if let Some((old_value, old_cost)) = old {
                    release(memory, old_value);
                    self.dynamic_bytes_used -= old_cost;
                    self.dynamic.remove(&key);
                }
                return Ok(());
            }
            NewValue::Integer(integer) => {
                let cost = DYNAMIC_VARIABLE_OVERHEAD + key.tuple.len() as u64 + 8;
                if !self.reserve_dynamic(old.map(|(_, old_cost)| old_cost), cost) {
                    return Ok(());
                }
                if let Some((old_value, _)) = old {
                    release(memory, old_value);
                }
                self.dynamic
                    .insert(key, (StoredValue::Integer(integer), cost));
                return Ok(());
            }
            NewValue::Bytes(bytes) => bytes,
        };
        if let Some((StoredValue::Reference(address), _)) = old {
            if let Some(region) = memory.region_mut(address) {
                if region.len() == bytes.len() {
                    region.copy_from_slice(&bytes);
                    return Ok(());
                }
            }
        }
        let cost = DYNAMIC_VARIABLE_OVERHEAD + key.tuple.len() as u64 + bytes.len() as u64;
        if !self.reserve_dynamic(old.map(|(_, old_cost)| old_cost), cost) {
            return Ok(());
        }
        let address = match memory.map(RegionLifetime::Session, bytes) {
            Ok(address) => address,
            Err(fault) => {
                self.dynamic_bytes_used -= cost;
                if let Some((_, old_cost)) = old {
                    self.dynamic_bytes_used += old_cost;
                }
                return Err(fault);
            }
        };
        if let Some((old_value, _)) = old {
            release(memory, old_value);
        }
        self.dynamic
            .insert(key, (StoredValue::Reference(address), cost));
        Ok(())
    }

    /// Accounts `cost` bytes for a dynamic variable replacing one of `old_cost` bytes;
    /// refuses (counting a drop) when the space would overflow.
    fn reserve_dynamic(&mut self, old_cost: Option<u64>, cost: u64) -> bool {
        let used = self.dynamic_bytes_used - old_cost.unwrap_or(0);
        // The space always holds one variable, however small `dynvarsize` is, as
        // DTrace's dynamic-variable state always has room for one chunk (and the kernel
        // engine's map for one entry).
        if used > 0 && used.saturating_add(cost) > self.dynamic_capacity {
            self.dynamic_drops += 1;
            return false;
        }
        self.dynamic_bytes_used = used + cost;
        true
    }
}

fn value_of(value: StoredValue) -> u64 {
    match value {
        StoredValue::Integer(integer) => integer,
        StoredValue::Reference(address) => address,
        StoredValue::NullReference => 0,
    }
}

fn release(memory: &mut AddressSpace, value: StoredValue) {
    if let StoredValue::Reference(address) = value {
        memory.unmap(address);
    }
}

fn store_static(
    map: &mut HashMap<u16, StoredValue>,
    memory: &mut AddressSpace,
    lifetime: RegionLifetime,
    id: u16,
    value: NewValue,
) -> Result<(), RuntimeFault> {
    let old = map.get(&id).copied();
    let new = match value {
        NewValue::Integer(integer) => StoredValue::Integer(integer),
        NewValue::Null => StoredValue::NullReference,
        NewValue::Bytes(bytes) => {
            if let Some(StoredValue::Reference(address)) = old {
                if let Some(region) = memory.region_mut(address) {
                    if region.len() == bytes.len() {
                        region.copy_from_slice(&bytes);
                        return Ok(());
                    }
                }
            }
            StoredValue::Reference(memory.map(lifetime, bytes)?)
        }
    };
    if let Some(old) = old {
        release(memory, old);
    }
    map.insert(id, new);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread_key(id: u16) -> VariableSlot {
        VariableSlot::Dynamic(DynamicVariableKey {
            thread: Some(7),
            id,
            tuple: Vec::new(),
        })
    }

    #[test]
    fn integers_round_trip_and_zero_deletes_dynamic_variables() {
        let mut memory = AddressSpace::new(0);
        let mut store = VariableStore::new(HashMap::new(), 1 << 20);
        store
            .store(
                &mut memory,
                VariableSlot::Global(0x500),
                NewValue::Integer(5),
            )
            .unwrap();
        assert_eq!(
            store
                .load(&mut memory, &VariableSlot::Global(0x500), None)
                .unwrap(),
            5
        );
        store
            .store(&mut memory, thread_key(0x501), NewValue::Integer(9))
            .unwrap();
        assert_eq!(
            store.load(&mut memory, &thread_key(0x501), None).unwrap(),
            9
        );
        assert!(store.dynamic_bytes_used() > 0);
        store
            .store(&mut memory, thread_key(0x501), NewValue::Integer(0))
            .unwrap();
        assert_eq!(
            store.load(&mut memory, &thread_key(0x501), None).unwrap(),
            0
        );
        assert_eq!(store.dynamic_bytes_used(), 0);
    }

    #[test]
    fn by_reference_globals_start_empty_and_can_be_null() {
        let mut memory = AddressSpace::new(0);
        let mut store = VariableStore::new(HashMap::new(), 1 << 20);
        let slot = VariableSlot::Global(0x500);
        let address = store.load(&mut memory, &slot, Some(4)).unwrap();
        assert_eq!(memory.internal(address, 4).unwrap(), &[0; 4]);
        store
            .store(
                &mut memory,
                slot.clone(),
                NewValue::Bytes(b"abc\0".to_vec()),
            )
            .unwrap();
        let again = store.load(&mut memory, &slot, Some(4)).unwrap();
        assert_eq!(again, address, "same-sized stores reuse the storage");
        assert_eq!(memory.internal(address, 4).unwrap(), b"abc\0");
        store
            .store(&mut memory, slot.clone(), NewValue::Null)
            .unwrap();
        assert_eq!(store.load(&mut memory, &slot, Some(4)).unwrap(), 0);
    }

    #[test]
    fn dynamic_space_exhaustion_counts_drops() {
        let mut memory = AddressSpace::new(0);
        let mut store = VariableStore::new(HashMap::new(), 2 * (DYNAMIC_VARIABLE_OVERHEAD + 8));
        store
            .store(&mut memory, thread_key(0x500), NewValue::Integer(1))
            .unwrap();
        store
            .store(&mut memory, thread_key(0x501), NewValue::Integer(2))
            .unwrap();
        store
            .store(&mut memory, thread_key(0x502), NewValue::Integer(3))
            .unwrap();
        assert_eq!(store.dynamic_drops(), 1);
        assert_eq!(
            store.load(&mut memory, &thread_key(0x502), None).unwrap(),
            0
        );
        // Replacing an existing variable needs no extra space.
        store
            .store(&mut memory, thread_key(0x501), NewValue::Integer(4))
            .unwrap();
        assert_eq!(
            store.load(&mut memory, &thread_key(0x501), None).unwrap(),
            4
        );
        assert_eq!(store.dynamic_drops(), 1);
    }
}
