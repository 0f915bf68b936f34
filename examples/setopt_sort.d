/*
 * setopt_sort.d - the same report printed twice every 5 seconds: once
 * sorted by count, once sorted by process name, switching the sort order
 * at run time.
 *
 * Shows: the setopt() action changing the dynamic option aggsortkey while
 * tracing, printa() without a format, trunc() of the anonymous
 * aggregation.
 * Run:   dtrace -s setopt_sort.d
 */

#pragma D option quiet

syscall:::entry
{
	@[execname] = count();
}

tick-5s
{
	printf("\n--- by count ---");
	printa(@);
	setopt("aggsortkey", "yes");
	printf("\n--- by name ---");
	printa(@);
	setopt("aggsortkey", "no");
	trunc(@);
}
