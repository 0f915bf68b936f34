/*
 * syscall_errors.d - which processes get errors back from which system
 * calls, and which errno values?
 *
 * Shows: errno on syscall:::return, an aggregation keyed by a
 * (string, string, int) tuple, printa with widths, tick-10s report that
 * truncates to the top 15 and then clears everything.
 * Run:   dtrace -s syscall_errors.d    (a report every 10 seconds)
 */

#pragma D option quiet
#pragma D option aggsortrev

syscall:::return
/errno != 0 && pid != $pid/
{
	@errors[execname, probefunc, errno] = count();
}

tick-10s
{
	printf("\n%Y  top failing system calls\n", walltimestamp);
	printf("%-16s %-20s %6s %8s\n", "PROCESS", "SYSCALL", "ERRNO", "COUNT");
	trunc(@errors, 15);
	printa("%-16s %-20s %6d %@8d\n", @errors);
	trunc(@errors);
}
