/* options: -x errtags */
/*
 * printa() with a format needs an aggregation after it; dt_action_printa()
 * words its own count check as "N args passed, M expected".
 */
BEGIN
{
	printa("%d\n");
}
