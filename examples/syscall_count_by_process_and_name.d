/*
 * syscall_count_by_process_and_name.d - system calls broken down by process
 * name, process id and system call: finds the one process that hammers
 * one call.
 *
 * Shows: an aggregation keyed by a tuple of three keys (string, int,
 * string), printa with one conversion per key, the aggsortkey option.
 * Run:   dtrace -s syscall_count_by_process_and_name.d   (Ctrl-C to stop)
 */

#pragma D option quiet
#pragma D option aggsortkey

syscall:::entry
/pid != $pid/
{
	@calls[execname, pid, probefunc] = count();
}

END
{
	printf("%-16s %7s %-20s %10s\n", "PROCESS", "PID", "SYSCALL", "COUNT");
	printa("%-16s %7d %-20s %@10d\n", @calls);
}
