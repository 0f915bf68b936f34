/*
 * syscall_count_by_name.d - which system calls are made most often,
 * system-wide?
 *
 * Shows: probefunc as an aggregation key, an inline constant, trunc() and
 * printa in END, the aggsortrev option (largest first).
 * Run:   dtrace -s syscall_count_by_name.d    (Ctrl-C to print the report)
 */

#pragma D option quiet
#pragma D option aggsortrev

inline int TOPN = 25;

syscall:::entry
{
	@calls[probefunc] = count();
}

END
{
	trunc(@calls, TOPN);
	printf("%-24s %12s\n", "SYSCALL", "COUNT");
	printa("%-24s %@12d\n", @calls);
}
