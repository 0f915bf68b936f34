//! Looking BTF types up by name: the name index (struct, union, enum, typedef, function
//! and variable names to type ids) and the enumerator index, each built once, on the
//! first lookup that needs it, as a sorted table of (name hash, id) without a copy of
//! any name.

use super::format::*;
use super::kinds::BtfKind;
use super::reader::{Btf, EnumeratorIndex, NameIndex};

/// The name spaces of BTF names that the index answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BtfNamespace {
    Struct,
    Union,
    Enum,
    Typedef,
    Function,
    Variable,
}

/// FNV-1a: quick on the short identifiers BTF names, and good enough that few names share
/// a hash (the lookup compares the names themselves anyway).
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The (hash, …) entries of `table` whose hash is `hash`.
fn with_hash<T: Copy>(table: &[T], hash: u64, key: impl Fn(&T) -> u64) -> &[T] {
    let start = table.partition_point(|entry| key(entry) < hash);
    let end = start + table[start..].partition_point(|entry| key(entry) == hash);
    &table[start..end]
}

impl Btf {
    fn name_index(&self) -> &NameIndex {
        self.names.get_or_init(|| {
            let mut entries = Vec::with_capacity(self.type_count());
            for id in self.own_type_ids() {
                let Some((owner, record)) = self.record(id) else {
                    continue;
                };
                let indexed = matches!(
                    info_kind(record.info),
                    KIND_STRUCT
                        | KIND_UNION
                        | KIND_FWD
                        | KIND_ENUM
                        | KIND_ENUM64
                        | KIND_TYPEDEF
                        | KIND_FUNC
                        | KIND_VAR
                );
                let name = owner.string(record.name_offset);
                if indexed && !name.is_empty() {
                    entries.push((name_hash(name), id));
                }
            }
            // Only the hashes need ordering: a lookup ranks every entry of its hash.
            entries.sort_unstable_by_key(|&(hash, _)| hash);
            NameIndex { entries }
        })
    }

    fn enumerator_index(&self) -> &EnumeratorIndex {
        self.enumerators.get_or_init(|| {
            let mut entries = Vec::new();
            for id in self.own_type_ids() {
                if let Some(BtfKind::Enum(enumerators)) = self.type_by_id(id).map(|ty| ty.kind) {
                    for (index, (name, _)) in enumerators.iter().enumerate() {
                        entries.push((name_hash(name), id, index as u32));
                    }
                }
            }
            entries.sort_unstable_by_key(|&(hash, _, _)| hash);
            EnumeratorIndex { entries }
        })
    }

    /// How well type `id` answers for its name in `namespace`: `None` when it is not in
    /// that name space, else lower is better (a definition with members before an empty
    /// one before a forward declaration).
    fn name_rank(&self, id: u32, namespace: BtfNamespace) -> Option<u8> {
        let (_, record) = self.record(id)?;
        let (kind, vlen) = (info_kind(record.info), info_vlen(record.info));
        let union = info_kind_flag(record.info);
        let by_members = if vlen > 0 { 0 } else { 1 };
        match (namespace, kind) {
            (BtfNamespace::Struct, KIND_STRUCT) | (BtfNamespace::Union, KIND_UNION) => {
                Some(by_members)
            }
            (BtfNamespace::Struct, KIND_FWD) if !union => Some(2),
            (BtfNamespace::Union, KIND_FWD) if union => Some(2),
            (BtfNamespace::Enum, KIND_ENUM | KIND_ENUM64) => Some(by_members),
            (BtfNamespace::Typedef, KIND_TYPEDEF)
            | (BtfNamespace::Function, KIND_FUNC)
            | (BtfNamespace::Variable, KIND_VAR) => Some(0),
            _ => None,
        }
    }

    /// The type named `name` in `namespace` among this blob's own types (a module's, for
    /// split BTF). For a struct, union or enum, a definition with members is preferred to
    /// an empty duplicate or a forward declaration; otherwise the first in id order.
    pub fn named(&self, namespace: BtfNamespace, name: &str) -> Option<u32> {
        with_hash(&self.name_index().entries, name_hash(name), |entry| entry.0)
            .iter()
            .filter(|&&(_, id)| self.type_name(id) == name)
            .filter_map(|&(_, id)| Some((self.name_rank(id, namespace)?, id)))
            .min()
            .map(|(_, id)| id)
    }

    /// The enum declaring the enumerator `name`, and its value (the first enum in id
    /// order when several do).
    pub fn enumerator(&self, name: &str) -> Option<(u32, i64)> {
        with_hash(&self.enumerator_index().entries, name_hash(name), |entry| {
            entry.0
        })
        .iter()
        .filter_map(|&(_, id, index)| match self.type_by_id(id)?.kind {
            BtfKind::Enum(enumerators) => {
                let (enumerator, value) = enumerators.get(index)?;
                (enumerator == name).then_some((id, value))
            }
            _ => None,
        })
        .min_by_key(|&(id, _)| id)
    }

    /// The id of the struct named `name` that has members (a forward declaration or an
    /// empty duplicate is skipped).
    pub fn struct_id(&self, name: &str) -> Option<u32> {
        self.named(BtfNamespace::Struct, name).filter(|&id| {
            self.record(id).is_some_and(|(_, record)| {
                info_kind(record.info) == KIND_STRUCT && info_vlen(record.info) > 0
            })
        })
    }
}
