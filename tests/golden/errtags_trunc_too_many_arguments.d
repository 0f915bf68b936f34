/* options: -x errtags */
/* trunc() takes an aggregation and at most one count. */
BEGIN
{
	@a = count();
	trunc(@a, 1, 2);
}
