//! The lock-inspection subroutines (`mutex_owned()`, `mutex_owner()`,
//! `mutex_type_adaptive()`, `mutex_type_spin()`, `rw_read_held()`, `rw_write_held()`,
//! `rw_iswriter()`) as DTrace for Linux defines them over the kernel's own lock words,
//! expressed as reads of those words so that both engines run them as any other read of
//! kernel memory.
//!
//! A `struct mutex` keeps its owner's `task_struct` address in `owner`, with the low
//! three bits used as flags (the kernel's `MUTEX_FLAGS`). Every Linux mutex sleeps after
//! spinning, so each is adaptive and none is a spin mutex. A `rwlock_t` is a queued
//! rwlock: the low byte of `raw_lock.cnts` is the writer's lock byte (`_QW_LOCKED`), the
//! next bit a waiting writer (`_QW_WMASK` covers both), the bits above count readers.

use difvm::isa::subroutine;

use super::ir::TypedExpr;
use super::{Analyzer, SemaResult};
use crate::ast::{BinaryOperator, Expr, ExprKind};
use crate::diagnostics::Span;
use crate::types::TypeId;

/// The flag bits of `struct mutex`'s `owner` word (the kernel's `MUTEX_FLAGS`).
const MUTEX_FLAGS: u64 = 0x07;
/// The writer bits of a queued rwlock's count (`_QW_WMASK`: locked byte and waiting bit).
const QUEUED_WRITER_MASK: u64 = 0x1ff;
/// The writer's lock byte of a queued rwlock held for writing (`_QW_LOCKED`).
const QUEUED_WRITER_LOCKED: u64 = 0xff;

impl Analyzer<'_> {
    /// For a lock-inspection subroutine, its value computed from the (checked) argument,
    /// typed as its prototype's `parameter`; `None` for every other subroutine.
    pub(super) fn lock_subroutine(
        &mut self,
        number: u16,
        argument: TypedExpr,
        parameter: TypeId,
        span: &Span,
    ) -> SemaResult<Option<TypedExpr>> {
        let lock = TypedExpr {
            ty: parameter,
            ..argument
        };
        let value = match number {
            subroutine::MUTEX_OWNER => self.mutex_owner(lock, span)?,
            subroutine::MUTEX_OWNED => {
                let owner = self.mutex_owner(lock, span)?;
                let current = self.operand(&Expr {
                    kind: ExprKind::Identifier("curthread".into()),
                    span: span.clone(),
                })?;
                self.binary_values(BinaryOperator::Equal, owner, current, span)?
            }
            subroutine::MUTEX_TYPE_ADAPTIVE | subroutine::MUTEX_TYPE_SPIN => {
                let adaptive = u64::from(number == subroutine::MUTEX_TYPE_ADAPTIVE);
                let answer = self.int_constant(adaptive as i64, span);
                self.binary_values(BinaryOperator::Comma, lock, answer, span)?
            }
            subroutine::RW_READ_HELD => {
                let readers = self.queued_lock_bits(lock, !QUEUED_WRITER_MASK, span)?;
                self.compare_with(BinaryOperator::NotEqual, readers, 0, span)?
            }
            subroutine::RW_WRITE_HELD => {
                let writer = self.queued_lock_bits(lock, QUEUED_WRITER_MASK, span)?;
                self.compare_with(BinaryOperator::Equal, writer, QUEUED_WRITER_LOCKED, span)?
            }
            subroutine::RW_ISWRITER => {
                let writer = self.queued_lock_bits(lock, QUEUED_WRITER_MASK, span)?;
                self.compare_with(BinaryOperator::NotEqual, writer, 0, span)?
            }
            _ => return Ok(None),
        };
        Ok(Some(TypedExpr {
            span: span.clone(),
            ..value
        }))
    }

    /// `(struct task_struct *)(m->owner.counter & ~MUTEX_FLAGS)`.
    fn mutex_owner(&mut self, mutex: TypedExpr, span: &Span) -> SemaResult<TypedExpr> {
        let word = self.member_path(mutex, &[("->", "owner"), (".", "counter")], span)?;
        let long = self.types.well_known().long;
        let mask = self.constant(!MUTEX_FLAGS, long, span);
        let owner = self.binary_values(BinaryOperator::BitwiseAnd, word, mask, span)?;
        let task =
            crate::types::parse_type_name(&mut self.types, "struct task_struct *").unwrap_or(long);
        Ok(self.convert(owner, task))
    }

    /// `l->raw_lock.cnts.counter & mask`.
    fn queued_lock_bits(
        &mut self,
        lock: TypedExpr,
        mask: u64,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let path = [("->", "raw_lock"), (".", "cnts"), (".", "counter")];
        let count = self.member_path(lock, &path, span)?;
        let unsigned = self.types.well_known().unsigned_int;
        let count = self.convert(count, unsigned);
        let mask = self.constant(mask & u64::from(u32::MAX), unsigned, span);
        self.binary_values(BinaryOperator::BitwiseAnd, count, mask, span)
    }

    /// `value OPERATOR constant`, an `int` 0 or 1.
    fn compare_with(
        &mut self,
        operator: BinaryOperator,
        value: TypedExpr,
        constant: u64,
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let constant = self.constant(constant, value.ty, span);
        self.binary_values(operator, value, constant, span)
    }

    /// Reads `base` followed by the member accesses of `path` (`->` or `.` each).
    fn member_path(
        &mut self,
        base: TypedExpr,
        path: &[(&str, &str)],
        span: &Span,
    ) -> SemaResult<TypedExpr> {
        let mut value = base;
        for (operator, member) in path {
            let place = self.member_place(value, member, operator, span)?;
            value = self.read_place(place, span);
        }
        Ok(value)
    }
}
