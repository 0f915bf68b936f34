//! Providers: probe enumeration and attach/detach for dtrace, syscall, profile, sdt, rawtp, pid, usdt, fbt, and the stable providers proc, sched and io.

pub mod attachment;
pub mod attributes;
pub mod btf_functions;
pub mod dtrace_provider;
pub mod elf_object;
pub mod error;
pub mod fbt_provider;
pub mod kernel_symbols;
mod pid_addresses;
mod pid_probe_names;
pub mod pid_provider;
pub mod process_maps;
pub mod profile_provider;
pub mod provider;
pub mod rawtp_provider;
pub mod registry;
pub mod sdt_provider;
pub mod stable;
pub mod syscall_provider;
pub mod syscall_table;
pub mod tracefs;
pub mod tracepoint_arguments;
pub mod uprobe_instructions;
pub mod usdt_provider;
pub mod user_objects;
pub mod x86_branches;
pub mod x86_length;
