/*
 * tcp_send_bytes.d - bytes handed to TCP per process every 5 seconds, in
 * kilobytes, from tcp_sendmsg() in the kernel.
 *
 * Shows: fbt::tcp_sendmsg:entry with arg2 (the size argument), sum() keyed
 * by (execname, pid), normalize() to kilobytes in a tick-5s clause, then
 * trunc() to start the next interval empty.
 * Run:   dtrace -s tcp_send_bytes.d
 */

#pragma D option quiet
#pragma D option aggsortrev

fbt::tcp_sendmsg:entry
{
	@sent[execname, pid] = sum(arg2);
}

tick-5s
{
	printf("\n%Y\n%-16s %7s %10s\n", walltimestamp, "PROCESS", "PID", "KB SENT");
	normalize(@sent, 1024);
	printa("%-16s %7d %@10d\n", @sent);
	trunc(@sent);
}
