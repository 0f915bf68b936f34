//! Runtime faults of DIF execution (§13): the fault an operation raises, and the fault a
//! DIFO reports once the instruction that raised it is known.

use crate::object::FaultCode;

/// A fault raised by one operation: the code and the faulting address or value
/// (`arg5` of the ERROR probe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeFault {
    pub code: FaultCode,
    pub value: u64,
}

impl RuntimeFault {
    pub fn new(code: FaultCode, value: u64) -> RuntimeFault {
        RuntimeFault { code, value }
    }
    pub fn bad_address(address: u64) -> RuntimeFault {
        RuntimeFault::new(FaultCode::BadAddress, address)
    }
    pub fn bad_alignment(address: u64) -> RuntimeFault {
        RuntimeFault::new(FaultCode::BadAlignment, address)
    }
    pub fn illegal_operation(value: u64) -> RuntimeFault {
        RuntimeFault::new(FaultCode::IllegalOperation, value)
    }
    pub fn no_scratch() -> RuntimeFault {
        RuntimeFault::new(FaultCode::NoScratch, 0)
    }
    pub fn bad_size(size: u64) -> RuntimeFault {
        RuntimeFault::new(FaultCode::BadSize, size)
    }
}

/// A fault that aborted a DIFO (or the recording of its value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DifFault {
    pub code: FaultCode,
    /// Faulting address or value.
    pub value: u64,
    /// Index of the faulting instruction; `None` when the fault happened outside any
    /// instruction (running off the end of the code, recording a value).
    pub instruction: Option<u32>,
}

impl DifFault {
    /// The DIF offset classic DTrace reports in `arg3`: the byte offset of the faulting
    /// instruction (index × 4), or −1 when unknown.
    pub fn dif_offset(&self) -> i64 {
        match self.instruction {
            Some(index) => index as i64 * 4,
            None => -1,
        }
    }

    /// Attaches no instruction to a fault raised while recording a value.
    pub fn outside_code(fault: RuntimeFault) -> DifFault {
        DifFault {
            code: fault.code,
            value: fault.value,
            instruction: None,
        }
    }
}
