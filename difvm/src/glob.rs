//! Probe-description glob matching: shell `fnmatch` semantics as DTrace uses them (§1.4).
//!
//! `*` matches any string, `?` one character, `[...]` a set with ranges, `[!...]` and
//! `[^...]` a negated set, and `\` escapes the next character. An empty pattern matches
//! anything (an empty probe-description field is a wildcard).

/// True when `pattern` contains any glob metacharacter (`* ? [ \`), i.e. when it is
/// matched as a pattern rather than compared as a string.
pub fn is_glob_pattern(pattern: &str) -> bool {
    pattern
        .bytes()
        .any(|b| matches!(b, b'*' | b'?' | b'[' | b'\\'))
}

/// Matches one probe-description field against a probe's field.
pub fn field_matches(pattern: &str, text: &str) -> bool {
    pattern.is_empty() || glob_match(pattern.as_bytes(), text.as_bytes())
}

/// Matches `text` against the whole of `pattern`.
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    // Iterative matcher with single-star backtracking: linear in practice and free of
    // recursion, so hostile patterns cannot exhaust the stack.
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() {
            match pattern[p] {
                b'*' => {
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    t += 1;
                    continue;
                }
                b'[' => {
                    if let Some((matched, next)) = match_set(pattern, p, text[t]) {
                        if matched {
                            p = next;
                            t += 1;
                            continue;
                        }
                    } else if text[t] == b'[' {
                        // An unterminated set is an ordinary '[' character.
                        p += 1;
                        t += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pattern.len() => {
                    if pattern[p + 1] == text[t] {
                        p += 2;
                        t += 1;
                        continue;
                    }
                }
                literal => {
                    if literal == text[t] {
                        p += 1;
                        t += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((star_p, star_t)) => {
                p = star_p + 1;
                t = star_t + 1;
                star = Some((star_p, star_t + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}

/// Matches one character against the set starting at `pattern[open]` (`[`). Returns
/// whether it matched and the index after the closing `]`, or `None` when the set is
/// not terminated.
fn match_set(pattern: &[u8], open: usize, c: u8) -> Option<(bool, usize)> {
    let mut i = open + 1;
    let negated = matches!(pattern.get(i), Some(b'!') | Some(b'^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let mut low = *pattern.get(i)?;
        if low == b']' && !first {
            return Some((matched != negated, i + 1));
        }
        first = false;
        if low == b'\\' {
            i += 1;
            low = *pattern.get(i)?;
        }
        i += 1;
        if pattern.get(i) == Some(&b'-') && pattern.get(i + 1).is_some_and(|&b| b != b']') {
            let mut high = pattern[i + 1];
            i += 2;
            if high == b'\\' {
                high = *pattern.get(i)?;
                i += 1;
            }
            if low <= c && c <= high {
                matched = true;
            }
        } else if low == c {
            matched = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, text: &str, expected: bool) {
        assert_eq!(
            field_matches(pattern, text),
            expected,
            "{pattern:?} vs {text:?}"
        );
    }

    #[test]
    fn glob_semantics() {
        check("", "anything", true);
        check("read", "read", true);
        check("read", "readv", false);
        check("read*", "readv", true);
        check("*read*", "pread64", true);
        check("?ead", "read", true);
        check("[rw]ead", "wead", true);
        check("[!r]ead", "read", false);
        check("[^r]ead", "bead", true);
        check("sys_[a-c]*", "sys_bind", true);
        check("sys_[a-c]*", "sys_dup", false);
        check("a\\*b", "a*b", true);
        check("a\\*b", "axb", false);
        check("[", "[", true);
        check("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false);
        check("tick-*", "tick-1s", true);
        assert!(is_glob_pattern("vfs_*"));
        assert!(!is_glob_pattern("vfs_read"));
    }
}
