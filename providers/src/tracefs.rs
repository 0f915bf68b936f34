//! tracefs access: finding (or mounting) the tracing file system, listing the event
//! groups and events under `events/`, and parsing an event's `format` file.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::ProviderError;

/// Where tracefs lives when it is mounted: its own mount point, then the old place
/// under debugfs.
pub const TRACEFS_MOUNT_POINTS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// Event groups that are not tracepoints: `ftrace` holds the tracer's own record
/// formats (function, funcgraph_entry, …), which cannot be attached to.
pub const NON_TRACEPOINT_GROUPS: [&str; 1] = ["ftrace"];

/// A tracefs instance rooted at a directory (the real one, or a copy made by tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracefs {
    root: PathBuf,
}

/// One field of a tracepoint record, from a `format` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventField {
    /// The C type as declared, with any array suffix (`const char *`, `char [16]`).
    pub c_type: String,
    pub name: String,
    pub offset: u32,
    pub size: u32,
    pub signed: bool,
}

/// The parsed `format` file of one event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EventFormat {
    /// The event name (`sys_enter_openat`).
    pub name: String,
    /// The tracepoint id (the `ID:` line), for perf_event_open.
    pub id: Option<u32>,
    /// Every field, including the `common_*` header fields, in file order.
    pub fields: Vec<EventField>,
}

impl EventFormat {
    /// The fields after the common header (`common_*`), i.e. the event's own arguments.
    pub fn argument_fields(&self) -> impl Iterator<Item = &EventField> {
        self.fields
            .iter()
            .filter(|field| !field.name.starts_with("common_"))
    }
}

impl Tracefs {
    /// A tracefs rooted at `root` (the directory holding `events/`).
    pub fn at(root: impl Into<PathBuf>) -> Tracefs {
        Tracefs { root: root.into() }
    }

    /// The first mounted tracefs whose `events/` directory exists, if any.
    pub fn find() -> Option<Tracefs> {
        TRACEFS_MOUNT_POINTS
            .iter()
            .map(Tracefs::at)
            .find(|tracefs| tracefs.events_dir().is_dir())
    }

    /// The directory holding `events/`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The `events/` directory.
    pub fn events_dir(&self) -> PathBuf {
        self.root.join("events")
    }

    /// The event groups (`sched`, `syscalls`, …), sorted.
    pub fn groups(&self) -> Result<Vec<String>, ProviderError> {
        sorted_subdirectories(&self.events_dir())
    }

    /// The events of `group`, sorted.
    pub fn events(&self, group: &str) -> Result<Vec<String>, ProviderError> {
        sorted_subdirectories(&self.events_dir().join(group))
    }

    /// Every tracepoint as (group, event), sorted by group then event: the events of
    /// every group but those that are not tracepoints ([`NON_TRACEPOINT_GROUPS`]).
    /// They come from the one file `available_events` where there is one (reading the
    /// hundred-odd group directories instead was a measurable part of start-up);
    /// otherwise (a copy of `events/` alone) from the directories, where a group that
    /// cannot be read contributes no events rather than hiding every other group. An
    /// unreadable `events/` gives none.
    pub fn tracepoints(&self) -> Vec<(String, String)> {
        if let Ok(listing) = fs::read_to_string(self.root.join("available_events")) {
            let mut tracepoints: Vec<(String, String)> = listing
                .lines()
                .filter_map(|line| line.trim().split_once(':'))
                .filter(|(group, _)| !NON_TRACEPOINT_GROUPS.contains(group))
                .map(|(group, event)| (group.to_string(), event.to_string()))
                .collect();
            tracepoints.sort();
            tracepoints.dedup();
            return tracepoints;
        }
        let groups = self.groups().unwrap_or_default();
        let mut tracepoints = Vec::new();
        for group in groups
            .iter()
            .filter(|group| !NON_TRACEPOINT_GROUPS.contains(&group.as_str()))
        {
            for event in self.events(group).unwrap_or_default() {
                tracepoints.push((group.clone(), event));
            }
        }
        tracepoints
    }

    /// Reads and parses `events/GROUP/EVENT/format`.
    pub fn event_format(&self, group: &str, event: &str) -> Result<EventFormat, ProviderError> {
        let path = self.events_dir().join(group).join(event).join("format");
        let text = fs::read_to_string(&path).map_err(|error| ProviderError::io(&path, &error))?;
        parse_event_format(&text).map_err(|message| ProviderError::malformed(&path, message))
    }
}

