//! Live tests of the lock-inspection subroutines on the kernel engine: `mutex_owned()`,
//! `mutex_owner()`, `mutex_type_adaptive()`, `mutex_type_spin()` over a `struct mutex`
//! and `rw_read_held()`, `rw_write_held()`, `rw_iswriter()` over a `rwlock_t`, each
//! built in scratch memory in the states a lock word takes (free, owned by this
//! thread, owned by another; write-locked, read-held, read-held with a writer waiting).
//!
//! These tests trace the running machine, so each one first checks that it may (root,
//! a working dtrace, the kernel's BTF) and otherwise prints `skipping: <reason>` and
//! passes.

mod common;

use std::time::Duration;

use common::live::LiveDtrace;

/// Any single dtrace run may take 20 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(20));

/// True (after printing why) when the test must not run.
fn must_skip() -> bool {
    DTRACE.must_skip_without_kernel_types()
}

#[test]
fn mutex_subroutines_read_the_owner_word() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "BEGIN {
            this->m = (struct mutex *)alloca(sizeof (struct mutex));
            printf(\"free %d %d %d %d\\n\", mutex_owned(this->m),
                mutex_owner(this->m) == NULL, mutex_type_adaptive(this->m),
                mutex_type_spin(this->m));
            this->m->owner.counter = (long)curthread | 1;
            printf(\"mine %d %d\\n\", mutex_owned(this->m),
                mutex_owner(this->m) == curthread);
            this->m->owner.counter = (long)curthread->real_parent;
            printf(\"other %d %d\\n\", mutex_owned(this->m),
                mutex_owner(this->m) == curthread->real_parent);
            exit(0);
        }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert_eq!(outcome.stdout, "free 0 1 1 0\nmine 1 1\nother 0 1\n\n");
}

#[test]
fn rwlock_subroutines_read_the_queued_lock_count() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "BEGIN {
            this->l = (rwlock_t *)alloca(sizeof (rwlock_t));
            printf(\"free %d %d %d\\n\", rw_read_held(this->l),
                rw_write_held(this->l), rw_iswriter(this->l));
            this->l->raw_lock.cnts.counter = 0xff;
            printf(\"writer %d %d %d\\n\", rw_read_held(this->l),
                rw_write_held(this->l), rw_iswriter(this->l));
            this->l->raw_lock.cnts.counter = 0x400;
            printf(\"readers %d %d %d\\n\", rw_read_held(this->l),
                rw_write_held(this->l), rw_iswriter(this->l));
            this->l->raw_lock.cnts.counter = 0x500;
            printf(\"waiting %d %d %d\\n\", rw_read_held(this->l),
                rw_write_held(this->l), rw_iswriter(this->l));
            exit(0);
        }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert_eq!(
        outcome.stdout,
        "free 0 0 0\nwriter 0 1 1\nreaders 1 0 0\nwaiting 1 0 1\n\n"
    );
}

#[test]
fn a_null_mutex_is_an_invalid_address() {
    if must_skip() {
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "BEGIN { trace(mutex_owned((struct mutex *)0)); }
         BEGIN { exit(0); }",
    ]);
    assert_eq!(outcome.status, Some(0), "stderr: {}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("invalid address (0x0) in action #1"),
        "{}",
        outcome.stderr
    );
}
