/*
 * printa_formats.d - a per-process I/O table every 10 seconds: calls,
 * bytes, average, smallest and largest write(2), printed from five
 * aggregations with the same keys in one printa().
 *
 * Shows: printa joining several aggregations (one %@ per aggregation, in
 * order), a key printed after the values, normalize() to print kilobytes
 * and denormalize() to undo it, trunc() emptying every aggregation at
 * the end of each tick-10s interval.
 * Run:   dtrace -s printa_formats.d
 */

#pragma D option quiet

syscall::write:entry
/pid != $pid/
{
	@calls[execname] = count();
	@bytes[execname] = sum(arg2);
	@average[execname] = avg(arg2);
	@smallest[execname] = min(arg2);
	@largest[execname] = max(arg2);
}

tick-10s
{
	printf("\n%Y\n", walltimestamp);
	printf("%8s %12s %8s %8s %10s  %s\n", "CALLS", "BYTES", "AVG", "MIN", "MAX",
	    "PROCESS");
	printa("%@8d %@12d %@8d %@8d %@10d  %s\n", @calls, @bytes, @average,
	    @smallest, @largest);

	normalize(@bytes, 1024);
	printf("\n%-16s %10s\n", "PROCESS", "KB");
	printa("%-16s %@10d\n", @bytes);
	denormalize(@bytes);

	trunc(@calls);
	trunc(@bytes);
	trunc(@average);
	trunc(@smallest);
	trunc(@largest);
}
