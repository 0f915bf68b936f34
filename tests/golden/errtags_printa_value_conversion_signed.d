/* options: -x errtags */
/*
 * The value of every aggregating function but count() is int64_t to printa()'s
 * %@ conversions, so %@lu (unsigned long) does not fit a sum(); the first
 * aggregation's function decides.
 */
BEGIN
{
	@s = sum(1);
	@n = count();
	printa("%@lu %@lu\n", @s, @n);
}
