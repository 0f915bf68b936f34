//! Where a session's output goes: the [`SessionOutput`] trait the session writes
//! through, which can also empty its destination for `ftruncate()`, and the
//! destinations dtrace(1) uses: standard output, the `-o` file and the file a
//! `freopen()` names (D-REFERENCE.md §7.1).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Stdout, Write};
use std::os::fd::AsFd;

/// A destination of the session's output.
pub trait SessionOutput: Write {
    /// `ftruncate()`: flushes what is buffered, then empties the destination and goes
    /// on writing at its start when it is a regular file. A terminal or a pipe cannot
    /// be truncated; dtrace(1) ignores the failure of ftruncate(2) on them, so this
    /// leaves them alone.
    fn truncate_output(&mut self) -> io::Result<()>;
}

/// A vector is the in-memory file the tests give a session, so truncating it empties it.
impl SessionOutput for Vec<u8> {
    fn truncate_output(&mut self) -> io::Result<()> {
        self.clear();
        Ok(())
    }
}

/// Empties `file` and moves its offset to the start, when it is a regular file. The
/// offset matters for a file that was not opened for appending (a shell's `>`): left
/// where it was, the next write would leave a hole of zeroes before it.
fn truncate_if_regular(file: &File) -> io::Result<()> {
    if !file.metadata()?.is_file() {
        return Ok(());
    }
    file.set_len(0)?;
    let mut handle = file;
    handle.seek(SeekFrom::Start(0))?;
    Ok(())
}

/// The process's standard output, as dtrace(1) writes it when there is no `-o`.
pub struct StandardOutput {
    stdout: Stdout,
}

impl StandardOutput {
    pub fn new() -> StandardOutput {
        StandardOutput {
            stdout: io::stdout(),
        }
    }
}

impl Default for StandardOutput {
    fn default() -> StandardOutput {
        StandardOutput::new()
    }
}

impl Write for StandardOutput {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.stdout.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()
    }
}

impl SessionOutput for StandardOutput {
    fn truncate_output(&mut self) -> io::Result<()> {
        self.stdout.flush()?;
        // A duplicate of descriptor 1 shares its open file and its offset, so
        // truncating and seeking through it is truncating and seeking standard output
        // itself, without taking ownership of descriptor 1.
        let duplicate = File::from(self.stdout.as_fd().try_clone_to_owned()?);
        truncate_if_regular(&duplicate)
    }
}

/// A file the session writes to: the `-o` file or the file of a `freopen()`, both
/// opened for appending (and created if missing), as dtrace(1) opens them.
pub struct OutputFile {
    writer: BufWriter<File>,
}

impl OutputFile {
    /// Opens `path` for appending, creating it if it does not exist.
    pub fn open_for_appending(path: impl AsRef<std::path::Path>) -> io::Result<OutputFile> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(OutputFile {
            writer: BufWriter::new(file),
        })
    }
}

impl Write for OutputFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.writer.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl SessionOutput for OutputFile {
    fn truncate_output(&mut self) -> io::Result<()> {
        self.writer.flush()?;
        truncate_if_regular(self.writer.get_ref())
    }
}
