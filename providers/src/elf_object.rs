//! Reading the parts of an ELF object that user-space probes need: function symbols
//! (`.symtab` and `.dynsym`), the PT_LOAD segments that turn virtual addresses into the
//! file offsets uprobes take, and the USDT probe sites of `.note.stapsdt`.

use std::fs::File;
use std::path::{Path, PathBuf};

use object::elf::{
    FileHeader64, DT_RPATH, DT_RUNPATH, PT_LOAD, SHN_UNDEF, SHT_DYNSYM, SHT_SYMTAB, STB_LOCAL,
    STT_FUNC,
};
use object::read::elf::{Dyn, FileHeader, ProgramHeader, SectionHeader, SectionTable, Sym};
use object::{Endianness, ReadCache, ReadRef};

use crate::error::ProviderError;

/// A function symbol of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSymbol {
    pub name: String,
    /// Virtual address as linked (relative to the load base for shared objects).
    pub address: u64,
    pub size: u64,
    /// Whether the symbol is local (STB_LOCAL) rather than global or weak.
    pub is_local: bool,
}

impl FunctionSymbol {
    /// How DTrace's libproc orders aliases, symbols sharing one address: global or weak
    /// before local, fewer leading underscores, smaller size, then by name. The first
    /// is the name an address is shown as and the one a globbed pid description takes.
    fn alias_preference(&self) -> (bool, usize, u64, &str) {
        let underscores = self.name.len() - self.name.trim_start_matches('_').len();
        (self.is_local, underscores, self.size, &self.name)
    }
}

/// A PT_LOAD segment: the mapping between virtual addresses and file offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadSegment {
    pub address: u64,
    pub memory_size: u64,
    pub file_offset: u64,
    /// How many of the segment's bytes the file holds (the rest, `.bss`, is zeroed).
    pub file_size: u64,
}

/// One `.note.stapsdt` probe site, with its address adjusted for prelinking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsdtNote {
    pub provider: String,
    pub name: String,
    /// Virtual address of the probe instruction.
    pub address: u64,
    /// Virtual address of the semaphore, or 0 when the probe has none.
    pub semaphore_address: u64,
    /// The argument specification (`-4@112(%rsp) 8@%rbx`).
    pub arguments: String,
}

/// What the probes need to know about one ELF object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfObject {
    pub path: PathBuf,
    /// Function symbols, one per name, sorted by address then name.
    pub functions: Vec<FunctionSymbol>,
    pub load_segments: Vec<LoadSegment>,
    /// USDT sites in note order.
    pub usdt_notes: Vec<UsdtNote>,
    /// The directories the dynamic linker searches first for the libraries this object
    /// loads: its DT_RUNPATH or, without one, its DT_RPATH, as written (`$ORIGIN`
    /// unexpanded).
    pub library_search_path: Vec<String>,
}

