//! Loops through `bpf_loop` (helper 181): the kernel calls a callback once per iteration,
//! and its verifier checks the callback's body once instead of following every iteration
//! of an unrolled loop, which is what makes loops inside loops (`index()` compares a
//! substring at every position) fit its limits.
//!
//! A callback is a function of its own, laid out after the probe's chains: it cannot jump
//! to a statement's fault handler, so loop bodies work on the work area only (the strings
//! are read into it before the loop) and leave their results there. Each callback
//! receives the iteration number in r1 and, in r2, a pointer to the caller's stack slot
//! `LOOP_CONTEXT` (see `registers`) holding the work-area pointer; it returns 0 to go on and 1 to stop.
//! Callbacks are identified by what they do ([`LoopBody`]), so each is emitted once per
//! program however often it is used, together with the one subprogram that calls
//! `bpf_loop` with it: the assembler (`code`) calls that subprogram and keeps the loops
//! asked for, and the chain emits both functions after the chains. A program
//! with callbacks must be loaded with the BTF of its functions (see [`super::program`]).

/// What one iteration of a loop does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopBody {
    /// `index`, `rindex`, `strstr`: whether the substring matches at one position.
    MatchSubstring { reverse: bool },
    /// `cleanpath`: one step of its state machine.
    CleanPathStep,
    /// `strtok`: one delimiter into the delimiter set.
    DelimiterSet,
    /// `strtok`: one delimiter skipped before the token, in the copy at this work-area
    /// offset.
    TokenStart { copy: u32 },
    /// `strtok`: one byte of the token.
    TokenEnd { copy: u32 },
    /// `toupper` / `tolower`: one byte of string buffer 0.
    ChangeCase { upper: bool },
    /// `lltostr`: one digit.
    IntegerDigit,
    /// `strtoll`: one leading blank.
    SkipBlank,
    /// `strtoll`: one digit.
    IntegerParseDigit,
    /// `basename`, `dirname`: one step back over slashes (or over other bytes), the
    /// position in this work-area word.
    ScanBack { cursor: u32, slash: bool },
    /// `strchr`, `strrchr`: one byte compared with the character sought.
    FindCharacter { last: bool },
}
