/* options: -q */
/*
 * curcpu points to the cpuinfo_t of the CPU the probe fires on (dtrace runs bound to
 * CPU 0): cpu_id is cpu, cpu_pset is 0 (Linux has no processor sets), cpu_chip is the
 * physical package, cpu_lgrp the NUMA node, cpu_info is NULL. sched.d's pset, chip and
 * lgrp read it. The pointer is a value: a clause-local copy reads the same CPU's
 * cpuinfo_t in a later clause of the firing.
 */
BEGIN
{
	this->c = curcpu;
	printf("%d %d %d\n", curcpu->cpu_id == cpu, curcpu->cpu_id, this->c->cpu_id);
	printf("%d %d %d %d\n", curcpu->cpu_pset, curcpu->cpu_chip, curcpu->cpu_lgrp,
	    curcpu->cpu_info == NULL);
	printf("%d %d %d %d %d\n", pset, chip, lgrp, sizeof (cpuinfo_t),
	    offsetof(cpuinfo_t, cpu_lgrp));
}

BEGIN
{
	printf("%d %d\n", this->c->cpu_id == cpu, (*this->c).cpu_chip == chip);
	exit(0);
}
