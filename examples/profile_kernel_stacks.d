/*
 * profile_kernel_stacks.d - sample kernel stacks at 997 Hz on every CPU
 * for 30 seconds and print the ten hottest ones: the input for a kernel
 * flame graph.
 *
 * Shows: profile-997, the predicate /arg0/ (arg0 is the kernel PC, 0 when
 * the CPU was in user mode), stack() as an aggregation key, the
 * stackframes option, printa with %k, trunc() before printing, exit(0)
 * from tick-30s.
 * Run:   dtrace -s profile_kernel_stacks.d
 */

#pragma D option quiet
#pragma D option stackframes=32

inline int TOPN = 10;

profile-997
/arg0/
{
	@stacks[stack()] = count();
}

tick-30s
{
	exit(0);
}

END
{
	trunc(@stacks, TOPN);
	printa("%k%@12d samples\n\n", @stacks);
}
