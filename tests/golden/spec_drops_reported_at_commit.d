/* options: -q -x nspec=3 -x specsize=16 */
/*
 * DTrace counts a speculation's drops in its buffers and reports them when the
 * speculation is committed: the drops of a discarded speculation, or of one
 * never committed, are never reported.
 */
BEGIN
{
	a = speculation();
	b = speculation();
	c = speculation();
}

BEGIN
{
	speculate(a);
	printf("%d %d %d\n", 1, 2, 3);
}

BEGIN
{
	speculate(a);
	printf("committed\n");
}

BEGIN
{
	speculate(b);
	printf("discarded\n");
}

BEGIN
{
	speculate(b);
	printf("%d %d %d\n", 4, 5, 6);
}

BEGIN
{
	speculate(c);
	printf("%d %d %d\n", 7, 8, 9);
}

BEGIN
{
	discard(b);
}

BEGIN
{
	commit(a);
}

BEGIN
{
	exit(0);
}
