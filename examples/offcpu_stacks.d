/*
 * offcpu_stacks.d - where threads block: time spent off CPU by kernel stack
 * and program, from the stable sched provider.
 *
 * Shows: sched:::off-cpu and sched:::on-cpu pairing a thread-local time
 * stamp (on-cpu runs with the switched-in thread's built-ins, so self-> is
 * that thread's), stack() as an aggregation key, sum() in microseconds,
 * trunc() to the top stacks.
 * Run:   dtrace -s offcpu_stacks.d   (Ctrl-C to print the summary)
 */

#pragma D option quiet

sched:::off-cpu
/pid != 0/
{
	self->off = timestamp;
}

sched:::on-cpu
/self->off/
{
	@offcpu_us[execname, stack()] = sum((timestamp - self->off) / 1000);
	self->off = 0;
}

END
{
	trunc(@offcpu_us, 10);
	printa("%s%k%@d us\n\n", @offcpu_us);
}
