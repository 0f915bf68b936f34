/* options: -x errtags */
/*
 * printa() checks its format against the first aggregation's keys before it
 * compares the next aggregation's keys with the first one's.
 */
BEGIN
{
	@counts[1] = count();
	@total = count();
	printa("%s %@d %@d\n", @counts, @total);
}
