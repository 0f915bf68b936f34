/* args: PID */
/*
 * python_function_latency.d - inclusive time spent in each Python
 * function of a running process: calls, total, average and worst case.
 *
 * Shows: a global associative array keyed by the tuple (tid, depth) to
 * match returns with entries under recursion, clause-local variables,
 * sum/avg/max/count joined in one printa sorted by the second
 * aggregation's values (aggsortpos=1, largest first with aggsortrev), the
 * dynvarsize option.
 * Run:   dtrace -s python_function_latency.d PID    (Ctrl-C to print)
 */

#pragma D option quiet
#pragma D option dynvarsize=16m
#pragma D option aggsortrev
#pragma D option aggsortpos=1

self int depth;

python$1:::function__entry
{
	self->depth++;
	entered[tid, self->depth] = timestamp;
}

python$1:::function__return
/self->depth > 0 && entered[tid, self->depth] != 0/
{
	this->us = (timestamp - entered[tid, self->depth]) / 1000;
	this->function = copyinstr(arg1);
	@calls[this->function] = count();
	@total_us[this->function] = sum(this->us);
	@average_us[this->function] = avg(this->us);
	@worst_us[this->function] = max(this->us);
	entered[tid, self->depth] = 0;
}

python$1:::function__return
/self->depth > 0/
{
	self->depth--;
}

END
{
	printf("%-32s %10s %12s %10s %10s\n", "FUNCTION", "CALLS", "TOTAL(us)",
	    "AVG(us)", "MAX(us)");
	printa("%-32s %@10d %@12d %@10d %@10d\n", @calls, @total_us, @average_us,
	    @worst_us);
}
