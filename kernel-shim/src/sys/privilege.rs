//! Whether this process may trace with BPF: it must be able to create a map and to load a
//! tracing program (which, unlike maps, always needs CAP_BPF and CAP_PERFMON).

use std::fmt;

use super::error::SysError;
use super::map::{bpf_map_create, MapType};
use super::program::{bpf_prog_load, ProgramLoadRequest, ProgramType};
use crate::ebpf::{Insn, Reg};

/// Why tracing is impossible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BpfAccessError {
    /// The kernel refused for lack of privilege (EPERM or EACCES): not root, or no
    /// CAP_BPF/CAP_PERFMON.
    NotPermitted(SysError),
    /// bpf(2) failed otherwise (ENOSYS on a kernel without BPF, say).
    Unavailable(SysError),
}

impl BpfAccessError {
    /// The underlying system call error.
    pub fn sys_error(&self) -> &SysError {
        match self {
            BpfAccessError::NotPermitted(error) | BpfAccessError::Unavailable(error) => error,
        }
    }
}

impl fmt::Display for BpfAccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BpfAccessError::NotPermitted(_) => {
                f.write_str("tracing requires root privileges (bpf(2) is not permitted)")
            }
            BpfAccessError::Unavailable(error) => write!(f, "BPF is unavailable: {error}"),
        }
    }
}

impl std::error::Error for BpfAccessError {}

fn classify(error: SysError) -> BpfAccessError {
    if error.is_permission_denied() {
        BpfAccessError::NotPermitted(error)
    } else {
        BpfAccessError::Unavailable(error)
    }
}

/// Checks that bpf(2) works for tracing in this process. Everything it creates is closed
/// before it returns.
pub fn check_bpf_access() -> Result<(), BpfAccessError> {
    bpf_map_create(MapType::Array, 4, 4, 1, 0, "dtrace_check").map_err(classify)?;
    let program = [Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
    let mut request = ProgramLoadRequest::new(ProgramType::Tracepoint, &program);
    request.name = "dtrace_check";
    bpf_prog_load(&request).map_err(|error| classify(error.error))?;
    Ok(())
}
