/* options: -q -x errtags */
/*
 * exit() is a data-recording action: speculate( ) may not follow it.
 */
BEGIN
{
	exit(0);
	speculate(1);
}
