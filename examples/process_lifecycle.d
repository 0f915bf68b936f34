/*
 * process_lifecycle.d - follow processes from exec to exit with their
 * lifetime, and count forks, from the sched tracepoints.
 *
 * Shows: sdt:sched::sched_process_exec, sched_process_exit and
 * sched_process_fork; a global associative array keyed by pid, deleted by
 * assigning 0 at exit; printf with %Y; an lquantize() of lifetimes in
 * milliseconds; count() per second with clear().
 * Run:   dtrace -s process_lifecycle.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz

sdt:sched::sched_process_exec
{
	exec_time[pid] = timestamp;
	printf("%Y exec  %-16s pid %-7d ppid %d\n", walltimestamp, execname, pid, ppid);
}

sdt:sched::sched_process_exit
/exec_time[pid] != 0 && pid == tid/
{
	this->ms = (timestamp - exec_time[pid]) / 1000000;
	printf("%Y exit  %-16s pid %-7d after %d ms\n", walltimestamp, execname, pid, this->ms);
	@lifetime_ms = lquantize(this->ms, 0, 5000, 250);
	exec_time[pid] = 0;
}

sdt:sched::sched_process_fork
{
	@forks = count();
}

tick-1s
{
	printf("%Y ", walltimestamp);
	printa("forks/s: %@d\n", @forks);
	clear(@forks);
}

END
{
	printf("\nLifetime of processes that exec'd and exited while tracing (ms):\n");
	printa(@lifetime_ms);
}