/// The names of the subdirectories of `directory`, sorted bytewise.
fn sorted_subdirectories(directory: &Path) -> Result<Vec<String>, ProviderError> {
    let entries = fs::read_dir(directory).map_err(|error| ProviderError::io(directory, &error))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|error| ProviderError::io(directory, &error))?;
        let is_directory = entry
            .file_type()
            .map(|file_type| file_type.is_dir())
            .unwrap_or(false);
        if let (true, Some(name)) = (is_directory, entry.file_name().to_str()) {
            names.push(name.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// Parses the text of a tracefs `format` file.
///
/// Field lines look like
/// `\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;`.
pub fn parse_event_format(text: &str) -> Result<EventFormat, String> {
    let mut format = EventFormat::default();
    for line in text.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("name:") {
            format.name = name.trim().to_string();
        } else if let Some(id) = line.strip_prefix("ID:") {
            format.id = Some(
                id.trim()
                    .parse()
                    .map_err(|_| format!("bad ID line `{line}`"))?,
            );
        } else if line.starts_with("field:") {
            format.fields.push(parse_field_line(line)?);
        }
    }
    Ok(format)
}

/// Parses one `field:…;offset:…;size:…;signed:…;` line.
fn parse_field_line(line: &str) -> Result<EventField, String> {
    let mut declaration = None;
    let (mut offset, mut size, mut signed) = (None, None, false);
    for part in line
        .split(';')
        .map(str::trim)
        .filter(|part| !part.is_empty())
    {
        let (key, value) = part
            .split_once(':')
            .ok_or_else(|| format!("bad field part `{part}`"))?;
        match key {
            "field" => declaration = Some(value.trim()),
            "offset" => offset = value.trim().parse().ok(),
            "size" => size = value.trim().parse().ok(),
            "signed" => signed = value.trim() == "1",
            _ => {}
        }
    }
    let declaration =
        declaration.ok_or_else(|| format!("field line without declaration `{line}`"))?;
    let (c_type, name) = split_declaration(declaration)
        .ok_or_else(|| format!("bad field declaration `{declaration}`"))?;
    Ok(EventField {
        c_type,
        name,
        offset: offset.ok_or_else(|| format!("field line without offset `{line}`"))?,
        size: size.ok_or_else(|| format!("field line without size `{line}`"))?,
        signed,
    })
}

/// Splits a C declaration `TYPE NAME[SUFFIX]` into the type (with the array suffix
/// moved after it, `char [16]`) and the name.
fn split_declaration(declaration: &str) -> Option<(String, String)> {
    let (base, array_suffix) = match declaration.rfind('[') {
        Some(open) if declaration.ends_with(']') && is_identifier_end(&declaration[..open]) => {
            (&declaration[..open], Some(&declaration[open..]))
        }
        _ => (declaration, None),
    };
    let base = base.trim_end();
    let name_start = base
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_ascii_alphanumeric() || c == '_')
        .last()
        .map(|(index, _)| index)?;
    let name = &base[name_start..];
    let c_type = base[..name_start].trim();
    if c_type.is_empty() {
        return None;
    }
    let c_type = match array_suffix {
        Some(suffix) => format!("{c_type} {suffix}"),
        None => c_type.to_string(),
    };
    Some((c_type, name.to_string()))
}

/// True when `text` ends with an identifier character (so a following `[` starts the
/// array suffix of a field name rather than being part of the type, as in
/// `__data_loc char[] name`).
fn is_identifier_end(text: &str) -> bool {
    text.chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Returns the mounted tracefs, mounting it at `/sys/kernel/tracing` first when no
/// mount point has an `events/` directory and we are root.
///
/// A fresh boot may leave tracefs unmounted; the sdt and syscall providers need it to
/// enumerate tracepoints and the kernel engine needs it for tracepoint ids, so the
/// consumer calls this before matching probes. Enumeration never mounts anything by
/// itself. The mount itself is kernel-shim's, which the engine also uses.
pub fn mount_tracefs_if_missing() -> Result<Tracefs, ProviderError> {
    if let Some(tracefs) = Tracefs::find() {
        return Ok(tracefs);
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err(ProviderError::Tracefs {
            message: "tracefs is not mounted, and mounting it requires root".to_string(),
        });
    }
    let root =
        kernel_shim::sys::tracefs::tracefs_root().map_err(|error| ProviderError::Tracefs {
            message: error.to_string(),
        })?;
    Tracefs::find().ok_or_else(|| ProviderError::Tracefs {
        message: format!(
            "tracefs mounted at {} but it has no events/ directory",
            root.display()
        ),
    })
}
