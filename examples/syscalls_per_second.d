/*
 * syscalls_per_second.d - a one-line-per-second system call rate, like
 * vmstat's "sy" column, with a wall-clock time stamp.
 *
 * Shows: tick-1s periodic reports, an aggregation without keys, printa with
 * only a %@ conversion, clear() to start each interval from zero.
 * Run:   dtrace -s syscalls_per_second.d    (Ctrl-C to stop)
 */

#pragma D option quiet

syscall:::entry
{
	@calls = count();
}

tick-1s
{
	printf("%Y ", walltimestamp);
	printa("%@10d syscalls/s\n", @calls);
	clear(@calls);
}
