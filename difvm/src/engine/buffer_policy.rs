//! The principal buffer policy (`bufpolicy`, D-REFERENCE.md §11.2): what happens when a
//! CPU's principal buffer has no room for a record, and when the consumer reads it.

/// How the principal buffers behave when they fill, and when they are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BufferPolicy {
    /// `switch` (the default): the consumer reads the buffers while tracing, at
    /// `switchrate`; a record that does not fit is dropped and counted
    /// (`dtrace: N drops on CPU C`).
    #[default]
    Switch,
    /// `fill`: the buffers are read only when tracing stops. The first record that does
    /// not fit stops tracing as `exit()` would: END still fires and prints (the consumer
    /// empties the buffers first, which gives END the room classic DTrace reserves for
    /// it), and the records that did not fit are reported as drops.
    Fill,
    /// `ring`: each buffer keeps the most recent records that fit, overwriting the oldest,
    /// and is read only when tracing stops; overwritten records are not drops.
    Ring,
}

impl BufferPolicy {
    /// The policy named by a `bufpolicy` value (`switch`, `fill`, `ring`).
    pub fn from_option_word(word: &str) -> Option<BufferPolicy> {
        match word {
            "switch" => Some(BufferPolicy::Switch),
            "fill" => Some(BufferPolicy::Fill),
            "ring" => Some(BufferPolicy::Ring),
            _ => None,
        }
    }

    /// Whether the buffers are read only once tracing has stopped (`fill` and `ring`, as
    /// in classic DTrace, which refuses to snapshot such buffers while tracing is active).
    pub fn reads_only_at_end(self) -> bool {
        self != BufferPolicy::Switch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_words() {
        let cases = [
            ("switch", Some(BufferPolicy::Switch)),
            ("fill", Some(BufferPolicy::Fill)),
            ("ring", Some(BufferPolicy::Ring)),
            ("Ring", None),
            ("", None),
        ];
        for (word, expected) in cases {
            assert_eq!(BufferPolicy::from_option_word(word), expected, "{word:?}");
        }
        assert!(!BufferPolicy::Switch.reads_only_at_end());
        assert!(BufferPolicy::Fill.reads_only_at_end());
        assert!(BufferPolicy::Ring.reads_only_at_end());
        assert_eq!(BufferPolicy::default(), BufferPolicy::Switch);
    }
}
