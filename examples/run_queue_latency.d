/*
 * run_queue_latency.d - how long woken threads wait for a CPU: from
 * sched:::wakeup to the thread's sched:::on-cpu, as a histogram per program.
 *
 * Shows: sched:::wakeup with the woken thread's lwpsinfo_t (args[0]->pr_lwpid),
 * a global associative array keyed by thread id (the waker is another
 * thread), sched:::on-cpu in the woken thread's context, quantize().
 * Run:   dtrace -s run_queue_latency.d   (Ctrl-C to print the histograms)
 */

#pragma D option quiet

sched:::wakeup
{
	woken[args[0]->pr_lwpid] = timestamp;
}

sched:::on-cpu
/woken[tid] != 0/
{
	@latency_us[execname] = quantize((timestamp - woken[tid]) / 1000);
	woken[tid] = 0;
}

END
{
	printa("%s (us)\n%@d\n", @latency_us);
}
