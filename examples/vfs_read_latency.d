/*
 * vfs_read_latency.d - latency of the kernel's vfs_read() by process:
 * read(2) and pread64(2) as the VFS layer sees them, plus kernel-internal
 * callers.
 *
 * Shows: the fbt provider (fbt::vfs_read:entry and :return), arg2 as the
 * byte count at entry, thread-local timing, quantize() of nanoseconds,
 * avg() of sizes, stackdepth.
 * Run:   dtrace -s vfs_read_latency.d    (Ctrl-C to print)
 */

#pragma D option quiet

fbt::vfs_read:entry
{
	self->ts = timestamp;
	@average_size[execname] = avg(arg2);
	@depth = quantize(stackdepth);
}

fbt::vfs_read:return
/self->ts/
{
	@latency_ns[execname] = quantize(timestamp - self->ts);
	self->ts = 0;
}

END
{
	printf("vfs_read() latency (ns) by process:\n");
	printa(@latency_ns);
	printf("%-16s %12s\n", "PROCESS", "AVG BYTES");
	printa("%-16s %@12d\n", @average_size);
	printf("\nKernel stack depth at vfs_read() entry:");
	printa(@depth);
}
