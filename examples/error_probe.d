/*
 * error_probe.d - what happens when a clause faults at run time: the
 * faulting clause stops, the ERROR probe fires with the details, and the
 * other clauses carry on.
 *
 * Shows: several BEGIN clauses run in program order (written both as
 * BEGIN and as the full dtrace:::BEGIN), a run-time division
 * by zero (fault code 4), a dtrace:::ERROR clause printing arg1 (the
 * enabled probe ID), arg2 (action index), arg3 (DIF offset), arg4 (fault
 * code) and arg5 (address), exit(0) and END.
 * Run:   dtrace -s error_probe.d
 */

#pragma D option quiet

BEGIN
{
	divisor = 0;
	printf("1. about to divide by zero\n");
}

dtrace:::BEGIN
{
	result = 100 / divisor;
	printf("never printed: %d\n", result);
}

dtrace:::ERROR
{
	printf("2. ERROR probe: epid %d, action #%d, DIF offset %d, fault %d (%s), addr 0x%x\n",
	    arg1, arg2, arg3, arg4, arg4 == 4 ? "divide-by-zero" : "other", arg5);
}

BEGIN
{
	printf("3. the next clause still runs\n");
	exit(0);
}

dtrace:::END
{
	printf("4. END fires last\n");
}
