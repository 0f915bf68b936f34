/* options: -q -x nspec=2 */
BEGIN
{
	a = speculation();
	b = speculation();
}

BEGIN
{
	speculate(a);
	printf("speculated on %d\n", a);
}

BEGIN
{
	speculate(b);
	printf("speculated on %d\n", b);
}

BEGIN
{
	/* DTrace for Linux lets one clause commit several speculations. */
	commit(a);
	commit(b);
}

BEGIN
{
	exit(0);
}
