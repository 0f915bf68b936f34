//! User address lookup: snapshots of each process's file mappings (`/proc/PID/maps`),
//! kept after the process exits so that its addresses still resolve, the mapped objects
//! held open, and symbol lookup in those objects with blazesym (ELF `.symtab`, else
//! `.dynsym`; Rust and C++ names demangled).

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::{self, File};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use blazesym::symbolize::source::{Elf, Source};
use blazesym::symbolize::{Input, Symbolized, Symbolizer};
use providers::process_maps::{parse_maps, MapsLine};

use crate::render::symbols::{SymbolLookup, SymbolName};

/// How often a lookup that misses may read a live process's mappings again: often
/// enough to pick up objects it loaded since the last snapshot, rarely enough that a
/// stack of unresolvable frames (JIT code, say) does not reread them for every frame.
const RECAPTURE_INTERVAL: Duration = Duration::from_millis(50);

/// The suffix `/proc/PID/maps` gives files deleted since they were mapped.
const DELETED_SUFFIX: &str = " (deleted)";

/// A file mapped into some process, with the module name DTrace shows for it.
#[derive(Debug)]
pub struct MappedFile {
    /// The object's basename (`libc.so.6`).
    pub module: String,
    /// The path symbols are read through: `/proc/self/fd/N` of the descriptor held
    /// open here when the object could be opened (so it stays readable after the
    /// process exits, and names the right file across mount namespaces and deletions),
    /// else the path the process mapped.
    pub path: PathBuf,
    /// The open object; kept only so that `path` stays valid.
    _file: Option<File>,
}

impl MappedFile {
    /// An object read through the open `file`, or through `mapped_path` without one.
    pub fn new(module: String, mapped_path: &Path, file: Option<File>) -> MappedFile {
        let path = match &file {
            Some(file) => PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd())),
            None => mapped_path.to_path_buf(),
        };
        MappedFile {
            module,
            path,
            _file: file,
        }
    }
}

/// One file mapping of a process.
#[derive(Debug, Clone)]
pub struct UserMapping {
    pub start: u64,
    pub end: u64,
    /// The file offset mapped at `start`.
    pub file_offset: u64,
    pub object: Arc<MappedFile>,
}

impl UserMapping {
    /// The offset in the object's file of `address`, which the mapping holds.
    pub fn file_offset_of(&self, address: u64) -> u64 {
        address - self.start + self.file_offset
    }
}

/// What distinguishes one program run in a process from another under the same pid: a
/// reused pid has another start time, and `exec` changes the executable.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProcessIdentity {
    /// The start time in clock ticks since boot (field 22 of `/proc/PID/stat`).
    pub start_time: Option<u64>,
    /// The target of `/proc/PID/exe`.
    pub executable: Option<PathBuf>,
}

impl ProcessIdentity {
    /// The identity of live process `pid` (fields it cannot read are None).
    pub fn read(pid: u64) -> ProcessIdentity {
        let directory = PathBuf::from(format!("/proc/{pid}"));
        let start_time = fs::read_to_string(directory.join("stat"))
            .ok()
            .and_then(|stat| start_time_from_stat(&stat));
        ProcessIdentity {
            start_time,
            executable: fs::read_link(directory.join("exe")).ok(),
        }
    }
}

