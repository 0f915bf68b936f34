/* args: 10 */
/*
 * run_for_seconds.d - count system calls for a fixed number of seconds,
 * then exit by itself and print a summary with the measured duration.
 *
 * Shows: a macro argument inside a probe name (tick-$1s), BEGIN recording a
 * start time, a per-second tick alongside, exit(0) from a tick, END
 * computing elapsed time, sum and count.
 * Run:   dtrace -s run_for_seconds.d 10
 */

#pragma D option quiet

BEGIN
{
	start = timestamp;
	seconds = 0;
	printf("Sampling for %d seconds...\n", $1);
}

syscall:::entry
{
	@calls = count();
	@per_process[execname] = count();
}

tick-1s
{
	seconds++;
	printf(".");
}

tick-$1s
{
	exit(0);
}

END
{
	printf("\nRan for %d ms (%d ticks).\n", (timestamp - start) / 1000000, seconds);
	printa("Total system calls: %@d\n", @calls);
	trunc(@per_process, 5);
	printa("  %-16s %@d\n", @per_process);
}
