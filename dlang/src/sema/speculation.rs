//! The ordering rules of speculative tracing within one clause (§10), checked in
//! statement order and, for one statement, in the order of DTrace's dt_stmt_append().
//! `exit()` records its status, so it is a data-recording action. Commit rules count
//! every data-recording or aggregating action, and a clause may commit several
//! speculations, as Linux DTrace does.

use super::{error, SemaResult};
use crate::diagnostics::{ErrorTag, Span};

/// How an action takes part in the ordering rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ActionClass {
    /// Records data into the buffer (trace, printf, stack, …).
    DataRecording,
    Aggregation,
    Speculate,
    Commit,
    /// `exit()`: data-recording, and refused after `speculate()`.
    Exit,
    Destructive,
    /// Expressions, `discard()` and anything else that records nothing.
    Other,
}

/// What the clause has done so far.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SpeculationState {
    speculated: bool,
    committed: bool,
    recorded: bool,
    aggregated: bool,
}

impl SpeculationState {
    /// Checks that an action of `class` may come next, then records it.
    pub(super) fn check(&mut self, class: ActionClass, span: &Span) -> SemaResult<()> {
        let fail = |tag, message: &str| Err(error(tag, span, message));
        match class {
            ActionClass::Speculate => {
                if self.speculated {
                    return fail(
                        ErrorTag::D_SPEC_SPEC,
                        "speculate( ) may not follow speculate( )",
                    );
                }
                if self.committed {
                    return fail(
                        ErrorTag::D_SPEC_COMM,
                        "speculate( ) may not follow commit( )",
                    );
                }
                if self.recorded {
                    return fail(
                        ErrorTag::D_SPEC_DREC,
                        "speculate( ) may not follow data-recording action(s)",
                    );
                }
                self.speculated = true;
            }
            ActionClass::Aggregation => {
                // DTrace meets the commit() before the aggregation as it walks the
                // clause's actions, so D_AGG_COMM comes first.
                if self.committed {
                    return fail(
                        ErrorTag::D_AGG_COMM,
                        "aggregating actions may not follow commit( )",
                    );
                }
                if self.speculated {
                    return fail(
                        ErrorTag::D_AGG_SPEC,
                        "aggregating actions may not follow speculate( )",
                    );
                }
                self.aggregated = true;
            }
            ActionClass::Commit => {
                if self.recorded || self.aggregated {
                    return fail(
                        ErrorTag::D_COMM_DREC,
                        "commit( ) may not follow data-recording action(s)",
                    );
                }
                // Several commits in one clause are allowed, as DTrace for Linux allows
                // them (classic DTrace refused a second one with D_COMM_COMM): each
                // commits its own speculation.
                self.committed = true;
            }
            ActionClass::Exit => {
                if self.speculated {
                    return fail(ErrorTag::D_EXIT_SPEC, "exit( ) may not follow speculate( )");
                }
                // exit() records its status: it is a data-recording action for the
                // other rules, as dt_stmt_append() counts every action with a record.
                self.record_data(span)?;
            }
            ActionClass::Destructive => {
                if self.speculated {
                    return fail(
                        ErrorTag::D_ACT_SPEC,
                        "destructive actions may not follow speculate( )",
                    );
                }
            }
            ActionClass::DataRecording => self.record_data(span)?,
            ActionClass::Other => {}
        }
        Ok(())
    }

    /// A data-recording action: refused after `commit()`, and noted.
    fn record_data(&mut self, span: &Span) -> SemaResult<()> {
        if self.committed {
            return Err(error(
                ErrorTag::D_DREC_COMM,
                span,
                "data-recording actions may not follow commit( )",
            ));
        }
        self.recorded = true;
        Ok(())
    }
}