/// Field 22 (starttime) of a `/proc/PID/stat` line. The command name (field 2) is in
/// parentheses and may itself hold blanks and parentheses, so fields are counted from
/// the last `)`.
fn start_time_from_stat(stat: &str) -> Option<u64> {
    let after_command = &stat[stat.rfind(')')? + 1..];
    // After the command come field 3 (state) onwards; starttime is field 22.
    after_command.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// The mappings known for one process.
#[derive(Debug)]
struct ProcessMappings {
    identity: ProcessIdentity,
    /// Sorted by start address, not overlapping.
    mappings: Vec<UserMapping>,
}

/// The mapping snapshots of every process seen, and the objects they map (one open
/// descriptor per file, shared by every process mapping it).
#[derive(Debug, Default)]
pub struct MappingStore {
    processes: HashMap<u64, ProcessMappings>,
    objects: HashMap<(String, u64), Arc<MappedFile>>,
    /// When each process's mappings were last read (or tried), to pace rereading.
    last_capture: HashMap<u64, Instant>,
}

impl MappingStore {
    /// An empty store.
    pub fn new() -> MappingStore {
        MappingStore::default()
    }

    /// Reads the mappings of live process `pid` into the store. Returns false when the
    /// process is gone (or has no mappings left: a zombie).
    pub fn capture(&mut self, pid: u64) -> bool {
        self.last_capture.insert(pid, Instant::now());
        let Ok(text) = fs::read_to_string(format!("/proc/{pid}/maps")) else {
            return false;
        };
        if text.is_empty() {
            return false;
        }
        self.record_live(pid, &text);
        true
    }

    /// Takes `maps_text`, just read from `/proc/PID/maps` of live process `pid`, as its
    /// current mappings, opening the objects not seen before.
    pub fn record_live(&mut self, pid: u64, maps_text: &str) {
        self.last_capture.insert(pid, Instant::now());
        let identity = ProcessIdentity::read(pid);
        self.record(pid, identity, maps_text, &|line| {
            open_mapped_file(pid, line)
        });
    }

    /// Takes `maps_text` (the text of `/proc/PID/maps`) as the current mappings of
    /// `pid`; `open` opens the file of a mapping line (None when it cannot).
    ///
    /// Mappings of an earlier snapshot of the same program run that the new one no
    /// longer has (a `dlclose`d library, say) are kept where nothing new overlaps them,
    /// so that addresses recorded while they were mapped still resolve. A snapshot of
    /// another run (pid reused, or `exec`) replaces everything.
    pub fn record(
        &mut self,
        pid: u64,
        identity: ProcessIdentity,
        maps_text: &str,
        open: &dyn Fn(&MapsLine) -> Option<File>,
    ) {
        let mut mappings: Vec<UserMapping> = Vec::new();
        for line in parse_maps(maps_text) {
            if !line.path.starts_with('/') || line.inode == 0 || line.end <= line.start {
                continue;
            }
            let key = (line.device.clone(), line.inode);
            let object = match self.objects.get(&key) {
                Some(object) => object.clone(),
                None => {
                    let mapped_path = line.path.trim_end_matches(DELETED_SUFFIX);
                    let module = mapped_path
                        .rsplit('/')
                        .next()
                        .unwrap_or(mapped_path)
                        .to_string();
                    let object =
                        Arc::new(MappedFile::new(module, Path::new(mapped_path), open(&line)));
                    self.objects.insert(key, object.clone());
                    object
                }
            };
            mappings.push(UserMapping {
                start: line.start,
                end: line.end,
                file_offset: line.file_offset,
                object,
            });
        }
        if let Some(previous) = self.processes.remove(&pid) {
            if previous.identity == identity {
                for old in previous.mappings {
                    let overlapped = mappings
                        .iter()
                        .any(|new| new.start < old.end && old.start < new.end);
                    if !overlapped {
                        mappings.push(old);
                    }
                }
            }
        }
        mappings.sort_by_key(|mapping| mapping.start);
        self.processes
            .insert(pid, ProcessMappings { identity, mappings });
    }

    /// The mapping of `pid` that holds `address`.
    pub fn mapping(&self, pid: u64, address: u64) -> Option<&UserMapping> {
        let mappings = &self.processes.get(&pid)?.mappings;
        let following = mappings.partition_point(|mapping| mapping.start <= address);
        let mapping = mappings.get(following.checked_sub(1)?)?;
        (address < mapping.end).then_some(mapping)
    }

    /// The address at which `object` is loaded in `pid`: where its lowest mapping would
    /// put file offset 0. For shared objects this makes `address - base` the address
    /// the object's own symbol table uses.
    pub fn load_base(&self, pid: u64, object: &Arc<MappedFile>) -> Option<u64> {
        self.processes
            .get(&pid)?
            .mappings
            .iter()
            .find(|mapping| Arc::ptr_eq(&mapping.object, object))
            .map(|mapping| mapping.start.wrapping_sub(mapping.file_offset))
    }

    /// True when a lookup that missed may read `pid`'s mappings again now.
    fn may_capture(&self, pid: u64) -> bool {
        self.last_capture
            .get(&pid)
            .is_none_or(|last| last.elapsed() >= RECAPTURE_INTERVAL)
    }
}

/// Opens the file of mapping `line` of process `pid`: through `/proc/PID/map_files`
/// (which reaches deleted files and other mount namespaces), else through the process's
/// root directory, else by its path. A file reached by path must still be the mapped
/// one (same inode).
fn open_mapped_file(pid: u64, line: &MapsLine) -> Option<File> {
    let map_file = format!("/proc/{pid}/map_files/{:x}-{:x}", line.start, line.end);
    if let Ok(file) = File::open(map_file) {
        return Some(file);
    }
    let path = line.path.trim_end_matches(DELETED_SUFFIX);
    let through_root = format!("/proc/{pid}/root{path}");
    let opened = [through_root.as_str(), path]
        .into_iter()
        .find_map(|candidate| {
            let file = File::open(candidate).ok()?;
            (file.metadata().ok()?.ino() == line.inode).then_some(file)
        });
    opened
}

/// A symbol found in an object: its name and how far into it the address lies.
type ObjectSymbol = Option<(String, u64)>;

/// User symbol lookup over a [`MappingStore`].
pub struct UserSymbols {
    store: Arc<Mutex<MappingStore>>,
    symbolizer: Symbolizer,
    /// Lookups already made, by object and file offset: aggregations print the same
    /// frames many times.
    found: RefCell<HashMap<(usize, u64), ObjectSymbol>>,
}

impl Default for UserSymbols {
    fn default() -> UserSymbols {
        UserSymbols::new()
    }
}

impl UserSymbols {
    /// A lookup with an empty store.
    pub fn new() -> UserSymbols {
        UserSymbols {
            store: Arc::new(Mutex::new(MappingStore::new())),
            symbolizer: Symbolizer::builder()
                .enable_code_info(false)
                .enable_inlined_fns(false)
                .enable_demangling(true)
                .build(),
            found: RefCell::new(HashMap::new()),
        }
    }

    /// The store, for a [`super::mapping_watch::MappingWatch`] to keep fresh.
    pub fn store(&self) -> Arc<Mutex<MappingStore>> {
        self.store.clone()
    }

    fn locked_store(&self) -> MutexGuard<'_, MappingStore> {
        // A panic elsewhere while holding the lock leaves whole snapshots behind (the
        // store is only changed by inserting complete entries), so the data stays usable.
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The mapping of `pid` holding `address`, and the load base of its object. A
    /// process not seen before, or a miss in a live process, reads its mappings now.
    fn find_mapping(&self, pid: u64, address: u64) -> Option<(UserMapping, u64)> {
        if pid == 0 {
            return None;
        }
        let mut store = self.locked_store();
        if store.mapping(pid, address).is_none() && store.may_capture(pid) {
            store.capture(pid);
        }
        let mapping = store.mapping(pid, address)?.clone();
        let base = store.load_base(pid, &mapping.object)?;
        Some((mapping, base))
    }

    /// The symbol at `file_offset` of `object`.
    fn object_symbol(&self, object: &Arc<MappedFile>, file_offset: u64) -> ObjectSymbol {
        let key = (Arc::as_ptr(object) as usize, file_offset);
        if let Some(found) = self.found.borrow().get(&key) {
            return found.clone();
        }
        let mut elf = Elf::new(&object.path);
        elf.debug_syms = false;
        let found = match self
            .symbolizer
            .symbolize_single(&Source::Elf(elf), Input::FileOffset(file_offset))
        {
            Ok(Symbolized::Sym(symbol)) => Some((symbol.name.into_owned(), symbol.offset as u64)),
            _ => None,
        };
        self.found.borrow_mut().insert(key, found.clone());
        found
    }

    /// The module and symbol of `address` in process `pid`; None when no mapping of
    /// the process is known to hold it (the process exited before it was seen, or the
    /// address is anonymous memory).
    pub fn lookup(&self, pid: u64, address: u64) -> Option<SymbolLookup> {
        let (mapping, _) = self.find_mapping(pid, address)?;
        let symbol = self
            .object_symbol(&mapping.object, mapping.file_offset_of(address))
            .map(|(name, offset)| SymbolName {
                name,
                address: address - offset,
            });
        Some(SymbolLookup {
            module: mapping.object.module.clone(),
            symbol,
        })
    }

    /// `object:0xoffset` for `address` of `pid`, the offset counted from the object's
    /// load base, without looking at symbols (`-x noresolve`); None when no mapping
    /// holds the address.
    pub fn object_offset_text(&self, pid: u64, address: u64) -> Option<String> {
        let (mapping, base) = self.find_mapping(pid, address)?;
        Some(format!(
            "{}:0x{:x}",
            mapping.object.module,
            address.wrapping_sub(base)
        ))
    }
}
