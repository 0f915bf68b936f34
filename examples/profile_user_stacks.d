/* args: $target */
/*
 * profile_user_stacks.d - sample the user-level stacks of one program at
 * 997 Hz while it runs: where does it spend its CPU time?
 *
 * Shows: $target (the process started with -c or grabbed with -p), the
 * predicate /arg1 && pid == $target/ (arg1 is the user PC, 0 in kernel
 * mode), ustack() as an aggregation key, the ustackframes option.
 * Run:   dtrace -s profile_user_stacks.d -c 'gzip -9 -k bigfile'
 *        dtrace -s profile_user_stacks.d -p PID
 */

#pragma D option quiet
#pragma D option ustackframes=32

profile-997
/arg1 && pid == $target/
{
	@stacks[ustack()] = count();
}

END
{
	trunc(@stacks, 15);
	printa(@stacks);
}
