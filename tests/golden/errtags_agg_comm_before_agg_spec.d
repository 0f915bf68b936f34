/* options: -q -x errtags */
/*
 * DTrace walks a clause's actions in order: an aggregation after
 * speculate( ) and commit( ) meets the commit( ) rule first.
 */
BEGIN
{
	speculate(1);
	commit(2);
	@a = count();
}
