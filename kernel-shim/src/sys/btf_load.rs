//! Loading BTF into the kernel (`BPF_BTF_LOAD`), so that a program load can point its
//! `func_info` records at the types of its functions.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use super::abi::{BtfLoadAttr, BPF_BTF_LOAD, BPF_LOG_LEVEL1};
use super::error::SysError;
use super::program::LoadError;
use super::syscall::bpf_fd;

/// An owned BTF object file descriptor; programs loaded with it keep their own reference.
#[derive(Debug)]
pub struct BtfFd {
    fd: OwnedFd,
}

impl BtfFd {
    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }
}

impl AsFd for BtfFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// The largest log asked for when the kernel refuses a blob.
const LOG_SIZE: usize = 1 << 20;

/// Loads the BTF blob `blob`. When the kernel refuses it, the load is repeated with a log
/// so that the error carries the kernel's explanation.
pub fn bpf_btf_load(blob: &[u8]) -> Result<BtfFd, LoadError> {
    let describe = || format!("of {} bytes of BTF", blob.len());
    if blob.is_empty() {
        return Err(LoadError {
            error: SysError::invalid(format!("loading {}", describe()), "no bytes"),
            log: String::new(),
        });
    }
    let attempt = |log: Option<&mut Vec<u8>>| {
        let mut attr = BtfLoadAttr {
            btf: blob.as_ptr() as u64,
            btf_size: blob.len() as u32,
            ..BtfLoadAttr::default()
        };
        if let Some(log) = log {
            attr.btf_log_buf = log.as_mut_ptr() as u64;
            attr.btf_log_size = log.len() as u32;
            attr.btf_log_level = BPF_LOG_LEVEL1;
        }
        // SAFETY: the blob and the log buffer are valid for the sizes given and outlive
        // the call.
        unsafe { bpf_fd(BPF_BTF_LOAD, &mut attr, describe) }
    };
    if let Ok(fd) = attempt(None) {
        return Ok(BtfFd { fd });
    }
    let mut log = vec![0u8; LOG_SIZE];
    match attempt(Some(&mut log)) {
        Ok(fd) => Ok(BtfFd { fd }),
        Err(error) => {
            let end = log.iter().position(|&byte| byte == 0).unwrap_or(log.len());
            Err(LoadError {
                error,
                log: String::from_utf8_lossy(&log[..end]).into_owned(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::btf::{function_btf, FunctionType};

    #[test]
    fn function_btf_loads_and_garbage_is_explained() {
        assert!(bpf_btf_load(&[]).is_err());
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipping: not running as root");
            return;
        }
        let written = function_btf(&[FunctionType {
            name: "dtrace_probe".into(),
            parameters: Vec::new(),
            global: false,
        }]);
        let loaded = bpf_btf_load(&written.blob).expect("the kernel accepts the BTF");
        assert!(loaded.raw_fd() >= 0);
        let mut broken = written.blob.clone();
        // A FUNC whose name is not an identifier.
        let name = broken.len() - "dtrace_probe\0".len();
        broken[name] = b'-';
        let error = bpf_btf_load(&broken).expect_err("the kernel refuses the BTF");
        assert_eq!(error.error.errno(), Some(libc::EINVAL), "{error}");
        assert!(!error.log.is_empty(), "{error}");
    }
}
