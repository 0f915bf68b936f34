/* args: PID */
/*
 * progeny_syscalls.d - system calls made by a process and all of its
 * descendants (for example a shell and everything started from it).
 *
 * Shows: the progenyof() subroutine in a predicate, an aggregation keyed
 * by (pid, execname, probefunc), printa with mixed key types.
 * Run:   dtrace -s progeny_syscalls.d PID    (Ctrl-C to print)
 */

#pragma D option quiet

syscall:::entry
/progenyof($1)/
{
	@calls[pid, execname, probefunc] = count();
}

END
{
	printf("%7s %-16s %-20s %8s\n", "PID", "PROCESS", "SYSCALL", "COUNT");
	printa("%7d %-16s %-20s %@8d\n", @calls);
}
