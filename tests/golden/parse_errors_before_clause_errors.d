/* options: -x errtags */
/*
 * DTrace parses the whole program before it checks any clause, so the division by a
 * constant zero in END is reported before BEGIN's undefined variable.
 */
BEGIN
{
	trace(y);
}

END
{
	x = 1 / 0;
}
