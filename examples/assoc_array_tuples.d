/*
 * assoc_array_tuples.d - how much time passes between two calls of the
 * same system call by the same process? Short gaps mean tight loops.
 *
 * Shows: a global associative array with a declared tuple key signature
 * (uint64_t last_call[pid_t, string]), reading a never-assigned element
 * (which yields 0), a clause-local delta, quantize() of microseconds,
 * the dynvarsize option sizing the space such arrays live in.
 * Run:   dtrace -s assoc_array_tuples.d    (Ctrl-C to print)
 */

#pragma D option quiet
#pragma D option dynvarsize=8m

uint64_t last_call[pid_t, string];

syscall:::entry
/pid != $pid && last_call[pid, probefunc] != 0/
{
	this->gap_us = (timestamp - last_call[pid, probefunc]) / 1000;
	@gap[probefunc] = quantize(this->gap_us);
}

syscall:::entry
/pid != $pid/
{
	last_call[pid, probefunc] = timestamp;
}

END
{
	printf("Microseconds between consecutive calls of the same syscall by one process:\n");
	printa(@gap);
}
