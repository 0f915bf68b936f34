/* options: -q -x droptags -x nspec=2 */
/*
 * A discarded speculation is free at once only when the discarding CPU alone
 * speculated data into it. Discarded before anything was speculated, it stays
 * busy until DTrace's cleaner runs (cleanrate): speculate() of it drops the
 * data, and a speculation() that finds no free one fails with the "busy"
 * reason. A committed speculation is free at once.
 */
BEGIN
{
	a = speculation();
	discard(a);
	b = speculation();
}

BEGIN
{
	speculate(a);
	printf("never printed\n");
}

BEGIN
{
	speculate(b);
	printf("speculated, then discarded\n");
}

BEGIN
{
	discard(b);
	c = speculation();
}

BEGIN
{
	speculate(c);
	printf("speculated, then committed\n");
}

BEGIN
{
	commit(c);
}

BEGIN
{
	d = speculation();
	e = speculation();
	printf("%d %d %d %d %d\n", a, b, c, d, e);
	exit(0);
}