/// The directories of the dynamic section's DT_RUNPATH, or else DT_RPATH; none when
/// the object has neither (or no readable dynamic section).
fn read_library_search_path<'data, R: ReadRef<'data>>(
    sections: &SectionTable<'data, FileHeader64<Endianness>, R>,
    endian: Endianness,
    data: R,
) -> Vec<String> {
    let Ok(Some((entries, link))) = sections.dynamic(endian, data) else {
        return Vec::new();
    };
    let Ok(strings) = sections.strings(endian, data, link) else {
        return Vec::new();
    };
    let text_of = |tag: object::elf::DynamicTag| {
        entries
            .iter()
            .find(|entry| entry.tag(endian) == tag)
            .and_then(|entry| entry.string(endian, strings).ok())
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
    };
    text_of(DT_RUNPATH)
        .or_else(|| text_of(DT_RPATH))
        .map(|path| {
            path.split(':')
                .filter(|directory| !directory.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The ELF note type of a SystemTap SDT probe.
const NT_STAPSDT: u32 = 3;

impl ElfObject {
    /// Opens and reads `path`. Only 64-bit ELF objects are supported.
    pub fn open(path: &Path) -> Result<ElfObject, ProviderError> {
        let file = File::open(path).map_err(|error| ProviderError::io(path, &error))?;
        let cache = ReadCache::new(file);
        ElfObject::parse(path, &cache)
    }

    /// Reads an ELF object from `data`; `path` is recorded and used in errors.
    pub fn parse<'data, R: ReadRef<'data>>(
        path: &Path,
        data: R,
    ) -> Result<ElfObject, ProviderError> {
        let malformed = |error: object::Error| ProviderError::malformed(path, error.to_string());
        let header = FileHeader64::<Endianness>::parse(data).map_err(malformed)?;
        let endian = header.endian().map_err(malformed)?;
        let load_segments = header
            .program_headers(endian, data)
            .map_err(malformed)?
            .iter()
            .filter(|segment| segment.p_type(endian) == PT_LOAD)
            .map(|segment| LoadSegment {
                address: segment.p_vaddr(endian),
                memory_size: segment.p_memsz(endian),
                file_offset: segment.p_offset(endian),
                file_size: segment.p_filesz(endian),
            })
            .collect();
        let sections = header.sections(endian, data).map_err(malformed)?;
        let functions = read_function_symbols(&sections, endian, data).map_err(malformed)?;
        let usdt_notes = read_usdt_notes(&sections, endian, data).map_err(malformed)?;
        let library_search_path = read_library_search_path(&sections, endian, data);
        Ok(ElfObject {
            path: path.to_path_buf(),
            functions,
            load_segments,
            usdt_notes,
            library_search_path,
        })
    }

    /// The file offset of virtual address `address`, through the PT_LOAD segments.
    pub fn file_offset(&self, address: u64) -> Option<u64> {
        self.load_segments
            .iter()
            .find(|segment| {
                address >= segment.address && address - segment.address < segment.memory_size
            })
            .map(|segment| segment.file_offset + (address - segment.address))
    }

    /// The virtual address the file's byte at `file_offset` is loaded at, through the
    /// PT_LOAD segments.
    pub fn address_of_file_offset(&self, file_offset: u64) -> Option<u64> {
        self.load_segments
            .iter()
            .find(|segment| {
                file_offset >= segment.file_offset
                    && file_offset - segment.file_offset < segment.file_size
            })
            .map(|segment| segment.address + (file_offset - segment.file_offset))
    }

    /// The `size` bytes at virtual address `address` as the file holds them (what a
    /// function's code is before the process runs), read from the object's path.
    /// Bytes the file does not hold are an error.
    pub fn read_bytes(&self, address: u64, size: u64) -> Result<Vec<u8>, ProviderError> {
        use std::os::unix::fs::FileExt;
        let file_offset = self
            .load_segments
            .iter()
            .find(|segment| {
                address >= segment.address
                    && address - segment.address < segment.file_size
                    && segment.file_size - (address - segment.address) >= size
            })
            .map(|segment| segment.file_offset + (address - segment.address))
            .ok_or_else(|| {
                ProviderError::malformed(
                    &self.path,
                    format!("no file bytes for {size} bytes at {address:#x}"),
                )
            })?;
        let length = usize::try_from(size)
            .map_err(|_| ProviderError::malformed(&self.path, "size too large"))?;
        let mut bytes = vec![0; length];
        File::open(&self.path)
            .and_then(|file| file.read_exact_at(&mut bytes, file_offset))
            .map_err(|error| ProviderError::io(&self.path, &error))?;
        Ok(bytes)
    }

    /// The function whose range `[address, address + size)` holds `address`; of
    /// aliases, the preferred name.
    pub fn function_containing(&self, address: u64) -> Option<&FunctionSymbol> {
        let contains = |function: &&FunctionSymbol| {
            function.address <= address && address - function.address < function.size.max(1)
        };
        let candidates = self
            .functions
            .partition_point(|function| function.address <= address);
        let start = self.functions[..candidates]
            .iter()
            .rev()
            .take_while(|function| function.address <= address)
            .find(contains)?
            .address;
        let first_alias = self
            .functions
            .partition_point(|function| function.address < start);
        self.functions[first_alias..].iter().find(contains)
    }
}

/// The defined function symbols of `.symtab` and `.dynsym`, one per name (a global
/// symbol wins over a local one of the same name, then the lower address), sorted by
/// address, aliases in DTrace's order of preference. GNU indirect functions are left out: their address is the
/// resolver, not the function callers reach.
fn read_function_symbols<'data, R: ReadRef<'data>>(
    sections: &SectionTable<'data, FileHeader64<Endianness>, R>,
    endian: Endianness,
    data: R,
) -> object::Result<Vec<FunctionSymbol>> {
    let mut symbols: Vec<(String, bool, u64, u64)> = Vec::new();
    for table_type in [SHT_SYMTAB, SHT_DYNSYM] {
        let table = sections.symbols(endian, data, table_type)?;
        for symbol in table.iter() {
            if symbol.st_type() != STT_FUNC
                || symbol.st_shndx(endian) == SHN_UNDEF
                || symbol.st_value(endian) == 0
            {
                continue;
            }
            let Ok(name) = table.symbol_name(endian, symbol) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let is_local = symbol.st_bind() == STB_LOCAL;
            symbols.push((
                String::from_utf8_lossy(name).into_owned(),
                is_local,
                symbol.st_value(endian),
                symbol.st_size(endian),
            ));
        }
    }
    symbols.sort_by(|a, b| (&a.0, a.1, a.2).cmp(&(&b.0, b.1, b.2)));
    symbols.dedup_by(|later, earlier| later.0 == earlier.0);
    let mut functions: Vec<FunctionSymbol> = symbols
        .into_iter()
        .map(|(name, is_local, address, size)| FunctionSymbol {
            name,
            address,
            size,
            is_local,
        })
        .collect();
    functions
        .sort_by(|a, b| (a.address, a.alias_preference()).cmp(&(b.address, b.alias_preference())));
    Ok(functions)
}

/// The USDT sites of `.note.stapsdt`, with each pc adjusted by the difference between
/// the `.stapsdt.base` section's address and the base the note recorded (prelink moves
/// the first but not the second).
fn read_usdt_notes<'data, R: ReadRef<'data>>(
    sections: &SectionTable<'data, FileHeader64<Endianness>, R>,
    endian: Endianness,
    data: R,
) -> object::Result<Vec<UsdtNote>> {
    let Some((_, note_section)) = sections.section_by_name(endian, b".note.stapsdt") else {
        return Ok(Vec::new());
    };
    let base_section_address = sections
        .section_by_name(endian, b".stapsdt.base")
        .map(|(_, base)| base.sh_addr(endian));
    let Some(mut notes) = note_section.notes(endian, data)? else {
        return Ok(Vec::new());
    };
    let mut usdt_notes = Vec::new();
    while let Some(note) = notes.next()? {
        if note.name() != b"stapsdt" || note.n_type(endian).0 != NT_STAPSDT {
            continue;
        }
        if let Some(usdt_note) = parse_stapsdt_descriptor(note.desc(), endian, base_section_address)
        {
            usdt_notes.push(usdt_note);
        }
    }
    Ok(usdt_notes)
}

/// Decodes one stapsdt descriptor: pc, base and semaphore (three u64), then the
/// provider, name and argument strings, each NUL-terminated. Malformed descriptors are
/// skipped (None).
fn parse_stapsdt_descriptor(
    descriptor: &[u8],
    endian: Endianness,
    base_section_address: Option<u64>,
) -> Option<UsdtNote> {
    let word = |index: usize| -> Option<u64> {
        let bytes: [u8; 8] = descriptor.get(index * 8..index * 8 + 8)?.try_into().ok()?;
        Some(match endian {
            Endianness::Little => u64::from_le_bytes(bytes),
            Endianness::Big => u64::from_be_bytes(bytes),
        })
    };
    let (pc, recorded_base, semaphore_address) = (word(0)?, word(1)?, word(2)?);
    let mut strings = descriptor.get(24..)?.split(|&byte| byte == 0);
    let mut next_string = || {
        strings
            .next()
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
    };
    let (provider, name, arguments) = (
        next_string()?,
        next_string()?,
        next_string().unwrap_or_default(),
    );
    if provider.is_empty() || name.is_empty() {
        return None;
    }
    let address = match base_section_address {
        Some(actual_base) if recorded_base != 0 => {
            pc.wrapping_add(actual_base.wrapping_sub(recorded_base))
        }
        _ => pc,
    };
    Some(UsdtNote {
        provider,
        name,
        address,
        semaphore_address,
        arguments,
    })
}
