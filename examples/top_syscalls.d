/*
 * top_syscalls.d - a "top" for system calls: every 2 seconds, the ten
 * busiest (process, syscall) pairs since the last report, largest first.
 *
 * Shows: tick-2s reports, trunc(@, 10) keeping the ten largest and
 * trunc(@) emptying the anonymous aggregation, the aggsortrev option,
 * printa with key conversions before the value.
 * Run:   dtrace -s top_syscalls.d
 */

#pragma D option quiet
#pragma D option aggsortrev

inline int TOPN = 10;

syscall:::entry
/pid != $pid/
{
	@[execname, probefunc] = count();
}

tick-2s
{
	printf("\n%Y  top %d (process, syscall) pairs\n", walltimestamp, TOPN);
	printf("  %-16s %-20s %10s\n", "PROCESS", "SYSCALL", "CALLS");
	trunc(@, TOPN);
	printa("  %-16s %-20s %@10d\n", @);
	trunc(@);
}
