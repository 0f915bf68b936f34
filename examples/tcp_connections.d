/*
 * tcp_connections.d - a log of TCP connections as they are established, by
 * whom, with both ends, and how long each lasted when it closes.
 *
 * Shows: tcp:::connect-established and accept-established with ipinfo_t
 * (ip_saddr, ip_daddr) and tcpinfo_t (ports), tcp:::state-change with
 * tcpsinfo_t's new state and tcplsinfo_t's old one, tcp_state_string[],
 * an associative array keyed by the socket's address.
 * Run:   dtrace -s tcp_connections.d
 */

#pragma D option quiet
#pragma D option switchrate=10hz

BEGIN
{
	printf("%-20s %-6s %-16s %21s    %-21s\n", "TIME", "DIR", "PROCESS",
	    "LOCAL", "REMOTE");
}

tcp:::connect-established
{
	printf("%-20Y %-6s %-16s %15s:%-5d -> %s:%d\n", walltimestamp, "out",
	    execname, args[2]->ip_daddr, args[4]->tcp_dport, args[2]->ip_saddr,
	    args[4]->tcp_sport);
	opened[args[3]->tcps_addr] = timestamp;
}

tcp:::accept-established
{
	printf("%-20Y %-6s %-16s %15s:%-5d <- %s:%d\n", walltimestamp, "in",
	    execname, args[2]->ip_daddr, args[4]->tcp_dport, args[2]->ip_saddr,
	    args[4]->tcp_sport);
	opened[args[3]->tcps_addr] = timestamp;
}

tcp:::state-change
/args[3]->tcps_state == TCP_STATE_CLOSED && opened[args[3]->tcps_addr] != 0/
{
	printf("%-20Y %-6s %-16s closed after %d us (was %s)\n", walltimestamp,
	    "close", execname, (timestamp - opened[args[3]->tcps_addr]) / 1000,
	    tcp_state_string[args[5]->tcps_state]);
	opened[args[3]->tcps_addr] = 0;
}
