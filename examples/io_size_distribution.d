/*
 * io_size_distribution.d - what sizes do processes ask read(2) and write(2)
 * for, and how many bytes do they actually get?
 *
 * Shows: arg2 (requested byte count) on entry, arg0 (return value) on
 * return, quantize() keyed by a (probefunc, execname) tuple, sum() of
 * bytes, printa with %@d.
 * Run:   dtrace -s io_size_distribution.d    (Ctrl-C to print)
 */

#pragma D option quiet

syscall::read:entry, syscall::write:entry
/pid != $pid/
{
	@requested[probefunc, execname] = quantize(arg2);
}

syscall::read:return, syscall::write:return
/pid != $pid && (int64_t)arg0 > 0/
{
	@transferred[probefunc, execname] = sum(arg0);
}

END
{
	printf("Requested sizes (bytes):\n");
	printa(@requested);
	printf("\n%-8s %-16s %16s\n", "CALL", "PROCESS", "BYTES");
	printa("%-8s %-16s %@16d\n", @transferred);
}
