/*
 * fsync_latency.d - how long do fsync() and fdatasync() take in the kernel,
 * per process? Slow syncs stall databases and editors alike.
 *
 * Shows: fbt::vfs_fsync_range entry/return, llquantize() of microseconds
 * (factor 10, 1 us .. 10 s), max() and count(), typedef'd thread-local.
 * Run:   dtrace -s fsync_latency.d    (Ctrl-C to print)
 */

#pragma D option quiet

typedef uint64_t nanoseconds_t;

self nanoseconds_t fsync_start;

fbt::vfs_fsync_range:entry
{
	self->fsync_start = timestamp;
}

fbt::vfs_fsync_range:return
/self->fsync_start/
{
	this->us = (timestamp - self->fsync_start) / 1000;
	@latency_us[execname] = llquantize(this->us, 10, 0, 6, 10);
	@worst_us[execname] = max(this->us);
	@syncs[execname] = count();
	self->fsync_start = 0;
}

END
{
	printa(@latency_us);
	printf("%-16s %8s %12s\n", "PROCESS", "SYNCS", "WORST(us)");
	printa("%-16s %@8d %@12d\n", @syncs, @worst_us);
}
