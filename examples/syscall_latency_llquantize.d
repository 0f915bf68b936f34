/* args: PID */
/*
 * syscall_latency_llquantize.d - latency of every system call one process
 * makes, on a log-linear scale from 1 us to 10 s.
 *
 * Shows: a pid filter from the first macro argument ($1), llquantize()
 * (factor 10, magnitudes 0..6, 10 steps per magnitude), avg(), stddev()
 * and max() alongside, joined in one printa with several %@ conversions.
 * Run:   dtrace -s syscall_latency_llquantize.d PID
 */

#pragma D option quiet

syscall:::entry
/pid == $1/
{
	self->ts = timestamp;
}

syscall:::return
/self->ts/
{
	this->us = (timestamp - self->ts) / 1000;
	@distribution[probefunc] = llquantize(this->us, 10, 0, 6, 10);
	@average[probefunc] = avg(this->us);
	@deviation[probefunc] = stddev(this->us);
	@worst[probefunc] = max(this->us);
	@calls[probefunc] = count();
	self->ts = 0;
}

END
{
	printf("System call latency of pid %d (microseconds):\n", $1);
	printa(@distribution);
	printf("\n%-20s %10s %10s %10s %10s\n", "SYSCALL", "CALLS", "AVG(us)",
	    "STDDEV(us)", "MAX(us)");
	printa("%-20s %@10d %@10d %@10d %@10d\n", @calls, @average, @deviation, @worst);
}
