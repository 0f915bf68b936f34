//! Rebuilding a DIFO's string table from what a listing shows: strings at known offsets
//! (`sets` comments), then strings whose offset the listing does not show (variable
//! names, hand-written immediates), which reuse an equal string, fill a hole, or go at
//! the end.

/// A string table under construction: each byte is known or still free.
#[derive(Debug, Default)]
pub(crate) struct StringTableBuilder {
    cells: Vec<Option<u8>>,
}

impl StringTableBuilder {
    /// Places `bytes` and a terminating NUL at `offset`; an error if that contradicts a
    /// byte placed before.
    pub(crate) fn place(&mut self, offset: u32, bytes: &[u8]) -> Result<(), String> {
        let start = offset as usize;
        let end = start + bytes.len() + 1;
        if self.cells.len() < end {
            self.cells.resize(end, None);
        }
        let terminated = bytes.iter().copied().chain(std::iter::once(0));
        for (cell, byte) in self.cells[start..end].iter_mut().zip(terminated) {
            match cell {
                Some(existing) if *existing != byte => {
                    return Err(format!(
                        "DT_STRING[{offset}] contradicts a string placed before it"
                    ));
                }
                _ => *cell = Some(byte),
            }
        }
        Ok(())
    }

    /// The offset of `bytes` (NUL-terminated): an equal whole string already placed,
    /// else the first place it fits (over free bytes, or bytes that already hold what it
    /// needs, such as the tail a `sets` showed), else the end of the table. Places it.
    pub(crate) fn locate(&mut self, bytes: &[u8]) -> u32 {
        let terminated: Vec<u8> = bytes.iter().copied().chain(std::iter::once(0)).collect();
        let length = self.cells.len();
        let existing = (0..length).find(|&start| {
            self.starts_a_string(start)
                && self
                    .cells
                    .get(start..start + terminated.len())
                    .is_some_and(|cells| {
                        cells
                            .iter()
                            .zip(&terminated)
                            .all(|(cell, byte)| *cell == Some(*byte))
                    })
        });
        let start = existing.unwrap_or_else(|| {
            (0..=length)
                .find(|&start| {
                    self.starts_a_string(start)
                        && self.cells[start..(start + terminated.len()).min(length)]
                            .iter()
                            .zip(&terminated)
                            .all(|(cell, byte)| cell.is_none() || *cell == Some(*byte))
                })
                .unwrap_or(length)
        });
        let end = start + terminated.len();
        if self.cells.len() < end {
            self.cells.resize(end, None);
        }
        for (cell, byte) in self.cells[start..end].iter_mut().zip(terminated) {
            *cell = Some(byte);
        }
        start as u32
    }

    /// Whether a string may start at `start`: only whole strings are shared, as in
    /// classic DTrace's string table, so not right after a known non-NUL byte (that
    /// would make it the tail of another string).
    fn starts_a_string(&self, start: usize) -> bool {
        start == 0 || !matches!(self.cells.get(start - 1), Some(Some(byte)) if *byte != 0)
    }

    /// The finished table; bytes nothing placed are NUL.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.cells
            .into_iter()
            .map(|cell| cell.unwrap_or(0))
            .collect()
    }
}
