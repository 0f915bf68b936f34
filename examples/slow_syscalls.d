/* args: PID 10 */
/*
 * slow_syscalls.d - print every system call of one process that takes
 * longer than a threshold, as it happens.
 *
 * Shows: two integer macro arguments ($1 = pid, $2 = threshold in ms), a
 * predicate using ?: and &&, clause-local variables, printf with widths
 * and %Y, errno on return.
 * Run:   dtrace -s slow_syscalls.d PID 10
 */

#pragma D option quiet
#pragma D option switchrate=10hz

inline uint64_t NS_PER_MS = 1000000;

BEGIN
{
	printf("Tracing system calls of pid %d slower than %d ms...\n", $1, $2);
	printf("%-20s %-16s %-16s %10s %6s\n", "TIME", "PROCESS", "SYSCALL", "MS", "ERRNO");
}

syscall:::entry
/pid == $1/
{
	self->ts = timestamp;
}

syscall:::return
/(self->ts ? timestamp - self->ts : 0) > $2 * NS_PER_MS && pid == $1/
{
	this->ms = (timestamp - self->ts) / NS_PER_MS;
	printf("%-20Y %-16s %-16s %10d %6d\n", walltimestamp, execname, probefunc, this->ms, errno);
}

syscall:::return
/self->ts/
{
	self->ts = 0;
}
