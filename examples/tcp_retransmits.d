/*
 * tcp_retransmits.d - TCP retransmissions per second, a first sign of
 * packet loss or an overloaded peer.
 *
 * Shows: sdt:tcp::tcp_retransmit_skb, a global scalar counter reset every
 * second, if/else in a tick clause choosing what to print.
 * Run:   dtrace -s tcp_retransmits.d
 */

#pragma D option quiet

BEGIN
{
	retransmits = 0;
	printf("Counting TCP retransmissions, one line per second...\n");
}

sdt:tcp::tcp_retransmit_skb
{
	retransmits++;
}

tick-1s
{
	if (retransmits == 0) {
		printf("%Y no retransmissions\n", walltimestamp);
	} else {
		printf("%Y %d retransmission%s\n", walltimestamp, retransmits,
		    retransmits == 1 ? "" : "s");
	}
	retransmits = 0;
}
