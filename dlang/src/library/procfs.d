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

/*
 * The process and thread descriptions of DTrace's procfs.d, translated from the
 * kernel's struct task_struct. Members Linux has no source for are left out of the
 * translators, so using one is a compile error ("translator does not define conversion
 * for member"). A member defined twice has one definition per kernel version's
 * structures: the first the running kernel's types accept is used. Task states are the kernel's bits (TASK_INTERRUPTIBLE 0x1,
 * TASK_UNINTERRUPTIBLE 0x2, __TASK_STOPPED 0x4, __TASK_TRACED 0x8, TASK_DEAD 0x80,
 * TASK_WAKEKILL 0x100, TASK_WAKING 0x200; exit_state EXIT_DEAD 0x10, EXIT_ZOMBIE 0x20).
 */

typedef id_t taskid_t;
typedef id_t dprojid_t;
typedef id_t poolid_t;
typedef id_t zoneid_t;
typedef int64_t time_t;

typedef struct timestruc {
	time_t tv_sec;
	long tv_nsec;
} timestruc_t;

typedef struct lwpsinfo {
	int pr_flag;			/* thread flags */
	id_t pr_lwpid;			/* thread id */
	uintptr_t pr_addr;		/* the kernel's struct task_struct */
	uintptr_t pr_wchan;		/* wait channel */
	char pr_stype;			/* synchronisation object type */
	char pr_state;			/* SSLEEP, SRUN, SZOMB, SSTOP, SONPROC, SWAIT */
	char pr_sname;			/* the state as a letter */
	char pr_nice;			/* nice value */
	short pr_syscall;		/* system call number */
	char pr_oldpri;
	char pr_cpu;
	int pr_pri;			/* priority: lower is stronger on Linux */
	ushort_t pr_pctcpu;
	ushort_t pr_pad;
	timestruc_t pr_start;
	timestruc_t pr_time;
	char pr_clname[8];		/* scheduling class */
	char pr_name[16];		/* thread name */
	processorid_t pr_onpro;		/* the CPU it last ran on */
	processorid_t pr_bindpro;	/* the CPU it is bound to, or -1 */
	psetid_t pr_bindpset;
	int pr_lgrp;
	int pr_filler[4];
} lwpsinfo_t;

typedef struct psinfo {
	int pr_flag;
	int pr_nlwp;			/* number of threads */
	pid_t pr_pid;
	pid_t pr_ppid;
	pid_t pr_pgid;
	pid_t pr_sid;
	uid_t pr_uid;
	uid_t pr_euid;
	gid_t pr_gid;
	gid_t pr_egid;
	uintptr_t pr_addr;		/* the kernel's struct task_struct */
	size_t pr_size;			/* image size in KB */
	size_t pr_rssize;		/* resident set size in KB */
	size_t pr_pad1;
	struct tty_struct *pr_ttydev;	/* controlling tty, or -1 */
	ushort_t pr_pctcpu;
	ushort_t pr_pctmem;
	timestruc_t pr_start;
	timestruc_t pr_time;
	timestruc_t pr_ctime;
	char pr_fname[16];		/* executable name */
	char pr_psargs[80];		/* initial arguments */
	int pr_wstat;			/* wait status of a zombie */
	int pr_argc;
	uintptr_t pr_argv;
	uintptr_t pr_envp;
	char pr_dmodel;			/* PR_MODEL_ILP32 or PR_MODEL_LP64 */
	char pr_pad2[3];
	taskid_t pr_taskid;
	dprojid_t pr_projid;
	poolid_t pr_poolid;
	zoneid_t pr_zoneid;
	id_t pr_contract;
	int pr_nzomb;
	int pr_filler[1];
	lwpsinfo_t pr_lwp;
} psinfo_t;

/*
 * The argument area and the initial stack are user memory, readable only in the
 * process's own context: for another process pr_psargs is its name, and pr_argc,
 * pr_argv and pr_envp are 0.
 */
