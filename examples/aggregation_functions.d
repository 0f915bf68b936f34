/*
 * aggregation_functions.d - feed the numbers 1..100 to every aggregating
 * function and print the results: a deterministic reference of what each
 * one computes (count 100, sum 5050, avg 50, min 1, max 100, and stddev 29,
 * from integer arithmetic: sqrt(338350 / 100 - 50 * 50)).
 *
 * Shows: count, sum, avg, min, max, stddev, quantize, lquantize,
 * llquantize; a tick-1ms probe as a loop with a global counter; exit(0)
 * after the last sample; printa with and without a format in END.
 * Run:   dtrace -s aggregation_functions.d
 */

#pragma D option quiet

BEGIN
{
	i = 0;
}

tick-1ms
/i < 100/
{
	i++;
	@c = count();
	@s = sum(i);
	@a = avg(i);
	@mn = min(i);
	@mx = max(i);
	@sd = stddev(i);
	@q = quantize(i);
	@l = lquantize(i, 0, 100, 10);
	@ll = llquantize(i, 10, 0, 2, 10);
}

tick-1ms
/i == 100/
{
	exit(0);
}

END
{
	printa("count()   %@d\n", @c);
	printa("sum(i)    %@d\n", @s);
	printa("avg(i)    %@d\n", @a);
	printa("min(i)    %@d\n", @mn);
	printa("max(i)    %@d\n", @mx);
	printa("stddev(i) %@d\n", @sd);
	printf("\nquantize(i):");
	printa(@q);
	printf("lquantize(i, 0, 100, 10):");
	printa(@l);
	printf("llquantize(i, 10, 0, 2, 10):");
	printa(@ll);
}
