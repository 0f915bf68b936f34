//! The rewriting of symbol components of aggregation keys before they are merged, as
//! DTrace's consumer does when it snapshots aggregations: a `sym()`/`func()` or
//! `usym()`/`ufunc()` key becomes the start address of its symbol and a `mod()`/`umod()`
//! key one address of its module, so that every address within one function (or one
//! module) adds to one entry: `@[ufunc(arg1)] = count()` in a profile probe has one row
//! per function, not one per sampled instruction.

use std::collections::BTreeMap;

use difvm::engine::AggregationEntry;
use difvm::object::{AggregationDescription, SymbolFormat, ValueLayout};

use crate::render::symbols::{SymbolLookup, SymbolResolver};

/// The process word of the module table for kernel modules (no process has this id).
const KERNEL_MODULES: u64 = u64::MAX;

/// Rewrites the symbol components of aggregation keys. It remembers, per process and
/// module, the first address a `mod()`/`umod()` key showed, which stands for the whole
/// module from then on (module ranges do not overlap, so keys still sort by address).
#[derive(Debug, Default)]
pub struct SymbolKeyNormalizer {
    /// The symbol components of every aggregation whose key has some, by id.
    components: BTreeMap<u32, Vec<SymbolComponent>>,
    module_addresses: BTreeMap<(u64, String), u64>,
}

/// Where one symbol component lies in an encoded key, and what it is.
#[derive(Debug, Clone, Copy)]
struct SymbolComponent {
    /// Offset of the address word within the key.
    address_offset: usize,
    /// Offset of the process word for user addresses.
    pid_offset: Option<usize>,
    format: SymbolFormat,
}

impl SymbolKeyNormalizer {
    /// A normalizer for the keys of the aggregations `descriptions`.
    pub fn new(descriptions: &[AggregationDescription]) -> SymbolKeyNormalizer {
        SymbolKeyNormalizer {
            components: descriptions
                .iter()
                .filter_map(|description| {
                    let components = symbol_components(description);
                    (!components.is_empty()).then_some((description.id, components))
                })
                .collect(),
            module_addresses: BTreeMap::new(),
        }
    }

    /// Rewrites the symbol components of the keys of `entries`; entries of aggregations
    /// without such components are left alone.
    pub fn normalize(&mut self, resolver: &dyn SymbolResolver, entries: &mut [AggregationEntry]) {
        if self.components.is_empty() {
            return;
        }
        for entry in entries {
            let Some(components) = self.components.get(&entry.aggregation).cloned() else {
                continue;
            };
            for component in components {
                self.normalize_component(resolver, &mut entry.key, component);
            }
        }
    }

    fn normalize_component(
        &mut self,
        resolver: &dyn SymbolResolver,
        key: &mut [u8],
        component: SymbolComponent,
    ) {
        let Some(address) = read_word(key, component.address_offset) else {
            return;
        };
        let (process, lookup) = match component.pid_offset {
            Some(pid_offset) => {
                let Some(pid) = read_word(key, pid_offset) else {
                    return;
                };
                (pid, resolver.user_symbol(pid, address))
            }
            None => (KERNEL_MODULES, resolver.kernel_symbol(address)),
        };
        let Some(SymbolLookup { module, symbol }) = lookup else {
            return;
        };
        let normalized = match component.format {
            SymbolFormat::Symbol => match symbol {
                Some(symbol) => symbol.address,
                None => return,
            },
            SymbolFormat::Module => *self
                .module_addresses
                .entry((process, module))
                .or_insert(address),
            SymbolFormat::SymbolWithOffset => return,
        };
        key[component.address_offset..component.address_offset + 8]
            .copy_from_slice(&normalized.to_ne_bytes());
    }
}

/// The symbol components of `description`'s key.
fn symbol_components(description: &AggregationDescription) -> Vec<SymbolComponent> {
    description
        .keys
        .iter()
        .filter_map(|slot| {
            let offset = slot.offset as usize;
            match slot.layout {
                ValueLayout::KernelSymbol(format) => Some(SymbolComponent {
                    address_offset: offset,
                    pid_offset: None,
                    format,
                }),
                ValueLayout::UserSymbol(format) => Some(SymbolComponent {
                    address_offset: offset + 8,
                    pid_offset: Some(offset),
                    format,
                }),
                _ => None,
            }
        })
        .collect()
}

