/*
 * tcp_connect.d - outgoing connection attempts: connect(2) calls by
 * process and result, and IPv4 TCP connects seen inside the kernel.
 *
 * Shows: combining the syscall and fbt providers, errno on return
 * (115 = EINPROGRESS is normal for non-blocking sockets), a tuple key of
 * (string, int), tick-5s reports.
 * Run:   dtrace -s tcp_connect.d
 */

#pragma D option quiet

syscall::connect:entry
{
	self->connecting = 1;
}

syscall::connect:return
/self->connecting/
{
	@connects[execname, errno] = count();
	self->connecting = 0;
}

fbt::tcp_v4_connect:entry
{
	@tcp_v4[execname] = count();
}

tick-5s
{
	printf("\n%Y\n%-16s %6s %8s\n", walltimestamp, "PROCESS", "ERRNO", "CONNECTS");
	printa("%-16s %6d %@8d\n", @connects);
	printf("%-16s %15s\n", "PROCESS", "TCP_V4_CONNECT");
	printa("%-16s %@15d\n", @tcp_v4);
	trunc(@connects);
	trunc(@tcp_v4);
}
