/* args: PID */
/*
 * malloc_sizes.d - the sizes a running process asks malloc() for, and the
 * code paths that allocate most often.
 *
 * Shows: the pid provider with a PID from the command line
 * (pid$1::malloc:entry), arg0 as the requested size, quantize() with a
 * string key, ustack(5) as a key, sum() and count() without keys.
 * Run:   dtrace -s malloc_sizes.d PID    (Ctrl-C to print)
 */

#pragma D option quiet

pid$1::malloc:entry
{
	@sizes["malloc request size (bytes)"] = quantize(arg0);
	@callers[ustack(5)] = count();
	@total_bytes = sum(arg0);
	@total_calls = count();
}

END
{
	printa(@sizes);
	printa("Total: %@d bytes", @total_bytes);
	printa(" in %@d calls\n", @total_calls);
	trunc(@callers, 5);
	printf("\nTop allocating call paths:\n");
	printa("%k%@10d calls\n\n", @callers);
}
