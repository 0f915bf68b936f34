/*
 * read_latency.d - how long do read(2) calls take, per process?
 *
 * Shows: the classic entry/return timing pattern with a declared
 * thread-local variable (self->ts), a clause-local variable (this->),
 * quantize() of microseconds, deleting the thread-local by assigning 0.
 * Run:   dtrace -s read_latency.d    (Ctrl-C to print the histograms)
 */

#pragma D option quiet

self uint64_t ts;

syscall::read:entry
/pid != $pid/
{
	self->ts = timestamp;
}

syscall::read:return
/self->ts/
{
	this->elapsed_us = (timestamp - self->ts) / 1000;
	@latency[execname] = quantize(this->elapsed_us);
	self->ts = 0;
}

END
{
	printf("read(2) latency in microseconds, by process:\n");
	printa(@latency);
}
