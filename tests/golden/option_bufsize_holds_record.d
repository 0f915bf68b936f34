/* options: -q -x bufsize=16 */
BEGIN
{
	trace(1);
	exit(0);
}
