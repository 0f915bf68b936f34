//! Clauses of probes about another thread than the one they fire in (`sched:::on-cpu`
//! fires at `sched_switch`, as the previous thread leaves the CPU; see
//! `ProbeDerivation::subject_task_argument`). The kernel engine binds the thread
//! built-ins (`pid`, `tid`, `execname`, `curthread`, `self->`…) to the thread the probe
//! is about, but what reads or writes the current process's user memory (`copyin()`,
//! `copyout()`…), its user stack and registers (`ustack()`, `uregs[]`), its `errno`, or
//! signals it (`raise()`, `stop()`), can only reach the thread the probe fires in: such
//! uses are refused here, at compile time, rather than silently describing another
//! thread. Translator members that read user memory (`psinfo_t`'s `pr_psargs`) are
//! refused through the subroutines they call.
//!
//! Refusals carry `D_VAR_UNSUP`, which nothing else in the analyzer raises, so that a
//! translator member refused this way is reported as such (see `translators`).

use difvm::isa::{builtin_array, builtin_variable};

use super::functions::ActionFunction;
use super::{error, Analyzer, SemaResult};
use crate::diagnostics::{ErrorTag, Span};

/// The tag of a refusal in a probe about another thread.
pub(super) const SUBJECT_REFUSAL_TAG: ErrorTag = ErrorTag::D_VAR_UNSUP;

/// Subroutines that read or write the current process's user memory, by name (the
/// library's `__copyin_arguments`, behind `psinfo_t`'s `pr_psargs`, among them).
const USER_MEMORY_SUBROUTINES: &[&str] = &[
    "__copyin_arguments",
    "copyin",
    "copyinstr",
    "copyinto",
    "copyout",
    "copyoutstr",
];

impl Analyzer<'_> {
    /// The probe the clause being analysed enables, when its derivation says it is
    /// about another thread than the one it fires in.
    pub(super) fn probe_about_another_thread(&self) -> Option<String> {
        let derivation = self.current_derivation()?;
        derivation.subject_task_argument?;
        let clause = self.clause.as_ref()?;
        clause
            .probes
            .iter()
            .flat_map(|(_, matched)| matched)
            .find(|probe| probe.derivation.as_ref() == Some(&derivation))
            .map(|probe| probe.description.to_string())
    }

    /// Refuses `what` when the clause's probe is about another thread.
    fn refuse_about_another_thread(&self, what: &str, span: &Span) -> SemaResult<()> {
        let Some(probe) = self.probe_about_another_thread() else {
            return Ok(());
        };
        Err(error(
            SUBJECT_REFUSAL_TAG,
            span,
            format!(
                "{what} may not be used in {probe}: the probe fires in another thread's \
                 context, and {what} can only refer to that thread, not to the thread the \
                 probe is about"
            ),
        ))
    }

    /// Refuses a call of subroutine `name` that cannot reach the thread the clause's
    /// probe is about.
    pub(super) fn check_subroutine_for_subject(&self, name: &str, span: &Span) -> SemaResult<()> {
        if USER_MEMORY_SUBROUTINES.contains(&name) {
            return self.refuse_about_another_thread(&format!("{name}( )"), span);
        }
        Ok(())
    }

    /// Refuses an action that cannot reach the thread the clause's probe is about.
    pub(super) fn check_action_for_subject(
        &self,
        function: ActionFunction,
        span: &Span,
    ) -> SemaResult<()> {
        let name = match function {
            ActionFunction::Ustack => "ustack( )",
            ActionFunction::Jstack => "jstack( )",
            ActionFunction::Raise => "raise( )",
            ActionFunction::Stop => "stop( )",
            _ => return Ok(()),
        };
        self.refuse_about_another_thread(name, span)
    }

    /// Refuses reading the built-in variable `id` (named `name`) where it cannot
    /// describe the thread the clause's probe is about.
    pub(super) fn check_builtin_for_subject(
        &self,
        id: u16,
        name: &str,
        span: &Span,
    ) -> SemaResult<()> {
        match id {
            builtin_variable::ERRNO | builtin_variable::USTACKDEPTH | builtin_variable::UCALLER => {
                self.refuse_about_another_thread(name, span)
            }
            _ => Ok(()),
        }
    }

    /// Refuses the built-in array `array` (`uregs[]`) where it cannot describe the
    /// thread the clause's probe is about.
    pub(super) fn check_builtin_array_for_subject(
        &self,
        array: u16,
        span: &Span,
    ) -> SemaResult<()> {
        if array == builtin_array::UREGS {
            return self.refuse_about_another_thread("uregs[ ]", span);
        }
        Ok(())
    }
}
