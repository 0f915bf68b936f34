/* options: -q -x rawbytes -x strsize=20 */
/* With rawbytes, a string aggregation key prints as a hex dump of its strsize bytes. */
BEGIN
{
	@[ "ab" ] = count();
	exit(0);
}
