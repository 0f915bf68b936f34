//! The environment `-c` commands run with: dtrace's own, changed by the `setenv` and
//! `unsetenv` options.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;

/// The changes the `setenv` and `unsetenv` options make to the environment `-c`
/// commands run with (dtrace's own otherwise).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CommandEnvironment {
    /// `NAME=value` settings, in order.
    pub set: Vec<String>,
    /// Names removed.
    pub unset: Vec<String>,
}

impl CommandEnvironment {
    /// dtrace's environment with the changes applied, as `NAME=value` C strings; None
    /// when there are no changes (the command then inherits dtrace's environment).
    pub(crate) fn entries(&self) -> Option<Vec<CString>> {
        if self.set.is_empty() && self.unset.is_empty() {
            return None;
        }
        let name_of = |entry: &[u8]| -> Vec<u8> {
            entry
                .split(|&byte| byte == b'=')
                .next()
                .unwrap_or(&[])
                .to_vec()
        };
        let mut entries: Vec<Vec<u8>> = std::env::vars_os()
            .map(|(name, value)| [name.as_bytes(), b"=", value.as_bytes()].concat())
            .collect();
        for setting in &self.set {
            let name = name_of(setting.as_bytes());
            entries.retain(|entry| name_of(entry) != name);
            entries.push(setting.as_bytes().to_vec());
        }
        for name in &self.unset {
            entries.retain(|entry| name_of(entry) != name.as_bytes());
        }
        Some(
            entries
                .into_iter()
                .filter_map(|entry| CString::new(entry).ok())
                .collect(),
        )
    }
}
