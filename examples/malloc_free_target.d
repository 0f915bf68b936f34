/* args: $target */
/*
 * malloc_free_target.d - run a command and count its malloc(), calloc(),
 * realloc() and free() calls, with the bytes requested.
 *
 * Shows: pid$target with -c (dtrace starts the command stopped and traces
 * it from the first instruction), several pid probes in one clause,
 * probefunc as key, ?: choosing the size argument (malloc's arg0,
 * realloc's arg1), dtrace exiting when the command exits.
 * Run:   dtrace -s malloc_free_target.d -c 'ls -l /usr/bin'
 */

#pragma D option quiet

pid$target::malloc:entry, pid$target::calloc:entry,
pid$target::realloc:entry, pid$target::free:entry
{
	@calls[probefunc] = count();
}

pid$target::malloc:entry, pid$target::realloc:entry
{
	@bytes[probefunc] = sum(probefunc == "malloc" ? arg0 : arg1);
}

pid$target::free:entry
/arg0 == 0/
{
	@null_frees = count();
}

END
{
	printf("%-10s %10s\n", "FUNCTION", "CALLS");
	printa("%-10s %@10d\n", @calls);
	printf("\n%-10s %10s\n", "FUNCTION", "BYTES");
	printa("%-10s %@10d\n", @bytes);
	printa("\nfree(NULL) calls: %@d\n", @null_frees);
}
