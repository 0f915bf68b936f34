/*
 * block_io.d - block I/O requests issued and completed per second, with
 * the processes that were running when requests were issued.
 *
 * Shows: two block-layer tracepoints (sdt:block::block_rq_issue and
 * block_rq_complete), keyless and keyed aggregations printed from one
 * tick-1s clause, printa with the value first.
 * Run:   dtrace -s block_io.d
 */

#pragma D option quiet
#pragma D option aggsortrev

sdt:block::block_rq_issue
{
	@issued = count();
	@issuers[execname] = count();
}

sdt:block::block_rq_complete
{
	@completed = count();
}

tick-1s
{
	printf("%Y ", walltimestamp);
	printa("issued %@6d ", @issued);
	printa("completed %@6d\n", @completed);
	trunc(@issuers, 3);
	printa("    %@6d %s\n", @issuers);
	clear(@issued);
	clear(@completed);
	trunc(@issuers);
}
