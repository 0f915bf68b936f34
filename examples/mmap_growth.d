/*
 * mmap_growth.d - which processes map the most memory with mmap(2), and
 * how often do they call brk(2)? Reported every 5 seconds in megabytes.
 *
 * Shows: sum() of arg1 (the mapping length), normalize() to print MB and
 * denormalize() to return to bytes, clear() vs trunc() in a tick-5s
 * clause.
 * Run:   dtrace -s mmap_growth.d
 */

#pragma D option quiet

inline int MEGABYTE = 1048576;

syscall::mmap:entry
/pid != $pid/
{
	@mapped[execname] = sum(arg1);
}

syscall::brk:entry
/pid != $pid/
{
	@brk_calls[execname] = count();
}

tick-5s
{
	printf("\n%Y\n%-16s %12s\n", walltimestamp, "PROCESS", "MAPPED(MB)");
	normalize(@mapped, MEGABYTE);
	printa("%-16s %@12d\n", @mapped);
	printf("%-16s %12s\n", "PROCESS", "MAPPED(B)");
	denormalize(@mapped);
	printa("%-16s %@12d\n", @mapped);
	printf("%-16s %12s\n", "PROCESS", "BRK CALLS");
	printa("%-16s %@12d\n", @brk_calls);
	trunc(@mapped);
	clear(@brk_calls);
}
