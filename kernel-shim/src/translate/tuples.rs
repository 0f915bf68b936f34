//! Static shapes of the tuple stack. DIF branches only go forward, so one pass over a
//! DIFO finds, for every instruction, which entries (integer, string or other object) the
//! tuple stack holds on every path reaching it. The translator keeps entries at fixed
//! places in the work area and encodes keys and subroutine arguments without run-time
//! loops over the stack; a use where paths disagree is reported as unsupported.

use difvm::difo::Difo;
use difvm::isa::{Opcode, DIF_TUPLE_STACK_DEPTH, DIF_TYPE_STRING};

use crate::map_layout::ProgramLayout;

/// What one tuple-stack entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// `pushtv`: an integer.
    Value,
    /// `pushtr` of a string.
    String,
    /// `pushtr` of another object.
    Object,
}

/// The tuple stack before an instruction: `Known` entries, `Conflict` when paths reaching
/// it disagree, `Unreached` when no path does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    Unreached,
    Known(Vec<EntryKind>),
    Conflict,
}

impl Shape {
    fn merge(&mut self, other: &Shape) {
        *self = match (&*self, other) {
            (Shape::Unreached, _) => other.clone(),
            (_, Shape::Unreached) => return,
            (Shape::Known(left), Shape::Known(right)) if left == right => return,
            _ => Shape::Conflict,
        };
    }
}

/// The shape before every instruction of `difo`. A push onto a full stack leaves the
/// shape full (the push faults at run time).
pub fn tuple_shapes(difo: &Difo) -> Vec<Shape> {
    let mut shapes = vec![Shape::Unreached; difo.code.len()];
    if let Some(first) = shapes.first_mut() {
        *first = Shape::Known(Vec::new());
    }
    for index in 0..difo.code.len() {
        let instruction = difo.code[index];
        let before = shapes[index].clone();
        if before == Shape::Unreached {
            continue;
        }
        let opcode = instruction.opcode();
        let after = match (&before, opcode) {
            (Shape::Known(entries), Some(Opcode::Pushtv)) => push(entries, EntryKind::Value),
            (Shape::Known(entries), Some(Opcode::Pushtr)) => {
                let kind = if instruction.r1() == DIF_TYPE_STRING {
                    EntryKind::String
                } else {
                    EntryKind::Object
                };
                push(entries, kind)
            }
            (Shape::Known(entries), Some(Opcode::Popts)) => {
                let mut entries = entries.clone();
                entries.pop();
                Shape::Known(entries)
            }
            (_, Some(Opcode::Flushts)) => Shape::Known(Vec::new()),
            _ => before.clone(),
        };
        match opcode {
            Some(Opcode::Ret) => {}
            Some(Opcode::Ba) => {
                let target = instruction.label() as usize;
                if let Some(shape) = shapes.get_mut(target) {
                    shape.merge(&after);
                }
            }
            Some(
                Opcode::Be
                | Opcode::Bne
                | Opcode::Bg
                | Opcode::Bgu
                | Opcode::Bge
                | Opcode::Bgeu
                | Opcode::Bl
                | Opcode::Blu
                | Opcode::Ble
                | Opcode::Bleu,
            ) => {
                let target = instruction.label() as usize;
                if let Some(shape) = shapes.get_mut(target) {
                    shape.merge(&after);
                }
                if let Some(shape) = shapes.get_mut(index + 1) {
                    shape.merge(&after);
                }
            }
            _ => {
                if let Some(shape) = shapes.get_mut(index + 1) {
                    shape.merge(&after);
                }
            }
        }
    }
    shapes
}

fn push(entries: &[EntryKind], kind: EntryKind) -> Shape {
    let mut entries = entries.to_vec();
    if entries.len() < DIF_TUPLE_STACK_DEPTH {
        entries.push(kind);
    }
    Shape::Known(entries)
}

/// Work-area offset of tuple entry `position`'s (value, size) words.
pub fn tuple_entry(layout: &ProgramLayout, position: usize) -> u32 {
    layout.state.tuples + 24 * position as u32
}
