/*
 * syscall_count_by_process.d - which processes make the most system calls?
 *
 * Shows: the syscall provider with a wildcard function, an aggregation keyed
 * by execname, a predicate that leaves dtrace itself out, printa with a
 * format, trunc() to keep the top entries.
 * Run:   dtrace -s syscall_count_by_process.d    (Ctrl-C to print the report)
 */

#pragma D option quiet

inline int TOP_PROCESSES = 20;

BEGIN
{
	printf("Counting system calls by process name... Ctrl-C to stop.\n");
}

syscall:::entry
/pid != $pid/
{
	@calls[execname] = count();
}

END
{
	trunc(@calls, TOP_PROCESSES);
	printf("\n%-24s %12s\n", "PROCESS", "SYSCALLS");
	printa("%-24s %@12d\n", @calls);
}
