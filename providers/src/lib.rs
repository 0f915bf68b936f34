//! Providers: probe enumeration and attach/detach for dtrace, syscall, profile, sdt, pid, usdt, fbt.
