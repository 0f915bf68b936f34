//! What the translation of one probe's program and of one of its statements knows, as
//! typed values handed to every translation function: the probe's context (layout, map
//! descriptors, the program, how `ctx` is read, how kernel stacks skip the tracing
//! machinery) and the statement's (which chain it is in, its EPID, probe and fault
//! exit, and where it is for error messages).

use difvm::object::{CompiledProgram, ProbeDescription};

use super::artificial_frames::ArtificialFrames;
use super::code::FaultExit;
use super::context::ContextKind;
use super::error::TranslateError;
use crate::ebpf::Label;
use crate::map_layout::{MapFds, ProgramLayout};

/// Which ECB chain code belongs to: the probe's own, or the ERROR probe's subprogram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chain {
    Main,
    Error,
}

/// What is fixed for the whole program of one probe.
pub struct ProbeTranslationContext<'a> {
    pub layout: &'a ProgramLayout,
    pub maps: &'a MapFds,
    pub program: &'a CompiledProgram,
    /// What the probe's `ctx` is (its arguments, `regs[]`, `errno`).
    pub context: &'a ContextKind,
    /// How the tracing machinery's frames are left out of kernel stacks.
    pub artificial_frames: &'a ArtificialFrames,
}

/// What is fixed for one enabled statement being translated.
pub struct StatementContext<'a> {
    pub probe_context: &'a ProbeTranslationContext<'a>,
    /// The chain the statement is in.
    pub chain: Chain,
    /// Whether the code runs in a subprogram the probe's entry calls (the ERROR clauses,
    /// a long clause's actions): one frame deeper in a kernel stack.
    pub in_subprogram: bool,
    /// Where the statement's faults go.
    pub fault_exit: FaultExit,
    /// Where a `speculate()` that finds no room for the record goes: DTrace flags a
    /// drop there, which ends the clause without recording anything.
    pub dropped_exit: Label,
    /// Human-readable location of the statement, for errors.
    pub location: String,
    /// The enabled probe whose statement this is.
    pub epid: u32,
    pub probe_id: u32,
    pub probe: &'a ProbeDescription,
}

impl<'a> StatementContext<'a> {
    pub fn layout(&self) -> &'a ProgramLayout {
        self.probe_context.layout
    }

    pub fn maps(&self) -> &'a MapFds {
        self.probe_context.maps
    }

    pub fn program(&self) -> &'a CompiledProgram {
        self.probe_context.program
    }

    pub fn context(&self) -> &'a ContextKind {
        self.probe_context.context
    }

    pub fn artificial_frames(&self) -> &'a ArtificialFrames {
        self.probe_context.artificial_frames
    }

    /// Arguments the main chain's probe has (`args[]`).
    pub fn argument_count(&self) -> u8 {
        self.probe_context.context.argument_count()
    }

    /// Whether `errno` belongs to the main chain's probe.
    pub fn has_errno(&self) -> bool {
        self.probe_context.context.has_errno()
    }

    /// An `Unsupported` error at the statement's location.
    pub fn unsupported(&self, what: impl Into<String>) -> TranslateError {
        TranslateError::Unsupported {
            what: what.into(),
            location: self.location.clone(),
        }
    }
}
