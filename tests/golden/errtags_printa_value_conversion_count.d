/* options: -x errtags */
/*
 * printa() checks each %@ conversion against the aggregation's value, which
 * DTrace types uint64_t for count() and names "aggregating action".
 */
BEGIN
{
	@n[1] = count();
	printa("%d %@s\n", @n);
}
