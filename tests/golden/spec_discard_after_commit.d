/* options: -q -x nspec=2 */
/*
 * commit() takes effect where it stands: a discard() of the same speculation
 * later in the clause finds it already committed, while a commit() after a
 * discard() finds nothing to commit.
 */
BEGIN
{
	a = speculation();
	b = speculation();
}

BEGIN
{
	speculate(a);
	printf("committed before the discard\n");
}

BEGIN
{
	speculate(b);
	printf("discarded before the commit\n");
}

BEGIN
{
	commit(a);
	discard(a);
	discard(b);
	commit(b);
}

BEGIN
{
	printf("free again: %d %d\n", speculation(), speculation());
	exit(0);
}
