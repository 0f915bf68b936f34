//! The DIFOs of a compiled program and where each sits (statement, predicate or action
//! value), and the questions the layout asks of them: which subroutines they call,
//! whether they read `vtimestamp`, whether they need kernel facts from BTF.

use difvm::difo::Difo;
use difvm::isa::{builtin_variable, subroutine, Opcode};
use difvm::object::CompiledProgram;

/// Which DIFO of a statement: its predicate or one action value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DifoSlot {
    Predicate,
    ActionValue { action: usize, value: usize },
}

/// A DIFO of the program: statement index and slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DifoLocation {
    pub statement: usize,
    pub slot: DifoSlot,
}

/// Every DIFO of a program with its location.
pub fn program_difos(program: &CompiledProgram) -> Vec<(DifoLocation, &Difo)> {
    let mut difos = Vec::new();
    for (statement_index, statement) in program.statements.iter().enumerate() {
        if let Some(predicate) = &statement.predicate {
            difos.push((
                DifoLocation {
                    statement: statement_index,
                    slot: DifoSlot::Predicate,
                },
                predicate,
            ));
        }
        for (action_index, action) in statement.actions.iter().enumerate() {
            for (value_index, value) in action.values.iter().enumerate() {
                if let Some(difo) = &value.difo {
                    difos.push((
                        DifoLocation {
                            statement: statement_index,
                            slot: DifoSlot::ActionValue {
                                action: action_index,
                                value: value_index,
                            },
                        },
                        difo,
                    ));
                }
            }
        }
    }
    difos
}

/// Whether any DIFO of `program` calls subroutine `number`.
pub fn calls_subroutine(program: &CompiledProgram, number: u16) -> bool {
    program_difos(program).iter().any(|(_, difo)| {
        difo.code.iter().any(|instruction| {
            instruction.opcode() == Some(Opcode::Call) && instruction.index() == number
        })
    })
}

/// Whether any DIFO of `program` reads `vtimestamp`: the session then keeps the
/// `vtimestamps` map and its tracker.
pub fn program_reads_vtimestamp(program: &CompiledProgram) -> bool {
    program_reads_builtin(program, builtin_variable::VTIMESTAMP)
}

/// Whether any DIFO of `program` reads the built-in variable `id` (`ldgs`).
pub fn program_reads_builtin(program: &CompiledProgram, id: u16) -> bool {
    program_difos(program).iter().any(|(_, difo)| {
        difo.code.iter().any(|instruction| {
            instruction.opcode() == Some(Opcode::Ldgs) && instruction.index() == id
        })
    })
}

/// Whether `program` walks `struct task_struct` (`ppid`, `progenyof()`, `vtimestamp`) and
/// so needs [`super::TaskStructOffsets`].
pub fn program_needs_task_offsets(program: &CompiledProgram) -> bool {
    program_reads_builtin(program, builtin_variable::PPID)
        || program_reads_vtimestamp(program)
        || calls_subroutine(program, subroutine::PROGENYOF)
}

/// Whether any DIFO of `program` carries a kernel relocation (a per-CPU kernel
/// variable's address), which needs [`super::PerCpuBaseOffsets`].
pub fn program_has_kernel_relocations(program: &CompiledProgram) -> bool {
    program_difos(program)
        .iter()
        .any(|(_, difo)| !difo.kernel_relocations.is_empty())
}