translator psinfo_t < struct task_struct *T > {
	pr_flag = 0;
	pr_nlwp = T->signal->nr_threads;
	pr_pid = T->tgid;
	pr_ppid = T->real_parent->tgid;
	pr_pgid = T->signal->pids[PIDTYPE_PGID]->numbers[0].nr;
	pr_sid = T->signal->pids[PIDTYPE_SID]->numbers[0].nr;
	pr_uid = T->cred->uid.val;
	pr_euid = T->cred->euid.val;
	pr_gid = T->cred->gid.val;
	pr_egid = T->cred->egid.val;
	pr_addr = (uintptr_t)T;
	pr_size = T->mm == NULL ? 0 : T->mm->total_vm * 4;
	/* Files, anonymous memory and shared memory (MM_FILEPAGES, MM_ANONPAGES,
	 * MM_SHMEMPAGES): per-CPU counters since 6.2, atomic counters before. */
	pr_rssize = T->mm == NULL ? 0 :
	    (T->mm->rss_stat[0].count + T->mm->rss_stat[1].count +
	    T->mm->rss_stat[3].count) * 4;
	pr_rssize = T->mm == NULL ? 0 :
	    (T->mm->rss_stat.count[0].counter + T->mm->rss_stat.count[1].counter +
	    T->mm->rss_stat.count[3].counter) * 4;
	pr_pad1 = 0;
	pr_ttydev = T->signal->tty == NULL ? (struct tty_struct *)-1 : T->signal->tty;
	pr_pctcpu = 0;
	pr_pctmem = 0;
	pr_fname = T->comm;
	pr_psargs = T == curthread && T->mm != NULL ?
	    __copyin_arguments(T->mm->arg_start, T->mm->arg_end) : stringof(T->comm);
	pr_wstat = T->exit_state != 0 ? T->exit_code : 0;
	pr_argc = T == curthread && T->mm != NULL ?
	    *(int *)copyin(T->mm->start_stack, sizeof (int)) : 0;
	pr_argv = T == curthread && T->mm != NULL ? T->mm->start_stack + 8 : 0;
	pr_envp = T == curthread && T->mm != NULL ? T->mm->start_stack + 16 +
	    *(long *)copyin(T->mm->start_stack, sizeof (long)) * 8 : 0;
	pr_dmodel = (T->thread_info.flags & (1 << 29)) != 0 ?
	    PR_MODEL_ILP32 : PR_MODEL_LP64;
	pr_taskid = 0;
	pr_projid = 0;
	pr_poolid = 0;
	pr_zoneid = 0;
	pr_contract = 0;
	pr_nzomb = 0;
};

translator lwpsinfo_t < struct task_struct *T > {
	pr_flag = (T->__state & 0x4) != 0 ? PR_STOPPED : 0;
	pr_lwpid = T->pid;
	pr_addr = (uintptr_t)T;
	pr_wchan = 0;
	pr_stype = 0;
	pr_state = (T->exit_state & 0x30) != 0 ? SZOMB :
	    (T->__state & 0x3) != 0 ? SSLEEP :
	    (T->__state & 0xc) != 0 ? SSTOP :
	    (T->__state & 0x80) != 0 ? SZOMB :
	    (T->__state & 0x300) != 0 ? SWAIT :
	    T->on_cpu != 0 ? SONPROC : SRUN;
	pr_sname = (T->exit_state & 0x30) != 0 ? 'Z' :
	    (T->__state & 0x3) != 0 ? 'S' :
	    (T->__state & 0xc) != 0 ? 'T' :
	    (T->__state & 0x80) != 0 ? 'Z' :
	    (T->__state & 0x300) != 0 ? 'W' :
	    T->on_cpu != 0 ? 'O' : 'R';
	pr_nice = T->static_prio - 120;
	pr_oldpri = 0;
	pr_cpu = 0;
	pr_pri = T->prio;
	pr_pctcpu = 0;
	pr_pad = 0;
	pr_name = T->comm;
	pr_onpro = T->thread_info.cpu;
	pr_bindpro = T->nr_cpus_allowed == 1 ? T->thread_info.cpu : -1;
	pr_bindpset = 0;
	pr_lgrp = 0;
};

inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);
inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);
inline string cwd = d_path(&curthread->fs->pwd);
inline string root = d_path(&curthread->fs->root);
