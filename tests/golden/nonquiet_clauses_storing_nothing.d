/* options: -x nspec=2 */
/*
 * A clause prints its probe line only when it records something: an empty
 * clause (the default action) and a clause whose only action is speculate()
 * record their EPID; clauses that only assign, aggregate, commit or discard
 * record nothing, as in DTrace.
 */
BEGIN
{
	x = 1;
	s = speculation();
}

BEGIN
{
	@counts = count();
}

BEGIN
{
}

BEGIN
{
	speculate(s);
}

BEGIN
{
	t = speculation();
	discard(t);
}

BEGIN
{
	commit(s);
}

BEGIN
{
	exit(0);
}
