//! What the pid and usdt providers share: splitting `NAMEpid` provider fields, matching
//! module fields against a process's objects, and a cache of parsed ELF objects.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use difvm::glob::{field_matches, is_glob_pattern};

use crate::elf_object::ElfObject;
use crate::error::{ProviderError, UserProbeErrorTag};
use crate::process_maps::MappedObject;

/// The module name DTrace accepts for a process's executable, whatever its file name.
pub const MAIN_EXECUTABLE_ALIAS: &str = "a.out";

/// Splits a provider field ending in a process id (`pid1234`, `python1234`) into the
/// provider part and the digits. None when the field does not end in digits or has
/// nothing before them.
pub fn split_provider_pid(provider_field: &str) -> Option<(&str, &str)> {
    let digits_start = provider_field
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .len();
    let (provider, digits) = provider_field.split_at(digits_start);
    (!provider.is_empty() && !digits.is_empty()).then_some((provider, digits))
}

/// Parses the pid digits of provider field `provider_field` (D_PROC_BADPID for 0 or a
/// value that is not a pid).
pub fn parse_pid(provider_field: &str, digits: &str) -> Result<u32, ProviderError> {
    match digits.parse::<u32>() {
        Ok(pid) if pid > 0 && pid <= i32::MAX as u32 => Ok(pid),
        _ => Err(ProviderError::UserProbe {
            tag: UserProbeErrorTag::BadPid,
            message: format!("'{provider_field}' does not contain a valid pid"),
        }),
    }
}

/// True when module field `pattern` selects `object`: empty matches everything; a glob
/// matches the basename (or `a.out` for the executable); an exact name matches the
/// basename, the full path, `a.out` for the executable, or a shared object's name
/// without its version (`libc` and `libc.so` for `libc.so.6`).
pub fn module_matches(pattern: &str, object: &MappedObject) -> bool {
    if pattern.is_empty() {
        return true;
    }
    if is_glob_pattern(pattern) {
        return field_matches(pattern, &object.module)
            || (object.is_main_executable && field_matches(pattern, MAIN_EXECUTABLE_ALIAS));
    }
    object.module == pattern
        || object.path == pattern
        || (object.is_main_executable && pattern == MAIN_EXECUTABLE_ALIAS)
        || object.module.strip_prefix(pattern).is_some_and(|rest| {
            rest.starts_with(".so") || (pattern.ends_with(".so") && rest.starts_with('.'))
        })
}

/// Parsed ELF objects, keyed by file identity, so that several descriptions naming the
/// same process read each object once.
#[derive(Debug, Default)]
pub struct ElfObjectCache {
    objects: Mutex<HashMap<(String, u64, PathBuf), Arc<ElfObject>>>,
}

impl ElfObjectCache {
    /// The parsed object behind `object`, reading it on first use.
    pub fn get(&self, object: &MappedObject) -> Result<Arc<ElfObject>, ProviderError> {
        let key = (
            object.device.clone(),
            object.inode,
            object.open_path.clone(),
        );
        if let Some(parsed) = self.lock().get(&key) {
            return Ok(parsed.clone());
        }
        let parsed = Arc::new(ElfObject::open(&object.open_path)?);
        self.lock().insert(key, parsed.clone());
        Ok(parsed)
    }

    /// The map; a poisoned lock only means another thread panicked mid-insert of a
    /// complete value, so the map is still consistent.
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, u64, PathBuf), Arc<ElfObject>>> {
        self.objects
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
