/*
 * profile_on_cpu.d - what is running on the CPUs, and is it in the kernel
 * or in user mode? A sampled "top" printed every 5 seconds.
 *
 * Shows: profile-997 with arg0/arg1 (kernel and user PC), ?: producing a
 * string key, a two-key aggregation, aggsortrev, trunc() to the top 15 then
 * trunc() to empty, printa with widths.
 * Run:   dtrace -s profile_on_cpu.d
 */

#pragma D option quiet
#pragma D option aggsortrev

profile-997
{
	@samples[execname, arg0 ? "kernel" : "user"] = count();
}

tick-5s
{
	printf("\n%Y  on-CPU samples (997 Hz per CPU)\n", walltimestamp);
	printf("%-16s %-6s %8s\n", "PROCESS", "MODE", "SAMPLES");
	trunc(@samples, 15);
	printa("%-16s %-6s %@8d\n", @samples);
	trunc(@samples);
}
