/*
 * io.d: the b_flags bits of bufinfo_t, the kernel's request flags the io provider
 * reads, and the open(2) flags of fileinfo_t's fi_oflags, with x86_64's values.
 */

inline int B_BUSY = 0x1;
inline int B_DONE = 0x2;
inline int B_ERROR = 0x4;
inline int B_PAGEIO = 0x10;
inline int B_PHYS = 0x20;
inline int B_READ = 0x40;
inline int B_WRITE = 0x100;
inline int B_ASYNC = 0x400;

inline int REQ_WRITE = 0x1;
inline int REQ_SYNC = 0x800;

inline int O_ACCMODE = 03;
inline int O_RDONLY = 0;
inline int O_WRONLY = 01;
inline int O_RDWR = 02;
inline int O_CREAT = 0100;
inline int O_EXCL = 0200;
inline int O_NOCTTY = 0400;
inline int O_TRUNC = 01000;
inline int O_APPEND = 02000;
inline int O_NONBLOCK = 04000;
inline int O_NDELAY = 04000;
inline int O_DSYNC = 010000;
inline int O_ASYNC = 020000;
inline int O_DIRECTORY = 0200000;
inline int O_NOFOLLOW = 0400000;
inline int O_CLOEXEC = 02000000;
inline int O_SYNC = 04010000;
inline int O_FSYNC = 04010000;
inline int O_RSYNC = 04010000;
