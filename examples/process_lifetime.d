/*
 * process_lifetime.d - how long processes live, from fork to exit, and how
 * they end, from the stable proc provider.
 *
 * Shows: proc:::create with the child's psinfo_t (args[0]->pr_pid),
 * proc:::exit with its CLD_* reason, an associative array keyed by pid,
 * quantize() of lifetimes in microseconds by program and reason.
 * Run:   dtrace -s process_lifetime.d   (Ctrl-C to print the summary)
 */

#pragma D option quiet

proc:::create
{
	start[args[0]->pr_pid] = timestamp;
}

proc:::exit
/start[pid] != 0/
{
	this->reason = args[0] == CLD_EXITED ? "exited" :
	    args[0] == CLD_KILLED ? "killed" : "dumped";
	printf("%-16s %7d %-7s after %d us\n", execname, pid, this->reason,
	    (timestamp - start[pid]) / 1000);
	@lifetime_us[execname, this->reason] =
	    quantize((timestamp - start[pid]) / 1000);
	start[pid] = 0;
}

END
{
	printa("\n%s %s (us):\n%@d\n", @lifetime_us);
}
