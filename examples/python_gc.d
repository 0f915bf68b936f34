/* args: PID */
/*
 * python_gc.d - how long do CPython's garbage collections take, per
 * generation, and how many objects do they free?
 *
 * Shows: the gc__start (arg0 = generation) and gc__done (arg0 = objects
 * collected) USDT probes, thread-locals carrying values from one probe to
 * the next, quantize() of microseconds keyed by generation, sum().
 * Run:   dtrace -s python_gc.d PID    (Ctrl-C to print)
 */

#pragma D option quiet

python$1:::gc__start
{
	self->gc_start = timestamp;
	self->generation = arg0;
}

python$1:::gc__done
/self->gc_start/
{
	@pause_us[self->generation] = quantize((timestamp - self->gc_start) / 1000);
	@collected[self->generation] = sum(arg0);
	@collections[self->generation] = count();
	self->gc_start = 0;
}

END
{
	printf("GC pause (us) by generation:\n");
	printa(@pause_us);
	printf("%-10s %12s %12s\n", "GENERATION", "COLLECTIONS", "FREED");
	printa("%-10d %@12d %@12d\n", @collections, @collected);
}
