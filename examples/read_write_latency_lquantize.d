/* args: sshd */
/*
 * read_write_latency_lquantize.d - linear latency histograms for read(2)
 * and write(2), 0 to 1000 microseconds in 50 us steps, for one process
 * name given as the argument.
 *
 * Shows: two probes sharing one clause, probefunc as a key, lquantize(),
 * a string macro argument ($$1) compared with execname.
 * Run:   dtrace -s read_write_latency_lquantize.d sshd
 */

#pragma D option quiet

syscall::read:entry, syscall::write:entry
/execname == $$1/
{
	self->ts = timestamp;
}

syscall::read:return, syscall::write:return
/self->ts/
{
	@latency[probefunc] = lquantize((timestamp - self->ts) / 1000, 0, 1000, 50);
	self->ts = 0;
}

END
{
	printf("%s: read/write latency (us), linear buckets of 50 us\n", $$1);
	printa(@latency);
}
