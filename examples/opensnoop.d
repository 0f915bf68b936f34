/*
 * opensnoop.d - trace file opens system-wide with time, process, file
 * descriptor and path, marking failures.
 *
 * Shows: if/else inside a clause, printf with %-20Y and other widths,
 * copyinstr(), the switchrate and bufsize options for a steady stream of
 * output.
 * Run:   dtrace -s opensnoop.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz
#pragma D option bufsize=8m

BEGIN
{
	printf("%-20s %-16s %7s %4s %s\n", "TIME", "PROCESS", "PID", "FD", "PATH");
}

syscall::openat:entry
/pid != $pid/
{
	self->path = copyinstr(arg1);
	self->ts = timestamp;
}

syscall::openat:return
/self->ts/
{
	if (errno != 0) {
		printf("%-20Y %-16s %7d %4s %s (errno %d)\n", walltimestamp,
		    execname, pid, "ERR", self->path, errno);
	} else {
		printf("%-20Y %-16s %7d %4d %s\n", walltimestamp, execname, pid,
		    arg0, self->path);
	}
	self->path = 0;
	self->ts = 0;
}
