/* options: -q -x strsize=16 */
/*
 * A string key holding a character DTrace does not print is dumped in hex,
 * whole: all strsize bytes of the key, the NULs after the string included.
 */
BEGIN
{
	@[ "\001ab" ] = count();
	exit(0);
}
