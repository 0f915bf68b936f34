/*
 * execsnoop_arguments.d - trace new programs with their arguments, from the
 * stable proc provider.
 *
 * Shows: proc:::exec-success (in the new image), curpsinfo's pr_psargs and
 * pr_ppid, the psinfo_t translator of the D library, %Y time stamps.
 * Run:   dtrace -s execsnoop_arguments.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz

BEGIN
{
	printf("%-20s %7s %7s %6s %s\n", "TIME", "PID", "PPID", "UID", "ARGS");
}

proc:::exec-success
{
	printf("%-20Y %7d %7d %6d %s\n", walltimestamp, curpsinfo->pr_pid,
	    curpsinfo->pr_ppid, curpsinfo->pr_uid, curpsinfo->pr_psargs);
}
