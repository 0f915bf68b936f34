/*
 * execsnoop.d - trace new programs as they are executed: who ran what,
 * from which parent, under which uid.
 *
 * Shows: syscall::execve:entry with copyinstr(arg0), basename() and
 * dirname() of the path, ppid and uid built-ins, the strsize option for
 * long paths, %Y time stamps.
 * Run:   dtrace -s execsnoop.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz
#pragma D option strsize=1024

BEGIN
{
	printf("%-20s %7s %7s %6s %-16s %-20s %s\n", "TIME", "PID", "PPID",
	    "UID", "PARENT", "PROGRAM", "DIRECTORY");
}

syscall::execve:entry
{
	this->path = copyinstr(arg0);
	printf("%-20Y %7d %7d %6d %-16s %-20s %s\n", walltimestamp, pid, ppid,
	    uid, execname, basename(this->path), dirname(this->path));
}
