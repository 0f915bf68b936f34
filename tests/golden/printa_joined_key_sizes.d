/* options: -q */
/*
 * A joined printa() pairs entries whose key records are equal, sizes included (DTrace's
 * dt_aggregate_keycmp() orders a component recorded in fewer bytes first): a char, a
 * short, an int and a long key of the same value are separate rows, each with zeros
 * for the aggregations that have no such key (D-REFERENCE §8.5).
 */
BEGIN
{
	@c[(char)1] = count();
	@s[(short)1] = sum(2);
	@i[(int)1] = sum(3);
	@l[(long)1] = sum(4);
	@l[(long)2] = sum(5);
	printa("%d %@d %@d %@d %@d\n", @c, @s, @i, @l);
	printa(@c, @l);
	exit(0);
}
