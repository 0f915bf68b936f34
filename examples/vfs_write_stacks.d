/*
 * vfs_write_stacks.d - the kernel code paths that lead to vfs_write(),
 * and the functions calling it directly.
 *
 * Shows: stack() as an aggregation key in an fbt clause, func(caller) as a
 * key, the stackframes and stackindent options, printa with %k and with
 * %a, trunc() to the top entries, exit(0) after 10 seconds.
 * Run:   dtrace -s vfs_write_stacks.d
 */

#pragma D option quiet
#pragma D option stackframes=12
#pragma D option stackindent=4

fbt::vfs_write:entry
{
	@paths[stack()] = count();
	@callers[func(caller)] = count();
}

tick-10s
{
	exit(0);
}

END
{
	trunc(@paths, 5);
	printf("Top 5 kernel stacks into vfs_write():\n");
	printa("%k%@10d calls\n\n", @paths);
	printf("%-48s %10s\n", "DIRECT CALLER", "CALLS");
	printa("%-48a %@10d\n", @callers);
}
