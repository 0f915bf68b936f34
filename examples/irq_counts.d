/*
 * irq_counts.d - hardware and software interrupts per CPU over 10
 * seconds: spots interrupt storms and badly balanced IRQ affinity.
 *
 * Shows: two tracepoints in one clause, probename in the key (to tell
 * irq_handler_entry from softirq_entry), the cpu built-in, the aggsortkey
 * and aggsortkeypos options, exit(0) from tick-10s.
 * Run:   dtrace -s irq_counts.d
 */

#pragma D option quiet
#pragma D option aggsortkey
#pragma D option aggsortkeypos=1

sdt:irq::irq_handler_entry, sdt:irq::softirq_entry
{
	@interrupts[probename, cpu] = count();
}

tick-10s
{
	exit(0);
}

END
{
	printf("%-20s %4s %10s\n", "EVENT", "CPU", "COUNT");
	printa("%-20s %4d %@10d\n", @interrupts);
}
