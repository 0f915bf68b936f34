/* options: -q -x nspec=2 */
BEGIN
{
	a = speculation();
	b = speculation();
	printf("%d %d\n", a, b);
}

BEGIN
{
	speculate(a);
	printf("committed %d\n", 1);
}

BEGIN
{
	speculate(b);
	printf("discarded\n");
}

BEGIN
{
	printf("plain\n");
}

BEGIN
{
	commit(a);
	discard(b);
}

BEGIN
{
	exit(0);
}
