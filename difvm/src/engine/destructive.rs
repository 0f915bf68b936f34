//! Whether a program is destructive: it takes an action or calls a subroutine that
//! changes the traced system (`system()`, `raise()`, `copyout()`, …), which DTrace allows
//! only with `-w` (`destructive`).

use crate::difo::Difo;
use crate::isa::{subroutine, Opcode};
use crate::object::{ActionKind, CompiledProgram};

/// True when `difo` calls `copyout` or `copyoutstr`, the destructive subroutines.
pub fn difo_is_destructive(difo: &Difo) -> bool {
    difo.code.iter().any(|instruction| {
        instruction.opcode() == Some(Opcode::Call)
            && matches!(
                instruction.index(),
                subroutine::COPYOUT | subroutine::COPYOUTSTR
            )
    })
}

/// True when the program contains destructive actions or subroutines (it needs `-w`).
pub fn is_destructive(program: &CompiledProgram) -> bool {
    program.statements.iter().any(|statement| {
        statement
            .predicate
            .as_ref()
            .is_some_and(difo_is_destructive)
            || statement.actions.iter().any(|action| {
                matches!(
                    action.kind,
                    ActionKind::System { .. }
                        | ActionKind::Freopen { .. }
                        | ActionKind::Raise
                        | ActionKind::Stop
                        | ActionKind::Chill
                        | ActionKind::Breakpoint
                        | ActionKind::Panic
                ) || action
                    .values
                    .iter()
                    .filter_map(|value| value.difo.as_ref())
                    .any(difo_is_destructive)
            })
    })
}
