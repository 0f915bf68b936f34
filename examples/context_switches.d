/*
 * context_switches.d - context switches per CPU and per process, every
 * second, from the sched_switch kernel tracepoint.
 *
 * Shows: the sdt provider naming a tracepoint as sdt:GROUP::EVENT, the cpu
 * built-in as a key, execname (the task being switched out), tick-1s with
 * printa, clear() keeping keys and trunc() dropping them.
 * Run:   dtrace -s context_switches.d
 */

#pragma D option quiet
#pragma D option aggsortkey

sdt:sched::sched_switch
{
	@per_cpu[cpu] = count();
	@per_process[execname] = count();
}

tick-1s
{
	printf("\n%Y\n", walltimestamp);
	printa("  cpu %3d %@8d switches/s\n", @per_cpu);
	trunc(@per_process, 5);
	printa("  %-16s %@8d\n", @per_process);
	clear(@per_cpu);
	trunc(@per_process);
}
