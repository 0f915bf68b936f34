/*
 * kill_snoop.d - who sends signals to whom, and did it work?
 *
 * Shows: saving syscall arguments (arg0 = target pid, arg1 = signal) in
 * thread-locals at entry and reporting them at return, ?: choosing between
 * two strings, strjoin() and lltostr() building text, a predicate with ||
 * counting fatal signals (SIGKILL is 9, SIGTERM is 15) for a summary.
 * Run:   dtrace -s kill_snoop.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz

BEGIN
{
	printf("%-16s %7s %8s %4s %s\n", "SENDER", "PID", "TARGET", "SIG", "RESULT");
}

syscall::kill:entry
{
	self->target = arg0;
	self->signal = arg1;
	self->in_kill = 1;
}

syscall::kill:entry
/arg1 == 9 || arg1 == 15/
{
	@fatal[execname, arg1 == 9 ? "SIGKILL" : "SIGTERM"] = count();
}

syscall::kill:return
/self->in_kill/
{
	printf("%-16s %7d %8d %4d %s\n", execname, pid, self->target,
	    self->signal, errno == 0 ? "ok" : strjoin("errno ", lltostr(errno)));
	self->target = 0;
	self->signal = 0;
	self->in_kill = 0;
}

END
{
	printf("\n%-16s %-8s %6s\n", "SENDER", "SIGNAL", "COUNT");
	printa("%-16s %-8s %@6d\n", @fatal);
}
