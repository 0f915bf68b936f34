/*
 * procfs.d: the constants of DTrace's procfs.d: data models, pid types (Linux's
 * enum pid_type), process flags, the one-character process states of pr_state and
 * pr_sname, and the SIGCHLD codes.
 */

inline char PR_MODEL_ILP32 = 1;
inline char PR_MODEL_LP64 = 2;

inline int PIDTYPE_PID = 0;
inline int PIDTYPE_TGID = 1;
inline int PIDTYPE_PGID = 2;
inline int PIDTYPE_SID = 3;

inline int PR_STOPPED = 0x1;
inline int PR_ISTOP = 0x2;
inline int PR_DSTOP = 0x4;
inline int PR_IDLE = 0x10000000;

inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;
inline char SWAIT = 7;

inline int CLD_EXITED = 1;
inline int CLD_KILLED = 2;
inline int CLD_DUMPED = 3;
inline int CLD_TRAPPED = 4;
inline int CLD_STOPPED = 5;
inline int CLD_CONTINUED = 6;
