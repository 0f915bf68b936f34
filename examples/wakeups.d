/*
 * wakeups.d - which processes wake other tasks up most often? Frequent
 * wakers keep CPUs out of deep idle states.
 *
 * Shows: sdt:sched::sched_wakeup (it fires in the context of the waker),
 * execname and pid as a tuple key, trunc() to the top 10 every 5 seconds,
 * aggsortrev.
 * Run:   dtrace -s wakeups.d
 */

#pragma D option quiet
#pragma D option aggsortrev

sdt:sched::sched_wakeup
{
	@wakeups[execname, pid] = count();
}

tick-5s
{
	printf("\n%Y  top wakers (last 5 s)\n", walltimestamp);
	trunc(@wakeups, 10);
	printa("  %-16s %7d %@8d\n", @wakeups);
	trunc(@wakeups);
}
