/*
 * probe_builtins.d - wait for any process to call getppid(2), then show
 * what the built-in variables say about that probe firing and exit.
 *
 * Shows: probeprov, probemod, probefunc, probename, id, execname, pid,
 * ppid, tid, uid, gid, cpu, timestamp and walltimestamp; exit(0) after the
 * first firing.
 * Run:   dtrace -s probe_builtins.d    (then run any program that calls
 *        getppid, for example: sh -c 'echo $PPID')
 */

#pragma D option quiet

syscall::getppid:entry
{
	printf("probe         %s:%s:%s:%s (id %d)\n", probeprov, probemod,
	    probefunc, probename, id);
	printf("process       %s pid %d ppid %d tid %d\n", execname, pid, ppid, tid);
	printf("credentials   uid %d gid %d\n", uid, gid);
	printf("cpu           %d\n", cpu);
	printf("timestamp     %d ns (monotonic)\n", timestamp);
	printf("walltimestamp %d ns = %Y\n", walltimestamp, walltimestamp);
	exit(0);
}
