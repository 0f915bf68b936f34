//! `-L dir` (`libdir`): reading the user's D library directories for the compiler. Every
//! regular file whose name ends in `.d` is a library file, taken in the order of the
//! directories and by name within one (libdtrace takes readdir(3) order; sorting keeps
//! runs reproducible). A directory that cannot be read is skipped, as libdtrace skips
//! it; the compiler (`dlang`'s `sema::user_libraries`) orders and declares the files.

use std::path::Path;

use dlang::compile::LibraryFileSource;

/// The library files of `directories`.
pub fn read_library_directories(directories: &[String]) -> Vec<LibraryFileSource> {
    let mut files = Vec::new();
    for directory in directories {
        let Ok(entries) = std::fs::read_dir(directory) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.file_type().is_ok_and(|kind| !kind.is_dir()))
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| name.ends_with(".d"))
            .collect();
        names.sort();
        for name in names {
            let path = format!("{directory}/{name}");
            if let Ok(text) = std::fs::read_to_string(Path::new(&path)) {
                files.push(LibraryFileSource { path, text });
            }
        }
    }
    files
}
