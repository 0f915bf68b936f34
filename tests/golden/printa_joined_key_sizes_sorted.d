/* options: -q -x aggsortkey */
/*
 * Sorted by key, a joined printa() orders key components recorded in fewer bytes
 * first (DTrace's dt_aggregate_keycmp()), so a char key comes before a long key of the
 * same or a smaller value.
 */
BEGIN
{
	@c[(char)3] = count();
	@c[(char)1] = count();
	@l[(long)1] = sum(4);
	@l[(long)2] = sum(5);
	printa("%d %@d %@d\n", @c, @l);
	exit(0);
}
