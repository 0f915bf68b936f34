/*
 * open_failures.d - show every openat(2) that fails: which process, which
 * path, which errno (ENOENT is 2, EACCES is 13).
 *
 * Shows: a declared string thread-local (self string), copyinstr() of a
 * user pointer argument, errno on return, deleting thread-locals by
 * assigning 0, several clauses for one probe running in program order.
 * Run:   dtrace -s open_failures.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz

self string path;
self int opening;

BEGIN
{
	printf("%-16s %7s %5s %s\n", "PROCESS", "PID", "ERRNO", "PATH");
}

syscall::openat:entry
/pid != $pid/
{
	self->path = copyinstr(arg1);
	self->opening = 1;
}

syscall::openat:return
/self->opening && errno != 0/
{
	printf("%-16s %7d %5d %s\n", execname, pid, errno, self->path);
}

syscall::openat:return
/self->opening/
{
	self->path = 0;
	self->opening = 0;
}
