/* args: PID malloc */
/*
 * user_function_latency.d - latency of any function in a running process,
 * named on the command line: for example malloc, fsync or SSL_read.
 *
 * Shows: two macro arguments inside a probe description (pid$1::$2:entry),
 * the string form $$2 in printf, a declared thread-local, llquantize() of
 * nanoseconds, avg() and count() printed together.
 * Run:   dtrace -s user_function_latency.d PID malloc
 */

#pragma D option quiet

self uint64_t start;

pid$1::$2:entry
{
	self->start = timestamp;
}

pid$1::$2:return
/self->start/
{
	this->ns = timestamp - self->start;
	@latency = llquantize(this->ns, 10, 1, 9, 10);
	@average = avg(this->ns);
	@calls = count();
	self->start = 0;
}

END
{
	printf("%s() latency in pid %d (ns):\n", $$2, $1);
	printa(@latency);
	printa("calls %@d, ", @calls);
	printa("average %@d ns\n", @average);
}