fn read_word(key: &[u8], offset: usize) -> Option<u64> {
    let bytes = key.get(offset..offset + 8)?;
    Some(u64::from_ne_bytes(bytes.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::symbols::SymbolName;
    use difvm::object::{AggregationFunction, RecordSlot};

    /// Functions of 0x100 bytes from 0x1000 in module `a` below 0x2000, in `b` above;
    /// the same for user addresses of any process.
    struct TwoModules;

    fn lookup(address: u64) -> Option<SymbolLookup> {
        let module = if address < 0x2000 { "a" } else { "b" };
        Some(SymbolLookup {
            module: module.to_string(),
            symbol: Some(SymbolName {
                name: format!("f{:x}", address / 0x100),
                address: address / 0x100 * 0x100,
            }),
        })
    }

    impl SymbolResolver for TwoModules {
        fn kernel_symbol(&self, address: u64) -> Option<SymbolLookup> {
            lookup(address)
        }

        fn user_symbol(&self, _pid: u64, address: u64) -> Option<SymbolLookup> {
            lookup(address)
        }
    }

    fn description(id: u32, layout: ValueLayout, size: u32) -> AggregationDescription {
        AggregationDescription {
            id,
            name: format!("a{id}"),
            function: AggregationFunction::Count,
            keys: vec![RecordSlot {
                offset: 0,
                size,
                alignment: 8,
                layout,
            }],
            key_size: size,
        }
    }

    fn entry(aggregation: u32, words: &[u64]) -> AggregationEntry {
        AggregationEntry {
            aggregation,
            key: words.iter().flat_map(|word| word.to_ne_bytes()).collect(),
            value: vec![1],
            per_cpu: Vec::new(),
        }
    }

    #[test]
    fn function_keys_become_the_start_of_their_function() {
        let descriptions = [
            description(1, ValueLayout::KernelSymbol(SymbolFormat::Symbol), 8),
            description(2, ValueLayout::UserSymbol(SymbolFormat::Symbol), 16),
            description(
                3,
                ValueLayout::UserSymbol(SymbolFormat::SymbolWithOffset),
                16,
            ),
        ];
        let mut normalizer = SymbolKeyNormalizer::new(&descriptions);
        let mut entries = vec![
            entry(1, &[0x1234]),
            entry(2, &[7, 0x1ff0]),
            entry(3, &[7, 0x1234]),
        ];
        normalizer.normalize(&TwoModules, &mut entries);
        assert_eq!(entries[0].key, entry(1, &[0x1200]).key);
        assert_eq!(entries[1].key, entry(2, &[7, 0x1f00]).key);
        // uaddr() keeps its offset, as in DTrace.
        assert_eq!(entries[2].key, entry(3, &[7, 0x1234]).key);
    }

    #[test]
    fn module_keys_become_one_address_per_module_and_process() {
        let descriptions = [
            description(1, ValueLayout::KernelSymbol(SymbolFormat::Module), 8),
            description(2, ValueLayout::UserSymbol(SymbolFormat::Module), 16),
        ];
        let mut normalizer = SymbolKeyNormalizer::new(&descriptions);
        let mut entries = vec![
            entry(1, &[0x1234]),
            entry(1, &[0x1800]),
            entry(1, &[0x2800]),
            entry(2, &[7, 0x1800]),
            entry(2, &[8, 0x1234]),
        ];
        normalizer.normalize(&TwoModules, &mut entries);
        let keys: Vec<&[u8]> = entries.iter().map(|entry| entry.key.as_slice()).collect();
        assert_eq!(keys[0], keys[1]);
        assert_eq!(keys[2], entry(1, &[0x2800]).key.as_slice());
        // Each process has its own first address for the module.
        assert_eq!(keys[3], entry(2, &[7, 0x1800]).key.as_slice());
        assert_eq!(keys[4], entry(2, &[8, 0x1234]).key.as_slice());
    }
}
