/*
 * signals.d - signals generated and delivered, by process, from the
 * signal tracepoints; useful when something keeps getting killed.
 *
 * Shows: sdt:signal::signal_generate (fires in the sender's context) and
 * signal_deliver (in the receiver's), two tracepoints sharing a clause,
 * probename and execname as keys, printa at END.
 * Run:   dtrace -s signals.d    (Ctrl-C to print)
 */

#pragma D option quiet

sdt:signal::signal_generate, sdt:signal::signal_deliver
{
	@signals[probename, execname] = count();
}

END
{
	printf("%-16s %-16s %8s\n", "EVENT", "PROCESS", "COUNT");
	printa("%-16s %-16s %@8d\n", @signals);
}
