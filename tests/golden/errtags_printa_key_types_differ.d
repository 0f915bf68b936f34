/* options: -x errtags */
/*
 * printa() joins aggregations whose keys have compatible types; otherwise
 * dt_printa_validate() names each aggregation's key type.
 */
BEGIN
{
	@counts[1] = count();
	@names["x"] = count();
	printa("%@d %@d\n", @counts, @names);
}
