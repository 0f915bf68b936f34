//! The map from byte offsets to the line numbers (and `#line` file tags) that messages
//! print, honouring `#line N "file"`, `# N "file"` and `#pragma line` directives.

/// A line directive seen by the lexer: from `offset` on, the line there is `line` and
/// the file tag is `file`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LineDirective {
    offset: usize,
    line: u32,
    file: Option<String>,
}

/// Line numbers and file tags of one program text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMap {
    /// Byte offsets at which each physical line starts; the first is always 0.
    line_starts: Vec<usize>,
    /// Directives in source order.
    directives: Vec<LineDirective>,
}

impl SourceMap {
    /// The map of `source` with no directives applied yet.
    pub fn new(source: &str) -> SourceMap {
        let line_starts = std::iter::once(0)
            .chain(
                source
                    .bytes()
                    .enumerate()
                    .filter(|&(_, byte)| byte == b'\n')
                    .map(|(offset, _)| offset + 1),
            )
            .collect();
        SourceMap {
            line_starts,
            directives: Vec::new(),
        }
    }

    /// Records that the line starting at `offset` is numbered `line`. `file` is
    /// `Some(tag)` when the directive names a file (`Some(None)` clears the tag, as
    /// `/dev/fd/N` names do), and `None` when it keeps the current tag.
    pub(crate) fn add_line_directive(
        &mut self,
        offset: usize,
        line: u32,
        file: Option<Option<String>>,
    ) {
        let file = match file {
            Some(tag) => tag,
            None => self
                .directives
                .last()
                .and_then(|directive| directive.file.clone()),
        };
        self.directives.push(LineDirective { offset, line, file });
    }

    /// Whether `offset` lies in a C header cpp included (a file a line directive named,
    /// other than a D source file: the program's own `#line "x.d"` directives and
    /// library files name `.d` files).
    pub fn in_c_header(&self, offset: usize) -> bool {
        self.line_of(offset)
            .0
            .is_some_and(|file| !file.ends_with(".d"))
    }

    /// The 0-based physical line containing `offset`.
    fn physical_line(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }

    /// The file tag (if a directive set one) and the line number of `offset`, as
    /// messages print them (`"file", line N` or `line N`).
    pub fn line_of(&self, offset: usize) -> (Option<&str>, u32) {
        let physical = self.physical_line(offset);
        let directive = self
            .directives
            .iter()
            .rev()
            .find(|directive| directive.offset <= offset);
        match directive {
            Some(directive) => {
                let lines_after = physical.saturating_sub(self.physical_line(directive.offset));
                let line = directive
                    .line
                    .saturating_add(u32::try_from(lines_after).unwrap_or(u32::MAX));
                (directive.file.as_deref(), line)
            }
            None => (None, u32::try_from(physical + 1).unwrap_or(u32::MAX)),
        }
    }
}
