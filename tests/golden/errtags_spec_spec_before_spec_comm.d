/* options: -q -x errtags */
/*
 * A second speculate( ) after speculate( ) and commit( ) is reported as
 * following speculate( ), the first rule DTrace checks.
 */
BEGIN
{
	speculate(1);
	commit(2);
	speculate(3);
}
