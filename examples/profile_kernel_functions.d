/*
 * profile_kernel_functions.d - which kernel functions and modules are on
 * CPU most often? Sampled at 997 Hz for 10 seconds.
 *
 * Shows: func(arg0) and mod(arg0) as aggregation keys, printa with %a for
 * a symbol key, printf with %a and %p of a raw kernel PC, a rate-limited
 * sample printout with a global counter.
 * Run:   dtrace -s profile_kernel_functions.d
 */

#pragma D option quiet
#pragma D option aggsortrev

BEGIN
{
	shown = 0;
}

profile-997
/arg0/
{
	@functions[func(arg0)] = count();
	@modules[mod(arg0)] = count();
}

profile-997
/arg0 && shown < 5/
{
	shown++;
	printf("sample on cpu %d: pc %p = %a\n", cpu, arg0, arg0);
}

tick-10s
{
	exit(0);
}

END
{
	trunc(@functions, 20);
	printf("\n%-56s %8s\n", "FUNCTION", "SAMPLES");
	printa("%-56a %@8d\n", @functions);
	printf("\nBy module:");
	printa(@modules);
}
